"""Readings of docs/rules/peer-to-peer.md that are options: scenario tests for
both values of unchosen_ventures (P2P-S2), solo_spare_start_cards (P2P-S3),
contest_unpaired (P2P-R2c) and patience_resets_wait (P2P-E6), from hand-made states.
Expected outcomes are worked out from the rules file.
"""
import numpy as np
import pytest

from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer import engine_kernel as e

from p2p_state import Game, State, deck_with

S_CARDS_B = {"IN1", "SC2", "TE3", "SV4", "OPB"}
# A card worth 0: the default deck has none (Open Protocol is worth 5, P2P-C3),
# and R2c's unpaired step needs an extra card worth 0 after effects.
ZERO = deck_with("ZR0,Zero,Science,0,group,,")


pytestmark = pytest.mark.usefixtures("p2p_kernels")


def _pairs(s):
    """(seat, kept, not kept) from the setup trace (EV_SEAT_START)."""
    return [(ev[2], s.name(ev[3]), s.name(ev[4])) for ev in s.events(e.EV_SEAT_START)]


# ---------------------------------------------------------------- P2P-S2 unchosen_ventures

@pytest.mark.parametrize("players", [1, 3, 6])
def test_S2_unchosen_ventures_aside_leave_the_game(players):
    """P2P-S2, unchosen_ventures=aside (default): the venture each dealt seat revealed and
    did not keep is out of the game; the customer deck holds every non-S card but the
    kept and the set-aside ventures (solo: plus team B's S cards, S3)."""
    s = State(players=players)
    s.setup(seed=11)
    pairs = _pairs(s)
    kept = {c for _, c, _ in pairs}
    aside = {c for _, _, c in pairs}
    assert len(aside) == len(pairs) and not kept & aside
    assert all(s.table.kind[s.id(c)] == k.VENTURE for c in aside)
    non_s = {cid for i, cid in enumerate(s.table.ids) if s.table.start[i] == k.NO_TEAM}
    spare = S_CARDS_B if players == 1 else set()
    assert set(s.ids("out")) == aside
    assert set(s.ids("customers")) | set(s.ids("row")) == (non_s - kept - aside) | spare
    assert [(ev[2], s.name(ev[3])) for ev in s.events(e.EV_ASIDE)] == [(x, c) for x, _, c in pairs]


@pytest.mark.parametrize("players", [1, 3, 6])
def test_S2_unchosen_ventures_deck_return_to_the_customer_deck(players):
    """P2P-S2, unchosen_ventures=deck (the other reading): the other venture goes back into
    the deck with the revealed group cards; nothing is out but (solo, S3 out) B's S cards."""
    s = State(players=players, rules={"unchosen_ventures": "deck",
                                      "solo_spare_start_cards": "out"})
    s.setup(seed=11)
    pairs = _pairs(s)
    kept = {c for _, c, _ in pairs}
    non_s = {cid for i, cid in enumerate(s.table.ids) if s.table.start[i] == k.NO_TEAM}
    assert set(s.ids("customers")) | set(s.ids("row")) == non_s - kept
    assert {c for _, _, c in pairs} <= set(s.ids("customers")) | set(s.ids("row"))
    assert set(s.ids("out")) == (S_CARDS_B if players == 1 else set())
    assert not s.events(e.EV_ASIDE)


def test_S2_unchosen_ventures_fates_in_whole_games():
    """P2P-S2 over whole games: with `aside` every game ends with exactly one card out per
    dealt seat, the seat's unchosen venture, never dealt as a customer; with `deck` no card
    of a 4-player game is ever out."""
    game = Game(players=4)
    for i in range(10):
        _, fates, events = game.traced(seed=3, game_index=i)
        aside = {game.table.ids[ev[4]] for ev in events if ev[1] == e.EV_SEAT_START}
        assert {cid for cid, f in fates.items() if f == k.FATE_OUT} == aside
    _, fates = Game(players=4, rules={"unchosen_ventures": "deck"}).run(40, seed=3)
    assert not (fates == k.FATE_OUT).any()


