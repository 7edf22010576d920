"""Engine speed of this tree (B) against a base revision (A), alternating in one run.

    python benchmarks/engine_ab.py                    # base: the merge-base with main
    python benchmarks/engine_ab.py --base REV --rounds 9
    python benchmarks/engine_ab.py --only p2p-4,plai-3
    python benchmarks/engine_ab.py --cold 3           # cold compiles instead, A B B A

The base revision is exported with ``git archive`` (once per revision, into
``~/.cache/cardsim/ab/REV``, so that its compiled kernels stay in numba's cache between
runs); each tree gets one worker process per configuration (its own numba cache, keyed on
its kernel sources as always), which compiles and warms up first. Then the bursts alternate A B B A,
A B B A, ... so that drift on a shared machine hits both trees alike. A burst plays
``games`` games (the same games every time) on one thread and reports its CPU time (time.process_time: less sensitive
than wall time to the other work on the machine); the table gives each tree's median CPU
time per game and their ratio B/A (below 1: this tree is faster). Search configurations
report search decisions per CPU second instead (higher is faster).

With ``--cold N``: cold compiles instead, N per tree and kind, alternating A B B A: the
engine's (``simulate --game G --games 1000`` from an empty numba cache, as
benchmarks/run.py's cold start; its CPU time counts the compile helper process too) and
the search player's (one game with a search seat). Wall and CPU seconds, medians, with
the 1-minute load before each run: on a shared machine the CPU time is the comparable
figure, the wall time only at a low load.

With ``--instructions``: the instructions each tree executes per game instead, counted by
valgrind (cachegrind), which no other load on a shared machine changes (CPU time on 2 shared
cores moves by a third between bursts). The kernels are compiled for numba's ``generic``
CPU into their own cache (valgrind's CPU is not the host's); per configuration and tree two
processes load the kernels and play 20 games, then nothing or ``--games`` games more: per
game, (with - without) / games. Not for the search configurations.

The latest tables go to benchmarks/results/engine_ab.md, cold_compile.md and
engine_ab_instructions.md (and stdout).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "engine_ab.md"
COLD_OUT = ROOT / "benchmarks" / "results" / "cold_compile.md"
IR_OUT = ROOT / "benchmarks" / "results" / "engine_ab_instructions.md"

# name: (game, players, strategies, games per burst, search?)
CONFIGS = {
    "p2p-4": ("peer-to-peer", 4, {"A": "greedy", "B": "greedy"}, 40_000, False),
    "p2p-6": ("peer-to-peer", 6, {"A": "greedy", "B": "greedy"}, 40_000, False),
    # the default strategies (expert in every seat)
    "p2p-4-expert": ("peer-to-peer", 4, {"A": "expert", "B": "expert"}, 6_000, False),
    "p2p-6-expert": ("peer-to-peer", 6, {"A": "expert", "B": "expert"}, 6_000, False),
    "plai-3": ("plai", 3, {"all": "weighted"}, 40_000, False),
    "plai-5": ("plai", 5, {"all": "weighted"}, 30_000, False),
    "plai-3-expert": ("plai", 3, {"all": "expert"}, 20_000, False),
    "plai-5-expert": ("plai", 5, {"all": "expert"}, 12_000, False),
    "p2p-4-search": ("peer-to-peer", 4, {"A": "search:k=3,n=3,base=expert", "B": "expert"},
                     40, True),
    "plai-3-search": ("plai", 3, {"0": "search:k=3,n=3,base=expert", "all": "expert"}, 800,
                      True),
    # the search players' default budgets (their decisions cost ~10-30 times more)
    "p2p-4-search-default": ("peer-to-peer", 4, {"A": "search:k=8,n=8,base=expert",
                                                 "B": "expert"}, 10, True),
    "plai-3-search-default": ("plai", 3, {"0": "search:k=8,n=32,base=expert", "all": "expert"},
                              80, True),
}


# ---------------------------------------------------------------- the worker (one tree)

def worker(tree: str, name: str) -> None:
    """Compile and warm one configuration, then answer each line ``start`` on stdin with
    one burst's JSON (CPU and wall seconds, games, search decisions)."""
    sys.path.insert(0, tree)
    import sim   # noqa: PLC0415 - the tree's own package, before any installed one
    from sim.core.game import configure   # noqa: PLC0415

    assert Path(sim.__file__).resolve().is_relative_to(Path(tree).resolve()), sim.__file__

    game, players, strategies, games, search = CONFIGS[name]
    config = configure(game, players, strategies=dict(strategies))
    config.play(1, 0, 2 if search else 200, 1)   # compile and warm up
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        start = int(line)
        before = getattr(config, "decisions", 0)
        cpu, wall = time.process_time(), time.perf_counter()
        config.play(1, start, games, 1)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        print(json.dumps({"cpu": cpu, "wall": wall, "games": games,
                          "decisions": getattr(config, "decisions", 0) - before}), flush=True)


