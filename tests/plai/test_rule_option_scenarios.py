"""The rule options regional_attacker, venture_attackers, pool_excess and maintainer_attack,
each value by a scenario from a hand-made state worked out from docs/rules/plai.md
(PLAI-T1, PLAI-T7, PLAI-D6), and how options reach the manifest."""
from __future__ import annotations

import numpy as np
import pytest

from sim import api
from sim.games.plai import constants as c
from sim.games.plai import decide_kernel as dk
from sim.games.plai import engine_kernel as ek
from sim.games.plai.rules import OPTIONS
from plai_state import CARDS, State, rules, weights

HATE_ATTACK = {"attack.real": -100.0, "attack.bluff": -100.0}
LOVE_ATTACK = {"attack.real": 100.0}
READING_OPTIONS = {"regional_attacker": ("next_startup", "next_player"),
               "venture_attackers": ("first", "joint"),
               "pool_excess": ("choose", "newest"),
               "maintainer_attack": (False, True)}


def funding(s, action, seat, w, **rule_overrides):
    ek.funding(action, seat, w, dk.pick_table(w, CARDS), s.rng, CARDS,
               rules(s.players, **rule_overrides), s.piles, s.pile_n, s.bankrupt, s.st,
               s.trace, s.scratch)


def turn(s, seat, w, **rule_overrides):
    ek.take_turn(seat, w, dk.pick_table(w, CARDS), s.rng, CARDS,
                 rules(s.players, **rule_overrides), s.piles, s.pile_n, s.bankrupt, s.st,
                 s.trace, s.scratch, s.startups())
    return ek.end_of_turn(rules(s.players, **rule_overrides), s.piles, s.pile_n, s.bankrupt,
                          s.st, s.trace, s.total(), s.startups())


def test_the_defaults_are_the_rules_files():
    defaults = OPTIONS.defaults()
    assert {k: defaults[k] for k in READING_OPTIONS} == {
        k: v[0] for k, v in READING_OPTIONS.items()}
    for key, values in READING_OPTIONS.items():
        assert OPTIONS.options[key].rule_id.startswith("PLAI-T")
        for value in values:
            assert OPTIONS.resolve(None, (f"{key}={str(value).lower()}",))[key] == value


# ---------------------------------------------------------------- regional_attacker (T1)
def _regional(bankrupt_next, next_attacks, **option):
    w = weights(3, per_seat={1: LOVE_ATTACK if next_attacks else HATE_ATTACK,
                             2: LOVE_ATTACK})
    hands = {0: ["Chatbot"], 2: ["Vendor Lock-in"]}
    if not bankrupt_next:
        hands[1] = ["Vendor Lock-in"]
    s = State(3, hands=hands, bankrupt=[1] if bankrupt_next else [],
              deck=["Tech Debt", "Synergy", "Blockchain"])
    funding(s, c.ACT_REGIONAL, 0, w, **option)
    return s


def test_regional_attacker_next_startup_skips_a_bankrupt_next_seat():
    s = _regional(bankrupt_next=True, next_attacks=False)
    assert s.st[c.S_REGIONAL_ATTACKED] == 1 and s.hand(2) == ["Blockchain", "Synergy"]
    s = _regional(bankrupt_next=False, next_attacks=False)   # the next startup declines
    assert s.st[c.S_REGIONAL_ATTACKED] == 0 and len(s.hand(0)) == 3


def test_regional_attacker_next_player_only_the_next_seat_and_not_if_bankrupt():
    s = _regional(bankrupt_next=True, next_attacks=False, regional_attacker="next_player")
    assert s.st[c.S_REGIONAL_ATTACKED] == 0                  # nobody may attack
    assert s.hand(0) == ["Blockchain", "Chatbot", "Synergy"] and s.hand(2) == ["Vendor Lock-in"]
    s = _regional(bankrupt_next=False, next_attacks=True, regional_attacker="next_player")
    assert s.st[c.S_REGIONAL_ATTACKED] == 1 and s.st[c.S_REGIONAL_ATTACK_WON] == 1
    assert s.hand(1) == ["Blockchain", "Synergy"]


