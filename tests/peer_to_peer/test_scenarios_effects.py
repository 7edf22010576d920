"""Peer-to-Peer effect scenarios, P2P-E1 .. P2P-E8 (rules: docs/rules/peer-to-peer.md).

Default deck effects (rules file): SV10/SV11 wild_domain, SV12 patience, SV13 tiebreak,
TE10/TE11 shift 1, TE12/TE13 shift 2, SC10 develop discard, SC11 develop hand,
SC12/SC13 develop deck, IN10-IN12 extra_draw 1, IN13 extra_draw 2, TE7 boost 2,
IN9 boost 1, SC8 dual_domain technology, SV9 dual_domain information.
Venture effects work only on one of the team's seats; each instance once per round.
"""
import pytest

from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer import engine_kernel as e

from p2p_state import Game, State, deck_with, rounds_of


pytestmark = pytest.mark.usefixtures("p2p_kernels")


# ---------------------------------------------------------------- E1 wild_domain

def test_E1_wild_domain_makes_an_unmatched_assist_legal():
    """P2P-E1: TE5 alone cannot assist SC5 (no Science card); with SV10 on A's seat it can.
    The effect works only from A's own seat (not from B's, not from A's score pile)."""
    s = State(players=2).hand("A", "TE5")
    assert s.eval_assist("A", ["TE5"], "SC5") is None
    assert State(players=2).hand("A", "TE5").seat(0, "SV10").eval_assist("A", ["TE5"], "SC5") == {"TE5": 5}
    assert State(players=2).hand("A", "TE5").seat(1, "SV10").eval_assist("A", ["TE5"], "SC5") is None
    assert State(players=2).hand("A", "TE5").score("A", "SV10").eval_assist("A", ["TE5"], "SC5") is None
    # the sum must still be exact
    assert State(players=2).hand("A", "TE4").seat(0, "SV10").eval_assist("A", ["TE4"], "SC5") is None


def test_E1_wild_domain_once_per_round():
    """P2P-E1 / R2f: with one wild card A assists only one of two customers that both need
    it (greedy: IN6, the more valuable); with two wild cards it assists both."""
    s = State(players=2).row("SC5", "IN6").hand("A", "TE5", "SV6").seat(0, "SV10")
    s.assist_loop()
    assert s.ids("score A") == ["IN6"] and s.ids("row") == ["SC5"] and s.ids("hand A") == ["TE5"]
    s = State(players=2).row("SC5", "IN6").hand("A", "TE5", "SV6").seat(0, "SV10", "SV11")
    s.assist_loop()
    assert sorted(s.ids("score A")) == ["IN6", "SC5"] and s.count("row") == 0


# ---------------------------------------------------------------- E2 shift

def test_E2_shift_moves_one_card_up_or_down_by_at_most_k():
    """P2P-E2: with TE10 (shift 1) SV4 or SV6 can assist SV5, SV3 cannot; TE12 (shift 2)
    lets SV3 assist SV5. Only one card moves: SV1+SV2 reach SV5 with shift 2 on one card."""
    one = lambda: State(players=2).hand("A", "SV3", "SV4", "SV6", "SV1", "SV2").seat(0, "TE10")
    two = lambda: State(players=2).hand("A", "SV3", "SV4", "SV6", "SV1", "SV2").seat(0, "TE12")
    assert State(players=2).hand("A", "SV4").eval_assist("A", ["SV4"], "SV5") is None
    assert one().eval_assist("A", ["SV4"], "SV5") == {"SV4": 5}
    assert one().eval_assist("A", ["SV6"], "SV5") == {"SV6": 5}
    assert one().eval_assist("A", ["SV3"], "SV5") is None
    assert two().eval_assist("A", ["SV3"], "SV5") == {"SV3": 5}
    assert two().eval_assist("A", ["SV1", "SV2"], "SV5") == {"SV1": 1, "SV2": 4}
    assert one().eval_assist("A", ["SV1", "SV2"], "SV5") is None
    assert two().eval_assist("A", ["SV6", "SV2"], "SV5") is None    # would need -3


def test_E2_shift_once_per_round():
    """P2P-E2 / R2f: one shift venture, two customers that each need a shift: one assist."""
    s = State(players=2).row("SV5", "TE5").hand("A", "SV4", "TE4").seat(0, "TE10")
    s.assist_loop()
    assert s.count("score A") == 1 and s.count("row") == 1 and s.count("hand A") == 1
    assert s.used[s.id("TE10")] == 1


