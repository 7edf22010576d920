"""The Python API behind the ``simulate`` command. The CLI only parses options and calls
these functions; notebooks and scripts can call them directly.

    >>> from sim import api
    >>> result = api.run(game="peer-to-peer", players=4, games="1e6", seed=1)
    >>> result.summary["teams"]["A"]["win_rate"]
    >>> frame = result.to_pandas()            # one row per game (pandas)

The top of the library: it uses every layer below (sim.core, the games, sim.runs, reports,
sim.studies) and nothing imports it but the CLI. Heavy modules (numba, polars, the game
kernels) are imported inside the functions.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Mapping

from sim.core.errors import UserError
from sim.core.game import (DEFAULT_GAME, EXTRA_GAMES_ENV, configure, extra_games, game_modules,
                           hook, resolve_game)
from sim.core.inputs import MAX_GAMES, default_threads, parse_count, parse_seed
from sim.runs.setup import RunResult, load_games

DEFAULT_GAMES = 1000

# The public API; the names imported above from the lower layers are part of it.
__all__ = ["DEFAULT_GAME", "DEFAULT_GAMES", "EXTRA_GAMES_ENV", "MAX_GAMES",
           "RunResult", "balance_points", "balance_report", "configure", "default_cards",
           "default_threads", "extra_games", "game_modules", "load", "load_games",
           "parse_count", "parse_seed", "report", "resolve_game", "resume", "run",
           "strategies", "trace"]


# ----------------------------------------------------------------------------- runs
def run(game: str = DEFAULT_GAME, players: int | None = None, games: int | str = DEFAULT_GAMES,
        seed: int = 1, cards: str | None = None, rules_file: str | None = None,
        rule_overrides: tuple[str, ...] = (), strategies: Mapping[str, str] | None = None,
        out: str | os.PathLike | None = None, threads: int | None = None,
        chunk_size: int | None = None, resume: str | os.PathLike | None = None,
        progress: bool = True, debug: bool = False,
        backend: Any = None, backend_options: Mapping[str, Any] | None = None,
        command_line: str | None = None, until_ci: float | str | None = None) -> RunResult:
    """Simulate ``games`` games (seed ``seed``) into a new run directory and summarize them.

    ``resume=RUN_DIR`` continues an unfinished run instead (see ``resume``); the other
    configuration arguments are then taken from its manifest.

    ``backend`` plays the chunks: ``"local"`` (default, this process), ``"dask"``
    (``backend_options={"scheduler": "tcp://HOST:8786"}``), ``"dask-local"``
    (``{"workers": N}``), or a ``sim.runs.backends.Backend`` object (not closed here). The table
    is the same for every backend.

    ``until_ci=W`` (percentage points) stops once every headline interval is narrower
    than W; ``games`` is then the maximum (see ``sim.studies.sequential``).
    """
    from sim.runs import setup

    if resume is not None:
        return setup.resume(resume, threads=threads, progress=progress,
                            command_line=command_line, backend=backend,
                            backend_options=backend_options)
    if until_ci is not None:
        from sim.studies.sequential import run_until_ci

        return run_until_ci(until_ci, game=game, players=players, games=games, seed=seed,
                            cards=cards, rules_file=rules_file, rule_overrides=rule_overrides,
                            strategies=strategies, out=out, threads=threads,
                            chunk_size=chunk_size, progress=progress, debug=debug,
                            command_line=command_line, backend=backend,
                            backend_options=backend_options)
    return setup.start(game=game, players=players, games=games, seed=seed, cards=cards,
                       rules_file=rules_file, rule_overrides=rule_overrides,
                       strategies=strategies, out=out, threads=threads, chunk_size=chunk_size,
                       progress=progress, debug=debug, backend=backend,
                       backend_options=backend_options, command_line=command_line)


def resume(run_dir: str | os.PathLike, *, threads: int | None = None, progress: bool = True,
           command_line: str | None = None, backend: Any = None,
           backend_options: Mapping[str, Any] | None = None) -> RunResult:
    """Play the chunks an interrupted run is missing; the result is identical to an
    uninterrupted run. The configuration (game, players, card file, rules, strategies) is
    rebuilt from the manifest and must still match it (e.g. the card file's sha256).
    ``backend`` as in ``run`` (any backend can finish any run)."""
    from sim.runs import setup

    return setup.resume(run_dir, threads=threads, progress=progress, command_line=command_line,
                        backend=backend, backend_options=backend_options)


def load(run_dir: str | os.PathLike):
    """All games of a run as a polars LazyFrame (never materialised unless you collect);
    ``load_games(run_dir, as_pandas=True)`` gives a pandas DataFrame."""
    return load_games(run_dir)


def trace(game: str = DEFAULT_GAME, seed: int = 1, game_index: int = 0,
          players: int | None = None, cards: str | None = None, rules_file: str | None = None,
          rule_overrides: tuple[str, ...] = (), strategies: Mapping[str, str] | None = None,
          debug: bool = False) -> str:
    """Replay one game and describe it round by round."""
    seed = parse_seed(seed)
    if isinstance(game_index, bool) or not isinstance(game_index, int) or game_index < 0:
        raise UserError(f"must be a whole number >= 0, got {game_index}", field="--game-index")
    config = configure(game, players, cards, rules_file, rule_overrides, strategies, debug)
    return config.trace(seed, game_index)


def default_cards(game: str = DEFAULT_GAME) -> str:
    """The text of the game's default card file (CSV)."""
    path = Path(resolve_game(game).default_cards_path())
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot read the default card file ({exc.strerror or exc})",
                        file=str(path)) from None


