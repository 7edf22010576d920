"""D2, the commit search: which hand subset a team commits to which row customer
(P2P-R2a), as numba kernels.

Every (hand subset, row customer) pair is an option, visited in (subset mask ascending,
row order); the first maximum of the strategy's score wins, the pass option first.
choose_commit prepares per-slot and per-customer aggregates in scratch rows of ``pile``
(state_kernel.SCR_HV ..; prepare_commit) and picks one of three searches (search_commit).
For a hand of up to SUBSET_BITS cards (nearly every call), subset bitsets and vector
compares find each customer's legal subsets at once: _best_by_sums for separable scores
(no noise, high card, effects or reach feature: greedy, cautious) and a hand without a
usable boost then takes the first maximum per customer and card count; commit_by_lanes,
for any other weights (expert), a hand with a usable boost or a hand of LANES_CARDS
cards (as two halves of subsets), scores the legal options only, in order. Both leave
the chosen subset's scores for the marker holder's D3.
commit_by_passes (the general search, which visits the options one by one) takes the
rest; the others choose exactly as it would (tested against it on random hands, rows,
effects and weights).

The searches share their scalars as four tuples (numba passes a tuple as its fields, so
bundling costs nothing):
- ``scoring = (b, rnd, patience, w_noise, w_high, separable, for_d3)``: the weights'
  phase offset, the round, the customers' patience, whether the noise / high-card
  features are weighted, whether an option's score is a per-customer part plus a count
  part, and whether the team's D3 may read the chosen subset's scores (it holds the
  marker and weights a contest or the noise feature);
- ``row = (nrow, top_value, v_min, row_values)``: the row's size, highest and lowest
  value, and a bitmask of the values present (bit v, capped at 63);
- ``hand = (h, hp, hand_total, boost_slots, boost_all)``: the hand's size, its pile, the
  sum of its values, the slots holding an unused boost card and their boosts' sum;
- ``team_effects = (shift_k, has_wild)``: the team's strongest unused shift and whether
  it holds an unused wild_domain.
"""
import numpy as np
from numba import njit

from sim.games.peer_to_peer.assist_kernel import eval_assist, lowest_slot
from sim.games.peer_to_peer.constants import (
    ANY, CD_ARG, CD_DOMAIN, CD_EFFECT, CD_KIND, CD_VALUE, EFFECT_BOOST, EFFECT_DUAL_DOMAIN,
    EFFECT_NONE, EFFECT_PATIENCE, EFFECT_WILD_DOMAIN, R_CUSTOMER_PATIENCE, VENTURE,
)
from sim.games.peer_to_peer.features import (
    C_CARDS, C_CONTEST_LOSE, C_CONTEST_WIN, C_CUST_EFFECT, C_EFFECTS, C_HIGH, C_KIND, C_NOISE,
    C_PASS, C_REACH, C_TOP, C_URGENT, C_VALUE, C_WAITED, NF,
)
from sim.games.peer_to_peer.state_kernel import (
    F_CUST, F_CUST_EFFECT, F_CUST_KIND, F_TARGET, F_TOP, LANES_HIGH, LANES_SECOND, LANES_SUM,
    LOW_BITS, LOW_CAND, LOW_CAND_SUM, LOW_SUM, P_HAND, P_ROW, SCR_HBOOST, SCR_HDUAL, SCR_HNAT,
    SCR_HV, SCR_LOW, SCR_ROWD, SCR_ROWV, SCR_ROW_BITS, SCR_ROW_EXACT, SCR_ROW_OK, SCR_ROW_WILD,
    SCR_SUBSET_SUMS, S_EFFECTS_KNOWN, S_MARKER, S_ROUND, S_SHIFT_CARD, S_SHIFT_K, S_WILD,
    TARGET_KNOWN, TARGET_PREFIX, TARGET_REACH, WORDS_UPPER, game_phase, venture_effects,
)
from sim.games.peer_to_peer.reach_kernel import (
    ALL_DOMAINS, LOWEST_SLOT, exact_sets, reach_left, reach_of, reach_served, served_by_sets,
)
from sim.core.lanes_kernel import LANES, equal_lanes
from sim.core.rng_kernel import uniform
from sim.core.search_kernel import add_option

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
SUBSET_SIZE = np.array([bin(m).count("1") for m in range(2 * LANES)], dtype=np.int64)
# commit_by_lanes takes a hand of one card more in two halves: the subsets without its
# last slot (lanes and words as above) and those with it (subset 64 + m: m and that slot).
# HOLDS_SLOT[half, k]: the subsets of a half that hold slot k.
LANES_CARDS = SUBSET_BITS + 1
HOLDS_SLOT = np.array([list(CONTAINS) + [0], list(CONTAINS) + [-1]], dtype=np.int64)


@njit(cache=True, _nrt=False, inline='always')
def assist_score(w, b, value, waited, urgent, n_cards, high, effects, top, win, lose,
                 customer_effect, kind_part, reach, noise):
    """weights . features of a commit/retarget option, summed in feature order
    (``kind_part``: customer_kind_part)."""
    s = 0.0
    s += w[b + C_VALUE] * value
    s += w[b + C_WAITED] * waited
    s += w[b + C_URGENT] * urgent
    s += w[b + C_CARDS] * n_cards
    s += w[b + C_HIGH] * high
    s += w[b + C_EFFECTS] * effects
    s += w[b + C_TOP] * top
    s = score_from_contest(w, b, s, win, lose, w[b + C_CUST_EFFECT] * customer_effect,
                           kind_part, reach)
    s += w[b + C_NOISE] * noise
    return s


@njit(cache=True, _nrt=False, inline='always')
def score_from_contest(w, b, s, win, lose, effect_part, kind_part, reach):
    """assist_score's sum ``s`` (up to the top feature) continued in its order through the
    contest, customer-effect (``effect_part``: its weight times the feature), effect kind
    (``kind_part``: customer_kind_part) and reach features: for D3, which continues the sum
    D2's lanes search kept before the contest features (_lanes_score takes the same steps)
    with a won or a lost contest."""
    s += w[b + C_CONTEST_WIN] * win
    s += w[b + C_CONTEST_LOSE] * lose
    s += effect_part
    s += kind_part
    s += w[b + C_REACH] * reach
    return s


