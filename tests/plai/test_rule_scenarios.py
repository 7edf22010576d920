"""PLAI scenario tests from hand-made states, one or more per rule id (PLAI-S, T, F, D).

Each test builds the piles by hand (plai_state.State), calls one engine kernel and
checks the outcome worked out from docs/rules/plai.md.
"""
from __future__ import annotations

import numpy as np
import pytest

from sim.games.plai import constants as c
from sim.games.plai import decide_kernel as dk
from sim.games.plai import engine_kernel as ek
from sim.games.plai import piles_kernel as pk
from sim.games.plai.features import FEATURE_NAMES
from plai_state import CARDS, TABLE, State, card, rules, weights

HATE_ATTACK = {"attack.real": -100.0, "attack.bluff": -100.0}
LOVE_ATTACK = {"attack.real": 100.0}


@pytest.fixture(scope="module", autouse=True)
def warm_kernels():
    """Load (or compile) each kernel used here once per module."""
    s = State(2, hands={0: ["Synergy"], 1: ["Chatbot"]}, deck=["Tech Debt"] * 4)
    w = weights(2)
    ek.funding(c.ACT_FAMILY, 0, w, dk.pick_table(w, CARDS), s.rng, CARDS, rules(2), s.piles,
               s.pile_n, s.bankrupt, s.st, s.trace, s.scratch)
    ek.play_special(0, card("Layoffs"), 1, w, s.rng, CARDS, rules(2), s.piles, s.pile_n,
                    s.bankrupt, s.st, s.trace)


def funding(s, action, seat, w, **rule_overrides):
    ek.funding(action, seat, w, dk.pick_table(w, CARDS), s.rng, CARDS,
               rules(s.players, **rule_overrides), s.piles, s.pile_n, s.bankrupt, s.st, s.trace,
               s.scratch)


def fight(s, kind, attacker, defender, mode, w, **rule_overrides):
    return ek.fight(kind, attacker, defender, mode, w, dk.pick_table(w, CARDS), s.rng, CARDS,
                    rules(s.players, **rule_overrides), s.piles, s.pile_n, s.bankrupt, s.st,
                    s.trace, s.scratch)


# ---------------------------------------------------------------- PLAI-S2 setup
@pytest.mark.parametrize("players", [2, 3, 5])
def test_s2_setup_deals_no_market_event_and_keeps_every_card(players):
    deck = TABLE.deck_for(players)
    for seed in range(30):
        s = State(players, size=len(deck)).seed(seed)
        first = ek.setup(deck, CARDS, rules(players), s.rng, s.piles, s.pile_n)
        assert first == 0                                    # PLAI-S1 default
        for seat in range(players):
            hand = s.piles[c.P_HAND0 + seat, :s.pile_n[c.P_HAND0 + seat]]
            assert len(hand) == 6
            assert not (CARDS[c.CD_TYPE, hand] == c.MARKET_EVENT).any()
        assert s.total() == len(deck)
        in_deck = s.piles[c.P_DECK, :s.pile_n[c.P_DECK]]
        assert (CARDS[c.CD_TYPE, in_deck] == c.MARKET_EVENT).sum() == \
            (CARDS[c.CD_TYPE, deck] == c.MARKET_EVENT).sum()


def test_s1_random_first_seat_varies():
    deck = TABLE.deck_for(4)
    firsts = set()
    for seed in range(40):
        s = State(4, size=len(deck)).seed(seed)
        firsts.add(ek.setup(deck, CARDS, rules(4, first_seat="random"), s.rng, s.piles, s.pile_n))
    assert firsts == {0, 1, 2, 3}


# ---------------------------------------------------------------- PLAI-T1 / T2 fundings
def test_t1_family_funding_draws_one_and_cannot_be_attacked():
    s = State(2, hands={0: ["Chatbot"], 1: ["Vendor Lock-in"]}, deck=["Synergy", "Blockchain"])
    funding(s, c.ACT_FAMILY, 0, weights(2, **{"attack.real": 100.0}))
    assert s.hand(0) == ["Blockchain", "Chatbot"] and s.hand(1) == ["Vendor Lock-in"]
    assert s.st[c.S_FUND_FAMILY] == 1 and s.pile_n[c.P_FUNDING] == 0