# ---------------------------------------------------------------- reports (issue 4)

def report(run_dirs, out: str | os.PathLike, threshold_pp: float = 2.0,
           allow_mixed: bool = False) -> dict[str, Any]:
    """Write report.html, report.md and CSV tables for one or more run directories."""
    from reports.build import write_report

    return write_report([str(d) for d in run_dirs], str(out), threshold_pp=threshold_pp,
                        allow_mixed=allow_mixed)


def balance_points(game: str = DEFAULT_GAME) -> list[tuple[int, tuple[str, ...]]]:
    """(players, extra rule overrides) for each run of ``balance_report``: every player
    count, each with the rule variants of the game's ``balance_variants`` hook (Peer-to-Peer:
    every odd_team_compensation mode at 3 and 5 players, so the report can compare them)."""
    game_obj = resolve_game(game)
    variants = hook(game_obj, "balance_variants")
    return [(players, tuple(extra)) for players in game_obj.player_counts
            for extra in variants(players)]


def balance_report(games: int | str = 1_000_000, seed: int = 1, out: str | os.PathLike | None = None,
                   game: str = DEFAULT_GAME, cards: str | None = None,
                   rules_file: str | None = None, rule_overrides: tuple[str, ...] = (),
                   strategies: Mapping[str, str] | None = None, threads: int | None = None,
                   threshold_pp: float = 2.0, progress: bool = True,
                   command_line: str | None = None) -> dict[str, Any]:
    """Run every player count (and compensation mode) with the same settings, then report.

    Runs go to ``OUT/runs/<players>p[-mode]``; the report to ``OUT``."""
    from sim.runs.rundir import stamped_path

    games = parse_count(games, field="--games")
    out_path = Path(out) if out is not None else stamped_path(
        f"balance-{game}-seed{parse_seed(seed)}")
    if out_path.exists() and any(out_path.iterdir()):
        raise UserError("the output directory is not empty; choose a new --out",
                        file=str(out_path), field="--out")
    run_dirs = []
    for players, extra in balance_points(game):
        name = f"{players}p" + (f"-{extra[0].split('=')[1]}" if extra else "")
        result = run(game=game, players=players, games=games, seed=seed, cards=cards,
                     rules_file=rules_file, rule_overrides=tuple(rule_overrides) + extra,
                     strategies=strategies, out=out_path / "runs" / name, threads=threads,
                     progress=progress, command_line=command_line)
        run_dirs.append(result.run_dir)
    return report(run_dirs, out_path, threshold_pp=threshold_pp)