def test_E2_shifted_value_counts_in_a_contest():
    """P2P-E2 / R2c: A's SV4 shifted to 5 plus TE3 plays [5 Service, 3 Tech]; B's TE5+SV3
    [5 Tech, 3 Service]: values equal, A wins on domain (B holds the marker)."""
    s = State(players=4, marker="B").row("TE8").seat(0, "TE10")
    s.hand("A", "SV4", "TE3").hand("B", "TE5", "SV3")
    s.assist_loop()
    (ev,) = s.events(e.EV_CONTEST)
    assert (ev[2], ev[4]) == (0, k.WHY_DOMAIN) and s.ids("score A") == ["TE8"]


def test_E2_D2_commits_a_card_shifted_down_to_zero_but_not_below():
    """P2P-E2 / D2: SV0 (a customer worth 0, from a card file) can take SV2 shifted down
    by 2 to 0 with TE12 (shift 2); SV3 would need -3 and cannot."""
    cards = deck_with("SV0,Service 0,Service,0,venture,,")
    s = State(players=2, cards=cards).row("SV0").hand("A", "SV2").seat(0, "TE12")
    s.assist_loop()
    assert s.ids("score A") == ["SV0"] and s.used[s.id("TE12")] == 1
    s = State(players=2, cards=cards).row("SV0").hand("A", "SV3").seat(0, "TE12")
    s.assist_loop()
    assert s.ids("row") == ["SV0"] and s.ids("hand A") == ["SV3"]


def test_D2_equal_scores_go_to_the_smallest_hand_subset_first():
    """D2: options are ordered (hand subset mask, row position) and ties keep the first.
    SV1+SV5 (slots 0, 1: mask 3) can assist only SV6, TE2+TE4 (mask 12) only TE6; both
    score 6 - 2 cards. TE6 comes first in the row, but mask 3 < 12: A takes SV6."""
    s = State(players=2).row("TE6", "SV6").hand("A", "SV1", "SV5", "TE2", "TE4")
    s.assist_loop()
    declared = [ev[3] for ev in s.events(e.EV_DECLARE)]
    assert declared == [s.id("SV6"), s.id("TE6")] and s.ids("score A") == ["SV6", "TE6"]


# ---------------------------------------------------------------- E3 develop

@pytest.mark.parametrize("card,target,weight", [
    ("SC11", "hand", "dest.develop_hand"),
    ("SC12", "deck", "dest.develop_deck"),
    ("SC10", "discard", "dest.develop_discard"),
])
def test_E3_develop_puts_the_won_customer_into_a_group_pile(card, target, weight):
    """P2P-E3: a team that wins a customer may put it into its group deck (shuffled in),
    hand or discard, where its `develop` venture allows."""
    s = State(players=2, strategies={"A": {weight: 5.0}}).row("SV5").seat(0, card)
    s.hand("A", "SV2", "SV3").deck("A", "TE1", "TE4", "TE6")
    s.assist_loop(check=True)
    assert s.where("SV5") == f"{target} A"
    assert s.used[s.id(card)] == 1 and s.stats[e.T_SENT_DECK] == 1
    if target == "deck":
        assert sorted(s.ids("deck A")) == ["SV5", "TE1", "TE4", "TE6"]


def test_E3_develop_deck_is_shuffled_in():
    positions = set()
    for seed in range(1, 16):
        s = State(players=2, seed=seed, strategies={"A": {"dest.develop_deck": 5.0}})
        s.row("SV5").seat(0, "SC12").hand("A", "SV2", "SV3").deck("A", "TE1", "TE4", "TE6")
        s.assist_loop()
        positions.add(s.ids("deck A").index("SV5"))
    assert len(positions) >= 3


def test_E3_develop_needs_the_effect_on_the_team_seat():
    """P2P-E3: without a usable develop venture (on B's seat, in A's score pile) the
    develop options do not exist: a develop-loving A falls back to its score pile."""
    for where in ("seat 1", "score A"):
        s = State(players=2, strategies={"A": {"dest.develop_deck": 5.0, "dest.score": 1.0}})
        s.row("SV5").hand("A", "SV2", "SV3").put(where, "SC12")
        s.assist_loop()
        assert s.where("SV5") == "score A" and s.stats[e.T_SENT_DECK] == 0