def test_t1_regional_pitch_only_the_next_startup_may_attack():
    w = weights(3, per_seat={1: HATE_ATTACK, 2: LOVE_ATTACK})
    hands = {0: ["Chatbot"], 1: ["Vendor Lock-in"], 2: ["Vendor Lock-in"]}
    s = State(3, hands=hands, deck=["Tech Debt", "Synergy", "Blockchain"])
    funding(s, c.ACT_REGIONAL, 0, w)
    assert s.st[c.S_REGIONAL_ATTACKED] == 0                  # seat 2 is not next
    assert s.hand(0) == ["Blockchain", "Chatbot", "Synergy"]
    # With seat 1 bankrupt, seat 2 is the next startup in turn order.
    s = State(3, hands={0: ["Chatbot"], 2: ["Vendor Lock-in"]}, bankrupt=[1],
              deck=["Tech Debt", "Synergy", "Blockchain"])
    funding(s, c.ACT_REGIONAL, 0, w)
    assert s.st[c.S_REGIONAL_ATTACKED] == 1 and s.st[c.S_REGIONAL_ATTACK_WON] == 1
    assert s.hand(2) == ["Blockchain", "Synergy"]           # T2: the winner takes the draw


def test_t1_venture_capital_first_startup_in_turn_order_that_chooses_attacks():
    w = weights(4, per_seat={1: HATE_ATTACK, 2: LOVE_ATTACK, 3: LOVE_ATTACK})
    hands = {0: ["Chatbot"], 1: ["Vendor Lock-in"], 2: ["Tech Debt"], 3: ["Vendor Lock-in"]}
    s = State(4, hands=hands, deck=["Synergy", "Synergy", "Blockchain", "Blockchain"])
    funding(s, c.ACT_VENTURE, 0, w)
    assert s.st[c.S_VENTURE_ATTACKED] == 1
    # Seat 2 attacked with Tech Debt (1); seat 0 defended with Chatbot (1): tie to defense.
    assert s.hand(2) == [] and s.hand(3) == ["Vendor Lock-in"]
    assert s.hand(0) == ["Blockchain", "Blockchain", "Synergy"]
    assert s.st[c.S_VENTURE_ATTACK_WON] == 0


def test_t2_unattacked_funding_is_kept():
    s = State(2, hands={0: ["Chatbot"], 1: ["Synergy"]}, deck=["Tech Debt"] * 5)
    funding(s, c.ACT_VENTURE, 0, weights(2, **HATE_ATTACK))
    assert s.hand(0) == ["Chatbot"] + ["Tech Debt"] * 3 and s.pile_n[c.P_DECK] == 2


def test_t1_takeover_only_at_the_threshold():
    w = weights(2, **{"act.takeover": 100.0})[0]
    for size, expected in ((8, c.ACT_VENTURE), (9, c.ACT_TAKEOVER)):
        s = State(2, hands={0: ["Tech Debt"] * size, 1: ["Chatbot"]})
        action, _, target = dk.choose_action(w, s.rng, CARDS, rules(2), s.piles, s.pile_n,
                                             s.bankrupt, 0)
        assert action == expected
    assert target == 1
    s = State(2, hands={0: ["Tech Debt"] * 9, 1: ["Chatbot"]})
    action, _, _ = dk.choose_action(w, s.rng, CARDS, rules(2, takeover_threshold=10), s.piles,
                                    s.pile_n, s.bankrupt, 0)
    assert action != c.ACT_TAKEOVER


def test_t1_special_actions_on_a_target():
    w = weights(3)
    s = State(3, hands={0: ["Layoffs"], 1: ["Chatbot"], 2: ["Synergy", "Synergy", "Tech Debt"]})
    ek.play_special(0, card("Layoffs"), 2, w, s.rng, CARDS, rules(3), s.piles, s.pile_n,
                    s.bankrupt, s.st, s.trace)
    assert s.pile_n[c.P_HAND0 + 2] == 1 and s.hand(0) == []
    assert s.names(c.P_DISCARD).count("Layoffs") == 1 and s.pile_n[c.P_DISCARD] == 3
    s = State(2, hands={0: ["Acqui-hire"], 1: ["Fraud Detection"]})
    ek.play_special(0, card("Acqui-hire"), 1, w, s.rng, CARDS, rules(2), s.piles, s.pile_n,
                    s.bankrupt, s.st, s.trace)
    assert s.hand(0) == ["Fraud Detection"] and s.hand(1) == []


