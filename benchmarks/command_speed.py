"""The flagship command's time as a designer waits for it: this tree (B) against a base
revision (A), and the default's games/s against greedy's as the command reports them.

    python benchmarks/command_speed.py --base 29afc65                  # both parts
    python benchmarks/command_speed.py --base 29afc65 --rounds 3 --share-players 2,4,6

benchmarks/default_speed.py times the games alone (the kernels, in one process). This
script runs the ``simulate`` command itself, so the time also holds what the command does
around the games: loading the compiled kernels, writing the games' Parquet parts, the
summary and the replays behind its "main cause" line.

- **The README command** (``simulate --games 1e6``, every CPU): per tree, the games' wall
  time as the command's last line reports it, the whole command's wall time and its CPU
  time (the process and its children), in rounds of A B B A; medians.
- **The share**: ``simulate --games N --threads 1 --players P``, both teams playing the
  default, then both playing greedy, back to back in each tree (order swapped every
  time); the default's games/s (from the command's last line) over greedy's, median and
  range. The base's default is whatever ``expert`` was there.

Each tree runs a small warm-up command first, so a compile is not timed. Run directories
go to a temporary directory and are removed. The latest table goes to
benchmarks/results/command_speed.md (and stdout); the base revision's tree is exported
once (benchmarks/engine_ab.py's export).
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "command_speed.md"
LAST_LINE = re.compile(r"^([\d,]+) games in ([\d.]+) s \(")


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def simulate(tree: Path, args: list[str], warm_up: bool = False) -> dict:
    """Run ``simulate ARGS`` from ``tree``'s sources; the games' wall time (the command's
    last line), the whole command's wall and CPU seconds (``warm_up``: none, and a compile
    is allowed)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("NUMBA_CACHE_DIR", None)   # each tree: its own kernel-source-keyed cache
    with tempfile.TemporaryDirectory() as tmp:
        cpu, wall = children_cpu(), time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", "from sim.cli import main; main()", *args, "--out",
             str(Path(tmp) / "run"), "--no-progress"],
            cwd=tmp, env=env, capture_output=True, text=True)
        wall, cpu = time.perf_counter() - wall, children_cpu() - cpu
    if done.returncode:
        raise RuntimeError(f"simulate {' '.join(args)} in {tree}: {done.stderr[-2000:]}")
    if warm_up:
        return {}
    last = done.stdout.strip().splitlines()[-1]
    match = LAST_LINE.match(last)
    if not match or "compiling" in last:
        raise RuntimeError(f"unexpected last line (a compile, or a new format): {last!r}")
    games = int(match.group(1).replace(",", ""))
    return {"games_wall": float(match.group(2)), "games_per_s": games / float(match.group(2)),
            "wall": wall, "cpu": cpu}


def readme_command(trees: dict[str, Path], games: str, rounds: int) -> dict:
    runs = {label: [] for label in trees}
    for _ in range(rounds):
        for label in ("A", "B", "B", "A"):
            runs[label].append(simulate(trees[label], ["--games", games]))
    return {label: {key: statistics.median(r[key] for r in got)
                    for key in ("games_wall", "wall", "cpu")}
            for label, got in runs.items()}


def share(tree: Path, players: int, games: int, default: str, cheap: str,
          times: int) -> dict:
    rates = {default: [], cheap: []}
    shares = []
    for r in range(times):
        order = (default, cheap) if r % 2 == 0 else (cheap, default)
        got = {spec: simulate(tree, ["--games", str(games), "--threads", "1", "--players",
                                     str(players), "--team-a", spec, "--team-b", spec])
               for spec in order}
        for spec in order:
            rates[spec].append(got[spec]["games_per_s"])
        shares.append(got[default]["games_per_s"] / got[cheap]["games_per_s"])
    return {"default": statistics.median(rates[default]),
            "cheap": statistics.median(rates[cheap]), "share": statistics.median(shares),
            "range": (min(shares), max(shares))}


