"""The Python API behind the ``simulate`` command. The CLI only parses options and calls
these functions; notebooks and scripts can call them directly.

    >>> from sim import api
    >>> result = api.run(game="peer-to-peer", players=4, games="1e6", seed=1)
    >>> result.summary["teams"]["A"]["win_rate"]
    >>> frame = result.to_pandas()            # one row per game (pandas)

Every command that plays games takes the same two values, or their fields as keywords
(keywords win over the values' fields):

    >>> request = api.GameRequest(game="plai", players=3, strategies={"all": "cautious"})
    >>> on_two = api.Execution(games=20_000, seed=7, backend="dask-local",
    ...                        backend_options={"workers": 2})
    >>> api.run(request, on_two)                       # == api.run(game="plai", ..., seed=7)
    >>> api.matchups("weighted,cautious", request, on_two.replace(games=6000))

``GameRequest``: game, players, cards, rules_file, rule_overrides, strategies, debug.
``Execution``: games, seed, threads, chunk_size, backend, backend_options, progress, out,
until_ci, command_line (see sim/core/request.py).

The top of the library: it uses every layer below (sim.core, the games, sim.runs, reports,
sim.studies) and nothing imports it but the CLI. Heavy modules (numba, polars, the game
kernels) are imported inside the functions.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any, Mapping, Sequence

from sim.core.errors import UserError
from sim.core.game import (DEFAULT_GAME, EXTRA_GAMES_ENV, configure, extra_games, game_modules,
                           resolve_game)
from sim.core.inputs import MAX_GAMES, default_threads, parse_count, parse_seed
from sim.core.request import EXECUTION_FIELDS, REQUEST_FIELDS, Execution, GameRequest, split
from sim.runs.setup import RunResult, load_games

DEFAULT_GAMES = 1000

# The public API; the names imported above from the lower layers are part of it.
__all__ = ["DEFAULT_GAME", "DEFAULT_GAMES", "EXTRA_GAMES_ENV", "MAX_GAMES", "Execution",
           "GameRequest", "RunResult", "ablate", "autobalance", "balance_points",
           "balance_report", "check", "compare", "compare_games", "configure", "default_cards",
           "default_threads", "distill", "experiment", "explain", "extra_games", "game_modules",
           "load", "load_games", "matchups", "parse_count", "parse_seed", "report",
           "resolve_game", "resume", "run", "skill", "story", "strategies", "trace", "tune",
           "viewer", "warm"]


# ----------------------------------------------------------------------------- runs
def run(request: GameRequest | str | None = None, execution: Execution | None = None, /, *,
        resume: str | os.PathLike | None = None, **fields: Any) -> RunResult:
    """Simulate ``execution.games`` games (default 1000; seed ``execution.seed``) of
    ``request`` into a new run directory and summarize them. The fields of both values can
    be given as keywords instead (``api.run(game="plai", players=3, games=10_000)``).

    ``resume=RUN_DIR`` continues an unfinished run instead (see ``resume``); the other
    configuration arguments are then taken from its manifest.

    ``backend`` plays the chunks: ``"local"`` (default, this process), ``"dask"``
    (``backend_options={"scheduler": "tcp://HOST:8786"}``), ``"dask-local"``
    (``{"workers": N}``), or a ``sim.runs.backends.Backend`` object (not closed here). The table
    is the same for every backend.

    ``until_ci=W`` (percentage points) stops once every headline interval is narrower
    than W; ``games`` is then the maximum (see ``sim.studies.sequential``), on every backend.
    """
    from sim.runs import setup

    request, execution = split(request, execution, fields, command="run()")
    if resume is not None:
        return _resume(resume, execution)
    if execution.until_ci is not None:
        from sim.studies.sequential import DEFAULT_MAX_GAMES, run_until_ci

        if execution.games is None:   # the maximum, as the CLI's --until-ci has it
            execution = execution.replace(games=DEFAULT_MAX_GAMES)

        return run_until_ci(request, execution)
    if execution.games is None:
        execution = execution.replace(games=DEFAULT_GAMES)
    return setup.start(request, execution)


def explain(result: RunResult, fraction: float | None = None) -> dict[str, Any] | None:
    """The main cause of a run's balance edge (``result`` from ``run``): when the balance
    answer of its summary (Peer-to-Peer: team balance; PLAI: the seat furthest from its
    fair share) has an interval that excludes the even point, replay the run's first games
    under each swap the game declares and add ``causes``, ``main_cause`` and ``replayed``
    to that answer in ``result.summary``. Takes about a quarter of the run's time by
    default (``fraction``). Returns the answer (None for a game without one)."""
    from sim.runs.explain import SUMMARY_FRACTION, explain_summary

    return explain_summary(result, SUMMARY_FRACTION if fraction is None else fraction)


def resume(run_dir: str | os.PathLike, execution: Execution | None = None, /,
           **fields: Any) -> RunResult:
    """Play the chunks an interrupted run is missing; the result is identical to an
    uninterrupted run. The configuration (game, players, card file, rules, strategies) is
    rebuilt from the manifest and must still match it (e.g. the card file's sha256).
    From ``execution`` (or keywords): threads, progress, command_line, and the backend as
    in ``run`` (any backend can finish any run)."""
    _, execution = split(None, execution, fields, command="resume()",
                         allowed=("threads", "progress", "command_line", "backend",
                                  "backend_options"))
    return _resume(run_dir, execution)


def _resume(run_dir: str | os.PathLike, execution: Execution) -> RunResult:
    """``resume``; a run stopped under ``--until-ci`` goes on looking after every chunk."""
    from sim.runs import setup
    from sim.studies.sequential import resume_until_ci

    resumed = resume_until_ci(run_dir, execution)   # None: not a stopped --until-ci run
    if resumed is not None:
        return resumed
    return setup.resume(run_dir, threads=execution.threads, progress=execution.progress,
                        command_line=execution.command_line, **execution.backend_args())


def load(run_dir: str | os.PathLike):
    """All games of a run as a polars LazyFrame (never materialised unless you collect);
    ``load_games(run_dir, as_pandas=True)`` gives a pandas DataFrame."""
    return load_games(run_dir)


def compare(base: str | os.PathLike, edit: str | os.PathLike, *,
            stronger_play: float | None = None, stronger_play_games: int | None = None,
            threads: int | None = None, progress: bool = False, announce=None,
            threshold_pp: float = 2.0):
    """What an edit did, game by game: two runs of the same game, player count and seed
    (``base`` and ``edit`` run directories) compared on the game indices both hold. Returns
    a ``sim.studies.compare.RunComparison``: ``.rows()`` every headline's paired difference
    with its 95 % interval, ``.balance_rows()`` the balance measures' (team A's share of
    the games won by a team), ``.stronger`` whether each of those changes holds under
    stronger play (``stronger_play`` seconds of search games on both runs' lowest common
    game indices, default 300 or $CARDSIM_STRONGER_PLAY, 0: off; or
    ``stronger_play_games``), ``.changed_games()`` {(baseline outcome, edit outcome): game
    indices}, ``.changes`` what differs between the configurations, ``.to_text()``,
    ``.to_dict()`` (``simulate compare --json``). Runs that are not paired raise UserError.
    ``progress``: a bar on stderr while the search games play (on a terminal); ``announce``:
    called once before they start (after the runs were read and paired); ``threshold_pp``:
    a change holds under stronger play when it moves by less than this many points (the
    reports' ``threshold_pp``)."""
    from sim.studies.compare import compare_runs
    from sim.studies.compare_stronger import check_change

    if (isinstance(threshold_pp, bool) or not isinstance(threshold_pp, (int, float))
            or not 0 < threshold_pp < 100):
        raise UserError(f"threshold must be a number of percentage points above 0 and below "
                        f"100, got {threshold_pp!r}", field="threshold_pp")
    result = compare_runs(base, edit)
    result.stronger = check_change(result, stronger_play, stronger_play_games, threads,
                                   progress=progress, announce=announce,
                                   threshold_pp=threshold_pp)
    return result


def trace(request: GameRequest | str | None = None, /, *, seed: int = 1, game_index: int = 0,
          **fields: Any) -> str:
    """Replay game ``game_index`` of ``seed`` of ``request`` (or its fields as keywords)
    and describe it round by round."""
    request, _ = split(request, None, fields, command="trace()", allowed=REQUEST_FIELDS)
    seed = parse_seed(seed)
    if isinstance(game_index, bool) or not isinstance(game_index, int) or game_index < 0:
        raise UserError(f"must be a whole number >= 0, got {game_index}", field="--game-index")
    return request.configure().trace(seed, game_index)


def story(request: GameRequest | str | None = None, /, *, seed: int = 1, game_index: int = 0,
          **fields: Any):
    """Replay game ``game_index`` of ``seed`` of ``request`` as a ``sim.core.story.Story``:
    its rounds (or turns), each with the table at its start, what happened in words and
    every decision with the options weighed and their scores. ``.text()`` is ``trace``'s
    text."""
    request, _ = split(request, None, fields, command="story()", allowed=REQUEST_FIELDS)
    return _story(request, seed, game_index)


def _story(request: GameRequest, seed: int, game_index: int):
    seed = parse_seed(seed)
    if isinstance(game_index, bool) or not isinstance(game_index, int) or game_index < 0:
        raise UserError(f"must be a whole number >= 0, got {game_index}", field="--game-index")
    game = resolve_game(request.game)
    if game.story is None:
        raise UserError(f"game '{request.game}' cannot tell a game as a story (its "
                        "description has no story, see sim/core/game.py)", field="--game")
    return game.story(request.configure(), seed, game_index)


def viewer(request: GameRequest | str | None = None, /, *, seed: int = 1, game_index: int = 0,
           compare: GameRequest | Mapping[str, Any] | None = None, **fields: Any) -> str:
    """The game viewer: one self-contained HTML page (no external resources) that steps
    through game ``game_index`` of ``seed`` round by round (or turn by turn).

    ``compare``: the edited game, as a GameRequest or as the fields that change
    (``{"cards": "edited.csv"}``, ``{"rules_file": "variant.yaml"}``): the page shows the
    baseline and the edited game of the same seed and index side by side and opens at the
    first place they differ."""
    request, _ = split(request, None, fields, command="viewer()", allowed=REQUEST_FIELDS)
    from reports.viewer import viewer_page

    stories = [_story(request, seed, game_index)]
    if compare is not None:
        stories.append(_story(_edited(request, compare), seed, game_index))
    return viewer_page(stories)


def _edited(request: GameRequest, compare: GameRequest | Mapping[str, Any]) -> GameRequest:
    """The edited side of a game shown against ``request``: the same game."""
    edited = compare if isinstance(compare, GameRequest) else request.replace(**dict(compare))
    if edited.game != request.game:
        raise UserError("the edited game must be the same game as the baseline",
                        field="--game")
    return edited


def compare_games(request: GameRequest | str | None = None, /, *, seed: int = 1,
                  game_index: int = 0, compare: GameRequest | Mapping[str, Any],
                  **fields: Any):
    """Where the edited game (``compare`` as in ``viewer``) first differs from the
    baseline: a ``sim.core.story.Divergence`` (its step, line and both lines' words), or
    None when the two games are the same step for step."""
    from sim.core.story import first_divergence

    request, _ = split(request, None, fields, command="compare_games()", allowed=REQUEST_FIELDS)
    edited = _edited(request, compare)
    return first_divergence(_story(request, seed, game_index), _story(edited, seed, game_index))


def default_cards(game: str = DEFAULT_GAME) -> str:
    """The text of the game's default card file (CSV)."""
    path = Path(resolve_game(game).default_cards_path())
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot read the default card file ({exc.strerror or exc})",
                        file=str(path)) from None