def test_t1_d5_target_negates_a_special_action():
    s = State(2, hands={0: ["Acqui-hire"], 1: ["Fraud Detection", "Open Source License"]})
    ek.play_special(0, card("Acqui-hire"), 1, weights(2), s.rng, CARDS, rules(2), s.piles,
                    s.pile_n, s.bankrupt, s.st, s.trace)
    assert s.hand(1) == ["Fraud Detection"] and s.hand(0) == [] and s.st[c.S_NEGATES] == 1
    s = State(2, hands={0: ["Acqui-hire"], 1: ["Fraud Detection", "Open Source License"]})
    ek.play_special(0, card("Acqui-hire"), 1, weights(2), s.rng, CARDS,
                    rules(2, negate_specials=False), s.piles, s.pile_n, s.bankrupt, s.st,
                    s.trace)
    assert s.pile_n[c.P_HAND0] == 1 and s.st[c.S_NEGATES] == 0


# ---------------------------------------------------------------- PLAI-T3 / T4 deck
def test_t3_market_event_resolves_at_once_and_is_not_replaced():
    s = State(2, hands={0: ["Chatbot"], 1: ["Synergy"]},
              deck=["Tech Debt", "Chatbot", "Synergy", "Blockchain", "Hype Cycle"])
    funding(s, c.ACT_REGIONAL, 0, weights(2, **HATE_ATTACK))
    # Hype Cycle: every startup draws 1, the funder first; then the 2nd funding draw.
    assert s.hand(0) == ["Blockchain", "Chatbot", "Chatbot"]
    assert s.hand(1) == ["Synergy", "Synergy"]
    assert s.names(c.P_DISCARD) == ["Hype Cycle"] and s.names(c.P_DECK) == ["Tech Debt"]
    assert s.st[c.S_EVENTS] == 1


def test_t3_event_effects_hit_startups_only():
    s = State(3, hands={0: ["Synergy"] * 10, 1: ["Synergy"] * 3}, bankrupt=[2],
              pool=["Tech Debt"] * 3, deck=["Tech Debt", "Market Crash"])
    funding(s, c.ACT_FAMILY, 0, weights(3))
    # Market Crash (rich_discard_half 9): seat 0 holds 10 -> discards 5; seat 1 keeps 3;
    # the pool is untouched, and the family draw it used up is not replaced.
    assert s.pile_n[c.P_HAND0] == 5 and s.pile_n[c.P_HAND0 + 1] == 3
    assert s.pile_n[c.P_POOL] == 3 and s.names(c.P_DECK) == ["Tech Debt"]
    s = State(2, hands={0: ["Synergy"] * 2, 1: ["Chatbot"]}, deck=["Tech Debt", "AI Winter"])
    funding(s, c.ACT_FAMILY, 0, weights(2))
    assert s.hand(0) == ["Synergy"] and s.hand(1) == []      # AI Winter: all discard 1


def test_t4_empty_deck_is_refilled_from_the_discard():
    s = State(2, discard=["Synergy", "Blockchain", "Tech Debt"])
    got = pk.draw(s.piles, s.pile_n, CARDS, rules(2), s.rng, s.st, s.trace, c.P_HAND0)
    assert got >= 0 and s.pile_n[c.P_DECK] == 2 and s.pile_n[c.P_DISCARD] == 0
    s = State(2, discard=["Synergy"])
    got = pk.draw(s.piles, s.pile_n, CARDS, rules(2, reshuffle=False), s.rng, s.st, s.trace,
                  c.P_HAND0)
    assert got == -1 and s.pile_n[c.P_DISCARD] == 1 and s.pile_n[c.P_HAND0] == 0
    s = State(2)
    assert pk.draw(s.piles, s.pile_n, CARDS, rules(2), s.rng, s.st, s.trace, c.P_HAND0) == -1


# ---------------------------------------------------------------- PLAI-T5 / T6 / T7
def test_t5_startups_without_cards_go_bankrupt_at_end_of_turn():
    s = State(3, hands={0: ["Synergy"], 2: ["Chatbot"]}, turn=17)
    left = ek.end_of_turn(rules(3), s.piles, s.pile_n, s.bankrupt, s.st, s.trace, s.total(),
                          s.startups())
    assert left == 2 and list(s.bankrupt) == [-1, 17, -1] and s.st[c.S_ERROR] == 0
    # A turn that empties no hand changes nothing: the count passed in comes back.
    s.st[c.S_TURNS] = 18
    assert ek.end_of_turn(rules(3), s.piles, s.pile_n, s.bankrupt, s.st, s.trace, s.total(),
                          left) == 2
    assert list(s.bankrupt) == [-1, 17, -1]
    # PLAI-T6: the next bankruptcy leaves one startup.
    s.piles[c.P_DISCARD, s.pile_n[c.P_DISCARD]] = s.piles[c.P_HAND0, 0]
    s.pile_n[c.P_DISCARD] += 1
    s.pile_n[c.P_HAND0] = 0
    assert ek.end_of_turn(rules(3), s.piles, s.pile_n, s.bankrupt, s.st, s.trace, s.total(),
                          left) == 1
    assert list(s.bankrupt) == [18, 17, -1]


