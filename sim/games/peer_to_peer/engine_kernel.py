"""The Peer-to-Peer game as numba kernels: setup (P2P-S), rounds (P2P-R), scoring (P2P-W).

State lives in a few arrays so every function takes plain arrays:
- ``pile[p, i]``, ``pile_n[p]``: every pile as a stack of card ids (top = last).
  Piles are the customer deck, the row, each team's group deck / hand / discard /
  score pile, the unhappy pile, the out-of-game pile and one pile per seat (venture).
- ``arrival[c]``: the round in which customer ``c`` entered the row.
- ``used[c]``: 1 once the effect of card ``c`` was used this round (P2P-E).
- ``st``: scalars (round, marker, ...) and ``stats``: counters for the result row.

Random draws, in order, all from the game's own counter-based stream: (1) shuffle of the
non-S cards, (2) per dealt seat the D1 noise (only if weighted), (3) shuffle of the deck
after the revealed cards return, (4) team A's then team B's S-card shuffle, (5) the first
team marker, then during play: strategy noise, `develop deck` shuffles and group-discard
reshuffles, in the order they happen. The customer deck is the deck shuffled in (3).
"""
import numpy as np
from numba import njit

from sim.games.peer_to_peer.assist_kernel import (
    contest, eval_assist, lowest_slot, sorted_play, unpaired_step,
)
from sim.games.peer_to_peer.constants import (
    ALL_LOSE, ANY, CD_DOMAIN, END_DECK_EMPTY, R_END_WHEN, EFFECT_BOOST, EFFECT_DUAL_DOMAIN, WHY_TIEBREAK, CD_ARG, CD_EFFECT, CD_KIND, CD_START, CD_VALUE, DEVELOP_DECK,
    DEVELOP_HAND, DRAW, EFFECT_DEVELOP, EFFECT_EXTRA_DRAW, EFFECT_NONE,
    EFFECT_PATIENCE, EFFECT_SHIFT, EFFECT_TIEBREAK, EFFECT_WILD_DOMAIN, ERR_CONSERVATION,
    ERR_EFFECT_TWICE, ERR_ILLEGAL_ASSIST, ERR_VENTURE_LIMIT, FATE_CUSTOMER_DECK, FATE_GROUP_A,
    FATE_OUT, FATE_ROW, FATE_SCORE_A, FATE_UNHAPPY, FATE_VENTURE_A, MARKER_A, MARKER_B,
    MAX_SEATS, R_CUSTOMER_PATIENCE, R_DEAL_IN_FIRST_ROUND, R_DOMAIN_RANK, R_FIRST_MARKER,
    R_HAND_SIZE, R_INITIAL_ROW, R_LOSER_EFFECTS_SPENT, R_MAX_ROUNDS, R_NEW_CUSTOMERS,
    R_PLAYERS, R_RESHUFFLE_DISCARD, R_ROW_CAPACITY, R_UNHAPPY_LIMIT, R_VENTURE_LIMIT,
    R_CONTEST_UNPAIRED, R_PATIENCE_RESETS_WAIT, R_SOLO_SPARE_START, R_UNCHOSEN_VENTURES,
    SOLO_SPARE_CUSTOMERS, UNCHOSEN_ASIDE, UNPAIRED_TIED,
    SEAT_DEALT, SEAT_TEAM, SOLO_WIN, TIMEOUT, VENTURE, WIN_A, WIN_B,
)
from sim.games.peer_to_peer.features import (
    C_CARDS, C_CONTEST_LOSE, C_CONTEST_WIN, C_CUST_EFFECT, C_EFFECTS, C_HIGH, C_NOISE, C_PASS,
    C_TOP, C_URGENT, C_VALUE, C_WAITED, D_DEVELOP_DECK, D_DEVELOP_DISCARD, D_DEVELOP_HAND,
    D_NOISE, D_OVERFLOW, D_SCORE,
    D_SCORE_REMAINING, D_SCORE_VALUE, D_VENTURE, D_VENTURE_EFFECT, L_HAS_EFFECT, L_IS_NEW,
    L_NOISE, L_VALUE, NF, S_NOISE, S_NONE, S_VALUE, SWITCH, V_HAS_EFFECT, V_NOISE, V_VALUE,
)
from sim.core.lanes_kernel import LANES, equal_lanes
from sim.core.rng_kernel import seed_game, shuffle, uniform

# Piles
P_CUST, P_ROW, P_GDECK, P_HAND, P_DISC, P_SCORE, P_UNHAPPY, P_OUT, P_SEAT = 0, 1, 2, 4, 6, 8, 10, 11, 12
N_PILES = P_SEAT + MAX_SEATS
# Scratch rows after the piles, so hot functions allocate nothing: allocate ``pile`` with
# N_ROWS rows (every loop over piles stops at N_PILES).
SCR_VALS_A, SCR_VALS_B, SCR_KEYS_A, SCR_KEYS_B, SCR_USED_BEFORE = range(N_PILES, N_PILES + 5)
SCR_DECK, SCR_KEPT, SCR_DOOMED, SCR_SEEN, SCR_PAIR = range(N_PILES + 5, N_PILES + 10)
# D2 scratch (see _choose_commit), one row each: per hand slot its value, domain bits,
# dual_domain bits and boost; per row position the customer's value, domain and domain
# bits; then LOW_N rows: the sums of the subsets of the hand's first LOW_BITS slots, and
# the subsets (with their sums) whose sum is within reach of a row customer.
SCR_HV, SCR_HNAT, SCR_HDUAL, SCR_HBOOST = range(N_PILES + 10, N_PILES + 14)
SCR_ROWV, SCR_ROWD, SCR_ROW_BITS = N_PILES + 14, N_PILES + 15, N_PILES + 16
SCR_LOW = N_PILES + 17
LOW_SUM, LOW_CAND, LOW_CAND_SUM = range(3)
LOW_N = 3
LOW_BITS = 8
SCR_SUBSET_SUMS = SCR_LOW + LOW_N  # _best_by_sums: per hand subset its sum (int16 lanes)
N_ROWS = SCR_SUBSET_SUMS + 1
# Float scratch ``fscr`` (same width): D2's per-customer score parts (see _choose_commit).
F_CUST, F_TOP, F_CUST_EFFECT = 0, 1, 2
N_FROWS = 3
# Rows are at least this wide (the card count may be smaller): room for 2**LOW_BITS
# subsets.
PILE_WIDTH_MIN = 1 << LOW_BITS
# ... and an odd number of cache lines (8 int64 each): rows a power of two apart (2 KiB)
# would all start in the same two sets of the L1 cache and evict one another (4p A/B
# 0.96-0.985).
LINE = 8
# LOWEST_SLOT[m]: the lowest set bit of m (m > 0), for D2's subset sums.
LOWEST_SLOT = np.array([0] + [(m & -m).bit_length() - 1 for m in range(1, 1 << LOW_BITS)],
                       dtype=np.int64)
# Functions on the per-round hot path are compiled with ``_nrt=False`` (no reference
# counting): they allocate nothing, so numba's per-call incref/decref of every array
# argument (atomic operations, about a quarter of the run time) is pure overhead there.
# Their arrays are the caller's and outlive the call.
# Small helpers, the D2 / reveal / win functions and the assist loop (one call site each)
# are also compiled with ``inline='always'``: numba passes every array as 7-9 machine
# words, so one call of _choose_commit cost about 50 ns before any work. Inlining a
# function at several call sites multiplies the cold compile time (inlining everything
# took minutes), so the rest stay calls.

# Scalar state
S_ROUND, S_MARKER, S_TRACE_N, S_ERROR, S_FIRST_MARKER = 0, 1, 2, 3, 4
S_SHIFT_CARD, S_SHIFT_K, S_WILD = 5, 7, 9  # per team (+0 / +1): D2's venture effects
# per team: 1 while S_SHIFT_CARD .. S_WILD are current. Cleared whenever the team's seats or
# the used marks of its cards change (_mark_used, _place, _unmark_assist, a new round).
S_EFFECTS_KNOWN = 11
N_STATE = 13