# ---------------------------------------------------------------- reports

def report(run_dirs, out: str | os.PathLike, threshold_pp: float = 2.0,
           allow_mixed: bool = False, extra: Mapping[str, Any] | None = None,
           replay_games: int | None = None, stronger_play: float | None = None,
           stronger_play_games: int | None = None, resume: bool = False,
           progress: bool = False, announce=None) -> dict[str, Any]:
    """Write report.html, report.md, answers.json and CSV tables for one or more run
    directories. ``extra`` adds optional sections by name (reports.sections), e.g.
    ``{"ablation": "runs/ablation-..."}`` (a ``simulate ablate`` output).

    Every answer whose interval excludes its even point is explained by counterfactual
    replays (``replay_games`` per swap; default: about the runs' own time; 0: none), and
    every answer is checked under stronger play (``stronger_play`` seconds per player
    count, default 300 or $CARDSIM_STRONGER_PLAY; 0: off; or ``stronger_play_games``).

    Stopped part-way (Ctrl-C, SIGTERM, a full disk), the finished replays and search games
    are kept in ``out`` (its resume.jsonl); ``resume=True`` continues from them (give the
    same options). ``progress``: a bar on stderr while the replays and the search games
    play (on a terminal); ``announce``: called once before the search games start (after
    the runs were read)."""
    from reports.build import write_report
    from sim.runs.resumable import JOURNAL_NAME, Journal, stoppable

    run_dirs = [run_dirs] if isinstance(run_dirs, (str, os.PathLike)) else list(run_dirs)
    out = Path(out)
    created = not out.exists()
    settings = _report_settings(run_dirs, threshold_pp=threshold_pp, allow_mixed=allow_mixed,
                               extra=extra, replay_games=replay_games,
                               stronger_play=stronger_play,
                               stronger_play_games=stronger_play_games)
    try:
        with stoppable("report", out), Journal.open(
                out / JOURNAL_NAME, settings, what="report", resume=resume, out=out,
                discard_empty=True) as journal:
            written = write_report([str(d) for d in run_dirs], str(out),
                                   threshold_pp=threshold_pp, allow_mixed=allow_mixed,
                                   extra=extra, replay_games=replay_games,
                                   stronger_play=stronger_play,
                                   stronger_play_games=stronger_play_games, journal=journal,
                                   progress=progress, announce=announce)
            journal.remove()
    except BaseException:
        if created and out.is_dir() and not any(out.iterdir()):
            out.rmdir()      # a report that failed before writing anything leaves nothing
        raise
    return written


