"""Games as tables, for studies that count outcomes themselves instead of keeping a run
directory (matchups, autobalance): chunks (configuration request, seed, start, count)
played on any backend, their tables handed back.

In this process a chunk is ``config.run_chunk``; on a cluster backend it is a chunk task
written into a scratch run directory and read back (then removed). A game's row depends
only on (seed, game index, configuration), so the tables are the same on every backend.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence


def chunk_tables(backend: Any, items: Sequence[tuple], *, scratch: str | os.PathLike,
                 threads: int | None = None, configs: Mapping[Any, Any] | None = None
                 ) -> Iterator[tuple[Any, Any]]:
    """(tag, polars DataFrame) for every item (ConfigRequest, seed, start, count, tag), in
    the order given on in-process backends, in completion order on others. ``configs``
    (ConfigRequest -> GameConfig) spares in-process backends a configuration; ``threads``:
    kernel threads per chunk (None: the backend's default)."""
    import polars as pl

    from sim.runs.backends import ChunkTask
    from sim.runs.rundir import GAMES_DIR, RunDir

    if backend.in_process:
        from sim.runs.backends.tasks import check_table, configured

        count_threads = threads if threads is not None else backend.default_threads()
        for request, seed, start, count, tag in items:
            config = (configs or {}).get(request) or configured(request)
            table = config.run_chunk(seed, start, count, count_threads)
            check_table(table, start, count)
            yield tag, table
        return
    tasks = []
    for n, (request, seed, start, count, tag) in enumerate(items):
        run_dir = Path(scratch) / f"chunk-{n:06d}"
        (run_dir / GAMES_DIR).mkdir(parents=True, exist_ok=True)
        tasks.append(ChunkTask(request, str(run_dir), int(seed), int(start), int(count),
                               threads, tag=tag))
    for result in backend.run_tasks(tasks, aggregate=False):
        path = RunDir(Path(result.run_dir)).part_path(result.seed, result.start)
        table = pl.read_parquet(path)
        path.unlink()
        yield result.tag, table