def test_regional_attacker_next_player_tells_d1_nobody_can_attack():
    # act.attackers: a regional pitch with a bankrupt next seat is as safe as family funding
    w = weights(3, **{"act.attackers": -10.0, "act.regional": 1.3, "act.family": 1.0,
                      "act.venture": -50.0})[0]
    s = State(3, hands={0: ["Chatbot"] * 3, 2: ["Tech Debt"]}, bankrupt=[1])
    for option, expected in (("next_startup", c.ACT_FAMILY), ("next_player", c.ACT_REGIONAL)):
        action, _, _ = dk.choose_action(w, s.rng, CARDS, rules(3, regional_attacker=option),
                                        s.piles, s.pile_n, s.bankrupt, 0)
        assert action == expected


# ---------------------------------------------------------------- venture_attackers (T1)
def _venture(hands, per_seat, **option):
    w = weights(4, per_seat=per_seat)
    s = State(4, hands=hands, deck=["Synergy", "Blockchain", "Pandas and Scikit Learn"],
              trace_rows=100)
    funding(s, c.ACT_VENTURE, 0, w, **option)
    return s


JOINT_HANDS = {0: ["Chatbot"], 1: ["Vendor Lock-in"], 2: ["Tech Debt"], 3: ["Scope Creep"]}
JOINT_SEATS = {0: {"defend.real": 100.0}, 1: HATE_ATTACK, 2: LOVE_ATTACK, 3: LOVE_ATTACK}


def test_venture_attackers_first_only_the_first_that_chooses():
    s = _venture(JOINT_HANDS, JOINT_SEATS)
    # Seat 2 alone: Tech Debt 1 against Chatbot 1, the tie goes to the defender.
    assert s.st[c.S_VENTURE_ATTACKED] == 1 and s.st[c.S_VENTURE_ATTACK_WON] == 0
    assert s.hand(3) == ["Scope Creep"] and s.hand(2) == []
    assert s.hand(0) == ["Blockchain", "Pandas and Scikit Learn", "Synergy"]


def test_venture_attackers_joint_one_side_and_the_cards_dealt_in_turn_order():
    s = _venture(JOINT_HANDS, JOINT_SEATS, venture_attackers="joint")
    # Seats 2 and 3 attack together: 1 + 2 = 3 against 1.
    assert s.st[c.S_VENTURE_ATTACKED] == 1 and s.st[c.S_VENTURE_ATTACK_WON] == 1
    assert s.names(c.P_DISCARD) == ["Chatbot", "Scope Creep", "Tech Debt"]
    # The drawn cards, top first (Synergy was drawn last), one at a time from the seat
    # after the funder: seat 2 Synergy, seat 3 Blockchain, seat 2 Pandas and Scikit Learn.
    assert s.hand(2) == ["Pandas and Scikit Learn", "Synergy"]
    assert s.hand(3) == ["Blockchain"] and s.hand(1) == ["Vendor Lock-in"]
    assert s.hand(0) == []
    deals = s.trace[s.trace[:, c.TR_CODE] == c.EV_DEAL, c.TR_A]
    assert list(deals) == [2, 3, 2]


def test_venture_attackers_joint_side_is_real_if_any_attackers_cards_are():
    # Seat 2 bluffs with Synergy alone; seat 3 joins with a real Tech Debt: 1 + 1 = 2
    # beats Chatbot's 1 and the side is real, so no bluff is called.
    hands = {0: ["Chatbot"], 1: ["Vendor Lock-in"], 2: ["Synergy"], 3: ["Tech Debt"]}
    seats = {0: {"defend.real": 100.0}, 1: HATE_ATTACK,
             2: {"attack.bluff": 100.0, "attack.real": -100.0}, 3: LOVE_ATTACK}
    s = _venture(hands, seats, venture_attackers="joint")
    assert s.st[c.S_VENTURE_ATTACK_WON] == 1 and s.st[c.S_BLUFFS_CALLED] == 0
    s = _venture(hands, seats)   # first: seat 2's bluff alone is called
    assert s.st[c.S_VENTURE_ATTACK_WON] == 0 and s.st[c.S_BLUFFS_CALLED] == 1


# ---------------------------------------------------------------- pool_excess (T7, D6)
KEEP_STRONG = {"keep.strength": 1.0, "keep.adversary": 1.0}   # a strategy that keeps them


def _full_pool(**option):
    s = State(3, hands={0: ["Synergy"], 1: ["Chatbot"]}, bankrupt=[2],
              pool=["Tech Debt"] * 3 + ["Daily Standups"] * 3, deck=["Vendor Lock-in"],
              trace_rows=50)
    w = weights(3, **KEEP_STRONG)
    turn(s, 2, w, **option)
    assert s.st[c.S_MAINT_FAMILY] == 1 and s.pile_n[c.P_POOL] == 6
    return s