def _report_settings(run_dirs=(), **options: Any) -> dict[str, Any]:
    """What decides a report's replays and stronger-play games (its journal's settings):
    the runs and the options, the stronger-play budget resolved ($CARDSIM_STRONGER_PLAY)."""
    from reports.stronger import default_seconds

    if options.get("stronger_play") is None:
        options["stronger_play"] = default_seconds()
    if options.get("extra"):
        options["extra"] = {k: str(v) for k, v in options["extra"].items()}
    return {"runs": [str(Path(d).resolve()) for d in run_dirs], **options}


def ablate(request: GameRequest | str | None = None, execution: Execution | None = None, /,
           *, only: str | Sequence[str] = (), changes: str | Sequence[str] | None = None,
           threshold_pp: float = 2.0, resume: bool = False, **fields: Any):
    """Card ablation on common random numbers (sim.studies.ablation): the same seed and
    games (``execution.games``, default 10,000) with each card's value -1 / +1 and its
    effect removed; the paired change of every headline rate of the game (its
    ``Game.ablation_outcomes``, else its outcomes: each team's or seat's win rate ...)
    with its 95 % interval, cards that differ from the typical card called under Holm's
    control. ``only``: card references (``--card``); ``changes``: of ``value-1``,
    ``value+1``, ``no_effect``. Any backend; returns an ``AblationResult``.
    ``resume=True`` continues a stopped ablation in ``execution.out``."""
    from sim.studies.ablation import CHANGES
    from sim.studies.ablation import ablate as run_ablation

    progress_given = "progress" in fields or execution is not None
    request, execution = split(request, execution, fields, command="ablate()",
                               allowed=tuple(f for f in REQUEST_FIELDS if f != "debug") + tuple(
                                   f for f in EXECUTION_FIELDS
                                   if f not in ("until_ci", "chunk_size", "command_line")))
    only = (only,) if isinstance(only, str) else tuple(only)
    changes = (changes,) if isinstance(changes, str) else tuple(changes or CHANGES)
    return run_ablation(game=request.game, players=request.players,
                        games=execution.games if execution.games is not None else 10_000,
                        seed=execution.seed, cards=request.cards, rules_file=request.rules_file,
                        rule_overrides=request.rule_overrides, strategies=request.strategy_map,
                        only=only, changes=changes, out=execution.out,
                        threads=execution.threads, threshold_pp=threshold_pp,
                        backend=execution.backend, backend_options=execution.backend_options,
                        progress=execution.progress if progress_given else False,
                        resume=resume)


