"""Trace only: what the game viewer shows beyond the rule events, as numba kernels.

- ``view_piles``: every pile at a round's start (after the new customers) and at the end
  of the game: the sizes of the decks and discards, the cards of the row (with their
  arrival rounds), the hands, the score piles, the ventures, the unhappy and out piles;
- ``view_commit_options`` / ``view_place_options``: the options a strategy weighs at D2
  (every legal hand subset and customer, and the pass) and D4 (every destination), each
  with its score, written just before the decision is taken;
- ``view_unhappy_cause``: why each customer that turned unhappy was lost, per team and
  its own (why_kernel's DECK, DRAW, CAPACITY, CHOICE), as the result row counts it.

A decision's noise feature is a draw from the game's stream per option, in option order
(features.py). To show the scores the strategy really compared, these kernels draw the
same numbers, in the same order, and then put the stream back: the game goes on exactly
as it would without them (tests/peer_to_peer/test_viewer_events.py checks that the first
maximum of the written scores is the option the game took). Called only under ``trace is
not None``, so a plain run compiles none of this.
"""
import numpy as np
from numba import njit

from sim.core.rng_kernel import uniform
from sim.games.peer_to_peer.assist_kernel import eval_assist
from sim.games.peer_to_peer.commit_kernel import assist_score, customer_has_effect, highest_played
from sim.games.peer_to_peer.constants import (
    CD_EFFECT, CD_KIND, CD_VALUE, EFFECT_NONE, MAX_SEATS, R_CUSTOMER_PATIENCE, R_PLAYERS,
    R_VENTURE_LIMIT, SEAT_TEAM, VENTURE,
)
from sim.games.peer_to_peer.features import (
    C_NOISE, C_PASS, D_DEVELOP_DECK, D_NOISE, D_OVERFLOW, D_SCORE, D_SCORE_REMAINING,
    D_SCORE_VALUE, D_VENTURE, D_VENTURE_EFFECT, NF,
)
from sim.games.peer_to_peer.state_kernel import (
    EV_VIEW_CAUSE, EV_VIEW_OPTION, EV_VIEW_PILE, N_PILES, P_CUST, P_DISC, P_GDECK, P_HAND, P_ROW, P_SEAT,
    S_ROUND, event, feature_noise, game_phase, venture_effects,
)
from sim.games.peer_to_peer.why_kernel import team_cause

VIEW_COMMIT, VIEW_PLACE = 0, 1   # EV_VIEW_OPTION's decision (D2, D4)
SCORE_UNIT = 1e6                 # a score is written as round(score * SCORE_UNIT)
SCORE_LIMIT = 1e12               # beyond it (and infinities) the code is +/- SCORE_INF
SCORE_INF = 1 << 62
SCORE_NAN = -(1 << 62) - 1


@njit(cache=True, _nrt=False)
def score_code(score):
    """A float score as the trace's integer (trace.py reads it back)."""
    if score != score:
        return SCORE_NAN
    if score >= SCORE_LIMIT:
        return SCORE_INF
    if score <= -SCORE_LIMIT:
        return -SCORE_INF
    return np.int64(np.floor(score * SCORE_UNIT + 0.5))


@njit(cache=True, _nrt=False)
def view_piles(pile, pile_n, arrival, st, trace):
    """Every pile in pile order (every seat, also those the player count leaves empty): its
    size, then its cards unless it is a deck or a discard (their sizes are what a player
    sees)."""
    rnd = st[S_ROUND]
    for p in range(N_PILES):
        event(trace, st, rnd, EV_VIEW_PILE, p, -1, pile_n[p], 0)
        if p == P_CUST or P_GDECK <= p < P_GDECK + 2 or P_DISC <= p < P_DISC + 2:
            continue
        for i in range(pile_n[p]):
            c = pile[p, i]
            event(trace, st, rnd, EV_VIEW_PILE, p, i, c, arrival[c] if p == P_ROW else 0)


