"""Peer-to-Peer round scenarios, P2P-R1 .. P2P-R6 and decisions D3-D6
(rules: docs/rules/peer-to-peer.md).

Each scenario is a hand-made state (tests/support/p2p_state.py) or a whole game with passive
teams, with the outcome worked out from the rules file. Team weights are the real
strategies (greedy is the default) or a few named weight overrides.
"""
import math

import numpy as np
import pytest

from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer import engine_kernel as e

from p2p_state import PASSIVE, Game, State, deck_with, open_protocol_zero_deck, rounds_of

LIMITS = {1: 4, 2: 3, 3: 2, 4: 2, 5: 1, 6: 1}           # P2P-R5 unhappy_limit defaults
VENTURE_LIMITS = {1: 3, 2: 3, 3: 3, 4: 3, 5: 2, 6: 2}   # P2P-R2d venture_limit defaults
DEALT_SEATS = {1: 1, 2: 2, 3: 4, 4: 4, 5: 6, 6: 6}      # P2P-S1 with extra_venture
NO_END = {"customer_patience": 1000, "unhappy_limit": 1000}


pytestmark = pytest.mark.usefixtures("p2p_kernels")


def customers_after_setup(players, initial_row=2):
    """54 cards - 10 S cards - per dealt seat the kept venture and the one set aside
    (P2P-S2, unchosen_ventures=aside); solo: team B's 5 S cards are customers (P2P-S3)."""
    return 54 - 10 - 2 * DEALT_SEATS[players] + (5 if players == 1 else 0) - initial_row


def deals_per_round(events):
    return {rnd: sum(1 for ev in evs if ev[1] == e.EV_DEAL)
            for rnd, evs in rounds_of(events).items() if rnd > 0}


# ---------------------------------------------------------------- P2P-R1

def test_R1_no_deal_in_round_1_then_new_customers_per_round_and_fewer_at_the_end():
    """P2P-R1: 4 players, 36 customers (4 ventures kept, 4 set aside), 2 in the row at
    setup, 34 left. Nothing is dealt in round 1; with new_customers_per_round=3 rounds 2-12
    deal 3 (33) and round 13 only the last 1; the deck is then empty and the game ends (R5)."""
    game = Game(players=4, rules={**NO_END, "new_customers_per_round": 3},
                strategies={"A": PASSIVE, "B": PASSIVE})
    row, _, events = game.traced(seed=3)
    assert deals_per_round(events) == {1: 0, **{r: 3 for r in range(2, 13)}, 13: 1}
    assert row["rounds"] == 13


def test_R1_deal_in_first_round():
    """P2P-R1 deal_in_first_round=true: round 1 deals too: 34 = 11 x 3 + 1 -> 12 rounds."""
    game = Game(players=4, rules={**NO_END, "new_customers_per_round": 3,
                                  "deal_in_first_round": True},
                strategies={"A": PASSIVE, "B": PASSIVE})
    row, _, events = game.traced(seed=3)
    assert deals_per_round(events) == {**{r: 3 for r in range(1, 12)}, 12: 1}
    assert row["rounds"] == 12


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5, 6])
def test_R1_default_new_customers_per_player_count(players):
    """P2P-R1 default: 1 customer a round solo, 2 otherwise; the deck lasts
    1 + ceil(left / new) rounds."""
    new = 1 if players == 1 else 2
    left = customers_after_setup(players)
    game = Game(players=players, rules=NO_END, strategies={"A": PASSIVE, "B": PASSIVE})
    row, _, events = game.traced(seed=6)
    rounds = 1 + math.ceil(left / new)
    deals = deals_per_round(events)
    assert row["rounds"] == rounds and len(deals) == rounds
    assert deals[1] == 0 and all(deals[r] == new for r in range(2, rounds))
    assert deals[rounds] == left - new * (rounds - 2)


# ---------------------------------------------------------------- P2P-R2a

def test_R2a_legal_assist_needs_exact_sum_and_a_domain_match():
    """P2P-R2a: the cards must sum exactly to the customer's value and one must match its
    domain; an `any` card (Open Protocol, worth 5) matches every domain (C2)."""
    s = State(players=2).hand("A", "SV2", "SV3", "SV4", "TE2", "IN3", "OPA", "TE5")
    assert s.eval_assist("A", ["SV2", "SV3"], "SC5") is None          # no Science card
    assert s.eval_assist("A", ["SV2", "SV3"], "SV5") == {"SV2": 2, "SV3": 3}
    assert s.eval_assist("A", ["SV2", "SV4"], "SV5") is None          # 6 != 5
    assert s.eval_assist("A", ["TE2", "IN3"], "SV5") is None          # right sum, no match
    assert s.eval_assist("A", ["OPA", "TE5"], "SC10") == {"OPA": 5, "TE5": 5}
    assert s.eval_assist("A", ["OPA", "TE5"], "SC5") is None          # 10 != 5