def test_pool_excess_newest_discards_what_just_arrived():
    s = _full_pool(pool_excess="newest")
    assert s.names(c.P_POOL) == ["Daily Standups"] * 3 + ["Tech Debt"] * 3
    assert s.names(c.P_DISCARD) == ["Vendor Lock-in"]


def test_pool_excess_choose_keeps_the_cards_the_maintainers_score_highest():
    s = _full_pool()
    # D6 keep by the maintainers' weights: Vendor Lock-in (adversary 4) outscores a Tech
    # Debt (adversary 1).
    assert s.names(c.P_POOL) == ["Daily Standups"] * 3 + ["Tech Debt"] * 2 + ["Vendor Lock-in"]
    assert s.names(c.P_DISCARD) == ["Tech Debt"]
    # Equal scores (the default weights score both 0): the newest goes, as under `newest`.
    s = State(3, hands={0: ["Synergy"], 1: ["Chatbot"]}, bankrupt=[2],
              pool=["Tech Debt"] * 6, deck=["Vendor Lock-in"])
    turn(s, 2, weights(3))
    assert s.names(c.P_POOL) == ["Tech Debt"] * 6 and s.names(c.P_DISCARD) == ["Vendor Lock-in"]


def test_pool_excess_choose_with_the_random_strategy_keeps_a_random_card():
    discarded = set()
    for seed in range(30):
        s = State(3, hands={0: ["Synergy"], 1: ["Chatbot"]}, bankrupt=[2],
                  pool=["Tech Debt", "Synergy", "Chatbot", "Blockchain", "Scope Creep",
                        "Discrimination"], deck=["Vendor Lock-in"]).seed(seed)
        w = weights(3, per_seat={2: {"act.pass": -100.0, "act.special": -100.0,
                                     "noise": 1.0}})
        turn(s, 2, w)
        assert s.pile_n[c.P_POOL] == 6 and s.pile_n[c.P_DISCARD] == 1
        discarded.add(s.names(c.P_DISCARD)[0])
    assert len(discarded) >= 5


def test_pool_excess_choose_keeps_an_action_special():
    s = State(3, hands={0: ["Synergy"], 1: ["Chatbot"]}, bankrupt=[2],
              pool=["Vendor Lock-in"] * 6, deck=["Layoffs"])
    w = weights(3, **{"act.special": -100.0})   # keep it, do not play it this turn
    turn(s, 2, w)
    assert "Layoffs" in s.names(c.P_POOL) and s.names(c.P_DISCARD) == ["Vendor Lock-in"]
    s = State(3, hands={0: ["Synergy"], 1: ["Chatbot"]}, bankrupt=[2],
              pool=["Vendor Lock-in"] * 6, deck=["Layoffs"])
    turn(s, 2, w, pool_excess="newest")
    assert s.names(c.P_DISCARD) == ["Layoffs"]


# ---------------------------------------------------------------- maintainer_attack (T7)
CHALLENGE_W = {"act.takeover": 100.0}


def _challenge(pool, hand, **option):
    s = State(3, hands={0: ["Synergy"] * 5, 1: hand}, bankrupt=[2], pool=pool,
              trace_rows=100)
    w = weights(3, per_seat={2: CHALLENGE_W, 1: {"defend.real": 100.0}})
    left = turn(s, 2, w, **option)
    return s, left


def test_maintainer_attack_false_maintainers_never_challenge():
    s, left = _challenge(["Vendor Lock-in", "Daily Standups"], ["Chatbot"])
    assert s.st[c.S_TAKEOVERS] == 0 and s.st[c.S_MAINT_ATTACKS] == 0 and left == 2
    s = State(3, hands={0: ["Synergy"] * 5, 1: ["Chatbot"]}, bankrupt=[2],
              pool=["Vendor Lock-in"])
    action, _, _ = dk.choose_action(weights(3, **CHALLENGE_W)[2], s.rng, CARDS, rules(3),
                                    s.piles, s.pile_n, s.bankrupt, 2)
    assert action != c.ACT_TAKEOVER


