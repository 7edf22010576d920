"""Where a cold compile goes: per compiled function, its inclusive and exclusive compile
time (numba's ``numba:compile`` events), and every function numba compiled more than once
(one full compile per argument-type tuple).

    python benchmarks/compile_profile.py                 # Peer-to-Peer, default settings
    python benchmarks/compile_profile.py plai --top 30

Compiles from an empty cache directory of its own (``--cache``, deleted first), so it takes
as long as a first run. Times are wall seconds: on a shared machine compare their shares,
not their sizes. The printed profile replaces benchmarks/results/compile_profile-<game>.md.
Nothing here is run by pytest.
"""
from __future__ import annotations

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="?", default="peer-to-peer")
    parser.add_argument("--top", type=int, default=25, help="rows of the table")
    parser.add_argument("--cache", default=None, help="cache root (default: a temporary one)")
    args = parser.parse_args()
    root = args.cache or tempfile.mkdtemp(prefix="cardsim-compile-")
    shutil.rmtree(root, ignore_errors=True)
    os.environ["CARDSIM_CACHE_ROOT"] = root
    os.environ.pop("NUMBA_CACHE_DIR", None)

    import sim  # noqa: F401  (points numba's cache at root)
    from numba.core import event

    from sim.core.game import configure

    recorder = event.RecordingListener()
    event.register("numba:compile", recorder)
    config = configure(args.game)
    wall, cpu = time.perf_counter(), time.process_time()
    config.run_chunk(1, 0, 10)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    stack, rows, signatures = [], [], {}
    for stamp, ev in recorder.buffer:
        func = ev.data["dispatcher"].py_func
        name = f"{func.__module__.rsplit('.', 1)[-1]}.{func.__name__}"
        if ev.is_start:
            stack.append([name, stamp, 0.0])
            continue
        name, start, children = stack.pop()
        took = stamp - start
        if stack:
            stack[-1][2] += took
        rows.append((name, took, took - children))
        signatures.setdefault(name, []).append(str(ev.data["args"]))
    printed: list[str] = []

    def say(text: str) -> None:
        print(text)
        printed.extend(text.splitlines())

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    say(f"{args.game}: first run compiled in {wall:.1f} s wall, {cpu:.1f} s CPU (load "
        f"{load:.1f}); peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    from sim.core.compile_cache import last_compile
    if last_compile.get("helper"):
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        say(f"with a helper process: it used {children.ru_utime + children.ru_stime:.1f} s CPU "
            f"(peak RSS {children.ru_maxrss / 1024:.0f} MB); this process waited "
            f"{last_compile['waited']:.1f} s for kernels it was compiling. The table is this "
            f"process's compiles only (CARDSIM_COMPILE_HELPER=0: all of them)")
    total = sum(r[2] for r in rows) or 1.0
    say(f"\n{'function':48s} {'inclusive s':>11s} {'exclusive s':>11s} {'share':>6s}")
    for name, inclusive, exclusive in sorted(rows, key=lambda r: -r[2])[:args.top]:
        say(f"{name:48s} {inclusive:11.2f} {exclusive:11.2f} {exclusive / total:6.1%}")
    repeated = {n: s for n, s in signatures.items() if len(s) > 1 and not n.endswith(".impl")}
    say(f"\ncompiled more than once: {len(repeated)} project functions")
    for name, sigs in sorted(repeated.items(), key=lambda kv: -len(kv[1])):
        say(f"  {name} x{len(sigs)}")
        for sig in sigs[:4]:
            say(f"      {sig[:160]}")
    if not args.cache:
        shutil.rmtree(root, ignore_errors=True)
    from benchmarks.latest import write

    write(f"compile_profile-{args.game}", f"Where a cold compile goes: {args.game}",
          "```text\n" + "\n".join(printed) + "\n```\n")


if __name__ == "__main__":
    main()
