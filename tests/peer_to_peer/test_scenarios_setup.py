"""Peer-to-Peer setup scenarios, P2P-S1 .. P2P-S6 (rules: docs/rules/peer-to-peer.md).

Expected values are worked out from the rules file and the default card file's
description there (54 cards: 10 S cards, 16 ventures with values 10-13, every venture
with an effect), not read from engine output.
"""
import math

import numpy as np
import pytest

from sim.games.peer_to_peer import constants as k
from sim.core.rng_kernel import seed_game, shuffle

from p2p_state import PASSIVE, Game, State, rounds_of
from sim.games.peer_to_peer import engine_kernel as e

S_CARDS = {"A": {"SV1", "TE2", "SC3", "IN4", "OPA"}, "B": {"IN1", "SC2", "TE3", "SV4", "OPB"}}
TEAM_SIZES = {1: (1, 0), 2: (1, 1), 3: (2, 1), 4: (2, 2), 5: (3, 2), 6: (3, 3)}   # P2P-S1


pytestmark = pytest.mark.usefixtures("p2p_kernels")


def seat_plan(players, comp):
    """P2P-S1 worked out by hand: (team of each seat, dealt a starting venture?)."""
    a, b = TEAM_SIZES[players]
    plan = [("A", True)] * a + [("B", True)] * b
    if players in (3, 5) and comp != "none":
        plan.append(("B", comp == "extra_venture"))   # the smaller team (B) gets one more seat
    return plan


# ---------------------------------------------------------------- P2P-S1