# Counters for the result row (team offsets +0 / +1)
T_ASSISTS, T_CONTESTS_WON, T_SENT_SCORE, T_SENT_VENTURE, T_SENT_DECK, T_CONTESTS = 0, 2, 4, 6, 8, 10
T_UNPAIRED_WON = 11   # contests that reached P2P-R2c's unpaired step, by winner
N_STATS = 13

# Trace events: (round, code, a, b, c, d)
EV_SEAT_START = 1     # seat, kept card, other card
EV_MARKER = 2         # team holding the first team marker this round
EV_DEAL = 3           # customer card dealt into the row
EV_PASS = 4           # team
EV_PLAY = 5           # team, card, value after effects
EV_DECLARE = 6        # team, customer, shift card (-1), wild card (-1)
EV_RETARGET = 7       # team, old customer, new customer
EV_CONTEST = 8        # winner, customer, why
EV_WIN = 9            # team, customer
EV_PLACE = 10         # team, customer, destination (0 score, 1 venture, 2 deck, 3 hand, 4 discard), seat
EV_OVERFLOW = 11      # team, seat, card pushed to the score pile
EV_REFRESH = 12       # team, cards drawn, reshuffles, extra draw
EV_UNHAPPY = 13       # customer
EV_SAVE = 14          # team, patience card, customer
EV_END = 15           # winner, score A, score B
EV_EFFECT = 16        # team, card whose effect was used, effect code
EV_RETURN = 17        # team whose cards went back to its hand
EV_SETUP = 18         # customers in the deck, group deck A, group deck B
EV_HAND = 19          # team, card (-1: empty hand), hand slot, hand size: before each commit (R2a)
EV_DRAW = 20          # team, card drawn into the group hand (S4, R3)
EV_RESHUFFLE = 21     # team, cards of the discard shuffled into a new group deck (R3)
EV_COULD = 22         # team, row customer, first hand subset (slot mask, 0 = none) that could
                      # legally assist it when the team passed at the end of the assist loop
EV_ASIDE = 23         # seat, the revealed venture it did not keep, set aside (P2P-S2)
TRACE_FIELDS = 6


@njit(cache=True, _nrt=False)
def _ev(trace, st, rnd, code, a, b, c, d):
    n = st[S_TRACE_N]
    if n < trace.shape[0]:
        trace[n, 0] = rnd
        trace[n, 1] = code
        trace[n, 2] = a
        trace[n, 3] = b
        trace[n, 4] = c
        trace[n, 5] = d
        st[S_TRACE_N] = n + 1


@njit(cache=True, _nrt=False, inline='always')
def _push(pile, pile_n, p, card):
    pile[p, pile_n[p]] = card
    pile_n[p] += 1


@njit(cache=True, _nrt=False, inline='always')
def _pop(pile, pile_n, p):
    pile_n[p] -= 1
    return pile[p, pile_n[p]]


@njit(cache=True, _nrt=False, inline='always')
def _remove_at(pile, pile_n, p, i):
    card = pile[p, i]
    for j in range(i, pile_n[p] - 1):
        pile[p, j] = pile[p, j + 1]
    pile_n[p] -= 1
    return card


@njit(cache=True, _nrt=False)
def _score_option(w, phase, f):
    base = phase * NF
    s = 0.0
    for i in range(NF):
        if f[i] != 0.0:
            s += w[base + i] * f[i]
    return s


@njit(cache=True, _nrt=False, inline='always')
def _noise(w, phase, idx, rng):
    if w[phase * NF + idx] != 0.0:
        return uniform(rng)
    return 0.0


@njit(cache=True, _nrt=False, inline='always')
def _phase(w, pile_n):
    return 1 if pile_n[P_CUST] <= w[SWITCH] else 0


@njit(cache=True, _nrt=False, inline='always')
def _mark_used(used, st, card, trace, team, code):
    if used[card]:
        st[S_ERROR] = ERR_EFFECT_TWICE
    used[card] = 1
    st[S_EFFECTS_KNOWN + team] = 0
    if trace.shape[0]:
        _ev(trace, st, st[S_ROUND], EV_EFFECT, team, card, code, 0)


# ---------------------------------------------------------------- venture effects

@njit(cache=True, _nrt=False, inline='always')
def _find_effect(cards, pile, pile_n, seats, used, team, effect, arg):
    """First unused venture card of ``team`` with ``effect`` (and ``arg`` if >= 0), or -1."""
    for s in range(MAX_SEATS):
        if seats[SEAT_TEAM, s] != team:
            continue
        for i in range(pile_n[P_SEAT + s]):
            c = pile[P_SEAT + s, i]
            if cards[CD_EFFECT, c] == effect and used[c] == 0 and cards[CD_KIND, c] == VENTURE:
                if arg < 0 or cards[CD_ARG, c] == arg:
                    return c
    return -1


@njit(cache=True, _nrt=False, inline='always')
def _venture_effects(cards, pile, pile_n, seats, used, team):
    """One pass over ``team``'s unused venture effects: (shift card, k, wild card, develop).

    The strongest `shift` (first in seat order on ties, -1 and 0 if none), the first
    `wild_domain` card (-1 if none), both as _find_effect would find them, and a bitmask
    of the `develop` targets (1 << DEVELOP_*) a card allows (P2P-E1/E2/E3)."""
    shift = -1
    shift_k = 0
    wild = -1
    develop = 0
    for s in range(MAX_SEATS):
        if seats[SEAT_TEAM, s] != team:
            continue
        for i in range(pile_n[P_SEAT + s]):
            c = pile[P_SEAT + s, i]
            if used[c] != 0 or cards[CD_KIND, c] != VENTURE:
                continue
            effect = cards[CD_EFFECT, c]
            if effect == EFFECT_SHIFT:
                if cards[CD_ARG, c] > shift_k:
                    shift = c
                    shift_k = cards[CD_ARG, c]
            elif effect == EFFECT_WILD_DOMAIN:
                if wild < 0:
                    wild = c
            elif effect == EFFECT_DEVELOP:
                develop |= 1 << cards[CD_ARG, c]
    return shift, shift_k, wild, develop


# ---------------------------------------------------------------- setup (P2P-S)