def test_R2a_a_team_that_cannot_assist_passes():
    """P2P-R2a: with no legal assist in its hand a team passes; nothing moves."""
    s = State(players=2).row("SV9", "TE8").hand("A", "SC1", "IN2").hand("B", "SV2", "SV3")
    s.assist_loop()
    assert s.ids("row") == ["SV9", "TE8"]
    assert s.ids("hand A") == ["SC1", "IN2"] and s.ids("hand B") == ["SV2", "SV3"]
    assert s.stats[e.T_ASSISTS] == s.stats[e.T_ASSISTS + 1] == 0


# ---------------------------------------------------------------- P2P-R2b and D3

def test_R2b_team_without_marker_reveals_first():
    """P2P-R2b: the team without the marker reveals and declares first."""
    for marker, first in (("A", 1), ("B", 0)):
        s = State(players=2, marker=marker).row("SV5", "TE5")
        s.hand("A", "SV2", "SV3").hand("B", "TE1", "TE4")
        s.assist_loop()
        declares = s.events(e.EV_DECLARE)
        assert [ev[2] for ev in declares] == [first, 1 - first]
        assert s.ids("score A") == ["SV5"] and s.ids("score B") == ["TE5"]


def retarget_state(strategy_b):
    """Round 2; SC5 waited since round 1 (urgent), IN5 arrived this round. A (greedy, no
    marker) can only assist SC5 with SC1+SC4 and plays [4, 1]. B (marker) commits
    OPB+TE2+IN3 = 5: OPB is `any`, so these cards can assist SC5 or IN5; on SC5 it plays
    [3, 2, 0] and would lose the contest on the first pair (4 > 3). (A deck with OPB worth
    0.)"""
    s = State(players=2, round=2, marker="B", strategies={"B": strategy_b},
              cards=open_protocol_zero_deck())
    s.row("SC5", arrival=1).row("IN5", arrival=2)
    s.hand("A", "SC1", "SC4").hand("B", "OPB", "TE2", "IN3")
    return s


def test_D3_cautious_marker_holder_retargets_away_from_a_lost_contest():
    """P2P-R2b / D3: cautious B first commits to the urgent SC5 (D2), sees A's cards and
    target, and as the marker holder moves its assist to IN5, which the same cards can
    legally assist: no contest, each team wins one customer."""
    s = retarget_state("cautious")
    s.assist_loop()
    assert s.events(e.EV_RETARGET) == [(2, e.EV_RETARGET, 1, s.id("SC5"), s.id("IN5"), 0)]
    assert s.stats[e.T_CONTESTS] == 0
    assert s.ids("score A") == ["SC5"]
    assert s.ids("score B") == ["IN5"]   # cautious scores in the late phase (empty deck)
    assert sorted(s.ids("discard B")) == ["IN3", "OPB", "TE2"]


def test_D3_marker_holder_that_ignores_contests_stays_and_loses():
    """Same state, B = greedy plus cautious's urgency weight but no contest avoidance: it
    commits to the urgent SC5 too, does not retarget, loses SC5 on the first pair (R2c),
    takes its cards back (R2e) and in a later pass assists IN5 with the cheaper TE2+IN3."""
    s = retarget_state({"commit.urgent": 20.0})
    s.assist_loop()
    assert s.events(e.EV_RETARGET) == []
    assert s.stats[e.T_CONTESTS] == 1 and s.stats[e.T_CONTESTS_WON] == 1
    assert s.ids("score A") == ["SC5"] and s.ids("score B") == ["IN5"]
    assert s.ids("hand B") == ["OPB"]


def test_D3_marker_holder_may_retarget_onto_the_rival_customer_and_win_it():
    """P2P-R2b: the marker holder may pick ANY customer its cards can assist, including the
    one the other team declared. B (marker, weights contest_win=+50) commits OPB+IN5 (OPB
    is `any`) to TE5, the first of two equal options; A declares SC5 with SC2+SC3 [3, 2].
    B's [5, 0] would win SC5, so B retargets there and wins it; A takes its cards back
    and cannot assist TE5. (A deck with OPB worth 0.)"""
    s = State(players=2, marker="B", strategies={"B": {"commit.contest_win": 50.0}},
              cards=open_protocol_zero_deck())
    s.row("TE5", "SC5").hand("A", "SC2", "SC3").hand("B", "OPB", "IN5")
    s.assist_loop()
    assert s.events(e.EV_RETARGET)[0][3:5] == (s.id("TE5"), s.id("SC5"))
    assert s.ids("score B") == ["SC5"]
    assert s.ids("hand A") == ["SC2", "SC3"] and s.ids("row") == ["TE5"]