def test_t5_conservation_check_flags_a_lost_card():
    s = State(2, hands={0: ["Synergy"], 1: ["Chatbot"]})
    ek.end_of_turn(rules(2), s.piles, s.pile_n, s.bankrupt, s.st, s.trace, s.total() + 1,
                   s.startups())
    assert s.st[c.S_ERROR] == c.ERR_CONSERVATION


def test_t7_pool_cap_discards_the_excess_at_once():
    # pool_excess: newest (the first reading); `choose`: test_plai_options_second_reading
    s = State(3, hands={0: ["Synergy"], 1: ["Chatbot"]}, bankrupt=[2],
              pool=["Tech Debt"] * 6, deck=["Vendor Lock-in"])
    w = weights(3)
    ek.take_turn(2, w, dk.pick_table(w, CARDS), s.rng, CARDS, rules(3, pool_excess="newest"),
                 s.piles, s.pile_n, s.bankrupt, s.st, s.trace, s.scratch, s.startups())
    assert s.names(c.P_POOL) == ["Tech Debt"] * 6 and s.names(c.P_DISCARD) == ["Vendor Lock-in"]
    assert s.st[c.S_MAINT_FAMILY] == 1


def test_t7_maintainers_play_specials_from_the_pool():
    s = State(3, hands={0: ["Synergy"], 1: ["Chatbot", "Tech Debt"]}, bankrupt=[2],
              pool=["Acqui-hire"])
    w = weights(3, **{"act.special": 10.0, "negate.use": -100.0})
    ek.take_turn(2, w, dk.pick_table(w, CARDS), s.rng, CARDS, rules(3), s.piles, s.pile_n,
                 s.bankrupt, s.st, s.trace, s.scratch, s.startups())
    assert s.pile_n[c.P_POOL] == 1 and s.st[c.S_SPECIALS] == 1   # a stolen card, capped pool
    assert s.total() == 4


def test_t7_maintainer_help_joins_the_attacking_side():
    hands = {0: ["Synergy", "Synergy"], 1: ["Chatbot", "Tech Debt"]}
    s = State(3, hands=hands, bankrupt=[2], pool=["Vendor Lock-in"], funding=["Blockchain"])
    w = weights(3, per_seat={1: {"defend.real": 100.0}, 2: {"help.card": 10.0}})
    winner = fight(s, c.FIGHT_REGIONAL, 0, 1, c.MODE_BLUFF, w)
    # Synergy alone would be a bluff called by Chatbot; with Vendor Lock-in it is real.
    assert winner == c.SIDE_ATTACK and s.st[c.S_HELP_CARDS] == 1 and s.pile_n[c.P_POOL] == 0
    assert "Blockchain" in s.hand(0)                         # spoils go to the startup
    s = State(3, hands=hands, bankrupt=[2], pool=["Vendor Lock-in"], funding=["Blockchain"])
    winner = fight(s, c.FIGHT_REGIONAL, 0, 1, c.MODE_BLUFF, w, maintainer_help_cards=0)
    assert winner == c.SIDE_DEFENSE and s.pile_n[c.P_POOL] == 1


def test_t7_help_in_four_leaves_no_room_after_four_cards():
    s = State(3, hands={0: ["Synergy"] * 4, 1: ["Chatbot"]}, bankrupt=[2],
              pool=["Vendor Lock-in"], funding=["Blockchain"])
    w = weights(3, per_seat={0: {"pick.stop": -100.0}, 2: {"help.card": 10.0}})
    fight(s, c.FIGHT_REGIONAL, 0, 1, c.MODE_BLUFF, w, maintainer_help_in_four=True)
    assert s.st[c.S_HELP_CARDS] == 0 and s.pile_n[c.P_POOL] == 1


# ---------------------------------------------------------------- PLAI-F1 / F5
def test_f1_at_most_four_cards_never_negate_or_action_specials_and_a_real_card():
    hand = ["Synergy"] * 6 + ["Open Source License", "Layoffs", "Tech Debt"]
    s = State(2, hands={0: hand})
    w = weights(2, **{"pick.stop": -100.0, "pick.real": -50.0})[0]
    n = dk.pick_cards(w, s.rng, CARDS, s.piles, s.pile_n, c.P_HAND0, c.P_ATTACK,
                      c.SIDE_ATTACK, c.MODE_REAL, c.MAX_FIGHT_CARDS)
    assert n == 4 and s.names(c.P_ATTACK) == ["Synergy"] * 3 + ["Tech Debt"]
    assert "Open Source License" in s.hand(0) and "Layoffs" in s.hand(0)


