"""Time and peak memory of refusing a hostile rules file: a rule value of nested YAML
aliases (9 ** levels values from a ~230-byte file), given to ``simulate --rules``.

Each measurement is a fresh process (``python -m sim.cli --rules FILE --games 10``) run
through a small wrapper that reads the child's peak resident set size (getrusage of the
child) and its CPU time; the medians of ``--repeat`` runs are reported. ``--source DIR``
measures another checkout too, interleaved with this one (A/B in one run), e.g. the code
before the YAML limits.

    python benchmarks/input_limits.py
    python benchmarks/input_limits.py --source /work/main --levels 5 6 7 --repeat 5

Results: benchmarks/input_limits.md (this script rewrites it).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import json, resource, subprocess, sys, time
began = time.perf_counter()
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
wall = time.perf_counter() - began
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"code": done.returncode, "wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
                  "peak_kb": usage.ru_maxrss, "stderr": done.stderr[-300:],
                  "stderr_bytes": len(done.stderr)}))
"""


def alias_bomb(levels: int) -> str:
    parts = ["&a [x,x,x,x,x,x,x,x,x]"]
    for previous, name in zip("abcdefghij", "bcdefghijk"[:levels - 1]):
        parts.append(f"&{name} [" + ",".join([f"*{previous}"] * 9) + "]")
    return "hand_size: [" + ", ".join(parts) + "]\n"


def measure(source: Path, rules: Path, work: Path, limit_mb: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(source)}
    command = [sys.executable, "-c", PROBE, "prlimit", f"--as={limit_mb * 2**20}",
               sys.executable, "-m", "sim.cli", "--rules", str(rules), "--games", "10",
               "--out", str(work / "run"), "--no-progress"]
    out = subprocess.run(command, env=env, capture_output=True, text=True, cwd=work, check=True)
    return json.loads(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, nargs="+", default=[5, 6, 7, 8])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--source", type=Path, default=None,
                        help="another checkout to measure too (e.g. before this change)")
    parser.add_argument("--label", default=None,
                        help="how the table names --source (default: its path)")
    parser.add_argument("--limit-mb", type=int, default=4000,
                        help="address-space limit of each run (a runaway one fails instead "
                             "of taking the machine)")
    args = parser.parse_args()
    sources = [("this checkout", ROOT)] + ([(args.label or f"--source {args.source}",
                                             args.source)] if args.source else [])
    rows = []
    with tempfile.TemporaryDirectory(prefix="input-limits-") as tmp:
        work = Path(tmp)
        for levels in args.levels:
            rules = work / f"alias{levels}.yaml"
            rules.write_text(alias_bomb(levels))
            runs: dict[str, list[dict]] = {name: [] for name, _ in sources}
            for _ in range(args.repeat):
                for name, source in sources:   # interleaved: the same load for both
                    runs[name].append(measure(source, rules, work, args.limit_mb))
            for name, source in sources:
                got = runs[name]
                rows.append({"source": name, "levels": levels, "bytes": rules.stat().st_size,
                             "code": got[-1]["code"],
                             "wall_s": statistics.median(r["wall"] for r in got),
                             "cpu_s": statistics.median(r["cpu"] for r in got),
                             "peak_mb": statistics.median(r["peak_kb"] for r in got) / 1024,
                             "stderr_bytes": got[-1]["stderr_bytes"],
                             "stderr": got[-1]["stderr"].strip()})
                print(json.dumps(rows[-1]), flush=True)
    lines = ["# Refusing a rules file of nested aliases: time and peak memory", "",
             f"`python benchmarks/input_limits.py {' '.join(sys.argv[1:])}`; medians of "
             f"{args.repeat} fresh processes each (wall, CPU and peak RSS of the "
             f"`simulate --rules FILE --games 10` process); load average "
             f"{os.getloadavg()[0]:.1f} at the end.", "",
             "| code | levels | file bytes | exit | wall s | CPU s | peak MB | stderr bytes |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        lines.append(f"| {r['source']} | {r['levels']} | {r['bytes']} | {r['code']} | "
                     f"{r['wall_s']:.2f} | {r['cpu_s']:.2f} | {r['peak_mb']:.0f} | "
                     f"{r['stderr_bytes']:,} |")
    lines += ["", "The end of what each wrote on stderr:", ""]
    for r in rows:
        shown = " ".join(r["stderr"].split())[-110:].replace("`", "'")
        lines.append(f"- {r['source']}, {r['levels']} levels: `{shown}`")
    (Path(__file__).with_name("input_limits.md")).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