# ---------------------------------------------------------------- P2P-R2c contests

def test_R2c_contest_table():
    """P2P-R2c on the contest kernel directly: higher card pair by pair, then the longer
    list, then `tiebreak` (E5), then domain rank pair by pair, then the marker holder.
    (A deck where Open Protocol is worth 0.)"""
    s = State(players=2, cards=open_protocol_zero_deck())
    assert s.contest(["SV5", "TE3"], ["TE5", "SV2", "IN1"], marker="B") == ("A", k.WHY_HIGHER_CARD)
    assert s.contest(["SV4", "TE4", "OPA"], ["SC4", "IN4"], marker="B") == ("A", k.WHY_LONGER)
    assert s.contest(["SV5", "TE3"], ["TE5", "SV3"], marker="B") == ("A", k.WHY_DOMAIN)
    assert s.contest(["TE5", "SV3"], ["SV5", "TE3"], marker="A") == ("B", k.WHY_DOMAIN)
    assert s.contest(["TE5", "SV3"], ["SV5", "TE3"], tiebreak_a=True) == ("A", k.WHY_TIEBREAK)
    assert s.contest(["TE5", "SV3"], ["SV5", "TE3"], True, True, marker="A") == ("B", k.WHY_DOMAIN)
    assert s.contest({"SV9": 8}, ["SV8"], tiebreak_b=True) == ("B", k.WHY_TIEBREAK)
    assert s.contest(["OPA"], ["OPB"], marker="A") == ("A", k.WHY_MARKER)
    assert s.contest(["OPA"], ["OPB"], marker="B") == ("B", k.WHY_MARKER)
    # values after effects count, not printed values
    assert s.contest({"SV4": 5, "TE3": 3}, ["TE5", "SV3"], marker="B") == ("A", k.WHY_DOMAIN)


def contest_why(s):
    (ev,) = s.events(e.EV_CONTEST)
    return "AB"[ev[2]], ev[4]


def test_R2c_contest_decided_on_the_second_highest_card():
    """P2P-R2c: A plays TE5+SC3 [5, 3], B (marker) SV5+TE2+IN1 [5, 2, 1] for TE8: the first
    pair is equal, the second is 3 > 2, so A wins although B holds the marker and plays
    more cards. A scores TE8 and discards its cards (R2d)."""
    s = State(players=4, marker="B").row("TE8")
    s.hand("A", "TE5", "SC3").hand("B", "SV5", "TE2", "IN1")
    s.assist_loop()
    assert contest_why(s) == ("A", k.WHY_HIGHER_CARD)
    assert s.ids("score A") == ["TE8"] and sorted(s.ids("discard A")) == ["SC3", "TE5"]
    assert s.ids("hand B") == ["SV5", "TE2", "IN1"] and s.count("discard B") == 0
    assert s.stats[e.T_CONTESTS] == 1 and s.stats[e.T_CONTESTS_WON] == 1


def test_R2c_longer_list_wins_after_equal_pairs():
    """P2P-R2c: A [4, 4, 0] (TE4, SC4, OPA) vs B [4, 4] (SV4, IN4) for SV8: equal pairs,
    A's list is longer, so A wins (B's better domains and marker do not matter). (The old
    deck: OPA worth 0.)"""
    s = State(players=2, marker="B", cards=open_protocol_zero_deck()).row("SV8")
    s.hand("A", "TE4", "SC4", "OPA").hand("B", "SV4", "IN4")
    s.assist_loop()
    assert contest_why(s) == ("A", k.WHY_LONGER)
    assert s.ids("score A") == ["SV8"]


def domain_state(**kw):
    """Identical values: A SV5+TE3 [5 Service, 3 Technology], B TE5+SV3 [5 Tech, 3 Service]
    for TE8; B holds the marker."""
    s = State(players=4, marker="B", **kw).row("TE8")
    s.hand("A", "SV5", "TE3").hand("B", "TE5", "SV3")
    return s


def test_R2c_contest_decided_on_domain_rank():
    """P2P-R2c: equal values, no tiebreak: the first pair decides by domain rank
    (C2: Service > Technology), so A wins against the marker holder."""
    s = domain_state()
    s.assist_loop()
    assert contest_why(s) == ("A", k.WHY_DOMAIN)
    assert s.ids("score A") == ["TE8"]


def test_R2c_domain_rank_follows_domain_order():
    """P2P-C2 option domain_order: with Technology first the same contest goes to B."""
    s = domain_state(rules={"domain_order": ["Technology", "Service", "Science", "Information"]})
    s.assist_loop()
    assert contest_why(s) == ("B", k.WHY_DOMAIN)
    assert s.ids("score B") == ["TE8"]