@njit(cache=True, _nrt=False, inline='always')
def highest_played(vals, mask):
    high = 0
    m = mask
    slot = 0
    while m:
        if m & 1 and vals[slot] > high:
            high = vals[slot]
        m >>= 1
        slot += 1
    return high


@njit(cache=True, _nrt=False, inline='always')
def customer_has_effect(cards, cust):
    return 1.0 if (cards[CD_KIND, cust] == VENTURE and cards[CD_EFFECT, cust] != EFFECT_NONE) else 0.0


@njit(cache=True, _nrt=False, inline='always')
def customer_kind_part(cards, w, b, cust):
    """The effect-kind features' part of an option's score (features.C_KIND): the weight
    of the customer's venture effect, 0.0 for a customer without one."""
    e = cards[CD_EFFECT, cust]
    if cards[CD_KIND, cust] == VENTURE and EFFECT_WILD_DOMAIN <= e <= EFFECT_PATIENCE:
        return w[b + C_KIND + e - EFFECT_WILD_DOMAIN] * 1.0
    return 0.0


@njit(cache=True, _nrt=False, inline='always')
def _commit_legal(cards, pile, used, hp, mask, j, total, nat, dual, boost, high, shift_k,
                  has_wild, vals):
    """D2: (legal, venture effects used) of committing hand subset ``mask`` to row position
    ``j``, whose value lies within reach of the subset (sum - shift .. sum + boosts + shift).
    For a subset with a boost card ``vals`` then holds the played values (eval_assist)."""
    value = pile[SCR_ROWV, j]
    d = pile[SCR_ROWD, j]
    natural = d == ANY or (nat >> d & 1) != 0
    if not natural and not (dual >> d & 1) and not has_wild:
        return False, 0.0
    if boost == 0:
        # no boost card: the exact check of eval_assist, from the aggregates
        delta = value - total
        if delta != 0 and not (delta > 0 or high + delta >= 0):
            return False, 0.0
        return True, (0.0 if delta == 0 else 1.0) + (0.0 if natural or (dual >> d & 1) else 1.0)
    ok, sh_slot, _, use_wild, _, _ = eval_assist(cards, pile[hp], mask, pile[P_ROW, j], used,
                                                 shift_k, has_wild, vals)
    return ok, (1.0 if sh_slot >= 0 else 0.0) + use_wild


@njit(cache=True, _nrt=False, inline='always')
def _commit_score(cards, w, rng, pile, arrival, used, vals, scoring, row, hand, team_effects,
                  mask, j, n_played, boost, effects, served):
    """D2: the score of a legal option (hand subset ``mask``, row position ``j``);
    ``served``: reach_served of ``mask`` (read only with a reach weight)."""
    b, rnd, patience, w_noise, w_high, _, _ = scoring
    top_value = row[1]
    hp = hand[1]
    shift_k, has_wild = team_effects
    cust = pile[P_ROW, j]
    high_f = 0
    if w_high:
        if boost == 0:  # _commit_legal left vals alone
            eval_assist(cards, pile[hp], mask, cust, used, shift_k, has_wild, vals)
        high_f = highest_played(vals, mask)
    value = pile[SCR_ROWV, j]
    waited = rnd - arrival[cust]
    reach = reach_of(served, j) if w[b + C_REACH] != 0.0 else 0.0
    return assist_score(
        w, b, value, waited, 1.0 if waited + 1 >= patience else 0.0, n_played, high_f, effects,
        1.0 if value >= top_value else 0.0, 0.0, 0.0, customer_has_effect(cards, cust),
        customer_kind_part(cards, w, b, cust), reach, uniform(rng) if w_noise else 0.0)


@njit(cache=True, _nrt=False, inline='always')
def _customer_parts(cards, w, pile, arrival, scoring, top_value, j):
    """D2 with separable scores: the parts of an option's score that depend on its
    customer (row position ``j``): (value, waited and urgent; top; customer effect; effect
    kind), each summed in assist_score's order (the zero-weight features add zeros)."""
    b, rnd, patience = scoring[0], scoring[1], scoring[2]
    cust = pile[P_ROW, j]
    value = pile[SCR_ROWV, j]
    waited = rnd - arrival[cust]
    return ((w[b + C_VALUE] * value + w[b + C_WAITED] * waited
             + w[b + C_URGENT] * (1.0 if waited + 1 >= patience else 0.0)),
            w[b + C_TOP] * (1.0 if value >= top_value else 0.0),
            w[b + C_CUST_EFFECT] * customer_has_effect(cards, cust),
            customer_kind_part(cards, w, b, cust))


