"""Peer-to-Peer's search player: determinized Monte Carlo over a base strategy.

A search team decides D2 (commit: cards and customer, or pass), D3 (the marker holder's
target after the reveal) and D4 (where a won customer goes) by search (P2P-D; D1, D5 and
D6 stay its base strategy's). At each such decision it lists its options with the base
strategy's scores without noise (features.py's option order, so the base's own noise-free
choice ranks first and ties keep the earlier option), keeps the best ``k``, and for each
of ``n`` samples of what it cannot see plays every kept option out to the end of the game
with the base strategies of both teams. It takes the option with the best mean result
for its team (a win 1, a draw 1/2, anything else 0; the first in the ranking on ties).

Every game it plays goes through the engine's own rounds (engine_kernel.play_on, with
round_kernel.assist_loop), with a hook (sim.core.search_kernel.Decisions): the engine asks
for a search team's decision and stops; this module decides on the state the engine left
(``decide``), forces the choice and has the engine play the pass again from its start
(the hook's ``snap``). A playout is the same engine round from that pass start with what
the team knows of the pass forced (its own commit, the other team's revealed commit, the
marker's target and a placement made before: the hook's ``facts``) and the option being
weighed; the pass after it and the rest of the game are the base strategies'. Without
search teams the engine plays exactly its own games (tests/peer_to_peer/test_search_player.py checks that
game for game).

What a team may see (P2P-D): its own hand, every venture, discard and score pile, the
row, the unhappy and out piles, the count of every pile, and the other team's cards once
revealed in this pass. A sample (``determinize``) keeps all of that and deals again:
- the customer deck, in a new order;
- its own group deck, in a new order (its contents follow from the public history: the
  S cards, the develops and the discards, P2P-S3/E3/R3);
- the other team's unrevealed hand cards together with its group deck, sizes kept (their
  union follows from the public history in the same way; which of them are in the hand
  does not).
Each pool is read as a set of card ids, never in the order it lies in, so no arrangement
of the hidden cards reaches a decision; tests/peer_to_peer/test_search_player.py checks that, and that
the check fails for the peeking variant (``peek`` = 1: the true hidden state, for that
test only). The sampling has no memory beyond the current pass: cards the other team
took back after a lost contest (R2e) in an earlier pass are dealt at random again.

Random numbers: a decision's stream is seeded from (seed, game index, the game's search
decision counter) only (sim.core.search_kernel.seed_decision); the game's own stream is
never read or advanced by the search, so the base team's noise draws are those of a game
without it. Within a decision, sample i's playouts of every option start from the same
generator state (common random numbers).

Compiled only when a search team plays (game.py imports this module then): a plain run
never compiles it. The search's own functions are inlined into its entry points
(``inline='always'``, one call site each): numba optimises a compiled function's code with
every compiled callee linked in, so each level of compiled calls above the playouts
(engine_kernel.play_on) cost a cold compile one more pass over all of them.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from sim.core.rng_kernel import next_u64, shuffle
from sim.core.search_kernel import (
    N_EXTRA, SEARCH_K, SEARCH_N, best_kept, collect_ids, log_row, new_decisions,
    new_options, record_kept, seed_decision, top_k,
)
from sim.games.peer_to_peer.commit_kernel import MAX_OPTIONS, commit_options
from sim.games.peer_to_peer.constants import DRAW, R_PLAYERS, SOLO_WIN
from sim.games.peer_to_peer.contest_kernel import choose_target
from sim.games.peer_to_peer.engine_kernel import ASKED, finish_game, play_on, start_game
from sim.games.peer_to_peer.features import FEATURE_GROUP, G_COMMIT, G_DEST, NF, SWITCH
from sim.games.peer_to_peer.place_kernel import choose_place
from sim.games.peer_to_peer.state_kernel import (
    DECISION_WIDTH, D_COMMIT, D_PLACE, D_TARGET, EV_SEARCH_ARG, EV_SEARCH_CARD,
    EV_SEARCH_CHOICE, EV_SEARCH_OPTION, KIND_COMMIT, KIND_PLACE, KIND_TARGET, MARK_NONE,
    N_DECISIONS, P_CUST, P_GDECK, P_HAND, SCR_KEYS_A, SCR_VALS_A, S_ROUND, S_TRACE_N,
    Tables, copy_state, game_phase, new_state,
)

# The context's numbers (``meta``): the run's seed, the game, peek (tests only), the
# game's search decisions so far, and of the last decision its options kept, the rank
# chosen and the samples.
M_SEED, M_GAME, M_PEEK, M_DECISIONS, M_KEPT, M_CHOSEN, M_SAMPLES = range(7)
N_META = 7
# A search player's work for a batch of games (new_context): the live game's hook, a
# playout's (no search team: it forces only the option under test and what the team knows
# of the pass), the numbers above, the sample's and a playout's states, the options and
# their ranking and results, the decision's stream and a sample's, and the dealing arrays.
Context = namedtuple("Context", "hook playout meta det work options order wins rng seedw "
                                "counts buf")

SEARCH_SALT = np.uint64(0x2F6B1D9A0C37E54B)   # the search streams differ from the game's
# Options of one decision: D2 lists the most (commit_kernel.MAX_OPTIONS).
OPT_WIDTH = 3
LOG_CARDS = 32   # a traced commit option names up to this many cards


# ---------------------------------------------------------------- what a team cannot see

@njit(cache=True, _nrt=False, forceinline=False)
def _reorder(rng, pile, pile_n, p, counts, buf):
    """Pile ``p`` as a new random order of its cards, whatever order they were in."""
    for i in range(pile_n[p]):
        counts[pile[p, i]] += 1
    m = collect_ids(counts, buf, 0)
    shuffle(rng, buf, m)
    for i in range(m):
        pile[p, i] = buf[i]


@njit(cache=True, _nrt=False, forceinline=False)
def determinize(me, visible, rng, rules, pile, pile_n, counts, buf):
    """Deal again, in place, what team ``me`` cannot see (module docstring). ``visible``:
    the other team's hand slots revealed in this pass (a slot mask), kept where they are."""
    _reorder(rng, pile, pile_n, P_CUST, counts, buf)
    _reorder(rng, pile, pile_n, P_GDECK + me, counts, buf)
    if rules[R_PLAYERS] == 1:
        return
    o = 1 - me
    for i in range(pile_n[P_HAND + o]):
        if not visible >> i & 1:
            counts[pile[P_HAND + o, i]] += 1
    for i in range(pile_n[P_GDECK + o]):
        counts[pile[P_GDECK + o, i]] += 1
    m = collect_ids(counts, buf, 0)
    shuffle(rng, buf, m)
    j = 0
    for i in range(pile_n[P_HAND + o]):
        if not visible >> i & 1:
            pile[P_HAND + o, i] = buf[j]
            j += 1
    for i in range(pile_n[P_GDECK + o]):
        pile[P_GDECK + o, i] = buf[j]
        j += 1


