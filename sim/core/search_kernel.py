"""What the search players of every game share (numba kernels): how a game's loop asks a
caller for a decision, a decision's random stream, the list of options, their ranking,
and dealing hidden cards again by card id.

How a decision reaches the search. A game's loop (Peer-to-Peer's assist loop, PLAI's
turn) takes a ``hook``: None for the engine's own games, which numba prunes away when it
compiles them (every use is a test ``hook is not None and ...`` on the argument itself,
as ``trace`` is pruned), or a ``Decisions`` tuple. At each decision the loop reads it:

- a choice in ``forced[slot]`` (``forced[slot, 0] >= 0``) is taken as it stands: a
  playout replays a choice under test, the live game one the search has made;
- a seat (or team) whose ``search[who, SEARCH_ON]`` is set and has no forced choice
  is *asked*: the loop records the decision in ``ask`` and returns, and its caller (the
  search player) decides on the state as the loop left it, puts the choice into
  ``forced``, restores ``snap`` (the state the loop copied at the start of the pass or
  turn) and runs the loop again from there; the rerun plays exactly as before up to the
  decision (the state holds the game's random stream) and takes the forced choice;
- otherwise the seat's base strategy decides, as in the engine.

The loop clears ``forced`` once its pass (or turn) is over. So the engine's own loop is
the only compiled copy of every rule; the search only lists options and plays them out
through that loop. ``log[slot]`` holds the trace rows (code and four fields) of a search
decision, which the loop writes where the decision is taken.

The search matrix (int64[seats or teams, 3]): SEARCH_ON, then the options kept (k) and
the samples (n) of the player holding that seat or team.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from sim.core.rng_kernel import seed_substream

SEARCH_ON, SEARCH_K, SEARCH_N = 0, 1, 2
NO_ASK = -1   # ask[0] when the loop did not stop for a decision
LOG_FIELDS = 5   # a trace row of a search decision: code, then four fields

# A game loop's hook (module docstring): the search matrix; per decision slot the forced
# choice (forced[slot, 0] < 0: none) and what this pass or turn settled (``facts``, same
# layout); the decision asked (kind, who, then the game's own fields); a few numbers the
# game keeps about the pass or turn start (``marks``); the state copied there (``snap``);
# the trace rows of each slot's search decision (``log``, ``log_n`` rows).
Decisions = namedtuple("Decisions", "search forced facts ask marks snap log log_n")
# The options of one decision: ``rows[i]`` (the game's own fields), ``scores[i]`` (the
# base strategy's score without noise), ``n[0]`` listed.
Options = namedtuple("Options", "rows scores n")


@njit(cache=True)
def new_decisions(search, slots, width, snap, log_rows):
    """A hook for a search player's games (module docstring): nothing forced or asked.
    ``snap``: a state of the game's own layout; ``log_rows``: trace rows per decision
    (0 for games without a trace)."""
    forced = np.full((slots, width), -1, np.int64)
    return Decisions(search, forced, forced.copy(), np.full(8, NO_ASK, np.int64),
                     np.zeros(4, np.int64), snap,
                     np.zeros((slots, log_rows, LOG_FIELDS), np.int64),
                     np.zeros(slots, np.int64))


@njit(cache=True, _nrt=False, inline='always')
def asked(hook, slot, who, kind, arg0, arg1, arg2, arg3):
    """At a decision of ``who`` (its choice goes into ``slot``): does the loop stop and
    ask its caller? Yes for a searching seat without a forced choice; then the decision
    and up to four of the game's own numbers are recorded in ``ask``."""
    if hook.search[who, SEARCH_ON] == 0 or hook.forced[slot, 0] >= 0:
        return False
    hook.ask[0] = kind
    hook.ask[1] = who
    hook.ask[2] = arg0
    hook.ask[3] = arg1
    hook.ask[4] = arg2
    hook.ask[5] = arg3
    return True


@njit(cache=True, _nrt=False, inline='always')
def any_search(hook):
    """Does any seat of the hook search (so that the loop keeps a copy of each start)?"""
    on = False
    for who in range(hook.search.shape[0]):
        on |= hook.search[who, SEARCH_ON] != 0
    return on


@njit(cache=True, _nrt=False, inline='always')
def clear_forced(hook):
    """The pass or turn is over: nothing forced, no search trace rows pending."""
    for slot in range(hook.forced.shape[0]):
        for i in range(hook.forced.shape[1]):
            hook.forced[slot, i] = -1
        hook.log_n[slot] = 0


@njit(cache=True, _nrt=False, inline='always')
def clear_facts(hook):
    """Nothing settled yet in this pass or turn."""
    for slot in range(hook.facts.shape[0]):
        for i in range(hook.facts.shape[1]):
            hook.facts[slot, i] = -1


@njit(cache=True, _nrt=False, inline='always')
def log_row(hook, slot, code, a, b, c, d):
    """A trace row of the search decision in ``slot`` (dropped when the log is full)."""
    n = hook.log_n[slot]
    if n < hook.log.shape[1]:
        hook.log[slot, n, 0] = code
        hook.log[slot, n, 1] = a
        hook.log[slot, n, 2] = b
        hook.log[slot, n, 3] = c
        hook.log[slot, n, 4] = d
        hook.log_n[slot] = n + 1


# ---------------------------------------------------------------- one decision

@njit(cache=True, _nrt=False)
def seed_decision(rng, seed, game_index, decision, salt):
    """The stream of the game's ``decision``-th search decision: from (seed, game index,
    decision) and the game's ``salt`` only, apart from the game's own stream."""
    seed_substream(rng, seed, game_index, decision, salt)


@njit(cache=True)
def new_options(max_options, width):
    return Options(np.zeros((max_options, width), np.int64), np.zeros(max_options),
                   np.zeros(1, np.int64))


@njit(cache=True, _nrt=False, inline='always')
def add_option(options, a, b, c, score):
    """List an option (its first three fields; a game fills the rest of its row) with its
    score; returns its row, or -1 when the list is full (the option is not listed)."""
    n = options.n[0]
    if n >= options.rows.shape[0]:
        return -1
    options.rows[n, 0] = a
    options.rows[n, 1] = b
    options.rows[n, 2] = c
    options.scores[n] = score
    options.n[0] = n + 1
    return n


@njit(cache=True, _nrt=False)
def top_k(scores, n, k, order):
    """The ``k`` best of ``scores[:n]`` into ``order``, best first, the earlier of equal
    scores first. Returns how many."""
    kept = min(k, n)
    for r in range(kept):
        best = -1
        for i in range(n):
            taken = False
            for q in range(r):
                if order[q] == i:
                    taken = True
                    break
            if not taken and (best < 0 or scores[i] > scores[best]):
                best = i
        order[r] = best
    return kept


@njit(cache=True, _nrt=False)
def best_kept(wins, kept):
    """The rank of the kept option with the most wins (the first of equals)."""
    best = 0
    for j in range(1, kept):
        if wins[j] > wins[best]:
            best = j
    return best


# ---------------------------------------------------------------- hidden cards

@njit(cache=True, _nrt=False, inline='always')
def collect_ids(counts, buf, m):
    """Each card id ``c`` ``counts[c]`` times into ``buf`` from position ``m`` on, in
    ascending order; clears ``counts``. Returns the new end. A sample is dealt from this
    (shuffled): it depends on which cards are hidden, never on where they lay."""
    for c in range(counts.shape[0]):
        for _ in range(counts[c]):
            buf[m] = c
            m += 1
        counts[c] = 0
    return m
