"""A search player's recorded decisions as columns of a run's games table.

A search player given ``record=E`` (``search:k=8,n=16,base=@policy.yaml,record=4``) plays
its games with a ``sim.core.search_kernel.Recording`` and its chunks' tables carry, per
game, the decisions it made: three list columns (``RECORD_COLUMNS``) beside the usual
result columns. So a recording run is an ordinary run -- any backend plays and writes its
chunks, a finished chunk is its own record on resume -- and ``recordings_of`` reads a
table's decisions back for the fit (sim.core.policy_fit).

- ``record_decisions``: per decision its REC_* fields (sim.core.search_kernel), in order,
  REC_FIRST counted from the game's first option row;
- ``record_features``: the game's option rows, ``width`` features each, row after row;
- ``record_values``: per option row its mean result (NaN: not played out).
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import numpy as np
import polars as pl

from sim.core.search_kernel import (
    N_DECISIONS, N_DROPPED, N_ROWS, REC_COUNT, REC_FIELDS, REC_FIRST, REC_GAME, Recording,
    new_recording,
)

RECORD_COLUMNS = ("record_decisions", "record_features", "record_values")
DECISIONS_PER_GAME = 64     # a first guess of a game's recorded decisions (doubled if short)


def play_recorded(count: int, threads: int, width: int, rows_per_decision: int, extra: int,
                  play: Callable[[int, int, Recording], None]) -> list[Recording]:
    """Games 0 .. count-1 of a chunk, split over ``threads`` like every chunk: ``play(lo,
    hi, recording)`` plays games lo .. hi-1 into ``recording``. A recording that fills up
    is made twice as large and its games played again (they replay exactly). Returns the
    recordings in game order."""
    threads = max(1, min(int(threads or 1), count))
    bounds = np.linspace(0, count, threads + 1).astype(int)

    def work(i: int) -> Recording:
        lo, hi = int(bounds[i]), int(bounds[i + 1])
        per_game = DECISIONS_PER_GAME
        while True:
            decisions = per_game * (hi - lo) + 1
            recording = new_recording(decisions, decisions * rows_per_decision, width, extra)
            play(lo, hi, recording)
            if recording.n[N_DROPPED] == 0:
                return recording
            per_game *= 2

    if threads == 1:
        return [work(0)]
    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(work, range(threads)))


def recording_columns(recordings: list[Recording], start: int, count: int) -> dict[str, pl.Series]:
    """RECORD_COLUMNS for games start .. start+count-1 from their recordings (game order)."""
    decisions: list[np.ndarray] = [np.zeros(0, np.int64)] * count
    features: list[np.ndarray] = [np.zeros(0)] * count
    values: list[np.ndarray] = [np.zeros(0)] * count
    for rec in recordings:
        used = int(rec.n[N_DECISIONS])
        table = rec.decisions[:used]
        games = table[:, REC_GAME]
        for game in np.unique(games):
            mine = table[games == game].copy()
            first = int(mine[0, REC_FIRST])
            last = int(mine[-1, REC_FIRST] + mine[-1, REC_COUNT])
            mine[:, REC_FIRST] -= first
            i = int(game) - start
            decisions[i] = mine.reshape(-1)
            features[i] = rec.features[first:last].reshape(-1)
            values[i] = rec.values[first:last]
    return {"record_decisions": pl.Series("record_decisions", decisions, dtype=pl.List(pl.Int64)),
            "record_features": pl.Series("record_features", features, dtype=pl.List(pl.Float64)),
            "record_values": pl.Series("record_values", values, dtype=pl.List(pl.Float64))}


def recordings_of(table: pl.DataFrame, width: int) -> Recording:
    """One Recording of every decision in a games table's RECORD_COLUMNS, game by game in
    the table's order (REC_FIRST counted from the start of the whole recording)."""
    decisions, features, values = [], [], []
    rows = 0
    for dec, feat, val in zip(table["record_decisions"].to_list(),
                              table["record_features"].to_list(),
                              table["record_values"].to_list()):
        d = np.asarray(dec, dtype=np.int64).reshape(-1, REC_FIELDS)
        d[:, REC_FIRST] += rows
        decisions.append(d)
        f = np.asarray(feat, dtype=np.float64).reshape(-1, width)
        features.append(f)
        values.append(np.asarray(val, dtype=np.float64))
        rows += len(f)
    n = np.zeros(4, np.int64)
    all_decisions = (np.concatenate(decisions) if decisions
                     else np.zeros((0, REC_FIELDS), np.int64))
    n[N_DECISIONS] = len(all_decisions)
    n[N_ROWS] = rows
    return Recording(all_decisions,
                     np.concatenate(features) if features else np.zeros((0, width)),
                     np.concatenate(values) if values else np.zeros(0), n)
