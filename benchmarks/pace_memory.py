"""Peak memory of a run and of its report against the number of games, now that every
chunk also carries its per-round curves (sim.core.curves): real runs, played by
``simulate`` on one thread, then ``simulate report`` over each.

    python benchmarks/pace_memory.py                        # 20,000, 200,000 and 2e6 games
    python benchmarks/pace_memory.py --games 2e4,2e5 --only plai-3 --work /tmp/pace-mem
    python benchmarks/pace_memory.py --full-report          # with replays and stronger play
    python benchmarks/pace_memory.py --base main            # and the same for a base revision

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
``curves.npz``, a few kilobytes whatever the games; its size is in the table. ``--base
REV`` measures that revision too (exported once with ``git archive``, as
benchmarks/engine_ab.py does), each size right after this tree's: the same figures
without the curves, if REV is from before them.

Each measured case is kept in benchmarks/results/pace_memory.json (measured again, it
replaces its row) and benchmarks/results/pace_memory.md is rewritten from them after each,
so a stopped benchmark keeps what it measured; the report column says ``reading`` or
``full`` (``--full-report``).
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


def measured(command: list[str], env: dict[str, str], cwd: Path) -> dict:
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
                          capture_output=True, text=True, cwd=str(cwd))
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def measure(name: str, sizes: list[int], chunk: int, work: Path, full: bool,
            trees: dict[str, Path]) -> list[dict]:
    """Each size, for each tree (``code`` name -> its source): the run, then its report."""
    game, players = CONFIGS[name]
    rows = []
    for code, tree in trees.items():   # warm each tree's numba cache: no compile measured
        env = {**os.environ, "POLARS_MAX_THREADS": "1", "NUMBA_NUM_THREADS": "1",
               "PYTHONPATH": str(tree)}
        warm = work / f"{name}-warm"
        shutil.rmtree(warm, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "sim.cli", "--game", game, "--players",
                        str(players), "--threads", "1", "--no-progress", "--games", "1000",
                        "--out", str(warm)], env=env, cwd=str(tree), check=True,
                       capture_output=True)
    for games in sizes:
        for code, tree in trees.items():
            env = {**os.environ, "POLARS_MAX_THREADS": "1", "NUMBA_NUM_THREADS": "1",
                   "PYTHONPATH": str(tree)}
            run = work / f"{name}-{games}-{code.split()[0]}"
            report = run.with_name(run.name + "-report")
            shutil.rmtree(run, ignore_errors=True)
            shutil.rmtree(report, ignore_errors=True)
            simulate = [sys.executable, "-m", "sim.cli"]
            played = measured([*simulate, "--game", game, "--players", str(players),
                               "--threads", "1", "--no-progress", "--games", str(games),
                               "--chunk-size", str(chunk), "--out", str(run)], env, tree)
            fixed = [] if full else ["--stronger-play", "0", "--replay-games", "0"]
            reported = measured([*simulate, "report", str(run), "--out", str(report), *fixed],
                                env, tree)
            totals = run / "curves.npz"
            row = {"config": name, "code": code, "full": full, "game": game,
                   "players": players,
                   "games": games, "chunk": chunk, "chunks": -(-games // chunk),
                   "curves_npz_kib": totals.stat().st_size / 1024 if totals.is_file() else None,
                   "curves_csv": (report / "curves.csv").is_file(),
                   "run_peak_mib": played["peak_mib"], "run_cpu": played["cpu"],
                   "report_peak_mib": reported["peak_mib"], "report_cpu": reported["cpu"],
                   "report_wall": reported["wall"]}
            print(json.dumps(row), flush=True)
            rows = update_rows(row)
    return rows


def update_rows(row: dict) -> list[dict]:
    """Keep ``row`` in results/pace_memory.json (a case measured again replaces its row)
    and rewrite the table from every row: a stopped benchmark keeps what it measured."""
    from benchmarks.latest import update_rows as keep

    return write_table(keep("pace_memory", ("config", "code", "games", "chunk", "full"), row))


def write_table(rows: list[dict]) -> list[dict]:
    from benchmarks.latest import write

    order = list(CONFIGS)
    rows.sort(key=lambda r: (order.index(r["config"]), r["full"], r["games"],
                             r["code"] != "this tree"))
    write("pace_memory", "Peak memory of a run and its report against the games (with the "
          "per-round curves)", table(rows), notes=NOTES,
          command="python benchmarks/pace_memory.py [--only CONFIG] [--games N,...] "
                  "[--base REV] [--full-report]")
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| configuration | report | code | games | chunks | curves.npz | run: peak RSS "
             "| run: CPU | report: peak RSS | report: CPU | date | load |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        npz = "none" if r["curves_npz_kib"] is None else f"{r['curves_npz_kib']:.0f} KiB"
        lines.append(f"| {r['game']} {r['players']}p (expert) | "
                     f"{'full' if r['full'] else 'reading'} | {r['code']} | {r['games']:,} | "
                     f"{r['chunks']} of {r['chunk']:,} | {npz} | "
                     f"{r['run_peak_mib']:.0f} MiB | {r['run_cpu']:.1f} s | "
                     f"{r['report_peak_mib']:.0f} MiB | {r['report_cpu']:.1f} s | "
                     f"{r.get('date', '')} | {r.get('load', '')} |")
    by = {}
    for r in rows:
        by.setdefault((r["config"], r["full"], r["code"]), []).append(r)
    lines += ["", "Largest against smallest run (peak RSS ratio):", ""]
    for (_, full, code), found in by.items():
        small, large = found[0], found[-1]
        if large["games"] == small["games"]:
            continue
        lines.append(f"- {small['game']} {small['players']}p, {code}"
                     f"{', full report' if full else ''}: {large['games']:,} against "
                     f"{small['games']:,} games ({large['games'] // small['games']}x): run "
                     f"{large['run_peak_mib'] / small['run_peak_mib']:.3f}x, report "
                     f"{large['report_peak_mib'] / small['report_peak_mib']:.3f}x")
    return "\n".join(lines) + "\n"


NOTES = """Each figure is one fresh process (`getrusage(RUSAGE_CHILDREN)` of a probe that
starts it): the run, `simulate --game G --players P --games N --threads 1 --chunk-size C`,
after a warm-up run (the numba cache warm: no compile is measured), and `simulate report
RUN --out OUT` with `POLARS_MAX_THREADS=1`: rows marked `reading` give it
`--stronger-play 0 --replay-games 0` (the report's reading of the games and its curves),
rows marked `full` (`--full-report`) keep its default replays and stronger-play games, a
fixed amount of work whatever the games. Each row's own command is in
pace_memory.json. Every run uses the same chunk size, so a larger run differs only in its number
of chunks and their curve files; the report reads the games as a streamed scan and the
curves from `curves.npz`. A run's peak grows with its games for another reason, after
its chunks (which hold it flat): the summary's main cause (`sim/runs/explain.py`)
replays the run's first games for about a quarter of its time and holds their rows; a
base revision from before the curves shows the same. Peak memory does not depend on the
machine's load; CPU times do, a little."""


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
    parser.add_argument("--base", default=None,
                        help="a revision to measure too (e.g. one from before the curves)")
    args = parser.parse_args()
    sizes = [int(float(x)) for x in args.games.split(",")]
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    trees = {"this tree": ROOT}
    if args.base:
        from benchmarks.engine_ab import export

        short = subprocess.run(["git", "rev-parse", "--short", args.base], cwd=ROOT, check=True,
                               capture_output=True, text=True).stdout.strip()
        trees[f"base {short}"] = export(short)
    rows = []
    t0 = time.perf_counter()
    for name in args.only.split(","):
        rows = measure(name, sizes, args.chunk_size, work, args.full_report, trees)
    print(table(rows))
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