TWINS = deck_with("SV5X,Service 5 twin,Service,5,group,,",
                  "TE3X,Technology 3 twin,Technology,3,group,,",
                  "TBX,Tiebreak twin,Service,13,venture,,tiebreak")


@pytest.mark.parametrize("marker", ["A", "B"])
def test_R2c_marker_holder_wins_when_all_else_is_equal(marker):
    """P2P-R2c: identical values AND domains (SV5+TE3 vs their twins), no tiebreak:
    the marker holder wins."""
    s = State(players=2, marker=marker, cards=TWINS).row("TE8")
    s.hand("A", "SV5", "TE3").hand("B", "SV5X", "TE3X")
    s.assist_loop()
    assert contest_why(s) == (marker, k.WHY_MARKER)
    assert s.ids(f"score {marker}") == ["TE8"]


def test_R2c_tiebreak_beats_domain_rank():
    """P2P-R2c / E5: identical values; B's `tiebreak` venture (SV13 on seat 2) decides
    before domains (where A would win) and is then used for the round (R2f)."""
    s = domain_state().seat(2, "SV13")
    s.assist_loop()
    assert contest_why(s) == ("B", k.WHY_TIEBREAK)
    assert s.ids("score B") == ["TE8"] and s.used[s.id("SV13")] == 1


def test_R2c_tiebreak_beats_the_marker():
    """P2P-R2c / E5: identical cards; A holds the marker but B the tiebreak: B wins."""
    s = State(players=2, marker="A", cards=TWINS).row("TE8").seat(1, "SV13")
    s.hand("A", "SV5", "TE3").hand("B", "SV5X", "TE3X")
    s.assist_loop()
    assert contest_why(s) == ("B", k.WHY_TIEBREAK)


def test_R2c_both_teams_hold_tiebreak_so_neither_applies():
    """P2P-E5: if both teams hold a tiebreak, neither applies: domain rank decides (A),
    and neither tiebreak is spent."""
    s = State(players=4, marker="B", cards=TWINS).row("TE8").seat(0, "SV13").seat(2, "TBX")
    s.hand("A", "SV5", "TE3").hand("B", "TE5", "SV3")
    s.assist_loop()
    assert contest_why(s) == ("A", k.WHY_DOMAIN)
    assert s.used[s.id("SV13")] == 0 and s.used[s.id("TBX")] == 0


def test_R2c_tiebreak_does_not_beat_a_higher_card():
    """P2P-E5: tiebreak only decides a contest that would go to the domain tie-break."""
    s = State(players=4, marker="B").row("TE8").seat(2, "SV13")
    s.hand("A", "TE5", "SC3").hand("B", "SV5", "TE2", "IN1")
    s.assist_loop()
    assert contest_why(s) == ("A", k.WHY_HIGHER_CARD)
    assert s.used[s.id("SV13")] == 0


def test_R2c_tiebreak_is_used_once_per_round():
    """P2P-E / R2f: a tiebreak that decided one contest is spent for the round.
    Pass 1: both go for TE8: A TE5+SV3 [5 Tech, 3 Service], B IN5+TE3 [5 Info, 3 Tech];
    A has the better domains but B's SV13 tiebreak wins. Pass 2: both go for SC6:
    A SV4+SC2 [4 Service, 2 Science], B SC4+IN2 [4 Science, 2 Info]: the tiebreak is spent,
    so domain rank gives it to A (B holds the marker)."""
    s = State(players=2, marker="B").row("TE8", "SC6").seat(1, "SV13")
    s.hand("A", "TE5", "SV3", "SV4", "SC2").hand("B", "IN5", "TE3", "SC4", "IN2")
    s.assist_loop()
    whys = [(ev[2], ev[4]) for ev in s.events(e.EV_CONTEST)]
    assert whys == [(1, k.WHY_TIEBREAK), (0, k.WHY_DOMAIN)]
    assert s.ids("score B") == ["TE8"] and s.ids("score A") == ["SC6"]


# ---------------------------------------------------------------- P2P-R2d placement

VENTURE_A = {"dest.venture": 5.0}   # D4: prefer a seat (ties: the first seat)


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5, 6])
def test_R2d_venture_limit_per_player_count(players):
    """P2P-R2d: venture_limit is 3 for 1-4 players and 2 for 5-6. A seat holding
    limit - 1 cards takes the customer; a seat holding `limit` cards takes it and then one
    venture card (D5; greedy: one without an effect) moves to the team's score pile."""
    limit = VENTURE_LIMITS[players]
    filler = ["SV10", "SC6", "IN10"][:limit]   # SC6 is the only card without an effect
    s = State(players=players, strategies={"A": VENTURE_A}).seat(0, *filler[:limit - 1])
    s.place("A", "SC12")
    assert s.ids("seat 0") == filler[:limit - 1] + ["SC12"] and s.count("score A") == 0

    s = State(players=players, strategies={"A": VENTURE_A}).seat(0, *filler)
    s.place("A", "SC12")
    assert s.ids("score A") == ["SC6"]
    assert s.ids("seat 0") == [c for c in filler if c != "SC6"] + ["SC12"]
    assert s.stats[e.T_SENT_VENTURE] == 1 and s.stats[e.T_SENT_SCORE] == 0


