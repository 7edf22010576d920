"""The default player's speed against greedy's, in this tree (B) and a base revision (A).

    python benchmarks/default_speed.py --base 8390984            # Peer-to-Peer, 4 players
    python benchmarks/default_speed.py --base 8390984 --rounds 15 --players 2,4,6
    python benchmarks/default_speed.py --base 8390984 --game plai --cheap weighted

The flagship run plays the default strategy (``expert``) on every seat; a cheap strategy
(greedy: no noise, no high-card or effects feature) shows what the engine costs without
the default's decisions. Each tree gets one worker process per (players, strategy), both
teams playing that strategy, compiled and warmed up first. Then the bursts alternate: A
then B then B then A per round, each tree playing its default burst and its cheap burst
back to back (their order swapped every round), so that the drift of a shared machine hits
all of them alike. A burst plays the same games every time on one thread and reports its
CPU time (time.process_time).

The table gives, per tree, the median CPU microseconds per game of each strategy and the
median over rounds of the default's games per second as a share of the cheap strategy's
(from the bursts played back to back), and the default's B / A time per game (below 1:
this tree is faster). The latest table goes to benchmarks/results/default_speed.md (and
stdout); the base revision's tree is exported once (benchmarks/engine_ab.py's export).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "default_speed.md"
GAMES = {"peer-to-peer": (20_000, 40_000), "plai": (10_000, 20_000)}  # default, cheap a burst


def worker(tree: str, game: str, players: int, spec: str, games: int) -> None:
    """Compile and warm one configuration, then answer each line on stdin with one
    burst's CPU seconds (JSON)."""
    sys.path.insert(0, tree)
    import sim   # noqa: PLC0415 - the tree's own package, before any installed one
    from sim.core.game import configure   # noqa: PLC0415

    assert Path(sim.__file__).resolve().is_relative_to(Path(tree).resolve()), sim.__file__
    slots = {"A": spec, "B": spec} if game == "peer-to-peer" else {"all": spec}
    config = configure(game, players, strategies=slots)
    config.play(1, 0, 200, 1)   # compile and warm up
    print(json.dumps({"ready": True}), flush=True)
    for _ in sys.stdin:
        cpu = time.process_time()
        config.play(1, 1000, games, 1)
        print(json.dumps({"cpu": time.process_time() - cpu, "games": games}), flush=True)


class Worker:
    def __init__(self, tree: Path, game: str, players: int, spec: str, games: int):
        env = {**os.environ, "PYTHONPATH": str(tree)}
        env.pop("NUMBA_CACHE_DIR", None)   # each tree: its own kernel-source-keyed cache
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker", str(tree), game,
             str(players), spec, str(games)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tree, env=env)
        self.read()

    def read(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"worker ended (exit {self.proc.wait()})")
        return json.loads(line)

    def burst(self) -> float:
        """CPU microseconds per game of one burst."""
        self.proc.stdin.write("go\n")
        self.proc.stdin.flush()
        r = self.read()
        return 1e6 * r["cpu"] / r["games"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def measure(trees: dict[str, Path], game: str, players: int, default: str, cheap: str,
            rounds: int) -> dict:
    games = GAMES[game]
    workers = {}
    try:
        for label, tree in trees.items():
            for spec, count in zip((default, cheap), games):
                workers[label, spec] = Worker(tree, game, players, spec, count)
        times = {key: [] for key in workers}
        shares = {label: [] for label in trees}
        for r in range(rounds):
            for label in ("A", "B", "B", "A"):
                order = (default, cheap) if r % 2 == 0 else (cheap, default)
                got = {spec: workers[label, spec].burst() for spec in order}
                for spec, us in got.items():
                    times[label, spec].append(us)
                shares[label].append(got[cheap] / got[default])   # games/s: default / cheap
    finally:
        for w in workers.values():
            w.close()
    out = {"players": players}
    for label in trees:
        out[label] = {"default_us": statistics.median(times[label, default]),
                      "cheap_us": statistics.median(times[label, cheap]),
                      "share": statistics.median(shares[label]),
                      "share_range": (min(shares[label]), max(shares[label]))}
    out["speedup"] = out["B"]["default_us"] / out["A"]["default_us"]
    out["raw"] = {f"{label} {spec}": [round(x, 2) for x in v] for (label, spec), v in times.items()}
    return out


def table(results: list[dict], game: str, base: str, default: str, cheap: str, rounds: int,
          loads: list[float], command: str, tree: str) -> str:
    lines = [f"# {default} against {cheap} ({game}): this tree (`{tree}`, B) against "
             f"`{base}` (A)", "",
             f"Reproduce: `{command}` (one thread per worker; 2 CPUs shared, 1-minute load "
             f"{min(loads):.1f}-{max(loads):.1f} during the run). {rounds} rounds of A B B A; "
             f"medians of {2 * rounds} bursts per tree and strategy, by CPU time; the share is "
             f"{default}'s games per second over {cheap}'s, from the bursts each tree played "
             "back to back (median, and its range over the rounds).", "",
             f"| players | A {default} | A {cheap} | A share | B {default} | B {cheap} | B share "
             f"| B / A {default} |", "|---|---|---|---|---|---|---|---|"]
    for r in results:
        a, b = r["A"], r["B"]
        lines.append(
            f"| {r['players']} | {a['default_us']:.1f} us | {a['cheap_us']:.1f} us | "
            f"{a['share']:.3f} ({a['share_range'][0]:.2f}-{a['share_range'][1]:.2f}) | "
            f"{b['default_us']:.1f} us | {b['cheap_us']:.1f} us | "
            f"{b['share']:.3f} ({b['share_range'][0]:.2f}-{b['share_range'][1]:.2f}) | "
            f"{r['speedup']:.3f} |")
    lines += ["", "us: CPU microseconds per game; share: games per second of the default "
              "as a fraction of the cheap strategy's."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="the base revision (A); required")
    parser.add_argument("--game", default="peer-to-peer", choices=sorted(GAMES))
    parser.add_argument("--players", default="4", help="comma-separated player counts")
    parser.add_argument("--default", default="expert", help="the default strategy")
    parser.add_argument("--cheap", default="greedy", help="the cheap strategy to compare with")
    parser.add_argument("--rounds", type=int, default=9, help="A B B A rounds (default 9)")
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        tree, game, players, spec, games = args.worker
        worker(tree, game, int(players), spec, int(games))
        return
    if not args.base:
        parser.error("--base REV is required")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from engine_ab import export, resolve, this_tree   # noqa: PLC0415 - shared with the A/B scripts

    full, short = resolve(args.base)
    trees = {"A": export(full), "B": ROOT}
    command = " ".join(["python benchmarks/default_speed.py", "--base", short,
                        *(["--game", args.game] if args.game != "peer-to-peer" else []),
                        "--players", args.players, "--default", args.default, "--cheap",
                        args.cheap, "--rounds", str(args.rounds)])
    results, loads = [], []
    for players in (int(p) for p in args.players.split(",")):
        loads.append(os.getloadavg()[0])
        results.append(measure(trees, args.game, players, args.default, args.cheap,
                               args.rounds))
        loads.append(os.getloadavg()[0])
        print(json.dumps(results[-1]), flush=True)
    text = table(results, args.game, short, args.default, args.cheap, args.rounds, loads,
                 command, this_tree())
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
