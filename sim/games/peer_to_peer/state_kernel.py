"""The Peer-to-Peer game state and its primitives (numba kernels).

One game's state is the named tuple ``State`` that ``new_state`` returns:
``(rng, pile, pile_n, arrival, used, st, stats, starts, fscr)``:
- ``rng``: the game's counter-based random stream (sim.core.rng_kernel), 4 words.
- ``pile[p, i]``, ``pile_n[p]``: every pile as a stack of card ids (top = last), p <
  N_PILES (P_*): the customer deck, the row, each team's group deck / hand / discard /
  score pile (team offsets +0 / +1), the unhappy pile, the out-of-game pile and one pile
  per seat (its ventures). Rows N_PILES .. N_ROWS-1 are scratch (SCR_*), so hot
  functions allocate nothing.
- ``arrival[c]``: the round in which customer ``c`` entered the row.
- ``used[c]``: 1 once the effect of card ``c`` was used this round (P2P-E).
- ``st``: scalars (S_*: round, marker, trace length, error, D2's cached venture effects).
- ``stats``: counters for the result row (T_*); ``starts``: each seat's starting venture.
- ``fscr``: float scratch (F_*).

The game (``Tables``: ``cards``, ``rules``, ``seats``, the two teams' weights ``w_a`` /
``w_b``) never changes during play. Everything a game goes on from is ``rng``, the pile rows, ``pile_n``,
``arrival``, ``used``, ``st``, ``stats`` and ``starts``: ``copy_state`` copies those, so
a copy made between rounds (or before a team's commit) plays on exactly as the original
would (engine_kernel.play_rounds); it also copies the round-start hands of the scratch row
SCR_HANDS, which the causes of unhappy customers read at R4.

Functions on the per-round hot path are compiled with ``_nrt=False`` (no reference
counting): they allocate nothing, so numba's per-call incref/decref of every array
argument (atomic operations, about a quarter of the run time) is pure overhead there.
Their arrays are the caller's and outlive the call.
Small helpers, the D2 / reveal / win functions and the assist loop (one call site each)
are also compiled with ``inline='always'``: numba passes every array as 7-9 machine
words, so one call of choose_commit cost about 50 ns before any work. Inlining a
function at several call sites multiplies the cold compile time (inlining everything
took minutes), so the rest stay calls.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from sim.games.peer_to_peer.constants import (
    CD_ARG, CD_EFFECT, CD_KIND, EFFECT_DEVELOP, EFFECT_SHIFT, EFFECT_WILD_DOMAIN,
    ERR_CONSERVATION, ERR_EFFECT_TWICE, ERR_VENTURE_LIMIT, MAX_SEATS, R_VENTURE_LIMIT,
    SEAT_TEAM, VENTURE,
)
from sim.games.peer_to_peer.features import NF, SWITCH
from sim.core.rng_kernel import uniform

State = namedtuple("State", "rng pile pile_n arrival used st stats starts fscr")
Tables = namedtuple("Tables", "cards rules seats w_a w_b")

# Piles
P_CUST, P_ROW, P_GDECK, P_HAND, P_DISC, P_SCORE, P_UNHAPPY, P_OUT, P_SEAT = 0, 1, 2, 4, 6, 8, 10, 11, 12
N_PILES = P_SEAT + MAX_SEATS
# Scratch rows after the piles, so hot functions allocate nothing: allocate ``pile`` with
# N_ROWS rows (every loop over piles stops at N_PILES).
SCR_VALS_A, SCR_VALS_B, SCR_KEYS_A, SCR_KEYS_B, SCR_USED_BEFORE = range(N_PILES, N_PILES + 5)
SCR_DECK, SCR_KEPT, SCR_DOOMED, SCR_SEEN, SCR_PAIR = range(N_PILES + 5, N_PILES + 10)
# D2 scratch (see choose_commit), one row each: per hand slot its value, domain bits,
# dual_domain bits and boost; per row position the customer's value, domain and domain
# bits; then LOW_N rows: the sums of the subsets of the hand's first LOW_BITS slots, and
# the subsets (with their sums) whose sum is within reach of a row customer.
SCR_HV, SCR_HNAT, SCR_HDUAL, SCR_HBOOST = range(N_PILES + 10, N_PILES + 14)
SCR_ROWV, SCR_ROWD, SCR_ROW_BITS = N_PILES + 14, N_PILES + 15, N_PILES + 16
SCR_LOW = N_PILES + 17
LOW_SUM, LOW_CAND, LOW_CAND_SUM = range(3)
LOW_N = 3
LOW_BITS = 8
# _best_by_sums / commit_by_lanes: per hand subset its sum, highest card and second highest
# card (int16 lanes: 128 each, 64 per half of a 7-card hand); per row position j the
# subsets that can assist it and those that need the team's wild_domain (one word each, at
# j and, for the subsets holding a 7-card hand's last slot, at WORDS_UPPER + j).
SCR_SUBSET_SUMS = SCR_LOW + LOW_N
LANES_SUM, LANES_HIGH, LANES_SECOND = 0, 128, 256  # int16 offsets in that row
WORDS_UPPER = 64
SCR_ROW_OK, SCR_ROW_WILD = SCR_SUBSET_SUMS + 1, SCR_SUBSET_SUMS + 2
# commit_by_lanes with the reach feature: per row position the subsets that serve it
# exactly by printed values (features.C_REACH).
SCR_ROW_EXACT = SCR_ROW_WILD + 1
# Each team's group hand at the start of the round and at the end of its assist loop, for
# the causes of unhappy customers (why_kernel.py): four slots of a quarter row each, the
# count first (HAND_START + team, HAND_END + team).
SCR_HANDS = SCR_ROW_EXACT + 1
HAND_START, HAND_END = 0, 2
SCR_SUMS = SCR_HANDS + 1   # the sums a team's cards reach (why_kernel)
N_ROWS = SCR_SUMS + 1
# Float scratch ``fscr`` (same width): D2's per-customer score parts (commit_kernel); per
# team (F_TARGET + team) the scores its D2 gave the chosen subset with each row position,
# for its D3 (contest_kernel.choose_target): at j the score without noise (-inf: not legal), at
# TARGET_REACH + j the option's reach feature, at TARGET_PREFIX + j its score summed up to
# the contest features (features.C_CONTEST_WIN), at TARGET_KNOWN 1.0 once D2 filled them
# this pass (commit_by_lanes or _best_by_sums, for the marker holder).
F_CUST, F_TOP, F_CUST_EFFECT, F_CUST_KIND = 0, 1, 2, 3
F_TARGET = 4
TARGET_REACH, TARGET_KNOWN, TARGET_PREFIX = 64, 128, 192
N_FROWS = 6
# Rows are at least this wide (the card count may be smaller): room for 2**LOW_BITS
# subsets.
PILE_WIDTH_MIN = 1 << LOW_BITS
# ... and an odd number of cache lines (8 int64 each): rows a power of two apart (2 KiB)
# would all start in the same two sets of the L1 cache and evict one another (4p A/B
# 0.96-0.985).
LINE = 8

# Scalar state
S_ROUND, S_MARKER, S_TRACE_N, S_ERROR, S_FIRST_MARKER = 0, 1, 2, 3, 4
S_SHIFT_CARD, S_SHIFT_K, S_WILD = 5, 7, 9  # per team (+0 / +1): D2's venture effects
# per team: 1 while S_SHIFT_CARD .. S_WILD are current. Cleared whenever the team's seats or
# the used marks of its cards change (mark_used, place_customer, unmark_assist, a new round).
S_EFFECTS_KNOWN = 11
N_STATE = 13

# Counters for the result row (team offsets +0 / +1)
T_ASSISTS, T_CONTESTS_WON, T_SENT_SCORE, T_SENT_VENTURE, T_SENT_DECK, T_CONTESTS = 0, 2, 4, 6, 8, 10
T_UNPAIRED_WON = 11   # contests that reached P2P-R2c's unpaired step, by winner
# contests won, by why (WHY_HIGHER_CARD .. WHY_MARKER) and winner: T_WHY_WON + 2 (why - 1) + team
T_WHY_WON = 13
# unhappy customers by cause (why_kernel.DECK .. CHOICE): for the team that came closest to
# serving them (T_UNHAPPY_CAUSE + cause), then per team (T_UNHAPPY_CAUSE + 4 (1 + team) + cause)
T_UNHAPPY_CAUSE = 23
N_STATS = 35

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
# The search player's decisions (search_kernel), after its options are played out:
EV_SEARCH_OPTION = 24  # kind (search_kernel.KIND_*), rank, 2 x the team's wins (a draw is half), playouts
EV_SEARCH_ARG = 25     # kind, then the option: commit (hand mask, customer, cards), target
                       # (customer, -, -), place (destination code, -, -)
EV_SEARCH_CARD = 26    # a card of a commit option
EV_SEARCH_CHOICE = 27  # kind, rank chosen, team, options kept
# What the game viewer shows beyond the events (view_kernel), written only when tracing:
EV_VIEW_PILE = 28      # pile (P_*), -1, its size, 0; then per card: pile, position, card,
                       # its arrival round (row) or 0: at each round's start and at the end
EV_VIEW_OPTION = 29    # 2 x decision (view_kernel.VIEW_*) + team, option (D2 hand mask, D4
                       # destination code), customer (-1: pass), score (view_kernel.score_code)
EV_VIEW_CAUSE = 30     # a customer turned unhappy: customer, team A's cause, team B's cause
                       # (-1 solo), the customer's own cause (why_kernel.DECK ..), after R4
TRACE_FIELDS = 6

# The decisions of a pass that a caller (the search player) may force or be asked for
# (sim.core.search_kernel.Decisions), a slot each: a team's commit (D2; per team +0 / +1:
# hand mask, customer, legal), the marker holder's target (D3: customer) and a team's
# placement of a won customer (D4; per team: destination code, place_kernel.choose_place's).
# A forced commit's legal is 0 when the team had no legal option (-1 or 1: it had one).
D_COMMIT, D_TARGET, D_PLACE = 0, 2, 3
N_DECISIONS = 5
DECISION_WIDTH = 3
KIND_COMMIT, KIND_TARGET, KIND_PLACE = 0, 1, 2   # ask[0] (trace words: trace.py SEARCH_KINDS)
# marks[MARK_NONE + team]: the team had no legal option earlier this round (at the pass start)
MARK_NONE = 0


@njit(cache=True, _nrt=False, forceinline=False)
def event(trace, st, rnd, code, a, b, c, d):
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
def push(pile, pile_n, p, card):
    pile[p, pile_n[p]] = card
    pile_n[p] += 1


@njit(cache=True, _nrt=False, inline='always')
def pop(pile, pile_n, p):
    pile_n[p] -= 1
    return pile[p, pile_n[p]]


@njit(cache=True, _nrt=False, inline='always')
def remove_at(pile, pile_n, p, i):
    card = pile[p, i]
    for j in range(i, pile_n[p] - 1):
        pile[p, j] = pile[p, j + 1]
    pile_n[p] -= 1
    return card


@njit(cache=True, _nrt=False, inline='always')
def feature_noise(w, phase, idx, rng):
    if w[phase * NF + idx] != 0.0:
        return uniform(rng)
    return 0.0


@njit(cache=True, _nrt=False, inline='always')
def listing_noise(w, phase, idx, rng, options):
    """An option's noise feature (feature_noise), or 0.0 while a search player lists the
    options (``options`` not None: sim.core.search_kernel.Options): it draws nothing."""
    if options is not None:
        return 0.0
    return feature_noise(w, phase, idx, rng)


@njit(cache=True, _nrt=False, forceinline=False)
def write_search_log(trace, st, hook, slot):
    """Trace only: the rows of the search decision in ``slot`` of the round's hook (the
    options it kept, their results and its choice), where the round takes it."""
    for r in range(hook.log_n[slot]):
        event(trace, st, st[S_ROUND], hook.log[slot, r, 0], hook.log[slot, r, 1],
              hook.log[slot, r, 2], hook.log[slot, r, 3], hook.log[slot, r, 4])


@njit(cache=True, _nrt=False, inline='always')
def game_phase(w, pile_n):
    return 1 if pile_n[P_CUST] <= w[SWITCH] else 0


@njit(cache=True, _nrt=False, inline='always')
def mark_used(used, st, card, trace, team, code):
    if used[card]:
        st[S_ERROR] = ERR_EFFECT_TWICE
    used[card] = 1
    st[S_EFFECTS_KNOWN + team] = 0
    if trace is not None and trace.shape[0]:
        event(trace, st, st[S_ROUND], EV_EFFECT, team, card, code, 0)


# ---------------------------------------------------------------- venture effects

@njit(cache=True, _nrt=False, inline='always')
def find_effect(cards, pile, pile_n, seats, used, team, effect, arg):
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
def venture_effects(cards, pile, pile_n, seats, used, team):
    """One pass over ``team``'s unused venture effects: (shift card, k, wild card, develop).

    The strongest `shift` (first in seat order on ties, -1 and 0 if none), the first
    `wild_domain` card (-1 if none), both as find_effect would find them, and a bitmask
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