# ---------------------------------------------------------------- P2P-S3 solo_spare_start_cards

def test_S3_solo_spare_start_cards_customers_join_the_customer_deck():
    """P2P-S3 solo, solo_spare_start_cards=customers (default): team B's five S cards are
    customers (in the deck or the row), team A's S cards form its group deck."""
    s = State(players=1)
    s.setup(seed=2)
    customers = set(s.ids("customers")) | set(s.ids("row"))
    assert S_CARDS_B <= customers
    assert not S_CARDS_B & set(s.ids("out"))
    assert s.count("deck B") == s.count("hand B") == 0
    # S5: 54 cards - A's 5 S cards - 1 kept venture - 1 set aside = 47 customers
    assert s.count("customers") + s.count("row") == 47


def test_S3_solo_spare_start_cards_out_of_the_game():
    """P2P-S3 solo, solo_spare_start_cards=out (the other reading): B's S cards are out."""
    s = State(players=1, rules={"solo_spare_start_cards": "out"})
    s.setup(seed=2)
    assert S_CARDS_B <= set(s.ids("out"))
    assert not S_CARDS_B & (set(s.ids("customers")) | set(s.ids("row")))
    assert s.count("customers") + s.count("row") == 42


def test_S3_solo_spare_start_cards_fates_in_whole_games():
    """Whole solo games: with `customers` B's S cards are dealt and served or turn unhappy
    (never out); with `out` they are out in every game; B's cards never go to a team B."""
    ids = Game(players=1).table.ids
    cols = [ids.index(c) for c in S_CARDS_B]
    _, fates = Game(players=1).run(200, seed=8)
    assert not (fates[:, cols] == k.FATE_OUT).any()
    assert np.isin(fates[:, cols], [k.FATE_SCORE_A, k.FATE_VENTURE_A, k.FATE_UNHAPPY]).any()
    assert not np.isin(fates[:, cols], [k.FATE_SCORE_B, k.FATE_VENTURE_B, k.FATE_GROUP_B]).any()
    _, fates = Game(players=1, rules={"solo_spare_start_cards": "out"}).run(50, seed=8)
    assert (fates[:, cols] == k.FATE_OUT).all()


# ---------------------------------------------------------------- P2P-R2c contest_unpaired

def test_R2c_contest_unpaired_longer_wins():
    """P2P-R2c, contest_unpaired=longer_wins (default): IN3 SC2 ZR0 against TE3 SV2: the
    pairs (3, 3) and (2, 2) are equal, A's list is longer: A wins."""
    s = State(players=4, cards=ZERO)
    assert s.contest(["SC2", "IN3", "ZR0"], ["SV2", "TE3"], marker="B") == ("A", k.WHY_LONGER)
    assert s.contest(["SV2", "TE3"], ["SC2", "IN3", "ZR0"], marker="A") == ("B", k.WHY_LONGER)


def test_R2c_contest_unpaired_tied_goes_on_to_the_next_steps():
    """P2P-R2c, contest_unpaired=tied: ZR0 counts for nothing, the contest goes on as if the
    lists were identical: tiebreak (E5) first, then domains pair by pair (Technology over
    Information in the first pair: B), then the marker."""
    s = State(players=4, cards=ZERO, rules={"contest_unpaired": "tied"})
    assert s.contest(["SC2", "IN3", "ZR0"], ["SV2", "TE3"], marker="A") == ("B", k.WHY_DOMAIN)
    assert s.contest(["SC2", "IN3", "ZR0"], ["SV2", "TE3"], tiebreak_a=True) == ("A", k.WHY_TIEBREAK)
    # equal pairs with equal domains: the marker holder wins, whichever list is longer
    twin = deck_with("ZR0,Zero,Science,0,group,,", "SC2X,Science 2 twin,Science,2,group,,")
    s = State(players=4, cards=twin, rules={"contest_unpaired": "tied"})
    assert s.contest(["SC2", "ZR0"], ["SC2X"], marker="B") == ("B", k.WHY_MARKER)
    assert s.contest(["SC2", "ZR0"], ["SC2X"], marker="A") == ("A", k.WHY_MARKER)
    s = State(players=4, cards=twin)
    assert s.contest(["SC2", "ZR0"], ["SC2X"], marker="B") == ("A", k.WHY_LONGER)