@njit(cache=True, _nrt=False, inline='always')
def _best_by_sums(cards, w, pile, arrival, fscr, scoring, row, hand, team_effects,
                  best_score):
    """D2 for separable scores and a hand of up to SUBSET_BITS cards without a usable
    boost: returns (best mask, its row position, any option legal), the pass option
    (``best_score``) kept unless beaten.

    Bit m of a word stands for hand subset m, and lane m of ``sums`` holds its sum, so
    per customer the subsets that assist it legally are a vector compare (equal_lanes)
    and a few word operations: those whose sum hits its value (or the value within the
    team's shift, where shifting down needs a card at least that high, P2P-E2), and that
    hold a card of its domain (natural or dual_domain) unless the team has a
    wild_domain. An option's score depends only on the customer and the card count, so
    per customer and count only the smallest subset can be the first maximum: options are
    ordered (mask, row position) and ties keep the first. Where the team's D3 may read
    them (``for_d3``) it leaves the chosen subset's scores as commit_by_lanes does."""
    b = scoring[0]
    nrow, top_value = row[0], row[1]
    h, hand_total = hand[0], hand[2]
    shift_k, has_wild = team_effects
    w_cards = w[b + C_CARDS]
    h_val = pile[SCR_HV]
    h_nat = pile[SCR_HNAT]
    h_dual = pile[SCR_HDUAL]
    row_v = pile[SCR_ROWV]
    row_bits = pile[SCR_ROW_BITS]
    ok_words = pile[SCR_ROW_OK]
    sums = pile[SCR_SUBSET_SUMS].view(np.int16)  # (LANES_SUM is 0)
    _fill_lanes(h, h_val, sums, False)
    subsets = ((2 << ((1 << h) - 1)) - 1) & ~1  # the non-empty subsets
    best_mask = 0
    best_j = 0
    legal = False
    for j in range(nrow):
        v = row_v[j]
        domain_ok = subsets if has_wild else 0
        for k in range(h):
            domain_ok |= CONTAINS[k] & -(((h_nat[k] | h_dual[k]) & row_bits[j]) != 0)
        ok = equal_lanes(sums, v) if v <= hand_total else 0
        for d in range(1, shift_k + 1):
            if 0 <= v - d <= hand_total:
                ok |= equal_lanes(sums, v - d)  # shifted up by d
            if v + d <= hand_total:
                high_enough = 0  # shifted down by d: the highest card stays >= 0
                for k in range(h):
                    high_enough |= CONTAINS[k] & -(h_val[k] >= d)
                ok |= equal_lanes(sums, v + d) & high_enough
        ok &= domain_ok & subsets
        ok_words[j] = ok
        legal |= ok != 0
        if ok == 0:
            continue
        cust_part, top_part, effect_part, kind_part = _customer_parts(
            cards, w, pile, arrival, scoring, top_value, j)
        # Scores fall (or stay) as the count moves away from the preferred end: the first
        # count scoring below the best so far ends the search for this customer.
        for i in range(h):
            n = i + 1 if w_cards <= 0.0 else h - i
            of_size = ok & SUBSETS_OF_SIZE[n]
            if of_size == 0:
                continue
            m = lowest_slot(of_size)
            sc = cust_part + w_cards * n + top_part + effect_part + kind_part
            if sc < best_score:
                break
            if sc > best_score or (sc == best_score and best_mask != 0 and (
                    m < best_mask or (m == best_mask and j < best_j))):
                best_score = sc
                best_mask = m
                best_j = j
    if best_mask and scoring[6]:
        _sums_target(cards, w, pile, arrival, fscr, scoring, row, hand[1] - P_HAND, best_mask)
    return best_mask, best_j, legal


@njit(cache=True, _nrt=False, inline='always')
def _sums_target(cards, w, pile, arrival, fscr, scoring, row, team, mask):
    """_best_by_sums, for the team's D3 (``for_d3``): hand subset ``mask``'s score with
    each row position, as commit_by_lanes leaves it (the zero-weight features add zeros).
    Inlined, though as a call (``forceinline=False``) `expert` games, which never reach
    it, take as long (28.5 against 28.6 us a game at 2 players, medians of 3 runs of 7
    paired bursts, fresh compiles). Nor does it share commit_by_lanes' loop (the parts
    stored and _lanes_score called): that made them 1.06-1.09 times as long at 2 players
    (`default_speed.py`)."""
    nrow, top_value = row[0], row[1]
    ok_words = pile[SCR_ROW_OK]
    cards_part = w[scoring[0] + C_CARDS] * SUBSET_SIZE[mask]
    for j in range(nrow):
        sc = -np.inf
        prefix = -np.inf
        if ok_words[j] >> mask & 1:
            cust_part, top_part, effect_part, kind_part = _customer_parts(
                cards, w, pile, arrival, scoring, top_value, j)
            prefix = cust_part + cards_part + top_part
            sc = score_from_contest(w, scoring[0], prefix, 0.0, 0.0, effect_part, kind_part,
                                    0.0)
        fscr[F_TARGET + team, j] = sc
        fscr[F_TARGET + team, TARGET_REACH + j] = 0.0
        fscr[F_TARGET + team, TARGET_PREFIX + j] = prefix
    fscr[F_TARGET + team, TARGET_KNOWN] = 1.0


@njit(cache=True, _nrt=False, inline='always')
def _fill_lanes(h, h_val, lanes, w_high):
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


@njit(cache=True, _nrt=False, inline='always')
def _fill_upper_half(value, lanes, w_high):
    """A 7-card hand's upper half (lanes LANES ..): lane m's subset with the last slot
    (of ``value``) added, as _fill_lanes would add it as the last card."""
    value = np.int16(value)
    for m in range(LANES):
        lanes[LANES_SUM + LANES + m] = lanes[LANES_SUM + m] + value
    if w_high:
        for m in range(LANES):
            high = lanes[LANES_HIGH + m]
            lanes[LANES_SECOND + LANES + m] = max(lanes[LANES_SECOND + m], min(high, value))
            lanes[LANES_HIGH + LANES + m] = max(high, value)