def test_f5_takeover_winner_takes_the_losers_whole_remaining_hand():
    hands = {0: ["Vendor Lock-in"] + ["Synergy"] * 8, 1: ["Chatbot", "Tech Debt", "Synergy"]}
    s = State(2, hands=hands)
    w = weights(2, **{"pick.stop": 100.0})       # one card each side
    winner = fight(s, c.FIGHT_TAKEOVER, 0, 1, c.MODE_REAL, w)
    assert winner == c.SIDE_ATTACK and s.hand(1) == []
    assert sorted(s.hand(0)) == sorted(["Synergy"] * 8 + ["Tech Debt", "Synergy"])
    assert s.names(c.P_DISCARD) == ["Chatbot", "Vendor Lock-in"]   # played cards only
    # A failed challenge hands the challenger's remaining hand to the defender.
    s = State(2, hands={0: ["Tech Debt"] + ["Synergy"] * 8, 1: ["Fraud Detection", "Chatbot"]})
    winner = fight(s, c.FIGHT_TAKEOVER, 0, 1, c.MODE_REAL, w)
    assert winner == c.SIDE_DEFENSE and s.hand(0) == []
    assert s.hand(1) == ["Chatbot"] + ["Synergy"] * 8


# ---------------------------------------------------------------- PLAI-D strategies
def _mode_counts(w, hand, trials=400):
    counts = np.zeros(3, int)
    s = State(2, hands={1: hand}).seed(5)
    for _ in range(trials):
        counts[dk.decide_mode(w, s.rng, CARDS, s.piles, s.pile_n, c.P_HAND0 + 1,
                              c.SIDE_DEFENSE, True, 2, 0)] += 1
    return counts


def test_d3_bluffer_bluffs_at_its_rate_and_cautious_always_defends():
    from sim.core.strategy import parse_spec

    def vector(spec):
        strategy, params = parse_spec(spec, "plai")
        from sim.games.plai.features import DEFAULT_WEIGHTS
        return strategy.vector(FEATURE_NAMES, DEFAULT_WEIGHTS, params)

    counts = _mode_counts(vector("bluffer:rate=0.3"), ["Chatbot", "Blockchain"])
    assert 0.22 < counts[c.MODE_BLUFF] / counts.sum() < 0.38
    assert _mode_counts(vector("bluffer:rate=0"), ["Chatbot", "Blockchain"])[c.MODE_BLUFF] == 0
    assert (_mode_counts(vector("cautious"), ["Chatbot", "Blockchain"], 50)[c.MODE_REAL]) == 50
    random_counts = _mode_counts(vector("random"), ["Chatbot", "Blockchain"])
    assert (random_counts > 90).all()             # none / real / bluff, about 1/3 each


# ---------------------------------------------------------------- trace wording
def _family_trace(deck, players=2):
    from sim.games.plai.trace import format_trace

    s = State(players, hands={0: ["Chatbot", "Synergy"], 1: ["Tech Debt"]}, deck=deck,
              trace_rows=50)
    w = weights(players, **{"act.family": 100.0})
    ek.take_turn(0, w, dk.pick_table(w, CARDS), s.rng, CARDS, rules(players), s.piles,
                 s.pile_n, s.bankrupt, s.st, s.trace, s.scratch, s.startups())
    rows = s.trace[:s.st[c.S_TRACE_N]]
    return s, format_trace(rows, TABLE.describe, "", [], False,
                           card_kind=lambda k: int(TABLE.types[k]))


def test_trace_family_funding_says_what_it_drew_and_what_the_event_did():
    s, text = _family_trace(["Tech Debt", "AI Winter"])
    # AI Winter: each startup discards 1 at random; the draw is not replaced (T3).
    assert s.pile_n[c.P_HAND0] == 1 and s.pile_n[c.P_HAND0 + 1] == 0
    assert "draws Market Event AI Winter (market event: all_discard 1): it resolves" in text
    assert "seat 0 discards 1 card(s) at random" in text
    assert "seat 1 discards 1 card(s) at random" in text
    assert "family funding: 0 card(s) added to its hand" in text
    assert "-1" not in text
    s, text = _family_trace(["AI Winter", "Blockchain"])
    assert "draws Blockchain (buzzword 2) into its hand" in text
    assert "family funding: 1 card(s) added to its hand" in text