def balance_points(game: str = DEFAULT_GAME) -> list[tuple[int, tuple[str, ...]]]:
    """(players, extra rule overrides) for each run of ``balance_report``: every player
    count, each with the rule variants of the game's ``Game.balance_variants`` (Peer-to-Peer:
    every odd_team_compensation mode at 3 and 5 players, so the report can compare them)."""
    game_obj = resolve_game(game)
    variants = game_obj.balance_variants
    return [(players, tuple(extra)) for players in game_obj.player_counts
            for extra in variants(players)]


def balance_report(request: GameRequest | str | None = None, execution: Execution | None = None,
                   /, *, threshold_pp: float = 2.0, resume: bool = False,
                   replay_games: int | None = None, stronger_play: float | None = None,
                   stronger_play_games: int | None = None,
                   **fields: Any) -> dict[str, Any]:
    """Run every player count (and compensation mode) of ``request`` with the same
    settings (``execution.games`` each, default 1e6), then report. ``request.players``
    must be None. Every run plays on ``execution.backend`` (one cluster for all of them).

    Runs go to ``OUT/runs/<players>p[-mode]``; the report to ``OUT``. ``resume=True``
    continues a stopped one in ``OUT``: finished runs and chunks, and the report's finished
    replays and search games, are kept."""
    from reports.build import write_report
    from sim.runs import backends
    from sim.runs.resumable import JOURNAL_NAME, Journal, output_dir, stoppable
    from sim.runs.rundir import stamped_path
    from sim.runs.setup import start_or_continue

    request, execution = split(request, execution, fields, command="balance_report()",
                               allowed=REQUEST_FIELDS + tuple(
                                   f for f in EXECUTION_FIELDS if f != "until_ci"))
    if request.players is not None:
        raise UserError("balance-report plays every player count; drop --players",
                        field="--players")
    game = request.game
    games = parse_count(1_000_000 if execution.games is None else execution.games,
                        field="--games")
    seed = parse_seed(execution.seed)
    out_path = output_dir(Path(execution.out) if execution.out is not None else stamped_path(
        f"balance-{game}-seed{seed}"), what="balance report", resume=resume,
        finished="report.html")
    points = balance_points(game)
    settings = {"request": request.as_request(), "games": games, "seed": seed,
                "points": [[p, list(extra)] for p, extra in points],
                "report": _report_settings(threshold_pp=threshold_pp, replay_games=replay_games,
                                          stronger_play=stronger_play,
                                          stronger_play_games=stronger_play_games)}
    with stoppable("balance report", out_path, out_option=out_path), Journal.open(
            out_path / JOURNAL_NAME, settings, what="balance report", resume=resume,
            out=out_path) as journal:
        chosen, owned = backends.resolve(execution.backend, execution.backend_options)
        run_dirs = []
        try:
            for players, extra in points:
                name = f"{players}p" + (f"-{extra[0].split('=')[1]}" if extra else "")
                result = start_or_continue(
                    request.replace(players=players,
                                    rule_overrides=request.rule_overrides + extra),
                    games=games, seed=seed, out=out_path / "runs" / name,
                    threads=execution.threads, backend=chosen, progress=execution.progress,
                    chunk_size=execution.chunk_size, command_line=execution.command_line)
                run_dirs.append(result.run_dir)
        finally:
            if owned:
                chosen.close()
        # the report's replays and search games are steps of this journal too
        written = write_report([str(d) for d in run_dirs], str(out_path),
                               threshold_pp=threshold_pp, replay_games=replay_games,
                               stronger_play=stronger_play,
                               stronger_play_games=stronger_play_games, journal=journal,
                               progress=execution.progress)
        journal.remove()     # finished: its replays need not stay on disk
        return written


