"""Where a run's chunks are played: in this process (``local``, the default) or on a Dask
cluster (``dask`` for an existing scheduler, ``dask-local`` for a LocalCluster on loopback).

A chunk is (seed, start, count): games start .. start+count-1 of that seed. Every backend
plays a chunk with ``GameConfig.run_chunk``, writes its Parquet part
``games/part-{seed}-{start:012d}.parquet`` atomically (temporary name, then rename), and
hands back a small ``ChunkResult`` (row count, column sums, int8 value counts). A game's
rows depend only on (seed, game index, configuration), so the table is the same for every
backend, chunk size, worker count and retry.

For callers that drive many runs at once (experiments, sweeps)::

    from sim.runs import backends

    with backends.create("dask-local", workers=2) as backend:
        tasks = [backends.ChunkTask(request, str(run_dir), seed, start, count, tag=point)
                 for point, request, run_dir in points
                 for start, count in chunks]          # e.g. rundir.pending_chunks(...)
        for result in backend.run_tasks(tasks):      # in completion order
            ...                                      # result.tag, result.aggregates

``backend.map_chunks(request, chunks, run_dir=...)`` is the same for one run. Dask is
imported only when a Dask backend is created.
"""
from sim.runs.backends.base import (BACKENDS, DEFAULT_BACKEND, WRITE_PARTS, Backend,  # noqa: F401
                                    ChunkResult, ChunkTask, ConfigRequest, OutputFailed, create,
                                    names, pending_tasks, resolve)
from sim.runs.backends.local import LocalBackend  # noqa: F401  (light: no Dask)

__all__ = ["BACKENDS", "Backend", "ChunkResult", "ChunkTask", "ConfigRequest", "LocalBackend",
           "OutputFailed", "create", "names", "pending_tasks", "resolve"]