@njit(cache=True, _nrt=False)
def _setup(cards, rules, seats, w_a, w_b, rng, pile, pile_n, arrival, st, starts, trace):
    n_cards = cards.shape[1]
    solo = rules[R_PLAYERS] == 1
    # S2: S cards aside; shuffle the rest; reveal until each dealt seat has seen 2 ventures.
    deck = pile[SCR_DECK]
    n_deck = 0
    for c in range(n_cards):
        if cards[CD_START, c] < 0:
            deck[n_deck] = c
            n_deck += 1
    shuffle(rng, deck, n_deck)
    kept = pile[SCR_KEPT]
    kept[:] = 0
    pos = 0
    for s in range(MAX_SEATS):
        starts[s] = -1
        if seats[SEAT_TEAM, s] < 0 or seats[SEAT_DEALT, s] == 0:
            continue
        w = w_a if seats[SEAT_TEAM, s] == 0 else w_b
        first = -1
        second = -1
        while second < 0:  # validation guarantees enough venture cards
            c = deck[pos]
            pos += 1
            if cards[CD_KIND, c] == VENTURE:
                if first < 0:
                    first = c
                else:
                    second = c
        best = first
        best_score = -np.inf
        for k in range(2):  # D1
            c = first if k == 0 else second
            has_effect = 1.0 if cards[CD_EFFECT, c] != EFFECT_NONE else 0.0
            value = float(cards[CD_VALUE, c])
            noise = _noise(w, 0, V_NOISE, rng)
            sc = 0.0  # as _score_option: the non-zero features, in feature order
            if has_effect != 0.0:
                sc += w[V_HAS_EFFECT] * has_effect
            if value != 0.0:
                sc += w[V_VALUE] * value
            if noise != 0.0:
                sc += w[V_NOISE] * noise
            if sc > best_score:
                best_score = sc
                best = c
        unchosen = second if best == first else first
        kept[best] = 1
        starts[s] = best
        _push(pile, pile_n, P_SEAT + s, best)
        if trace.shape[0]:
            _ev(trace, st, 0, EV_SEAT_START, s, best, unchosen, 0)
        if rules[R_UNCHOSEN_VENTURES] == UNCHOSEN_ASIDE:  # S2: only group cards go back
            kept[unchosen] = 1
            _push(pile, pile_n, P_OUT, unchosen)
            if trace.shape[0]:
                _ev(trace, st, 0, EV_ASIDE, s, unchosen, 0, 0)
    # Every revealed card not kept (or set aside) returns; the deck is shuffled (S2) and
    # becomes the customer deck (S5) once the S cards are in the group decks.
    for i in range(n_deck):
        if kept[deck[i]] == 0:
            _push(pile, pile_n, P_CUST, deck[i])
    spare_to_customers = solo and rules[R_SOLO_SPARE_START] == SOLO_SPARE_CUSTOMERS
    if spare_to_customers:  # S3 solo: team B's S cards join the customer deck
        for c in range(n_cards):
            if cards[CD_START, c] == 1:
                _push(pile, pile_n, P_CUST, c)
    shuffle(rng, pile[P_CUST], pile_n[P_CUST])
    # S3: each team's S cards shuffled into its group deck; solo: team B's are out (or
    # already customers).
    for team in range(2):
        if solo and team == 1:
            if not spare_to_customers:
                for c in range(n_cards):
                    if cards[CD_START, c] == 1:
                        _push(pile, pile_n, P_OUT, c)
            continue
        for c in range(n_cards):
            if cards[CD_START, c] == team:
                _push(pile, pile_n, P_GDECK + team, c)
        shuffle(rng, pile[P_GDECK + team], pile_n[P_GDECK + team])
    # S4: group hands.
    for team in range(2 - solo):
        for _ in range(rules[R_HAND_SIZE]):
            if pile_n[P_GDECK + team] == 0:
                break
            _push(pile, pile_n, P_HAND + team, _pop(pile, pile_n, P_GDECK + team))
            if trace.shape[0]:
                _ev(trace, st, 0, EV_DRAW, team, pile[P_HAND + team, pile_n[P_HAND + team] - 1], 0, 0)
    if trace.shape[0]:
        _ev(trace, st, 0, EV_SETUP, pile_n[P_CUST], pile_n[P_GDECK], pile_n[P_GDECK + 1], 0)
    # S5: the first customers.
    for _ in range(rules[R_INITIAL_ROW]):
        if pile_n[P_CUST] == 0:
            break
        c = _pop(pile, pile_n, P_CUST)
        _push(pile, pile_n, P_ROW, c)
        arrival[c] = 1
        if trace.shape[0]:
            _ev(trace, st, 1, EV_DEAL, c, 0, 0, 0)
    # S6: the first team marker.
    if solo or rules[R_FIRST_MARKER] == MARKER_A:
        st[S_MARKER] = 0
    elif rules[R_FIRST_MARKER] == MARKER_B:
        st[S_MARKER] = 1
    else:
        st[S_MARKER] = 1 if uniform(rng) >= 0.5 else 0
    st[S_FIRST_MARKER] = st[S_MARKER]


# ---------------------------------------------------------------- D2: commit

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

ALL_DOMAINS = (1 << 5) - 1  # domain bits of a card whose domain is `any`


@njit(cache=True, _nrt=False, inline='always')
def _assist_score(w, b, value, waited, urgent, n_cards, high, effects, top, win, lose,
                  customer_effect, noise):
    """weights . features of a commit/retarget option, summed in feature order."""
    s = 0.0
    s += w[b + C_VALUE] * value
    s += w[b + C_WAITED] * waited
    s += w[b + C_URGENT] * urgent
    s += w[b + C_CARDS] * n_cards
    s += w[b + C_HIGH] * high
    s += w[b + C_EFFECTS] * effects
    s += w[b + C_TOP] * top
    s += w[b + C_CONTEST_WIN] * win
    s += w[b + C_CONTEST_LOSE] * lose
    s += w[b + C_CUST_EFFECT] * customer_effect
    s += w[b + C_NOISE] * noise
    return s


@njit(cache=True, _nrt=False, inline='always')
def _highest(vals, mask):
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
def _customer_has_effect(cards, cust):
    return 1.0 if (cards[CD_KIND, cust] == VENTURE and cards[CD_EFFECT, cust] != EFFECT_NONE) else 0.0


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
def _commit_score(cards, w, b, rng, pile, arrival, used, rnd, patience, top_value, hp, mask, j,
                  n_played, boost, shift_k, has_wild, effects, w_high, w_noise, vals):
    """D2: the score of a legal option (hand subset ``mask``, row position ``j``)."""
    cust = pile[P_ROW, j]
    high_f = 0
    if w_high:
        if boost == 0:  # _commit_legal left vals alone
            eval_assist(cards, pile[hp], mask, cust, used, shift_k, has_wild, vals)
        high_f = _highest(vals, mask)
    value = pile[SCR_ROWV, j]
    waited = rnd - arrival[cust]
    return _assist_score(
        w, b, value, waited, 1.0 if waited + 1 >= patience else 0.0, n_played, high_f, effects,
        1.0 if value >= top_value else 0.0, 0.0, 0.0, _customer_has_effect(cards, cust),
        uniform(rng) if w_noise else 0.0)


@njit(cache=True, _nrt=False, inline='always')
def _customer_parts(cards, w, b, pile, arrival, rnd, patience, top_value, j):
    """D2 with separable scores: the parts of an option's score that depend on its
    customer (row position ``j``): (value, waited and urgent; top; customer effect), each
    summed in _assist_score's order (the zero-weight features add zeros)."""
    cust = pile[P_ROW, j]
    value = pile[SCR_ROWV, j]
    waited = rnd - arrival[cust]
    return ((w[b + C_VALUE] * value + w[b + C_WAITED] * waited
             + w[b + C_URGENT] * (1.0 if waited + 1 >= patience else 0.0)),
            w[b + C_TOP] * (1.0 if value >= top_value else 0.0),
            w[b + C_CUST_EFFECT] * _customer_has_effect(cards, cust))