def strategies(game: str = DEFAULT_GAME) -> list[dict[str, Any]]:
    """Every registered strategy of ``game``: name, summary, parameters with defaults and
    the file that defines it (``strategies/<game package>/<name>.py``)."""
    from sim.core.strategy import registry

    if game not in game_modules():
        raise UserError(f"unknown game '{game}'; choose one of: {', '.join(game_modules())}",
                        field="--game")
    package = resolve_game(game).strategy_package
    try:
        found = registry(package) if package else {}
    except ModuleNotFoundError:
        found = {}
    return [{"name": s.name, "summary": s.summary,
             "params": {**dict(s.params), **dict(s.text_params)},
             "module": f"strategies/{package}/{sys.modules[s.weights.__module__].__name__.rsplit('.', 1)[-1]}.py"}
            for s in found.values()]


# ---------------------------------------------------------------- matchups
def matchups(strategies: str | Sequence[str], request: GameRequest | str | None = None,
             execution: Execution | None = None, /, *, resume: bool = False, **fields: Any):
    """Every matchup of ``strategies`` in the scheme of ``request.game`` (its
    ``Game.matchup_scheme``): ``execution.games`` games per ordered pair or cell (default
    10,000), played on ``execution.backend``. ``resume=True`` continues the matchups that
    stopped in ``execution.out`` (Ctrl-C, SIGTERM, a full disk) to the same counts. See
    ``sim.studies.matchups``."""
    from sim.studies import matchups as study

    request, execution = split(request, execution, fields, command="matchups()",
                               allowed=REQUEST_FIELDS + tuple(
                                   f for f in EXECUTION_FIELDS if f not in ("until_ci",
                                                                            "chunk_size")))
    return study.play(strategies, request, execution, resume=resume)


