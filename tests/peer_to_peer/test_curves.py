"""Peer-to-Peer's per-round curves (curves_kernel.py): what each game adds to the sums is
what its row and its trace say, round by round; the sums of a chunk are the sums of its
games, for any chunking and thread count; recording them changes no game."""
from __future__ import annotations

import numpy as np
import pytest

from sim.core.curves import RUNNING, CurveSink, curve_rows
from sim.core.game import configure, resolve_game
from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer import curves_kernel as ck
from sim.games.peer_to_peer.state_kernel import EV_UNHAPPY, EV_WIN

SEED, GAMES = 5, 120


@pytest.fixture(scope="module")
def config():
    return configure("peer-to-peer", 4)


@pytest.fixture(scope="module")
def each_game(config):
    """(row, its own sums) for games 0 .. GAMES-1, one chunk of one game each."""
    out = []
    for i in range(GAMES):
        sink = CurveSink()
        table = config.run_chunk(SEED, i, 1, curves=sink)
        out.append((table.row(0, named=True), sink.array))
    return out


def _value(sums, rnd, column):
    return sums[rnd, 1 + column]


def test_each_game_adds_its_final_row_at_its_last_round_and_nothing_after(each_game):
    """So the served customers summed at the games' last rounds are the rows' total."""
    for row, sums in each_game:
        last = row["rounds"]
        assert list(sums[:, RUNNING]) == [1] * (last + 1) + [0] * (sums.shape[0] - last - 1)
        fates = np.array([row[c] for c in row if c.startswith("fate_")])
        assert _value(sums, last, ck.K_SCORE_A) == row["score_a"]
        assert _value(sums, last, ck.K_SCORE_B) == row["score_b"]
        assert _value(sums, last, ck.K_UNHAPPY) == row["unhappy"]
        assert _value(sums, last, ck.K_SERVED) == row["assists_a"] + row["assists_b"]
        assert _value(sums, last, ck.K_ROW) == (fates == k.FATE_ROW).sum()
        assert _value(sums, last, ck.K_DECK) == (fates == k.FATE_CUSTOMER_DECK).sum()
        width = ck.WIDTH
        assert np.array_equal(sums[:, 1 + width:], sums[:, 1:1 + width] ** 2)  # one game
        assert not sums[last + 1:].any()


def test_mid_game_rounds_follow_the_trace(config, each_game):
    """Served and unhappy customers at the end of every round: the trace's wins and
    unhappy customers up to that round."""
    for i in range(0, GAMES, 15):
        events, row, _ = config.trace_events(SEED, i)
        sums = each_game[i][1]
        for rnd in range(1, row["rounds"] + 1):
            upto = events[events[:, 0] <= rnd]
            assert _value(sums, rnd, ck.K_SERVED) == (upto[:, 1] == EV_WIN).sum(), (i, rnd)
            assert _value(sums, rnd, ck.K_UNHAPPY) == (upto[:, 1] == EV_UNHAPPY).sum(), (i, rnd)
        deck_left = [_value(sums, r, ck.K_DECK) for r in range(row["rounds"] + 1)]
        assert deck_left[0] > 0 and deck_left[-1] == _value(sums, row["rounds"], ck.K_DECK)


@pytest.mark.parametrize("chunks,threads", [((GAMES,), 1), ((GAMES,), 2), ((50, 37, 33), 2)])
def test_a_chunks_sums_are_its_games_sums_for_any_chunking(config, each_game, chunks, threads):
    sink = CurveSink()
    start = 0
    for count in chunks:
        config.run_chunk(SEED, start, count, threads, curves=sink)
        start += count
    assert np.array_equal(sink.array, sum(sums for _, sums in each_game))
    assert sink.array[0, RUNNING] == sink.array[1, RUNNING] == GAMES   # every game plays round 1
    # the games still running at each round: the rows' lengths
    rounds = np.array([row["rounds"] for row, _ in each_game])
    assert list(sink.array[:, RUNNING]) == [int((rounds >= r).sum())
                                            for r in range(sink.array.shape[0])]


def test_recording_changes_no_game_and_the_rows_read_as_means(config):
    with_sums = config.run_chunk(SEED, 0, 300, curves=CurveSink())
    assert with_sums.equals(config.run_chunk(SEED, 0, 300))
    sink = CurveSink()
    config.run_chunk(SEED, 0, 300, curves=sink)
    rows = curve_rows(resolve_game("peer-to-peer").curves, 4, sink.array)
    assert rows[0]["games"] == 300 and rows[0]["score_a"] == 0.0
    assert rows[0]["customer_deck"] == rows[0]["customer_deck_lo"]   # every game alike
    assert all(r["served_lo"] <= r["served"] <= r["served_hi"] for r in rows[1:]
               if r["games"] > 1)


def test_search_teams_record_no_curves():
    config = configure("peer-to-peer", 2, strategies={"A": "search:k=2,n=1,base=greedy"})
    sink = CurveSink()
    config.run_chunk(1, 0, 1, curves=sink)
    assert sink.array is None