@njit(cache=True, _nrt=False, forceinline=False)
def check_invariants(cards, rules, seats, pile, pile_n, st):
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


# ---------------------------------------------------------------- the state as a whole

@njit(cache=True, _nrt=True, forceinline=False)
def new_state(n_cards):
    """Per-game state arrays, allocated once per batch and reset by each game."""
    lines = -(-max(n_cards, PILE_WIDTH_MIN) // LINE)
    width = (lines | 1) * LINE
    return State(np.empty(4, np.uint64), np.zeros((N_ROWS, width), np.int64),
                 np.zeros(N_PILES, np.int64), np.zeros(n_cards, np.int64),
                 np.zeros(n_cards, np.uint8), np.zeros(N_STATE, np.int64),
                 np.zeros(N_STATS, np.int64), np.zeros(MAX_SEATS, np.int64),
                 np.zeros((N_FROWS, width)))


@njit(cache=True, _nrt=False, forceinline=False)
def copy_state(src, dst):
    """Copy the game state ``src`` (a State) into ``dst`` (one of the same card count):
    the random stream, the piles (not the scratch rows), the arrival rounds, the used
    marks, the scalars, the counters and the starting ventures."""
    rng, pile, pile_n, arrival, used, st, stats, starts, _ = src
    rng2, pile2, pile_n2, arrival2, used2, st2, stats2, starts2, _ = dst
    # element loops: an array-to-array slice assignment needs numba's runtime (_nrt)
    for i in range(rng.shape[0]):
        rng2[i] = rng[i]
    for p in range(N_PILES):
        for i in range(pile_n[p]):
            pile2[p, i] = pile[p, i]
        pile_n2[p] = pile_n[p]
    for c in range(arrival.shape[0]):
        arrival2[c] = arrival[c]
        used2[c] = used[c]
    for i in range(st.shape[0]):
        st2[i] = st[i]
    for i in range(stats.shape[0]):
        stats2[i] = stats[i]
    for i in range(starts.shape[0]):
        starts2[i] = starts[i]
    # the round-start hands (the causes of unhappy customers read them at R4)
    hands, hands2 = pile[SCR_HANDS], pile2[SCR_HANDS]
    quarter = hands.shape[0] // 4
    for slot in range(HAND_START, HAND_START + 2):
        for i in range(slot * quarter, slot * quarter + 1 + hands[slot * quarter]):
            hands2[i] = hands[i]
