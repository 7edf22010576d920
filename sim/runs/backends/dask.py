"""Dask backends: ``dask`` (an existing scheduler, ``--scheduler tcp://HOST:8786``) and
``dask-local`` (a LocalCluster on 127.0.0.1 with ``--workers N`` processes).

Each chunk is one Dask task with a stable key ``("cardsim-chunk", run, seed, start)``. The
task gets a picklable ChunkTask, rebuilds the GameConfig once per worker process, calls
``numba.set_num_threads``, plays the chunk, writes ``part-{seed}-{start}.parquet`` under a
temporary name and renames it (or, with ``write_parts="client"``, sends the Parquet bytes
back for the client to write), and returns a small ChunkResult. A worker that dies mid-task
is replaced and its task re-run elsewhere by the scheduler (``distributed.scheduler.
allowed-failures``, default 3): the part is rewritten with the same rows, so retries never
change the table. Submission keeps a bounded window of tasks in flight, so a run of
millions of chunks never floods the scheduler.

Dask is imported only here, and only when such a backend is created.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

from sim.runs.backends.base import WRITE_PARTS, Backend, ChunkResult, ChunkTask, ConfigRequest
from sim.core.errors import UserError

TASK_PREFIX = "cardsim-chunk"
CONNECT_TIMEOUT = "10s"
INSTALL_HINT = "pip install 'cardsim[dask]' (or: pip install 'dask[distributed]')"


def _require_dask(backend: str) -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UserError(f"--backend {backend} needs Dask, which is not installed: "
                        f"{INSTALL_HINT}", field="--backend") from None


class WorkerUserError(Exception):
    """A UserError raised on a worker, carried back intact (UserError's keyword-only
    fields do not survive pickling)."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None,
                 field: str | None = None):
        super().__init__(message, file, line, field)
        self.message, self.file, self.line, self.field = message, file, line, field

    def to_user_error(self) -> UserError:
        return UserError(self.message, file=self.file, line=self.line, field=self.field)


# ----------------------------------------------------------------------------- worker side
_hash_cache: dict[str, str] = {}


def process_source_hash() -> str:
    """The sim/ source hash this process plays: the one its numba cache directory is keyed
    on (``numba-<hash>``, fixed when ``sim`` was first imported in this process or the
    process that started it), else ``sim.source_hash()`` once. Workers on other machines
    compute their own, so a different install is caught; a LocalCluster's workers inherit
    the client's."""
    if "hash" not in _hash_cache:
        import sim

        name = os.path.basename(os.environ.get("NUMBA_CACHE_DIR", "").rstrip(os.sep))
        digest = name[len("numba-"):] if name.startswith("numba-") else ""
        _hash_cache["hash"] = digest if len(digest) == 16 else sim.source_hash()
    return _hash_cache["hash"]


def config_digest(config: Any) -> str:
    """What a configuration plays (cards sha256, rules, strategies...), as a short hash."""
    from sim.runs.rundir import json_default, to_jsonable

    text = json.dumps(to_jsonable(config.manifest()), sort_keys=True, default=json_default)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


_verified: dict[ConfigRequest, str] = {}
_sees: dict[tuple[str, str | None], bool] = {}


def _sees_run_dir(run_dir: str, token: str | None) -> bool:
    """Does this worker see the client's run directory (a shared filesystem)?"""
    key = (run_dir, token)
    if key not in _sees:
        path = Path(run_dir)
        seen = (path / "games").is_dir()
        if seen and token is not None:
            try:
                seen = json.loads((path / "manifest.json").read_text()).get("started") == token
            except (OSError, ValueError):
                seen = False
        _sees[key] = seen
    return _sees[key]


