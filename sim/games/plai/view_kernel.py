"""Trace only: what the game viewer shows beyond the rule events, as numba kernels.

- ``view_piles``: every pile at a turn's start and at the end of the game: the sizes of
  the deck, the discard and the funding at stake, the cards of the pool, the Market
  Events and each seat's hand, and which seats are Open Source Maintainers;
- ``view_action_options``: the options of D1 (with D4's target) that
  decide_kernel.choose_action_s weighs, each with its score, just before it decides.

A decision's noise feature is a draw from the game's stream per option, in option order.
To show the scores the strategy really compared, ``view_action_options`` draws the same
numbers in the same order and then puts the stream back: the game goes on exactly as it
would without it (tests/plai/test_viewer_events.py checks that the first maximum of the
written scores is the action the game took). Called only when ``traced(trace)``, so a
plain run compiles none of this.
"""
import numpy as np
from numba import njit

from sim.games.plai.constants import (
    ACT_FAMILY, ACT_PASS, ACT_SPECIAL, ACT_TAKEOVER, ACT_VENTURE, EV_VIEW_OPTION, EV_VIEW_PILE,
    P_DECK, P_DISCARD, P_FUNDING, P_HAND0, P_POOL, R_MAINTAINER_ATTACK, R_MAINTAINER_SPECIALS,
    R_MAX_TURNS, R_PLAYERS, R_TAKEOVER_THRESHOLD, SIDE_ATTACK, SIDE_DEFENSE,
)
from sim.games.plai.decide_kernel import (
    first_of_id, funding_score, funding_setup, funding_terms, is_action_special, leader_hand,
    mode_powers, noise, special_score, takeover_score,
)
from sim.games.plai.features import F_ACT_PASS
from sim.games.plai.piles_kernel import log, seat_after

SCORE_UNIT = 1000.0            # a score is written as round(score * SCORE_UNIT) (int32 rows)
SCORE_INF = 2 ** 31 - 1        # beyond the int32 range (and infinities): +/- SCORE_INF
SCORE_NAN = -(2 ** 31)


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
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


@njit(cache=True, _nrt=False)
def view_action_options(W, ws, rng, cards, rules, piles, pile_n, bankrupt, seat, left, turn,
                        st, trace):
    """D1 with D4 (choose_action_s), just before it: every option in its order with its
    score, noise included. Every first copy of an action special is listed with each
    target (without noise choose_action_s scores only the first: the others score the
    same, so they cannot be the first maximum)."""
    s0, s1, s2, s3 = rng[0], rng[1], rng[2], rng[3]
    players = rules[R_PLAYERS]
    maintainer = bankrupt[seat] >= 0
    own = P_POOL if maintainer else P_HAND0 + seat
    startups = left if maintainer else left - 1
    if maintainer:
        log(trace, st, EV_VIEW_OPTION, ACT_PASS, -1, -1,
            score_code(W[ws, F_ACT_PASS] + noise(W, ws, rng)))
        first, last = ACT_FAMILY, ACT_FAMILY
        defense = 0
    else:
        first, last = ACT_FAMILY, ACT_VENTURE
        _, _, defense, _, _ = mode_powers(cards, piles, pile_n, own, SIDE_DEFENSE)
    regional, missing = funding_setup(rules, pile_n, bankrupt, seat, own, maintainer, startups)
    for action in range(first, last + 1):
        attackers, gap = funding_terms(action, regional, startups, missing)
        log(trace, st, EV_VIEW_OPTION, action, -1, -1,
            score_code(funding_score(W, ws, action, attackers, defense, gap) + noise(W, ws, rng)))
    if not maintainer or rules[R_MAINTAINER_SPECIALS]:
        most = leader_hand(pile_n, bankrupt, players, seat)
        seen = np.uint64(0)
        for i in range(pile_n[own]):
            card = piles[own, i]
            if not is_action_special(cards, card):
                continue
            first_copy, seen = first_of_id(piles, own, i, seen)
            if not first_copy:
                continue
            for k in range(1, players):   # from the next seat clockwise (PLAI-D)
                t = seat_after(seat, k, players)
                if bankrupt[t] >= 0:
                    continue
                log(trace, st, EV_VIEW_OPTION, ACT_SPECIAL, card, t,
                    score_code(special_score(W, ws, pile_n[P_HAND0 + t], most)
                               + noise(W, ws, rng)))
    if ((not maintainer and pile_n[own] >= rules[R_TAKEOVER_THRESHOLD])
            or (maintainer and rules[R_MAINTAINER_ATTACK] and pile_n[own] > 0)):
        has_real, has_bluff, power, _, _ = mode_powers(cards, piles, pile_n, own, SIDE_ATTACK)
        if has_real or has_bluff:
            most = leader_hand(pile_n, bankrupt, players, seat)
            turns_left = rules[R_MAX_TURNS] - turn
            last_rival = startups == 1
            for k in range(1, players):
                t = seat_after(seat, k, players)
                if bankrupt[t] >= 0:
                    continue
                log(trace, st, EV_VIEW_OPTION, ACT_TAKEOVER, -1, t,
                    score_code(takeover_score(W, ws, power, pile_n[P_HAND0 + t], most,
                                              turns_left, last_rival) + noise(W, ws, rng)))
    rng[0], rng[1], rng[2], rng[3] = s0, s1, s2, s3
