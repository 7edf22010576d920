"""D2's subset-lanes search (P2P-R2a), for commit_kernel.search_commit: a hand of up to
SUBSET_BITS cards and any weights, as numba kernels.

Bit m of a word stands for hand subset m, and int16 lane m holds its sum (fill_lanes; with
the high-card feature also its highest and second highest card), so per row customer a
few vector compares (sim.core.lanes_kernel.equal_lanes) give every subset that can assist
it legally; only those options are scored, in the search order. It chooses exactly as
commit_kernel.commit_by_passes, the general search (tests/peer_to_peer/test_commit_search.py).
"""
import numpy as np
from numba import njit

from sim.games.peer_to_peer.assist_kernel import (
    customer_has_effect, eval_assist, highest_played, lowest_slot,
)
from sim.games.peer_to_peer.features import (
    C_CARDS, C_CONTEST_LOSE, C_CONTEST_WIN, C_CUST_EFFECT, C_EFFECTS, C_HIGH, C_NOISE,
    C_REACH, C_TOP, C_URGENT, C_VALUE, C_WAITED,
)
from sim.games.peer_to_peer.state_kernel import (
    F_CURRENT, F_CUST, F_CUST_EFFECT, F_TARGET, F_TOP, LANES_HIGH, LANES_SECOND, LANES_SUM,
    P_HAND, P_ROW,
    SCR_HBOOST, SCR_HDUAL, SCR_HNAT, SCR_HV, SCR_ROWV, SCR_ROW_BITS, SCR_ROW_EXACT,
    SCR_ROW_OK, SCR_ROW_WILD, SCR_SUBSET_SUMS, TARGET_KNOWN, TARGET_REACH, TARGET_WANTED,
)
from sim.core.lanes_kernel import LANES, equal_lanes
from sim.core.rng_kernel import uniform

# D2 by subset bitsets (hands of up to SUBSET_BITS cards): bit m of a word stands for hand
# subset m. CONTAINS[k]: the subsets holding slot k; SUBSETS_OF_SIZE[n]: those of n cards.
SUBSET_BITS = 6
CONTAINS = np.array([sum(1 << m for m in range(64) if m >> k & 1) for k in range(SUBSET_BITS)],
                    dtype=np.uint64).view(np.int64)
SUBSETS_OF_SIZE = np.array([sum(1 << m for m in range(64) if bin(m).count("1") == n)
                            for n in range(SUBSET_BITS + 1)], dtype=np.uint64).view(np.int64)

# SUBSET_HOLDS[k, m]: all ones where subset m holds slot k, so that summing
# ``SUBSET_HOLDS[k] & value of slot k`` over the slots gives every subset's sum at once.
SUBSET_HOLDS = np.array([[-1 if m >> k & 1 else 0 for m in range(LANES)]
                         for k in range(SUBSET_BITS)], dtype=np.int16)
SUBSET_SUM_MAX = 1 << 15  # subset sums are int16 lanes
# SUBMASKS[r]: the subsets of hand subset r, as a word (bit m: subset m lies within r)
SUBMASKS = np.array([sum(1 << m for m in range(64) if m & ~r == 0) for r in range(64)],
                    dtype=np.uint64).view(np.int64)
# SUBSET_SIZE[m]: the number of cards in hand subset m
SUBSET_SIZE = np.array([bin(m).count("1") for m in range(LANES)], dtype=np.int64)


@njit(cache=True, _nrt=False, inline='always')
def fill_lanes(h, h_val, lanes, w_high):
    """Lane m of ``lanes`` (int16, LANES_SUM ..): hand subset m's sum of values; with
    ``w_high`` also (LANES_HIGH ..) its highest value and (LANES_SECOND ..) its second
    highest (equal to the highest on a tie; 0 for one card), each at least 0 as
    highest_played counts. Fixed-length loops, which numba turns into vector code; the
    values are cut to int16 first, so that the maxima stay 16-bit lanes (as int64 lanes
    the high-card lanes took a third of commit_by_lanes' time)."""
    for m in range(LANES):
        lanes[LANES_SUM + m] = 0
    if not w_high:
        for k in range(h):
            value = h_val[k]
            for m in range(LANES):
                lanes[LANES_SUM + m] += SUBSET_HOLDS[k, m] & value
        return
    for m in range(LANES):
        lanes[LANES_HIGH + m] = 0
        lanes[LANES_SECOND + m] = 0
    for k in range(h):
        value = np.int16(h_val[k])
        for m in range(LANES):
            x = np.int16(SUBSET_HOLDS[k, m] & value)
            lanes[LANES_SUM + m] += x
            high = lanes[LANES_HIGH + m]
            lanes[LANES_SECOND + m] = max(lanes[LANES_SECOND + m], min(high, x))
            lanes[LANES_HIGH + m] = max(high, x)


