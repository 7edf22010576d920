"""What the engine's records of reasons cost: this checkout against another one (the code
before them), in one run, alternating.

The Peer-to-Peer engine counts how each contest was decided and classifies every customer
that turns unhappy (sim/games/peer_to_peer/why_kernel.py). This plays the same games
(``--games`` of each player count, one thread, the default expert strategy, seed 1) in a
fresh process of each checkout, the two alternating ``--rounds`` times, and reports each
side's median CPU time per game (time.process_time, so other work on a shared machine
does not count) and their ratio. Each process warms up (compiles or loads its kernels)
before it measures.

    git archive <base commit> | tar -x -C /tmp/base
    python benchmarks/answers_cost.py --base /tmp/base

Writes benchmarks/answers_cost.md (the latest results only). Nothing here is run by pytest.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

MEASURE = """
import json, sys, time
from sim.core.game import configure
players, games = int(sys.argv[1]), int(sys.argv[2])
config = configure("peer-to-peer", players)
config.play(1, 0, 200, 1)   # warm-up: compile or load the kernels
start = time.process_time()
config.play(1, 1000, games, 1)
print(json.dumps((time.process_time() - start) / games))
"""


def cpu_per_game(tree: Path, players: int, games: int) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", MEASURE, str(players), str(games)], env=env,
                         cwd=str(tree), capture_output=True, text=True, check=True)
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the other checkout (the code before)")
    parser.add_argument("--players", default="2,4,6")
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "answers_cost.md"))
    args = parser.parse_args()
    base = Path(args.base).resolve()
    rows = []
    for players in (int(p) for p in args.players.split(",")):
        times: dict[str, list[float]] = {"base": [], "this": []}
        for r in range(args.rounds):
            order = (("base", base), ("this", ROOT)) if r % 2 == 0 else (("this", ROOT), ("base", base))
            for name, tree in order:
                times[name].append(cpu_per_game(tree, players, args.games))
        b, t = statistics.median(times["base"]), statistics.median(times["this"])
        rows.append((players, b, t, t / b, times))
        print(f"{players} players: base {1e6 * b:.1f} us/game, this {1e6 * t:.1f} us/game, "
              f"ratio {t / b:.3f}", flush=True)
    lines = ["# The cost of the reasons the engine records", "",
             f"`python benchmarks/answers_cost.py --base BASE --games {args.games} "
             f"--rounds {args.rounds}`: CPU time per game (one thread, expert v expert, "
             "seed 1), median of the rounds, the two checkouts alternating.", "",
             "| players | base us/game | this us/game | this / base | rounds (this / base) |",
             "|---|---|---|---|---|"]
    for players, b, t, ratio, times in rows:
        each = ", ".join(f"{x / y:.3f}" for x, y in zip(times["this"], times["base"]))
        lines.append(f"| {players} | {1e6 * b:.1f} | {1e6 * t:.1f} | {ratio:.3f} | {each} |")
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
