"""``simulate warm``: compile the games' kernels into numba's cache before the first run.

After ``pip install`` the cache is empty and the first run of each game spends its first
minute compiling. ``warm`` plays one game of each (its results are thrown away), which
compiles and caches every kernel a run needs (and, with ``trace``, the trace kernels).
numba compiles on one core, so the games compile in parallel processes (one per game,
at most ``jobs`` at once): they share the cache directory, and each kernel's files are
written by the one process that compiles it. A game whose kernels (its description's
``kernels``) are all cached already is not started (``"cached": True``), unless the trace
kernels are wanted too.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Sequence

from sim.core.compile_cache import HELPER_ENV
from sim.core.errors import UserError
from sim.core.game import configure, game_modules, resolve_game


def kernels_cached(game: str) -> bool:
    """Whether every compiled entry point a run of ``game`` calls (``Game.kernels``) is in
    numba's cache (False when one is not, or when nobody can tell)."""
    from sim.core.compile_cache import all_cached

    dispatchers = resolve_game(game).kernels()
    if not dispatchers:
        return False
    return all_cached(list(dispatchers)) is True


def warm_game(game: str, trace: bool = False) -> dict[str, Any]:
    """In this process: play one game of ``game`` at its default settings (and replay it
    as a trace with ``trace``), so its kernels are compiled and cached. Returns {"game",
    "seconds", "cpu_seconds"}."""
    start, cpu = time.perf_counter(), time.process_time()
    config = configure(game)
    config.run_chunk(1, 0, 1)
    if trace:
        config.trace(1, 0)
    return {"game": game, "seconds": round(time.perf_counter() - start, 2),
            "cpu_seconds": round(time.process_time() - cpu, 2)}


_CHILD = ("import json, sys; from sim.runs.warm import warm_game; "
          "print(json.dumps(warm_game(sys.argv[1], sys.argv[2] == '1')))")


def _warm_in_child(game: str, trace: bool) -> dict[str, Any]:
    # The games already compile side by side, one process each: no compile helper per game.
    done = subprocess.run([sys.executable, "-c", _CHILD, game, "1" if trace else "0"],
                          stdout=subprocess.PIPE, text=True, env={**os.environ, HELPER_ENV: "0"})
    if done.returncode != 0:
        raise UserError(f"compiling the {game} kernels failed (exit {done.returncode}; "
                        "its error is above)", field="warm")
    return json.loads(done.stdout.strip().splitlines()[-1])


def warm(games: Sequence[str] | None = None, jobs: int | None = None,
         trace: bool = False) -> list[dict[str, Any]]:
    """Compile (or load) the kernels of ``games`` (default: every game), ``jobs`` games at
    a time in separate processes (default: one per CPU). One result per game, in order."""
    known = game_modules()
    games = list(games) if games else list(known)
    for game in games:
        if game not in known:
            raise UserError(f"unknown game '{game}'; choose one of: {', '.join(known)}",
                            field="--game")
    cached = {game: not trace and kernels_cached(game) for game in set(games)}
    todo = [game for game in games if not cached[game]]
    jobs = max(1, min(int(jobs or os.cpu_count() or 1), len(todo) or 1))
    if jobs == 1:
        done = [warm_game(game, trace) for game in todo]
    else:
        with ThreadPoolExecutor(jobs) as pool:
            done = list(pool.map(lambda game: _warm_in_child(game, trace), todo))
    played = iter(done)
    return [{"game": game, "seconds": 0.0, "cpu_seconds": 0.0, "cached": True}
            if cached[game] else {**next(played), "cached": False} for game in games]