def test_R2d_overflow_may_push_out_the_new_card():
    """P2P-R2d / D5: the card is added first, so the new card itself may be the one that
    moves to the score pile (greedy pushes out a card without an effect)."""
    s = State(players=4, strategies={"A": VENTURE_A}).seat(0, "SV10", "SC10", "IN10")
    s.place("A", "TE8")
    assert s.ids("score A") == ["TE8"] and s.ids("seat 0") == ["SV10", "SC10", "IN10"]


def test_R2d_greedy_scores_and_winner_discards_played_cards():
    """P2P-R2d: greedy always scores (iii); played cards go to the group discard."""
    s = State(players=2).row("SV5").hand("A", "SV2", "SV3", "IN9")
    s.assist_loop()
    assert s.ids("score A") == ["SV5"] and sorted(s.ids("discard A")) == ["SV2", "SV3"]
    assert s.ids("hand A") == ["IN9"] and s.stats[e.T_SENT_SCORE] == 1


def test_R2d_new_venture_card_is_usable_later_in_the_same_round():
    """P2P-R2d: A assists TE13 (TE9+TE4), puts it on a seat; TE13's `shift 2` then lets
    SV2 assist SV4 in a later pass of the same loop."""
    s = State(players=2, strategies={"A": VENTURE_A}).row("TE13", "SV4")
    s.hand("A", "TE9", "SV2", "TE4")
    s.assist_loop()
    assert s.ids("seat 0") == ["TE13", "SV4"]
    assert s.used[s.id("TE13")] == 1 and s.count("row") == 0
    assert s.stats[e.T_ASSISTS] == 2


# ---------------------------------------------------------------- P2P-R2e, R2f

def test_R2e_contest_loser_takes_cards_back_and_assists_another_customer():
    """P2P-R2e: B loses TE8 (see the second-highest-card scenario), takes SV5, TE2, IN1
    back and in a later pass assists IN3 with TE2+IN1."""
    s = State(players=4, marker="B").row("TE8", "IN3")
    s.hand("A", "TE5", "SC3").hand("B", "SV5", "TE2", "IN1")
    s.assist_loop()
    assert s.ids("score A") == ["TE8"] and s.ids("score B") == ["IN3"]
    assert s.ids("hand B") == ["SV5"]


def loser_shift_state(rules=None):
    """B (marker) holds TE10 (shift 1) and IN4+TE3 = 7. Pass 1: both declare TE8; B shifts
    IN4 to 5 and plays [5 Information, 3 Technology], A plays TE5+SC3 [5 Tech, 3 Science]:
    A wins on domain. IN6 could then be assisted by IN4+TE3 only with the shift again."""
    s = State(players=4, marker="B", rules=rules).row("TE8", "IN6").seat(2, "TE10")
    s.hand("A", "TE5", "SC3").hand("B", "IN4", "TE3")
    return s


def test_R2f_effects_used_in_a_lost_contest_stay_used():
    """P2P-R2f (reading loser_effects_spent=true, the default): B's shift was used in the
    lost contest, so B cannot assist IN6 afterwards this round."""
    s = loser_shift_state()
    s.assist_loop()
    assert contest_why(s) == ("A", k.WHY_DOMAIN)
    assert s.ids("row") == ["IN6"] and s.ids("hand B") == ["IN4", "TE3"]
    assert s.used[s.id("TE10")] == 1


def test_R2f_loser_effects_spent_false_frees_the_loser_effect():
    """Reading loser_effects_spent=false: the loser's shift is free again: B assists IN6."""
    s = loser_shift_state({"loser_effects_spent": False})
    s.assist_loop()
    assert s.ids("score B") == ["IN6"] and s.count("row") == 0