@njit(cache=True, _nrt=False, inline='always')
def _best_by_sums(cards, w, b, pile, arrival, rnd, patience, top_value, h, nrow, hand_total,
                  shift_k, has_wild, best_score):
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
    ordered (mask, row position) and ties keep the first."""
    w_cards = w[b + C_CARDS]
    h_val = pile[SCR_HV]
    h_nat = pile[SCR_HNAT]
    h_dual = pile[SCR_HDUAL]
    row_v = pile[SCR_ROWV]
    row_bits = pile[SCR_ROW_BITS]
    sums = pile[SCR_SUBSET_SUMS].view(np.int16)
    for m in range(LANES):  # (fixed-length loops: numba turns them into vector code)
        sums[m] = 0
    for k in range(h):
        value = h_val[k]
        for m in range(LANES):
            sums[m] += SUBSET_HOLDS[k, m] & value
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
        legal |= ok != 0
        if ok == 0:
            continue
        cust_part, top_part, effect_part = _customer_parts(cards, w, b, pile, arrival, rnd,
                                                           patience, top_value, j)
        # Scores fall (or stay) as the count moves away from the preferred end: the first
        # count scoring below the best so far ends the search for this customer.
        for i in range(h):
            n = i + 1 if w_cards <= 0.0 else h - i
            of_size = ok & SUBSETS_OF_SIZE[n]
            if of_size == 0:
                continue
            m = lowest_slot(of_size)
            sc = cust_part + w_cards * n + top_part + effect_part
            if sc < best_score:
                break
            if sc > best_score or (sc == best_score and best_mask != 0 and (
                    m < best_mask or (m == best_mask and j < best_j))):
                best_score = sc
                best_mask = m
                best_j = j
    return best_mask, best_j, legal


@njit(cache=True, _nrt=False)
def _commit_by_passes(cards, w, b, rng, pile, arrival, used, rnd, patience, top_value, v_min,
                      row_values, h, nrow, hp, shift_k, has_wild, w_noise, w_high, separable,
                      boost_slots, boost_all, best_score, vals, fscr):
    """D2 where _best_by_sums does not apply (scores with noise, high card or effects
    features, a usable boost card, or more than SUBSET_BITS cards): returns (best mask, its
    row position, any option legal).

    Only subsets whose sum is within reach of some customer's value can be legal; a cheap
    first pass lists them. For those, per-subset aggregates (sum, natural and dual_domain
    bits, boost, count, highest card) decide most pairs without eval_assist: a subset
    without a usable boost card is legal exactly when its sum, or its sum with the team's
    best shift, hits the customer's value and a domain (natural, dual_domain, then
    wild_domain) matches. Subsets with a boost card go through eval_assist (the exact
    check). (Bucketing the row by customer value was slower: rows hold about two
    customers.)

    Not inlined, so the assist loop's code stays small: 4p greedy 0.96x the time, random
    v random 1.07x (its every call comes here and pays the call)."""
    best_mask = 0
    best_j = 0
    legal = False
    cust_part = fscr[F_CUST]
    top_part = fscr[F_TOP]
    effect_part = fscr[F_CUST_EFFECT]
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
                    sc = cust_part[j] + count_part + top_part[j] + effect_part[j]
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
            for j in range(nrow):  # row order
                if row_v[j] < lowest or row_v[j] > highest:
                    continue
                sc = 0.0
                if separable:
                    sc = cust_part[j] + count_part + top_part[j] + effect_part[j]
                    if legal and sc <= best_score:
                        continue  # cannot be the first maximum: skip the legality check
                ok, effects = _commit_legal(cards, pile, used, hp, mask, j, total, nat, dual,
                                            boost, high, shift_k, has_wild, vals)
                if not ok:
                    continue
                legal = True
                if not separable:
                    sc = _commit_score(cards, w, b, rng, pile, arrival, used, rnd, patience,
                                       top_value, hp, mask, j, n_played, boost, shift_k,
                                       has_wild, effects, w_high, w_noise, vals)
                if sc > best_score:
                    best_score = sc
                    best_mask = mask
                    best_j = j
    return best_mask, best_j, legal


@njit(cache=True, _nrt=False, inline='always')
def _choose_commit(cards, rules, seats, w, rng, pile, pile_n, arrival, used, st, team, vals,
                   none_legal, fscr):
    """D2: returns (mask, customer, any option legal); mask 0 and customer -1 for pass.

    ``none_legal``: the caller knows no option can be legal (the team had none earlier in
    this round and its hand, seats and effects have not changed since, while the row only
    lost customers), so only the pass option is scored (its noise drawn as usual).

    Every (subset, customer) pair is an option, in (subset mask ascending, row order).
    With separable scores and a hand of up to SUBSET_BITS cards without a usable boost
    (nearly every call of the default strategies), _best_by_sums finds the first maximum
    with subset bitsets; otherwise _commit_by_passes visits the options in order."""
    h = pile_n[P_HAND + team]
    nrow = pile_n[P_ROW]
    if h == 0 or nrow == 0:
        return 0, -1, False
    b = _phase(w, pile_n) * NF
    if none_legal:
        if w[b + C_NOISE] != 0.0:
            uniform(rng)  # the pass option's noise draw
        return 0, -1, False
    rnd = st[S_ROUND]
    patience = rules[R_CUSTOMER_PATIENCE]
    if st[S_EFFECTS_KNOWN + team] == 0:  # (also read by _reveal)
        shift_card, shift_k, wild, _ = _venture_effects(cards, pile, pile_n, seats, used, team)
        st[S_SHIFT_CARD + team] = shift_card
        st[S_SHIFT_K + team] = shift_k
        st[S_WILD + team] = wild
        st[S_EFFECTS_KNOWN + team] = 1
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
    # is a per-customer part plus the cards part, summed in _assist_score's order (the
    # zero-weight features add zeros), so it is known before the legality check.
    separable = (not w_noise and not w_high and w[b + C_EFFECTS] == 0.0
                 and np.isfinite(w[b + C_CONTEST_WIN]) and np.isfinite(w[b + C_CONTEST_LOSE]))
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
    if separable and boost_slots == 0 and h <= SUBSET_BITS and hand_total < SUBSET_SUM_MAX:
        best_mask, best_j, legal = _best_by_sums(
            cards, w, b, pile, arrival, rnd, patience, top_value, h, nrow, hand_total, shift_k,
            has_wild, best_score)
        return best_mask, (pile[P_ROW, best_j] if best_mask else -1), legal
    if separable:
        for j in range(nrow):
            fscr[F_CUST, j], fscr[F_TOP, j], fscr[F_CUST_EFFECT, j] = _customer_parts(
                cards, w, b, pile, arrival, rnd, patience, top_value, j)
    best_mask, best_j, legal = _commit_by_passes(
        cards, w, b, rng, pile, arrival, used, rnd, patience, top_value, v_min, row_values,
        h, nrow, hp, shift_k, has_wild, w_noise, w_high, separable, boost_slots, boost_all,
        best_score, vals, fscr)
    return best_mask, (pile[P_ROW, best_j] if best_mask else -1), legal


# ---------------------------------------------------------------- D4 / D5: placement

@njit(cache=True, _nrt=False, inline='always')
def _place(cards, rules, seats, w, rng, pile, pile_n, used, st, stats, team, cust, trace):
    """D4 (and D5 on overflow): put a won customer somewhere (P2P-R2d)."""
    phase = _phase(w, pile_n)
    b = phase * NF
    limit = rules[R_VENTURE_LIMIT]
    carries = 1.0 if (cards[CD_KIND, cust] == VENTURE and cards[CD_EFFECT, cust] != EFFECT_NONE) else 0.0
    # option codes: 0 score, 1 + seat, 100 + develop target; scores summed in feature order
    best = 0
    best_score = (w[b + D_SCORE] + w[b + D_SCORE_VALUE] * cards[CD_VALUE, cust]
                  + w[b + D_SCORE_REMAINING] * pile_n[P_CUST] + w[b + D_NOISE] * _noise(w, phase, D_NOISE, rng))
    # Without noise a seat scores one of two values (with or without overflow): when neither
    # beats the score option, the seats need no scan.
    seats_may_win = (w[b + D_NOISE] != 0.0
                     or w[b + D_VENTURE] + w[b + D_VENTURE_EFFECT] * carries > best_score
                     or (w[b + D_VENTURE] + w[b + D_OVERFLOW]
                         + w[b + D_VENTURE_EFFECT] * carries) > best_score)
    for s in range(MAX_SEATS if seats_may_win else 0):
        if seats[SEAT_TEAM, s] != team:
            continue
        overflow = 1.0 if pile_n[P_SEAT + s] + 1 > limit else 0.0
        sc = (w[b + D_VENTURE] + w[b + D_OVERFLOW] * overflow + w[b + D_VENTURE_EFFECT] * carries
              + w[b + D_NOISE] * _noise(w, phase, D_NOISE, rng))
        if sc > best_score:
            best_score = sc
            best = 1 + s
    # Without noise a develop option scores its weight alone: when none beats the best so
    # far, the team's develop effects do not matter and its seats need no scan.
    develop = 0
    if (w[b + D_NOISE] != 0.0 or w[b + D_DEVELOP_DECK] > best_score
            or w[b + D_DEVELOP_HAND] > best_score or w[b + D_DEVELOP_DISCARD] > best_score):
        develop = _venture_effects(cards, pile, pile_n, seats, used, team)[3]
    for target in range(3):
        if not develop >> target & 1:
            continue
        sc = w[b + D_DEVELOP_DECK + target] + w[b + D_NOISE] * _noise(w, phase, D_NOISE, rng)
        if sc > best_score:
            best_score = sc
            best = 100 + target
    rnd = st[S_ROUND]
    if best == 0:
        _push(pile, pile_n, P_SCORE + team, cust)
        stats[T_SENT_SCORE + team] += 1
        if trace.shape[0]:
            _ev(trace, st, rnd, EV_PLACE, team, cust, 0, -1)
    elif best < 100:
        s = best - 1
        _push(pile, pile_n, P_SEAT + s, cust)
        stats[T_SENT_VENTURE + team] += 1
        if trace.shape[0]:
            _ev(trace, st, rnd, EV_PLACE, team, cust, 1, s)
        while pile_n[P_SEAT + s] > limit:
            _overflow(cards, w, phase, rng, pile, pile_n, st, team, s, trace)
        st[S_EFFECTS_KNOWN + team] = 0
    else:
        target = best - 100
        src = _find_effect(cards, pile, pile_n, seats, used, team, EFFECT_DEVELOP, target)
        _mark_used(used, st, src, trace, team, EFFECT_DEVELOP)
        stats[T_SENT_DECK + team] += 1
        if target == DEVELOP_DECK:
            _push(pile, pile_n, P_GDECK + team, cust)
            shuffle(rng, pile[P_GDECK + team], pile_n[P_GDECK + team])
        elif target == DEVELOP_HAND:
            _push(pile, pile_n, P_HAND + team, cust)
        else:
            _push(pile, pile_n, P_DISC + team, cust)
        if trace.shape[0]:
            _ev(trace, st, rnd, EV_PLACE, team, cust, 2 + target, -1)


@njit(cache=True, _nrt=False)
def _overflow(cards, w, phase, rng, pile, pile_n, st, team, s, trace):
    """D5: one of the seat's venture cards moves to the team's score pile."""
    p = P_SEAT + s
    b = phase * NF
    best = 0
    best_score = -np.inf
    for i in range(pile_n[p]):
        c = pile[p, i]
        # a venture effect: a group card's effect does not work in a venture (P2P-E)
        has_effect = 1.0 if (cards[CD_EFFECT, c] != EFFECT_NONE and cards[CD_KIND, c] == VENTURE) else 0.0
        value = float(cards[CD_VALUE, c])
        is_new = 1.0 if i == pile_n[p] - 1 else 0.0
        noise = _noise(w, phase, L_NOISE, rng)
        sc = 0.0  # as _score_option: the non-zero features, in feature order
        if has_effect != 0.0:
            sc += w[b + L_HAS_EFFECT] * has_effect
        if value != 0.0:
            sc += w[b + L_VALUE] * value
        if is_new != 0.0:
            sc += w[b + L_IS_NEW] * is_new
        if noise != 0.0:
            sc += w[b + L_NOISE] * noise
        if sc > best_score:
            best_score = sc
            best = i
    c = _remove_at(pile, pile_n, p, best)
    _push(pile, pile_n, P_SCORE + team, c)
    if trace.shape[0]:
        _ev(trace, st, st[S_ROUND], EV_OVERFLOW, team, s, c, 0)


# ---------------------------------------------------------------- R2: the assist loop

@njit(cache=True, _nrt=False, inline='always')
def _reveal(cards, rules, pile, pile_n, seats, used, st, team, mask, cust, vals, keys, trace,
            mark, need_keys):
    """Apply the effects of an assist (P2P-R2b/R2f); with ``need_keys``, sort its contest
    keys into ``keys`` and return their number (else 0).

    The team's venture effects are those its D2 found (st[S_SHIFT_CARD + team] ...): only
    the other team's reveal ran since, and it marks only that team's cards."""
    hand = pile[P_HAND + team]
    shift_card = st[S_SHIFT_CARD + team]
    shift_k = st[S_SHIFT_K + team]
    wild = st[S_WILD + team]
    ok, sh_slot, sh_delta, use_wild, dual_slot, boost_mask = eval_assist(
        cards, hand, mask, cust, used, shift_k, wild >= 0, vals)
    if not ok:
        st[S_ERROR] = ERR_ILLEGAL_ASSIST
    if mark:
        if sh_slot >= 0:
            _mark_used(used, st, shift_card, trace, team, EFFECT_SHIFT)
        if use_wild:
            _mark_used(used, st, wild, trace, team, EFFECT_WILD_DOMAIN)
        if dual_slot >= 0:
            _mark_used(used, st, hand[dual_slot], trace, team, EFFECT_DUAL_DOMAIN)
        for slot in range(pile_n[P_HAND + team]):
            if boost_mask >> slot & 1:
                _mark_used(used, st, hand[slot], trace, team, EFFECT_BOOST)
    total = 0
    m = mask
    while m:
        slot = lowest_slot(m)
        m &= m - 1
        total += vals[slot]
        if trace.shape[0] and mark:
            _ev(trace, st, st[S_ROUND], EV_PLAY, team, hand[slot], vals[slot], 0)
    if total != cards[CD_VALUE, cust]:
        st[S_ERROR] = ERR_ILLEGAL_ASSIST
    if trace.shape[0] and mark:
        _ev(trace, st, st[S_ROUND], EV_DECLARE, team, cust,
            shift_card if sh_slot >= 0 else -1, wild if use_wild else -1)
    if not need_keys:
        return 0
    return sorted_play(cards, rules, hand, mask, vals, keys)


@njit(cache=True, _nrt=False)
def _choose_target(cards, rules, seats, w, rng, pile, pile_n, arrival, used, st, team, mask,
                   declared, rival_cust, rival_keys, n_rival, vals, keys):
    """D3: the marker holder picks any customer its committed cards can legally assist."""
    phase = _phase(w, pile_n)
    hand = pile[P_HAND + team]
    shift_card, shift_k, wild, _ = _venture_effects(cards, pile, pile_n, seats, used, team)
    has_wild = wild >= 0
    tb_me = _find_effect(cards, pile, pile_n, seats, used, team, EFFECT_TIEBREAK, -1) >= 0
    tb_rival = _find_effect(cards, pile, pile_n, seats, used, 1 - team, EFFECT_TIEBREAK, -1) >= 0
    top_value = 0
    for j in range(pile_n[P_ROW]):
        top_value = max(top_value, cards[CD_VALUE, pile[P_ROW, j]])
    b = phase * NF
    rnd = st[S_ROUND]
    best = declared
    best_score = -np.inf
    for j in range(pile_n[P_ROW]):
        cust = pile[P_ROW, j]
        ok, sh_slot, _, use_wild, _, _ = eval_assist(cards, hand, mask, cust, used, shift_k,
                                                     has_wild, vals)
        if not ok:
            continue
        win = 0.0
        lose = 0.0
        if cust == rival_cust:
            n = sorted_play(cards, rules, hand, mask, vals, keys)
            if team == 0:
                winner, _ = contest(keys, n, rival_keys, n_rival, tb_me, tb_rival, team,
                                    rules[R_CONTEST_UNPAIRED] == UNPAIRED_TIED)
            else:
                winner, _ = contest(rival_keys, n_rival, keys, n, tb_rival, tb_me, team,
                                    rules[R_CONTEST_UNPAIRED] == UNPAIRED_TIED)
            if winner == team:
                win = 1.0
            else:
                lose = 1.0
        value = cards[CD_VALUE, cust]
        waited = rnd - arrival[cust]
        n_played = 0
        m = mask
        while m:
            n_played += m & 1
            m >>= 1
        sc = _assist_score(
            w, b, value, waited, 1.0 if waited + 1 >= rules[R_CUSTOMER_PATIENCE] else 0.0,
            n_played, _highest(vals, mask), (1.0 if sh_slot >= 0 else 0.0) + use_wild,
            1.0 if value >= top_value else 0.0, win, lose, _customer_has_effect(cards, cust),
            _noise(w, phase, C_NOISE, rng))
        if sc > best_score:
            best_score = sc
            best = cust
    return best


@njit(cache=True, _nrt=False, inline='always')
def _win(cards, rules, seats, w, rng, pile, pile_n, used, st, stats, team, mask, cust, trace):
    """The winner's played cards go to its discard and it places the customer (R2d)."""
    p = P_HAND + team
    for slot in range(pile_n[p] - 1, -1, -1):  # from the back so slots stay valid
        if mask >> slot & 1:
            _push(pile, pile_n, P_DISC + team, _remove_at(pile, pile_n, p, slot))
    for j in range(pile_n[P_ROW]):
        if pile[P_ROW, j] == cust:
            _remove_at(pile, pile_n, P_ROW, j)
            break
    stats[T_ASSISTS + team] += 1
    if trace.shape[0]:
        _ev(trace, st, st[S_ROUND], EV_WIN, team, cust, 0, 0)
    _place(cards, rules, seats, w, rng, pile, pile_n, used, st, stats, team, cust, trace)