# ---------------------------------------------------------------- tune
def tune(request: GameRequest | str | None = None, execution: Execution | None = None, /, *,
         budget: int | str | None = None, base: str = "weighted",
         games_per_eval: int | str | None = None, check_games: int | str | None = None,
         resume: bool = False, against: str | None = None, hold: Any = None,
         **fields: Any):
    """Tune the weights of ``base`` by self-play (CMA-ES) for ``request`` (game, players,
    cards, rules) and write a strategy file (``execution.out``, default expert.yaml).
    ``resume=True`` continues a tune that was stopped (Ctrl-C, SIGTERM, a full disk) from
    its journal beside the file; the result equals an uninterrupted tune's.

    Returns a ``sim.studies.tune.TuneResult`` (``.out``, ``.plot``, ``.document``,
    ``.report()``). ``budget`` is the games the search may play (default: the game's
    arena ``default_budget``); the final re-check plays ``check_games`` more per opponent.
    ``against`` ("expert-v1,bluffer"): instead of self-play, the weights whose worst share
    against those strategies is highest (sim/studies/tune_against.py). ``hold``
    ("commit.high_card=0,commit.reach"): weights the search leaves at that value or the
    base's (sim/studies/held.py). Deterministic for a seed, on every backend. See
    sim/studies/tune.py."""
    from sim.studies.tune import tune_strategy
    from sim.studies.tune_against import search_against

    request, execution = split(request, execution, fields, command="tune()",
                               allowed=("game", "players", "cards", "rules_file",
                                        "rule_overrides", "seed", "threads", "backend",
                                        "backend_options", "progress", "out", "command_line"))
    return tune_strategy(game=request.game, players=request.players,
                         out=execution.out if execution.out is not None else "expert.yaml",
                         budget=budget, seed=execution.seed, base=base, cards=request.cards,
                         rules_file=request.rules_file, rule_overrides=request.rule_overrides,
                         threads=execution.threads, games_per_eval=games_per_eval,
                         check_games=check_games, progress=execution.progress,
                         command_line=execution.command_line, resume=resume,
                         against=against, searcher=search_against if against else None,
                         hold=hold, **execution.backend_args())