# ---------------------------------------------------------------- playouts and decisions

@njit(cache=True, inline='always')
def evaluate(kind, me, visible, tables, debug, ctx):
    """Rank the listed options (ctx.options), keep the best k, play each out over n
    samples (module docstring) and return the row of the options chosen. ``visible``:
    the other team's hand slots revealed in this pass."""
    hook, playout, meta, order, wins = ctx.hook, ctx.playout, ctx.meta, ctx.order, ctx.wins
    rows = ctx.options.rows
    rng_d = ctx.rng
    det, work = ctx.det, ctx.work
    kept = top_k(ctx.options.scores, ctx.options.n[0], hook.search[me, SEARCH_K], order)
    for j in range(kept):
        wins[j] = 0.0
    meta[M_KEPT] = kept
    meta[M_CHOSEN] = 0
    n_samples = hook.search[me, SEARCH_N]
    meta[M_SAMPLES] = n_samples
    if kept <= 1:
        return order[0]   # nothing to choose
    seed_decision(rng_d, meta[M_SEED], meta[M_GAME], meta[M_DECISIONS], SEARCH_SALT)
    meta[M_DECISIONS] += 1
    rnd = hook.snap.st[S_ROUND]
    for _ in range(n_samples):
        copy_state(hook.snap, det)
        if meta[M_PEEK] == 0:
            determinize(me, visible, rng_d, tables.rules, det.pile, det.pile_n, ctx.counts,
                        ctx.buf)
        for i in range(4):
            ctx.seedw[i] = next_u64(rng_d)
        for j in range(kept):
            row = order[j]
            copy_state(det, work)
            for i in range(4):
                work.rng[i] = ctx.seedw[i]
            # The pass replayed with what the team knows of it (after its commit: the
            # commits, the target and placements so far) and the option under test.
            for slot in range(N_DECISIONS):
                for f in range(DECISION_WIDTH):
                    playout.forced[slot, f] = -1 if kind == KIND_COMMIT else hook.facts[slot, f]
            if kind == KIND_COMMIT:
                playout.forced[D_COMMIT + me, 0] = rows[row, 0]
                playout.forced[D_COMMIT + me, 1] = rows[row, 1]
            elif kind == KIND_TARGET:
                playout.forced[D_TARGET, 0] = rows[row, 0]
            else:
                playout.forced[D_PLACE + me, 0] = rows[row, 0]
            playout.marks[MARK_NONE] = hook.marks[MARK_NONE]
            playout.marks[MARK_NONE + 1] = hook.marks[MARK_NONE + 1]
            winner, _ = play_on(tables, work, None, debug, rnd, True, playout)
            if winner == me or (winner == SOLO_WIN and me == 0):   # WIN_A = 0, WIN_B = 1
                wins[j] += 1.0
            elif winner == DRAW:
                wins[j] += 0.5
    best = best_kept(wins, kept)
    meta[M_CHOSEN] = best
    return order[best]


