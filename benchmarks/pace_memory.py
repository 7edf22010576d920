"""Peak memory of a run and of its report against the number of games, now that every
chunk also carries its per-round curves (sim.core.curves): real runs, played by
``simulate`` on one thread, then ``simulate report`` over each.

    python benchmarks/pace_memory.py                        # 20,000, 200,000 and 2e6 games
    python benchmarks/pace_memory.py --games 2e4,2e5 --only plai-3 --work /tmp/pace-mem
    python benchmarks/pace_memory.py --full-report          # with replays and stronger play

Per configuration (the default strategies, ``expert``) and size: one warm-up run (so the
numba cache is warm and no compile is measured), then ``simulate --games N --threads 1
--chunk-size C`` and ``simulate report RUN --out OUT --stronger-play 0 --replay-games 0``
(the report's reading of the games and its curves, the part that grows with the games;
``--full-report``: its default replays and five minutes of stronger play too, a fixed
amount of work whatever the games), each in a fresh process, each measured by its own
``getrusage(RUSAGE_CHILDREN)`` (peak resident set size, CPU time; the report with
``POLARS_MAX_THREADS=1``). The chunk size is the same for every size, so
a larger run differs only in its number of chunks (and their curve files): flat memory
means the curves do not grow with the games. The report's pace section reads the runs'
``curves.npz``, a few kilobytes whatever the games; its size is in the table.

The latest table goes to benchmarks/results/pace_memory.md (and stdout).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# name: (game, players)
CONFIGS = {"p2p-4": ("peer-to-peer", 4), "plai-3": ("plai", 3)}


def measured(command: list[str], env: dict[str, str]) -> dict:
    """Run ``command`` from a fresh process that reports its children's peak RSS."""
    probe = ("import json, resource, subprocess, sys, time\n"
             "t0 = time.perf_counter()\n"
             "done = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
             "wall = time.perf_counter() - t0\n"
             "if done.returncode:\n"
             "    sys.exit(done.stderr[-3000:])\n"
             "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
             "print(json.dumps({'peak_mib': u.ru_maxrss / 1024, 'cpu': u.ru_utime + u.ru_stime,"
             " 'wall': wall}))\n")
    done = subprocess.run([sys.executable, "-c", probe, *command], env=env,
                          capture_output=True, text=True, cwd=str(ROOT))
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def simulate() -> list[str]:
    found = shutil.which("simulate", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "sim.cli"]


def measure(name: str, sizes: list[int], chunk: int, work: Path, full: bool) -> list[dict]:
    game, players = CONFIGS[name]
    env = {**os.environ, "POLARS_MAX_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    base = [*simulate(), "--game", game, "--players", str(players), "--threads", "1",
            "--no-progress", "--json"]
    warm = work / f"{name}-warm"
    shutil.rmtree(warm, ignore_errors=True)
    subprocess.run([*base, "--games", "1000", "--out", str(warm)], env=env, check=True,
                   capture_output=True)
    rows = []
    for games in sizes:
        run, report = work / f"{name}-{games}", work / f"{name}-{games}-report"
        shutil.rmtree(run, ignore_errors=True)
        shutil.rmtree(report, ignore_errors=True)
        played = measured([*base, "--games", str(games), "--chunk-size", str(chunk),
                           "--out", str(run)], env)
        fixed = [] if full else ["--stronger-play", "0", "--replay-games", "0"]
        reported = measured([*simulate(), "report", str(run), "--out", str(report), *fixed],
                            env)
        assert (report / "curves.csv").is_file(), "the report wrote no curves.csv"
        row = {"config": name, "game": game, "players": players, "games": games,
               "chunk": chunk, "chunks": -(-games // chunk),
               "curves_npz_kib": (run / "curves.npz").stat().st_size / 1024,
               "curve_files": len(list((run / "curves").glob("part-*.npy"))),
               "run_peak_mib": played["peak_mib"], "run_cpu": played["cpu"],
               "report_peak_mib": reported["peak_mib"], "report_cpu": reported["cpu"],
               "report_wall": reported["wall"]}
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| configuration | games | chunks | curves.npz | run: peak RSS | run: CPU "
             "| report: peak RSS | report: CPU |", "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['game']} {r['players']}p (expert) | {r['games']:,} | "
                     f"{r['chunks']} of {r['chunk']:,} | {r['curves_npz_kib']:.0f} KiB | "
                     f"{r['run_peak_mib']:.0f} MiB | {r['run_cpu']:.1f} s | "
                     f"{r['report_peak_mib']:.0f} MiB | {r['report_cpu']:.1f} s |")
    by = {}
    for r in rows:
        by.setdefault(r["config"], []).append(r)
    lines += ["", "Largest against smallest run, per configuration (peak RSS ratio):", ""]
    for name, found in by.items():
        small, large = found[0], found[-1]
        lines.append(f"- {small['game']} {small['players']}p, {large['games']:,} against "
                     f"{small['games']:,} games ({large['games'] // small['games']}x): run "
                     f"{large['run_peak_mib'] / small['run_peak_mib']:.3f}x, report "
                     f"{large['report_peak_mib'] / small['report_peak_mib']:.3f}x")
    return "\n".join(lines) + "\n"


NOTES = """Each figure is one fresh process (`getrusage(RUSAGE_CHILDREN)` of a probe that
starts it): the run, `simulate --game G --players P --games N --threads 1 --chunk-size C`,
after a warm-up run (the numba cache warm: no compile is measured), and `simulate report
RUN --out OUT` with `POLARS_MAX_THREADS=1`, given `--stronger-play 0 --replay-games 0`
unless the command says `--full-report` (the report's reading of the games and its
curves; its replays and stronger-play games are a fixed amount of work whatever the
games). Every run uses the same chunk size, so a
larger run differs only in its number of chunks and their curve files; the report reads
the games as a streamed scan and the curves from `curves.npz`. Peak memory does not
depend on the machine's load; CPU times do, a little."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="2e4,2e5,2e6",
                        help="run sizes (default 2e4,2e5,2e6)")
    parser.add_argument("--full-report", action="store_true",
                        help="the report with its default replays and stronger play")
    parser.add_argument("--only", default="p2p-4,plai-3",
                        help="comma-separated configurations: " + ", ".join(CONFIGS))
    parser.add_argument("--chunk-size", type=int, default=20_000,
                        help="games per chunk, the same for every size (default 20,000)")
    parser.add_argument("--work", default="/tmp/pace-memory", help="where the runs go")
    parser.add_argument("--out", default=None, help="the table's file (default: results/)")
    args = parser.parse_args()
    sizes = [int(float(x)) for x in args.games.split(",")]
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    t0 = time.perf_counter()
    for name in args.only.split(","):
        rows += measure(name, sizes, args.chunk_size, work, args.full_report)
    text = table(rows)
    print(text)
    print(f"({time.perf_counter() - t0:.0f} s)")
    from benchmarks.latest import write

    write("pace_memory", "Peak memory of a run and its report against the games (with the "
          "per-round curves)", text, notes=NOTES, out=args.out)


if __name__ == "__main__":
    main()
