"""Setting up, playing and finishing a run directory: the steps ``sim.api.run`` and
``resume``, experiments and ``--until-ci`` share (request, configuration, manifest,
RunDir, runner, summary), so every run directory is an ordinary run: ``simulate report``
and ``--resume`` work on it.
"""
from __future__ import annotations

import contextlib
import json
import os
import shlex
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from sim.core.errors import UserError
from sim.core.game import configure_request, player_count, resolve_game
from sim.core.inputs import parse_count, parse_seed, parse_threads
from sim.core.request import Execution, GameRequest


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

    def games(self):
        """Every game of the run as a polars LazyFrame (see ``load_games``)."""
        return load_games(self.run_dir)

    def to_pandas(self):
        """Every game of the run as a pandas DataFrame, one row per game (sorted by
        ``game_index``); the columns are those of the run's Parquet parts."""
        return load_games(self.run_dir, as_pandas=True)


class ChunkHook:
    """A GameConfig that calls ``after(table, start, count)`` after each chunk it plays
    (everything else is the wrapped config's). Used for progress over many runs."""

    def __init__(self, config: Any, after: Callable[[Any, int, int], None]):
        self._config = config
        self._after = after

    def run_chunk(self, seed: int, start: int, count: int, threads: int = 1, **curves: Any):
        table = self._config.run_chunk(seed, start, count, threads, **curves)
        self._after(table, start, count)
        return table

    def __getattr__(self, name: str) -> Any:
        return getattr(self._config, name)


def own_command_line() -> str:
    """For API callers: the process's own command line (the CLI passes its own)."""
    return shlex.join([sys.executable, *sys.argv])


def new_manifest(name: str, players: int, games: int, seed: int, chunk_size: int, config: Any,
                 request: dict[str, Any], command_line: str | None) -> dict[str, Any]:
    """The manifest of a new run (nothing played yet); ``resume`` rebuilds it to check that
    the run's inputs did not change."""
    import sim
    from sim.runs import rundir

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


def configure_from_manifest(manifest: Mapping[str, Any]):
    """The GameConfig a run was played with, rebuilt from its manifest's game, players and
    request (raises UserError when it cannot be rebuilt, e.g. its card file moved; a
    manifest without these keys raises KeyError)."""
    return configure_request(resolve_game(manifest["game"]), int(manifest["players"]),
                             manifest["request"])


def new_run(request: GameRequest, *, games: Any, seed: Any, out: str | Path | None,
            chunk_size: int | None, command_line: str | None,
            extra: Mapping[str, Any] | None = None):
    """(config, RunDir (locked; close it), manifest) of a new run of ``request``; nothing
    played yet."""
    from sim.runs import rundir

    games = parse_count(games, field="--games")
    seed = parse_seed(seed)
    chunk = (rundir.default_chunk_size(games) if chunk_size is None
             else min(parse_count(chunk_size, "--chunk-size"), games))
    game, game_obj = request.game, resolve_game(request.game)
    players = player_count(game_obj, request.players)
    stored = request.as_request()
    config = configure_request(game_obj, players, stored)
    command_line = command_line if command_line is not None else own_command_line()
    manifest = new_manifest(game, players, games, seed, chunk, config, stored, command_line)
    manifest.update(extra or {})
    out_path = Path(out) if out is not None else rundir.stamped_path(f"{game}-{players}p-seed{seed}")
    run = rundir.RunDir.create(out_path, manifest)
    return config, run, manifest


@contextlib.contextmanager
def using(backend: Any, owned: bool, run: Any = None):
    """Close an owned backend when the run ends (a LocalCluster goes with it); then drop
    temporaries that workers killed mid-write left behind (their chunks were not done)."""
    try:
        yield backend
    finally:
        if owned:
            backend.close()
        if run is not None and not backend.in_process:
            run.remove_temporaries()


def play(config: Any, run: Any, manifest: dict, *, threads: int | None,
         command_line: str | None, after: Callable[[Any, int, int], None] | None = None,
         progress: bool = False, backend: Any = None) -> RunResult:
    """Play the run's missing chunks on ``backend`` (a sim.runs.backends.Backend; None:
    this process) and summarize it. ``after`` (in-process backends only) is called after
    every chunk, e.g. for a progress bar over many runs."""
    from sim.runs import runner

    threads = parse_threads(threads, backend.default_threads() if backend is not None else None)
    played = ChunkHook(config, after) if after is not None else config
    manifest = runner.run_chunks(played, run, manifest, threads=threads, progress=progress,
                                 command_line=command_line, backend=backend)
    return finish(config, run, manifest)


def start(request: GameRequest, execution: Execution) -> RunResult:
    """A new run of ``request`` played to the end as ``execution`` says (see ``sim.api.run``;
    ``execution.until_ci`` is ``sim.studies.sequential``'s)."""
    from sim.runs import backends

    games = parse_count(execution.games, field="--games")
    chosen, owned = backends.resolve(execution.backend, execution.backend_options)
    try:
        threads = parse_threads(execution.threads, chosen.default_threads())
        config, run, manifest = new_run(
            request, games=games, seed=execution.seed, out=execution.out,
            chunk_size=execution.chunk_size, command_line=execution.command_line)
    except BaseException:
        if owned:
            chosen.close()
        raise
    with run, using(chosen, owned, run):
        return play(config, run, manifest, threads=threads, progress=execution.progress,
                    command_line=manifest["command_line"], backend=chosen)