@pytest.mark.parametrize("reading,winner,why", [("longer_wins", "A", k.WHY_LONGER),
                                                ("tied", "B", k.WHY_DOMAIN)])
def test_R2c_contest_unpaired_in_the_assist_loop(reading, winner, why):
    """P2P-R2a-c in the loop: one customer, Open Protocol B (worth 5, domain any). Team A
    (no marker, it likes playing many cards) commits IN3 SC2 ZR0, team B (marker) SV2 TE3.
    longer_wins: A wins by its unpaired ZR0. tied: the domains decide, Technology 3 over
    Information 3: B. Either way the contest is counted as one that reached the unpaired
    step, for its winner."""
    s = State(players=4, cards=ZERO, rules={"contest_unpaired": reading}, marker="B",
              strategies={"A": {"commit.cards": 1.0}})
    s.row("OPB").hand("A", "IN3", "SC2", "ZR0").hand("B", "SV2", "TE3")
    s.assist_loop()
    contests = s.events(e.EV_CONTEST)
    assert [(c[2], c[4], c[5]) for c in contests] == [("AB".index(winner), why, 1)]
    assert s.ids(f"score {winner}") == ["OPB"]
    t = "AB".index(winner)
    assert s.stats[e.T_UNPAIRED_WON + t] == 1 and s.stats[e.T_UNPAIRED_WON + 1 - t] == 0
    assert s.stats[e.T_CONTESTS] == 1


def test_R2c_unpaired_counter_ignores_contests_decided_by_a_pair():
    """A contest decided by a higher card never reaches the unpaired step: not counted."""
    s = State(players=4, cards=ZERO, marker="B", strategies={"A": {"commit.cards": 1.0}})
    s.row("OPB").hand("A", "IN4", "OPA", "ZR0")  # OPA alone (5) or with ZR0
    s.hand("B", "SV2", "TE3")
    s.assist_loop()
    assert [c[4] for c in s.events(e.EV_CONTEST)] == [k.WHY_HIGHER_CARD]
    assert s.stats[e.T_UNPAIRED_WON] == s.stats[e.T_UNPAIRED_WON + 1] == 0


# ---------------------------------------------------------------- P2P-E6 patience_resets_wait

@pytest.mark.parametrize("resets", [False, True])
def test_E6_patience_resets_wait(resets):
    """P2P-E6 with customer_patience 2: SV5 arrived in round 1 and is due at the end of
    round 2; A's SV12 saves it. patience_resets_wait=false: it keeps its waiting time, so
    at the end of round 3, with the patience spent, it turns unhappy. true: its wait
    starts again (as if it arrived in round 3), so it stays through round 3 and is due at
    the end of round 4."""
    s = State(players=2, round=2, rules={"patience_resets_wait": resets})
    s.row("SV5", arrival=1).seat(0, "SV12")
    s.unhappy()
    assert s.ids("row") == ["SV5"] and s.count("unhappy") == 0
    assert s.arrival[s.id("SV5")] == (3 if resets else 1)
    saves = s.events(e.EV_SAVE)
    assert [(ev[3], ev[4], ev[5]) for ev in saves] == [(s.id("SV12"), s.id("SV5"), int(resets))]
    s.round = 3  # the patience card was used in round 2 and is still marked: no save now
    s.unhappy()
    assert s.ids("unhappy") == ([] if resets else ["SV5"])
    if resets:
        s.round = 4
        s.unhappy()
        assert s.ids("unhappy") == ["SV5"]
