"""The engine's speed, memory and start times against the project's targets, as Markdown.

    python benchmarks/run.py               # full: ~8 minutes on 2 cores
    python benchmarks/run.py --quick       # smaller runs, ~3 minutes
    python benchmarks/run.py --cold-only   # the cold starts only (5 per game), ~4 minutes
    python benchmarks/run.py --cold-only --patches-off-too   # and without the numba patches

Results go to stdout and replace benchmarks/results/run.md (--quick: run-quick.md;
--cold-only: cold_start.md), with the command, the machine and the date. The cold start runs
`simulate --games 1000` of each game from an empty numba cache, five times each with the
games alternating (``--cold-runs``), and reports the median wall time, each run's wall and
CPU time (user + system, of the run and its compile helper process), the load average and
a fixed Python loop's time before it (this VM's speed drifts by a third within an hour):
the compile runs on both cores, so only the wall time at a low load says what a user
waits. Every games/s figure is the median of
several runs after a warm-up (compile) run, except the engine/reference ratio: the
reference engine and the engine alternate over the same minutes, each pooled (see
reference_rate). Single-thread figures are CPU time
(time.process_time), so other work on a shared machine does not count against them; wall
time is shown beside them. The 2-thread speed-up needs wall time (CPU time adds up both
threads), so it is only meaningful on an otherwise idle machine. Nothing here is run by
pytest.
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

import numpy as np  # noqa: E402

import sim  # noqa: E402,F401  (sets the numba cache directory)

# The speed figures are of the hand-written baselines (greedy v greedy, PLAI's default
# weights), not of the default `expert`: their games are the engine's plain cost, and
# tuned games are longer (Peer-to-Peer ~8x dearer per game).
P2P_BASELINE = {"A": "greedy", "B": "greedy"}
P2P_BASELINE_ARGS = ["--team-a", "greedy", "--team-b", "greedy"]
PLAI_BASELINE = {"all": "weighted"}

TARGETS = {"engine_vs_limit": 0.15, "engine_vs_reference": 300.0, "two_vs_one_thread": 1.6,
           "rss_1e7_mb": 500.0, "warm_start_s": 3.0, "cold_start_s": 20.0,
           "cli_vs_engine_1e6": 1.3}
AT_MOST = ("rss_1e7_mb", "warm_start_s", "cold_start_s", "cli_vs_engine_1e6")


def median_rates(fn, games: int, repeats: int) -> tuple[float, float]:
    """(games/s by CPU time, games/s by wall time), each from the median of ``repeats`` runs."""
    cpu, wall = [], []
    for _ in range(repeats):
        start_cpu, start_wall = time.process_time(), time.perf_counter()
        fn(games)
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start_wall)
    return games / statistics.median(cpu), games / statistics.median(wall)


def median_rate(fn, games: int, repeats: int) -> float:
    """games/s by CPU time (single-threaded work)."""
    return median_rates(fn, games, repeats)[0]


def p2p_rates(games: int, repeats: int) -> dict[tuple[int, str], float]:
    """Per player count: "cpu" and "wall" games/s on 1 thread, "wall2" on 2 threads."""
    from sim.core.game import get_game

    rates = {}
    for players in range(1, 7):
        config = get_game("peer-to-peer").configure(players=players, strategies=P2P_BASELINE)
        config.play(1, 0, 100)  # warm-up / compile
        rates[(players, "cpu")], rates[(players, "wall")] = median_rates(
            lambda n: config.play(1, 0, n, 1), games, repeats)
        rates[(players, "wall2")] = median_rates(
            lambda n: config.play(1, 0, n, 2), games, repeats)[1]
    return rates


def limit_rate(games: int, repeats: int) -> float:
    from benchmarks.limit_kernel import limit_games
    from sim.games.peer_to_peer.cards import load_cards

    cards = load_cards()
    values, domains = cards.value.astype(np.int64), cards.domain.astype(np.int64)
    limit_games(values, domains, 1, 0, 10)
    return median_rate(lambda n: limit_games(values, domains, 1, 0, n), games, repeats)


def reference_rate(games: int, engine_games: int, rounds: int) -> tuple[float, float, str]:
    """The pure-Python reference engine at 4 players: (its games/s, the engine's
    games/s over the same minutes, what ran). The two alternate in ``rounds`` rounds (the
    reference on the next ``games`` game indices each round, the engine on its first
    ``engine_games``), each pooled by CPU time: on a shared machine the speed drifts by
    tens of percent within minutes, and measured apart the ratio mixed that in. Without
    the reference module: the kernel with JIT off, measured once."""
    try:
        from sim.games.peer_to_peer.reference import play_games
    except ImportError:
        play_games = None
    from sim.core.game import get_game

    config = get_game("peer-to-peer").configure(players=4, strategies=P2P_BASELINE)
    if play_games is not None:
        config.play(1, 0, 100)  # warm-up / compile
        ref_cpu = engine_cpu = 0.0
        for r in range(rounds):
            start = time.process_time()
            play_games(config, 1, r * games, games)
            ref_cpu += time.process_time() - start
            start = time.process_time()
            config.play(1, 0, engine_games, 1)
            engine_cpu += time.process_time() - start
        return (rounds * games / ref_cpu, rounds * engine_games / engine_cpu,
                "reference engine")
    code = ("import time, sim; from sim.core.game import get_game; "
            f"c = get_game('peer-to-peer').configure(players=4, strategies={P2P_BASELINE!r}); "
            "t = time.perf_counter(); "
            f"c.play(1, 0, {games}); print({games} / (time.perf_counter() - t))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "NUMBA_DISABLE_JIT": "1"}, check=True, cwd=ROOT)
    return (float(out.stdout.strip().splitlines()[-1]), None,
            "kernel with NUMBA_DISABLE_JIT=1")


def tree_env(**extra: str) -> dict[str, str]:
    """The environment for `simulate` subprocesses: they run in a temporary directory, where
    `import sim` would find whichever checkout is installed, so put this tree first."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, **extra}