def strategies(game: str = DEFAULT_GAME) -> list[dict[str, Any]]:
    """Every registered strategy of ``game``: name, summary, parameters with defaults and
    the file that defines it (``strategies/<game package>/<name>.py``)."""
    from sim.core.strategy import registry

    if game not in game_modules():
        raise UserError(f"unknown game '{game}'; choose one of: {', '.join(game_modules())}",
                        field="--game")
    package = hook(resolve_game(game), "strategy_package")
    try:
        found = registry(package) if package else {}
    except ModuleNotFoundError:
        found = {}
    return [{"name": s.name, "summary": s.summary,
             "params": {**dict(s.params), **dict(s.text_params)},
             "module": f"strategies/{package}/{sys.modules[s.weights.__module__].__name__.rsplit('.', 1)[-1]}.py"}
            for s in found.values()]


# ---------------------------------------------------------------- tune (issue 23)
def tune(game: str = DEFAULT_GAME, players: int | None = None, out: str | os.PathLike = "expert.yaml",
         budget: int | str | None = None, seed: int = 1, base: str = "weighted",
         cards: str | None = None, rules_file: str | None = None,
         rule_overrides: tuple[str, ...] = (), threads: int | None = None,
         backend: Any = None, backend_options: Mapping[str, Any] | None = None,
         games_per_eval: int | str | None = None, check_games: int | str | None = None,
         progress: bool = True, command_line: str | None = None):
    """Tune the weights of ``base`` by self-play (CMA-ES) and write a strategy file.

    Returns a ``sim.studies.tune.TuneResult`` (``.out``, ``.plot``, ``.document``,
    ``.report()``). ``budget`` is the games the search may play (default: the game's
    game's arena ``default_budget``); the final re-check plays ``check_games``
    more per opponent. Deterministic for a seed, on every backend. See sim/studies/tune.py."""
    from sim.studies.tune import tune_strategy

    return tune_strategy(game=game, players=players, out=out, budget=budget, seed=seed,
                         base=base, cards=cards, rules_file=rules_file,
                         rule_overrides=rule_overrides, threads=threads, backend=backend,
                         backend_options=backend_options, games_per_eval=games_per_eval,
                         check_games=check_games, progress=progress, command_line=command_line)


# ---------------------------------------------------------------- skill ladder (issue 24)
def skill(game: str = DEFAULT_GAME, players: Any = None, games: int | str | None = None,
          search_games: int | str | None = None, budgets: tuple[str, ...] | None = None,
          seed: int = 1, out: str | os.PathLike | None = None, threads: int | None = None,
          cards: str | None = None, rules_file: str | None = None,
          rule_overrides: tuple[str, ...] = (), backend: Any = None,
          backend_options: Mapping[str, Any] | None = None, progress: Any = None,
          command_line: str | None = None):
    """The skill ladder of ``game`` (random, each baseline, expert, search at two budgets;
    each rung against the rung below and against expert) at each player count of
    ``players`` (default: every count from 2). Returns a ``sim.studies.skill.SkillResult``
    (``.table()``, ``.run_dir``, ``.summary``); see sim/studies/skill.py."""
    from sim.studies import skill as skill_study

    kwargs: dict[str, Any] = {}
    if games is not None:
        kwargs["games"] = games
    if search_games is not None:
        kwargs["search_games"] = search_games
    if budgets is not None:
        kwargs["budgets"] = tuple(budgets)
    return skill_study.run(game=game, players=players, seed=seed, out=out, threads=threads,
                           cards=cards, rules_file=rules_file, rule_overrides=rule_overrides,
                           backend=backend, backend_options=backend_options,
                           progress=progress, command_line=command_line, **kwargs)
