"""Trace only: what the game viewer shows beyond the rule events, as numba kernels.

- ``view_piles``: every pile at a turn's start and at the end of the game: the sizes of
  the deck, the discard and the funding at stake, the cards of the pool, the Market
  Events and each seat's hand, and which seats are Open Source Maintainers;
- ``view_action_options``: the options of D1 (with D4's target) just before the seat
  decides, as decide_kernel.choose_action_s lists them for the search player (the same
  listing: the order and the score of an option are written once), each with its score.
  A listed score leaves out the strategy's noise feature (a listing draws nothing from
  the game's stream), so a noisy strategy may take an option that is not the top one.

Reached only where the game writes a trace, so a plain run compiles none of this: the
engine calls ``view_piles_if_traced`` and ``view_action_options_if_traced``, which numba
resolves by the trace's type (piles_kernel.only_traced).
"""
import numpy as np
from numba import njit

from sim.core.search_kernel import new_options
from sim.games.plai.constants import (
    EV_VIEW_OPTION, EV_VIEW_PILE, P_DECK, P_DISCARD, P_FUNDING, P_HAND0, R_PLAYERS,
)
from sim.games.plai.decide_kernel import choose_action_s
from sim.games.plai.piles_kernel import log, only_traced

SCORE_UNIT = 1000.0            # a score is written as round(score * SCORE_UNIT) (int32 rows)
SCORE_INF = 2 ** 31 - 1        # beyond the int32 range (and infinities): +/- SCORE_INF
SCORE_NAN = -(2 ** 31)
OPTION_WIDTH = 3               # an option's fields: action, card, target
MAX_ACTION_OPTIONS = 512       # as many as the search player lists (search_kernel.MAX_OPTIONS)


@njit(cache=True, _nrt=False, forceinline=False)
def score_code(score):
    """A float score as the trace's integer (trace.py reads it back)."""
    if score != score:
        return SCORE_NAN
    x = np.floor(score * SCORE_UNIT + 0.5)
    if x >= SCORE_INF:
        return SCORE_INF
    if x <= -SCORE_INF:
        return -SCORE_INF
    return np.int64(x)


@njit(cache=True, _nrt=False, forceinline=False)
def view_piles(rules, piles, pile_n, bankrupt, st, trace):
    """Every pile up to the last seat's hand, in pile order: its size (a hand: with the
    seat's bankrupt turn), then its cards unless it is the deck, the discard or the
    funding at stake (face down)."""
    for p in range(P_HAND0 + rules[R_PLAYERS]):
        log(trace, st, EV_VIEW_PILE, p, -1, pile_n[p], bankrupt[p - P_HAND0] if p >= P_HAND0 else 0)
        if p == P_DECK or p == P_DISCARD or p == P_FUNDING:
            continue
        for i in range(pile_n[p]):
            log(trace, st, EV_VIEW_PILE, p, i, piles[p, i], 0)


@njit(cache=True, _nrt=True, forceinline=False)
def view_action_options(W, ws, rng, cards, rules, piles, pile_n, bankrupt, seat, left, turn,
                        st, trace):
    """D1 with D4, just before it: the options choose_action_s lists for the search
    (every action special with each target, not only the first), in its order, each with
    its score without noise. The listing draws nothing; the stream is put back all the
    same."""
    options = new_options(MAX_ACTION_OPTIONS, OPTION_WIDTH)
    saved = rng.copy()
    choose_action_s(W, ws, rng, cards, rules, piles, pile_n, bankrupt, seat, left, turn,
                    options)
    rng[:] = saved
    for i in range(options.n[0]):
        log(trace, st, EV_VIEW_OPTION, options.rows[i, 0], options.rows[i, 1],
            options.rows[i, 2], score_code(options.scores[i]))


# the engine's calls: a plain run compiles neither listing (piles_kernel.only_traced)
view_action_options_if_traced = only_traced(view_action_options)
view_piles_if_traced = only_traced(view_piles)
