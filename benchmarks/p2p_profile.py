"""Where a Peer-to-Peer game's time goes: each part of a round and each decision, timed.

    python benchmarks/p2p_profile.py                     # this tree, expert/greedy/cautious, 4p
    python benchmarks/p2p_profile.py --rev 8390984 --games 40000 --strategies expert
    python benchmarks/p2p_profile.py --base 8390984      # that commit first, then this tree

A copy of the tree (the working tree, or ``--rev`` exported once by engine_ab.py's export) is
patched: the calls listed in POINTS are wrapped in reads of the CPU's time-stamp counter
(benchmarks/cycles_kernel.py), which add each call's cycles and count into a profile row
of the game state's float scratch (``fscr``, one row more), and D2's searches also count
the hand sizes they get. The copy has its own kernel sources, so its own numba cache
(compiled once, then reused). A worker process per strategy plays the games (both teams
the same strategy) on one thread with run_games, on a state it keeps, and reads the row.

A call longer than CAP cycles was interrupted by the scheduler (the machine is shared) and
is left out of the sums (counted as ``dropped``). Time per game is CPU time; the parts
are cycles at the counter's rate, so "other" (what no listed call covers: the game's
setup is in start_game, the rest is the loops' own work and the timer reads) is the
game's CPU time less the parts. The counter reads cost about 10 ns each (two per call).

The latest table goes to benchmarks/results/p2p_profile.md (and stdout).
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "results" / "p2p_profile.md"
GAME_DIR = "sim/games/peer_to_peer"
PROFILE_ROW = "F_PROFILE"
CAP = 460_000          # cycles (0.2 ms at 2.3 GHz): longer calls were interrupted
HIST = 40              # profile row: 2 slots per point, then the hand-size histograms
HIST_SLOTS = 16        # per point with a hand size (see HAND_KEY)

# A D2 search's histogram key: the hand size (7 for 7 and up), +8 with an unused boost card.
HAND_KEY = "min(hand[0], 7) + (8 if hand[3] else 0)"
# D2's searches are called from choose_commit, or (since the fast path for any weights)
# from search_commit and search_general.
SEARCH = ("choose_commit", "search_commit", "search_general")

# (label, file, enclosing function (or a tuple of them), called function, fscr
# expression there, hand-size expression or None). Each statement of those functions
# whose value is a call of the called function is timed; a function the file does not
# have or a call it does not make is skipped (so the same list serves trees before and
# after a change of D2's searches).
POINTS = [
    ("game setup (D1)", "engine_kernel.py", "_play", "start_game", "state.fscr", None),
    ("result row", "engine_kernel.py", "_play", "finish_game", "state.fscr", None),
    ("round start (R1)", "engine_kernel.py", "play_from", "start_round", "state.fscr", None),
    ("assist loop (R2)", "engine_kernel.py", "play_from", "assist_loop", "state.fscr", None),
    ("round end (R3-R5)", "engine_kernel.py", "play_from", "end_round", "state.fscr", None),
    ("D2 commit", "round_kernel.py", "assist_loop", "choose_commit", "fscr", None),
    ("D3 retarget", "round_kernel.py", "assist_loop", "choose_target", "fscr", None),
    ("reveal (R2b)", "round_kernel.py", "assist_loop", "reveal", "fscr", None),
    ("contest (R2c)", "round_kernel.py", "assist_loop", "resolve_contest", "fscr", None),
    ("win + place (D4, D5)", "round_kernel.py", "assist_loop", "win_customer", "fscr", None),
    ("refresh (R3)", "engine_kernel.py", "end_round", "refresh", "state.fscr", None),
    ("unhappy (R4, D6)", "engine_kernel.py", "end_round", "unhappy", "state.fscr", None),
    ("D2 by subset sums", "commit_kernel.py", SEARCH, "_best_by_sums", "fscr", HAND_KEY),
    ("D2 by subset lanes", "commit_kernel.py", SEARCH, "commit_by_lanes", "fscr", HAND_KEY),
    ("D2 by subset lanes, 7 cards", "commit_kernel.py", SEARCH, "commit_by_lanes_seven", "fscr",
     HAND_KEY),
    ("D2 general search", "commit_kernel.py", SEARCH, "commit_by_passes", "fscr", HAND_KEY),
]
# The parts of a round that add up (the rest are inside them).
TOP = ("game setup (D1)", "result row", "round start (R1)", "assist loop (R2)",
       "round end (R3-R5)")
D2_PARTS = ("D2 by subset sums", "D2 by subset lanes", "D2 by subset lanes, 7 cards",
            "D2 general search")


# ---------------------------------------------------------------- the patched copy

def hist_start(slot: int) -> int:
    """Where point ``slot``'s hand-size histogram starts in the profile row."""
    return HIST + HIST_SLOTS * sum(1 for p in POINTS[:slot] if p[5])


