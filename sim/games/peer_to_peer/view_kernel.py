"""Trace only: what the game viewer shows beyond the rule events, as numba kernels.

- ``view_piles``: every pile at a round's start (after the new customers) and at the end
  of the game: the sizes of the decks and discards, the cards of the row (with their
  arrival rounds), the hands, the score piles, the ventures, the unhappy and out piles;
- ``view_commit_options`` (and place_kernel's ``view_place_options``, beside the
  decision it lists, whose module this one cannot import): the options weighed at D2 (the pass,
  every legal hand subset and customer) and D4 (every destination), each with its score,
  written just before the decision is taken. They are the decisions' own listings, the
  ones the search players rank (commit_kernel.commit_options, place_kernel.choose_place
  with an Options list): the order and the score of an option are written once. A listed
  score leaves out the strategy's noise feature (a listing draws nothing from the game's
  stream), so a noisy strategy may take an option that is not the top one listed;
- ``write_options``: a listing's rows;
- ``view_unhappy_cause``: why each customer that turned unhappy was lost, per team and
  its own (why_kernel's team_cause, as the result row counts it).

The listings draw nothing from the game's random stream; the view puts the stream back
all the same, so that a traced game is the game the run played. Called only under
``trace is not None``, so a plain run compiles none of this.
"""
import numpy as np
from numba import njit

from sim.core.search_kernel import new_options
from sim.games.peer_to_peer.commit_kernel import MAX_OPTIONS, commit_options
from sim.games.peer_to_peer.constants import MAX_SEATS, R_PLAYERS
from sim.games.peer_to_peer.state_kernel import (
    EV_VIEW_CAUSE, EV_VIEW_OPTION, EV_VIEW_PILE, N_PILES, P_CUST, P_DISC, P_GDECK, P_HAND,
    P_ROW, S_ROUND, event,
)
from sim.games.peer_to_peer.why_kernel import team_cause

VIEW_COMMIT, VIEW_PLACE = 0, 1   # EV_VIEW_OPTION's decision (D2, D4)
SCORE_UNIT = 1e6                 # a score is written as round(score * SCORE_UNIT)
SCORE_LIMIT = 1e12               # beyond it (and infinities) the code is +/- SCORE_INF
SCORE_INF = 1 << 62
SCORE_NAN = -(1 << 62) - 1
OPTION_WIDTH = 3                 # an option's fields (sim.core.search_kernel.Options)
MAX_PLACES = 1 + MAX_SEATS + 3   # D4: the score pile, a team's seats, 3 develop targets


@njit(cache=True, _nrt=False, forceinline=False)
def score_code(score):
    """A float score as the trace's integer (trace.py reads it back)."""
    if score != score:
        return SCORE_NAN
    if score >= SCORE_LIMIT:
        return SCORE_INF
    if score <= -SCORE_LIMIT:
        return -SCORE_INF
    return np.int64(np.floor(score * SCORE_UNIT + 0.5))


@njit(cache=True, _nrt=False, forceinline=False)
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


@njit(cache=True, _nrt=True, forceinline=False)
def view_commit_options(cards, rules, seats, w, rng, pile, pile_n, arrival, used, st, team,
                        vals, trace):
    """D2 (commit_kernel.choose_commit), just before it: the options the search lists,
    from the same listing (commit_kernel.commit_options): the pass, then every legal (hand
    subset, customer) pair in features.py's order, each with its score without noise.
    Nothing when there is no decision (an empty hand or row)."""
    if pile_n[P_HAND + team] == 0 or pile_n[P_ROW] == 0:
        return
    options = new_options(MAX_OPTIONS, OPTION_WIDTH)
    saved = rng.copy()
    commit_options(w, cards, rules, seats, pile, pile_n, arrival, used, st, team, options, vals)
    rng[:] = saved
    write_options(options, 2 * VIEW_COMMIT + team, -1, st, trace)


@njit(cache=True, _nrt=False, forceinline=False)
def write_options(options, who, cust, st, trace):
    """One EV_VIEW_OPTION row per listed option: (who, code, customer, score code); the
    customer is the option's own (D2) or the placed one (``cust`` >= 0, D4)."""
    rnd = st[S_ROUND]
    for i in range(options.n[0]):
        event(trace, st, rnd, EV_VIEW_OPTION, who, options.rows[i, 0],
              options.rows[i, 1] if cust < 0 else cust, score_code(options.scores[i]))


@njit(cache=True, _nrt=False, forceinline=False)
def view_unhappy_cause(cards, rules, seats, pile, pile_n, used, st, cust, trace):
    """Why customer ``cust``, turned unhappy now (R4), was lost: each team's cause and the
    furthest of them (why_kernel.count_unhappy_cause's reading, on the same state)."""
    cause_a = team_cause(cards, seats, pile, pile_n, used, 0, cust)
    cause_b = -1 if rules[R_PLAYERS] == 1 else team_cause(cards, seats, pile, pile_n, used, 1, cust)
    event(trace, st, st[S_ROUND], EV_VIEW_CAUSE, cust, cause_a, cause_b, max(cause_a, cause_b))
