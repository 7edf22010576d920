"""What the per-round curves cost the engine: the same kernels with and without them,
alternating in one process.

    python benchmarks/curves_ab.py                       # p2p-4 and plai-3, 15 rounds
    python benchmarks/curves_ab.py --only p2p-4-expert,plai-3-expert --rounds 21

The engine's entry points take the chunk's per-round sums as their last argument
(sim.core.curves); given None, numba compiles a version with every recording branch
pruned, which is the engine without curves (A). The version a run uses records them (B).
Both play the same games on one thread; the bursts alternate A B B A, each timed by its
CPU time (time.process_time), and the table gives each side's median CPU time per game,
their ratio B / A and the median over rounds of each round's ratio (its two B bursts
against its two A bursts: the load of a shared machine drifts less within a round).
The same games in one process, so only the recording differs. (benchmarks/engine_ab.py
compares two revisions in two processes: the tree against the one before the curves.)

    python benchmarks/curves_ab.py --instructions        # instructions per game instead

With ``--instructions``: the instructions each side executes per game, counted by
valgrind (cachegrind), which no other load on the machine changes. The kernels are
compiled for numba's ``generic`` CPU (valgrind's CPU is not the host's, so the host's
compiled kernels would be compiled again under valgrind, for hours), into their own
cache under ``~/.cache/cardsim/generic``; per configuration three kinds of process each
load both versions and play 20 games with each, then nothing, ``games`` games without
curves, or the same games with them: per game, A = (without - nothing) / games and
B - A = (with - without) / games, from each kind's median over ``--repeats`` processes.
A process's start (Python, numba, polars: some 3.5e9 instructions) varies by millions of
instructions with hash seeds, address layout and thread pools, so the processes run with
PYTHONHASHSEED=0, one thread per pool and (with ``setarch -R``) no address randomisation:
their starts then agree to within about 1e6 instructions, which the table's ``noise``
column gives per game (the range of the ``nothing`` processes over ``games``).

The latest table goes to benchmarks/results/curves_ab.md (and stdout); ``--instructions``
adds its table to that file.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
OUT = ROOT / "benchmarks" / "results" / "curves_ab.md"

# name: (game, players, strategies, games per burst)
CONFIGS = {
    "p2p-4": ("peer-to-peer", 4, {"A": "greedy", "B": "greedy"}, 15_000),
    "plai-3": ("plai", 3, {"all": "weighted"}, 15_000),
    "p2p-4-expert": ("peer-to-peer", 4, {"A": "expert", "B": "expert"}, 5_000),
    "plai-3-expert": ("plai", 3, {"all": "expert"}, 15_000),
}
# --instructions: games per process (a game's instructions well above a start's noise)
IR_GAMES = {"p2p-4": 20_000, "plai-3": 30_000, "p2p-4-expert": 3_000,
            "plai-3-expert": 30_000}


def player(config):
    """burst(start, games, record): play games start .. start+games-1 through the
    engine's entry point, with per-round sums (record) or with None in their place."""
    import numpy as np

    if config.game == "peer-to-peer":
        from sim.games.peer_to_peer import constants as k
        from sim.games.peer_to_peer.engine_kernel import new_state, run_games

        args = config._kernel_args()

        def burst(start, games, record):
            out = np.zeros(games, dtype=k.RESULT_DTYPE)
            fates = np.zeros((games, config.cards.n), dtype=np.int8)
            run_games(args, 1, start, out, fates, config.debug, new_state(config.cards.n),
                      config.curve_sums().reshape(-1) if record else None)
            return out
        return burst
    from sim.games.plai import constants as c
    from sim.games.plai.engine_kernel import play_games

    def burst(start, games, record):
        out = np.zeros(games, dtype=c.RESULT_DTYPE)
        fights = np.zeros((0, 4, config.card_table.shape[1]), dtype=np.int16)
        play_games(1, start, *config._args(), out, fights,
                   config.curve_sums().reshape(-1) if record else None)
        return out
    return burst