ROW_LENGTH = hist_start(len(POINTS))
assert 2 * len(POINTS) < HIST and ROW_LENGTH <= 256   # fscr rows are at least 256 wide


def _calls(func: ast.FunctionDef, callee: str) -> list[ast.stmt]:
    found = []
    for node in ast.walk(func):
        if (isinstance(node, (ast.Assign, ast.Expr, ast.Return))
                and isinstance(node.value, ast.Call)):
            f = node.value.func
            if isinstance(f, ast.Name) and f.id == callee:
                found.append(node)
    return found


def patch_file(text: str, points: list[tuple[int, tuple]]) -> tuple[str, list[int]]:
    """``text`` with each (slot, point) timed; returns the slots actually found."""
    tree = ast.parse(text)
    funcs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    lines = text.split("\n")
    inserts = []   # (line index, 0 before / 1 after, lines) to insert before that index
    found = []
    for slot, (_, _, func, callee, fscr, hist) in points:
        names = (func,) if isinstance(func, str) else func
        if not any(name in funcs for name in names):
            raise SystemExit(f"p2p_profile: no function {func} (the tree changed: update POINTS)")
        stmts = [stmt for name in names if name in funcs for stmt in _calls(funcs[name], callee)]
        if stmts:
            found.append(slot)
        for stmt in stmts:
            indent = " " * stmt.col_offset
            before = [f"{indent}_t{slot} = cycles()"]
            after = [f"{indent}_d{slot} = cycles() - _t{slot}",
                     f"{indent}if _d{slot} < {CAP}:",
                     f"{indent}    {fscr}[{PROFILE_ROW}, {2 * slot}] += _d{slot}",
                     f"{indent}    {fscr}[{PROFILE_ROW}, {2 * slot + 1}] += 1",
                     f"{indent}else:",
                     f"{indent}    {fscr}[{PROFILE_ROW}, {HIST - 1}] += 1"]
            if hist:
                after.append(f"{indent}{fscr}[{PROFILE_ROW}, {hist_start(slot)} + {hist}] += 1")
            if isinstance(stmt, ast.Return):   # return f(..) -> _r = f(..), timed, return _r
                first = lines[stmt.lineno - 1]
                lines[stmt.lineno - 1] = first.replace("return ", f"_r{slot} = ", 1)
                after.append(f"{indent}return _r{slot}")
            inserts.append((stmt.lineno - 1, 0, before))
            inserts.append((stmt.end_lineno, 1, after))
    # from the end; at one index a call's "after" block goes above the next call's "before"
    for index, _, block in sorted(inserts, key=lambda x: (-x[0], x[1])):
        lines[index:index] = block
    return "\n".join(lines), found