def ir_worker(tree: str, name: str, games: int) -> None:
    """One process of the instruction counts (under valgrind): load and warm one
    configuration of one tree, then play ``games`` games."""
    sys.path.insert(0, tree)
    import sim   # noqa: PLC0415
    from sim.core.game import configure   # noqa: PLC0415

    assert Path(sim.__file__).resolve().is_relative_to(Path(tree).resolve()), sim.__file__
    game, players, strategies, _, _ = CONFIGS[name]
    config = configure(game, players, strategies=dict(strategies))
    config.play(1, 0, 20, 1)
    if games:
        config.play(1, 1000, games, 1)


# ---------------------------------------------------------------- the driver

def export(rev: str) -> Path:
    """The tree of commit ``rev`` (git archive), exported once."""
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    tree = cache / "cardsim" / "ab" / rev
    if (tree / "sim").is_dir():
        return tree
    with tempfile.TemporaryDirectory() as tmp:
        archive = Path(tmp) / "base.tar"
        with open(archive, "wb") as f:
            subprocess.run(["git", "archive", rev], cwd=ROOT, stdout=f, check=True)
        with tarfile.open(archive) as tar:
            tar.extractall(Path(tmp) / "tree", filter="data")
        tree.parent.mkdir(parents=True, exist_ok=True)
        (Path(tmp) / "tree").rename(tree)
    return tree


def resolve(rev: str) -> tuple[str, str]:
    """A revision's full and short commit names."""
    full, short = (subprocess.run(["git", "rev-parse", *flag, rev], cwd=ROOT,
                                  capture_output=True, text=True, check=True).stdout.strip()
                   for flag in ([], ["--short"]))
    return full, short


def this_tree() -> str:
    """The working tree's commit, with " + edits" when it has uncommitted changes."""
    git = ["git", "-C", str(ROOT)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    dirty = subprocess.run([*git, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, check=True).stdout.strip()
    return head + (" + edits" if dirty else "")


class Worker:
    def __init__(self, tree: Path, name: str):
        env = {**os.environ, "PYTHONPATH": str(tree)}
        env.pop("NUMBA_CACHE_DIR", None)   # each tree: its own kernel-source-keyed cache
        self.proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--worker",
                                      str(tree), name], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, cwd=tree, env=env)
        self.read()

    def read(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"worker ended (exit {self.proc.wait()})")
        return json.loads(line)

    def burst(self, start: int) -> dict:
        self.proc.stdin.write(f"{start}\n")
        self.proc.stdin.flush()
        return self.read()

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def measure(base: Path, name: str, rounds: int) -> dict:
    """Alternating bursts (A B B A per round) of one configuration in both trees."""
    trees = {"A": base, "B": ROOT}
    workers = {}
    try:
        for label, tree in trees.items():
            workers[label] = Worker(tree, name)
        runs = {"A": [], "B": []}
        for _ in range(rounds):
            for label in ("A", "B", "B", "A"):   # the same games in every burst
                runs[label].append(workers[label].burst(1000))
    finally:
        for w in workers.values():
            w.close()
    search = CONFIGS[name][4]
    out = {}
    for label, bursts in runs.items():
        if search:   # decisions per CPU second (the same games in both trees)
            out[label] = statistics.median(b["decisions"] / b["cpu"] for b in bursts)
        else:        # CPU microseconds per game
            out[label] = statistics.median(1e6 * b["cpu"] / b["games"] for b in bursts)
        out[label + "_runs"] = len(bursts)
    out["ratio"] = out["B"] / out["A"]
    # each round's B bursts against its A bursts (the load drifts less within a round)
    cpu = {label: [b["cpu"] for b in bursts] for label, bursts in runs.items()}
    paired = [(cpu["B"][2 * r] + cpu["B"][2 * r + 1]) / (cpu["A"][2 * r] + cpu["A"][2 * r + 1])
              for r in range(rounds)]
    out["paired"] = 1 / statistics.median(paired) if search else statistics.median(paired)
    out["bursts"] = {label: [round(x, 3) for x in xs] for label, xs in cpu.items()}
    return out


