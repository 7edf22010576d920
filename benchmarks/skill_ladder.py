"""Time ``simulate skill`` for every game at every player count at its default sizes
(the target: within 30 minutes in all on the 2-core machine). Not run by pytest.

    nice -n 10 python benchmarks/skill_ladder.py            # every game, every count
    nice -n 10 python benchmarks/skill_ladder.py --game plai --players 3

Prints each ladder's table and wall time, the machine's load average before and after,
and replaces benchmarks/results/skill_ladder.md with the same (a run of one game or one
player count: skill_ladder-<game>[-<players>p].md).
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    from sim import api

    parser = argparse.ArgumentParser()
    parser.add_argument("--game", action="append", default=None)
    parser.add_argument("--players", default=None)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    games = args.game or ["plai", "peer-to-peer"]
    lines = [f"Load average before: {os.getloadavg()}", ""]
    total = 0.0
    for game in games:
        began, cpu = time.perf_counter(), time.process_time()
        with tempfile.TemporaryDirectory() as tmp:
            result = api.skill(game=game, players=args.players, out=Path(tmp) / "skill",
                               threads=args.threads)
        wall, cpu = time.perf_counter() - began, time.process_time() - cpu
        total += wall
        lines += ["```", result.table(), "```",
                  f"{game}: {sum(r['games'] for r in result.pairings):,} games in {wall:.0f} s "
                  f"wall, {cpu:.0f} s CPU of this process (compile included)", ""]
        print("\n".join(lines[-5:]), flush=True)
    lines += [f"all games: {total:.0f} s wall; load average after: {os.getloadavg()}", ""]
    print(lines[-2])
    from benchmarks.latest import write

    name = "skill_ladder" + ("".join(f"-{g}" for g in args.game or ())
                             + (f"-{args.players}p" if args.players else ""))
    write(name, "simulate skill at its default sizes", "\n".join(lines))


if __name__ == "__main__":
    main()