@njit(cache=True, inline='always')
def list_options(kind, me, arg, none_known, w, tables, state, facts, options):
    """The options of the decision the assist loop stopped at (as it asked:
    round_kernel.assist_loop, place_kernel.win_customer), scored by weights ``w``, into
    ``options``; returns how many. D2 (``none_known``: the team had no legal option
    earlier this round, and has none since: nothing is listed); D3, the marker holder's
    customer after the other team's reveal (``arg``: that team's contest keys); D4, the
    destination of customer ``arg`` team ``me`` has won. ``facts``: what the pass has
    settled (the hook's)."""
    cards, rules, seats = tables.cards, tables.rules, tables.seats
    pile, pile_n = state.pile, state.pile_n
    options.n[0] = 0
    if kind == KIND_COMMIT:
        if not none_known:
            commit_options(w, cards, rules, seats, pile, pile_n, state.arrival, state.used,
                           state.st, me, options, pile[SCR_VALS_A + me])
    elif kind == KIND_TARGET:
        other = 1 - me
        choose_target(cards, rules, seats, w, state.rng, pile, pile_n, state.arrival,
                      state.used, state.st, me, facts[D_COMMIT + me, 0],
                      facts[D_COMMIT + me, 1], facts[D_COMMIT + other, 1],
                      pile[SCR_KEYS_A + other], arg, pile[SCR_VALS_A + me],
                      pile[SCR_KEYS_A + me], options, state.fscr, False)
    else:
        choose_place(cards, rules, seats, w, state.rng, pile, pile_n, state.used, me, arg,
                     options)
    return options.n[0]


@njit(cache=True, inline='always')
def decide(tables, debug, state, traced, ctx, recording):
    """The decision the engine's round asked for (ctx.hook.ask), by search, as the hook's
    forced choice for the rerun of the pass (with its trace rows when ``traced``).

    D2: the pass, or (mask, customer) with "an option was legal"; the other team's commit
    is unknown, so each playout has it commit with its base strategy on the sampled hand.
    D3, D4: the playouts force what the pass has settled so far (the hook's facts), and
    the other team's revealed hand slots stay as they are in every sample."""
    hook, meta, rows = ctx.hook, ctx.meta, ctx.options.rows
    kind, me = hook.ask[0], hook.ask[1]
    meta[M_KEPT] = 0
    none_known = hook.marks[MARK_NONE + me] != 0
    n = list_options(kind, me, hook.ask[2], none_known, tables.w_a if me == 0 else tables.w_b,
                     tables, state, hook.facts, ctx.options)
    row = -1
    if n > (1 if kind == KIND_COMMIT else 0):   # D2: more than the pass to weigh
        visible = 0
        if kind != KIND_COMMIT and tables.rules[R_PLAYERS] > 1:
            visible = max(hook.facts[D_COMMIT + 1 - me, 0], 0)
        row = evaluate(kind, me, visible, tables, debug, ctx)
        record_decision(recording, kind, me, hook.ask[2], none_known, tables, state, ctx)
    if kind == KIND_COMMIT:
        slot = D_COMMIT + me
        hook.forced[slot, 0] = rows[row, 0] if row >= 0 else 0
        hook.forced[slot, 1] = rows[row, 1] if row >= 0 else -1
        hook.forced[slot, 2] = 1 if row >= 0 else 0   # the pass alone: nothing was legal
    else:
        slot = D_TARGET if kind == KIND_TARGET else D_PLACE + me
        # (D3 lists the customer declared in D2 at least, D4 the score pile)
        hook.forced[slot, 0] = rows[row, 0] if row >= 0 else hook.facts[D_COMMIT + me, 1]
    hook.log_n[slot] = 0
    if traced:
        log_search(slot, kind, me, state.pile, ctx)


