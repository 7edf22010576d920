"""act.attacked_share (PLAI-D1): of a startup's regional pitches and venture capitals so
far this game that a rival could attack, the share attacked, as attacked / (fundings + 1).
The engine counts them per funder (PLAI-T1, T2), the feature moves D1 the way its
definition says, and with weight 0 (every shipped strategy) it changes no game."""
from __future__ import annotations

import sys

import numpy as np
import pytest

from sim import api
from sim.games.plai import constants as c
from sim.games.plai import decide_kernel as dk
from sim.games.plai import engine_kernel as ek
from sim.games.plai.features import DEFAULT_WEIGHTS, FEATURE_NAMES
from sim.core.strategy import registry
from plai_state import CARDS, State, rules, weights

HATE_ATTACK = {"attack.real": -100.0, "attack.bluff": -100.0}
LOVE_ATTACK = {"attack.real": 100.0}


def _fund(s, action, seat, w, **rule_overrides):
    ek.funding(action, seat, w, dk.pick_table(w, CARDS), s.rng, CARDS,
               rules(s.players, **rule_overrides), s.piles, s.pile_n, s.bankrupt, s.st,
               s.trace, s.scratch)


def _counts(s, seat):
    return s.st[c.S_SEAT_FUNDED + seat], s.st[c.S_SEAT_ATTACKED + seat]


def _state():
    return State(3, hands={0: ["Chatbot"], 1: ["Vendor Lock-in"], 2: ["Vendor Lock-in"]},
                 deck=["Tech Debt", "Synergy", "Blockchain", "Chatbot", "Synergy"])


def test_the_engine_counts_each_funders_attackable_fundings_and_the_attacked_ones():
    # seat 1 attacks whatever it may (it holds an adversary), seat 2 never does
    w = weights(3, per_seat={0: HATE_ATTACK, 1: LOVE_ATTACK, 2: HATE_ATTACK})
    s = _state()
    _fund(s, c.ACT_REGIONAL, 0, w)          # seat 1, next, attacks (PLAI-T1)
    assert _counts(s, 0) == (1, 1) and _counts(s, 1) == (0, 0)
    s = _state()
    _fund(s, c.ACT_REGIONAL, 1, w)          # seat 2, next, declines
    assert _counts(s, 1) == (1, 0)
    _fund(s, c.ACT_FAMILY, 1, w)            # nobody can attack family funding
    assert _counts(s, 1) == (1, 0)
    s = _state()
    _fund(s, c.ACT_VENTURE, 2, w)           # anyone: seat 0 declines, seat 1 attacks
    assert _counts(s, 2) == (1, 1)


def test_a_regional_pitch_nobody_may_attack_is_not_counted():
    w = weights(3, per_seat={1: LOVE_ATTACK, 2: LOVE_ATTACK})
    s = State(3, hands={0: ["Chatbot"], 2: ["Vendor Lock-in"]}, bankrupt=[1],
              deck=["Tech Debt", "Synergy", "Blockchain"])
    _fund(s, c.ACT_REGIONAL, 0, w, regional_attacker="next_player")   # next seat bankrupt
    assert _counts(s, 0) == (0, 0)


@pytest.mark.parametrize("funded, attacked, chosen", [
    (0, 0, c.ACT_REGIONAL),     # share 0: regional 3 - 0 beats family 2
    (1, 0, c.ACT_REGIONAL),     # 0 / 2
    (1, 1, c.ACT_FAMILY),       # 1 / 2: regional 3 - 4 * 0.5 = 1 < family 2
    (3, 1, c.ACT_FAMILY),       # 1 / 4: 3 - 1 = 2 ties family 2, listed first
    (4, 1, c.ACT_REGIONAL),     # 1 / 5: 3 - 0.8 = 2.2
])
def test_the_share_moves_d1_between_family_and_a_regional_pitch(funded, attacked, chosen):
    w = weights(2, **{"act.family": 2.0, "act.regional": 3.0, "act.venture": -50.0,
                      "act.special": -50.0, "act.takeover": -50.0, "act.attackers": 0.0,
                      "act.defense_power": 0.0, "act.attacked_share": -4.0})[0]
    s = State(2, hands={0: ["Chatbot"], 1: ["Chatbot"]})
    action, _, _ = dk.choose_action(w, s.rng, CARDS, rules(2), s.piles, s.pile_n, s.bankrupt,
                                    0, 1, funded, attacked)
    assert action == chosen


def test_the_share_weighs_nothing_in_every_hand_written_strategy_and_zero_keeps_games():
    index = FEATURE_NAMES.index("act.attacked_share")
    assert DEFAULT_WEIGHTS[index] == 0.0
    for strategy in registry("plai").values():
        if strategy.search or hasattr(sys.modules[strategy.weights.__module__], "FILE"):
            continue     # search plays its base; expert and expert-v1 are tuned files
        vector = strategy.vector(FEATURE_NAMES, DEFAULT_WEIGHTS, {})
        assert vector[index] == 0.0, strategy.name
    plain = api.configure(game="plai", players=3, strategies={"all": "weighted"}).play(5, 0, 300)
    zero = api.configure(game="plai", players=3, strategies={
        "all": "weighted:act.attacked_share=0"}).play(5, 0, 300)
    assert np.array_equal(plain, zero)
    weighed = api.configure(game="plai", players=3, strategies={
        "all": "weighted:act.attacked_share=-20"}).play(5, 0, 300)
    assert not np.array_equal(plain, weighed)
    assert weighed["fund_venture"].sum() < plain["fund_venture"].sum()