def distill(request: GameRequest | str | None = None, execution: Execution | None = None, /,
            *, base: str | None = None, iterations: int | str | None = None,
            games: int | str | None = None, k: int | str | None = None,
            n: int | str | None = None, extra: int | None = None, l2: float | None = None,
            objective: str | None = None, sharpness: float | None = None,
            keep_noise: bool = False, check_games: int | str | None = None,
            resume: bool = False, per_count: bool = False, opponents: Any = None,
            hold: Any = None, **fields: Any):
    """Learn a strategy from the search player (expert iteration) for ``request`` (game,
    players, cards, rules) and write a strategy file (``execution.out``, default
    distilled.yaml): ``iterations`` times, ``games`` games in which the search player
    (``search:k=K,n=N`` over the current policy) decides for one side, every side in
    turn, then the policy's weights fitted to the search's choices become its next base.
    ``resume=True`` continues a distillation that was stopped; the result equals an
    uninterrupted one's. ``per_count=True`` with several counts: one distillation per
    count, one file with each count's own weights (``by_players``). ``opponents``
    (``"random,bluffer"`` or a list): the other sides play each of them in an equal share
    of each iteration's games, beside the policy itself. ``hold``
    (``"commit.high_card=0,commit.reach"``, a list, or a mapping of name to value or None):
    weights the fit leaves alone, at the value given or the base's.

    Returns a ``sim.studies.distill.DistillResult`` (``.out``, ``.document``,
    ``.iterations``, ``.report()``). Deterministic for a seed, on every backend. See
    sim/studies/distill.py."""
    from sim.studies.distill import distill_strategy

    request, execution = split(request, execution, fields, command="distill()",
                               allowed=("game", "players", "cards", "rules_file",
                                        "rule_overrides", "seed", "threads", "backend",
                                        "backend_options", "progress", "out", "command_line"))
    return distill_strategy(game=request.game, players=request.players,
                            out=execution.out if execution.out is not None else "distilled.yaml",
                            base=base, iterations=iterations, games=games, k=k, n=n,
                            extra=extra, l2=l2, objective=objective, sharpness=sharpness,
                            keep_noise=keep_noise, check_games=check_games, seed=execution.seed,
                            cards=request.cards, rules_file=request.rules_file,
                            rule_overrides=request.rule_overrides, threads=execution.threads,
                            progress=execution.progress, command_line=execution.command_line,
                            resume=resume, per_count=per_count, opponents=opponents,
                            hold=hold, **execution.backend_args())


# ---------------------------------------------------------------- experiments
_EXPERIMENT_FIELDS = ("games", "threads", "backend", "backend_options", "progress", "out",
                      "command_line")


def _experiment(name: str, path: str | os.PathLike, execution: Execution | None,
                fields: Mapping[str, Any], command: str):
    from sim.studies import experiments

    _, execution = split(None, execution, fields, command=command, allowed=_EXPERIMENT_FIELDS)
    return experiments.get(name, str(path)), execution


def experiment(name: str, path: str | os.PathLike = "experiments.yaml",
               execution: Execution | None = None, /, *, report: bool = True,
               stronger_play: float = 0.0, stronger_play_games: int | None = None,
               **fields: Any):
    """Run every point of experiment ``name`` of ``path`` into ``execution.out`` and write
    the sweep report; ``execution.games`` overrides the file's games per point (the seed is
    the file's). With ``stronger_play`` seconds (or ``stronger_play_games`` game indices)
    per point, the report checks each point's changes against its baseline with search on
    every side. Returns a ``sim.studies.experiments.ExperimentResult``."""
    from sim.studies import experiments

    exp, execution = _experiment(name, path, execution, fields, "experiment()")
    return experiments.run_experiment(exp, games=execution.games, out=execution.out,
                                      threads=execution.threads, progress=execution.progress,
                                      command_line=execution.command_line, report=report,
                                      stronger_play=stronger_play,
                                      stronger_play_games=stronger_play_games,
                                      **execution.backend_args())


