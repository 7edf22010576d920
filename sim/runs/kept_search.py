"""The search games played on a run, kept in its directory: ``RUN/stronger-play/<key>/``,
one Parquet part per chunk played, each game with the seconds its chunk took
(SECONDS_COLUMN, its share). The key is everything that decides the games: the searched
configuration (cards, rules, strategies and their weights), the seed and the engine's
source (KEY_FILE in the folder holds them), so a changed engine or strategy file plays them
again.

Every check under stronger play reads its search games through here: simulate compare's,
an experiment's and the workbench's (sim.studies.compare_stronger) and a report's
(reports.stronger). A game depends on its index only, not on the chunk it was played in,
so any check reads back the games any other played, and counts their recorded seconds
against its budget: with the same budget it reaches the same games. A part is written
whole or not at all; a damaged part is played again; a run directory that cannot be
written keeps its games for the command only. A folder holds at most MOST_PARTS parts: past
that the keeper writes the parts it holds as one (a long check plays thousands of chunks,
and a later check reads one file faster than thousands). The folder is a cache: a part lost
to two commands merging it at once costs only its games' replay.
"""
from __future__ import annotations

import hashlib
import io
import json
import time
from pathlib import Path

import polars as pl

from sim.runs.rundir import atomic_write_bytes

KEPT_FOLDER = "stronger-play"   # in a run directory
SECONDS_COLUMN = "search_seconds"   # a kept game's share of its chunk's play time
KEY_FILE = "key.json"   # in each folder: the configuration, seed and engine of its games


class KeptSearchGames:
    """The search games of runs, by folder (``folder``) and game index, with the seconds
    each took: in memory, and in the folder where it can be written."""

    MOST_PARTS = 64   # parts in a folder before the keeper merges them into one

    def __init__(self) -> None:
        self.parts: dict[Path, list[pl.DataFrame]] = {}
        self.files: dict[Path, list[Path]] = {}   # the part files whose games it holds
        self.where: dict[Path, dict[int, tuple[int, int]]] = {}   # index -> (part, row)
        self.writable: dict[Path, bool] = {}
        self.keys: dict[Path, str] = {}   # folder -> what decides its games, until written

    def folder(self, run: Path, config, seed: int) -> Path:
        """The folder of ``run``'s search games played with ``config`` (the searched
        configuration) from ``seed``: named by the hash of what decides them, which its
        KEY_FILE holds once a game is kept there."""
        import sim

        decides = json.dumps({"configuration": config.manifest(), "seed": seed,
                              "engine": sim.source_hash()}, sort_keys=True, default=str)
        key = hashlib.sha256(decides.encode()).hexdigest()[:16]
        folder = Path(run).resolve() / KEPT_FOLDER / key
        self.keys[folder] = decides
        return folder

    def kept_on_disk(self, folder: Path) -> bool:
        """Whether the games of ``folder`` asked so far are kept there (False: its run
        directory cannot be written, and a later command plays them again)."""
        return self.writable.get(folder, True)

    def _held(self, folder: Path) -> dict[int, tuple[int, int]]:
        """Where each game of ``folder`` is, its parts read from disk at the first ask."""
        if folder not in self.where:
            self.parts[folder], self.where[folder], self.files[folder] = [], {}, []
            for path in sorted(folder.glob("part-*.parquet")):
                try:
                    self._add(folder, pl.read_parquet(path))
                except (OSError, pl.exceptions.PolarsError):
                    continue   # a damaged part is played again
                self.files[folder].append(path)
            self._merge_if_many(folder)
        return self.where[folder]

    def _add(self, folder: Path, table: pl.DataFrame) -> None:
        where, part = self.where[folder], len(self.parts[folder])
        self.parts[folder].append(table)
        for row, game in enumerate(table["game_index"].to_list()):
            where.setdefault(game, (part, row))

    def games(self, config, folder: Path, seed: int, first: int, count: int,
              threads: int) -> tuple[pl.DataFrame, int]:
        """Search games first .. first+count-1 (with SECONDS_COLUMN) and how many of them
        were played now: those kept are read back, the others played (a game depends on
        its index only, not on the chunk it is in) and kept."""
        where = self._held(folder)
        wanted = range(first, first + count)
        missing = [i for i in wanted if i not in where]
        if missing:
            lo, hi = missing[0], missing[-1] + 1
            began = time.perf_counter()
            new = config.run_chunk(seed, lo, hi - lo, threads)
            per_game = (time.perf_counter() - began) / new.height
            new = new.with_columns(pl.lit(per_game).alias(SECONDS_COLUMN)).filter(
                pl.col("game_index").is_in(missing))
            self._add(folder, new)
            written = self._keep(folder, new, lo, hi)
            if written is not None:
                self.files[folder].append(written)
                self._merge_if_many(folder)
            where = self.where[folder]   # a merge renumbers the parts
        # consecutive rows of one part are read as one slice
        slices, parts = [], self.parts[folder]
        for i in wanted:
            part, row = where[i]
            if slices and slices[-1][0] == part and slices[-1][1] + slices[-1][2] == row:
                slices[-1][2] += 1
            else:
                slices.append([part, row, 1])
        table = pl.concat([parts[part].slice(row, n) for part, row, n in slices])
        return table, len(missing)

    def _keep(self, folder: Path, table: pl.DataFrame, lo: int, hi: int) -> Path | None:
        """Write one part and return its path; a folder that cannot be written keeps its
        games in memory (None)."""
        if not self.writable.get(folder, True):
            return None
        path = _write_part(folder, table, lo, hi)
        if path is None:
            self.writable[folder] = False
        elif folder in self.keys:   # once per folder: what it holds (its sha256 names it)
            decides = self.keys.pop(folder)
            if not (folder / KEY_FILE).exists():
                try:
                    atomic_write_bytes(folder / KEY_FILE, decides.encode())
                except OSError:
                    pass
        return path

    def _merge_if_many(self, folder: Path) -> None:
        """Past MOST_PARTS part files, write the games they hold as one part, then remove
        them: the merged part is whole on disk before any of them goes."""
        files = self.files[folder]
        if len(files) <= self.MOST_PARTS:
            return
        games = pl.concat(self.parts[folder], how="diagonal_relaxed").unique(
            "game_index", keep="first", maintain_order=True).sort("game_index")
        first, end = games["game_index"].min(), games["game_index"].max() + 1
        merged = _write_part(folder, games, first, end)
        if merged is None:
            return   # a folder read but not written (read-only): its games stay as they are
        for path in files:
            if path != merged:
                try:
                    path.unlink(missing_ok=True)
                except OSError:
                    pass   # left in place: it holds only games the merged part holds
        self.parts[folder], self.where[folder], self.files[folder] = [], {}, [merged]
        self._add(folder, games)


def _write_part(folder: Path, table: pl.DataFrame, lo: int, hi: int) -> Path | None:
    """Write ``table`` as the part of games lo .. hi-1 (whole or not at all); None when
    the folder cannot be written."""
    buffer = io.BytesIO()
    table.write_parquet(buffer)
    path = folder / f"part-{lo:012d}-{hi:012d}.parquet"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, buffer.getvalue())
    except OSError:
        return None
    return path
