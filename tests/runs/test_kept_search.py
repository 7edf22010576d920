"""The keeper of a run's search games (sim/runs/kept_search.py) on its own, with a stand-in
for the searched configuration whose games are their index doubled: what it keeps, how many
files it leaves, and what a later keeper reads back."""
from __future__ import annotations

import polars as pl

from sim.runs.kept_search import SECONDS_COLUMN, KeptSearchGames


class DoubledGames:
    """A configuration whose game ``i`` is the row (i, 2i): asked chunks are recorded."""

    def __init__(self) -> None:
        self.asked: list[tuple[int, int]] = []

    def run_chunk(self, seed, first, count, threads):
        self.asked.append((first, count))
        index = list(range(first, first + count))
        return pl.DataFrame({"game_index": index, "value": [2 * i for i in index]})


def play(kept, config, folder, first, count):
    table, played = kept.games(config, folder, 1, first, count, 1)
    assert table["game_index"].to_list() == list(range(first, first + count))
    assert table["value"].to_list() == [2 * i for i in table["game_index"]]
    return table, played


def test_a_long_check_leaves_few_part_files_and_every_game_reads_back(tmp_path):
    """200 chunks of 3 games each: the folder never holds more than MOST_PARTS + 1 parts,
    a fresh keeper reads back all 600 games with their seconds and plays none, and a
    folder of many parts (an older keeper's) is merged when read."""
    folder, config = tmp_path / "stronger-play" / "key", DoubledGames()
    kept, seconds = KeptSearchGames(), {}
    for first in range(0, 600, 3):
        table, played = play(kept, config, folder, first, 3)
        assert played == 3
        assert len(list(folder.glob("part-*.parquet"))) <= KeptSearchGames.MOST_PARTS + 1
        seconds.update(zip(table["game_index"], table[SECONDS_COLUMN]))
    again, config_again = KeptSearchGames(), DoubledGames()
    table, played = play(again, config_again, folder, 0, 600)
    assert played == 0 and config_again.asked == []
    assert dict(zip(table["game_index"], table[SECONDS_COLUMN])) == seconds

    class Unmerging(KeptSearchGames):
        MOST_PARTS = 10_000
    many = tmp_path / "many"
    unmerging = Unmerging()
    for first in range(0, 300, 3):
        play(unmerging, config, many, first, 3)
    assert len(list(many.glob("part-*.parquet"))) == 100
    reader = KeptSearchGames()
    table, played = play(reader, DoubledGames(), many, 0, 300)
    assert played == 0 and [p.name for p in many.glob("*.parquet")] == [
        "part-000000000000-000000000300.parquet"]
    # games beyond the merged part are played and kept beside it
    table, played = play(reader, config, many, 290, 20)
    assert played == 10 and len(list(many.glob("part-*.parquet"))) == 2


def test_a_folder_that_cannot_be_written_is_read_and_says_what_it_could_not_keep(
        tmp_path, monkeypatch):
    """A folder of many parts on a disk that refuses writes: a keeper reads every game
    back and leaves the parts as they are (the merge is skipped, not a fault), and only
    games it had to play itself are reported as not kept."""
    import sim.runs.kept_search as kept_search

    class Unmerging(KeptSearchGames):
        MOST_PARTS = 10_000
    folder, config = tmp_path / "key", DoubledGames()
    for first in range(0, 300, 3):
        play(Unmerging(), config, folder, first, 3)

    def refuse(path, data):
        raise OSError("read-only file system")
    monkeypatch.setattr(kept_search, "atomic_write_bytes", refuse)
    reader = KeptSearchGames()
    assert play(reader, config, folder, 0, 300)[1] == 0
    assert reader.kept_on_disk(folder) and len(list(folder.glob("part-*"))) == 100
    assert play(reader, config, folder, 300, 3)[1] == 3
    assert not reader.kept_on_disk(folder)
    assert play(reader, config, folder, 300, 3)[1] == 0   # kept for the command