@njit(cache=True, _nrt=True, forceinline=False)
def log_search(slot, kind, team, pile, ctx):
    """Trace only: the options a search decision kept, their results and its choice, as
    the hook's trace rows for the decision's slot (the round writes them there)."""
    meta, hook = ctx.meta, ctx.hook
    kept = meta[M_KEPT]
    if kept <= 1:
        return
    rows, order, wins = ctx.options.rows, ctx.order, ctx.wins
    for j in range(kept):
        row = order[j]
        log_row(hook, slot, EV_SEARCH_OPTION, kind, j, np.int64(2.0 * wins[j] + 0.5),
                meta[M_SAMPLES])
        log_row(hook, slot, EV_SEARCH_ARG, kind, rows[row, 0], rows[row, 1], rows[row, 2])
        if kind == KIND_COMMIT:
            m = rows[row, 0]
            s = 0
            while m:
                if m & 1:
                    log_row(hook, slot, EV_SEARCH_CARD, pile[P_HAND + team, s], 0, 0, 0)
                m >>= 1
                s += 1
    log_row(hook, slot, EV_SEARCH_CHOICE, kind, meta[M_CHOSEN], team, kept)


@njit(cache=True, _nrt=True, forceinline=False)
def record_decision(recording, kind, me, arg, none_known, tables, state, ctx):
    """Learning only (``recording``: a sim.core.search_kernel.Recording; None compiles to
    nothing): the decision just made, its kept options with their means and up to
    ``extra`` options it did not play out, each as its features (features.py) in the
    decision's phase block. The features are the listing's own scores under unit weights
    (each searched feature's weight 1, every other 0, the phase switch kept): the numbers
    the strategy scores, computed by the code that scores them."""
    if recording is None:
        return
    meta = ctx.meta
    kept = meta[M_KEPT]
    if kept <= 1:
        return
    w = tables.w_a if me == 0 else tables.w_b
    b = game_phase(w, state.pile_n) * NF
    picked = np.empty(kept + recording.n[N_EXTRA], np.int64)
    first, count = record_kept(recording, ctx.rng, meta[M_GAME], me, kind, b, meta[M_SAMPLES],
                               ctx.order, kept, meta[M_CHOSEN], ctx.wins, ctx.options.n[0],
                               picked)
    if first < 0:
        return
    group = G_DEST if kind == KIND_PLACE else G_COMMIT
    unit = np.zeros_like(w)
    unit[SWITCH] = w[SWITCH]   # the same phase
    unit_tables = Tables(tables.cards, tables.rules, tables.seats, unit, unit)
    listed = new_options(MAX_OPTIONS, OPT_WIDTH)
    for f in range(NF):
        if FEATURE_GROUP[f] != group:
            continue
        unit[b + f] = 1.0
        list_options(kind, me, arg, none_known, unit, unit_tables, state, ctx.hook.facts,
                     listed)
        unit[b + f] = 0.0
        for j in range(count):
            recording.features[first + j, f] = listed.scores[picked[j]]


# ---------------------------------------------------------------- whole games

@njit(cache=True, _nrt=True, forceinline=False)
def new_context(search, seed, peek, n_cards, log_rows):
    """A search player's work for a batch of games (Context); ``log_rows``: trace rows per
    decision (0 without a trace)."""
    meta = np.zeros(N_META, np.int64)
    meta[M_SEED] = seed
    meta[M_PEEK] = peek
    hook = new_decisions(search, N_DECISIONS, DECISION_WIDTH, new_state(n_cards), log_rows)
    playout = new_decisions(np.zeros_like(search), N_DECISIONS, DECISION_WIDTH,
                            new_state(n_cards), 0)
    return Context(hook, playout, meta, new_state(n_cards), new_state(n_cards),
                   new_options(MAX_OPTIONS, OPT_WIDTH), np.zeros(MAX_OPTIONS, np.int64),
                   np.zeros(MAX_OPTIONS), np.zeros(4, np.uint64), np.zeros(4, np.uint64),
                   np.zeros(n_cards, np.int64), np.zeros(n_cards, np.int64))


