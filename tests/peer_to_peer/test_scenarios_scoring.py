"""Peer-to-Peer scoring scenarios, P2P-W1 .. P2P-W3 (rules: docs/rules/peer-to-peer.md)."""
import math

import numpy as np
import pytest

from sim.games.peer_to_peer import constants as k

from p2p_state import PASSIVE, Game, State, deck_with


pytestmark = pytest.mark.usefixtures("p2p_kernels")


def scored(a, b, **kw):
    return State(players=2, **kw).score("A", *a).score("B", *b).scoring()


# ---------------------------------------------------------------- W1

def test_W1_one_point_per_scored_card():
    """P2P-W1: 3 cards worth 9 beat 2 cards worth 26: points are cards, not values."""
    assert scored(["SV2", "TE3", "SC4"], ["SV13", "TE13"]) == "A"
    assert scored(["SV2"], ["IN1", "OPB"]) == "B"


def test_W1_cards_pushed_out_of_ventures_score():
    """P2P-W1 / R2d: a venture card pushed to the score pile is a point like any other."""
    s = State(players=2, strategies={"A": {"dest.venture": 5.0}}).seat(0, "SV10", "SC6", "IN10")
    s.score("B", "TE9")
    s.place("A", "SC12")          # overflow: SC6 leaves the seat for A's score pile
    assert s.ids("score A") == ["SC6"]
    s.score("A", "IN2")
    assert s.scoring() == "A"     # 2 cards (SC6, IN2) against 1


def test_W1_result_row_scores_are_score_pile_sizes():
    game = Game(players=4, strategies={"A": "builder", "B": "greedy"})
    rows, fates = game.run(100, seed=5)
    assert ((fates == k.FATE_SCORE_A).sum(axis=1) == rows["score_a"]).all()
    assert ((fates == k.FATE_SCORE_B).sum(axis=1) == rows["score_b"]).all()
    values = game.table.value.astype(np.int64)
    assert (((fates == k.FATE_SCORE_A) * values).sum(axis=1) == rows["value_a"]).all()
    decided = (rows["winner"] == k.WIN_A) | (rows["winner"] == k.WIN_B)
    more = rows["score_a"] != rows["score_b"]
    assert (rows["winner"][decided & more] == np.where(rows["score_a"] > rows["score_b"],
                                                         k.WIN_A, k.WIN_B)[decided & more]).all()


# ---------------------------------------------------------------- W2

def test_W2_tie_on_points_broken_by_value_sum():
    assert scored(["SV2", "TE3"], ["SC1", "IN1"]) == "A"           # 5 > 2
    assert scored(["SC1", "IN1"], ["SV2", "TE3"]) == "B"


def test_W2_then_service_count():
    """2 cards worth 8 each; A has 1 Service card, B none."""
    assert scored(["SV5", "IN3"], ["TE5", "SC3"]) == "A"


def test_W2_then_technology_count():
    """2 cards, 8 each, no Service; A has 1 Technology card, B none."""
    assert scored(["SC5", "SC3"], ["TE5", "IN3"]) == "B"


def test_W2_then_science_count():
    """2 cards, 8 each, no Service or Technology; A has 1 Science card, B none."""
    assert scored(["SC5", "IN3"], ["IN6", "IN2"]) == "A"


def test_W2_then_information_count():
    """2 cards, 8 each, no Service/Technology/Science; A has 1 Information card, B has only
    `any` cards, which rank below all four domains (C2)."""
    cards = deck_with("ANY8,Any 8,any,8,group,,")
    assert scored(["IN8", "OPA"], ["OPB", "ANY8"], cards=cards) == "A"


def test_W2_all_equal_is_a_draw():
    assert scored(["SV5", "TE3"], ["SV3", "TE5"]) == "draw"
    assert scored([], []) == "draw"


def test_W2_domain_counts_follow_domain_order():
    """P2P-C2 domain_order: with Technology ranked first, B's Technology card beats A's
    Service card in the same tie."""
    order = {"domain_order": ["Technology", "Service", "Science", "Information"]}
    assert scored(["SV5", "IN3"], ["TE5", "SC3"], rules=order) == "B"


# ---------------------------------------------------------------- W3 solo

def test_W3_solo_win_when_the_customer_deck_runs_out():
    """P2P-W3: a passive solo team with endless patience: 47 customers (54 - A's 5 S cards
    - the kept venture and the one set aside, P2P-S2; B's S cards are customers, P2P-S3),
    2 in the row at setup, 1 a round: the deck runs out after round 46 before any customer turns
    unhappy: solo_win with an empty score pile."""
    game = Game(players=1, rules={"customer_patience": 1000}, strategies={"A": PASSIVE})
    row, fates, _ = game.traced(seed=3)
    assert (k.WINNER_NAMES[row["winner"]], row["rounds"], row["score_a"]) == ("solo_win", 46, 0)


def test_W3_solo_all_lose_at_the_unhappy_limit():
    """P2P-W3 / R5: a passive solo team with default patience 2 loses: the 2 setup customers
    turn unhappy after round 2, then 1 a round: the 4th after round 4."""
    row, _, _ = Game(players=1, strategies={"A": PASSIVE}).traced(seed=3)
    assert (k.WINNER_NAMES[row["winner"]], row["rounds"], row["unhappy"]) == ("all_lose", 4, 4)


def test_W3_solo_results_on_real_games():
    """P2P-W3: every solo game ends solo_win (deck empty, fewer than 4 unhappy) or all_lose;
    its score is its scored cards; the one venture set aside at setup is out (fate 9;
    team B's S cards are customers, P2P-S3)."""
    for strategy in ("greedy", "cautious", "builder"):
        game = Game(players=1, strategies={"A": strategy})
        rows, fates = game.run(200, seed=8)
        assert set(rows["winner"].tolist()) <= {k.SOLO_WIN, k.ALL_LOSE}
        win = rows["winner"] == k.SOLO_WIN
        assert (rows["unhappy"][win] < 4).all() and (rows["unhappy"][~win] >= 4).all()
        assert ((fates[win] == k.FATE_CUSTOMER_DECK).sum(axis=1) == 0).all()
        assert ((fates == k.FATE_SCORE_A).sum(axis=1) == rows["score_a"]).all()
        assert ((fates == k.FATE_OUT).sum(axis=1) == 1).all()
    assert win.any()
