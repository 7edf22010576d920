"""A run's curves on disk (sim.core.curves): each chunk's per-round sums in a small file
of its own, written just before the chunk's part (so a part on disk has its sums, and a
resumed run replays both), and the run's total, ``curves.npz``, written when the run is
complete. The total is the sum of the chunk files: integer sums, so the same for any
chunking, thread count or backend.

``curves.npz`` holds ``sums`` (int64[horizon + 1, 1 + 2 * width], the layout of
sim.core.curves) and ``games`` (how many games it covers: every game adds to row 0).
"""
from __future__ import annotations

import io
import os
import re
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from sim.core.curves import RUNNING, add_sums
from sim.runs.rundir import CURVES_DIR, GAMES_DIR, atomic_write_bytes

CHUNK_TEMPLATE = CURVES_DIR + "/part-{seed}-{start:012d}.npy"
TOTAL = "curves.npz"
_CHUNK_NAME = re.compile(r"part-(-?\d+)-(\d{12})\.npy")


def chunk_path(run_dir: str | os.PathLike, seed: int, start: int) -> Path:
    return Path(run_dir) / CHUNK_TEMPLATE.format(seed=seed, start=start)


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.ascontiguousarray(array, dtype=np.int64), allow_pickle=False)
    return buffer.getvalue()


def write_chunk(run_dir: str | os.PathLike, seed: int, start: int, sums: np.ndarray) -> Path:
    """One chunk's sums, atomically (OSError when the disk is full: the caller's)."""
    path = chunk_path(run_dir, seed, start)
    path.parent.mkdir(exist_ok=True)
    atomic_write_bytes(path, _npy_bytes(sums))
    return path


def chunk_sums(run_dir: str | os.PathLike) -> np.ndarray | None:
    """The sum of the chunk files whose part is on disk (None: none)."""
    run = Path(run_dir)
    total = None
    for path in sorted((run / CURVES_DIR).glob("part-*.npy")):
        found = _CHUNK_NAME.fullmatch(path.name)
        if found is None or not (run / GAMES_DIR / (path.stem + ".parquet")).is_file():
            continue
        total = add_sums(total, np.load(path, allow_pickle=False))
    return total


def write_total(run_dir: str | os.PathLike) -> Path | None:
    """``curves.npz`` from the chunk files (a complete run); None when there are none."""
    sums = chunk_sums(run_dir)
    if sums is None:
        return None
    buffer = io.BytesIO()
    np.savez(buffer, sums=sums, games=np.int64(sums[0, RUNNING]))
    path = Path(run_dir) / TOTAL
    atomic_write_bytes(path, buffer.getvalue())
    return path


def read(run_dir: str | os.PathLike, manifest: Mapping[str, Any] | None = None
         ) -> np.ndarray | None:
    """A run's sums: ``curves.npz`` when it covers the games the manifest says are done,
    else the chunk files summed (an unfinished run); None for a run without curves (an
    older run, or one whose players search)."""
    path = Path(run_dir) / TOTAL
    if path.is_file():
        with np.load(path, allow_pickle=False) as data:
            sums = data["sums"]
        done = (manifest or {}).get("games_done")
        if done is None or int(sums[0, RUNNING]) == int(done):
            return sums
    return chunk_sums(run_dir)