@njit(cache=True, _nrt=False)
def commit_by_lanes(cards, w, rng, pile, arrival, used, vals, fscr, scoring, row, hand,
                    team_effects, best_score):
    """D2 for any weights (noise, high card and effects features included) and a hand of
    up to SUBSET_BITS cards: returns (best mask, its row position, any option legal),
    the pass option (``best_score``) kept unless beaten.

    As in _best_by_sums, bit m of a word stands for hand subset m and lane m holds its
    sum: per row customer a few vector compares give the subsets that can assist it
    legally (with each combination of the hand's unused boost cards, P2P-E7, and with
    the team's shift, P2P-E2), and those that need the team's wild_domain (no natural or
    dual_domain match). Then only the legal options are scored, one by one in the search
    order (subset mask ascending, row order), each with its noise draw, with
    assist_score's sum in its order (the parts that depend on the customer only are
    summed once per customer): the same scores as commit_by_passes. Without a boost card
    the features come from the lanes: the effects feature counts the shift (the sum
    misses the value) and the wild_domain; the high card lanes hold each subset's
    highest and second highest card (a shift moves the highest card, first on ties: down
    by d, the highest played card is the larger of that card less d and the second). A
    subset with a boost card is played out by eval_assist (which boosts it uses), as
    commit_by_passes does. Without noise it leaves, for the marker holder's D3, the
    chosen subset's score with each row position (state_kernel.F_TARGET).
"""
    b, rnd, patience, w_noise, w_high, _ = scoring
    nrow, top_value = row[0], row[1]
    h, hp, hand_total, boost_slots, _ = hand
    row_v = pile[SCR_ROWV]
    ok_words = pile[SCR_ROW_OK]
    wild_words = pile[SCR_ROW_WILD]
    exact_words = pile[SCR_ROW_EXACT]
    cust_part = fscr[F_CUST]
    top_part = fscr[F_TOP]
    effect_part = fscr[F_CUST_EFFECT]
    lanes = pile[SCR_SUBSET_SUMS].view(np.int16)
    fill_lanes(h, pile[SCR_HV], lanes, w_high)
    subsets = ((2 << ((1 << h) - 1)) - 1) & ~1  # the non-empty subsets
    legal_any = 0  # the subsets that can assist some customer
    for j in range(nrow):
        ok, wild, exact = _row_words(w, pile, scoring, hand, team_effects, lanes, subsets, j)
        ok_words[j] = ok
        wild_words[j] = wild
        exact_words[j] = exact
        legal_any |= ok
        if ok:
            # assist_score's first three terms (value, waited, urgent), its top and
            # customer-effect terms
            v = row_v[j]
            cust = pile[P_ROW, j]
            waited = rnd - arrival[cust]
            part = 0.0
            part += w[b + C_VALUE] * v
            part += w[b + C_WAITED] * waited
            part += w[b + C_URGENT] * (1.0 if waited + 1 >= patience else 0.0)
            cust_part[j] = part
            top_part[j] = w[b + C_TOP] * (1.0 if v >= top_value else 0.0)
            effect_part[j] = w[b + C_CUST_EFFECT] * customer_has_effect(cards, cust)
    # assist_score's weights (no contest in D2: its terms add 0, a non-finite weight counts)
    weights = (w[b + C_CARDS], w[b + C_HIGH], w[b + C_EFFECTS], w[b + C_CONTEST_WIN] * 0.0,
               w[b + C_CONTEST_LOSE] * 0.0, w[b + C_REACH], w[b + C_NOISE])
    best_mask = 0
    best_j = 0
    # for the marker holder's D3 (no noise: the scores are the options' own): the scores
    # of the subset that last improved on the best, with each row position
    team = hp - P_HAND
    keep = not w_noise and fscr[F_TARGET + team, TARGET_WANTED] != 0.0
    kept = fscr[F_TARGET + team]
    current = fscr[F_CURRENT]
    rest = legal_any
    while rest:
        m = lowest_slot(rest)
        rest &= rest - 1
        subset = _subset_parts(lanes, hand, weights, m)
        rows = 0  # the row positions subset m can assist
        for j in range(nrow):
            rows |= (ok_words[j] >> m & 1) << j
            if keep:
                current[j] = -np.inf
        improved = False
        while rows:
            j = lowest_slot(rows)
            rows &= rows - 1
            sc, reach = _lanes_score(cards, rng, pile, used, vals, fscr, scoring, row, hand,
                                     team_effects, weights, subset, m, j)
            if keep:
                current[j] = sc
                current[TARGET_REACH + j] = reach
            if sc > best_score:
                best_score = sc
                best_mask = m
                best_j = j
                improved = True
        if keep and improved:
            for j in range(nrow):
                kept[j] = current[j]
                kept[TARGET_REACH + j] = current[TARGET_REACH + j]
    if keep and best_mask:
        kept[TARGET_KNOWN] = 1.0
    return best_mask, best_j, legal_any != 0