@njit(cache=True, _nrt=False, inline='always')
def _assist_loop(cards, rules, seats, w_a, w_b, rng, pile, pile_n, arrival, used, st, stats,
                 trace, debug, fscr):
    n_teams = 1 if rules[R_PLAYERS] == 1 else 2
    vals_a = pile[SCR_VALS_A]
    vals_b = pile[SCR_VALS_B]
    keys_a = pile[SCR_KEYS_A]
    keys_b = pile[SCR_KEYS_B]
    used_before = pile[SCR_USED_BEFORE]  # loser_effects_spent=false: undo the losing assist
    custs = pile[SCR_PAIR]
    rnd = st[S_ROUND]
    # A team that passed with no legal option cannot have one later this round: only the
    # winner's hand, seats and effects change, and the row only loses customers.
    none_a = False
    none_b = False
    while True:
        # R2a: both teams commit at once, from the same state.
        # (one call site: _choose_commit is inlined)
        if trace.shape[0]:
            _trace_hands(pile, pile_n, st, n_teams, trace)
        mask_a, cust_a, mask_b, cust_b = 0, -1, 0, -1
        for t in range(n_teams):
            mask, cust, legal = _choose_commit(cards, rules, seats, w_a if t == 0 else w_b, rng,
                                               pile, pile_n, arrival, used, st, t,
                                               vals_a if t == 0 else vals_b,
                                               none_a if t == 0 else none_b, fscr)
            if t == 0:
                mask_a, cust_a, none_a = mask, cust, not legal
            else:
                mask_b, cust_b, none_b = mask, cust, not legal
        if mask_a == 0 and mask_b == 0:
            if trace.shape[0]:
                _ev(trace, st, rnd, EV_PASS, 0, 0, 0, 0)
                if n_teams == 2:
                    _ev(trace, st, rnd, EV_PASS, 1, 0, 0, 0)
                _trace_could_assist(cards, pile, pile_n, seats, used, st, n_teams, vals_a,
                                    trace)
            return
        if rules[R_LOSER_EFFECTS_SPENT] == 0:
            for c in range(used.shape[0]):
                used_before[c] = used[c]
        marker = st[S_MARKER] if n_teams == 2 else 0
        other = 1 - marker
        masks = (mask_a, mask_b)
        custs[0] = cust_a
        custs[1] = cust_b
        # R2b: the team without the marker reveals first, then the marker holder, who may
        # retarget (D3). (One _reveal and one _win call site each: they are inlined.)
        other_keys = keys_a if other == 0 else keys_b
        w_m = w_a if marker == 0 else w_b
        bm = _phase(w_m, pile_n) * NF
        # D3 without noise or contest features scores each customer as D2 did for this
        # subset, so it keeps the customer declared in D2 (the first maximum).
        keeps_declared = w_m[bm + C_NOISE] == 0.0 and (masks[other] == 0 or (
            w_m[bm + C_CONTEST_WIN] == 0.0 and w_m[bm + C_CONTEST_LOSE] == 0.0))
        n_other = 0
        n_marker = 0
        for k in range(2):
            t = other if k == 0 else marker
            if t >= n_teams:
                continue
            if masks[t] == 0:
                if trace.shape[0]:
                    _ev(trace, st, rnd, EV_PASS, t, 0, 0, 0)
                continue
            t_keys = keys_a if t == 0 else keys_b
            t_vals = vals_a if t == 0 else vals_b
            if k == 1:
                if keeps_declared:
                    new_cust = custs[marker]
                else:
                    new_cust = _choose_target(cards, rules, seats, w_m, rng, pile, pile_n,
                                              arrival, used, st, marker, masks[marker],
                                              custs[marker], custs[other], other_keys, n_other,
                                              t_vals, t_keys)
                if new_cust != custs[marker] and trace.shape[0]:
                    _ev(trace, st, rnd, EV_RETARGET, marker, custs[marker], new_cust, 0)
                custs[marker] = new_cust
            # contest keys only where a contest may follow (R2c) or D3 scores one
            if k == 0:
                need_keys = masks[marker] != 0 and (custs[0] == custs[1] or not keeps_declared)
            else:
                need_keys = custs[0] == custs[1] and masks[other] != 0
            n = _reveal(cards, rules, pile, pile_n, seats, used, st, t, masks[t], custs[t],
                        t_vals, t_keys, trace, True, need_keys)
            if k == 0:
                n_other = n
            else:
                n_marker = n
        contest_winner = -1
        if n_teams == 2 and masks[0] and masks[1] and custs[0] == custs[1]:
            # R2c: a contest.
            tb_a = _find_effect(cards, pile, pile_n, seats, used, 0, EFFECT_TIEBREAK, -1)
            tb_b = _find_effect(cards, pile, pile_n, seats, used, 1, EFFECT_TIEBREAK, -1)
            n_a = n_marker if marker == 0 else n_other
            n_b = n_marker if marker == 1 else n_other
            winner, why = contest(keys_a, n_a, keys_b, n_b, tb_a >= 0, tb_b >= 0, marker,
                                  rules[R_CONTEST_UNPAIRED] == UNPAIRED_TIED)
            if why == WHY_TIEBREAK:
                _mark_used(used, st, tb_a if winner == 0 else tb_b, trace, winner, EFFECT_TIEBREAK)
            stats[T_CONTESTS] += 1
            stats[T_CONTESTS_WON + winner] += 1
            unpaired = unpaired_step(keys_a, n_a, keys_b, n_b)
            if unpaired:
                stats[T_UNPAIRED_WON + winner] += 1
            if trace.shape[0]:
                _ev(trace, st, rnd, EV_CONTEST, winner, custs[0], why, 1 if unpaired else 0)
                _ev(trace, st, rnd, EV_RETURN, 1 - winner, 0, 0, 0)
            if rules[R_LOSER_EFFECTS_SPENT] == 0:
                _unmark_assist(cards, pile, pile_n, seats, used, used_before, st, 1 - winner,
                               masks[1 - winner])
            contest_winner = winner
        for t in (other, marker):  # resolved in reveal order; after a contest only its winner
            if t < n_teams and masks[t] and (contest_winner < 0 or t == contest_winner):
                w_t = w_a if t == 0 else w_b
                _win(cards, rules, seats, w_t, rng, pile, pile_n, used, st, stats, t,
                     masks[t], custs[t], trace)
        if debug:
            _check(cards, rules, seats, pile, pile_n, st)


