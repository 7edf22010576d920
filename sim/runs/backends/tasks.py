"""Playing one chunk task, the same way in every backend: run_chunk, check the rows, write
the part atomically through sim.runs.rundir (or serialise it for the client), aggregate.
A game with curves (``Game.curves``) also hands back the chunk's per-round sums: in the
aggregates (``curves``) and, written just before the part, in the run directory
(sim.runs.curve_files).

Workers in other processes keep one GameConfig per ConfigRequest (a small LRU), so a
sweep's point is configured once per worker process, not once per chunk.
"""
from __future__ import annotations

import io
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any

from sim.core.curves import CurveSink
from sim.runs.backends.base import ChunkResult, ChunkTask, ConfigRequest, OutputFailed

CONFIG_CACHE_SIZE = 16
_configs: "OrderedDict[ConfigRequest, Any]" = OrderedDict()
_configs_lock = threading.Lock()


def configured(request: ConfigRequest):
    """This process's GameConfig for ``request`` (built once, then reused)."""
    with _configs_lock:
        config = _configs.get(request)
        if config is not None:
            _configs.move_to_end(request)
            return config
        config = request.configure()
        _configs[request] = config
        while len(_configs) > CONFIG_CACHE_SIZE:
            _configs.popitem(last=False)
        return config


def set_numba_threads(threads: int) -> int:
    """Limit numba's parallel kernels in this thread to ``threads`` (clamped to the pool
    numba started with), so workers x threads does not oversubscribe the CPUs."""
    import numba

    threads = max(1, min(int(threads), int(numba.config.NUMBA_NUM_THREADS)))
    numba.set_num_threads(threads)
    return threads


def aggregates(table: Any) -> dict[str, Any]:
    """Small numbers about a chunk: rows, the sum of every numeric column, and the value
    counts of every int8 column (winner codes, card fates...). Summing these over chunks
    gives a run's totals without reading the parts back."""
    import numpy as np
    import polars as pl
    import polars.selectors as cs

    sums = table.select(cs.numeric().sum()).row(0, named=True) if table.width else {}
    counts: dict[str, dict[int, int]] = {}
    for name, dtype in table.schema.items():
        if dtype == pl.Int8 and table[name].null_count() == 0:
            found = np.bincount(table[name].to_numpy().view(np.uint8), minlength=256)
            counts[name] = {int(v) - 256 * (v >= 128): int(found[v]) for v in np.flatnonzero(found)}
    return {"rows": table.height, "sums": sums, "counts": counts}


class _ParquetBytes:
    """Lets RunDir.write_part write a part that arrived as Parquet bytes."""

    def __init__(self, data: bytes):
        self.data = data

    def write_parquet(self, path: Any) -> None:
        with open(path, "wb") as handle:
            handle.write(self.data)


def write_part_bytes(run_dir: str, seed: int, start: int, data: bytes,
                     curves: Any = None) -> Path:
    """Write a part serialised by a worker (``write_parts="client"``), atomically; its
    chunk's per-round sums (``curves``, if any) first."""
    from sim.runs.rundir import RunDir

    try:
        if curves is not None:
            write_chunk_curves(run_dir, seed, start, curves)
        return RunDir(Path(run_dir)).write_part(seed, start, _ParquetBytes(data))
    except OSError as exc:
        raise OutputFailed(exc) from exc


def write_chunk_curves(run_dir: str, seed: int, start: int, curves: Any) -> None:
    from sim.runs.curve_files import write_chunk

    write_chunk(run_dir, seed, start, curves)


def check_table(table: Any, start: int, count: int) -> None:
    """Catch a game returning the wrong rows before it is written (a bug, not user error)."""
    if table.height != count or table.columns[:1] != ["game_index"]:
        raise RuntimeError(f"run_chunk(start={start}, count={count}) returned {table.height} rows "
                           f"with columns {table.columns[:3]}...; expected {count} rows with "
                           "game_index first")
    first, last = table["game_index"][0], table["game_index"][-1]
    if first != start or last != start + count - 1:
        raise RuntimeError(f"run_chunk(start={start}, count={count}) returned game_index "
                           f"{first}..{last}")


def execute(task: ChunkTask, config: Any = None, *, write: bool = True, aggregate: bool = True,
            threads: int = 1, worker: str | None = None) -> ChunkResult:
    """Play ``task`` and write its part (``write=True``) or return it as Parquet bytes in
    the result (``write=False``). Errors in game code propagate unchanged; a failed write
    raises OutputFailed. Re-running a task rewrites the same bytes: retries are idempotent."""
    from sim.runs.rundir import RunDir

    if config is None:
        config = configured(task.request)
    sink = CurveSink() if task.request.description().curves is not None else None
    t0 = time.perf_counter()
    if sink is None:
        table = config.run_chunk(task.seed, task.start, task.count, threads)
    else:
        table = config.run_chunk(task.seed, task.start, task.count, threads, curves=sink)
    seconds = time.perf_counter() - t0
    check_table(table, task.start, task.count)
    curves = sink.array if sink is not None else None
    run = RunDir(Path(task.run_dir))
    data = None
    if write:
        try:
            if curves is not None:   # before the part: a part on disk has its sums
                write_chunk_curves(task.run_dir, task.seed, task.start, curves)
            path = run.write_part(task.seed, task.start, table)
        except OSError as exc:
            raise OutputFailed(exc) from exc
    else:
        buffer = io.BytesIO()
        table.write_parquet(buffer)
        data, path = buffer.getvalue(), run.part_path(task.seed, task.start)
    sums = aggregates(table) if aggregate else {}
    if curves is not None:
        sums["curves"] = curves
    return ChunkResult(seed=task.seed, start=task.start, count=task.count, run_dir=task.run_dir,
                       part=str(path), seconds=round(seconds, 6), aggregates=sums,
                       worker=worker, tag=task.tag, parquet=data)
