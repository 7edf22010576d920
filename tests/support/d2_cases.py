"""Random D2 situations for the tests of D2's and D3's fast paths: a team's hand, the row,
its venture effects, used marks and a weight vector (a shipped strategy's or random
D2 weights: noise, high card and effects features on and off, small integer weights for
many ties), over several card sets (values up to 99, boost cards on a third of them)."""
from __future__ import annotations

import numpy as np

from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer import state_kernel as s
from sim.games.peer_to_peer.features import (
    C_CONTEST_LOSE, C_CONTEST_WIN, C_NOISE, C_PASS, DEFAULT_WEIGHTS, NF, SWITCH,
)
from sim.games.peer_to_peer.game import card_matrix
from sim.games.peer_to_peer.rules import OPTIONS, rules_array
from sim.core.rng_kernel import seed_game

from p2p_state import cards_table, weights

STRATEGIES = ("expert", "greedy", "cautious", "builder", "random", "weighted")
COMMIT = range(C_NOISE + 1)   # the D2 features' positions in a phase's weights


def random_weights(rs: np.random.Generator) -> np.ndarray:
    """A shipped strategy's vector, or one with random D2 weights in both phases."""
    kind = rs.integers(4)
    if kind == 0:
        return weights(STRATEGIES[rs.integers(len(STRATEGIES))])
    w = np.array(DEFAULT_WEIGHTS, dtype=np.float64)
    for phase in (0, 1):
        b = phase * NF
        for f in COMMIT:
            if rs.random() < 0.35:
                w[b + f] = 0.0
            elif kind == 1:   # small integers: many equal scores (the first one must win)
                w[b + f] = float(rs.integers(-2, 3))
            else:
                w[b + f] = rs.normal(0.0, 3.0)
        w[b + C_PASS] = rs.choice([-1000.0, rs.normal(0.0, 5.0)])
        w[b + C_CONTEST_WIN] = rs.choice([0.0, rs.normal(0.0, 2.0)])
        w[b + C_CONTEST_LOSE] = rs.choice([0.0, rs.normal(0.0, 2.0)])
    w[SWITCH] = float(rs.integers(-1, 12))
    return w


def random_case(rs: np.random.Generator, cards: np.ndarray, players: int, seats: np.ndarray):
    """A D2 situation: (w, rng, pile, pile_n, arrival, used, st, team, rules)."""
    n = cards.shape[1]
    state = s.new_state(n)
    pile, pile_n, arrival, used, st = (state.pile, state.pile_n, state.arrival, state.used,
                                       state.st)
    order = rs.permutation(n)
    team = int(rs.integers(2))
    h = int(rs.choice([1, 2, 3, 4, 5, 5, 6, 6, 7, 8]))
    nrow = int(rs.integers(1, 6))
    taken = 0
    for p, count in ((s.P_HAND + team, h), (s.P_ROW, nrow)):
        pile[p, :count] = order[taken:taken + count]
        pile_n[p] = count
        taken += count
    # the team's ventures: a few cards with effects on its seats (shift, wild_domain ...)
    ventures = [c for c in order[taken:] if cards[k.CD_KIND, c] == k.VENTURE]
    team_seats = [x for x in range(k.MAX_SEATS) if seats[k.SEAT_TEAM, x] == team]
    for c in ventures[:int(rs.integers(0, 4))]:
        p = s.P_SEAT + team_seats[int(rs.integers(len(team_seats)))]
        pile[p, pile_n[p]] = c
        pile_n[p] += 1
    used[:] = rs.random(n) < 0.15
    st[s.S_ROUND] = int(rs.integers(1, 20))
    arrival[:] = st[s.S_ROUND] - rs.integers(0, 5, n)
    pile_n[s.P_CUST] = int(rs.integers(0, 25))
    rules = rules_array(OPTIONS.resolve(None, [f"customer_patience={rs.integers(1, 5)}"]),
                        players)
    seed_game(state.rng, int(rs.integers(1 << 30)), 0)
    return random_weights(rs), state, team, rules


def card_sets() -> list[np.ndarray]:
    """The default deck; the same with values up to 99 (sums beyond the 64-bit value
    masks); without its boost cards (more hands for _best_by_sums); with a boost 1-3 on a
    third of the cards (hands with several)."""
    rs = np.random.default_rng(7)
    base = card_matrix(cards_table())
    big = base.copy()
    big[k.CD_VALUE] = rs.integers(0, 100, base.shape[1])
    no_boost = base.copy()
    no_boost[k.CD_EFFECT][no_boost[k.CD_EFFECT] == k.EFFECT_BOOST] = k.EFFECT_NONE
    boosts = base.copy()
    plain = np.flatnonzero(boosts[k.CD_EFFECT] == k.EFFECT_NONE)
    chosen = rs.choice(plain, base.shape[1] // 3, replace=False)
    boosts[k.CD_EFFECT, chosen] = k.EFFECT_BOOST
    boosts[k.CD_ARG, chosen] = rs.integers(1, 4, chosen.size)
    return [base, big, no_boost, boosts]
