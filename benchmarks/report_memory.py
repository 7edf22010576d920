"""Peak memory and time of `simulate report` against the number of games.

Builds synthetic Peer-to-Peer runs (reports/synthetic.py: the run-directory format the
engine writes, parts of 1e6 games with the engine's columns; the numbers are random draws,
which is all a memory benchmark needs) of 3 and 5 players, half the games each, then runs
`simulate report` on them in a fresh process and reads that process's peak resident set
size (getrusage of the child) and wall time. A 1e8-game run is made from the 1e7 one by
linking its parts ten times with shifted game indices (a real 1e8 run would take hours on
this machine; the report reads only the parts, so the measurement is the same).

    python benchmarks/report_memory.py --games 1e7 --work /tmp/report-bench
    python benchmarks/report_memory.py --games 1e8 --work /tmp/report-bench
    python benchmarks/report_memory.py --games 1e7 --work /tmp/report-bench --source /work/main

``--source DIR`` measures another checkout's report (e.g. before this change) on the same
runs. Results: benchmarks/report_memory.md.
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

from reports.synthetic import write_large_run  # noqa: E402


def make_runs(work: Path, games: int) -> list[Path]:
    out = []
    for players, seed in ((3, 3), (5, 5)):
        run = work / f"{games:.0e}" / f"p{players}"
        if not (run / "manifest.json").is_file():
            if games > 10_000_000 and (work / "1e+07" / f"p{players}" / "manifest.json").is_file():
                copy_up(work / "1e+07" / f"p{players}", run, games // 2)
            else:
                write_large_run(run, players, games // 2, seed=seed)
        out.append(run)
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


def measure(runs: list[Path], out: Path, source: Path) -> dict:
    code = ("import sys; from reports.build import write_report; "
            f"r = write_report({[str(r) for r in runs]!r}, {str(out)!r}); print(r['games'])")
    env = dict(os.environ, PYTHONPATH=str(source))
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          cwd=str(source))
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(proc.stderr[-3000:])
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"games": int(proc.stdout.split()[-1]), "peak_rss_mib": round(peak_kib / 1024, 1),
            "wall_seconds": round(wall, 1), "source": str(source)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=float, default=1e7)
    ap.add_argument("--work", default="/tmp/report-bench")
    ap.add_argument("--source", default=str(ROOT))
    args = ap.parse_args()
    work = Path(args.work)
    runs = make_runs(work, int(args.games))
    result = measure(runs, work / f"out-{args.games:.0e}", Path(args.source))
    result["threads"] = os.environ.get("POLARS_MAX_THREADS", "polars default")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
