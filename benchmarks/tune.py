"""Time ``simulate tune`` at its default budget (the target: Peer-to-Peer at 4 players
within 15 minutes on the project's 2-core machine).

    python benchmarks/tune.py                          # peer-to-peer, 4 players
    python benchmarks/tune.py --game plai --players 4
    python benchmarks/tune.py --budget 3e6             # a shorter look

Runs the real command in a subprocess (a warm numba cache is assumed: run any simulate
command once first), records wall and CPU time, the games played, the generations and the
re-check table, and replaces benchmarks/results/tune-<game>-<players>p.md with them (the
command, machine and date on top). Wall time on a shared
machine includes other people's work; CPU time is this process's own, and CPU / 2 is the
wall time the search's two threads would take on the two idle cores of the project's
machine (the verdict gives both). Not run by pytest.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
LIMIT_SECONDS = 15 * 60


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="peer-to-peer")
    parser.add_argument("--players", default="4")
    parser.add_argument("--budget", default=None, help="default: the command's default budget")
    parser.add_argument("--seed", default="1")
    parser.add_argument("--out", default=None, help="strategy file (default: a temporary one)")
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="cardsim-tune-bench-")
    out = args.out or os.path.join(tmp, f"expert-{args.game}-{args.players}p.yaml")
    command = [sys.executable, "-m", "sim.cli", "tune", "--game", args.game, "--players",
               args.players, "--seed", args.seed, "--out", out, "--no-progress"]
    if args.budget:
        command += ["--budget", args.budget]
    began = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - began
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = usage.ru_utime + usage.ru_stime
    print(done.stdout, end="")
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr, end="")
        return done.returncode
    load = os.getloadavg()[0]
    first = done.stdout.splitlines()[0]
    verdict = (f"wall {'yes' if wall <= LIMIT_SECONDS else 'NO'}, "
               f"CPU/2 {'yes' if cpu / 2 <= LIMIT_SECONDS else 'NO'}")
    from benchmarks.latest import write

    table = ("| game | players | budget | seed | wall | CPU | load (1 min, at end) | within 15 min "
             "| search |\n|---|---|---|---|---|---|---|---|---|\n"
             f"| {args.game} | {args.players} | {args.budget or 'default'} | {args.seed} | "
             f"{wall:.0f} s | {cpu:.0f} s | {load:.1f} | {verdict} | {first} |\n")
    write(f"tune-{args.game}-{args.players}p", f"simulate tune: {args.game}, {args.players} players",
          table + "\nThe command's output (the search, the final and the re-check):\n\n```text\n"
          + done.stdout.rstrip() + "\n```\n")
    print(f"wall {wall:.0f} s, CPU {cpu:.0f} s, load {load:.1f}; within 15 minutes: {verdict}")
    print(f"strategy file: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