# forceinline: LLVM inlines it into choose_commit, hence into the round; called instead,
# expert's games took 1.07 times as long
@njit(cache=True, _nrt=False, forceinline=True)
def commit_by_lanes(cards, w, rng, pile, arrival, used, vals, fscr, scoring, row, hand,
                    team_effects, best_score, seven):
    """D2 for any weights (noise, high card and effects features included) and a hand of
    up to LANES_CARDS cards: returns (best mask, its row position, any option legal), the
    pass option (``best_score``) kept unless beaten.

    As in _best_by_sums, bit m of a word stands for hand subset m and lane m holds its
    sum: per row customer a few vector compares give the subsets that can assist it
    legally (with each combination of the hand's unused boost cards, P2P-E7, and with
    the team's shift, P2P-E2), and those that need the team's wild_domain (no natural or
    dual_domain match). Then only the legal options are scored, one by one, with
    assist_score's sum in its order (the parts that depend on the customer only are
    summed once per customer): the same scores as commit_by_passes. With the noise
    feature they go in the search order (subset mask ascending, row order), each with its
    noise draw; without it, row position by row position, which skips gathering each
    subset's positions (4 players: 3.7 % of an expert game). Without a boost card
    the features come from the lanes: the effects feature counts the shift (the sum
    misses the value) and the wild_domain; the high card lanes hold each subset's
    highest and second highest card (a shift moves the highest card, first on ties: down
    by d, the highest played card is the larger of that card less d and the second). A
    subset with a boost card is played out by eval_assist (which boosts it uses), as
    commit_by_passes does. Where the team's D3 may read them (``for_d3``) it leaves the
    chosen subset's score without noise with each row position (state_kernel.F_TARGET).

    ``seven``: None for a hand of up to SUBSET_BITS cards; True for a hand of LANES_CARDS
    cards (commit_by_lanes_seven), which takes two halves of 64 subsets, each with its
    lanes and words: those without its last slot, then those with it (mask 64 + m), which
    keeps the search order. An argument rather than a hand-size test, so that numba
    compiles the two apart: the halves cost the smaller hands nothing (handled with a
    test, 6-player expert games took about 1.04 times as long)."""
    b, rnd, patience, w_noise, w_high, _, for_d3 = scoring
    nrow, top_value = row[0], row[1]
    h, hp, hand_total, boost_slots, _ = hand
    shift_k, has_wild = team_effects
    h_val = pile[SCR_HV]
    h_nat = pile[SCR_HNAT]
    h_dual = pile[SCR_HDUAL]
    h_boost = pile[SCR_HBOOST]
    row_v = pile[SCR_ROWV]
    row_bits = pile[SCR_ROW_BITS]
    ok_words = pile[SCR_ROW_OK]
    wild_words = pile[SCR_ROW_WILD]
    exact_words = pile[SCR_ROW_EXACT]
    w_reach = w[b + C_REACH]
    cust_part = fscr[F_CUST]
    top_part = fscr[F_TOP]
    effect_part = fscr[F_CUST_EFFECT]
    kind_part = fscr[F_CUST_KIND]
    lanes = pile[SCR_SUBSET_SUMS].view(np.int16)
    # the weights each customer and option reads, loaded once (the stores into pile and
    # fscr may alias w for all numba knows, so it reloads them in the loops otherwise)
    w_value, w_waited, w_urgent = w[b + C_VALUE], w[b + C_WAITED], w[b + C_URGENT]
    w_top, w_cust_effect = w[b + C_TOP], w[b + C_CUST_EFFECT]
    option_w = (w[b + C_CARDS], w[b + C_HIGH], w[b + C_EFFECTS], w_reach,
                w[b + C_CONTEST_WIN] * 0.0 + w[b + C_CONTEST_LOSE] * 0.0)
    h_lo = h  # the slots of the lower half
    halves = 1
    if seven is not None:
        h_lo = SUBSET_BITS
        halves = 2
    _fill_lanes(h_lo, h_val, lanes, w_high)
    if seven is not None:
        _fill_upper_half(h_val[SUBSET_BITS], lanes, w_high)
    legal_lower = 0  # the subsets that can assist some customer, per half
    legal_upper = 0
    for j in range(nrow):
        v = row_v[j]
        any_ok = 0
        for half in range(halves):
            half_lanes = lanes[LANES * half:]
            # the non-empty subsets (in the upper half every subset holds the last slot)
            subsets = -1 if half else ((2 << ((1 << h_lo) - 1)) - 1) & ~1
            matched = 0  # a natural or dual_domain match
            for k in range(h):
                matched |= HOLDS_SLOT[half, k] & -(((h_nat[k] | h_dual[k]) & row_bits[j]) != 0)
            # the subsets whose sum hits the value: without a boost (the first
            # combination) and for the reach feature, compared once
            hits_v = equal_lanes(half_lanes, v) if v <= hand_total else 0
            ok = 0
            boosted = 0  # each combination of the boost cards, none first
            while True:
                boost = 0
                with_boosted = -1  # the subsets that hold every card of the combination
                if boosted:
                    for k in range(h):
                        if boosted >> k & 1:
                            boost += h_boost[k]
                            with_boosted &= HOLDS_SLOT[half, k]
                t = v - boost  # the sum that hits the value
                if boosted == 0:
                    ok |= hits_v if 0 <= v else 0
                elif 0 <= t <= hand_total:
                    ok |= equal_lanes(half_lanes, t) & with_boosted
                for d in range(1, shift_k + 1):
                    if 0 <= t - d <= hand_total:
                        ok |= equal_lanes(half_lanes, t - d) & with_boosted  # shifted up by d
                    if 0 <= t + d <= hand_total:
                        high_enough = 0  # shifted down by d: the highest card stays >= 0
                        for k in range(h):
                            high_enough |= HOLDS_SLOT[half, k] & -(
                                h_val[k] + (h_boost[k] if boosted >> k & 1 else 0) >= d)
                        ok |= equal_lanes(half_lanes, t + d) & with_boosted & high_enough
                if boosted == boost_slots:
                    break
                boosted = ((boosted | ~boost_slots) + 1) & boost_slots
            at = WORDS_UPPER * half + j
            if w_reach != 0.0:   # the subsets serving it exactly by printed values (C_REACH)
                exact_words[at] = hits_v & matched & subsets
            ok &= (subsets if has_wild else matched) & subsets
            ok_words[at] = ok
            wild_words[at] = ~matched
            if half:
                legal_upper |= ok
            else:
                legal_lower |= ok
            any_ok |= ok
        if any_ok:
            # assist_score's first three terms (value, waited, urgent), its top and
            # customer-effect terms
            cust = pile[P_ROW, j]
            waited = rnd - arrival[cust]
            part = 0.0
            part += w_value * v
            part += w_waited * waited
            part += w_urgent * (1.0 if waited + 1 >= patience else 0.0)
            cust_part[j] = part
            top_part[j] = w_top * (1.0 if v >= top_value else 0.0)
            effect_part[j] = w_cust_effect * customer_has_effect(cards, cust)
            kind_part[j] = customer_kind_part(cards, w, b, cust)
    best_mask = 0
    best_j = 0
    if w_noise:
        # the noise draws follow the search order: (subset mask, row position)
        for half in range(halves):
            rest = legal_upper if half else legal_lower
            while rest:
                m = lowest_slot(rest)
                rest &= rest - 1
                rows = 0  # the row positions subset m can assist
                for j in range(nrow):
                    rows |= (ok_words[WORDS_UPPER * half + j] >> m & 1) << j
                mask = LANES * half + m
                while rows:
                    j = lowest_slot(rows)
                    rows &= rows - 1
                    sc, _, _ = _lanes_score(cards, w, rng, pile, used, vals, fscr, scoring,
                                            row, hand, team_effects, lanes, mask, j, True,
                                            seven, option_w)
                    if sc > best_score:
                        best_score = sc
                        best_mask = mask
                        best_j = j
    else:
        # Without noise the scores do not depend on the visiting order, so each row
        # position's subsets are scored in turn, and a tie goes to the option first in the
        # search order: here, the one with the lower mask (a tie with the pass keeps it).
        for j in range(nrow):
            for half in range(halves):
                rest = ok_words[WORDS_UPPER * half + j]
                while rest:
                    mask = LANES * half + lowest_slot(rest)
                    rest &= rest - 1
                    sc, _, _ = _lanes_score(cards, w, rng, pile, used, vals, fscr, scoring,
                                            row, hand, team_effects, lanes, mask, j, True,
                                            seven, option_w)
                    if sc > best_score or (sc == best_score and mask < best_mask):
                        best_score = sc
                        best_mask = mask
                        best_j = j
    team = hp - P_HAND
    if best_mask and for_d3:
        # for D3: the chosen subset's score with each row position, without noise
        at = WORDS_UPPER * (best_mask >> 6)
        for j in range(nrow):
            sc = -np.inf
            reach = 0.0
            prefix = -np.inf
            if ok_words[at + j] >> (best_mask & 63) & 1:
                sc, reach, prefix = _lanes_score(cards, w, rng, pile, used, vals, fscr,
                                                 scoring, row, hand, team_effects, lanes,
                                                 best_mask, j, False, seven,
                                                 option_w)
            fscr[F_TARGET + team, j] = sc
            fscr[F_TARGET + team, TARGET_REACH + j] = reach
            fscr[F_TARGET + team, TARGET_PREFIX + j] = prefix
        fscr[F_TARGET + team, TARGET_KNOWN] = 1.0
    return best_mask, best_j, (legal_lower | legal_upper) != 0