@njit(cache=True, _nrt=False)
def _trace_hands(pile, pile_n, st, n_teams, trace):
    """Trace only: each team's group hand before it commits (R2a), slot by slot."""
    for t in range(n_teams):
        h = pile_n[P_HAND + t]
        if h == 0:
            _ev(trace, st, st[S_ROUND], EV_HAND, t, -1, -1, 0)
        for slot in range(h):
            _ev(trace, st, st[S_ROUND], EV_HAND, t, pile[P_HAND + t, slot], slot, h)


@njit(cache=True, _nrt=False)
def _trace_could_assist(cards, pile, pile_n, seats, used, st, n_teams, vals, trace):
    """Trace only: once both teams passed, for each team and row customer the first hand
    subset (ascending slot mask, 0 = none) that could legally assist it (R2a, with the
    team's unused effects), so a trace answers "could they have served that customer?"."""
    for t in range(n_teams):
        h = pile_n[P_HAND + t]
        _, shift_k, wild, _ = _venture_effects(cards, pile, pile_n, seats, used, t)
        for j in range(pile_n[P_ROW]):
            cust = pile[P_ROW, j]
            found = 0
            for mask in range(1, 1 << h):
                ok = eval_assist(cards, pile[P_HAND + t], mask, cust, used, shift_k, wild >= 0,
                                 vals)[0]
                if ok:
                    found = mask
                    break
            _ev(trace, st, st[S_ROUND], EV_COULD, t, cust, found, 0)