def peak_rss_mb(games: str, workdir: Path) -> tuple[float, float]:
    """(peak RSS in MB, wall seconds) of `simulate --games N` in a fresh process."""
    out = workdir / f"rss-{games}"
    code = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
            "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, "
            "time.perf_counter() - t)")
    cmd = [sys.executable, "-c", code, sys.executable, "-m", "sim.cli", "--games", games,
           "--out", str(out), "--no-progress", "--json", *P2P_BASELINE_ARGS]
    rss, wall = subprocess.run(cmd, capture_output=True, text=True, check=True,
                               cwd=workdir, env=tree_env()).stdout.split()
    return float(rss), float(wall)


def timed_child(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system) of one child process."""
    before = os.times()
    start = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = os.times()
    return wall, (after.children_user - before.children_user
                  + after.children_system - before.children_system)


def vm_speed_s() -> float:
    """Seconds a fixed pure-Python loop takes now: this VM's speed varies by a third from
    hour to hour (and run to run), so each cold start is shown beside it."""
    start = time.process_time()
    total = 0
    for i in range(5_000_000):
        total += i
    return time.process_time() - start


PATCHES_OFF = " (numba patches off)"


def start_times(workdir: Path, runs: int = 1, patches_off: bool = False) -> dict[str, dict]:
    """Per game, `simulate --game G --games 1000` from an empty numba cache ``runs`` times,
    the games alternating (wall and CPU seconds, the CPU time counting the compile's
    helper process too; the 1-minute load average and the VM-speed loop before each run;
    the median wall), then warm (the faster of two, wall). With ``patches_off`` each cold
    start is followed by the same one with CARDSIM_NUMBA_PATCHES=0 (sim/core/numba_patches.py),
    keyed "<game> (numba patches off)"."""
    games = ("peer-to-peer", "plai")
    variants = [(game, "") for game in games]
    if patches_off:
        variants = [(game, label) for game in games for label in ("", PATCHES_OFF)]
    out: dict[str, dict] = {game + label: {"cold": []} for game, label in variants}

    def run(game: str, label: str, name: str, cache: str) -> tuple[float, float]:
        env = tree_env(CARDSIM_CACHE_ROOT=str(workdir / cache),
                       CARDSIM_NUMBA_PATCHES="0" if label else os.environ.get(
                           "CARDSIM_NUMBA_PATCHES", ""))
        env.pop("NUMBA_CACHE_DIR", None)
        return timed_child([sys.executable, "-m", "sim.cli", "--game", game, "--games",
                            "1000", "--out", str(workdir / f"{game}-{name}"),
                            "--no-progress", "--json"], env, workdir)

    for i in range(runs):
        for game, label in variants:
            load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
            speed = vm_speed_s()
            key = game + label
            wall, cpu = run(game, label, f"cold{i}{'-off' if label else ''}",
                            f"cache-{game}-{i}{'-off' if label else ''}")
            out[key]["cold"].append({"wall": wall, "cpu": cpu, "load": load, "vm": speed})
    for game, label in variants:
        t = out[game + label]
        t["cold_wall"] = statistics.median(r["wall"] for r in t["cold"])
        t["cold_cpu"] = statistics.median(r["cpu"] for r in t["cold"])
        t["warm_wall"] = min(run(game, label, f"{name}{'-off' if label else ''}",
                                 f"cache-{game}-0{'-off' if label else ''}")[0]
                             for name in ("warm", "warm2"))
    return out


def start_lines(starts: dict[str, dict]) -> list[str]:
    """The cold and warm starts as rows of the measures table."""
    lines = []
    for key, t in starts.items():
        game, off = key.removesuffix(PATCHES_OFF), PATCHES_OFF if key.endswith(PATCHES_OFF) else ""
        each = ", ".join(f"{r['wall']:.1f}" for r in t["cold"])
        detail = "; ".join(f"{r['cpu']:.1f} s CPU at load {r['load']:.1f}, loop {r['vm']:.2f} s"
                           for r in t["cold"])
        lines += [f"| cold start, `simulate --game {game} --games 1000`{off} (empty cache; "
                  f"median of {len(t['cold'])}, alternating) | {t['cold_wall']:.1f} s wall, "
                  f"{t['cold_cpu']:.1f} s CPU (runs: {each} s; {detail}; CPU counts both "
                  f"processes) |",
                  f"| warm start, `simulate --game {game} --games 1000`{off} | "
                  f"{t['warm_wall']:.2f} s |"]
    return lines


def cli_vs_engine(workdir: Path, games: int = 1_000_000, pairs: int = 3) -> dict[str, float]:
    """Warm `simulate --games 1e6` (the whole process: start-up, playing, writing the run
    directory, the summary) against the engine alone playing the same games with the same
    threads in this process (``config.play``), alternating ``pairs`` times so drift on a
    shared machine hits both alike. Medians of the wall times and of the pair ratios."""
    from sim.core.game import configure
    from sim.core.inputs import default_threads

    threads = default_threads()
    config = configure("peer-to-peer")
    config.play(1, 0, 100)  # warm-up
    cmd = [sys.executable, "-m", "sim.cli", "--games", str(games), "--threads", str(threads),
           "--no-progress", "--json"]
    cli_walls, engine_walls = [], []
    for i in range(pairs):
        cli_walls.append(timed_child(cmd + ["--out", str(workdir / f"ratio-{i}")], tree_env(),
                                     workdir)[0])
        start = time.perf_counter()
        config.play(1, 0, games, threads)
        engine_walls.append(time.perf_counter() - start)
    ratios = [c / e for c, e in zip(cli_walls, engine_walls)]
    return {"cli_wall": statistics.median(cli_walls), "engine_wall": statistics.median(engine_walls),
            "ratio": statistics.median(ratios), "threads": threads, "games": games}


def plai_rates(games: int, repeats: int) -> dict[int, tuple[float, float]]:
    """Per player count, games/s by CPU time: (the engine with its per-card fight counts,
    as the Peer-to-Peer rows measure the engine with its per-card fates; the same games
    turned into the per-game table, ``run_chunk``)."""
    try:
        from sim.core.game import get_game

        game = get_game("plai")
    except Exception:  # noqa: BLE001 - PLAI not built yet
        return {}
    rates = {}
    for players in game.player_counts:
        config = game.configure(players=players, strategies=PLAI_BASELINE)
        config.run_chunk(1, 0, 50)
        rates[players] = (
            median_rate(lambda n: config.play(1, 0, n, 1, card_fights=True), games, repeats),
            median_rate(lambda n: config.run_chunk(1, 0, n, 1), games, repeats))
    return rates


def write_results(name: str, title: str, text: str, out: str | None) -> None:
    """Replace benchmarks/results/<name>.md (or write ``out``) with ``text`` and the run's
    command, machine and date."""
    from benchmarks.latest import write

    write(name, title, text, out=out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs")
    parser.add_argument("--out", default=None,
                        help="write here instead of benchmarks/results/run.md")
    parser.add_argument("--cold-runs", type=int, default=None,
                        help="cold starts per game, alternating (default 5; --quick 1)")
    parser.add_argument("--cold-only", action="store_true",
                        help="only the cold and warm starts (to results/cold_start.md)")
    parser.add_argument("--patches-off-too", action="store_true",
                        help="with --cold-only: each cold start also with the numba patches "
                             "off (CARDSIM_NUMBA_PATCHES=0), alternating")
    args = parser.parse_args()
    cold_runs = args.cold_runs or (1 if args.quick else 5)
    if args.cold_only:
        with tempfile.TemporaryDirectory() as tmp:
            text = "\n".join(["| measure | value |", "|---|---|",
                              *start_lines(start_times(Path(tmp), cold_runs,
                                                       args.patches_off_too))])
        print(text)
        write_results("cold_start", "Cold and warm start of `simulate --games 1000`", text,
                      args.out)
        return
    games, repeats = (20_000, 3) if args.quick else (200_000, 5)
    rss_sizes = ("1e5", "1e6") if args.quick else ("1e6", "1e7")

    rates = p2p_rates(games, repeats)
    limit = limit_rate(games * 5, repeats)
    ref, engine_beside_ref, ref_kind = (reference_rate(100, games, 3) if args.quick
                                        else reference_rate(400, games // 2, 5))
    plai = plai_rates(games // 4, repeats)
    with tempfile.TemporaryDirectory() as tmp:
        rss = {size: peak_rss_mb(size, Path(tmp)) for size in rss_sizes}
        starts = start_times(Path(tmp), cold_runs)
        ratio = cli_vs_engine(Path(tmp))

    engine4 = rates[(4, "cpu")]
    ratios = {"engine_vs_limit": engine4 / limit,
              "engine_vs_reference": (engine_beside_ref or engine4) / ref,
              "two_vs_one_thread": rates[(4, "wall2")] / rates[(4, "wall")],
              "rss_1e7_mb": rss[rss_sizes[-1]][0],
              "warm_start_s": starts["peer-to-peer"]["warm_wall"],
              # the cold-start target is wall time on an idle machine. A cold compile uses
              # two processes (sim.core.compile_cache), so CPU time is no longer a stand-in
              # for it: wall time is compared, and is only meaningful at a low load
              "cold_start_s": max(t["cold_wall"] for t in starts.values()),
              "cli_vs_engine_1e6": ratio["ratio"]}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [f"Load average (1 min) before the last measurement: {load:.1f}.", "",
             "### Peer-to-Peer games/s (default cards, rules, greedy v greedy; median of "
             f"{repeats} runs of {games:,} games)", "",
             "| players | 1 thread (CPU time) | us/game | 1 thread (wall) | 2 threads (wall) "
             "| 2 / 1 (wall) |", "|---|---|---|---|---|---|"]
    for players in range(1, 7):
        cpu, one, two = rates[(players, "cpu")], rates[(players, "wall")], rates[(players, "wall2")]
        lines.append(f"| {players} | {cpu:,.0f} | {1e6 / cpu:.1f} | {one:,.0f} | {two:,.0f} "
                     f"| {two / one:.2f} |")
    lines += ["", "| measure | value |", "|---|---|",
              f"| limit kernel, 1 thread (CPU time) | {limit:,.0f} games/s "
              f"({1e6 / limit:.2f} us/game) |",
              f"| {ref_kind}, 4 players (CPU time) | {ref:,.1f} games/s |"]
    if engine_beside_ref:
        lines.append(f"| engine, 4 players, 1 thread, alternating with the reference (CPU "
                     f"time) | {engine_beside_ref:,.0f} games/s |")
    for size, (mb, wall) in rss.items():
        lines.append(f"| peak RSS, `simulate --games {size}` | {mb:,.0f} MB ({wall:.1f} s) |")
    lines += start_lines(starts)
    lines.append(f"| warm `simulate --games 1e6` / the engine alone on the same games "
                 f"({ratio['threads']} threads, median of 3 alternating pairs) | "
                 f"{ratio['cli_wall']:.2f} s / {ratio['engine_wall']:.2f} s = "
                 f"{ratio['ratio']:.2f}x |")
    for players, (engine, table) in plai.items():
        lines.append(f"| PLAI, {players} players, 1 thread (CPU time): engine with per-card "
                     f"fight counts; with the per-game table | {engine:,.0f} games/s; "
                     f"{table:,.0f} games/s |")
    lines += ["", "### Ratios and targets", "", "| ratio | value | target | met |", "|---|---|---|---|"]
    for key, value in ratios.items():
        target = TARGETS[key]
        at_most = key in AT_MOST
        met = value <= target if at_most else value >= target
        if key == "rss_1e7_mb" and args.quick:
            key = f"rss_{rss_sizes[-1]}_mb (quick)"
        lines.append(f"| {key} | {value:,.3g} | {'<=' if at_most else '>='} "
                     f"{target:g} | {'yes' if met else 'NO'} |")
    text = "\n".join(lines) + "\n"
    print(text)
    write_results("run-quick" if args.quick else "run",
                  f"Engine benchmarks ({'quick' if args.quick else 'full'} run)", text, args.out)
    print(json.dumps({"p2p_4p_1thread": engine4, "limit": limit, "reference": ref,
                      "engine_beside_reference": engine_beside_ref}))


if __name__ == "__main__":
    main()