# Called (forceinline=False), so the round's code keeps one copy of the lanes search
@njit(cache=True, _nrt=False, forceinline=False)
def commit_by_lanes_seven(cards, w, rng, pile, arrival, used, vals, fscr, scoring, row, hand,
                          team_effects, best_score):
    """commit_by_lanes for a hand of LANES_CARDS cards, in two halves (the general search
    takes 2.2 us a call on such a hand: 4 % of a 4-player expert game,
    benchmarks/p2p_profile.py)."""
    return commit_by_lanes(cards, w, rng, pile, arrival, used, vals, fscr, scoring, row, hand,
                           team_effects, best_score, True)


@njit(cache=True, _nrt=False, inline='always')
def _lanes_score(cards, w, rng, pile, used, vals, fscr, scoring, row, hand, team_effects,
                 lanes, m, j, draw, seven, option_w):
    """commit_by_lanes: (score, reach feature, the score's sum before the contest
    features) of the legal option (hand subset ``m``, row position ``j``), assist_score's
    sum in its order, its noise drawn (``draw``; else without noise). ``option_w``: the
    cards, high card, effects and reach weights and ``contest_zero``, the two contest
    features' terms (0.0 times their weights: no contest in D2), summed: each ±0.0, or
    NaN for a non-finite weight, so adding their sum gives the score that adding them
    one after the other gives, with fewer steps in each option's sum."""
    b, _, _, w_noise, w_high, _, _ = scoring
    nrow = row[0]
    h, hp, _, boost_slots, _ = hand
    shift_k, has_wild = team_effects
    w_cards, w_high_card, w_effects, w_reach, contest_zero = option_w
    total = np.int64(lanes[LANES_SUM + m])
    if m & boost_slots:
        _, sh_slot, _, use_wild, _, _ = eval_assist(
            cards, pile[hp], m, pile[P_ROW, j], used, shift_k, has_wild, vals)
        effects = (1.0 if sh_slot >= 0 else 0.0) + use_wild
        high_f = highest_played(vals, m) if w_high else 0
    else:
        delta = pile[SCR_ROWV, j] - total  # 0 unless the shift is used
        wild = (pile[SCR_ROW_WILD, j] >> m if seven is None
                else pile[SCR_ROW_WILD, WORDS_UPPER * (m >> 6) + j] >> (m & 63))
        effects = (0.0 if delta == 0 else 1.0) + (1.0 if wild & 1 else 0.0)
        high_f = 0
        if w_high:
            high = np.int64(lanes[LANES_HIGH + m])
            second = np.int64(lanes[LANES_SECOND + m])
            high_f = high + delta if delta >= 0 else max(high + delta, second)
    sc = fscr[F_CUST, j]
    sc += w_cards * SUBSET_SIZE[m]
    sc += w_high_card * high_f
    sc += w_effects * effects
    sc += fscr[F_TOP, j]
    prefix = sc
    # score_from_contest's steps, the reach term added only with its weight (adding 0.0
    # leaves the value as it is; the extra add cost about 5 ns a call)
    sc += contest_zero
    sc += fscr[F_CUST_EFFECT, j]
    sc += fscr[F_CUST_KIND, j]
    reach = 0.0
    if w_reach != 0.0:
        rest = ((1 << h) - 1) & ~m
        left = SUBMASKS[rest & 63]  # subsets of the cards left in hand (the lower half)
        count = 0
        if seven is not None and rest >> SUBSET_BITS & 1:   # both halves: a 7-card hand
            # keeps its last slot
            for jj in range(nrow):
                count += (jj != j) & (((pile[SCR_ROW_EXACT, jj] & left)
                                       | (pile[SCR_ROW_EXACT, WORDS_UPPER + jj] & left)) != 0)
        else:
            for jj in range(nrow):
                count += (jj != j) & ((pile[SCR_ROW_EXACT, jj] & left) != 0)
        reach = float(count)
        sc += w_reach * reach
    sc += w[b + C_NOISE] * uniform(rng) if w_noise and draw else 0.0
    return sc, reach, prefix


