"""D1 features that let a strategy see a takeover coming and the turn cap:
act.threshold_gap, takeover.turns_left, takeover.last_rival, takeover.edge. They have
weight 0 in every shipped strategy (so no game changes until one is tuned), and each one,
given a weight, moves the decision the way its definition says."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from sim import api
from sim.games.plai import constants as c
from sim.games.plai import decide_kernel as dk
from sim.games.plai.features import DEFAULT_WEIGHTS, FEATURE_NAMES
from sim.core.strategy import registry
from plai_state import CARDS, State, rules, weights

NEW = ("act.threshold_gap", "takeover.turns_left", "takeover.last_rival", "takeover.edge")


def is_tuned(strategy) -> bool:
    """A strategy that plays a shipped file (expert.yaml, expert-v1.yaml: tuned, they weigh
    the features on purpose; their module holds FILE), or search (its base's weights)."""
    return strategy.search or hasattr(sys.modules[strategy.weights.__module__], "FILE")


def test_the_takeover_features_weigh_nothing_in_every_hand_written_strategy():
    for name in NEW:
        assert DEFAULT_WEIGHTS[FEATURE_NAMES.index(name)] == 0.0
    strategies = registry("plai").values()
    assert {s.name for s in strategies if is_tuned(s)} >= {"expert", "expert-v1", "search"}
    hand_written = [s for s in strategies if not is_tuned(s)]
    assert len(hand_written) >= 5
    for strategy in hand_written:
        vector = strategy.vector(FEATURE_NAMES, DEFAULT_WEIGHTS, {})
        assert all(vector[FEATURE_NAMES.index(name)] == 0.0 for name in NEW), strategy.name


def test_zero_weights_keep_games_and_a_weight_changes_them():
    plain = api.configure(game="plai", players=4, strategies={"all": "weighted"}).play(5, 0, 300)
    zero = api.configure(game="plai", players=4, strategies={
        "all": "weighted:" + ",".join(f"{n}=0" for n in NEW)}).play(5, 0, 300)
    assert np.array_equal(plain, zero)
    tuned = api.configure(game="plai", players=4, strategies={
        "all": "weighted:takeover.last_rival=5"}).play(5, 0, 300)
    assert not np.array_equal(plain, tuned)
    assert tuned["takeovers"].sum() > plain["takeovers"].sum()


def _action(w, players, hands, turn=1, bankrupt=(), **overrides):
    s = State(players, hands=hands, bankrupt=bankrupt)
    return dk.choose_action(w, s.rng, CARDS, rules(players, **overrides), s.piles, s.pile_n,
                            s.bankrupt, 0, turn)


def test_takeover_turns_left_sees_the_cap():
    # takeover: 10 - 0.1 * turns left; the funding options score about 1.
    w = weights(2, **{"act.takeover": 10.0, "takeover.turns_left": -0.1})[0]
    hands = {0: ["Vendor Lock-in"] * 9, 1: ["Chatbot"]}
    assert _action(w, 2, hands, turn=100)[0] != c.ACT_TAKEOVER      # 300 left: -20
    assert _action(w, 2, hands, turn=395) == (c.ACT_TAKEOVER, -1, 1)  # 5 left: 9.5
    assert _action(w, 2, hands, turn=395, max_turns=1000)[0] != c.ACT_TAKEOVER


def test_takeover_last_rival_sees_that_a_win_ends_the_game():
    w = weights(3, **{"act.takeover": -5.0, "takeover.last_rival": 10.0,
                      "act.attack_power": 0.0})[0]
    hands = {0: ["Vendor Lock-in"] * 9, 1: ["Chatbot"], 2: ["Chatbot"]}
    assert _action(w, 3, hands)[0] != c.ACT_TAKEOVER
    assert _action(w, 3, hands, bankrupt=(2,)) == (c.ACT_TAKEOVER, -1, 1)


def test_takeover_edge_prefers_the_target_my_attack_outweighs():
    # edge = my best attack power (16) minus the target's hand size; target.hand off.
    w = weights(3, **{"act.takeover": 0.0, "takeover.edge": 1.0, "target.hand": 0.0,
                      "target.leader": 0.0})[0]
    hands = {0: ["Vendor Lock-in"] * 9, 1: ["Chatbot"] * 8, 2: ["Chatbot"] * 2}
    assert _action(w, 3, hands) == (c.ACT_TAKEOVER, -1, 2)
    w[FEATURE_NAMES.index("takeover.edge")] = -1.0
    assert _action(w, 3, hands)[0] != c.ACT_TAKEOVER


def test_act_threshold_gap_counts_the_cards_missing_after_each_funding():
    # 6 cards, threshold 9: family leaves 2 missing, regional 1, venture 0.
    w = weights(2, **{"act.family": 0.0, "act.regional": 0.0, "act.venture": 0.0,
                      "act.attackers": 0.0, "act.defense_power": 0.0,
                      "act.threshold_gap": -1.0})[0]
    hands = {0: ["Tech Debt"] * 6, 1: ["Chatbot"]}
    assert _action(w, 2, hands)[0] == c.ACT_VENTURE
    w[FEATURE_NAMES.index("act.threshold_gap")] = 1.0
    assert _action(w, 2, hands)[0] == c.ACT_FAMILY
    # 8 cards: every funding reaches the threshold, the gap is 0 for all: the first wins.
    assert _action(w, 2, {0: ["Tech Debt"] * 8, 1: ["Chatbot"]})[0] == c.ACT_FAMILY
    w[FEATURE_NAMES.index("act.family")] = -1.0
    assert _action(w, 2, {0: ["Tech Debt"] * 8, 1: ["Chatbot"]})[0] == c.ACT_REGIONAL