# What a cold compile runs: (label, command after the interpreter)
COLD = {
    "engine peer-to-peer": ["-m", "sim.cli", "--game", "peer-to-peer", "--games", "1000",
                            "--no-progress", "--json"],
    "engine plai": ["-m", "sim.cli", "--game", "plai", "--games", "1000", "--no-progress",
                    "--json"],
    "search peer-to-peer": ["-c", "from sim.core.game import configure; configure("
                            "'peer-to-peer', 4, strategies={'A': 'search:k=2,n=2,base=expert',"
                            " 'B': 'expert'}).play(1, 0, 1)"],
    "search plai": ["-c", "from sim.core.game import configure; configure('plai', 3, "
                    "strategies={'0': 'search:k=2,n=2,base=expert', 'all': 'expert'})"
                    ".play(1, 0, 1)"],
}


def cold_run(tree: Path, kind: str) -> dict:
    """One cold compile in ``tree``: wall and CPU seconds (the process and its children),
    the load before it."""
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONPATH": str(tree), "CARDSIM_CACHE_ROOT": str(Path(tmp) / "c")}
        env.pop("NUMBA_CACHE_DIR", None)
        cmd = [sys.executable, *COLD[kind]]
        if cmd[1] == "-m":
            cmd += ["--out", str(Path(tmp) / "run")]
        before = os.times()
        start = time.perf_counter()
        subprocess.run(cmd, cwd=tmp, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        after = os.times()
    return {"wall": wall, "load": load,
            "cpu": (after.children_user - before.children_user
                    + after.children_system - before.children_system)}


def cold(base: Path, base_rev: str, runs: int, kinds: list[str]) -> str:
    trees = {"A": base, "B": ROOT}
    lines = [f"# Cold compiles: this tree (B) against `{base_rev}` (A)", "",
             f"Reproduce: `python benchmarks/engine_ab.py --base {base_rev} --cold {runs}`. "
             "Each run from an empty numba cache (CARDSIM_CACHE_ROOT), the trees alternating "
             "A B B A; medians; CPU counts the compile helper process too; load: the "
             "1-minute load average before each run (2 CPUs, shared).", "",
             "| compile | A wall | A CPU | B wall | B CPU | B / A CPU | loads |",
             "|---|---|---|---|---|---|---|"]
    for kind in kinds:
        got = {"A": [], "B": []}
        for _ in range((runs + 1) // 2):
            for label in ("A", "B", "B", "A"):
                if len(got[label]) < runs:
                    got[label].append(cold_run(trees[label], kind))
        med = {label: {k: statistics.median(r[k] for r in rs) for k in ("wall", "cpu")}
               for label, rs in got.items()}
        loads = [r["load"] for rs in got.values() for r in rs]
        line = (f"| {kind} | {med['A']['wall']:.1f} s | {med['A']['cpu']:.1f} s | "
                f"{med['B']['wall']:.1f} s | {med['B']['cpu']:.1f} s | "
                f"{med['B']['cpu'] / med['A']['cpu']:.3f} | {min(loads):.1f}-{max(loads):.1f} |")
        print(line, json.dumps(got), flush=True)
        lines.append(line)
    return "\n".join(lines) + "\n"


def instructions(base: Path, base_rev: str, names: list[str], games: int) -> str:
    """Instructions per game of each tree (valgrind), per configuration."""
    trees = {"A": base, "B": ROOT}
    lines = [f"# Engine A/B by instructions: this tree (B) against `{base_rev}` (A)", "",
             f"Reproduce: `python benchmarks/engine_ab.py --base {base_rev} --instructions "
             f"--only {','.join(names)}" + (f" --games {games}" if games else "")
             + "`. Kernels compiled for numba's generic CPU; cachegrind's instruction counts "
             "per game, the same at any load.", "",
             "| configuration | A | B | B / A |", "|---|---|---|---|"]
    for name in names:
        per_game = {}
        n = games or CONFIGS[name][3]
        for label, tree in trees.items():
            # PYTHONHASHSEED: the start-up's own count varies with the hash seed by more
            # than a PLAI game costs; fixed, the two processes differ only by the games
            env = {**os.environ, "PYTHONPATH": str(tree), "NUMBA_CPU_NAME": "generic",
                   "PYTHONHASHSEED": "0",
                   "CARDSIM_CACHE_ROOT": str(Path.home() / ".cache" / "cardsim" / "generic")}
            env.pop("NUMBA_CACHE_DIR", None)
            me = [sys.executable, str(Path(__file__).resolve()), "--ir-worker", str(tree), name]
            subprocess.run(me + ["10"], env=env, cwd=tree, check=True)   # compile, natively
            counts = []
            for played in (0, n):
                done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                                       "--cachegrind-out-file=/dev/null", *me, str(played)],
                                      env=env, cwd=tree, capture_output=True, text=True)
                if done.returncode != 0:
                    raise RuntimeError(f"valgrind stopped: {done.stderr[-500:]}")
                found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
                counts.append(int(found.group(1).replace(",", "")))
            per_game[label] = (counts[1] - counts[0]) / n
        game, players, strategies, _, _ = CONFIGS[name]
        who = ", ".join(f"{k}={v}" for k, v in strategies.items())
        line = (f"| {game} {players}p ({who}; {n:,} games) | {per_game['A']:,.0f} | "
                f"{per_game['B']:,.0f} | {per_game['B'] / per_game['A']:.4f} |")
        print(line, flush=True)
        lines.append(line)
    lines += ["", "Instructions per game (B / A below 1: this tree executes fewer)."]
    return "\n".join(lines) + "\n"