@njit(cache=True, _nrt=False, forceinline=False)
def commit_by_passes(cards, w, rng, pile, arrival, used, vals, fscr, scoring, row, hand,
                      team_effects, best_score):
    """D2 for any hand and weights, the options one by one: returns (best mask, its row
    position, any option legal). The engine calls it where the subset bitsets do not
    apply (more than LANES_CARDS cards or sums beyond int16); the others must choose as
    it does.

    Only subsets whose sum is within reach of some customer's value can be legal; a cheap
    first pass lists them. For those, per-subset aggregates (sum, natural and dual_domain
    bits, boost, count, highest card) decide most pairs without eval_assist: a subset
    without a usable boost card is legal exactly when its sum, or its sum with the team's
    best shift, hits the customer's value and a domain (natural, dual_domain, then
    wild_domain) matches. Subsets with a boost card go through eval_assist (the exact
    check). (Bucketing the row by customer value was slower: rows hold about two
    customers.)

    Never inlined (``forceinline=False``: unstated, it would inherit choose_commit's
    forceinline whenever compiled for it first, tests/core/test_compile_flags.py), so the
    assist loop's code stays small: inlined, greedy's games took 1.12-1.14 times as long."""
    b, _, _, _, _, separable, _ = scoring
    nrow, top_value, v_min, row_values = row
    h, hp, _, boost_slots, boost_all = hand
    shift_k, has_wild = team_effects
    best_mask = 0
    best_j = 0
    legal = False
    cust_part = fscr[F_CUST]
    top_part = fscr[F_TOP]
    effect_part = fscr[F_CUST_EFFECT]
    kind_part = fscr[F_CUST_KIND]
    h_val = pile[SCR_HV]
    h_nat = pile[SCR_HNAT]
    h_dual = pile[SCR_HDUAL]
    h_boost = pile[SCR_HBOOST]
    row_v = pile[SCR_ROWV]
    row_bits = pile[SCR_ROW_BITS]
    # A customer of value v is within reach of a subset with sum t when t - shift <= v <=
    # t + boosts + shift: bit v + shift of reach_values lies in the window of width
    # 2 shift + boosts (+ 1) above bit t. With values too high for 64 bits, every
    # subset is in reach (card files allow values up to 99).
    reach_values = row_values << shift_k if top_value + shift_k < 63 else -1
    reach_plain = (2 << min(2 * shift_k, 62)) - 1
    reach_boost = (2 << min(2 * shift_k + boost_all, 62)) - 1
    # Masks in ascending order, in runs of 2**LOW_BITS: (slots beyond LOW_BITS, low slots).
    # Pass 1 of a run sums each subset and lists, without branches (a filter branch
    # mispredicts), the subsets with a row customer's value within reach of the sum (sum -
    # shift .. sum + boosts + shift); pass 2 checks only those (about 4 of 14 at 4 players).
    low_bits = min(h, LOW_BITS)
    n_low = 1 << low_bits
    l_sum = pile[SCR_LOW + LOW_SUM]  # sums of the low subsets, built in the first run
    l_sum[0] = 0
    cand = pile[SCR_LOW + LOW_CAND]
    cand_sum = pile[SCR_LOW + LOW_CAND_SUM]
    n_words = 0   # exact_sets' words per row position, once it ran
    for run in range(1 << (h - low_bits)):
        hi_mask = run << low_bits
        hi_sum = 0
        for k in range(low_bits, h):
            hi_sum += h_val[k] * (hi_mask >> k & 1)
        n_cand = 0
        for lo in range(1 if run == 0 else 0, n_low):
            if run == 0:
                # a subset = a smaller one (without its lowest slot) + that slot
                l_sum[lo] = l_sum[lo & (lo - 1)] + h_val[LOWEST_SLOT[lo]]
            mask = hi_mask | lo
            total = l_sum[lo] + hi_sum
            reach = reach_boost if mask & boost_slots else reach_plain
            cand[n_cand] = mask
            cand_sum[n_cand] = total
            n_cand += ((reach_values >> min(total, 63)) & reach) != 0
        for i in range(n_cand):
            mask = cand[i]
            total = cand_sum[i]
            # the subset's other aggregates, without branches on the data
            n_played = 0
            nat = 0
            dual = 0
            boost = 0
            high = -1
            for k in range(h):
                bit = mask >> k & 1
                n_played += bit
                nat |= h_nat[k] * bit
                dual |= h_dual[k] * bit
                boost += h_boost[k] * bit
                high = max(high, h_val[k] * bit - (1 - bit))
            count_part = w[b + C_CARDS] * n_played
            if separable and boost == 0:
                # The exact check of eval_assist from the aggregates, without branches on the
                # data (they mispredict): the sum hits the value, or the best shift does and
                # leaves the highest card >= 0 (P2P-E2); a domain matches (natural,
                # dual_domain, then wild_domain).
                domains = nat | dual
                for j in range(nrow):  # row order
                    delta = row_v[j] - total
                    ok = (((delta == 0) | ((abs(delta) <= shift_k) & ((delta > 0) | (high + delta >= 0))))
                          & (((domains & row_bits[j]) != 0) | has_wild))
                    sc = (cust_part[j] + count_part + top_part[j] + effect_part[j]
                          + kind_part[j])
                    legal |= ok
                    # the first maximum, as selects (a branch here mispredicts)
                    better = ok & (sc > best_score)
                    best_score = sc if better else best_score
                    best_mask = mask if better else best_mask
                    best_j = j if better else best_j
                continue
            lowest = total - shift_k
            highest = total + boost + shift_k
            if highest < v_min or lowest > top_value:
                continue  # no customer in reach
            served = -1  # reach_served of this subset, found at its first scored option
            for j in range(nrow):  # row order
                if row_v[j] < lowest or row_v[j] > highest:
                    continue
                sc = 0.0
                if separable:
                    sc = (cust_part[j] + count_part + top_part[j] + effect_part[j]
                          + kind_part[j])
                    if legal and sc <= best_score:
                        continue  # cannot be the first maximum: skip the legality check
                ok, effects = _commit_legal(cards, pile, used, hp, mask, j, total, nat, dual,
                                            boost, high, shift_k, has_wild, vals)
                if not ok:
                    continue
                legal = True
                if not separable:
                    if served < 0 and w[b + C_REACH] != 0.0:
                        if h > LOW_BITS:
                            served = reach_served(cards, pile[hp], h, used, pile[P_ROW], nrow,
                                                  mask)
                        else:   # one run: every subset's sum is known by now
                            if n_words == 0:
                                n_words = exact_sets(pile, h, nrow)
                            served = served_by_sets(pile, h, nrow, n_words, mask)
                    sc = _commit_score(cards, w, rng, pile, arrival, used, vals, scoring, row,
                                       hand, team_effects, mask, j, n_played, boost, effects,
                                       served)
                if sc > best_score:
                    best_score = sc
                    best_mask = mask
                    best_j = j
    return best_mask, best_j, legal


