"""Peak memory and time of the reports against the number of games.

``--kind`` chooses the report (each measured in a fresh process):

* ``p2p`` (default): `simulate report` on Peer-to-Peer runs of 3 and 5 players;
* ``plai``: `simulate report` on PLAI runs of 3 and 5 players (reports/synthetic.py
  write_plai_run: the engine's 170 columns, 132 of them per-card fight counts);
* ``sweep``: the sweep report of `simulate experiment` (reports.sweep.write_sweep_report
  over reports.sweep.RunGames) on the ``p2p`` runs as two points of half the games each
  (same game indices), the second paired against the first;
* ``balance``: the report `simulate balance-report` writes after playing (sim.api.report)
  on one run per player count and variant (1-6 players; 3 and 5 in all three
  odd_team_compensation modes: ten runs of a tenth of the games each).

For ``p2p``: builds synthetic Peer-to-Peer runs (reports/synthetic.py: the run-directory format the
engine writes, parts of 1e6 games with the engine's columns; the numbers are random draws,
which is all a memory benchmark needs) of 3 and 5 players, half the games each, then runs
`simulate report` on them in a fresh process and reads that process's peak resident set
size (getrusage of the child) and wall time. A 1e8-game run is made from the 1e7 one by
linking its parts ten times with shifted game indices (a real 1e8 run would take hours on
this machine; the report reads only the parts, so the measurement is the same).

    python benchmarks/report_memory.py --games 1e7 --work /tmp/report-bench
    python benchmarks/report_memory.py --games 1e8 --work /tmp/report-bench
    python benchmarks/report_memory.py --games 1e7 --work /tmp/report-bench --source /work/main
    python benchmarks/report_memory.py --kind plai --games 1e7 --work /tmp/report-bench
    python benchmarks/report_memory.py --kind sweep --games 1e8 --work /tmp/report-bench
    python benchmarks/report_memory.py --kind balance --games 1e7 --work /tmp/report-bench

``--source DIR`` measures another checkout's report (e.g. before a change) on the same
runs. Results: one row per kind, games and source in benchmarks/results/report_memory.md
(kept in report_memory.json beside it); a new measurement replaces its row.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reports.synthetic import write_large_run, write_plai_run  # noqa: E402


def make_runs(work: Path, games: int, kind: str = "p2p") -> list[Path]:
    """The run directories of the benchmark (made once, kept in ``work``)."""
    if kind == "balance":
        return make_balance_runs(work, games)
    # sweep: the Peer-to-Peer runs as two points of games/2 each with the same game indices
    # (as an experiment's), the second paired against the first
    return [make_one(work, games // 2, players, players, f"p{players}",
                     "plai" if kind == "plai" else "p2p") for players in (3, 5)]


def make_one(work: Path, games: int, players: int, seed: int, name: str, kind: str,
             compensation: str = "extra_venture") -> Path:
    folder = {"p2p": "", "plai": "plai-", "balance": "balance-"}[kind]
    total = (10 if kind == "balance" else 2) * games
    run = work / f"{folder}{total:.0e}" / name
    small = work / f"{folder}1e+07" / name
    if not (run / "manifest.json").is_file():
        if total > 10_000_000 and (small / "manifest.json").is_file():
            copy_up(small, run, games)
        elif kind == "plai":
            write_plai_run(run, players, games, seed=seed)
        else:
            write_large_run(run, players, games, seed=seed, compensation=compensation)
    return run


def make_balance_runs(work: Path, games: int) -> list[Path]:
    out = []
    for players in range(1, 7):
        modes = ("extra_venture", "extra_venture_empty", "none") if players in (3, 5) else (
            "extra_venture",)
        for mode in modes:
            out.append(make_one(work, games // 10, players, players, f"p{players}-{mode}",
                                "balance", compensation=mode))
    return out


def copy_up(source: Path, target: Path, games: int) -> None:
    """``target`` holds ``games`` games: ``source``'s parts again and again, each copy's
    game indices shifted past the last (the report reads them as distinct games)."""
    parts = sorted((source / "games").glob("*.parquet"))
    have = sum(pl.scan_parquet(p).select(pl.len()).collect().item() for p in parts)
    (target / "games").mkdir(parents=True, exist_ok=True)
    k = 0
    for copy in range(games // have):
        for part in parts:
            t = pl.read_parquet(part)
            t.with_columns(pl.col("game_index") + copy * have).write_parquet(
                target / "games" / f"part-{k:05d}.parquet")
            k += 1
    manifest = json.loads((source / "manifest.json").read_text())
    manifest["games"] = games
    (target / "manifest.json").write_text(json.dumps(manifest, indent=2))


REPORTS = {
    # each prints the number of games it reported on
    "p2p": "from reports.build import write_report; r = write_report({runs!r}, {out!r}); "
           "print(r['games'])",
    "plai": "from reports.build import write_report; r = write_report({runs!r}, {out!r}); "
            "print(r['games'])",
    "balance": "from sim.api import report; r = report({runs!r}, {out!r}); print(r['games'])",
    # (a checkout before RunGames, with --source, reads each point into memory: load_games)
    "sweep": ("from reports.sweep import write_sweep_report, metrics_for\n"
              "try:\n    from reports.sweep import RunGames\n"
              "except ImportError:\n    from reports.sweep import load_games as RunGames\n"
              "points = [dict(name=f'v{{i}}', players=3, values={{'value': i}}, "
              "games=RunGames(r), baseline='v0') for i, r in enumerate({runs!r})]\n"
              "write_sweep_report({out!r}, 'benchmark', points, ['value'], "
              "tuple(metrics_for('peer-to-peer')))\n"
              "print(sum(len(p['games']['winner']) if isinstance(p['games'], dict) "
              "else len(p['games']) for p in points))"),
}


def measure(runs: list[Path], out: Path, source: Path, kind: str = "p2p") -> dict:
    code = REPORTS[kind].format(runs=[str(r) for r in runs], out=str(out))
    env = dict(os.environ, PYTHONPATH=str(source))
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          cwd=str(source))
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-3000:])
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"kind": kind, "games": int(proc.stdout.split()[-1]),
            "peak_rss_mib": round(peak_kib / 1024, 1), "wall_seconds": round(wall, 1),
            "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
            "load_average": round(os.getloadavg()[0], 1), "source": str(source)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=sorted(REPORTS), default="p2p")
    ap.add_argument("--games", type=float, default=1e7)
    ap.add_argument("--work", default="/tmp/report-bench")
    ap.add_argument("--source", default=str(ROOT))
    args = ap.parse_args()
    work = Path(args.work)
    runs = make_runs(work, int(args.games), args.kind)
    prefix = "" if args.kind == "p2p" else f"{args.kind}-"
    result = measure(runs, work / f"out-{prefix}{args.games:.0e}", Path(args.source), args.kind)
    result["threads"] = os.environ.get("POLARS_MAX_THREADS", "polars default")
    result["source"] = ("this checkout" if Path(args.source).resolve() == ROOT
                        else str(args.source))
    print(json.dumps(result))
    write_table(result)


def write_table(result: dict) -> None:
    from benchmarks.latest import update_rows, write

    rows = update_rows("report_memory", ("kind", "games", "source"), result)
    kinds = list(REPORTS)
    lines = ["| kind | games | code | peak RSS | wall | CPU | polars threads | date | load |",
             "|---|---:|---|---:|---:|---:|---|---|---|"]
    def num(value, unit):
        return "?" if value is None else f"{value:,.0f} {unit}"

    for r in sorted(rows, key=lambda r: (kinds.index(r["kind"]), r["games"], r["source"])):
        lines.append(f"| {r['kind']} | {r['games']:,} | {r['source']} | "
                     f"{num(r['peak_rss_mib'], 'MiB')} | {num(r['wall_seconds'], 's')} | "
                     f"{num(r['cpu_seconds'], 's')} | {r['threads']} | {r['date']} | "
                     f"{r['load']} |")
    write("report_memory", "The reports' peak memory and time against the number of games",
          "\n".join(lines) + "\n" + TAIL,
          command="python benchmarks/report_memory.py --kind KIND --games N --work DIR",
          notes=NOTES)


TAIL = """
A 1e8-game run is made from the 1e7 one by copying its parts ten times with shifted game
indices (a real 1e8-game run takes hours on a 2-core machine; the report reads only the
parts, so the measurement is the same).
"""

NOTES = """Each row's own command is in report_memory.json. Each row is one fresh process running the report over synthetic runs
(`reports/synthetic.py`: the engine's run-directory format and columns, parts of 1e6
games): `p2p` and `plai` are `simulate report` over a 3- and a 5-player run (half the
games each), `sweep` the sweep report of `simulate experiment` over the same runs as two
paired points, `balance` the report `simulate balance-report` writes (ten runs: 1-6
players, 3 and 5 in every odd_team_compensation mode). Peak RSS is the report process's
`ru_maxrss`; CPU is its user + system time; the load is the shared machine's 1-minute
load average at the end. Times at a high load are slow and noisy; peak memory is not
affected by the load."""


if __name__ == "__main__":
    main()