def measure(name: str, rounds: int) -> dict:
    from sim.core.game import configure

    game, players, strategies, games = CONFIGS[name]
    config = configure(game, players, strategies=dict(strategies))
    burst = player(config)
    for record in (False, True):   # compile both versions, then warm up
        t0 = time.perf_counter()
        burst(0, 50, record)
        print(f"{name}: compiled {'B (curves)' if record else 'A (none)'} in "
              f"{time.perf_counter() - t0:.0f} s", flush=True)
    a = burst(1000, min(games, 2000), False)
    b = burst(1000, min(games, 2000), True)
    assert np.array_equal(a, b), "the curves changed a game"
    cpu = {"A": [], "B": []}
    for _ in range(rounds):
        for label in ("A", "B", "B", "A"):
            t0 = time.process_time()
            burst(1000, games, label == "B")
            cpu[label].append(time.process_time() - t0)
    med = {label: 1e6 * statistics.median(xs) / games for label, xs in cpu.items()}
    paired = [(cpu["B"][2 * r] + cpu["B"][2 * r + 1]) / (cpu["A"][2 * r] + cpu["A"][2 * r + 1])
              for r in range(rounds)]
    return {"A": med["A"], "B": med["B"], "ratio": med["B"] / med["A"],
            "paired": statistics.median(paired), "paired_range": (min(paired), max(paired)),
            "games": games, "strategies": strategies, "game": game, "players": players}


def table(results: dict, rounds: int, loads: list[float]) -> str:
    from benchmarks.latest import machine

    lines = ["# Per-round curves: the engine with them (B) and without (A)", "",
             f"Reproduce: `python benchmarks/curves_ab.py --only {','.join(results)} --rounds "
             f"{rounds}` (2 CPUs shared; 1-minute load {min(loads):.1f}-{max(loads):.1f} "
             f"during the run). One process, the same games; bursts alternate A B B A; each "
             f"figure is the median of {2 * rounds} bursts per side, by CPU time.", "",
             f"Machine: {machine()}.", "",
             "| configuration | A (no curves) | B (curves) | B / A | B / A, paired by round "
             "| paired, range |", "|---|---|---|---|---|---|"]
    for name, r in results.items():
        who = ", ".join(f"{k}={v}" for k, v in r["strategies"].items())
        lo, hi = r["paired_range"]
        lines.append(f"| {r['game']} {r['players']}p ({who}; {r['games']:,} games a burst) | "
                     f"{r['A']:.2f} us/game | {r['B']:.2f} us/game | {r['ratio']:.3f} | "
                     f"{r['paired']:.3f} | {lo:.3f}-{hi:.3f} |")
    lines += ["", "us/game: CPU microseconds per game; B / A above 1: the curves cost that "
              "share. Paired by round: the median over rounds of each round's ratio."]
    return "\n".join(lines) + "\n"


def ir_worker(name: str, side: str, games: int) -> None:
    """One process of the instruction counts (under valgrind): both versions loaded and
    warmed, then ``games`` games of ``side`` (A: without curves, B: with)."""
    from sim.core.game import configure

    game, players, strategies, _ = CONFIGS[name]
    burst = player(configure(game, players, strategies=dict(strategies)))
    burst(0, 20, False)
    burst(0, 20, True)
    if games:
        burst(1000, games, side == "B")