@njit(cache=True, _nrt=False, inline='always')
def know_effects(cards, pile, pile_n, seats, used, st, team):
    """The team's venture effects for D2 and its reveal, in st[S_SHIFT_CARD + team] ..,
    unless they are current (st[S_EFFECTS_KNOWN + team]). A commit a caller forces (the
    round's hook) skips choose_commit, so the round caches them for it."""
    if st[S_EFFECTS_KNOWN + team] == 0:
        shift_card, shift_k, wild, _ = venture_effects(cards, pile, pile_n, seats, used, team)
        st[S_SHIFT_CARD + team] = shift_card
        st[S_SHIFT_K + team] = shift_k
        st[S_WILD + team] = wild
        st[S_EFFECTS_KNOWN + team] = 1


@njit(cache=True, _nrt=False, forceinline=True)
def choose_commit(cards, rules, seats, w, rng, pile, pile_n, arrival, used, st, team, vals,
                  none_legal, fscr):
    """D2: returns (mask, customer, any option legal); mask 0 and customer -1 for pass.

    ``none_legal``: the caller knows no option can be legal (the team had none earlier in
    this round and its hand, seats and effects have not changed since, while the row only
    lost customers), so only the pass option is scored (its noise drawn as usual).

    Every (subset, customer) pair is an option, in (subset mask ascending, row order):
    prepare_commit scores the pass option and fills the scratch rows, search_commit finds
    the first maximum."""
    h = pile_n[P_HAND + team]
    nrow = pile_n[P_ROW]
    fscr[F_TARGET + team, TARGET_KNOWN] = 0.0   # (the subset-bitset searches fill them)
    if h == 0 or nrow == 0:
        return 0, -1, False
    if none_legal:
        b = game_phase(w, pile_n) * NF
        if w[b + C_NOISE] != 0.0:
            uniform(rng)  # the pass option's noise draw
        return 0, -1, False
    scoring, row, hand, team_effects, best_score = prepare_commit(
        cards, rules, seats, w, rng, pile, pile_n, arrival, used, st, team)
    best_mask, best_j, legal = search_commit(cards, w, rng, pile, arrival, used, vals, fscr,
                                             scoring, row, hand, team_effects, best_score)
    return best_mask, (pile[P_ROW, best_j] if best_mask else -1), legal


@njit(cache=True, _nrt=False, inline='always')
def prepare_commit(cards, rules, seats, w, rng, pile, pile_n, arrival, used, st, team):
    """D2 before the search (a non-empty hand and row): draws the pass option's noise,
    fills the scratch rows (each hand slot's and row position's aggregates) and returns
    the searches' bundles (see the module docstring) and the pass option's score."""
    b = game_phase(w, pile_n) * NF
    nrow = pile_n[P_ROW]
    h = pile_n[P_HAND + team]
    rnd = st[S_ROUND]
    patience = rules[R_CUSTOMER_PATIENCE]
    know_effects(cards, pile, pile_n, seats, used, st, team)  # (also read by reveal)
    shift_k = st[S_SHIFT_K + team]
    has_wild = st[S_WILD + team] >= 0
    w_noise = w[b + C_NOISE] != 0.0
    w_high = w[b + C_HIGH] != 0.0
    best_score = w[b + C_PASS] + (w[b + C_NOISE] * uniform(rng) if w_noise else 0.0)
    # The row: each position's value and domain.
    row_v = pile[SCR_ROWV]
    row_d = pile[SCR_ROWD]
    row_bits = pile[SCR_ROW_BITS]  # matched by a card of any of these domains
    top_value = 0
    v_min = cards[CD_VALUE, pile[P_ROW, 0]]
    row_values = 0  # bit v: a customer of value v is in the row
    for j in range(nrow):
        cust = pile[P_ROW, j]
        v = cards[CD_VALUE, cust]
        row_v[j] = v
        row_d[j] = cards[CD_DOMAIN, cust]
        row_bits[j] = ALL_DOMAINS if row_d[j] == ANY else 1 << row_d[j]
        top_value = max(top_value, v)
        v_min = min(v_min, v)
        row_values |= 1 << min(v, 63)
    # Separable scores: without the high card, effects and noise features an option's score
    # is a per-customer part plus the cards part, summed in assist_score's order (the
    # zero-weight features add zeros), so it is known before the legality check.
    separable = (not w_noise and not w_high and w[b + C_EFFECTS] == 0.0
                 and w[b + C_REACH] == 0.0 and np.isfinite(w[b + C_CONTEST_WIN]) and np.isfinite(w[b + C_CONTEST_LOSE]))
    # Each hand slot's part of the aggregates (boost and dual_domain only while unused).
    hp = P_HAND + team
    h_val = pile[SCR_HV]
    h_nat = pile[SCR_HNAT]
    h_dual = pile[SCR_HDUAL]
    h_boost = pile[SCR_HBOOST]
    for s in range(h):
        c = pile[hp, s]
        h_val[s] = cards[CD_VALUE, c]
        d = cards[CD_DOMAIN, c]
        h_nat[s] = ALL_DOMAINS if d == ANY else 1 << d
        h_dual[s] = 0
        h_boost[s] = 0
        if used[c] == 0:
            if cards[CD_EFFECT, c] == EFFECT_BOOST:
                h_boost[s] = cards[CD_ARG, c]
            elif cards[CD_EFFECT, c] == EFFECT_DUAL_DOMAIN:
                h_dual[s] = 1 << cards[CD_ARG, c]
    boost_slots = 0  # the slots holding an unused boost card
    boost_all = 0
    hand_total = 0
    for s in range(h):
        boost_slots |= (1 if h_boost[s] else 0) << s
        boost_all += h_boost[s]
        hand_total += h_val[s]
    # The option search's scalars, bundled (see the module docstring).
    # D3 runs for the marker holder where it weights a contest or the noise feature
    # (round_kernel)
    for_d3 = team == st[S_MARKER] and (
        w_noise or w[b + C_CONTEST_WIN] != 0.0 or w[b + C_CONTEST_LOSE] != 0.0)
    scoring = (b, rnd, patience, w_noise, w_high, separable, for_d3)
    row = (nrow, top_value, v_min, row_values)
    hand = (h, hp, hand_total, boost_slots, boost_all)
    team_effects = (shift_k, has_wild)
    return scoring, row, hand, team_effects, best_score


