"""D2's fast searches choose exactly what the general search chooses (P2P-R2a, features.py).

choose_commit (commit_kernel.py) hands a hand of up to SUBSET_BITS cards to a subset-bitset
search (_best_by_sums for separable scores without a usable boost card, commit_by_lanes
for any other weights or a hand with a usable boost; a 7-card hand to commit_by_lanes in
two halves), everything else to the general search
(commit_by_passes), which visits the options one by one. Here both run on the same prepared scratch rows for many
random hands, rows, venture effects, used marks and weight vectors (the shipped strategies
and random ones: noise, high card and effects features on and off, small integer weights
for many ties, card values up to 99): the same commit (mask, row position, any option
legal) and the same random stream afterwards (every noise draw made, in order).
"""
from __future__ import annotations

import numpy as np
import pytest

from sim.games.peer_to_peer.commit_kernel import (
    LANES_CARDS, SUBSET_BITS, prepare_commit, search_commit, search_general,
)
from sim.games.peer_to_peer.seats import seat_layout

from d2_cases import card_sets, random_case


def both_searches(cards, rules, seats, w, state, team):
    """(fast result, its random stream, general result, its stream, which search)."""
    prep = prepare_commit(cards, rules, seats, w, state.rng, state.pile, state.pile_n,
                          state.arrival, state.used, state.st, team)
    scoring, row, hand, team_effects, best_score = prep
    results = []
    for search in (search_commit, search_general):
        rng = state.rng.copy()
        pile = state.pile.copy()
        fscr = state.fscr.copy()
        vals = np.zeros(pile.shape[1], np.int64)
        got = search(cards, w, rng, pile, state.arrival, state.used, vals, fscr, *prep)
        results += [tuple(got), rng]
    h, _, total, boost_slots, _ = hand
    if h > LANES_CARDS or total >= 1 << 15:
        kind = "general"
    elif h > SUBSET_BITS:
        kind = "lanes, 7 cards"
    elif scoring[5]:
        kind = "sums+boost" if boost_slots else "sums"
    else:
        kind = "lanes+boost" if boost_slots else ("lanes+high" if scoring[4] else "lanes")
    return *results, kind


@pytest.mark.parametrize("players", [2, 4, 5])
def test_fast_searches_choose_as_the_general_search(players):
    rs = np.random.default_rng(3800 + players)
    seats = seat_layout(players, "extra_venture")
    kinds: dict[str, int] = {}
    commits = 0
    for cards in card_sets():
        for _ in range(1200):
            w, state, team, rules = random_case(rs, cards, players, seats)
            fast, fast_rng, general, general_rng, kind = both_searches(
                cards, rules, seats, w, state, team)
            assert fast == general, (kind, fast, general)
            assert (fast_rng == general_rng).all(), kind
            kinds[kind] = kinds.get(kind, 0) + 1
            commits += fast[0] != 0
    # every search was compared, and on many commits (not only passes)
    assert min(kinds.get(x, 0) for x in ("sums", "lanes", "lanes+high", "lanes+boost",
                                         "lanes, 7 cards", "general")) > 200, kinds
    assert kinds.get("sums+boost", 0) > 50, kinds
    assert commits > 1000