@njit(cache=True, _nrt=False, inline='always')
def _row_words(w, pile, scoring, hand, team_effects, lanes, subsets, j):
    """commit_by_lanes: for row position ``j``, the subsets (as words) that can assist it
    legally, those that need the wild_domain, and those that serve it exactly by printed
    values with a matching domain (C_REACH; 0 without its weight)."""
    b = scoring[0]
    h, _, hand_total, boost_slots, _ = hand
    shift_k, has_wild = team_effects
    h_val = pile[SCR_HV]
    h_nat = pile[SCR_HNAT]
    h_dual = pile[SCR_HDUAL]
    h_boost = pile[SCR_HBOOST]
    row_bits = pile[SCR_ROW_BITS, j]
    v = pile[SCR_ROWV, j]
    matched = 0  # a natural or dual_domain match
    for k in range(h):
        matched |= CONTAINS[k] & -(((h_nat[k] | h_dual[k]) & row_bits) != 0)
    ok = 0
    boosted = 0  # each combination of the boost cards, none first
    while True:
        boost = 0
        with_boosted = -1  # the subsets that hold every card of the combination
        if boosted:
            for k in range(h):
                if boosted >> k & 1:
                    boost += h_boost[k]
                    with_boosted &= CONTAINS[k]
        t = v - boost  # the sum that hits the value
        ok |= (equal_lanes(lanes, t) if 0 <= t <= hand_total else 0) & with_boosted
        for d in range(1, shift_k + 1):
            if 0 <= t - d <= hand_total:
                ok |= equal_lanes(lanes, t - d) & with_boosted  # shifted up by d
            if 0 <= t + d <= hand_total:
                high_enough = 0  # shifted down by d: the highest card stays >= 0
                for k in range(h):
                    high_enough |= CONTAINS[k] & -(
                        h_val[k] + (h_boost[k] if boosted >> k & 1 else 0) >= d)
                ok |= equal_lanes(lanes, t + d) & with_boosted & high_enough
        if boosted == boost_slots:
            break
        boosted = ((boosted | ~boost_slots) + 1) & boost_slots
    exact = 0
    if w[b + C_REACH] != 0.0 and v <= hand_total:
        exact = equal_lanes(lanes, v) & matched & subsets
    ok &= (subsets if has_wild else matched) & subsets
    return ok, ~matched, exact


@njit(cache=True, _nrt=False, inline='always')
def _subset_parts(lanes, hand, weights, m):
    """commit_by_lanes: what scoring hand subset ``m`` reads whatever its customer: (sum,
    highest and second highest card, count, the subsets of the cards left in hand (with
    the reach weight))."""
    left = SUBMASKS[((1 << hand[0]) - 1) & ~m] if weights[5] != 0.0 else 0
    return (np.int64(lanes[LANES_SUM + m]), np.int64(lanes[LANES_HIGH + m]),
            np.int64(lanes[LANES_SECOND + m]), SUBSET_SIZE[m], left)


@njit(cache=True, _nrt=False, inline='always')
def _lanes_score(cards, rng, pile, used, vals, fscr, scoring, row, hand, team_effects,
                 weights, subset, m, j):
    """commit_by_lanes: (score, reach feature) of the legal option (hand subset ``m``, its
    _subset_parts ``subset``; row position ``j``), assist_score's sum in its order, its
    noise drawn."""
    w_noise, w_high = scoring[3], scoring[4]
    nrow = row[0]
    hp, boost_slots = hand[1], hand[3]
    shift_k, has_wild = team_effects
    w_cards, w_high_card, w_effects, win_part, lose_part, w_reach, w_rnd = weights
    total, high, second, n_cards, left = subset
    if m & boost_slots:
        _, sh_slot, _, use_wild, _, _ = eval_assist(
            cards, pile[hp], m, pile[P_ROW, j], used, shift_k, has_wild, vals)
        effects = (1.0 if sh_slot >= 0 else 0.0) + use_wild
        high_f = highest_played(vals, m) if w_high else 0
    else:
        delta = pile[SCR_ROWV, j] - total  # 0 unless the shift is used
        effects = (0.0 if delta == 0 else 1.0) + (
            1.0 if pile[SCR_ROW_WILD, j] >> m & 1 else 0.0)
        high_f = 0
        if w_high:
            high_f = high + delta if delta >= 0 else max(high + delta, second)
    sc = fscr[F_CUST, j]
    sc += w_cards * n_cards
    sc += w_high_card * high_f
    sc += w_effects * effects
    sc += fscr[F_TOP, j]
    sc += win_part
    sc += lose_part
    sc += fscr[F_CUST_EFFECT, j]
    reach = 0.0
    if w_reach != 0.0:
        exact = pile[SCR_ROW_EXACT]
        count = 0
        for jj in range(nrow):
            count += (jj != j) & ((exact[jj] & left) != 0)
        reach = float(count)
        sc += w_reach * reach
    sc += w_rnd * uniform(rng) if w_noise else 0.0
    return sc, reach
