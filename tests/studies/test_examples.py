"""Example games of the answers (sim.studies.examples, the games' ``answer_examples``).

The queries are checked on hand-made tables whose right example is worked out by hand
from the columns' meaning; the search with its swap replays on a small real Peer-to-Peer
run (the kernels are in the shared numba cache).
"""
from __future__ import annotations

import dataclasses

import numpy as np
import polars as pl
import pytest

from sim import api
from sim.core.game import resolve_game
from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer import examples as p2p
from sim.games.plai import constants as pc
from sim.games.plai import examples as plai
from sim.studies import examples

P2P_COLUMNS = ("winner", "score_a", "score_b", "rounds", "first_marker", "contests",
               "contests_domain_won_a", "contests_domain_won_b", "contests_marker_won_a",
               "contests_marker_won_b", "unhappy", "unhappy_deck", "unhappy_draw",
               "unhappy_capacity", "unhappy_choice", "start_card_0", "start_card_1",
               "start_card_2", "start_card_3")
MANIFEST = {"players": 4, "seed": 1, "seat_teams": ["A", "B", "A", "B"],
            "cards": {"ids": ["SV1", "TE12", "SC3"], "names": ["Service 1", "Technology 12",
                                                              "Science 3"]}}


def p2p_games(*rows: dict) -> pl.LazyFrame:
    """Hand-made games: every column 0 (start cards -1) unless a row says otherwise."""
    base = {c: (-1 if c.startswith("start_card_") else 0) for c in P2P_COLUMNS}
    table = [{"game_index": i, **base, **row} for i, row in enumerate(rows)]
    return pl.DataFrame(table).lazy()


def chosen(query, games) -> list[int]:
    return examples.candidates(games, query, 10)["game_index"].to_list()


def test_team_balance_shows_domain_step_contests_of_the_favoured_team():
    games = p2p_games(
        {"winner": k.WIN_B, "contests_domain_won_b": 2},                 # 0
        {"winner": k.WIN_A, "contests_domain_won_a": 5},                 # 1: team A's
        {"winner": k.WIN_B, "contests_domain_won_b": 4, "contests_domain_won_a": 1},  # 2
        {"winner": k.WIN_B},                                             # 3: none on the step
        {"winner": k.WIN_A, "contests_domain_won_b": 6})                 # 4: B lost the game
    to_b = p2p.team_balance({"value": 0.46, "even": 0.5}, MANIFEST, games)
    to_a = p2p.team_balance({"value": 0.55, "even": 0.5}, MANIFEST, games)
    # the favoured team won the game and the most net contests on the domain step first
    assert chosen(to_b, games) == [2, 0]
    assert chosen(to_a, games) == [1]
    assert "team B won 4 of its contests on the domain step (team A: 1)" in to_b.describe(
        examples.candidates(games, to_b, 1).row(0, named=True), None)


def test_first_marker_candidates_are_games_the_marker_holder_won_ties_first():
    games = p2p_games(
        {"winner": k.WIN_A, "first_marker": 0, "contests_marker_won_a": 1},   # 0
        {"winner": k.WIN_B, "first_marker": 0, "contests_marker_won_a": 3},   # 1: holder lost
        {"winner": k.WIN_B, "first_marker": 1, "contests_marker_won_b": 2},   # 2
        {"winner": k.ALL_LOSE, "first_marker": 1},                            # 3
        {"winner": k.WIN_A, "first_marker": 0})                               # 4
    with_marker = p2p.first_marker({"value": 0.53, "even": 0.5}, MANIFEST, games)
    against = p2p.first_marker({"value": 0.47, "even": 0.5}, MANIFEST, games)
    assert with_marker.swap == "first_marker"
    assert chosen(with_marker, games) == [2, 0, 4]
    assert chosen(against, games) == [1]


def test_all_lose_examples_follow_the_main_cause():
    games = p2p_games(
        {"winner": k.WIN_A},
        {"winner": k.ALL_LOSE, "unhappy": 3, "unhappy_deck": 1, "unhappy_draw": 2},
        {"winner": k.ALL_LOSE, "unhappy": 4, "unhappy_draw": 1, "unhappy_deck": 3},
        {"winner": k.ALL_LOSE, "unhappy": 2, "unhappy_draw": 2})
    assert chosen(p2p.all_lose({}, MANIFEST, games), games) == [1, 2, 3]
    answer = {"causes": [{"cause": "deck", "share": 0.3}, {"cause": "draw", "share": 0.6}]}
    draw = p2p.why_all_lose(answer, MANIFEST, games)
    assert chosen(draw, games) == [1, 3, 2]
    assert "2 of its 3 unhappy customers (deck 1, draw 2) were of the main cause, 'draw'" in \
        draw.describe(examples.candidates(games, draw, 1).row(0, named=True), None)
    assert p2p.why_all_lose({"causes": []}, MANIFEST, games) is None