@pytest.mark.parametrize("players", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("comp", ["extra_venture", "extra_venture_empty", "none"])
def test_S1_seats_and_starting_ventures_per_player_count(players, comp):
    """P2P-S1: one seat per player, team A the larger; with 3 or 5 players team B gets an
    extra seat that is dealt a venture (extra_venture), starts empty
    (extra_venture_empty), or is not there (none). Checked on result rows (start_card_*)."""
    plan = seat_plan(players, comp)
    game = Game(players=players, rules={"odd_team_compensation": comp})
    teams = ["AB"[t] for t in game.seats[k.SEAT_TEAM] if t >= 0]
    assert teams == [team for team, _ in plan]
    rows, fates = game.run(40, seed=3)
    assert (rows["error"] == 0).all()
    venture = game.table.kind == k.VENTURE
    for s in range(k.MAX_SEATS):
        starts = rows[f"start_card_{s}"]
        if s < len(plan) and plan[s][1]:
            assert (starts >= 0).all()
            assert venture[starts].all(), "a starting venture must be a venture card (S2)"
            team = plan[s][0]
            # the start card stays on the team's seat or is pushed to its score pile (R2d)
            where = fates[np.arange(len(rows)), starts]
            own = {k.FATE_VENTURE_A, k.FATE_SCORE_A} if team == "A" else {k.FATE_VENTURE_B,
                                                                           k.FATE_SCORE_B}
            assert set(where.tolist()) <= own
        else:
            assert (starts == -1).all()
    # seats never share a starting card
    dealt = [s for s, (_, d) in enumerate(plan) if d]
    for row in rows:
        cards = [row[f"start_card_{s}"] for s in dealt]
        assert len(set(cards)) == len(cards)


@pytest.mark.parametrize("players", [3, 5])
def test_S1_extra_venture_empty_seat_starts_empty_and_belongs_to_team_B(players):
    """P2P-S1 extra_venture_empty: the extra seat exists for team B, starts with no card,
    and team B can place a won customer there (D4 lists every seat of the team)."""
    s = State(players=players, rules={"odd_team_compensation": "extra_venture_empty"})
    starts = s.setup(seed=5)
    extra = players + 0   # seats: A's, then B's, then the extra seat
    assert s.seats[k.SEAT_TEAM, extra] == 1
    assert starts[extra] == -1 and s.count(f"seat {extra}") == 0
    for seat in range(players):
        assert s.count(f"seat {seat}") == 1

    # B's player seat is full; a venture-loving B puts the customer on the empty extra seat.
    s = State(players=players, rules={"odd_team_compensation": "extra_venture_empty"},
              strategies={"B": {"dest.venture": 5.0, "dest.overflow": -3.0}})
    limit = 3 if players == 3 else 2
    b_seats = [x for x in range(k.MAX_SEATS) if s.seats[k.SEAT_TEAM, x] == 1]
    assert b_seats[-1] == extra
    pool = iter(["SV10", "SV11", "SV12", "SC10", "SC11", "SC12"])
    for seat in b_seats[:-1]:
        s.seat(seat, *[next(pool) for _ in range(limit)])
    s.place("B", "TE8")
    assert s.ids(f"seat {extra}") == ["TE8"]


def test_S1_solo_is_one_team_with_one_seat():
    """P2P-S1: one player -> one team, one seat; team B never acts."""
    game = Game(players=1)
    assert [t for t in game.seats[k.SEAT_TEAM] if t >= 0] == [0]
    rows, _ = game.run(60, seed=4)
    assert (rows["start_card_0"] >= 0).all() and (rows["start_card_1"] == -1).all()
    assert (rows["assists_b"] == 0).all() and (rows["score_b"] == 0).all()
    assert (rows["contests"] == 0).all()


# ---------------------------------------------------------------- P2P-S2

def expected_starts(game, seed, index):
    """P2P-S2 by hand: S cards aside, shuffle the rest (the game's first random draw), deal
    from the top for each seat until it revealed 2 ventures; greedy D1 keeps a venture with
    an effect, then the higher value, then the first revealed."""
    rng = np.empty(4, np.uint64)
    seed_game(rng, seed, index)
    table = game.table
    deck = np.array([c for c in range(table.n) if table.start[c] == k.NO_TEAM], np.int64)
    shuffle(rng, deck, len(deck))
    pos, out, pairs = 0, [], []
    for s in range(k.MAX_SEATS):
        if game.seats[k.SEAT_TEAM, s] < 0 or not game.seats[k.SEAT_DEALT, s]:
            out.append(-1)
            continue
        pair = []
        while len(pair) < 2:
            c = int(deck[pos])
            pos += 1
            if table.kind[c] == k.VENTURE:
                pair.append(c)
        key = [(table.effect[c] != k.EFFECT_NONE, int(table.value[c])) for c in pair]
        out.append(pair[1] if key[1] > key[0] else pair[0])
        pairs.append(pair)
    return out, pairs, pos


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5, 6])
def test_S2_each_seat_keeps_one_of_the_next_two_ventures_and_the_rest_return(players):
    """P2P-S2: team A's seats, then team B's, each deal from the top until 2 ventures were
    revealed and keep one (D1); every other revealed card returns to the deck, which
    becomes the customer deck (S5), so it holds every non-S card but the kept ones (with
    unchosen_ventures=deck; the default `aside` is tested in test_scenarios_reading_options.py)."""
    game = Game(players=players)
    rows, fates = game.run(12, seed=11)
    for i, row in enumerate(rows):
        starts, pairs, _ = expected_starts(game, 11, i)
        assert [int(row[f"start_card_{s}"]) for s in range(k.MAX_SEATS)] == starts
        _, _, events = game.traced(11, i)
        seen = [(ev[3], ev[4]) for ev in events if ev[1] == e.EV_SEAT_START]
        assert [set(p) for p in seen] == [set(p) for p in pairs]   # the other card is the pair's
    s = State(players=players, rules={"unchosen_ventures": "deck",
                                      "solo_spare_start_cards": "out"})
    starts = s.setup(seed=11, game_index=0)
    kept = {s.name(c) for c in starts if c >= 0}
    non_s = {cid for i, cid in enumerate(s.table.ids) if s.table.start[i] == k.NO_TEAM}
    assert set(s.ids("customers")) | set(s.ids("row")) == non_s - kept


def test_S2_random_strategy_keeps_one_of_its_two_revealed_ventures():
    """P2P-S2 / D1 with a noisy choice: the kept card is still one of the seat's two."""
    game = Game(players=4, strategies={"A": "random", "B": "random"})
    kept_second = 0
    for i in range(20):
        row, _, events = game.traced(5, i)
        _, pairs, _ = expected_starts(game, 5, i)
        for s, pair in enumerate(pairs):
            assert row[f"start_card_{s}"] in pair
            kept_second += row[f"start_card_{s}"] == pair[1]
    assert 0 < kept_second < 80   # random really chooses


# ---------------------------------------------------------------- P2P-S3, S4