@njit(cache=True, _nrt=False)
def _unmark_assist(cards, pile, pile_n, seats, used, used_before, st, team, mask):
    """Reading loser_effects_spent=false: a contest loser's effects stay available.

    Restores the loser's assist venture effects and played group cards to ``used_before``
    (taken before this pass's reveals), so an effect spent earlier in the round stays
    spent (P2P-E: once per round)."""
    st[S_EFFECTS_KNOWN + team] = 0
    for s in range(MAX_SEATS):
        if seats[SEAT_TEAM, s] != team:
            continue
        for i in range(pile_n[P_SEAT + s]):
            c = pile[P_SEAT + s, i]
            if cards[CD_EFFECT, c] == EFFECT_SHIFT or cards[CD_EFFECT, c] == EFFECT_WILD_DOMAIN:
                used[c] = used_before[c]
    m = mask
    slot = 0
    while m:
        if m & 1:
            c = pile[P_HAND + team, slot]
            used[c] = used_before[c]
        m >>= 1
        slot += 1


# ---------------------------------------------------------------- R3, R4: end of round

@njit(cache=True, _nrt=False, inline='always')
def _refresh(cards, rules, seats, rng, pile, pile_n, used, st, team, trace):
    """R3: discard the hand, draw hand_size plus extra_draw, reshuffling the discard."""
    while pile_n[P_HAND + team]:
        _push(pile, pile_n, P_DISC + team, _pop(pile, pile_n, P_HAND + team))
    extra = 0
    for s in range(MAX_SEATS):
        if seats[SEAT_TEAM, s] != team:
            continue
        for i in range(pile_n[P_SEAT + s]):
            c = pile[P_SEAT + s, i]
            if (cards[CD_EFFECT, c] == EFFECT_EXTRA_DRAW and used[c] == 0
                    and cards[CD_KIND, c] == VENTURE):
                extra += cards[CD_ARG, c]
                _mark_used(used, st, c, trace, team, EFFECT_EXTRA_DRAW)
    drawn = 0
    reshuffles = 0
    for _ in range(rules[R_HAND_SIZE] + extra):
        if pile_n[P_GDECK + team] == 0:
            if rules[R_RESHUFFLE_DISCARD] == 0 or pile_n[P_DISC + team] == 0:
                break
            if trace.shape[0]:
                _ev(trace, st, st[S_ROUND], EV_RESHUFFLE, team, pile_n[P_DISC + team], 0, 0)
            while pile_n[P_DISC + team]:
                _push(pile, pile_n, P_GDECK + team, _pop(pile, pile_n, P_DISC + team))
            shuffle(rng, pile[P_GDECK + team], pile_n[P_GDECK + team])
            reshuffles += 1
        _push(pile, pile_n, P_HAND + team, _pop(pile, pile_n, P_GDECK + team))
        drawn += 1
        if trace.shape[0]:
            _ev(trace, st, st[S_ROUND], EV_DRAW, team, pile[P_HAND + team, pile_n[P_HAND + team] - 1],
                0, 0)
    if trace.shape[0]:
        _ev(trace, st, st[S_ROUND], EV_REFRESH, team, drawn, reshuffles, extra)


@njit(cache=True, _nrt=False, inline='always')
def _any_unhappy(rules, pile, pile_n, arrival, rnd):
    """Would R4 turn any customer unhappy (before E6 saves)? As _unhappy decides."""
    nrow = pile_n[P_ROW]
    if rules[R_ROW_CAPACITY] > 0 and nrow > rules[R_ROW_CAPACITY]:
        return True
    for j in range(nrow):
        if rnd - arrival[pile[P_ROW, j]] + 1 >= rules[R_CUSTOMER_PATIENCE]:
            return True
    return False


@njit(cache=True, _nrt=False)
def _unhappy(cards, rules, seats, w_a, w_b, rng, pile, pile_n, arrival, used, st, trace):
    """R4: customers that waited too long (or overflow row_capacity) turn unhappy; E6 saves."""
    nrow = pile_n[P_ROW]
    rnd = st[S_ROUND]
    doomed = pile[SCR_DOOMED]
    doomed[:nrow] = 0
    n_doomed = 0
    for j in range(nrow):
        if rnd - arrival[pile[P_ROW, j]] + 1 >= rules[R_CUSTOMER_PATIENCE]:
            doomed[j] = 1
            n_doomed += 1
    cap = rules[R_ROW_CAPACITY]
    if cap > 0:
        while nrow - n_doomed > cap:  # longest waiting first; row order breaks ties
            oldest = -1
            for j in range(nrow):
                if doomed[j] == 0 and (oldest < 0 or arrival[pile[P_ROW, j]] < arrival[pile[P_ROW, oldest]]):
                    oldest = j
            doomed[oldest] = 1
            n_doomed += 1
    if n_doomed:
        marker = st[S_MARKER]
        n_teams = 1 if rules[R_PLAYERS] == 1 else 2
        for k in range(n_teams):  # D6, the marker holder first
            team = marker if k == 0 else 1 - marker
            w = w_a if team == 0 else w_b
            phase = _phase(w, pile_n)
            while n_doomed:
                src = _find_effect(cards, pile, pile_n, seats, used, team, EFFECT_PATIENCE, -1)
                if src < 0:
                    break
                b = phase * NF  # scores summed in feature order
                best = -1
                best_score = w[b + S_NONE] + w[b + S_NOISE] * _noise(w, phase, S_NOISE, rng)
                for j in range(nrow):
                    if doomed[j] == 0:
                        continue
                    sc = (w[b + S_VALUE] * cards[CD_VALUE, pile[P_ROW, j]]
                          + w[b + S_NOISE] * _noise(w, phase, S_NOISE, rng))
                    if sc > best_score:
                        best_score = sc
                        best = j
                if best < 0:
                    break
                _mark_used(used, st, src, trace, team, EFFECT_PATIENCE)
                doomed[best] = 0
                n_doomed -= 1
                if rules[R_PATIENCE_RESETS_WAIT]:  # E6: its wait starts again next round
                    arrival[pile[P_ROW, best]] = rnd + 1
                if trace.shape[0]:
                    _ev(trace, st, rnd, EV_SAVE, team, src, pile[P_ROW, best],
                        rules[R_PATIENCE_RESETS_WAIT])
    for j in range(nrow - 1, -1, -1):
        if doomed[j]:
            c = _remove_at(pile, pile_n, P_ROW, j)
            _push(pile, pile_n, P_UNHAPPY, c)
            if trace.shape[0]:
                _ev(trace, st, rnd, EV_UNHAPPY, c, 0, 0, 0)


@njit(cache=True, _nrt=False)
def _check(cards, rules, seats, pile, pile_n, st):
    """Debug invariants: every card in exactly one place; no seat over its limit."""
    seen = pile[SCR_SEEN]
    seen[:] = 0
    for p in range(N_PILES):
        for i in range(pile_n[p]):
            seen[pile[p, i]] += 1
    for c in range(cards.shape[1]):
        if seen[c] != 1:
            st[S_ERROR] = ERR_CONSERVATION
    for s in range(MAX_SEATS):
        if pile_n[P_SEAT + s] > rules[R_VENTURE_LIMIT]:
            st[S_ERROR] = ERR_VENTURE_LIMIT


# ---------------------------------------------------------------- a whole game

@njit(cache=True, _nrt=False)
def _scoring(cards, rules, pile, pile_n):
    """P2P-W1/W2: returns the winner code for a two-team game."""
    key = pile[SCR_KEPT, :12].reshape((2, 6))  # score, value sum, then domain counts by rank
    key[:] = 0
    for team in range(2):
        key[team, 0] = pile_n[P_SCORE + team]
        for i in range(pile_n[P_SCORE + team]):
            c = pile[P_SCORE + team, i]
            key[team, 1] += cards[CD_VALUE, c]
            rank = rules[R_DOMAIN_RANK + cards[0, c]]
            if rank >= 0:
                key[team, 2 + 3 - rank] += 1
    for k in range(6):
        if key[0, k] != key[1, k]:
            return WIN_A if key[0, k] > key[1, k] else WIN_B
    return DRAW