def test_R2f_losing_a_contest_does_not_free_an_effect_used_in_an_earlier_win():
    """P2P-R2f / E: each effect instance once per round, also with
    loser_effects_spent=false (which only undoes what the LOSING assist used).
    Pass 1: A assists SC7 (SC3+SC4); B shifts SV8 to 9 with TE10 and assists SV9.
    Pass 2: both go for TE6: A TE4+TE2 [4, 2] beats B TE3+IN3 [3, 3] (no effects used).
    Pass 3: IN4 could assist IN5 only with a shift, and TE10 is spent: IN5 stays."""
    for spent in (True, False):
        s = State(players=4, marker="B", rules={"loser_effects_spent": spent})
        s.row("SV9", "SC7", "TE6", "IN5").seat(2, "TE10")
        s.hand("A", "SC3", "SC4", "TE4", "TE2").hand("B", "SV8", "TE3", "IN3", "IN4")
        s.assist_loop()
        assert [(ev[2], ev[4]) for ev in s.events(e.EV_CONTEST)] == [(0, k.WHY_HIGHER_CARD)]
        assert s.ids("score B") == ["SV9"] and sorted(s.ids("score A")) == ["SC7", "TE6"]
        assert s.ids("row") == ["IN5"], (spent, s.story())
        assert s.used[s.id("TE10")] == 1


# ---------------------------------------------------------------- P2P-R3 refresh

def refresh_state(**kw):
    s = State(players=2, **kw)
    s.deck("A", "SC3", "IN4").discard("A", "SV1", "TE2", "OPA", "SV6").hand("A", "SV7")
    return s


def test_R3_refresh_discards_hand_draws_and_reshuffles_the_discard():
    """P2P-R3: the hand goes to the discard; draw 4: SC3, IN4 from the deck, then the deck
    is empty, the 5-card discard becomes the new deck (shuffled) and 2 more are drawn."""
    s = refresh_state()
    s.refresh("A")
    hand = s.ids("hand A")
    assert hand[:2] == ["SC3", "IN4"] and len(hand) == 4
    assert set(hand[2:]) | set(s.ids("deck A")) == {"SV1", "TE2", "OPA", "SV6", "SV7"}
    assert s.count("deck A") == 3 and s.count("discard A") == 0
    (ev,) = s.events(e.EV_REFRESH)
    assert ev[3:6] == (4, 1, 0)   # drawn, reshuffles, extra


def test_R3_reshuffle_is_random():
    drawn = set()
    for seed in range(1, 15):
        s = refresh_state(seed=seed)
        s.refresh("A")
        drawn.add(tuple(sorted(s.ids("hand A")[2:])))
    assert len(drawn) >= 3


def test_R3_without_reshuffle_discard_draws_fewer():
    """P2P-R3 reshuffle_discard=false: the deck runs out after 2 cards; no reshuffle."""
    s = refresh_state(rules={"reshuffle_discard": False})
    s.refresh("A")
    assert s.ids("hand A") == ["SC3", "IN4"] and s.count("deck A") == 0
    assert sorted(s.ids("discard A")) == ["OPA", "SV1", "SV6", "SV7", "TE2"]


@pytest.mark.parametrize("hand_size", [2, 4, 6])
def test_R3_draws_hand_size(hand_size):
    s = State(players=2, rules={"hand_size": hand_size})
    s.deck("B", "SV1", "SV2", "SV3", "SV4", "SV5", "SV6", "SV7").hand("B", "TE1")
    s.refresh("B")
    assert s.ids("hand B") == ["SV1", "SV2", "SV3", "SV4", "SV5", "SV6"][:hand_size]
    assert s.ids("discard B") == ["TE1"]


# ---------------------------------------------------------------- P2P-R4 unhappy customers

def test_R4_customer_turns_unhappy_after_waiting_patience_rounds():
    """P2P-R4, customer_patience=2: at the end of round 2 a customer from round 1 has
    waited 2 rounds and turns unhappy; one that arrived in round 2 stays."""
    s = State(players=2, round=2).row("SV5", arrival=1).row("TE5", arrival=2)
    s.unhappy()
    assert s.ids("unhappy") == ["SV5"] and s.ids("row") == ["TE5"]
    s = State(players=2, round=1).row("SV5", arrival=1)
    s.unhappy()
    assert s.ids("row") == ["SV5"]


@pytest.mark.parametrize("patience", [1, 3])
def test_R4_customer_patience_option(patience):
    """P2P-R4: a customer arriving in round 1 turns unhappy at the end of round `patience`."""
    for rnd in range(1, patience + 1):
        s = State(players=2, round=rnd, rules={"customer_patience": patience}).row("SV5")
        s.unhappy()
        assert s.ids("unhappy") == (["SV5"] if rnd == patience else [])


def test_R4_row_capacity_sends_the_longest_waiting_away():
    """P2P-R4 row_capacity=1: patience 5 dooms nobody, but the row holds 3 > 1: the two
    that waited longest (arrived rounds 1 and 2) turn unhappy."""
    s = State(players=2, round=3, rules={"customer_patience": 5, "row_capacity": 1})
    s.row("TE5", arrival=3).row("IN5", arrival=1).row("SC5", arrival=2)
    s.unhappy()
    assert sorted(s.ids("unhappy")) == ["IN5", "SC5"] and s.ids("row") == ["TE5"]


