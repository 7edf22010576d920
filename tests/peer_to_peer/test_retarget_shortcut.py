"""D3's shortcut chooses exactly what D3's full scan chooses (P2P-R2b, features.py).

When the marker holder's commit is its own D2's choice, choose_target reads the scores D2
left for the chosen subset (commit_by_lanes or, for separable scores, _best_by_sums, for
a marker holder weighting a contest feature, without noise: fscr[F_TARGET + team]) and
scores only the other team's customer (contest_kernel.py), playing the contest out only
where the choice depends on how it would go. Here it runs on many random D2 situations
(d2_cases), with the other team's customer drawn from the row (often the declared one)
and its contest keys drawn at random, against the full scan over every row customer on the same state: the
same customer.
"""
from __future__ import annotations

import numpy as np
import pytest

from sim.games.peer_to_peer import state_kernel as s
from sim.games.peer_to_peer.state_kernel import F_TARGET, TARGET_KNOWN
from sim.games.peer_to_peer.commit_kernel import choose_commit
from sim.games.peer_to_peer.contest_kernel import choose_target
from sim.games.peer_to_peer.features import (
    C_CONTEST_LOSE, C_CONTEST_WIN, C_EFFECTS, C_HIGH, C_NOISE, C_REACH, NF,
)
from sim.games.peer_to_peer.seats import seat_layout

from d2_cases import card_sets, random_case


def target_both_ways(cards, rules, seats, w, state, team, mask, declared, rival, rs):
    """(shortcut's customer, full scan's customer, whether the shortcut played the contest
    out) for one D3 situation."""
    n_rival = int(rs.integers(1, 5))
    rival_keys = np.zeros(state.pile.shape[1], np.int64)
    rival_keys[:n_rival] = np.sort(rs.integers(8, 8 * 12, n_rival))[::-1]
    got = []
    rngs = []
    played = False
    for shortcut in (True, False):
        vals = np.zeros(state.pile.shape[1], np.int64)
        keys = np.zeros(state.pile.shape[1], np.int64)
        rngs.append(state.rng.copy())
        got.append(int(choose_target(
            cards, rules, seats, w, rngs[-1], state.pile, state.pile_n,
            state.arrival, state.used, state.st, team, mask, declared, rival, rival_keys,
            n_rival, vals, keys, None, state.fscr, shortcut)))
        played = played or (shortcut and keys.any())   # sorted_play filled the keys
    assert (rngs[0] == rngs[1]).all()   # the same noise draws
    return got[0], got[1], played


@pytest.mark.parametrize("players", [2, 4])
def test_shortcut_chooses_as_the_full_scan(players):
    rs = np.random.default_rng(3900 + players)
    seats = seat_layout(players, "extra_venture")
    compared = moved = read = unplayed = read_separable = 0
    for cards in card_sets():
        for _ in range(3000):
            w, state, team, rules = random_case(rs, cards, players, seats)
            w[C_NOISE] = w[NF + C_NOISE] = 0.0 if rs.random() < 0.5 else rs.normal(0.0, 5.0)
            if rs.random() < 0.7:   # contest weights strong enough to move the team
                for b in (0, NF):
                    w[b + C_CONTEST_WIN], w[b + C_CONTEST_LOSE] = rs.normal(0.0, 15.0, 2)
            # D2 leaves its scores for the marker holder's D3 only (the other never retargets)
            state.st[s.S_MARKER] = 1 - team
            vals = np.zeros(state.pile.shape[1], np.int64)
            choose_commit(cards, rules, seats, w, state.rng.copy(), state.pile, state.pile_n,
                          state.arrival, state.used, state.st, team, vals, False, state.fscr)
            assert state.fscr[F_TARGET + team, TARGET_KNOWN] == 0.0
            state.st[s.S_MARKER] = team
            mask, declared, _ = choose_commit(
                cards, rules, seats, w, state.rng.copy(), state.pile, state.pile_n,
                state.arrival, state.used, state.st, team, vals, False, state.fscr)
            if mask == 0:
                continue
            row = state.pile[s.P_ROW, :state.pile_n[s.P_ROW]]
            rival = int(declared if rs.random() < 0.5 else rs.choice(row))
            shortcut, full, played = target_both_ways(cards, rules, seats, w, state, team, mask,
                                              int(declared), rival, rs)
            assert shortcut == full, (mask, declared, rival, shortcut, full)
            compared += 1
            moved += full != declared
            known = state.fscr[F_TARGET + team, TARGET_KNOWN] != 0.0
            read += known
            read_separable += known and separable(w)
            unplayed += known and not played and rival_legal(state, team, rival)
    # many situations, in many of them the contest moves the team, and many are decided
    # without playing the contest out; D2's search for separable scores (_best_by_sums)
    # leaves its scores too
    assert compared > 4000 and moved > 100 and read > 1500 and unplayed > 500, (
        compared, moved, read, unplayed)
    assert read_separable > 80, read_separable


def separable(w):
    """Whether D2 scores with ``w`` are separable in both phases (commit_kernel)."""
    return all(w[b + f] == 0.0 for b in (0, NF) for f in (C_HIGH, C_EFFECTS, C_REACH, C_NOISE))


def rival_legal(state, team, rival):
    """Whether D2's scores make the other team's customer legal for the chosen subset."""
    row = list(state.pile[s.P_ROW, :state.pile_n[s.P_ROW]])
    return rival in row and state.fscr[F_TARGET + team, row.index(rival)] != -np.inf
