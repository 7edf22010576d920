"""The general D2 search's reach feature from per-customer subset bitmaps (exact_sets,
served_by_sets) counts what reach_served counts (features.C_REACH, P2P-R2a).

commit_by_passes finds, once per call, which hand subsets serve each row customer exactly
by printed values with a card of its domain; a subset's reach is then the customers one
of those subsets serves within the cards it leaves in hand. Here, on random D2 situations
with hands of 1-8 cards (d2_cases) and every hand subset, against reach_served, which
sums each subset of the cards left over again.
"""
from __future__ import annotations

import numpy as np

from sim.games.peer_to_peer import state_kernel as s
from sim.games.peer_to_peer.commit_kernel import prepare_commit
from sim.games.peer_to_peer.reach_kernel import exact_sets, reach_served, served_by_sets
from sim.games.peer_to_peer.seats import seat_layout

from d2_cases import card_sets, random_case


def test_reach_sets_serve_as_reach_served():
    rs = np.random.default_rng(4100)
    seats = seat_layout(4, "extra_venture")
    compared = served_any = 0
    sizes = set()
    for cards in card_sets():
        for _ in range(300):
            w, state, team, rules = random_case(rs, cards, 4, seats)
            pile, pile_n = state.pile, state.pile_n
            h, nrow = int(pile_n[s.P_HAND + team]), int(pile_n[s.P_ROW])
            # the per-slot and per-customer scratch rows, as D2 fills them
            prepare_commit(cards, rules, seats, w, state.rng, pile, pile_n, state.arrival,
                           state.used, state.st, team)
            hand = pile[s.P_HAND + team]
            sums = pile[s.SCR_LOW + s.LOW_SUM]
            for t in range(1 << h):   # every subset's sum, as the general search's first pass
                sums[t] = sum(pile[s.SCR_HV, k] for k in range(h) if t >> k & 1)
            n_words = exact_sets(pile, h, nrow)
            for mask in range(1 << h):
                want = reach_served(cards, hand, h, state.used, pile[s.P_ROW], nrow, mask)
                assert served_by_sets(pile, h, nrow, n_words, mask) == want, (h, mask)
                compared += 1
                served_any += want != 0
            sizes.add(h)
    assert sizes == set(range(1, 9)) and compared > 20000 and served_any > 5000, (
        sizes, compared, served_any)