def table(readme: dict | None, shares: list[dict], args: argparse.Namespace, base: str,
          loads: list[float], command: str, tree: str) -> str:
    lines = [f"# The flagship command: this tree (`{tree}`, B) against `{base}` (A)", "",
             f"Reproduce: `{command}` (2 CPUs shared, 1-minute load "
             f"{min(loads):.1f}-{max(loads):.1f} during the run). Each tree ran a warm-up "
             "command first, so no time below holds a compile.", ""]
    if readme:
        a, b = readme["A"], readme["B"]
        lines += [f"## `simulate --games {args.games}`, every CPU", "",
                  f"{args.rounds} rounds of A B B A; medians of {2 * args.rounds} runs a tree. "
                  "Games: the wall time the command's last line reports; command: the whole "
                  "command's wall time (start-up, games, summary, the main cause's replays); "
                  "CPU: its processes' CPU time.", "",
                  "| | games | command | CPU |", "|---|---|---|---|",
                  f"| A | {a['games_wall']:.1f} s | {a['wall']:.1f} s | {a['cpu']:.1f} s |",
                  f"| B | {b['games_wall']:.1f} s | {b['wall']:.1f} s | {b['cpu']:.1f} s |",
                  f"| B / A | {b['games_wall'] / a['games_wall']:.3f} | "
                  f"{b['wall'] / a['wall']:.3f} | {b['cpu'] / a['cpu']:.3f} |", ""]
    if shares:
        lines += [f"## {args.default} against {args.cheap} as the command reports it", "",
                  f"`simulate --games {args.share_games} --threads 1 --players P`, both teams "
                  f"{args.default}, then both {args.cheap}, back to back, {args.rounds * 2} "
                  "times a tree (order swapped each time); games/s from the command's last "
                  "line, medians; the share is the default's games/s over the cheap "
                  "strategy's (median, and its range).", "",
                  f"| players | A {args.default} games/s | A {args.cheap} games/s | A share "
                  f"| B {args.default} games/s | B {args.cheap} games/s | B share |",
                  "|---|---|---|---|---|---|---|"]
        for s in shares:
            cells = [f"{s[t]['default']:,.0f} | {s[t]['cheap']:,.0f} | {s[t]['share']:.3f} "
                     f"({s[t]['range'][0]:.2f}-{s[t]['range'][1]:.2f})" for t in ("A", "B")]
            lines.append(f"| {s['players']} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the base revision (A)")
    parser.add_argument("--games", default="1e6", help="the README command's games")
    parser.add_argument("--rounds", type=int, default=3, help="rounds (default 3)")
    parser.add_argument("--share-players", default="2,4,6",
                        help="player counts of the share ('' for none)")
    parser.add_argument("--share-games", type=int, default=500_000)
    parser.add_argument("--default", default="expert")
    parser.add_argument("--cheap", default="greedy")
    parser.add_argument("--no-readme", action="store_true", help="the share only")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from engine_ab import export, resolve, this_tree   # noqa: PLC0415 - shared with the A/B scripts

    full, short = resolve(args.base)
    trees = {"A": export(full), "B": ROOT}
    command = " ".join(["python benchmarks/command_speed.py", "--base", short, "--games",
                        args.games, "--rounds", str(args.rounds), "--share-players",
                        args.share_players or "''", "--share-games", str(args.share_games),
                        *(["--no-readme"] if args.no_readme else [])])
    loads = [os.getloadavg()[0]]
    readme = None
    if not args.no_readme:
        for tree in trees.values():   # compile (or load) every kernel the command uses
            simulate(tree, ["--games", "2000"], warm_up=True)
        readme = readme_command(trees, args.games, args.rounds)
        loads.append(os.getloadavg()[0])
        print(readme, flush=True)
    shares = []
    for players in (int(p) for p in args.share_players.split(",") if p):
        row = {"players": players}
        for label, tree in trees.items():
            for spec in (args.default, args.cheap):   # warm up this count's kernels
                simulate(tree, ["--games", "2000", "--threads", "1", "--players",
                                str(players), "--team-a", spec, "--team-b", spec],
                         warm_up=True)
            row[label] = share(tree, players, args.share_games, args.default, args.cheap,
                               2 * args.rounds)
        shares.append(row)
        loads.append(os.getloadavg()[0])
        print(shares[-1], flush=True)
    text = table(readme, shares, args, short, loads, command, this_tree())
    print(text)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