def test_R4_patience_first_then_capacity():
    """P2P-R4: SV5 (round 2) is doomed by patience 2 at the end of round 3; the row still
    holds 2 > 1, so the longer waiting of the rest (row order on equal arrival) goes too."""
    s = State(players=2, round=3, rules={"row_capacity": 1})
    s.row("SV5", arrival=2).row("TE5", "SC5", arrival=3)
    s.unhappy()
    assert sorted(s.ids("unhappy")) == ["SV5", "TE5"] and s.ids("row") == ["SC5"]


def test_R4_capacity_zero_means_no_cap():
    s = State(players=2, round=2).row("SV5", "TE5", "SC5", "IN5", "SV6", arrival=2)
    s.unhappy()
    assert s.count("row") == 5


# ---------------------------------------------------------------- P2P-R5 end of round

@pytest.mark.parametrize("players", [1, 2, 3, 4, 5, 6])
def test_R5_unhappy_limit_ends_the_game_all_lose(players):
    """P2P-R5: passive teams, 1 customer at setup and 1 a round, patience 1: every round
    ends with one more unhappy customer, so the game ends after round L (the unhappy
    limit: 1:4, 2:3, 3:2, 4:2, 5:1, 6:1) and every player loses."""
    game = Game(players=players, rules={"customer_patience": 1, "initial_row": 1,
                                        "new_customers_per_round": 1},
                strategies={"A": PASSIVE, "B": PASSIVE})
    row, _, _ = game.traced(seed=2)
    assert k.WINNER_NAMES[row["winner"]] == "all_lose"
    assert row["rounds"] == LIMITS[players] and row["unhappy"] == LIMITS[players]


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5, 6])
def test_R5_all_lose_exactly_when_the_limit_is_reached(players):
    """P2P-R5 on real games: all_lose iff the unhappy pile reached the limit; otherwise the
    game ended on an empty customer deck (no card still has fate customer_deck)."""
    for strategies in ({"A": "greedy", "B": "cautious"}, {"A": "builder", "B": "random"}):
        game = Game(players=players, strategies=strategies)
        rows, fates = game.run(150, seed=17)
        assert (rows["error"] == 0).all()
        lost = rows["winner"] == k.ALL_LOSE
        assert (lost == (rows["unhappy"] >= LIMITS[players])).all()
        assert ((fates[~lost] == k.FATE_CUSTOMER_DECK).sum(axis=1) == 0).all()


def test_R5_unhappy_limit_is_checked_before_the_empty_deck():
    """P2P-R5: all 36 customers start in the row (the deck is empty from the start). With
    patience 1 they all turn unhappy in round 1: all_lose, not a scored game. With
    patience 2 nobody turns unhappy and the empty deck ends the game after round 1:
    0-0, a draw (W2)."""
    base = {"initial_row": 36}
    passive = {"A": PASSIVE, "B": PASSIVE}
    row, _, _ = Game(players=4, rules={**base, "customer_patience": 1},
                     strategies=passive).traced()
    assert (k.WINNER_NAMES[row["winner"]], row["rounds"], row["unhappy"]) == ("all_lose", 1, 36)
    row, _, _ = Game(players=4, rules=base, strategies=passive).traced()
    assert (k.WINNER_NAMES[row["winner"]], row["rounds"], row["unhappy"]) == ("draw", 1, 0)


def test_R5_customer_deck_empty_ends_the_game_and_it_is_scored():
    """P2P-R5: 4 players, 34 customers left after setup, 2 a round: the deck is empty after
    round 18 and the game is scored (passive teams: 0-0, a draw)."""
    row, _, _ = Game(players=4, rules=NO_END, strategies={"A": PASSIVE, "B": PASSIVE}).traced()
    assert (k.WINNER_NAMES[row["winner"]], row["rounds"]) == ("draw", 18)


def test_R5_marker_passes_every_round():
    _, _, events = Game(players=4, rules={**NO_END, "first_marker": "B"},
                        strategies={"A": PASSIVE, "B": PASSIVE}).traced()
    markers = [ev[2] for ev in events if ev[1] == e.EV_MARKER]
    assert markers == [(1 + r) % 2 for r in range(18)]


# ---------------------------------------------------------------- P2P-R6 safety stop