def start_or_continue(request: GameRequest, *, games: Any, seed: Any, out: str | Path,
                      threads: int | None, backend: Any, progress: bool = False,
                      chunk_size: int | None = None, command_line: str | None = None,
                      extra: Mapping[str, Any] | None = None) -> RunResult:
    """The run of ``request`` in ``out`` for a long command made of runs (ablate,
    balance-report): played from the start; or, when ``out`` already holds this run,
    continued where it stopped (its finished chunks kept) or read back when complete. A
    run of another configuration there is refused. ``backend`` is a Backend object."""
    from sim.runs import rundir

    out = Path(out)
    if not (out / rundir.MANIFEST).is_file():
        config, run, manifest = new_run(request, games=games, seed=seed, out=out,
                                        chunk_size=chunk_size, command_line=command_line,
                                        extra=extra)
        with run:
            return play(config, run, manifest, threads=threads, progress=progress,
                        command_line=manifest["command_line"], backend=backend)
    games, seed = parse_count(games, field="--games"), parse_seed(seed)
    with rundir.RunDir.open(out) as run:
        manifest = run.read_manifest()
        config = configure_request(resolve_game(request.game),
                                   player_count(resolve_game(request.game), request.players),
                                   request.as_request())
        wanted = new_manifest(request.game, config.players, games, seed,
                              manifest.get("chunk_size") or 1, config, request.as_request(),
                              None)
        diff = rundir.identity_diff(manifest, wanted)
        if diff:
            raise UserError(f"holds another run ({diff}); choose a new --out", file=str(out),
                            field="--out")
        if manifest.get("complete"):
            return finish(config, run, manifest)
        return play(config, run, manifest, threads=threads, progress=progress,
                    command_line=command_line or own_command_line(), backend=backend)


def resume(run_dir: str | os.PathLike, *, threads: Any, progress: bool,
           command_line: str | None, backend: Any = None,
           backend_options: Mapping[str, Any] | None = None) -> RunResult:
    """Play the chunks an interrupted run is missing (see ``sim.api.resume``)."""
    from sim.runs import backends, rundir

    chosen, owned = backends.resolve(backend, backend_options)
    threads = parse_threads(threads, chosen.default_threads())
    with rundir.RunDir.open(run_dir) as run, using(chosen, owned, run):
        config, manifest = reopened(run)
        command_line = command_line if command_line is not None else own_command_line()
        return play(config, run, manifest, threads=threads, progress=progress,
                    command_line=command_line, backend=chosen)


def reopened(run: Any) -> tuple[Any, dict[str, Any]]:
    """An interrupted run's configuration and manifest (``run``: its locked RunDir),
    refused when its inputs (card file, rules, strategies, ...) changed since it started."""
    from sim.runs import rundir

    manifest = run.read_manifest()
    try:
        name, players, request = manifest["game"], manifest["players"], manifest["request"]
        games, seed, chunk = manifest["games"], manifest["seed"], manifest["chunk_size"]
    except KeyError as exc:
        raise UserError(f"manifest lacks '{exc.args[0]}'", file=str(run.manifest_path),
                        field="--resume") from None
    config = configure_request(resolve_game(name), players, request)
    rebuilt = new_manifest(name, players, games, seed, chunk, config, request, None)
    diff = rundir.identity_diff(manifest, rebuilt)
    if diff:
        raise UserError(f"the run's inputs changed since it started ({diff}); start a new run",
                        file=str(run.path), field="--resume")
    if rebuilt["source_hash"] != manifest.get("source_hash"):
        print(f"warning: the simulator's source changed since {run.path} started "
              f"({manifest.get('source_hash')} -> {rebuilt['source_hash']}); recorded in the "
              "manifest's sessions", file=sys.stderr)
    return config, manifest


def finish(config: Any, run: Any, manifest: dict[str, Any]) -> RunResult:
    """Summarize a complete run into summary.json, and sum its chunks' per-round curves
    into curves.npz (a game with curves; sim.runs.curve_files)."""
    import polars as pl

    from sim.runs import curve_files, rundir

    summary = config.summarize(pl.scan_parquet(run.games_glob))
    summary = rundir.to_jsonable(summary)
    try:
        rundir.atomic_write_text(run.path / "summary.json",
                                 json.dumps(summary, indent=2, default=rundir.json_default) + "\n")
    except OSError as exc:
        raise rundir.output_error(exc, run.path, "writing summary.json") from None
    try:
        curve_files.write_total(run.path)
    except OSError as exc:
        raise rundir.output_error(exc, run.path, "writing curves.npz") from None
    return RunResult(run_dir=run.path, manifest=manifest, summary=summary, config=config)


def load_games(run_dir: str | os.PathLike, *, as_pandas: bool = False):
    """All games of a run: a polars LazyFrame (never materialised unless you collect), or
    with ``as_pandas=True`` a pandas DataFrame sorted by ``game_index``."""
    import polars as pl

    from sim.runs import rundir

    run = rundir.RunDir(Path(run_dir))
    if not any(run.path.glob(rundir.GAMES_DIR + "/*.parquet")):
        raise UserError("holds no games (no games/*.parquet); is it a run directory?",
                        file=str(run.path))
    games = pl.scan_parquet(run.games_glob)
    if not as_pandas:
        return games
    return games.sort("game_index").collect().to_pandas()