def patched_tree(src: Path) -> tuple[Path, list[int]]:
    """A patched copy of ``src`` (a tree with sim/), kept under ~/.cache/cardsim/profile."""
    texts = {}
    slots_found = []
    by_file: dict[str, list] = {}
    for slot, point in enumerate(POINTS):
        by_file.setdefault(point[1], []).append((slot, point))
    for name, points in by_file.items():
        text, found = patch_file((src / GAME_DIR / name).read_text(), points)
        slots_found += found
        if "from sim.core.cycles_kernel import cycles" not in text:
            text = text.replace("\nfrom numba import njit\n",
                                "\nfrom numba import njit\nfrom sim.core.cycles_kernel import "
                                "cycles\n", 1)
        texts[name] = text
    state = (src / GAME_DIR / "state_kernel.py").read_text()
    rows = re.search(r"^N_FROWS = (\d+)\n", state, re.M)   # the profile row goes last
    if rows is None:
        raise SystemExit("p2p_profile: state_kernel's float scratch changed: update patched_tree")
    n = int(rows.group(1))
    texts["state_kernel.py"] = (state[:rows.start()] + f"N_FROWS = {n + 1}\n{PROFILE_ROW} = {n}\n"
                                + state[rows.end():])
    for name in by_file:
        if PROFILE_ROW not in texts[name].split("def ")[0]:
            texts[name] = texts[name].replace(
                "from sim.core.cycles_kernel import cycles\n",
                f"from sim.core.cycles_kernel import cycles\nfrom sim.games.peer_to_peer."
                f"state_kernel import {PROFILE_ROW}\n", 1)
    cycles_src = (ROOT / "benchmarks" / "cycles_kernel.py").read_text()
    digest = hashlib.sha256(cycles_src.encode())
    for name in sorted(texts):
        digest.update(name.encode() + texts[name].encode())
    for path in sorted((src / "sim").rglob("*.py")):
        digest.update(str(path.relative_to(src)).encode() + path.read_bytes())
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    tree = cache / "cardsim" / "profile" / digest.hexdigest()[:16]
    if not (tree / "sim").is_dir():
        tmp = Path(tempfile.mkdtemp(dir=tree.parent if tree.parent.is_dir() else None))
        shutil.copytree(src / "sim", tmp / "sim")
        for name in ("strategies", "pyproject.toml"):
            if (src / name).is_dir():
                shutil.copytree(src / name, tmp / name)
            elif (src / name).exists():
                shutil.copy(src / name, tmp / name)
        for name, text in texts.items():
            (tmp / GAME_DIR / name).write_text(text)
        (tmp / "sim" / "core" / "cycles_kernel.py").write_text(cycles_src)
        tree.parent.mkdir(parents=True, exist_ok=True)
        tmp.rename(tree)
    return tree, sorted(slots_found)


# ---------------------------------------------------------------- the worker

def worker(tree: str, spec: str, players: int, games: int, seed: int) -> None:
    sys.path.insert(0, tree)
    import numpy as np   # noqa: PLC0415
    import sim   # noqa: PLC0415
    from sim.core.cycles_kernel import cycles   # noqa: PLC0415
    from sim.core.game import configure   # noqa: PLC0415
    from sim.games.peer_to_peer import constants as k   # noqa: PLC0415
    from sim.games.peer_to_peer.engine_kernel import new_state, run_games   # noqa: PLC0415
    from sim.games.peer_to_peer.state_kernel import F_PROFILE   # noqa: PLC0415
    from numba import njit   # noqa: PLC0415

    assert Path(sim.__file__).resolve().is_relative_to(Path(tree).resolve()), sim.__file__
    config = configure("peer-to-peer", players, strategies={"A": spec, "B": spec})
    config.play(seed, 0, 50, 1)   # compile and warm up
    tables = config._kernel_args()
    n = config.cards.n
    read = njit(lambda: cycles())
    c0, w0 = read(), time.perf_counter()
    time.sleep(0.2)
    ghz = (read() - c0) / (time.perf_counter() - w0) / 1e9
    state = new_state(n)
    # later trees take the chunk's curve sums last (None: none kept); this call compiles
    # run_games for that signature before the clock starts
    curves = ("curves" in inspect.signature(run_games.py_func).parameters) * (None,)
    run_games(tables, seed, 0, np.zeros(1, dtype=k.RESULT_DTYPE), np.zeros((1, n), np.int8),
              False, state, *curves)
    state.fscr[F_PROFILE] = 0.0
    out = np.zeros(games, dtype=k.RESULT_DTYPE)
    fates = np.zeros((games, n), dtype=np.int8)
    cpu = time.process_time()
    run_games(tables, seed, 1000, out, fates, False, state, *curves)
    cpu = time.process_time() - cpu
    print(json.dumps({"ghz": ghz, "cpu": cpu, "games": games,
                      "rounds": float(out["rounds"].sum()),
                      "row": state.fscr[F_PROFILE, :ROW_LENGTH].tolist()}))


# ---------------------------------------------------------------- the driver