@njit(cache=True, _nrt=False)
def view_commit_options(cards, rules, seats, w, rng, pile, pile_n, arrival, used, st, team,
                        vals, trace):
    """D2 (commit_kernel.choose_commit), just before it: the pass, then every legal (hand
    subset, customer) pair in features.py's order (mask ascending, row order) with its
    score, noise included. Nothing when there is no decision (an empty hand or row)."""
    h = pile_n[P_HAND + team]
    nrow = pile_n[P_ROW]
    if h == 0 or nrow == 0:
        return
    s0, s1, s2, s3 = rng[0], rng[1], rng[2], rng[3]
    b = game_phase(w, pile_n) * NF
    w_noise = w[b + C_NOISE] != 0.0
    rnd = st[S_ROUND]
    who = 2 * VIEW_COMMIT + team
    sc = w[b + C_PASS] + (w[b + C_NOISE] * uniform(rng) if w_noise else 0.0)
    event(trace, st, rnd, EV_VIEW_OPTION, who, 0, -1, score_code(sc))
    _, shift_k, wild, _ = venture_effects(cards, pile, pile_n, seats, used, team)
    hand = pile[P_HAND + team]
    top_value = 0
    for j in range(nrow):
        top_value = max(top_value, cards[CD_VALUE, pile[P_ROW, j]])
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
            sc = assist_score(w, b, value, waited, 1.0 if waited + 1 >= patience else 0.0,
                              n_played, highest_played(vals, mask),
                              (1.0 if sh_slot >= 0 else 0.0) + use_wild,
                              1.0 if value >= top_value else 0.0, 0.0, 0.0,
                              customer_has_effect(cards, cust),
                              uniform(rng) if w_noise else 0.0)
            event(trace, st, rnd, EV_VIEW_OPTION, who, mask, cust, score_code(sc))
    rng[0], rng[1], rng[2], rng[3] = s0, s1, s2, s3


@njit(cache=True, _nrt=False)
def view_place_options(cards, rules, seats, w, rng, pile, pile_n, used, st, team, cust, trace):
    """D4 (place_kernel.choose_place), just before the won customer leaves the row: the
    score pile, each seat of the team in seat order, then each develop target a usable
    effect allows, with its score, noise included."""
    s0, s1, s2, s3 = rng[0], rng[1], rng[2], rng[3]
    phase = game_phase(w, pile_n)
    b = phase * NF
    rnd = st[S_ROUND]
    who = 2 * VIEW_PLACE + team
    carries = 1.0 if (cards[CD_KIND, cust] == VENTURE and cards[CD_EFFECT, cust] != EFFECT_NONE) else 0.0
    sc = (w[b + D_SCORE] + w[b + D_SCORE_VALUE] * cards[CD_VALUE, cust]
          + w[b + D_SCORE_REMAINING] * pile_n[P_CUST]
          + w[b + D_NOISE] * feature_noise(w, phase, D_NOISE, rng))
    event(trace, st, rnd, EV_VIEW_OPTION, who, 0, cust, score_code(sc))
    for s in range(MAX_SEATS):
        if seats[SEAT_TEAM, s] != team:
            continue
        overflow = 1.0 if pile_n[P_SEAT + s] + 1 > rules[R_VENTURE_LIMIT] else 0.0
        sc = (w[b + D_VENTURE] + w[b + D_OVERFLOW] * overflow + w[b + D_VENTURE_EFFECT] * carries
              + w[b + D_NOISE] * feature_noise(w, phase, D_NOISE, rng))
        event(trace, st, rnd, EV_VIEW_OPTION, who, 1 + s, cust, score_code(sc))
    develop = venture_effects(cards, pile, pile_n, seats, used, team)[3]
    for target in range(3):
        if develop >> target & 1:
            sc = w[b + D_DEVELOP_DECK + target] + w[b + D_NOISE] * feature_noise(w, phase, D_NOISE, rng)
            event(trace, st, rnd, EV_VIEW_OPTION, who, 100 + target, cust, score_code(sc))
    rng[0], rng[1], rng[2], rng[3] = s0, s1, s2, s3


@njit(cache=True, _nrt=False)
def view_unhappy_cause(cards, rules, seats, pile, pile_n, used, st, cust, trace):
    """Why customer ``cust``, turned unhappy now (R4), was lost: each team's cause and the
    furthest of them (why_kernel.count_unhappy_cause's reading, on the same state)."""
    cause_a = team_cause(cards, seats, pile, pile_n, used, 0, cust)
    cause_b = -1 if rules[R_PLAYERS] == 1 else team_cause(cards, seats, pile, pile_n, used, 1, cust)
    event(trace, st, st[S_ROUND], EV_VIEW_CAUSE, cust, cause_a, cause_b, max(cause_a, cause_b))
