"""What each numba patch (sim/core/numba_patches.py) saves of a cold compile.

    python benchmarks/numba_patches.py                 # 3 rounds, both games (~30 min CPU)
    python benchmarks/numba_patches.py --rounds 5 --game plai
    python benchmarks/numba_patches.py --paired 3 --patch flags   # back-to-back pairs

A cold compile here is one process (no compile helper: ``CARDSIM_COMPILE_HELPER=0``)
playing one game of a game's default configuration from an empty numba cache directory;
its CPU time (user + system of that process, so other work on a shared machine does not
count against it) is measured for every patch set below. Each round runs every set once,
the sets in turn (alternating, so a slow quarter of an hour hits them all alike); the table
shows medians. A patch's saving is the median of (every patch) against (every patch but
this one), as a share of the latter, and of (this patch alone) against (no patch). A patch
stays only if it saves at least 10 % (sim/core/numba_patches.py). Results go to stdout and
to benchmarks/numba_patches.md (the latest run only).

This VM's speed drifts by a third within an hour, which moves CPU times as much as a
patch does. ``--paired N`` measures each patch in N back-to-back pairs instead (every
patch, then every patch but it; the next pair in the other order) and reports the median
of the pairs' savings, so a drift between pairs cancels out; written to
benchmarks/numba_patches_paired.md.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sim.core.numba_patches import ENV, PATCH_NAMES, numba_version  # noqa: E402

CHILD = ("import json, time; import sim; from sim.core.game import configure; "
         "from sim.core import numba_patches; c = configure({game!r}); "
         "cpu = time.process_time(); c.run_chunk(1, 0, 1); "
         "print(json.dumps({{'compile_cpu': time.process_time() - cpu, "
         "'installed': numba_patches.install()}}))")


def patch_sets(only: list[str] | None, alone: bool) -> dict[str, str]:
    """label -> CARDSIM_NUMBA_PATCHES value."""
    names = only or list(PATCH_NAMES)
    sets = {"all": "1", "none": "0"}
    for name in names:
        rest = [n for n in PATCH_NAMES if n != name]
        sets[f"all but {name}"] = ",".join(rest) if rest else "0"
        if alone:
            sets[f"{name} only"] = name
    return sets


def cold_compile(game: str, value: str, workdir: Path) -> dict:
    """One cold compile: its CPU time (the whole process and the compile alone) and wall."""
    cache = Path(tempfile.mkdtemp(prefix="cache-", dir=workdir))
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "CARDSIM_COMPILE_HELPER": "0",
           ENV: value, "PYTHONPATH": str(ROOT)}
    env.pop("CARDSIM_CACHE_ROOT", None)
    before = os.times()
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD.format(game=game)], env=env, cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                          check=True)
    wall = time.perf_counter() - start
    after = os.times()
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result.update(wall=wall, cpu=after.children_user - before.children_user
                  + after.children_system - before.children_system,
                  load=os.getloadavg()[0])
    return result


def paired(games: list[str], patches: list[str], pairs: int, workdir: Path) -> str:
    """Each patch in ``pairs`` back-to-back pairs (all, all but it), alternating order."""
    lines = [f"# numba patches, paired: CPU seconds of a cold compile (numba {numba_version()})",
             "", f"{pairs} back-to-back pairs per patch and game (every patch, and every patch "
             "but it; alternating which runs first); one process, no compile helper, an empty "
             "cache directory per compile. Saving = 1 - all / (all but it), median over the "
             "pairs. `python benchmarks/numba_patches.py --paired N`.", "",
             "| game | patch | saves (median) | pairs: all / all but it, s CPU (load) |",
             "|---|---|---|---|"]
    for game in games:
        for name in patches:
            without = ",".join(n for n in PATCH_NAMES if n != name) or "0"
            savings, shown = [], []
            for k in range(pairs):
                order = [("all", "1"), ("without", without)]
                got = {}
                for label, value in (order if k % 2 == 0 else order[::-1]):
                    got[label] = cold_compile(game, value, workdir)
                a, b = got["all"]["compile_cpu"], got["without"]["compile_cpu"]
                savings.append(1 - a / b)
                shown.append(f"{a:.1f} / {b:.1f} ({got['all']['load']:.1f})")
                print(f"{game:<13} {name:<12} pair {k + 1}: all {a:6.1f} s, without "
                      f"{b:6.1f} s: saves {100 * savings[-1]:5.1f} %", flush=True)
            lines.append(f"| {game} | {name} | {100 * statistics.median(savings):.1f} % | "
                         f"{'; '.join(shown)} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--game", action="append", choices=("peer-to-peer", "plai"))
    parser.add_argument("--patch", action="append", choices=PATCH_NAMES,
                        help="measure these patches only (default: every one)")
    parser.add_argument("--alone", action="store_true",
                        help="also each patch alone (against none)")
    parser.add_argument("--paired", type=int, default=0, metavar="N",
                        help="N back-to-back pairs per patch instead of rounds")
    args = parser.parse_args()
    games = args.game or ["peer-to-peer", "plai"]
    if args.paired:
        with tempfile.TemporaryDirectory(prefix="cardsim-patches-") as tmp:
            text = paired(games, args.patch or list(PATCH_NAMES), args.paired, Path(tmp))
        print(text)
        (ROOT / "benchmarks" / "numba_patches_paired.md").write_text(text, encoding="utf-8")
        return
    sets = patch_sets(args.patch, args.alone)
    runs: dict[tuple[str, str], list[dict]] = {(g, s): [] for g in games for s in sets}
    with tempfile.TemporaryDirectory(prefix="cardsim-patches-") as tmp:
        for r in range(args.rounds):
            for game in games:
                for label, value in sets.items():
                    run = cold_compile(game, value, Path(tmp))
                    runs[(game, label)].append(run)
                    print(f"round {r + 1} {game:<13} {label:<22} compile CPU "
                          f"{run['compile_cpu']:6.1f} s  process CPU {run['cpu']:6.1f} s  "
                          f"wall {run['wall']:6.1f} s  load {run['load']:.1f}  "
                          f"installed {','.join(run['installed']) or '-'}", flush=True)
    med = {key: statistics.median(r["compile_cpu"] for r in rs) for key, rs in runs.items()}
    lines = [f"# numba patches: CPU seconds of a cold compile (numba {numba_version()})", "",
             f"Medians of {args.rounds} alternating rounds; one process, no compile helper, "
             "an empty cache directory per compile; the CPU time of the compile (one game of "
             "the default configuration). `python benchmarks/numba_patches.py`.", "",
             "| game | patch set | compile CPU s (median) | runs | load |", "|---|---|---|---|---|"]
    for (game, label), rs in runs.items():
        each = ", ".join(f"{r['compile_cpu']:.1f}" for r in rs)
        loads = ", ".join(f"{r['load']:.1f}" for r in rs)
        lines.append(f"| {game} | {label} | {med[(game, label)]:.1f} | {each} | {loads} |")
    lines += ["", "| game | patch | saves (all vs all but it) | saves (it alone vs none) |",
              "|---|---|---|---|"]
    for game in games:
        none = med[(game, "none")]
        for name in args.patch or PATCH_NAMES:
            without = med[(game, f"all but {name}")]
            alone = (f"{100 * (none - med[(game, f'{name} only')]) / none:.1f} %"
                     if args.alone else "not measured")
            lines.append(f"| {game} | {name} | {100 * (without - med[(game, 'all')]) / without:.1f} % "
                         f"| {alone} |")
        total = med[(game, "none")]
        lines.append(f"| {game} | every patch | {100 * (total - med[(game, 'all')]) / total:.1f} % "
                     "(all vs none) | |")
    text = "\n".join(lines) + "\n"
    print(text)
    (ROOT / "benchmarks" / "numba_patches.md").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