def test_E3_builder_prefers_develop_deck_and_develops_once_per_round():
    """P2P-E3: builder (early phase: the customer deck holds more than 10 cards) puts its
    first customer into its deck; the develop venture is then used for the round, so the
    second customer goes onto a seat (builder: venture 2.0 > score 1.0)."""
    s = State(players=2, strategies={"A": "builder"}).row("SV5", "TE9")
    s.customers(*[f"IN{v}" for v in range(1, 13)])
    s.seat(0, "SC12").hand("A", "SV2", "SV3", "TE4", "TE5")
    s.assist_loop()
    assert s.where("TE9") == "deck A"      # greedy-style: the more valuable one first
    assert s.where("SV5") == "seat 0"
    assert s.stats[e.T_SENT_DECK] == 1 and s.stats[e.T_SENT_VENTURE] == 1


def test_E3_customers_reach_group_piles_only_by_develop():
    """P2P-E3 on real games: a non-S card ends in a team's group piles exactly as often as
    that team developed a customer (develop is the only way in; group cards never leave)."""
    for players in (2, 4, 5):
        game = Game(players=players, strategies={"A": "builder", "B": "cautious"})
        rows, fates = game.run(150, seed=12)
        non_s = game.table.start == k.NO_TEAM
        for team, fate, col in ((0, k.FATE_GROUP_A, "sent_deck_a"), (1, k.FATE_GROUP_B, "sent_deck_b")):
            in_group = (fates[:, non_s] == fate).sum(axis=1)
            assert (in_group == rows[col]).all()   # a developed customer never leaves
        assert rows["sent_deck_a"].sum() > 0


# ---------------------------------------------------------------- E4 extra_draw

def test_E4_extra_draw_adds_to_the_refresh():
    """P2P-E4: IN13 (extra_draw 2) and IN10 (extra_draw 1) on A's seats: A draws 4+2+1 = 7.
    An extra_draw card in the score pile or on the other team's seat adds nothing."""
    deck = ["SV1", "SV2", "SV3", "SV4", "SV5", "SV6", "SV7", "SV8", "SV9"]
    s = State(players=4).deck("A", *deck).seat(0, "IN13").seat(1, "IN10")
    s.score("A", "IN11").seat(2, "IN12")
    s.refresh("A")
    assert s.ids("hand A") == deck[:7]
    (ev,) = s.events(e.EV_REFRESH)
    assert ev[3:6] == (7, 0, 3)


# ---------------------------------------------------------------- E5 tiebreak: see R2c tests

def test_E5_tiebreak_only_from_a_seat():
    """P2P-E5: SV13 in B's score pile is no tiebreak: the domain rank decides for A."""
    s = State(players=4, marker="B").row("TE8").score("B", "SV13")
    s.hand("A", "SV5", "TE3").hand("B", "TE5", "SV3")
    s.assist_loop()
    (ev,) = s.events(e.EV_CONTEST)
    assert (ev[2], ev[4]) == (0, k.WHY_DOMAIN)


# ---------------------------------------------------------------- E6 patience

def test_E6_patience_saves_one_customer():
    """P2P-E6 / D6: SV5 and IN9 waited 2 rounds; A's SV12 keeps one (greedy: the more
    valuable IN9) in the row; SV5 turns unhappy."""
    s = State(players=2, round=2).row("SV5", "IN9", arrival=1).row("TE3", arrival=2).seat(0, "SV12")
    s.unhappy()
    assert s.ids("unhappy") == ["SV5"] and s.ids("row") == ["IN9", "TE3"]
    assert s.used[s.id("SV12")] == 1


def test_E6_each_team_patience_saves_one():
    twins = deck_with("PTX,Patience twin,Service,12,venture,,patience")
    s = State(players=2, round=2, cards=twins).row("SV5", "IN9", "TE3", arrival=1)
    s.seat(0, "SV12").seat(1, "PTX")
    s.unhappy()
    assert s.ids("unhappy") == ["TE3"] and s.ids("row") == ["SV5", "IN9"]


def test_E6_patience_saves_from_row_capacity():
    """P2P-R4 / E6: patience can save a customer the row_capacity rule would send away."""
    s = State(players=2, round=2, rules={"row_capacity": 1}).row("SV5", "TE9", arrival=2)
    s.seat(1, "SV12")
    s.unhappy()
    assert s.count("unhappy") == 0 and s.ids("row") == ["SV5", "TE9"]


def test_E6_patience_not_from_the_score_pile_and_optional():
    s = State(players=2, round=2).row("SV5", arrival=1).score("A", "SV12")
    s.unhappy()
    assert s.ids("unhappy") == ["SV5"]
    s = State(players=2, round=2, strategies={"A": {"save.none": 100.0}}).row("SV5", arrival=1)
    s.seat(0, "SV12").unhappy()
    assert s.ids("unhappy") == ["SV5"] and s.used[s.id("SV12")] == 0   # D6: save nobody