@njit(cache=True, inline='always')
def play_search_game(tables, seed, game_index, out, fates, trace, debug, state, ctx, recording):
    """The engine's game with search teams (ctx's search matrix); writes the result row
    (and the search teams' decisions into ``recording``, unless None). Returns (trace events
    written, search decisions made)."""
    meta = ctx.meta
    meta[M_GAME] = game_index
    meta[M_DECISIONS] = 0
    start_game(tables, seed, game_index, trace, state)
    first, begun = 1, False
    while True:
        winner, rnd = play_on(tables, state, trace, debug, first, begun, ctx.hook)
        if winner != ASKED:
            break
        decide(tables, debug, state, trace is not None and trace.shape[0] > 0, ctx, recording)
        copy_state(ctx.hook.snap, state)   # the pass again from its start, the choice forced
        first, begun = rnd, True
    finish_game(tables, state, trace, game_index, winner, rnd, out, fates)
    return state.st[S_TRACE_N], meta[M_DECISIONS]


# Decisions on a given state, for tests (tests/peer_to_peer/test_search_player.py).
@njit(cache=True, _nrt=True, forceinline=False)
def commit_at(me, tables, state, ctx, recording=None):
    """Team ``me``'s D2 by search on ``state``, taken as a pass start (nothing known about
    the round before it): (mask, customer). Its options, results and choice stay in ctx
    (and go into ``recording`` unless None)."""
    hook = ctx.hook
    hook.marks[MARK_NONE] = 0
    hook.marks[MARK_NONE + 1] = 0
    copy_state(state, hook.snap)
    hook.ask[0] = KIND_COMMIT
    hook.ask[1] = me
    decide(tables, False, state, False, ctx, recording)
    return hook.forced[D_COMMIT + me, 0], hook.forced[D_COMMIT + me, 1]


@njit(cache=True, _nrt=True, forceinline=False)
def place_at_state(me, cust, facts, tables, state, ctx, recording=None):
    """Team ``me``'s D4 by search for customer ``cust`` won in the pass that starts at
    ``state``, whose commits (and target) ``facts`` gives (the hook's layout): the
    destination code."""
    hook = ctx.hook
    hook.marks[MARK_NONE] = 0
    hook.marks[MARK_NONE + 1] = 0
    copy_state(state, hook.snap)
    for slot in range(N_DECISIONS):
        for f in range(DECISION_WIDTH):
            hook.facts[slot, f] = facts[slot, f]
    hook.ask[0] = KIND_PLACE
    hook.ask[1] = me
    hook.ask[2] = cust
    decide(tables, False, state, False, ctx, recording)
    return hook.forced[D_PLACE + me, 0]


@njit(cache=True, _nrt=True, nogil=True, forceinline=False)
def run_games_search(tables, seed, start, out, fates, debug, search, peek, decisions,
                     recording=None):
    """engine_kernel.run_games with search teams: games start .. start+len(out)-1;
    ``decisions[i]`` gets game i's number of search decisions; ``recording``: None, or a
    Recording the search teams' decisions go into (record_decision)."""
    state = new_state(tables.cards.shape[1])
    ctx = new_context(search, seed, peek, tables.cards.shape[1], 0)
    for i in range(out.shape[0]):
        _, made = play_search_game(tables, seed, start + i, out[i], fates[i], None, debug,
                                   state, ctx, recording)
        decisions[i] = made


@njit(cache=True, _nrt=True, forceinline=False)
def trace_game_search(tables, seed, game_index, out, fates, trace, debug, search):
    """engine_kernel.play_traced with search teams (their options in the trace)."""
    state = new_state(tables.cards.shape[1])
    k = max(search[0, SEARCH_K], search[1, SEARCH_K])
    ctx = new_context(search, seed, 0, tables.cards.shape[1], 1 + k * (2 + LOG_CARDS))
    n, _ = play_search_game(tables, seed, game_index, out[0], fates[0], trace, debug, state,
                            ctx, None)
    return n
