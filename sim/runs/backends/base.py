"""The backend contract and the values every backend passes around: ChunkTask in,
ChunkResult out, ConfigRequest to rebuild a configuration in another process; ``create``
and ``resolve`` pick a backend by name (see the package docstring)."""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Mapping

from sim.core.errors import UserError
from sim.core.request import GameRequest

# name -> "module:Class". Explicit on purpose: read it to see every backend.
BACKENDS = {
    "local": "sim.runs.backends.local:LocalBackend",
    "dask": "sim.runs.backends.dask:DaskBackend",
    "dask-local": "sim.runs.backends.dask:LocalDaskBackend",
}
DEFAULT_BACKEND = "local"
WRITE_PARTS = ("auto", "worker", "client")


class OutputFailed(Exception):
    """Writing a part (or the manifest) raised OSError; kept apart from errors in game code.
    Picklable, so a Dask worker's failed write reaches the client as this type."""

    def __init__(self, error: OSError):
        super().__init__(str(error))
        self.error = error

    def __reduce__(self):
        return (type(self), (self.error,))


@dataclass(frozen=True)
class ConfigRequest(GameRequest):
    """Everything needed to rebuild a GameConfig in another process: a GameRequest with its
    player count resolved (as stored in a manifest's ``request``) plus the module holding
    the game's GAME. Hashable, so workers keep one configured game per request."""

    players: int = 0
    module: str | None = None  # resolved on the client, so workers need no CARDSIM_EXTRA_GAMES

    @classmethod
    def of(cls, request: GameRequest) -> "ConfigRequest":
        """From a GameRequest (its player count resolved, paths made absolute)."""
        return cls.build(request.game, request.player_count(), request.as_request())

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> "ConfigRequest":
        request = manifest["request"]
        return cls.build(manifest["game"], manifest["players"], request)

    @classmethod
    def build(cls, game: str, players: int, request: Mapping[str, Any]) -> "ConfigRequest":
        """From a game name, player count and a ``sim.core.game.game_request`` dict."""
        from sim.core.game import game_modules

        strategies = request.get("strategies") or {}
        return cls(game=game, players=int(players), cards=request.get("cards"),
                   rules_file=request.get("rules_file"),
                   rule_overrides=tuple(request.get("rule_overrides") or ()),
                   strategies=tuple(sorted(dict(strategies).items())),
                   debug=bool(request.get("debug")), module=game_modules().get(game))

    def description(self):
        """The game's description (sim.core.game.Game)."""
        from sim.core.game import resolve_game

        if self.module is not None:
            return getattr(importlib.import_module(self.module), "GAME")
        return resolve_game(self.game)

    def configure(self):
        """A fresh GameConfig (raises UserError on bad input)."""
        from sim.core.game import configure_request

        return configure_request(self.description(), self.players, self.as_request())


@dataclass(frozen=True)
class ChunkTask:
    """One chunk of one run: play games start .. start+count-1 of ``seed`` with the
    configuration ``request`` and write the part into ``run_dir``. ``threads`` is the
    numba/kernel thread count for this task (None: the backend's default). ``run_token``
    (the manifest's ``started``) lets a Dask worker check it sees this very run directory
    (``write_parts="auto"``). ``tag`` is handed back untouched (e.g. an experiment point)."""

    request: ConfigRequest
    run_dir: str
    seed: int
    start: int
    count: int
    threads: int | None = None
    run_token: str | None = None
    tag: Any = None


@dataclass
class ChunkResult:
    """What comes back to the client: small, whatever the chunk size."""

    seed: int
    start: int
    count: int
    run_dir: str
    part: str                     # the part's path (as the writer saw it)
    seconds: float                # time in run_chunk
    aggregates: dict[str, Any] = field(default_factory=dict)
    worker: str | None = None     # Dask worker address, None in-process
    tag: Any = None
    parquet: bytes | None = field(default=None, repr=False)  # client-written parts only


class Backend:
    """Plays chunk tasks. Subclasses implement ``run_tasks``; use as a context manager
    (``close`` releases a cluster or connection). ``in_process`` backends can use the
    caller's GameConfig object as is; others rebuild it from the ConfigRequest."""

    name = "backend"
    in_process = False

    def run_tasks(self, tasks: Iterable[ChunkTask], *, configs: Mapping[ConfigRequest, Any]
                  | None = None, aggregate: bool = True) -> Iterator[ChunkResult]:
        """Play every task and yield its result once its part is on disk, in completion
        order. Closing the iterator early cancels the tasks not yet finished."""
        raise NotImplementedError

    def map_chunks(self, request: ConfigRequest, chunks: Iterable[tuple[int, int, int]], *,
                   run_dir: str | os.PathLike, threads: int | None = None,
                   run_token: str | None = None, config: Any = None, tag: Any = None,
                   aggregate: bool = True) -> Iterator[ChunkResult]:
        """``run_tasks`` for the chunks (seed, start, count) of one run. ``config`` is the
        already-built GameConfig for ``request``; in-process backends use it."""
        tasks = (ChunkTask(request, os.fspath(run_dir), int(seed), int(start), int(count),
                           threads, run_token, tag) for seed, start, count in chunks)
        return self.run_tasks(tasks, configs={request: config} if config is not None else None,
                              aggregate=aggregate)

    def default_threads(self) -> int:
        """Kernel threads per task when the user gives no --threads."""
        return 1

    def describe(self) -> dict[str, Any]:
        """JSON-able facts for the manifest's session record."""
        return {"name": self.name}

    def close(self) -> None:
        pass

    def __enter__(self) -> "Backend":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def names() -> tuple[str, ...]:
    return tuple(BACKENDS)


def create(name: str | None = None, **options: Any) -> Backend:
    """A backend by name with its options (``scheduler``, ``workers``, ``write_parts``...).
    Options that are None are dropped. Unknown names, missing Dask and bad options are
    one-line UserErrors. Nothing connects until the first task is submitted."""
    name = name or DEFAULT_BACKEND
    if name not in BACKENDS:
        raise UserError(f"unknown backend '{name}'; choose one of: {', '.join(BACKENDS)}",
                        field="--backend")
    options = {key: value for key, value in options.items() if value is not None}
    module_name, _, class_name = BACKENDS[name].partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, class_name)(**options)


def resolve(backend: "str | Backend | None", options: Mapping[str, Any] | None = None
            ) -> tuple[Backend, bool]:
    """(backend, owned): a Backend object is used as is (the caller closes it); a name is
    created here and owned (closed by whoever asked for it)."""
    if isinstance(backend, Backend):
        if options:
            raise UserError("backend options go to the backend you create, not with a "
                            "Backend object", field="--backend")
        return backend, False
    return create(backend, **dict(options or {})), True


def pending_tasks(run: Any, manifest: Mapping[str, Any], *, threads: int | None = None,
                  tag: Any = None) -> list[ChunkTask]:
    """The tasks a run directory still needs (chunks without a complete part), e.g. for an
    experiment that submits the chunks of many runs through one backend."""
    from sim.runs.rundir import pending_chunks

    todo, _ = pending_chunks(run, dict(manifest))
    request = ConfigRequest.from_manifest(manifest)
    return [ChunkTask(request, os.fspath(run.path), int(manifest["seed"]), start, count,
                      threads, manifest.get("started"), tag) for start, count in todo]
