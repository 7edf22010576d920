"""The Python API behind the ``simulate`` command. The CLI only parses options and calls
these functions; notebooks and scripts can call them directly.

    >>> from sim import api
    >>> result = api.run(game="peer-to-peer", players=4, games="1e6", seed=1)
    >>> result.summary["teams"]["A"]["win_rate"]

Heavy modules (numba, polars, the game kernels) are imported inside the functions.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import importlib
import os
import re
import sys
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Mapping

from sim.errors import UserError

DEFAULT_GAME = "peer-to-peer"
DEFAULT_GAMES = 1000
MAX_GAMES = 10**12

# Extra games for tests and out-of-tree games, e.g. CARDSIM_EXTRA_GAMES="fake=fake_game"
# or "a=pkg.mod_a,b=pkg.mod_b". Each module must define GAME (see sim/game.py).
EXTRA_GAMES_ENV = "CARDSIM_EXTRA_GAMES"

_COUNT_RE = re.compile(r"[0-9](_?[0-9])*(\.([0-9](_?[0-9])*)?)?([eE]\+?[0-9]{1,3})?")


@dataclass
class RunResult:
    run_dir: Path
    manifest: dict[str, Any]
    summary: dict[str, Any]
    config: Any = field(default=None, repr=False, compare=False)  # the GameConfig used

    @property
    def wall_seconds(self) -> float:
        """Simulation time summed over every session that played part of the run."""
        return float(self.manifest["wall_seconds"])

    @property
    def games_per_second(self) -> float:
        wall = self.wall_seconds
        return self.manifest["games"] / wall if wall > 0 else float("inf")


# ----------------------------------------------------------------------------- parsing
def parse_count(value: Any, field: str = "--games", maximum: int = MAX_GAMES) -> int:
    """A positive whole number written as ``1000000``, ``1_000_000`` or ``1e6``."""
    if isinstance(value, bool):
        raise UserError(f"must be a positive whole number, got {value!r}", field=field)
    if isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if not value.is_integer():
            raise UserError(f"must be a whole number, got {value!r}", field=field)
        number = int(value)
    else:
        text = str(value).strip()
        if not _COUNT_RE.fullmatch(text):
            raise UserError(f"must be a positive whole number such as 1000, 1_000_000 or 1e6, "
                            f"got '{value}'", field=field)
        try:
            exact = Decimal(text.replace("_", ""))
        except InvalidOperation:  # pragma: no cover - the regex already rules this out
            raise UserError(f"must be a positive whole number, got '{value}'", field=field) from None
        if exact != exact.to_integral_value():
            raise UserError(f"must be a whole number, got '{value}'", field=field)
        number = int(exact)
    if number < 1:
        raise UserError(f"must be at least 1, got {number}", field=field)
    if number > maximum:
        raise UserError(f"must be at most {maximum:.0e}, got {number:.3e}", field=field)
    return number


def default_threads() -> int:
    """What numba would use: the CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


# ----------------------------------------------------------------------------- games
def extra_games() -> dict[str, str]:
    """Games registered through the CARDSIM_EXTRA_GAMES environment variable."""
    raw = os.environ.get(EXTRA_GAMES_ENV, "").strip()
    found: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in raw.split(","))):
        name, eq, module = (piece.strip() for piece in item.partition("="))
        if not eq or not name or not module:
            raise UserError(f"entries must look like name=module.path, got '{item}'",
                            field=EXTRA_GAMES_ENV)
        found[name] = module
    return found


def game_modules() -> dict[str, str]:
    """Every game name the CLI accepts -> module holding GAME."""
    from sim.game import GAME_MODULES

    modules = dict(GAME_MODULES)
    for name, module in extra_games().items():
        modules.setdefault(name, module)  # built-in names cannot be shadowed
    return modules