def instructions(names: list[str], games: int | None, repeats: int) -> str:
    env = {**os.environ, "NUMBA_CPU_NAME": "generic",
           "CARDSIM_CACHE_ROOT": str(Path.home() / ".cache" / "cardsim" / "generic"),
           "PYTHONHASHSEED": "0", "NUMBA_NUM_THREADS": "1", "POLARS_MAX_THREADS": "1",
           "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    env.pop("NUMBA_CACHE_DIR", None)
    me = [sys.executable, str(Path(__file__).resolve()), "--ir-worker"]
    fixed = ["setarch", os.uname().machine, "-R"] if shutil.which("setarch") else []
    told = f" --games {games}" if games else ""
    lines = ["", "## Instructions per game (valgrind)", "",
             f"Reproduce: `python benchmarks/curves_ab.py --instructions --only {','.join(names)}"
             f"{told} --repeats {repeats}`. Kernels compiled for numba's generic CPU; "
             "cachegrind's instruction counts, the same on any load; each side the median of "
             f"{repeats} processes.", "",
             "| configuration | games | A (no curves) | B (curves) | B - A | B / A | noise |",
             "|---|---|---|---|---|---|---|"]
    for name in names:
        n_games = games or IR_GAMES[name]
        subprocess.run(me + [name, "A", "10"], env=env, check=True)   # compile, natively
        counts = {}
        for side, n in (("none", 0), ("A", n_games), ("B", n_games)):
            counts[side] = []
            for _ in range(repeats):
                for _ in range(5):   # a shared machine may stop a run (SIGTERM): run it again
                    done = subprocess.run([*fixed, "valgrind", "--tool=cachegrind",
                                           "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                                           *me, name, side if side != "none" else "A", str(n)],
                                          env=env, capture_output=True, text=True)
                    if done.returncode == 0:
                        break
                    print(f"{name} {side}: stopped ({done.returncode}), again", flush=True)
                else:
                    raise RuntimeError(f"valgrind kept stopping: {done.stderr[-500:]}")
                found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
                counts[side].append(int(found.group(1).replace(",", "")))
            print(name, side, counts[side], flush=True)
        med = {side: statistics.median(xs) for side, xs in counts.items()}
        a = (med["A"] - med["none"]) / n_games
        extra = (med["B"] - med["A"]) / n_games
        noise = (max(counts["none"]) - min(counts["none"])) / n_games
        game, players, strategies, _ = CONFIGS[name]
        who = ", ".join(f"{k}={v}" for k, v in strategies.items())
        line = (f"| {game} {players}p ({who}) | {n_games:,} | {a:,.0f} | {a + extra:,.0f} "
                f"| {extra:,.0f} | {(a + extra) / a:.4f} | {noise:,.0f} |")
        print(line, flush=True)
        lines.append(line)
    lines += ["", "Instructions per game; B - A: what the curves add to a game; noise: the "
              "range of the processes that play no game, per game measured."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15, help="A B B A rounds (default 15)")
    parser.add_argument("--only", default="p2p-4,plai-3",
                        help="comma-separated configurations: " + ", ".join(CONFIGS))
    parser.add_argument("--out", default=str(OUT), help="the table's file")
    parser.add_argument("--instructions", action="store_true",
                        help="valgrind's instruction counts per game instead of CPU time")
    parser.add_argument("--games", type=int, default=None,
                        help="games per process with --instructions (default: "
                             + ", ".join(f"{k} {v:,}" for k, v in IR_GAMES.items()) + ")")
    parser.add_argument("--repeats", type=int, default=3,
                        help="processes per side with --instructions (default 3)")
    parser.add_argument("--ir-worker", nargs=3, metavar=("CONFIG", "SIDE", "GAMES"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.ir_worker:
        name, side, games = args.ir_worker
        ir_worker(name, side, int(games))
        return
    if args.instructions:
        text = instructions(args.only.split(","), args.games, args.repeats)
        out = Path(args.out)
        kept = out.read_text().split("\n## Instructions per game")[0].rstrip("\n") + "\n" \
            if out.is_file() else ""
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(kept + text)
        return
    results, loads = {}, []
    for name in args.only.split(","):
        loads.append(os.getloadavg()[0])
        results[name] = measure(name, args.rounds)
        loads.append(os.getloadavg()[0])
        print(name, results[name], flush=True)
    text = table(results, args.rounds, loads)
    print(text)
    out = Path(args.out)
    kept = out.read_text().split("\n## Instructions per game", 1) if out.is_file() else []
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text + ("\n## Instructions per game" + kept[1] if len(kept) > 1 else ""))


if __name__ == "__main__":
    main()