@njit(cache=True, _nrt=False, inline='always')
def search_commit(cards, w, rng, pile, arrival, used, vals, fscr, scoring, row, hand,
                  team_effects, best_score):
    """D2's search after prepare_commit: (best mask, its row position, any option legal).
    A hand of up to SUBSET_BITS cards (nearly every call) goes to the subset bitsets:
    _best_by_sums (the first maximum per customer and card count) for separable scores
    and a hand without a usable boost, commit_by_lanes for any other weights or hand, and
    for a hand of LANES_CARDS cards; the rest to search_general."""
    h, _, hand_total, boost_slots, _ = hand
    if h <= LANES_CARDS and hand_total < SUBSET_SUM_MAX:
        if h <= SUBSET_BITS and scoring[5] and boost_slots == 0:  # separable, no boost
            return _best_by_sums(cards, w, pile, arrival, fscr, scoring, row, hand,
                                 team_effects, best_score)
        if h <= SUBSET_BITS:
            return commit_by_lanes(cards, w, rng, pile, arrival, used, vals, fscr, scoring,
                                   row, hand, team_effects, best_score, None)
        return commit_by_lanes_seven(cards, w, rng, pile, arrival, used, vals, fscr, scoring,
                                     row, hand, team_effects, best_score)
    return search_general(cards, w, rng, pile, arrival, used, vals, fscr, scoring, row, hand,
                          team_effects, best_score)


@njit(cache=True, _nrt=False, inline='always')
def search_general(cards, w, rng, pile, arrival, used, vals, fscr, scoring, row, hand,
                   team_effects, best_score):
    """D2's general search (commit_by_passes) for any hand and weights: the options one
    by one. The reference the subset-bitset searches must agree with."""
    if scoring[5]:  # separable: the per-customer score parts first
        for j in range(row[0]):
            (fscr[F_CUST, j], fscr[F_TOP, j], fscr[F_CUST_EFFECT, j],
             fscr[F_CUST_KIND, j]) = _customer_parts(cards, w, pile, arrival, scoring, row[1], j)
    return commit_by_passes(cards, w, rng, pile, arrival, used, vals, fscr, scoring, row, hand,
                            team_effects, best_score)


# ---------------------------------------------------------------- D2's options, base-scored

# D2 lists every legal (hand subset, customer) pair; with 9 hand cards and 8 customers
# that is 4,088 and the pass. Options beyond this are not listed.
MAX_OPTIONS = 4096


@njit(cache=True, _nrt=False, forceinline=False)
def commit_options(w, cards, rules, seats, pile, pile_n, arrival, used, st, team, options,
                   vals):
    """D2: the pass, then every legal (hand subset, customer) pair in features.py's order
    (mask ascending, row order), each as (mask, customer, cards played) with its score
    under weights ``w`` without noise (assist_score, as choose_commit scores it; its
    search for the best pair visits them otherwise). Returns how many."""
    b = game_phase(w, pile_n) * NF
    add_option(options, 0, -1, 0, w[b + C_PASS])
    h = pile_n[P_HAND + team]
    nrow = pile_n[P_ROW]
    if h == 0 or nrow == 0:
        return options.n[0]
    _, shift_k, wild, _ = venture_effects(cards, pile, pile_n, seats, used, team)
    hand = pile[P_HAND + team]
    top_value = 0
    for j in range(nrow):
        top_value = max(top_value, cards[CD_VALUE, pile[P_ROW, j]])
    rnd = st[S_ROUND]
    patience = rules[R_CUSTOMER_PATIENCE]
    for mask in range(1, 1 << h):
        n_played = 0
        m = mask
        while m:
            n_played += m & 1
            m >>= 1
        for j in range(nrow):
            cust = pile[P_ROW, j]
            ok, sh_slot, _, use_wild, _, _ = eval_assist(cards, hand, mask, cust, used, shift_k,
                                                         wild >= 0, vals)
            if not ok:
                continue
            value = cards[CD_VALUE, cust]
            waited = rnd - arrival[cust]
            reach = (reach_left(cards, hand, h, used, pile[P_ROW], nrow, mask, j)
                     if w[b + C_REACH] != 0.0 else 0.0)
            sc = assist_score(w, b, value, waited, 1.0 if waited + 1 >= patience else 0.0,
                              n_played, highest_played(vals, mask),
                              (1.0 if sh_slot >= 0 else 0.0) + use_wild,
                              1.0 if value >= top_value else 0.0, 0.0, 0.0,
                              customer_has_effect(cards, cust),
                              customer_kind_part(cards, w, b, cust), reach, 0.0)
            add_option(options, mask, cust, n_played, sc)
    return options.n[0]