def profile(tree: Path, spec: str, players: int, games: int, seed: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    env.pop("NUMBA_CACHE_DIR", None)
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", str(tree),
                           spec, str(players), str(games), str(seed)], cwd=tree, env=env,
                          capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit(proc.stderr)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def table(spec: str, r: dict, slots: list[int]) -> list[str]:
    row, ghz, games, rounds = r["row"], r["ghz"], r["games"], r["rounds"]
    us_game = 1e6 * r["cpu"] / games
    lines = [f"### {spec} v {spec}", "",
             f"{games:,} games, {rounds / games:.2f} rounds a game, {us_game:.1f} us a game "
             f"(CPU; {us_game * games / rounds:.2f} us a round), counter {ghz:.2f} GHz, "
             f"{int(row[HIST - 1]):,} interrupted calls dropped.", "",
             "| part | calls a round | ns a call | us a round | share of the game |",
             "|---|---|---|---|---|"]
    covered = 0.0
    for slot in slots:
        label = POINTS[slot][0]
        cyc, calls = row[2 * slot], row[2 * slot + 1]
        if calls == 0:
            continue
        us_round = cyc / ghz / 1e3 / rounds
        if label in TOP:
            covered += cyc / ghz / 1e3
        name = label if label in TOP else ("&nbsp;&nbsp;&nbsp;&nbsp;" if label in D2_PARTS
                                           else "&nbsp;&nbsp;") + label
        lines.append(f"| {name} | {calls / rounds:.2f} | {cyc / ghz / calls:.0f} | "
                     f"{us_round:.3f} | {100 * us_round * rounds / (us_game * games):.1f} % |")
    other = us_game * games - covered
    lines.append(f"| other (loops, timer reads) | | | {other / rounds:.3f} | "
                 f"{100 * other / (us_game * games):.1f} % |")
    hist_lines = []
    for slot in slots:
        label = POINTS[slot][0]
        if POINTS[slot][5] is None or row[2 * slot + 1] == 0:
            continue
        h = row[hist_start(slot): hist_start(slot) + HIST_SLOTS]
        total = sum(h)
        parts = ", ".join(f"{i % 8}{'+' if i == 7 else ''}{' with a boost' if i >= 8 else ''}: "
                          f"{100 * v / total:.1f} %" for i, v in enumerate(h) if v)
        hist_lines.append(f"- {label}, cards in hand: {parts}")
    d2 = row[2 * POINTS.index(next(p for p in POINTS if p[0] == "D2 commit")) + 1]
    searched = sum(row[2 * s + 1] for s in slots if POINTS[s][0] in D2_PARTS)
    if d2:
        hist_lines.append(f"- D2 calls without a search (empty hand or row, or no option can be "
                          f"legal): {100 * (d2 - searched) / d2:.1f} %")
    return lines + [""] + hist_lines + [""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rev", default=None, help="a commit (default: the working tree)")
    parser.add_argument("--base", default=None,
                        help="also profile this commit, first (a before / after table)")
    parser.add_argument("--strategies", default="expert,greedy,cautious")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=40_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=str(OUT))
    parser.add_argument("--worker", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        tree, spec, players, games, seed = args.worker
        worker(tree, spec, int(players), int(games), int(seed))
        return
    flags = "".join(f" --{name} {value}" for name, value in (("base", args.base),
                                                            ("rev", args.rev)) if value)
    lines = ["# Where a Peer-to-Peer game's time goes", "",
             f"Reproduce: `python benchmarks/p2p_profile.py{flags} --players {args.players} "
             f"--games {args.games} --strategies {args.strategies}` (one thread; the machine "
             f"is shared, 1-minute load {os.getloadavg()[0]:.1f} at the start). Parts indented "
             "under the one that calls them.", ""]
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from engine_ab import export, resolve, this_tree   # noqa: PLC0415 - shared with the A/B scripts

    revs = ([args.base] if args.base else []) + [args.rev]
    for rev in revs:
        full, name = resolve(rev) if rev else (None, this_tree())
        tree, slots = patched_tree(export(full) if rev else ROOT)
        lines += [f"## {'before: ' if args.base and rev == args.base else ''}{name}", ""]
        for spec in args.strategies.split(","):
            r = profile(tree, spec, args.players, args.games, args.seed)
            lines += table(spec, r, slots)
            print("\n".join(lines[-30:]), flush=True)
    text = "\n".join(lines)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