def run_task(task: ChunkTask, write_parts: str, aggregate: bool, source_hash: str | None,
             digest: str | None) -> ChunkResult:
    """The Dask task: one chunk, on a worker."""
    from sim.runs.backends.tasks import configured, execute, set_numba_threads

    try:
        from distributed import get_worker

        worker = get_worker().address
    except (ImportError, ValueError):
        worker = None
    try:
        if source_hash is not None and process_source_hash() != source_hash:
            raise UserError(f"Dask worker {worker} runs other simulator sources (hash "
                            f"{process_source_hash()}, client {source_hash}); install the same "
                            "cardsim version on every worker and restart the workers after an "
                            "update", field="--scheduler")
        config = configured(task.request)
        if digest is not None and _verified.get(task.request) != digest:
            mine = config_digest(config)
            if mine != digest:
                raise UserError(f"Dask worker {worker} built another configuration from the same "
                                "request (card or rules file differs on that machine); put the "
                                "files on a shared filesystem at the same path",
                                file=task.request.cards, field="--scheduler")
            _verified[task.request] = mine
        threads = set_numba_threads(task.threads or 1)
        write = write_parts == "worker" or (write_parts == "auto"
                                            and _sees_run_dir(task.run_dir, task.run_token))
        return execute(task, config, write=write, aggregate=aggregate, threads=threads,
                       worker=worker)
    except UserError as exc:
        raise WorkerUserError(exc.message, exc.file, exc.line, exc.field) from None


# ----------------------------------------------------------------------------- client side
def _task_key(task: ChunkTask) -> tuple[str, str, int, int]:
    run = hashlib.sha256(repr((task.run_dir, task.run_token, task.request)).encode())
    return (TASK_PREFIX, run.hexdigest()[:16], task.seed, task.start)