@njit(cache=True)
def new_state(n_cards):
    """Per-game state arrays, allocated once per batch and reset by each game."""
    lines = -(-max(n_cards, PILE_WIDTH_MIN) // LINE)
    width = (lines | 1) * LINE
    return (np.empty(4, np.uint64), np.zeros((N_ROWS, width), np.int64),
            np.zeros(N_PILES, np.int64), np.zeros(n_cards, np.int64), np.zeros(n_cards, np.uint8),
            np.zeros(N_STATE, np.int64), np.zeros(N_STATS, np.int64),
            np.zeros(MAX_SEATS, np.int64), np.zeros((N_FROWS, width)))


@njit(cache=True)
def play_game(cards, rules, seats, w_a, w_b, seed, game_index, out, fates, trace, debug):
    """Play one game; write its result row into ``out`` (a record) and ``fates``.

    Returns the number of trace events written (0 when ``trace`` has no rows)."""
    rng, pile, pile_n, arrival, used, st, stats, starts, fscr = new_state(cards.shape[1])
    return _play(cards, rules, seats, w_a, w_b, seed, game_index, out, fates, trace, debug,
                 rng, pile, pile_n, arrival, used, st, stats, starts, fscr)


@njit(cache=True, _nrt=False)
def _play(cards, rules, seats, w_a, w_b, seed, game_index, out, fates, trace, debug,
          rng, pile, pile_n, arrival, used, st, stats, starts, fscr):
    seed_game(rng, seed, game_index)
    pile_n[:] = 0
    arrival[:] = 0
    used[:] = 0
    st[:] = 0
    stats[:] = 0
    _setup(cards, rules, seats, w_a, w_b, rng, pile, pile_n, arrival, st, starts, trace)
    solo = rules[R_PLAYERS] == 1
    winner = TIMEOUT
    rnd = 0
    for rnd in range(1, rules[R_MAX_ROUNDS] + 1):
        st[S_ROUND] = rnd
        if trace.shape[0]:
            _ev(trace, st, rnd, EV_MARKER, st[S_MARKER], 0, 0, 0)
        if rnd > 1 or rules[R_DEAL_IN_FIRST_ROUND]:  # R1
            for _ in range(rules[R_NEW_CUSTOMERS]):
                if pile_n[P_CUST] == 0:
                    break
                c = _pop(pile, pile_n, P_CUST)
                _push(pile, pile_n, P_ROW, c)
                arrival[c] = rnd
                if trace.shape[0]:
                    _ev(trace, st, rnd, EV_DEAL, c, 0, 0, 0)
        used[:] = 0
        st[S_EFFECTS_KNOWN] = 0
        st[S_EFFECTS_KNOWN + 1] = 0
        _assist_loop(cards, rules, seats, w_a, w_b, rng, pile, pile_n, arrival, used, st, stats,
                     trace, debug, fscr)
        for team in range(1 if solo else 2):  # R3
            _refresh(cards, rules, seats, rng, pile, pile_n, used, st, team, trace)
        if _any_unhappy(rules, pile, pile_n, arrival, rnd):  # R4 (most rounds have none)
            _unhappy(cards, rules, seats, w_a, w_b, rng, pile, pile_n, arrival, used, st, trace)
        if debug:
            _check(cards, rules, seats, pile, pile_n, st)
        if pile_n[P_UNHAPPY] >= rules[R_UNHAPPY_LIMIT]:  # R5
            winner = ALL_LOSE
            break
        if pile_n[P_CUST] == 0 and (rules[R_END_WHEN] == END_DECK_EMPTY or pile_n[P_ROW] == 0):
            winner = SOLO_WIN if solo else _scoring(cards, rules, pile, pile_n)
            break
        if not solo:  # R5: the marker passes to the other team (there is none in solo)
            st[S_MARKER] = 1 - st[S_MARKER]
    if trace.shape[0]:
        _ev(trace, st, rnd, EV_END, winner, pile_n[P_SCORE], pile_n[P_SCORE + 1], 0)
    _write_result(cards, rules, seats, pile, pile_n, st, stats, starts, game_index, winner, rnd,
                  out, fates)
    return st[S_TRACE_N]


@njit(cache=True, _nrt=False)
def _write_result(cards, rules, seats, pile, pile_n, st, stats, starts, game_index, winner, rnd, out,
                  fates):
    out.game_index = game_index
    out.players = rules[R_PLAYERS]
    out.winner = winner
    out.first_marker = st[S_FIRST_MARKER]
    out.rounds = rnd
    out.unhappy = pile_n[P_UNHAPPY]
    out.score_a = pile_n[P_SCORE]
    out.score_b = pile_n[P_SCORE + 1]
    for team in range(2):
        value = 0
        for i in range(pile_n[P_SCORE + team]):
            value += cards[CD_VALUE, pile[P_SCORE + team, i]]
        if team == 0:
            out.value_a = value
        else:
            out.value_b = value
    out.assists_a = stats[T_ASSISTS]
    out.assists_b = stats[T_ASSISTS + 1]
    out.contests = stats[T_CONTESTS]
    out.contests_won_a = stats[T_CONTESTS_WON]
    out.contests_won_b = stats[T_CONTESTS_WON + 1]
    out.contests_unpaired_won_a = stats[T_UNPAIRED_WON]
    out.contests_unpaired_won_b = stats[T_UNPAIRED_WON + 1]
    out.sent_score_a = stats[T_SENT_SCORE]
    out.sent_score_b = stats[T_SENT_SCORE + 1]
    out.sent_venture_a = stats[T_SENT_VENTURE]
    out.sent_venture_b = stats[T_SENT_VENTURE + 1]
    out.sent_deck_a = stats[T_SENT_DECK]
    out.sent_deck_b = stats[T_SENT_DECK + 1]
    out.start_card_0 = starts[0]
    out.start_card_1 = starts[1]
    out.start_card_2 = starts[2]
    out.start_card_3 = starts[3]
    out.start_card_4 = starts[4]
    out.start_card_5 = starts[5]
    out.error = st[S_ERROR]
    # Fates: where each card ended.
    for p in range(N_PILES):
        if p == P_CUST:
            code = FATE_CUSTOMER_DECK
        elif p == P_ROW:
            code = FATE_ROW
        elif p == P_UNHAPPY:
            code = FATE_UNHAPPY
        elif p == P_OUT:
            code = FATE_OUT
        elif p >= P_SEAT:
            code = FATE_VENTURE_A + seats[SEAT_TEAM, p - P_SEAT]
        elif p >= P_SCORE:
            code = FATE_SCORE_A + (p - P_SCORE)
        else:
            code = FATE_GROUP_A + (p - P_GDECK) % 2
        for i in range(pile_n[p]):
            fates[pile[p, i]] = code


@njit(cache=True, nogil=True)
def run_games(cards, rules, seats, w_a, w_b, seed, start, out, fates, debug):
    """Play games start .. start+len(out)-1 (serial, GIL released: callers use threads)."""
    trace = np.zeros((0, TRACE_FIELDS), np.int64)
    rng, pile, pile_n, arrival, used, st, stats, starts, fscr = new_state(cards.shape[1])
    for i in range(out.shape[0]):
        _play(cards, rules, seats, w_a, w_b, seed, start + i, out[i], fates[i], trace, debug,
              rng, pile, pile_n, arrival, used, st, stats, starts, fscr)


@njit(cache=True)
def play_traced(cards, rules, seats, w_a, w_b, seed, game_index, out, fates, trace, debug):
    """One game with its trace buffer filled; returns the number of events."""
    return play_game(cards, rules, seats, w_a, w_b, seed, game_index, out[0], fates[0], trace,
                     debug)