def test_E6_patience_works_every_round_in_a_solo_game():
    """P2P-E6 in solo games: a passive solo team (it never assists) whose seat holds SV12,
    with 1 customer at setup and 1 a round and patience 1, saves one customer EVERY round:
    unhappy after round r is r - 1, so the limit of 4 is reached after round 5 (not 4)."""
    game = Game(players=1, rules={"customer_patience": 1, "initial_row": 1,
                                  "new_customers_per_round": 1},
                strategies={"A": {"commit.pass": 1e6}})
    sv12 = game.table.ids.index("SV12")
    found = 0
    for i in range(150):
        row, _, events = game.traced(seed=4, game_index=i)
        if row["start_card_0"] != sv12:
            continue
        found += 1
        by_round = rounds_of(events)
        saves = [sum(ev[1] == e.EV_SAVE for ev in by_round[r]) for r in range(1, row["rounds"] + 1)]
        assert saves == [1] * 5, saves
        assert (k.WINNER_NAMES[row["winner"]], row["rounds"], row["unhappy"]) == ("all_lose", 5, 4)
    assert found >= 2


# ---------------------------------------------------------------- E7 boost

def test_E7_boost_counts_value_or_value_plus_k():
    """P2P-E7: TE7 (boost 2) counts as 7 or 9, never 8; IN9 (boost 1) as 9 or 10."""
    s = State(players=2).hand("A", "TE7", "SC2", "IN9", "IN1")
    assert s.eval_assist("A", ["TE7"], "TE9") == {"TE7": 9}
    assert s.eval_assist("A", ["TE7"], "TE8") is None
    assert s.eval_assist("A", ["TE7", "SC2"], "SC9") == {"TE7": 7, "SC2": 2}
    assert s.eval_assist("A", ["TE7", "SC2"], "SC11") == {"TE7": 9, "SC2": 2}
    assert s.eval_assist("A", ["IN9", "IN1"], "IN11") == {"IN9": 10, "IN1": 1}


def test_R2a_a_boost_is_played_before_the_shift_which_stays_for_later():
    """P2P-R2a / E2 / E7: IN9 (boost 1) reaches IN10 boosted or shifted by TE10 (shift 1);
    every combination of boosts comes before the shift, so A plays the boost and keeps the
    shift, with which SV4 then assists SV5 in the same round."""
    s = State(players=2, marker="B").row("IN10", "SV5").hand("A", "IN9", "SV4").seat(0, "TE10")
    s.assist_loop()
    declared = {s.name(ev[3]): ev[4] for ev in s.events(e.EV_DECLARE) if ev[2] == 0}
    assert declared == {"IN10": -1, "SV5": s.id("TE10")}
    assert sorted(s.ids("score A")) == ["IN10", "SV5"]
    assert s.used[s.id("IN9")] == 1 and s.used[s.id("TE10")] == 1


def test_E7_boosted_value_counts_in_a_contest():
    """P2P-E7 / R2c: A plays TE7 boosted to 9 [9]; B (marker) TE8+SV1 [8, 1]: A wins."""
    s = State(players=2, marker="B").row("TE9").hand("A", "TE7").hand("B", "TE8", "SV1")
    s.assist_loop()
    (ev,) = s.events(e.EV_CONTEST)
    assert (ev[2], ev[4]) == (0, k.WHY_HIGHER_CARD) and s.ids("score A") == ["TE9"]
    assert s.used[s.id("TE7")] == 1


# ---------------------------------------------------------------- E8 dual_domain

def test_E8_dual_domain_matches_a_second_domain():
    """P2P-E8: SC8 (dual_domain technology) matches Technology and Science; IN8 does not
    match Technology; SV9 (dual_domain information) assists IN9."""
    s = State(players=2).hand("A", "SC8", "IN8", "SV9", "IN1")
    assert s.eval_assist("A", ["SC8"], "TE8") == {"SC8": 8}
    assert s.eval_assist("A", ["IN8"], "TE8") is None
    assert s.eval_assist("A", ["SV9"], "IN9") == {"SV9": 9}
    assert s.eval_assist("A", ["SV9"], "TE9") is None
    assert s.eval_assist("A", ["SC8", "IN1"], "TE9") == {"SC8": 8, "IN1": 1}


def test_E8_dual_domain_in_the_loop():
    s = State(players=2).row("TE8").hand("A", "SC8")
    s.assist_loop()
    assert s.ids("score A") == ["TE8"] and s.ids("discard A") == ["SC8"]