def check(name: str, path: str | os.PathLike = "experiments.yaml",
          execution: Execution | None = None, /, **fields: Any):
    """Judge experiment ``name``'s checks (``.passed``, ``.table()``); the runs go to
    ``execution.out`` or a temporary directory."""
    from sim.studies import experiments

    exp, execution = _experiment(name, path, execution, fields, "check()")
    return experiments.check_experiment(exp, games=execution.games, out=execution.out,
                                        threads=execution.threads, progress=execution.progress,
                                        command_line=execution.command_line,
                                        **execution.backend_args())


def autobalance(name: str, path: str | os.PathLike = "experiments.yaml",
                execution: Execution | None = None, /, *, resume: bool = False,
                stronger_play: float = 0.0, stronger_play_games: int | None = None,
                **fields: Any):
    """Search the card changes experiment ``name``'s autobalance section allows; the best
    card file goes to ``execution.out``. See ``sim.studies.autobalance``. ``resume=True``
    continues a stopped search from its journal beside that file. ``stronger_play``
    seconds (default 0: not checked) or ``stronger_play_games`` per point: whether the best
    set still meets the targets with the search player on every side."""
    from sim.studies import autobalance as search

    exp, execution = _experiment(name, path, execution, fields, "autobalance()")
    return search.autobalance(exp, games=execution.games, out=execution.out,
                              threads=execution.threads, progress=execution.progress,
                              resume=resume, stronger_play=stronger_play,
                              stronger_play_games=stronger_play_games,
                              **execution.backend_args())


# ---------------------------------------------------------------- warm
def warm(games: list[str] | tuple[str, ...] | None = None, jobs: int | None = None,
         trace: bool = False) -> list[dict[str, Any]]:
    """Compile the kernels of ``games`` (default: every game) into numba's cache now, e.g.
    after ``pip install``, so the first run does not wait for it: one process per game,
    ``jobs`` at a time (default: one per CPU). ``trace``: the trace kernels too. Returns
    per game {"game", "seconds", "cpu_seconds", "cached"} ("cached": its kernels were
    compiled already, so nothing ran). See sim/runs/warm.py."""
    from sim.runs.warm import warm as warm_games

    return warm_games((games,) if isinstance(games, str) else games, jobs, trace)


# ---------------------------------------------------------------- skill ladder
def skill(request: GameRequest | str | None = None, execution: Execution | None = None, /, *,
          search_games: int | str | None = None, budgets: tuple[str, ...] | None = None,
          resume: bool = False, **fields: Any):
    """The skill ladder of ``request.game`` (random, each baseline, expert, search at two
    budgets; each rung against the rung below and against expert) at each player count of
    ``request.players`` (an int, a list or "2,3"; default: every count from 2);
    ``execution.games`` per plain pairing, ``search_games`` per pairing with a search
    player. Returns a ``sim.studies.skill.SkillResult`` (``.table()``, ``.run_dir``,
    ``.summary``); see sim/studies/skill.py. ``resume=True`` continues a stopped ladder in
    ``execution.out``."""
    from sim.studies import skill as skill_study

    request, execution = split(request, execution, fields, command="skill()",
                               allowed=("game", "players", "cards", "rules_file",
                                        "rule_overrides", "games", "seed", "threads",
                                        "backend", "backend_options", "progress", "out",
                                        "command_line"))
    kwargs: dict[str, Any] = {}
    if execution.games is not None:
        kwargs["games"] = execution.games
    if search_games is not None:
        kwargs["search_games"] = search_games
    if budgets is not None:
        kwargs["budgets"] = tuple(budgets)
    return skill_study.run(game=request.game, players=request.players, seed=execution.seed,
                           out=execution.out, threads=execution.threads, cards=request.cards,
                           rules_file=request.rules_file,
                           rule_overrides=request.rule_overrides,
                           progress=execution.progress, command_line=execution.command_line,
                           resume=resume, **execution.backend_args(), **kwargs)