def test_maintainer_attack_true_a_won_challenge_moves_the_hand_into_the_pool():
    # Seat 2 (a maintainer) challenges the startup with the smaller hand (target.hand < 0).
    s = State(3, hands={0: ["Synergy"] * 5, 1: ["Chatbot", "Tech Debt"]}, bankrupt=[2],
              pool=["Vendor Lock-in", "Daily Standups"], trace_rows=100)
    w = weights(3, per_seat={2: {"act.takeover": 100.0, "target.hand": -1.0,
                                 "target.leader": 0.0},
                             1: {"defend.real": 100.0}})
    left = turn(s, 2, w, maintainer_attack=True)
    # Vendor Lock-in 4 + Daily Standups 3 (up to 4 pool cards) against Chatbot 1.
    assert s.st[c.S_TAKEOVERS] == 1 and s.st[c.S_TAKEOVERS_WON] == 1
    assert s.st[c.S_MAINT_ATTACKS] == 1 and s.st[c.S_MAINT_ATTACKS_WON] == 1
    assert s.st[c.S_HELP_CARDS] == 0                         # no help on top of the pool
    assert s.names(c.P_POOL) == ["Tech Debt"]                # the startup's remaining hand
    assert s.names(c.P_DISCARD) == ["Chatbot", "Daily Standups", "Vendor Lock-in"]
    assert s.hand(1) == [] and s.bankrupt[1] >= 0 and left == 1   # seat 0 wins (T6)


def test_maintainer_attack_true_a_lost_challenge_gives_the_pool_away():
    s = State(3, hands={0: ["Synergy"] * 5, 1: ["Fraud Detection", "Chatbot"]}, bankrupt=[2],
              pool=["Tech Debt", "Blockchain", "Open Source License"], trace_rows=100)
    w = weights(3, per_seat={2: {"act.takeover": 100.0, "target.hand": -1.0,
                                 "target.leader": 0.0, "pick.stop": -100.0},
                             1: {"defend.real": 100.0, "pick.stop": 100.0}})
    turn(s, 2, w, maintainer_attack=True)
    # Tech Debt 1 + Blockchain 2 = 3 against Fraud Detection 4: the startup wins and takes
    # the pool's remaining card (as a failed takeover gives the challenger's hand).
    assert s.st[c.S_MAINT_ATTACKS] == 1 and s.st[c.S_MAINT_ATTACKS_WON] == 0
    assert s.pile_n[c.P_POOL] == 0
    assert s.hand(1) == ["Chatbot", "Open Source License"]


# ---------------------------------------------------------------- manifest and games
def test_options_flow_into_the_manifest(tmp_path):
    overrides = ("regional_attacker=next_player", "venture_attackers=joint",
                 "pool_excess=newest", "maintainer_attack=true")
    config = api.configure(game="plai", players=4, rule_overrides=overrides)
    assert {k: config.manifest()["rules"][k] for k in READING_OPTIONS} == {
        "regional_attacker": "next_player", "venture_attackers": "joint",
        "pool_excess": "newest", "maintainer_attack": True}
    result = api.run(game="plai", players=3, games=50, rule_overrides=overrides,
                     out=str(tmp_path / "run"), threads=1, progress=False)
    assert result.manifest["rules"]["venture_attackers"] == "joint"
    assert api.configure(game="plai", players=4).manifest()["rules"]["pool_excess"] == "choose"


@pytest.mark.parametrize("override, strategy", [
    ("regional_attacker=next_player", "weighted"), ("venture_attackers=joint", "aggressive"),
    ("pool_excess=newest", "weighted"), ("maintainer_attack=true", "weighted")])
def test_each_other_value_changes_games_only_when_set(override, strategy):
    # aggressive for `joint`: venture capital with every rival able to attack (the default
    # strategy takes it mostly when one rival is left, where `joint` changes nothing: 0 of
    # 400 four-player games differ).
    key, value = override.split("=")
    seats = {"all": strategy}
    default = api.configure(game="plai", players=4, strategies=seats).play(3, 0, 400)
    explicit = api.configure(game="plai", players=4, strategies=seats,
                             rule_overrides=(f"{key}={str(READING_OPTIONS[key][0]).lower()}",)
                             ).play(3, 0, 400)
    assert np.array_equal(default, explicit)            # the default, spelled out
    other = api.configure(game="plai", players=4, strategies=seats,
                          rule_overrides=(override,)).play(3, 0, 400)
    assert not np.array_equal(default, other)
    if key == "maintainer_attack":
        assert other["maintainer_attacks"].sum() > 0 and default["maintainer_attacks"].sum() == 0