class DaskBackend(Backend):
    """Chunks as tasks on an existing Dask cluster.

    ``scheduler``: address such as ``tcp://10.0.0.5:8786`` (or give ``client``, a connected
    ``distributed.Client``, which the backend then does not close).
    ``write_parts``: ``worker`` (workers write into the run directory: a shared
    filesystem), ``client`` (Parquet bytes come back and this process writes them), or
    ``auto`` (each worker writes if it sees this run's directory, else sends the bytes).
    ``retries``: extra attempts for a task that *raised* (worker deaths are always retried
    by the scheduler). ``max_in_flight``: tasks submitted ahead (default 4 per worker thread,
    at least 16). ``check_sources``: refuse workers whose sim/ sources differ from ours.
    ``announce``: print the worker count and dashboard address on stderr when connecting.

    Waiting: while tasks are pending the backend looks at the cluster every
    ``watch_seconds``. A cluster without any worker for ``no_worker_warn`` seconds (default
    30) gets one line on stderr (``on_wait`` gets it instead when given) and the run keeps
    waiting for a worker; with ``no_worker_timeout`` (seconds; None, the default: wait) it
    stops then with a one-line UserError, the finished chunks kept. A scheduler that cannot
    be reached any more stops the run with one line too (``--resume`` continues it).
    """

    name = "dask"
    watch_seconds = 2.0    # how often a waiting backend looks at the cluster

    def __init__(self, scheduler: str | None = None, *, client: Any = None,
                 write_parts: str = "auto", retries: int = 0, max_in_flight: int | None = None,
                 check_sources: bool = True, announce: bool = False,
                 connect_timeout: str | None = None, no_worker_warn: float = 30.0,
                 no_worker_timeout: float | None = None, on_wait: Any = None):
        _require_dask(self.name)
        if write_parts not in WRITE_PARTS:
            raise UserError(f"must be one of {', '.join(WRITE_PARTS)}, got '{write_parts}'",
                            field="--write-parts")
        if scheduler is None and client is None and self.name == "dask":
            import dask

            scheduler = dask.config.get("scheduler-address", None)
            if not scheduler:
                raise UserError("--backend dask needs --scheduler tcp://HOST:8786 (the address "
                                "'dask scheduler' prints), or use --backend dask-local",
                                field="--scheduler")
        self.scheduler = scheduler
        self.write_parts = write_parts
        self.retries = int(retries)
        self.max_in_flight = max_in_flight
        self.check_sources = check_sources
        self.announce = announce
        self.connect_timeout = connect_timeout or CONNECT_TIMEOUT
        self.no_worker_warn = float(no_worker_warn)
        self.no_worker_timeout = None if no_worker_timeout is None else float(no_worker_timeout)
        self.on_wait = on_wait
        self._client = client
        self._owns_client = client is None
        if self.name == "dask":
            self.client  # connect now: an unreachable scheduler fails before a run dir exists

    # -- connection
    @property
    def client(self):
        if self._client is None:
            self._client = self._connect()
            if self._owns_client:
                # A lost scheduler is reported once, as one UserError line (_Watch); the
                # client's own reconnect messages and tracebacks would only repeat it.
                self._quieted = _Quiet(("distributed.client", "distributed.comm",
                                        "distributed.core", "distributed.batched"))
                self._quieted.__enter__()
            if self.announce:
                self._announce()
        return self._client

    def _connect(self):
        from distributed import Client

        try:
            return Client(self.scheduler, timeout=self.connect_timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            reason = " ".join(str(exc).split()) or type(exc).__name__
            raise UserError(f"cannot reach the Dask scheduler at {self.scheduler} ({reason})",
                            field="--scheduler") from None

    def _announce(self) -> None:
        import importlib.util

        workers = self._client.nthreads()
        line = (f"dask: {len(workers)} workers, {sum(workers.values())} threads at "
                f"{self._client.scheduler.address}")
        if importlib.util.find_spec("bokeh") is not None:
            line += f"; dashboard {self._client.dashboard_link}"
        print(line, file=sys.stderr, flush=True)

    def describe(self) -> dict[str, Any]:
        facts: dict[str, Any] = {"name": self.name, "write_parts": self.write_parts}
        if self._client is not None:
            try:
                nthreads = self._client.nthreads()
                facts.update(scheduler=self._client.scheduler.address, workers=len(nthreads),
                             worker_threads=sum(nthreads.values()))
            except Exception:  # a description must never fail a run
                pass
        return facts

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None and self._owns_client:
            with _quiet():
                client.close()
        quieted, self._quieted = getattr(self, "_quieted", None), None
        if quieted is not None:
            quieted.__exit__(None, None, None)

    # -- tasks
    def _window(self) -> int:
        if self.max_in_flight:
            return int(self.max_in_flight)
        return max(16, 4 * sum(self.client.nthreads().values()))

    def run_tasks(self, tasks: Iterable[ChunkTask], *, configs: Mapping[ConfigRequest, Any]
                  | None = None, aggregate: bool = True) -> Iterator[ChunkResult]:
        from distributed import as_completed
        from distributed.client import FutureCancelledError
        from distributed.scheduler import KilledWorker

        from sim.runs.backends.tasks import configured, write_part_bytes

        queue = iter(tasks)
        client = self.client
        source_hash = None
        if self.check_sources:
            source_hash = process_source_hash()
        digests: dict[ConfigRequest, str] = {}
        pending = as_completed(loop=client.loop)
        live: set[Any] = set()
        window, window_at = self._window(), time.monotonic()

        def top_up() -> None:
            nonlocal window, window_at
            if time.monotonic() - window_at > 10:  # workers may have joined or left
                try:
                    window = self._window()
                except Exception as exc:  # noqa: BLE001 - the scheduler is gone
                    raise lost_scheduler(self.scheduler, exc) from None
                window_at = time.monotonic()
            while len(live) < window:
                task = next(queue, None)
                if task is None:
                    return
                if task.request not in digests:
                    config = (configs or {}).get(task.request) or configured(task.request)
                    digests[task.request] = config_digest(config)
                future = client.submit(run_task, task, self.write_parts, aggregate, source_hash,
                                       digests[task.request], key=_task_key(task),
                                       retries=self.retries)
                live.add(future)
                pending.add(future)

        watch = _Watch(self)
        try:
            top_up()
            while not pending.is_empty():
                ready = pending.next_batch(block=False) if pending.has_ready() else []
                if not ready:
                    watch.check(client)
                    time.sleep(0.02)
                    continue
                watch.progressed()
                for future in ready:
                    live.discard(future)
                    try:
                        result = future.result()
                    except WorkerUserError as exc:
                        raise exc.to_user_error() from None
                    except KilledWorker as exc:
                        raise UserError(f"a chunk killed every Dask worker that ran it "
                                        f"({_short(exc)}); out of memory? try a smaller "
                                        "--chunk-size", field="--backend") from None
                    except (FutureCancelledError, OSError, TimeoutError) as exc:
                        raise lost_scheduler(self.scheduler, exc) from None
                    if result.parquet is not None:
                        write_part_bytes(result.run_dir, result.seed, result.start,
                                         result.parquet, result.aggregates.get("curves"))
                        result.parquet = None
                    top_up()
                    yield result
        finally:
            if live:
                try:
                    with _quiet():
                        client.cancel(list(live))
                except Exception:  # the cluster may already be gone
                    pass
            live.clear()


def _short(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def lost_scheduler(address: str | None, exc: BaseException) -> UserError:
    return UserError(f"lost the Dask scheduler{f' at {address}' if address else ''} "
                     f"({type(exc).__name__}: {_short(exc)}); finished chunks are kept, "
                     "continue with --resume once it is back", field="--scheduler")


class _Watch:
    """While a backend waits for results: is there still a scheduler, and a worker?"""

    def __init__(self, backend: DaskBackend):
        self.backend = backend
        self.last_look = time.monotonic()
        self.no_worker_since: float | None = None
        self.warned = False

    def progressed(self) -> None:
        # Results can arrive before the next look at the cluster sees the new worker.
        if self.warned:
            self._say("dask: a worker is back; going on")
        self.no_worker_since, self.warned = None, False

    def check(self, client: Any) -> None:
        now = time.monotonic()
        if now - self.last_look < self.backend.watch_seconds:
            return
        self.last_look = now
        try:
            workers = len(client.scheduler_info().get("workers", {}))
            if workers == 0:
                workers = len(client.nthreads())   # asks the scheduler (the cached info lags)
        except Exception as exc:  # noqa: BLE001 - any failure to reach it is "lost"
            raise lost_scheduler(self.backend.scheduler, exc) from None
        if workers:
            if self.warned:
                self._say(f"dask: {workers} worker(s) back; going on")
            self.no_worker_since, self.warned = None, False
            return
        if self.no_worker_since is None:
            self.no_worker_since = now
        idle = now - self.no_worker_since
        limit = self.backend.no_worker_timeout
        if limit is not None and idle >= limit:
            raise UserError(f"the Dask cluster has had no worker for {idle:.0f} s; stopped, the "
                            "finished chunks are kept (start a worker, then continue with "
                            "--resume)", field="--scheduler")
        if not self.warned and idle >= self.backend.no_worker_warn:
            self.warned = True
            self._say(f"dask: the cluster has had no worker for {idle:.0f} s; waiting for one "
                      "(start a worker, or Ctrl-C: the finished chunks are kept)")

    def _say(self, line: str) -> None:
        if self.backend.on_wait is not None:
            self.backend.on_wait(line)
        else:
            print(line, file=sys.stderr, flush=True)


class LocalDaskBackend(DaskBackend):
    """A LocalCluster on 127.0.0.1 for this run: ``workers`` processes (default: one per
    CPU) with one thread each. Closed with the backend."""

    name = "dask-local"

    def __init__(self, workers: int | None = None, *, threads_per_worker: int = 1,
                 processes: bool = True, dashboard_address: str | None = "127.0.0.1:8787",
                 **options: Any):
        super().__init__(None, **options)
        if workers is not None and (isinstance(workers, bool) or int(workers) < 1):
            raise UserError(f"must be at least 1, got {workers}", field="--workers")
        self.workers = int(workers) if workers is not None else None
        self.threads_per_worker = int(threads_per_worker)
        self.processes = processes
        self.dashboard_address = dashboard_address
        self._cluster = None

    def _connect(self):
        import importlib.util

        from distributed import Client, LocalCluster

        from sim.core.inputs import default_threads

        workers = self.workers or default_threads()
        dashboard = self.dashboard_address if importlib.util.find_spec("bokeh") else None
        with _quiet(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. "port 8787 in use, using another"
            # worker processes talk over TCP on loopback only; threads use in-process comms
            where = {"host": "127.0.0.1"} if self.processes else {}
            self._cluster = LocalCluster(n_workers=workers,
                                         threads_per_worker=self.threads_per_worker,
                                         processes=self.processes, dashboard_address=dashboard,
                                         silence_logs=logging.ERROR, **where)
        return Client(self._cluster, set_as_default=False)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "scheduler": "LocalCluster 127.0.0.1"}

    def close(self) -> None:
        super().close()
        cluster, self._cluster = self._cluster, None
        if cluster is not None:
            with _quiet():
                cluster.close()


class _Quiet:
    """Only CRITICAL messages from the named loggers while active."""

    def __init__(self, names: tuple[str, ...]):
        self.names = names

    def __enter__(self):
        self._levels = {}
        for name in self.names:
            logger = logging.getLogger(name)
            self._levels[name] = logger.level
            logger.setLevel(logging.CRITICAL)
        return self

    def __exit__(self, *exc: object) -> bool:
        for name, level in self._levels.items():
            logging.getLogger(name).setLevel(level)
        return False


def _quiet() -> _Quiet:
    """Silence distributed's shutdown chatter (cancelled tasks, closing comms)."""
    return _Quiet(("distributed", "tornado", "asyncio"))