def resolve_game(name: str):
    """The ``GAME`` object for a game name (built-in or from CARDSIM_EXTRA_GAMES)."""
    modules = game_modules()
    if name not in modules:
        raise UserError(f"unknown game '{name}'; choose one of: {', '.join(modules)}",
                        field="--game")
    module_name = modules[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise UserError(f"game '{name}' is not available (module {module_name} not found)",
                            field="--game") from None
        raise
    game = getattr(module, "GAME", None)
    if game is None:
        raise UserError(f"module {module_name} defines no GAME", field="--game")
    return game


def _players(game: Any, players: Any) -> int:
    if players is None:
        return int(game.default_players)
    count = parse_count(players, field="--players", maximum=1000)
    valid = tuple(getattr(game, "player_counts", ()) or ())
    if valid and count not in valid:
        raise UserError(f"{game.name} is played by {', '.join(map(str, valid))} players, "
                        f"not {count}", field="--players")
    return count


def _abspath(path: str | os.PathLike | None) -> str | None:
    return None if path is None else os.path.abspath(os.fspath(path))


def _request(cards: Any, rules_file: Any, rule_overrides: Any, strategies: Any,
             debug: bool) -> dict[str, Any]:
    """What the user asked for, in the form ``Game.configure`` takes; stored in the
    manifest so ``resume`` can rebuild the same configuration."""
    if isinstance(rule_overrides, str):
        rule_overrides = (rule_overrides,)
    return {"cards": _abspath(cards), "rules_file": _abspath(rules_file),
            "rule_overrides": [str(rule) for rule in (rule_overrides or ())],
            "strategies": dict(strategies) if strategies else None, "debug": bool(debug)}


def _configure(game: Any, players: int, request: Mapping[str, Any]):
    return game.configure(players=players, cards=request["cards"],
                          rules_file=request["rules_file"],
                          rule_overrides=tuple(request["rule_overrides"]),
                          strategies=dict(request["strategies"]) if request["strategies"] else None,
                          debug=request["debug"])


def configure(game: str = DEFAULT_GAME, players: int | None = None, cards: str | None = None,
              rules_file: str | None = None, rule_overrides: tuple[str, ...] = (),
              strategies: Mapping[str, str] | None = None, debug: bool = False):
    """A validated GameConfig for these inputs (raises UserError on bad input)."""
    game_obj = resolve_game(game)
    request = _request(cards, rules_file, rule_overrides, strategies, debug)
    return _configure(game_obj, _players(game_obj, players), request)


# ----------------------------------------------------------------------------- manifest
def _new_manifest(name: str, players: int, games: int, seed: int, chunk_size: int, config: Any,
                  request: dict[str, Any], command_line: str | None) -> dict[str, Any]:
    import sim
    from sim import rundir

    layout = rundir.chunk_layout(games, chunk_size)
    manifest: dict[str, Any] = {
        "format": rundir.FORMAT_VERSION,
        "game": name, "players": players, "games": games, "seed": seed,
        "chunk_size": chunk_size,
        "chunks": {"count": len(layout), "size": chunk_size, "last_count": layout[-1][1],
                   "part_template": rundir.PART_TEMPLATE},
        "complete": False, "status": "new", "games_done": 0, "chunks_done": 0,
        "package_version": sim.__version__, "source_hash": sim.source_hash(),
        "git_commit": rundir.git_commit(),
        "started": rundir.now_iso(), "finished": None, "wall_seconds": 0.0,
        "command_line": command_line, "request": request,
    }
    game_part = rundir.to_jsonable(config.manifest())
    added = [key for key in game_part if key not in manifest]
    for key in added:
        manifest[key] = game_part[key]
    for key in ("cards", "rules", "strategies", "seat_teams"):
        manifest.setdefault(key, None)
    manifest["game_manifest_keys"] = added
    manifest["sessions"] = []
    return manifest


def _default_out(name: str, players: int, seed: int) -> Path:
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = Path("runs") / f"{name}-{players}p-seed{seed}-{stamp}"
    candidate, n = base, 1
    while candidate.exists():
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def _command_line() -> str:
    """For API callers: the process's own command line (the CLI passes its own)."""
    import shlex

    return shlex.join([sys.executable, *sys.argv])


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
    (``{"workers": N}``), or a ``sim.backends.Backend`` object (not closed here). The table
    is the same for every backend.

    ``until_ci=W`` (percentage points) stops once every headline interval is narrower
    than W; ``games`` is then the maximum (see ``sim.experiments.sequential``).
    """
    if resume is not None:
        return _resume(resume, threads=threads, progress=progress, command_line=command_line,
                       backend=backend, backend_options=backend_options)
    if until_ci is not None:
        from sim.experiments.sequential import run_until_ci

        return run_until_ci(until_ci, game=game, players=players, games=games, seed=seed,
                            cards=cards, rules_file=rules_file, rule_overrides=rule_overrides,
                            strategies=strategies, out=out, threads=threads,
                            chunk_size=chunk_size, progress=progress, debug=debug,
                            command_line=command_line)
    from sim import rundir, runner

    games = parse_count(games, field="--games")
    seed = _seed(seed)
    chosen, owned = _backend(backend, backend_options)
    threads = chosen.default_threads() if threads is None else parse_count(threads, "--threads",
                                                                           4096)
    chunk = (rundir.default_chunk_size(games) if chunk_size is None
             else min(parse_count(chunk_size, "--chunk-size"), games))
    game_obj = resolve_game(game)
    players = _players(game_obj, players)
    request = _request(cards, rules_file, rule_overrides, strategies, debug)
    config = _configure(game_obj, players, request)
    command_line = command_line if command_line is not None else _command_line()
    manifest = _new_manifest(game, players, games, seed, chunk, config, request, command_line)
    out_path = Path(out) if out is not None else _default_out(game, players, seed)
    with rundir.RunDir.create(out_path, manifest) as run_dir, _using(chosen, owned, run_dir):
        manifest = runner.run_chunks(config, run_dir, manifest, threads=threads,
                                     progress=progress, command_line=command_line,
                                     backend=chosen)
    return _finish(config, run_dir, manifest)


def resume(run_dir: str | os.PathLike, *, threads: int | None = None, progress: bool = True,
           command_line: str | None = None, backend: Any = None,
           backend_options: Mapping[str, Any] | None = None) -> RunResult:
    """Play the chunks an interrupted run is missing; the result is identical to an
    uninterrupted run. The configuration (game, players, card file, rules, strategies) is
    rebuilt from the manifest and must still match it (e.g. the card file's sha256).
    ``backend`` as in ``run`` (any backend can finish any run)."""
    return _resume(run_dir, threads=threads, progress=progress, command_line=command_line,
                   backend=backend, backend_options=backend_options)


def _backend(backend: Any, options: Mapping[str, Any] | None):
    """(Backend, owned) for a name or object; see sim.backends.resolve."""
    from sim import backends

    return backends.resolve(backend, options)


@contextlib.contextmanager
def _using(backend: Any, owned: bool, run: Any):
    """Close an owned backend when the run ends (a LocalCluster goes with it); then drop
    temporaries that workers killed mid-write left behind (their chunks were not done)."""
    try:
        yield backend
    finally:
        if owned:
            backend.close()
        if not backend.in_process:
            run.remove_temporaries()


def _resume(run_dir: str | os.PathLike, *, threads: int | None, progress: bool,
            command_line: str | None, backend: Any = None,
            backend_options: Mapping[str, Any] | None = None) -> RunResult:
    from sim import rundir, runner

    chosen, owned = _backend(backend, backend_options)
    threads = chosen.default_threads() if threads is None else parse_count(threads, "--threads",
                                                                           4096)
    with rundir.RunDir.open(run_dir) as run, _using(chosen, owned, run):
        manifest = run.read_manifest()
        try:
            name, players, request = manifest["game"], manifest["players"], manifest["request"]
            games, seed, chunk = manifest["games"], manifest["seed"], manifest["chunk_size"]
        except KeyError as exc:
            raise UserError(f"manifest lacks '{exc.args[0]}'", file=str(run.manifest_path),
                            field="--resume") from None
        game_obj = resolve_game(name)
        config = _configure(game_obj, players, request)
        rebuilt = _new_manifest(name, players, games, seed, chunk, config, request, None)
        diff = rundir.identity_diff(manifest, rebuilt)
        if diff:
            raise UserError(f"the run's inputs changed since it started ({diff}); start a new run",
                            file=str(run.path), field="--resume")
        if rebuilt["source_hash"] != manifest.get("source_hash"):
            print(f"warning: the simulator's source changed since {run.path} started "
                  f"({manifest.get('source_hash')} -> {rebuilt['source_hash']}); recorded in the "
                  "manifest's sessions", file=sys.stderr)
        command_line = command_line if command_line is not None else _command_line()
        manifest = runner.run_chunks(config, run, manifest, threads=threads, progress=progress,
                                     command_line=command_line, backend=chosen)
    return _finish(config, run, manifest)


def _finish(config: Any, run: Any, manifest: dict[str, Any]) -> RunResult:
    import json

    import polars as pl

    from sim import rundir

    summary = config.summarize(pl.scan_parquet(run.games_glob))
    summary = rundir.to_jsonable(summary)
    try:
        rundir.atomic_write_text(run.path / "summary.json",
                                 json.dumps(summary, indent=2, default=rundir.json_default) + "\n")
    except OSError as exc:
        raise rundir.output_error(exc, run.path, "writing summary.json") from None
    return RunResult(run_dir=run.path, manifest=manifest, summary=summary, config=config)


def load(run_dir: str | os.PathLike):
    """All games of a run as a polars LazyFrame (never materialised unless you collect)."""
    import polars as pl

    from sim import rundir

    return pl.scan_parquet(rundir.RunDir(Path(run_dir)).games_glob)


def _seed(seed: Any) -> int:
    try:
        value = int(str(seed).replace("_", "")) if not isinstance(seed, int) else seed
    except ValueError:
        raise UserError(f"must be a whole number, got '{seed}'", field="--seed") from None
    if isinstance(seed, bool) or not 0 <= value < 2**63:
        raise UserError(f"must be between 0 and 2**63-1, got {seed}", field="--seed")
    return value


def trace(game: str = DEFAULT_GAME, seed: int = 1, game_index: int = 0,
          players: int | None = None, cards: str | None = None, rules_file: str | None = None,
          rule_overrides: tuple[str, ...] = (), strategies: Mapping[str, str] | None = None,
          debug: bool = False) -> str:
    """Replay one game and describe it round by round."""
    seed = _seed(seed)
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


# Runs of the designer's one-shot report: every player count, and at 3 and 5 players every
# odd_team_compensation mode, so the report can compare them.
BALANCE_MODES = ("extra_venture", "extra_venture_empty", "none")


def balance_points(game: str = DEFAULT_GAME) -> list[tuple[int, tuple[str, ...]]]:
    """(players, extra rule overrides) for each run of ``balance_report``."""
    game_obj = resolve_game(game)
    points: list[tuple[int, tuple[str, ...]]] = []
    for players in game_obj.player_counts:
        if game == "peer-to-peer" and players in (3, 5):
            points += [(players, (f"odd_team_compensation={mode}",)) for mode in BALANCE_MODES]
        else:
            points.append((players, ()))
    return points


def balance_report(games: int | str = 1_000_000, seed: int = 1, out: str | os.PathLike | None = None,
                   game: str = DEFAULT_GAME, cards: str | None = None,
                   rules_file: str | None = None, rule_overrides: tuple[str, ...] = (),
                   strategies: Mapping[str, str] | None = None, threads: int | None = None,
                   threshold_pp: float = 2.0, progress: bool = True,
                   command_line: str | None = None) -> dict[str, Any]:
    """Run every player count (and compensation mode) with the same settings, then report.

    Runs go to ``OUT/runs/<players>p[-mode]``; the report to ``OUT``."""
    import time

    games = parse_count(games, field="--games")
    out_path = Path(out) if out is not None else Path("runs") / time.strftime(
        f"balance-{game}-seed{_seed(seed)}-%Y%m%d-%H%M%S")
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
    from sim.strategy import registry

    if game not in game_modules():
        raise UserError(f"unknown game '{game}'; choose one of: {', '.join(game_modules())}",
                        field="--game")
    package = game.replace("-", "_")
    try:
        found = registry(package)
    except ModuleNotFoundError:
        found = {}
    return [{"name": s.name, "summary": s.summary, "params": dict(s.params),
             "module": f"strategies/{package}/{sys.modules[s.weights.__module__].__name__.rsplit('.', 1)[-1]}.py"}
            for s in found.values()]


# ---------------------------------------------------------------- tune (issue 23)
DEFAULT_TUNE_BUDGET = {"peer-to-peer": 6_000_000, "plai": 12_000_000}


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
    ``DEFAULT_TUNE_BUDGET``); the final re-check plays ``check_games`` more per opponent.
    Deterministic for a seed, on every backend. See sim/studies/tune.py."""
    from sim.studies import tune as tuner

    game_obj = resolve_game(game)
    players = _players(game_obj, players)
    seed = _seed(seed)
    budget = parse_count(budget if budget is not None else DEFAULT_TUNE_BUDGET.get(game, 10**7),
                         field="--budget")
    per_eval = parse_count(games_per_eval or tuner.DEFAULT_GAMES_PER_EVAL, field="--games-per-eval")
    check = parse_count(check_games or tuner.DEFAULT_CHECK_GAMES, field="--check-games")
    request = _request(cards, rules_file, rule_overrides, None, False)

    def configure_with(strategies):
        return _configure(game_obj, players, {**request, "strategies": strategies})

    configure_with(None)                       # every input checked before the first game
    from sim.strategy import parse_spec

    parse_spec(base, game.replace("-", "_"), field_name="--base")
    chosen, owned = _backend(backend, backend_options)
    threads = (chosen.default_threads() if threads is None
               else parse_count(threads, "--threads", 4096))
    from sim.backends import ChunkTask, ConfigRequest

    def submit(items):   # evaluations as chunk tasks: (request, run_dir, seed, start, count, tag)
        tasks = [ChunkTask(req, run_dir, s, start, count, threads, tag=tag)
                 for req, run_dir, s, start, count, tag in items]
        return chosen.run_tasks(tasks, aggregate=True)

    try:
        return tuner.tune(configure_with, game=game, players=players, out=out, budget=budget,
                          seed=seed, base=base, threads=threads,
                          submit=None if chosen.in_process else submit,
                          request=ConfigRequest.build(game, players, request),
                          backend_name=chosen.name,
                          games_per_eval=per_eval, check_games=check, progress=progress,
                          command=command_line if command_line is not None else _command_line(),
                          cards=request["cards"], rules_file=request["rules_file"],
                          rule_overrides=request["rule_overrides"])
    finally:
        if owned:
            chosen.close()
