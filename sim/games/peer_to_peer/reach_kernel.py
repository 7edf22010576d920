"""D2's and D3's reach feature (features.C_REACH, P2P-R2a), as numba kernels: how many
other row customers the cards a team keeps in hand could still serve exactly by printed
values, with a card of the customer's domain (natural or an unused dual_domain).

reach_served sums each subset of the cards left over (D3's full scan and the option
listings); the general commit search (commit_kernel.commit_by_passes) builds per-customer
bitmaps of the serving hand subsets once per call (exact_sets) and reads a subset's reach
from them (served_by_sets); commit_by_lanes finds the same from its lanes.
"""
import numpy as np
from numba import njit

from sim.games.peer_to_peer.assist_kernel import lowest_slot
from sim.games.peer_to_peer.constants import (
    ANY, CD_ARG, CD_DOMAIN, CD_EFFECT, CD_VALUE, EFFECT_DUAL_DOMAIN,
)
from sim.games.peer_to_peer.state_kernel import (
    LOW_BITS, LOW_SUM, SCR_HDUAL, SCR_HNAT, SCR_LOW, SCR_ROWV, SCR_ROW_BITS, SCR_ROW_EXACT,
    SCR_SUBSET_SUMS,
)

ALL_DOMAINS = (1 << 5) - 1  # domain bits of a card whose domain is `any`
# LOWEST_SLOT[m]: the lowest set bit of m (m > 0), for D2's subset sums.
LOWEST_SLOT = np.array([0] + [(m & -m).bit_length() - 1 for m in range(1, 1 << LOW_BITS)],
                       dtype=np.int64)
# SUBSETS_WITHIN[r, i]: word i of the subsets of hand subset r (r < 2**LOW_BITS; bit b of
# word i: subset 64 i + b lies within r), for the general search's reach feature
SUBSETS_WITHIN = np.array([[sum(1 << b for b in range(64) if (64 * i + b) & ~r == 0)
                            for i in range(1 << LOW_BITS >> 6)] for r in range(1 << LOW_BITS)],
                          dtype=np.uint64).view(np.int64)


@njit(cache=True, _nrt=False, forceinline=False)
def reach_served(cards, hand, h, used, row, nrow, mask):
    """The row positions (bit jj) that some subset of the cards left in hand after
    committing hand subset ``mask`` serves exactly by printed values, with a card of the
    customer's domain (natural or an unused dual_domain). It does not depend on the
    customer the subset goes to, so a caller scoring several customers for one subset
    finds it once; each subset of the rest is summed once and checked against every
    customer still unserved."""
    rest = ((1 << h) - 1) & ~mask
    pending = ((1 << nrow) - 1) if rest else 0
    served = 0
    t = rest
    while t and pending:    # every non-empty subset of rest, until all are served
        total = 0
        domains = 0
        m = t
        while m:
            c = hand[lowest_slot(m)]
            m &= m - 1
            total += cards[CD_VALUE, c]
            cd = cards[CD_DOMAIN, c]
            domains |= ALL_DOMAINS if cd == ANY else 1 << cd
            if used[c] == 0 and cards[CD_EFFECT, c] == EFFECT_DUAL_DOMAIN:
                domains |= 1 << cards[CD_ARG, c]
        p = pending
        while p:
            jj = lowest_slot(p)
            p &= p - 1
            cust = row[jj]
            d = cards[CD_DOMAIN, cust]
            if total == cards[CD_VALUE, cust] and domains & (ALL_DOMAINS if d == ANY else 1 << d):
                served |= 1 << jj
                pending &= ~(1 << jj)
        t = (t - 1) & rest
    return served


@njit(cache=True, _nrt=False, forceinline=False)
def exact_sets(pile, h, nrow):
    """For the general search's reach feature, a hand of up to LOW_BITS cards whose subset
    sums are in pile[SCR_LOW + LOW_SUM]: per row position jj, the hand subsets that serve
    it exactly by printed values with a card of its domain (natural or an unused
    dual_domain), as reach_served counts them: bitmaps of ``n_words`` words at
    pile[SCR_ROW_EXACT, jj * n_words ..]. Each subset's domain bits go to
    pile[SCR_SUBSET_SUMS]. Returns n_words."""
    n_words = max(1, (1 << h) >> 6)
    sets = pile[SCR_ROW_EXACT]
    domains = pile[SCR_SUBSET_SUMS]
    sums = pile[SCR_LOW + LOW_SUM]
    h_nat = pile[SCR_HNAT]
    h_dual = pile[SCR_HDUAL]
    row_v = pile[SCR_ROWV]
    row_bits = pile[SCR_ROW_BITS]
    for i in range(nrow * n_words):
        sets[i] = 0
    domains[0] = 0
    for t in range(1, 1 << h):
        k = LOWEST_SLOT[t]
        domains[t] = domains[t & (t - 1)] | h_nat[k] | h_dual[k]
        for jj in range(nrow):
            if sums[t] == row_v[jj] and domains[t] & row_bits[jj]:
                sets[jj * n_words + (t >> 6)] |= np.int64(1) << (t & 63)
    return n_words


@njit(cache=True, _nrt=False, inline='always')
def served_by_sets(pile, h, nrow, n_words, mask):
    """reach_served from exact_sets: the row positions (bit jj) that some subset of the
    cards left after committing hand subset ``mask`` serves exactly."""
    sets = pile[SCR_ROW_EXACT]
    rest = ((1 << h) - 1) & ~mask
    served = 0
    for jj in range(nrow):
        hit = 0
        for i in range(n_words):
            hit |= sets[jj * n_words + i] & SUBSETS_WITHIN[rest, i]
        served |= (1 if hit != 0 else 0) << jj
    return served


@njit(cache=True, _nrt=False, inline='always')
def reach_of(served, j):
    """features.C_REACH of an option for row position ``j``, from reach_served: the
    other row customers served."""
    count = 0
    m = served & ~(1 << j)
    while m:
        m &= m - 1
        count += 1
    return float(count)


@njit(cache=True, _nrt=False, forceinline=False)
def reach_left(cards, hand, h, used, row, nrow, mask, j):
    """features.C_REACH of committing hand subset ``mask`` (slots of ``hand``) to row
    position ``j``: how many other row customers some subset of the cards left in hand
    serves exactly by printed values, with a card of the customer's domain (natural or
    an unused dual_domain). For the listings, one option at a time; commit_by_lanes finds
    the same count from words."""
    return reach_of(reach_served(cards, hand, h, used, row, nrow, mask), j)