@pytest.mark.parametrize("players", [1, 2, 4, 5])
def test_S3_group_decks_hold_the_team_S_cards_solo_B_customers(players):
    """P2P-S3: each team's 5 S cards form its group deck (then S4 draws the hand from it);
    in a solo game team B's S cards are customers (solo_spare_start_cards=customers). Only
    the ventures set aside in S2 are out."""
    s = State(players=players)
    s.setup(seed=2)
    assert set(s.ids("deck A")) | set(s.ids("hand A")) == S_CARDS["A"]
    if players == 1:
        assert S_CARDS["B"] <= set(s.ids("customers")) | set(s.ids("row"))
        assert s.count("deck B") == s.count("hand B") == 0
    else:
        assert set(s.ids("deck B")) | set(s.ids("hand B")) == S_CARDS["B"]
    out = s.ids("out")
    assert len(out) == len(s.events(e.EV_SEAT_START))
    assert all(s.table.kind[s.id(c)] == k.VENTURE and s.table.start[s.id(c)] == k.NO_TEAM
               for c in out)


def test_S3_group_deck_is_shuffled():
    """P2P-S3: the S cards are shuffled: the card left in the deck after the draw varies."""
    left = set()
    for seed in range(1, 25):
        s = State(players=2)
        s.setup(seed=seed)
        left.add(s.ids("deck A")[0])
    assert len(left) >= 3


def test_S3_solo_fates_B_S_cards_out_of_the_game():
    """P2P-S3 solo, solo_spare_start_cards=out: the result rows give team B's S cards
    fate 9 (out) in every game."""
    game = Game(players=1, rules={"solo_spare_start_cards": "out"})
    _, fates = game.run(30, seed=8)
    for cid in S_CARDS["B"]:
        assert (fates[:, game.table.ids.index(cid)] == k.FATE_OUT).all()
    for cid in S_CARDS["A"]:   # group cards never leave the group piles
        assert (fates[:, game.table.ids.index(cid)] == k.FATE_GROUP_A).all()


@pytest.mark.parametrize("hand_size,hand,deck", [(4, 4, 1), (2, 2, 3), (5, 5, 0), (7, 5, 0)])
def test_S4_teams_draw_hand_size(hand_size, hand, deck):
    """P2P-S4: each team draws hand_size cards from its 5-card group deck (all 5 if more)."""
    s = State(players=2, rules={"hand_size": hand_size})
    s.setup(seed=3)
    for team in "AB":
        assert s.count(f"hand {team}") == hand and s.count(f"deck {team}") == deck


# ---------------------------------------------------------------- P2P-S5

@pytest.mark.parametrize("players,dealt_seats", [(1, 1), (2, 2), (3, 4), (4, 4), (5, 6), (6, 6)])
@pytest.mark.parametrize("initial_row", [0, 2, 3])
def test_S5_customer_deck_and_initial_row(players, dealt_seats, initial_row):
    """P2P-S5: every remaining card is a customer; initial_row of them enter the row
    (arriving in round 1). 54 cards - 10 S cards - per dealt seat the kept venture and the
    one set aside (S2); solo: + team B's 5 S cards (S3)."""
    s = State(players=players, rules={"initial_row": initial_row})
    s.setup(seed=9)
    assert s.count("row") == initial_row
    spare = 5 if players == 1 else 0
    assert s.count("customers") == 54 - 10 - 2 * dealt_seats + spare - initial_row
    for cid in s.ids("row"):
        assert s.arrival[s.id(cid)] == 1


# ---------------------------------------------------------------- P2P-S6

def test_S6_first_marker_is_random():
    """P2P-S6: a random team gets the first team marker (about half the games each)."""
    rows, _ = Game(players=4).run(400, seed=21)
    share_b = float(np.mean(rows["first_marker"] == 1))
    assert 0.4 < share_b < 0.6


@pytest.mark.parametrize("fixed,code", [("A", 0), ("B", 1)])
def test_S6_first_marker_option_fixes_the_team(fixed, code):
    """P2P-S6 reading first_marker=A|B (for experiments), and it holds round 1's marker."""
    game = Game(players=4, rules={"first_marker": fixed})
    rows, _ = game.run(30, seed=2)
    assert (rows["first_marker"] == code).all()
    _, _, events = game.traced(2, 0)
    first_round = rounds_of(events)[1]
    assert first_round[0][1] == e.EV_MARKER and first_round[0][2] == code


def test_S6_solo_marker_is_team_A():
    rows, _ = Game(players=1).run(20, seed=2)
    assert (rows["first_marker"] == 0).all()
