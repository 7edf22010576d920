"""PLAI's per-turn curves (curves_kernel.py): what each game adds to the sums is what its
row says (hands at its last turn, fights, fundings and bankruptcies over its turns, each
in the turn its row names); the sums of a chunk are the sums of its games, for any
chunking and thread count; recording them changes no game."""
from __future__ import annotations

import numpy as np
import pytest

from sim.core.curves import RUNNING, CurveSink
from sim.core.game import configure
from sim.games.plai import curves_kernel as ck

SEED, GAMES, PLAYERS = 3, 150, 4


@pytest.fixture(scope="module")
def config():
    return configure("plai", PLAYERS)


@pytest.fixture(scope="module")
def each_game(config):
    out = []
    for i in range(GAMES):
        sink = CurveSink()
        table = config.run_chunk(SEED, i, 1, curves=sink)
        out.append((table.row(0, named=True), sink.array))
    return out


def _series(sums, column):
    return sums[:, 1 + column]


def test_each_game_adds_what_its_row_says(each_game):
    for row, sums in each_game:
        last = row["turns"]
        assert list(sums[:, RUNNING]) == [1] * (last + 1) + [0] * (sums.shape[0] - last - 1)
        for s in range(PLAYERS):
            assert _series(sums, ck.K_HAND0 + s)[last] == row[f"hand_{s}"]
        fights = _series(sums, ck.K_FIGHTS)
        assert fights.sum() == row["regional_attacked"] + row["venture_attacked"] + row["takeovers"]
        fundings = _series(sums, ck.K_FUNDINGS)
        assert fundings.sum() == row["fund_family"] + row["fund_regional"] + row["fund_venture"]
        # one action a turn: at most one fight and one funding (their squares are their sums)
        assert fights.max() <= 1 and fundings.max() <= 1
        bankrupt = _series(sums, ck.K_BANKRUPT)
        turns = [row[f"bankrupt_turn_{s}"] for s in range(PLAYERS) if row[f"bankrupt_turn_{s}"] >= 0]
        assert list(np.flatnonzero(bankrupt)) == sorted(set(turns))
        assert all(bankrupt[t] == turns.count(t) for t in turns)
        assert np.array_equal(sums[:, 1 + ck.WIDTH:], sums[:, 1:1 + ck.WIDTH] ** 2)
        assert not sums[last + 1:].any()
        assert all(_series(sums, ck.K_HAND0 + s)[0] == 6 for s in range(PLAYERS))   # the deal


@pytest.mark.parametrize("chunks,threads", [((GAMES,), 1), ((GAMES,), 2), ((70, 41, 39), 2)])
def test_a_chunks_sums_are_its_games_sums_for_any_chunking(config, each_game, chunks, threads):
    sink = CurveSink()
    start = 0
    for count in chunks:
        config.run_chunk(SEED, start, count, threads, curves=sink)
        start += count
    assert np.array_equal(sink.array, sum(sums for _, sums in each_game))
    assert sink.array[0, RUNNING] == sink.array[1, RUNNING] == GAMES


def test_recording_changes_no_game(config):
    assert config.run_chunk(SEED, 0, 300, curves=CurveSink()).equals(
        config.run_chunk(SEED, 0, 300))