def test_card_strength_finds_the_card_on_the_winning_teams_seat():
    card = MANIFEST["cards"]["ids"].index("TE12")
    games = p2p_games(
        {"winner": k.WIN_A, "start_card_1": card},       # seat 1 is team B's: it lost
        {"winner": k.WIN_B, "start_card_1": card},       # team B won with it
        {"winner": k.WIN_A, "start_card_2": card},       # seat 2 is team A's: it won
        {"winner": k.WIN_A, "start_card_0": 0})
    answer = {"value": 0.39, "even": 0.0, "causes": [{"cause": "card:TE12", "share": 0.39}]}
    query = p2p.card_strength(answer, MANIFEST, games)
    assert chosen(query, games) == [1, 2]
    assert chosen(p2p.card_strength({**answer, "value": -0.2}, MANIFEST, games), games) == [0]
    words = query.describe(examples.candidates(games, query, 1).row(0, named=True), None)
    assert words.startswith("Technology 12 was a starting venture of seat 1 (team B)")
    assert p2p.card_strength({**answer, "causes": [{"cause": "card:XX"}]}, MANIFEST,
                             games) is None


def test_plai_seat_balance_reads_the_furthest_seat_from_the_games():
    won = pc.OUT_SEAT
    rows = [(won, 1)] * 6 + [(won, 0)] * 2 + [(won, 2)] * 2 + [(pc.OUT_MAINTAINERS, -1)]
    games = pl.DataFrame({"game_index": np.arange(len(rows)),
                          "outcome": [o for o, _ in rows], "winner": [w for _, w in rows],
                          "first_seat": 0, "turns": 30}).lazy()
    manifest = {"players": 3, "seed": 1}
    query = plai.seat_balance({"value": 0.27, "even": 0.0}, manifest, games)
    assert query.shows == "a game won by seat 1"      # 6 of 10: furthest from 1/3
    assert chosen(query, games)[:3] == [0, 1, 2]
    assert chosen(plai.maintainers({}, manifest, games), games) == [10]
    first = plai.first_player({"value": -0.1, "even": 0.0}, manifest, games)
    assert first.swap == "turn_order" and chosen(first, games)[:2] == [0, 1]  # seat 0 lost


@pytest.fixture(scope="module")
def p2p_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("examples") / "run"
    api.run(game="peer-to-peer", players=4, games=3000, seed=5, out=str(out))
    return out


def test_find_example_replays_the_marker_swap_and_keeps_a_game_it_decided(p2p_run):
    table = api.load(p2p_run).collect().sort("game_index")
    found = examples.find_example(p2p_run, {"question": "first_marker", "value": 0.52,
                                            "even": 0.5})
    assert found is not None and found.game_index is not None, found
    row = table.row(found.game_index, named=True)
    holder = "AB"[row["first_marker"]]
    assert row["winner"] == row["first_marker"]               # the holder won it
    assert f"team {holder} held the first marker" in found.words
    # replayed with the marker given to the other team, that game ends otherwise, and every
    # better candidate before it did not
    config = api.configure("peer-to-peer", 4)
    swap = next(s for s in resolve_game("peer-to-peer").swaps if s.cause == "first_marker")
    swapped = swap.variants(config)[0][1]
    assert swapped.run_chunk(5, found.game_index, 1)["winner"][0] != row["winner"]
    query = p2p.first_marker({"value": 0.52, "even": 0.5}, {}, table.lazy())
    before = examples.candidates(table.lazy(), query, found.replayed)["game_index"].to_list()
    assert before[-1] == found.game_index and len(before) == found.replayed
    assert [swapped.run_chunk(5, i, 1)["winner"][0] for i in before[:-1]] == \
        [table["winner"][i] for i in before[:-1]]


def test_find_example_without_a_deciding_swap_or_a_game_says_so(p2p_run, monkeypatch):
    game = resolve_game("peer-to-peer")
    swap = next(s for s in game.swaps if s.cause == "first_marker")
    unchanged = dataclasses.replace(swap, variants=lambda config: [("nothing", config)])
    edited = dataclasses.replace(game, swaps=(unchanged,))
    monkeypatch.setattr(examples, "resolve_game", lambda name: edited)
    monkeypatch.setattr(examples, "CANDIDATES", 5)
    found = examples.find_example(p2p_run, {"question": "first_marker", "value": 0.5,
                                            "even": 0.5})
    assert found.game_index is None and found.replayed == 5
    assert "ends differently with nothing" in found.words
    none = examples.find_example(p2p_run, {"question": "team_balance", "value": 0.5,
                                           "even": 0.5})
    assert none.game_index is not None
    assert examples.find_example(p2p_run, {"question": "skill"}) is None


def test_a_run_the_simulator_no_longer_plays_as_stored_gives_no_example(p2p_run, tmp_path,
                                                                         monkeypatch):
    from sim.games.peer_to_peer.game import PeerToPeerConfig

    real = PeerToPeerConfig.run_chunk

    def changed(self, seed, start, count, threads=1):
        games = real(self, seed, start, count, threads)
        return games.with_columns((pl.col("score_a") + 1).alias("score_a"))

    monkeypatch.setattr(PeerToPeerConfig, "run_chunk", changed)
    found = examples.find_example(p2p_run, {"question": "first_marker", "value": 0.52,
                                            "even": 0.5})
    assert found.game_index is None and "no longer plays as stored" in found.words