def table(results: dict, base_rev: str, rounds: int, loads: list[float]) -> str:
    lines = [f"# Engine A/B: this tree (B) against `{base_rev}` (A)", "",
             f"Reproduce: `python benchmarks/engine_ab.py --base {base_rev} --rounds {rounds}` "
             f"(2 CPUs shared; 1-minute load {min(loads):.1f}-{max(loads):.1f} during the run). "
             "Bursts alternate A B B A; each figure is the median of "
             f"{4 * rounds // 2} bursts per tree, by CPU time.", "",
             "| configuration | A | B | B / A | B / A, paired by round |", "|---|---|---|---|---|"]
    for name, r in results.items():
        game, players, strategies, games, search = CONFIGS[name]
        who = ", ".join(f"{k}={v}" for k, v in strategies.items())
        unit = "decisions/s" if search else "us/game"
        lines.append(f"| {game} {players}p ({who}; {games:,} games a burst) | "
                     f"{r['A']:,.1f} {unit} | {r['B']:,.1f} {unit} | {r['ratio']:.3f} | "
                     f"{r['paired']:.3f} |")
    lines += ["", "us/game: CPU microseconds per game (B / A below 1: this tree is faster); "
              "decisions/s: search decisions per CPU second (B / A above 1: faster). Paired by "
              "round: the median over rounds of each round's ratio (its two B bursts against "
              "its two A bursts, as the measure of its row), which drifts less with the load "
              "than the ratio of the medians."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=None, help="the base revision (default: merge-base "
                        "of HEAD and main)")
    parser.add_argument("--rounds", type=int, default=7, help="A B B A rounds (default 7)")
    parser.add_argument("--only", default="p2p-4,p2p-6,plai-3,plai-5,p2p-4-expert,p2p-6-expert,"
                        "plai-3-expert,plai-5-expert,p2p-4-search,plai-3-search,"
                        "p2p-4-search-default,plai-3-search-default",
                        help="comma-separated configurations: " + ", ".join(CONFIGS))
    parser.add_argument("--out", default=None, help="the table's file (default "
                        "benchmarks/results/engine_ab.md, with --cold cold_compile.md)")
    parser.add_argument("--cold", type=int, default=0, metavar="N",
                        help="cold compiles instead: N per tree and kind")
    parser.add_argument("--cold-kinds", default=",".join(COLD),
                        help="comma-separated: " + ", ".join(COLD))
    parser.add_argument("--instructions", action="store_true",
                        help="valgrind's instruction counts per game instead of CPU time")
    parser.add_argument("--games", type=int, default=0,
                        help="games per tree with --instructions (default: the "
                        "configuration's burst)")
    parser.add_argument("--worker", nargs=2, metavar=("TREE", "CONFIG"), help=argparse.SUPPRESS)
    parser.add_argument("--ir-worker", nargs=3, metavar=("TREE", "CONFIG", "GAMES"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(*args.worker)
        return
    if args.ir_worker:
        tree, name, games = args.ir_worker
        ir_worker(tree, name, int(games))
        return
    base_rev = args.base or subprocess.run(["git", "merge-base", "HEAD", "main"], cwd=ROOT,
                                           capture_output=True, text=True,
                                           check=True).stdout.strip()
    full, short = resolve(base_rev)
    base = export(full)
    if args.instructions:
        text = instructions(base, short, args.only.split(","), args.games)
        print(text)
        out = Path(args.out or IR_OUT)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
        return
    if args.cold:
        text = cold(base, short, args.cold, args.cold_kinds.split(","))
        print(text)
        out = Path(args.out or COLD_OUT)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
        return
    results, loads = {}, []
    for name in args.only.split(","):
        loads.append(os.getloadavg()[0])
        results[name] = measure(base, name, args.rounds)
        loads.append(os.getloadavg()[0])
        print(name, json.dumps(results[name]), flush=True)
    text = table(results, short, args.rounds, loads)
    print(text)
    out = Path(args.out or OUT)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)


if __name__ == "__main__":
    main()