@pytest.mark.parametrize("players", [1, 2, 3, 4, 5, 6])
def test_R6_default_rules_never_time_out(players):
    """P2P-R6: from round 2 the deck loses min(new, left) >= 1 customer a round, so a game
    lasts at most 1 + ceil(left / new) rounds (46 solo, 18 or fewer otherwise), far below
    max_rounds=200. Checked over many games of every strategy."""
    new = 1 if players == 1 else 2
    bound = 1 + math.ceil(customers_after_setup(players) / new)
    for a, b in (("greedy", "cautious"), ("builder", "random"), ("cautious", "builder")):
        rows, _ = Game(players=players, strategies={"A": a, "B": b}).run(150, seed=31)
        assert (rows["winner"] != k.TIMEOUT).all()
        assert rows["rounds"].max() <= bound < 200


def test_R6_max_rounds_reached_is_a_timeout():
    row, _, _ = Game(players=4, rules={**NO_END, "max_rounds": 5},
                     strategies={"A": PASSIVE, "B": PASSIVE}).traced()
    assert (k.WINNER_NAMES[row["winner"]], row["rounds"]) == ("timeout", 5)


def test_R5_end_when_row_empty_serves_the_last_customers_first():
    """P2P-R5 reading `end_when`: with deck_empty (default) a scored game can end with
    customers still waiting in the row; with row_empty it ends only once the row is empty
    too, so no customer's fate is 'row' and such games last longer."""
    from sim.core.game import get_game
    from sim.games.peer_to_peer import constants as k

    results = {}
    for mode in ("deck_empty", "row_empty"):
        config = get_game("peer-to-peer").configure(
            players=4, strategies={"A": "builder", "B": "greedy"},
            rule_overrides=(f"end_when={mode}", "unhappy_limit=99"), debug=True)
        out, fates = config.play(3, 0, 400)
        assert (out["error"] == 0).all()
        scored = np.isin(out["winner"], (k.WIN_A, k.WIN_B, k.DRAW))
        results[mode] = (out, fates, scored)
    out, fates, scored = results["deck_empty"]
    left_waiting = (fates[scored] == k.FATE_ROW).any(axis=1)
    assert left_waiting.mean() > 0.3  # two arrive in the last round (47 % on the default deck)
    out_r, fates_r, scored_r = results["row_empty"]
    assert scored_r.mean() > 0.8
    assert not (fates_r[scored_r] == k.FATE_ROW).any()
    # the rest wait forever: `patience` (E6) saves the same customer every round, so the
    # row never empties and the game reaches max_rounds (a documented consequence)
    assert (out_r["winner"][~scored_r] == k.TIMEOUT).all()
    assert (out_r["rounds"][~scored_r] == 200).all()
    both = scored & scored_r
    assert (out_r["rounds"][both] >= out["rounds"][both]).all()
    assert (out_r["rounds"][both] > out["rounds"][both]).any()


def test_D2_reach_keeps_the_cards_that_still_serve_another_customer():
    """features.C_REACH (P2P-D2): A holds SV5, IN2, SV2, TE3; the row holds SV7 and IN5.
    Both SV5+IN2 and SV5+SV2 serve SV7 (7, a Service card). Greedy takes the first (the
    lower mask) and keeps SV2+TE3, which cannot serve IN5 (no Information card): one
    customer. With a weight on reach, SV5+SV2 scores higher (IN2+TE3 left in hand serve
    IN5 exactly), and the next pass of the loop (P2P-R2) serves IN5 too."""
    served = {}
    for label, strategy in (("greedy", "greedy"), ("reach", {"commit.reach": 1.0})):
        s = State(players=2, strategies={"A": strategy, "B": PASSIVE})
        s.row("SV7", "IN5").hand("A", "SV5", "IN2", "SV2", "TE3").hand("B", "IN1")
        s.assist_loop()
        served[label] = sorted(s.ids("score A"))
    assert served == {"greedy": ["SV7"], "reach": ["IN5", "SV7"]}


@pytest.mark.parametrize("kind, chosen", [(None, "SV12"), ("shift", "TE12"),
                                          ("develop", "SC12"), ("extra_draw", "IN12")])
def test_D2_effect_kind_features_pick_the_customer_by_its_venture_effect(kind, chosen):
    """features.C_KIND (P2P-D2): A holds SV3, TE3, SC3, IN3, and only all four together
    reach 12, which serves each of the row's SV12 (patience), TE12 (shift 2), SC12
    (develop deck) and IN12 (extra_draw 1): the options differ only in the customer's
    effect. Greedy scores them alike and takes the first in row order; a weight on one
    effect kind takes the customer carrying it."""
    strategy = "greedy" if kind is None else {f"commit.kind_{kind}": 1.0}
    s = State(players=2, strategies={"A": strategy, "B": PASSIVE})
    s.row("SV12", "TE12", "SC12", "IN12").hand("A", "SV3", "TE3", "SC3", "IN3").hand("B", "IN1")
    s.assist_loop()
    assert [c for c in ("SV12", "TE12", "SC12", "IN12") if c not in s.ids("row")] == [chosen]
