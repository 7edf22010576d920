"""Assists and contests (P2P-R2a, P2P-R2c, P2P-E1/E2/E7/E8), as numba kernels.

An assist is a bitmask over the slots of a team's group hand. When several effect uses
make it legal, the engine takes the first in this fixed order (a documented reading):
a natural domain match before `dual_domain` before `wild_domain`; boosts off before on
(boost combinations in ascending bitmask order); no `shift` before `shift`, with the shift
on the highest card (first slot on ties). A team uses at most one instance of each venture
effect per assist: its strongest unused `shift` and any unused `wild_domain`.
"""
from numba import njit

from sim.core.bits_kernel import lowest_bit
from sim.games.peer_to_peer.constants import (
    ANY, CD_ARG, CD_DOMAIN, CD_EFFECT, CD_VALUE, EFFECT_BOOST, EFFECT_DUAL_DOMAIN,
    R_DOMAIN_RANK, WHY_DOMAIN, WHY_HIGHER_CARD, WHY_LONGER, WHY_MARKER, WHY_TIEBREAK,
)

# Set bits of a mask are visited lowest first with lowest_slot, without a branch per bit
# (a branch on each bit of a hand mask mispredicts).


@njit(cache=True, _nrt=False, inline='always')
def lowest_slot(m):
    """The index of the lowest set bit of ``m`` (m > 0)."""
    return lowest_bit(m)


@njit(cache=True, _nrt=False, forceinline=True)
def _boost_total(cards, hand, subset):
    """Sum of the boost amounts of the hand slots in ``subset``."""
    total = 0
    slot = 0
    while subset:
        if subset & 1:
            total += cards[CD_ARG, hand[slot]]
        subset >>= 1
        slot += 1
    return total


@njit(cache=True, _nrt=False, forceinline=True)
def _next_submask(sub, full):
    """Submasks of ``full`` in ascending order: 0, ..., full; returns -1 after ``full``."""
    if sub == full:
        return -1
    return ((sub | ~full) + 1) & full


@njit(cache=True, _nrt=False, forceinline=True)
def eval_assist(cards, hand, mask, customer, used, shift_k, has_wild, out_vals):
    """Can the hand cards in ``mask`` legally assist ``customer``?

    Returns (ok, shift_slot, shift_delta, use_wild, dual_slot, boost_slots_mask) and fills
    ``out_vals[slot]`` with each played card's value after effects. Allocation-free.
    Inlined (four call sites, +10 s cold compile): its call cost about 5 % of a game.
    """
    target = cards[CD_VALUE, customer]
    domain = cards[CD_DOMAIN, customer]
    natural = domain == ANY
    dual_slot = -1
    boosts = 0  # bitmask over hand slots of usable boost cards
    base = 0
    m = mask
    while m:
        slot = lowest_slot(m)
        m &= m - 1
        c = hand[slot]
        base += cards[CD_VALUE, c]
        out_vals[slot] = cards[CD_VALUE, c]
        d = cards[CD_DOMAIN, c]
        if d == domain or d == ANY:
            natural = True
        elif (dual_slot < 0 and cards[CD_EFFECT, c] == EFFECT_DUAL_DOMAIN
              and cards[CD_ARG, c] == domain and used[c] == 0):
            dual_slot = slot
        if cards[CD_EFFECT, c] == EFFECT_BOOST and used[c] == 0:
            boosts |= 1 << slot
    if natural:
        dual_slot = -1
    use_wild = 0
    if not natural and dual_slot < 0:
        if not has_wild:
            return False, -1, 0, 0, -1, 0
        use_wild = 1

    # Exact sum with boosts only (boost subsets in ascending order), then with one shift.
    found = -1
    sub = 0
    while sub >= 0:
        if base + _boost_total(cards, hand, sub) == target:
            found = sub
            break
        sub = _next_submask(sub, boosts)
    shift_slot = -1
    shift_delta = 0
    if found < 0 and shift_k > 0:
        sub = 0
        while sub >= 0:
            delta = target - base - _boost_total(cards, hand, sub)
            if delta != 0 and abs(delta) <= shift_k:
                best_slot, best_val = _highest_after_boost(cards, hand, mask, sub)
                if delta > 0 or best_val + delta >= 0:
                    found = sub
                    shift_slot = best_slot
                    shift_delta = delta
                    break
            sub = _next_submask(sub, boosts)
    if found < 0:
        return False, -1, 0, 0, -1, 0

    slot = 0
    m = found
    while m:
        if m & 1:
            out_vals[slot] += cards[CD_ARG, hand[slot]]
        m >>= 1
        slot += 1
    if shift_slot >= 0:
        out_vals[shift_slot] += shift_delta
    return True, shift_slot, shift_delta, use_wild, dual_slot, found


@njit(cache=True, _nrt=False, forceinline=True)
def _highest_after_boost(cards, hand, mask, boosted):
    """The highest played card after the boosts in ``boosted``: (slot, value), first on ties."""
    best_slot = -1
    best_val = -1
    m = mask
    slot = 0
    while m:
        if m & 1:
            v = cards[CD_VALUE, hand[slot]]
            if boosted >> slot & 1:
                v += cards[CD_ARG, hand[slot]]
            if v > best_val:
                best_val = v
                best_slot = slot
        m >>= 1
        slot += 1
    return best_slot, best_val


@njit(cache=True, _nrt=False, inline='always')
def sorted_play(cards, rules, hand, mask, vals, out_keys):
    """The played cards as keys value*8 + domain rank + 1, highest first; returns count."""
    n = 0
    m = mask
    while m:
        slot = lowest_slot(m)
        m &= m - 1
        rank = rules[R_DOMAIN_RANK + cards[CD_DOMAIN, hand[slot]]]
        out_keys[n] = vals[slot] * 8 + rank + 1
        n += 1
    for i in range(1, n):  # insertion sort, highest first: a handful of cards, no allocation
        key = out_keys[i]
        j = i - 1
        while j >= 0 and out_keys[j] < key:
            out_keys[j + 1] = out_keys[j]
            j -= 1
        out_keys[j + 1] = key
    return n


@njit(cache=True, _nrt=False, inline='always')
def unpaired_step(keys_a, n_a, keys_b, n_b):
    """P2P-R2c: does this contest reach the unpaired step (every pair equal in value, one
    list longer)? Keys come from sorted_play."""
    if n_a == n_b:
        return False
    for i in range(min(n_a, n_b)):
        if keys_a[i] // 8 != keys_b[i] // 8:
            return False
    return True


@njit(cache=True, _nrt=False, inline='always')
def contest(keys_a, n_a, keys_b, n_b, tiebreak_a, tiebreak_b, marker, unpaired_tied):
    """P2P-R2c: returns (winning team 0/1, why). Keys come from sorted_play.

    ``unpaired_tied`` (contest_unpaired=tied): when all pairs are equal, a longer list's
    unpaired cards count for nothing; the domain step compares the pairs only."""
    for i in range(min(n_a, n_b)):
        va = keys_a[i] // 8
        vb = keys_b[i] // 8
        if va != vb:
            return (0 if va > vb else 1), WHY_HIGHER_CARD
    if n_a != n_b and not unpaired_tied:
        return (0 if n_a > n_b else 1), WHY_LONGER
    if tiebreak_a != tiebreak_b:
        return (0 if tiebreak_a else 1), WHY_TIEBREAK
    for i in range(min(n_a, n_b)):
        ra = keys_a[i] % 8
        rb = keys_b[i] % 8
        if ra != rb:
            return (0 if ra > rb else 1), WHY_DOMAIN
    return marker, WHY_MARKER
