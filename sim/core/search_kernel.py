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

Recording (learning from the search, sim/studies/distill.py). A search player's games
take one more argument, ``record``: None (numba prunes every use, so a search run
without it compiles and plays exactly as before), or a ``Recording`` the search fills in
place: per decision it made (more than one option kept) who made it, its kind, the
options it weighed (the ``k`` kept, best first by the base's scores, then up to
``extra`` options it listed but did not play out, drawn at random) as the game's feature
vectors -- what the deciding seat sees, the same numbers its strategy scores -- with
each option's mean result over the samples, and the option it chose.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from sim.core.rng_kernel import bounded, seed_substream

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
# A search player's record of its decisions (module docstring). ``decisions[d]``: the REC_*
# fields of decision d; ``features[r]``: the feature vector of one recorded option (the
# game's features of that decision's block of the weight vector: ``block`` is the block's
# first weight); ``values[r]``: its mean result (NaN: listed, not played out); ``n``: the
# N_* counts.
Recording = namedtuple("Recording", "decisions features values n")
REC_GAME, REC_WHO, REC_KIND, REC_BLOCK, REC_FIRST, REC_COUNT, REC_CHOSEN, REC_SAMPLES = range(8)
REC_FIELDS = 8
# n: decisions and feature rows used, decisions not recorded (the arrays were full), and
# how many options not played out a decision adds (at most)
N_DECISIONS, N_ROWS, N_DROPPED, N_EXTRA = range(4)


@njit(cache=True, _nrt=True, forceinline=False)
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

@njit(cache=True, _nrt=False, forceinline=False)
def seed_decision(rng, seed, game_index, decision, salt):
    """The stream of the game's ``decision``-th search decision: from (seed, game index,
    decision) and the game's ``salt`` only, apart from the game's own stream."""
    seed_substream(rng, seed, game_index, decision, salt)


@njit(cache=True, _nrt=True, forceinline=False)
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


@njit(cache=True, _nrt=False, forceinline=False)
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


@njit(cache=True, _nrt=False, forceinline=False)
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


# ---------------------------------------------------------------- recording (learning)

def new_recording(max_decisions, max_rows, width, extra):
    """An empty Recording (module docstring) for up to ``max_decisions`` decisions and
    ``max_rows`` options in all, ``width`` features each; ``extra``: options not played
    out that a decision adds to its kept ones (at most)."""
    n = np.zeros(4, np.int64)
    n[N_EXTRA] = extra
    return Recording(np.zeros((max_decisions, REC_FIELDS), np.int64),
                     np.zeros((max_rows, width)), np.full(max_rows, np.nan), n)


@njit(cache=True, _nrt=False, forceinline=False)
def open_decision(recording, game, who, kind, block, samples, count, chosen):
    """The next entry of ``recording``: a decision of ``who`` (a game's own ``kind``) in
    game ``game`` with ``count`` options, the one at ``chosen`` taken, each option's
    features zero (to fill: ``features[first + i]``, the block's weights starting at
    ``block``) and its value NaN (to fill for those played out). Returns ``first``, or -1
    when the recording is full (the decision is counted in N_DROPPED)."""
    n = recording.n
    d = n[N_DECISIONS]
    first = n[N_ROWS]
    if d >= recording.decisions.shape[0] or first + count > recording.features.shape[0]:
        n[N_DROPPED] += 1
        return -1
    rows = recording.decisions
    rows[d, REC_GAME] = game
    rows[d, REC_WHO] = who
    rows[d, REC_KIND] = kind
    rows[d, REC_BLOCK] = block
    rows[d, REC_FIRST] = first
    rows[d, REC_COUNT] = count
    rows[d, REC_CHOSEN] = chosen
    rows[d, REC_SAMPLES] = samples
    for r in range(first, first + count):
        recording.values[r] = np.nan
        for f in range(recording.features.shape[1]):
            recording.features[r, f] = 0.0
    n[N_DECISIONS] = d + 1
    n[N_ROWS] = first + count
    return first


@njit(cache=True, _nrt=False, forceinline=False)
def record_kept(recording, rng, game, who, kind, block, samples, order, kept, chosen, wins,
                listed, picked):
    """A search decision's entry (open_decision): its ``kept`` options ``order[:kept]``
    with their mean results (``wins`` over ``samples``), the rank ``chosen``, then up to
    ``recording.n[N_EXTRA]`` more of the ``listed`` options (indices into the decision's
    option list), drawn with ``rng`` -- the decision's own stream, after its samples, so
    the search's results do not depend on it. ``picked`` gets the option indices of the
    entry's rows, in order (the caller fills their features). Returns (first row or -1,
    rows)."""
    rest = listed - kept
    extra = min(recording.n[N_EXTRA], rest)
    count = kept + extra
    for j in range(kept):
        picked[j] = order[j]
    m = kept
    if extra == rest:   # every option not kept
        for i in range(listed):
            if not _among(picked, kept, i):
                picked[m] = i
                m += 1
    while m < count:    # ``extra`` of them, drawn without repeats
        i = bounded(rng, listed)
        if not _among(picked, m, i):
            picked[m] = i
            m += 1
    first = open_decision(recording, game, who, kind, block, samples, count, chosen)
    if first >= 0:
        for j in range(kept):
            recording.values[first + j] = wins[j] / samples
    return first, count


@njit(cache=True, _nrt=False, inline='always')
def _among(picked, m, i):
    for j in range(m):
        if picked[j] == i:
            return True
    return False
