"""Peer-to-Peer's search player: determinized Monte Carlo over a base strategy.

A search team decides D2 (commit: cards and customer, or pass), D3 (the marker holder's
target after the reveal) and D4 (where a won customer goes) by search (P2P-D; D1, D5 and
D6 stay its base strategy's). At each such decision it lists its options with the base
strategy's scores without noise (features.py's option order, so the base's own noise-free
choice ranks first and ties keep the earlier option), keeps the best ``k``, and for each
of ``n`` samples of what it cannot see plays every kept option out to the end of the game
with the base strategies of both teams. It takes the option with the best mean result
for its team (a win 1, a draw 1/2, anything else 0; the first in the ranking on ties).

The playouts replay the current pass of the assist loop (P2P-R2) from its start with what
the team knows of it forced: its own commit, the other team's revealed commit (R2b), the
marker's target and a placement made before (D4), and the option being weighed. So a
playout never needs a half-played pass, only the state at the pass start (``snap``),
copied with state_kernel.copy_state. The pass itself is ``_pass``: round_kernel's
assist_loop body with a hook per decision (forced, searched, or the base strategy's);
without search teams and forcing it plays the engine's games exactly
(tests/peer_to_peer/test_search_player.py checks that game for game).

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
of the hidden cards reaches a decision; tests/peer_to_peer/test_search_player.py checks that,
and that the check fails for the peeking variant (``peek`` = 1: the true hidden state, for that
test only). The sampling has no memory beyond the current pass: cards the other team
took back after a lost contest (R2e) in an earlier pass are dealt at random again.

Random numbers: a decision's stream is seeded from (seed, game index, the game's search
decision counter) only (``seed_decision``); the game's own stream is never read or
advanced by the search, so the base team's noise draws are those of a game without it.
Within a decision, sample i's playouts of every option start from the same generator
state (common random numbers).

Compiled only when a search team plays (game.py imports this module then): a plain run
never compiles it.
"""
import numpy as np
from numba import njit

from sim.core.rng_kernel import next_u64, seed_substream, shuffle
from sim.games.peer_to_peer.assist_kernel import eval_assist
from sim.games.peer_to_peer.commit_kernel import (
    assist_score, choose_commit, customer_has_effect, highest_played,
)
from sim.games.peer_to_peer.constants import (
    CD_EFFECT, CD_KIND, CD_VALUE, DRAW, EFFECT_NONE, EFFECT_TIEBREAK, MAX_SEATS,
    R_CUSTOMER_PATIENCE, R_LOSER_EFFECTS_SPENT, R_MAX_ROUNDS, R_PLAYERS, R_VENTURE_LIMIT,
    SEAT_TEAM, SOLO_WIN, TIMEOUT, VENTURE,
)
from sim.games.peer_to_peer.contest_kernel import (
    choose_target, contest_features, resolve_contest, reveal,
)
from sim.games.peer_to_peer.engine_kernel import (
    NO_WINNER, end_round, start_game, start_round, write_result,
)
from sim.games.peer_to_peer.features import (
    C_CONTEST_LOSE, C_CONTEST_WIN, C_NOISE, C_PASS, D_DEVELOP_DECK, D_OVERFLOW, D_SCORE,
    D_SCORE_REMAINING, D_SCORE_VALUE, D_VENTURE, D_VENTURE_EFFECT, NF,
)
from sim.games.peer_to_peer.place_kernel import choose_place, place_at, take_customer
from sim.games.peer_to_peer.round_kernel import trace_could_assist, trace_hands
from sim.games.peer_to_peer.state_kernel import (
    EV_END, EV_PASS, EV_RETARGET, EV_SEARCH_ARG, EV_SEARCH_CARD, EV_SEARCH_CHOICE,
    EV_SEARCH_OPTION, P_CUST, P_GDECK, P_HAND, P_ROW, P_SCORE, P_SEAT, SCR_KEYS_A, SCR_KEYS_B,
    SCR_PAIR, SCR_USED_BEFORE, SCR_VALS_A, SCR_VALS_B, S_EFFECTS_KNOWN, S_MARKER, S_ROUND,
    S_SHIFT_CARD, S_SHIFT_K, S_TRACE_N, S_WILD, check_invariants, copy_state, event,
    find_effect, game_phase, new_state, venture_effects,
)

# The search matrix: int64[2, 3], one row per team (constants of game.py's ``search``).
SEARCH_ON, SEARCH_K, SEARCH_N = 0, 1, 2
# Decision kinds (trace words: trace.py SEARCH_KINDS)
KIND_COMMIT, KIND_TARGET, KIND_PLACE = 0, 1, 2
# What a playout's replay of the pass forces (-1: not forced; a commit's mask 0 = pass):
# each team's commit (hand mask, declared customer), the marker's D3 target, each team's
# D4 destination code (place_kernel.choose_place's codes).
FX_MASK, FX_CUST, FX_TARGET, FX_PLACE = 0, 2, 4, 5
N_FX = 7
# The context's scalars (``meta``)
M_SEED, M_GAME, M_PEEK, M_DECISIONS, M_NONE, M_KEPT, M_CHOSEN, M_SAMPLES = 0, 1, 2, 3, 4, 6, 7, 8
N_META = 9
# The context tuple (new_context)
CX_SEARCH, CX_META, CX_SNAP, CX_DET, CX_WORK, CX_FACTS, CX_TEMPLATE, CX_FORCED = range(8)
CX_FREE, CX_OPTS, CX_SCORES, CX_ORDER, CX_WINS, CX_RNG, CX_SEEDW, CX_FLAGS = range(8, 16)
CX_BUF, CX_NONE, CX_NONE2 = 16, 17, 18

SEARCH_SALT = np.uint64(0x2F6B1D9A0C37E54B)   # the search streams differ from the game's
# Options of one decision: D2 lists every legal (hand subset, customer) pair; with 9 hand
# cards and 8 customers that is 4,088 and the pass. Options beyond this are not listed.
MAX_OPTIONS = 4096
OPT_WIDTH = 3


@njit(cache=True, _nrt=False)
def seed_decision(rng, seed, game_index, decision):
    """The stream of the game's ``decision``-th search decision: from (seed, game index,
    decision) only, apart from the game's own stream (rng_kernel.seed_game's)."""
    seed_substream(rng, seed, game_index, decision, SEARCH_SALT)


# ---------------------------------------------------------------- what a team cannot see

@njit(cache=True, _nrt=False)
def _pool_by_id(flags, buf):
    """The card ids flagged in ``flags``, ascending, into ``buf``; clears the flags."""
    m = 0
    for c in range(flags.shape[0]):
        if flags[c]:
            buf[m] = c
            m += 1
            flags[c] = 0
    return m


@njit(cache=True, _nrt=False)
def _reorder(rng, pile, pile_n, p, flags, buf):
    """Pile ``p`` as a new random order of its cards, whatever order they were in."""
    for i in range(pile_n[p]):
        flags[pile[p, i]] = 1
    m = _pool_by_id(flags, buf)
    shuffle(rng, buf, m)
    for i in range(m):
        pile[p, i] = buf[i]


@njit(cache=True, _nrt=False)
def determinize(me, visible, rng, rules, pile, pile_n, flags, buf):
    """Deal again, in place, what team ``me`` cannot see (module docstring). ``visible``:
    the other team's hand slots revealed in this pass (a slot mask), kept where they are."""
    _reorder(rng, pile, pile_n, P_CUST, flags, buf)
    _reorder(rng, pile, pile_n, P_GDECK + me, flags, buf)
    if rules[R_PLAYERS] == 1:
        return
    o = 1 - me
    for i in range(pile_n[P_HAND + o]):
        if not visible >> i & 1:
            flags[pile[P_HAND + o, i]] = 1
    for i in range(pile_n[P_GDECK + o]):
        flags[pile[P_GDECK + o, i]] = 1
    m = _pool_by_id(flags, buf)
    shuffle(rng, buf, m)
    j = 0
    for i in range(pile_n[P_HAND + o]):
        if not visible >> i & 1:
            pile[P_HAND + o, i] = buf[j]
            j += 1
    for i in range(pile_n[P_GDECK + o]):
        pile[P_GDECK + o, i] = buf[j]
        j += 1


# ---------------------------------------------------------------- the options, base-scored

@njit(cache=True, _nrt=False, inline='always')
def _add(opts, scores, n, a, b, c, score):
    if n >= opts.shape[0]:
        return n
    opts[n, 0] = a
    opts[n, 1] = b
    opts[n, 2] = c
    scores[n] = score
    return n + 1


@njit(cache=True, _nrt=False)
def commit_options(w, cards, rules, seats, pile, pile_n, arrival, used, st, team, opts, scores,
                   vals):
    """D2: the pass, then every legal (hand subset, customer) pair in features.py's order
    (mask ascending, row order), each as (mask, customer, cards played) with its score
    under weights ``w`` without noise (as commit_kernel scores it). Returns how many."""
    b = game_phase(w, pile_n) * NF
    n = _add(opts, scores, 0, 0, -1, 0, w[b + C_PASS])
    h = pile_n[P_HAND + team]
    nrow = pile_n[P_ROW]
    if h == 0 or nrow == 0:
        return n
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
            sc = assist_score(w, b, value, waited, 1.0 if waited + 1 >= patience else 0.0,
                              n_played, highest_played(vals, mask),
                              (1.0 if sh_slot >= 0 else 0.0) + use_wild,
                              1.0 if value >= top_value else 0.0, 0.0, 0.0,
                              customer_has_effect(cards, cust), 0.0)
            n = _add(opts, scores, n, mask, cust, n_played, sc)
    return n


@njit(cache=True, _nrt=False)
def target_options(w, cards, rules, seats, pile, pile_n, arrival, used, st, team, mask,
                   rival_cust, rival_keys, n_rival, vals, keys, opts, scores):
    """D3: every customer the committed cards ``mask`` can legally assist, in row order, as
    (customer, -1, 0) with contest_kernel.choose_target's score without noise."""
    b = game_phase(w, pile_n) * NF
    hand = pile[P_HAND + team]
    _, shift_k, wild, _ = venture_effects(cards, pile, pile_n, seats, used, team)
    tb_me = find_effect(cards, pile, pile_n, seats, used, team, EFFECT_TIEBREAK, -1) >= 0
    tb_rival = find_effect(cards, pile, pile_n, seats, used, 1 - team, EFFECT_TIEBREAK, -1) >= 0
    top_value = 0
    for j in range(pile_n[P_ROW]):
        top_value = max(top_value, cards[CD_VALUE, pile[P_ROW, j]])
    rnd = st[S_ROUND]
    n_played = 0
    m = mask
    while m:
        n_played += m & 1
        m >>= 1
    n = 0
    for j in range(pile_n[P_ROW]):
        cust = pile[P_ROW, j]
        ok, sh_slot, _, use_wild, _, _ = eval_assist(cards, hand, mask, cust, used, shift_k,
                                                     wild >= 0, vals)
        if not ok:
            continue
        win, lose = contest_features(cards, rules, hand, mask, vals, keys, cust, rival_cust,
                                     rival_keys, n_rival, tb_me, tb_rival, team)
        value = cards[CD_VALUE, cust]
        waited = rnd - arrival[cust]
        sc = assist_score(w, b, value, waited,
                          1.0 if waited + 1 >= rules[R_CUSTOMER_PATIENCE] else 0.0, n_played,
                          highest_played(vals, mask), (1.0 if sh_slot >= 0 else 0.0) + use_wild,
                          1.0 if value >= top_value else 0.0, win, lose,
                          customer_has_effect(cards, cust), 0.0)
        n = _add(opts, scores, n, cust, -1, 0, sc)
    return n


@njit(cache=True, _nrt=False)
def place_options(w, cards, rules, seats, pile, pile_n, used, team, cust, opts, scores):
    """D4: the score pile, each seat of the team in seat order, then each develop target
    a usable effect allows, as (destination code, -1, 0) with place_kernel.choose_place's
    score without noise."""
    b = game_phase(w, pile_n) * NF
    limit = rules[R_VENTURE_LIMIT]
    carries = 1.0 if (cards[CD_KIND, cust] == VENTURE and cards[CD_EFFECT, cust] != EFFECT_NONE) else 0.0
    n = _add(opts, scores, 0, 0, -1, 0,
             w[b + D_SCORE] + w[b + D_SCORE_VALUE] * cards[CD_VALUE, cust]
             + w[b + D_SCORE_REMAINING] * pile_n[P_CUST])
    for s in range(MAX_SEATS):
        if seats[SEAT_TEAM, s] != team:
            continue
        overflow = 1.0 if pile_n[P_SEAT + s] + 1 > limit else 0.0
        n = _add(opts, scores, n, 1 + s, -1, 0,
                 w[b + D_VENTURE] + w[b + D_OVERFLOW] * overflow + w[b + D_VENTURE_EFFECT] * carries)
    develop = venture_effects(cards, pile, pile_n, seats, used, team)[3]
    for target in range(3):
        if develop >> target & 1:
            n = _add(opts, scores, n, 100 + target, -1, 0, w[b + D_DEVELOP_DECK + target])
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


# ---------------------------------------------------------------- one pass of the assist loop

@njit(cache=True, _nrt=False, inline='always')
def _pass(cards, rules, seats, w_a, w_b, rng, pile, pile_n, arrival, used, st, stats, trace,
          debug, fscr, none, forced, ctx):
    """One pass of the assist loop (P2P-R2a-R2f): round_kernel.assist_loop's body, with a
    hook at D2, D3 and D4: a ``forced`` choice (a playout's replay), a search decision
    (``ctx`` not None and the team searches: the live game), or the base strategy's.
    ``none[t]``: team t had no legal option earlier this round (assist_loop's none_a /
    none_b). Returns True when both teams passed (the loop ends).

    Compiled twice: in play_search_game (the live game, ``ctx`` a tuple) and in playout
    (``ctx`` None, so numba prunes every search branch there, as it prunes ``trace``)."""
    n_teams = 1 if rules[R_PLAYERS] == 1 else 2
    vals_a = pile[SCR_VALS_A]
    vals_b = pile[SCR_VALS_B]
    keys_a = pile[SCR_KEYS_A]
    keys_b = pile[SCR_KEYS_B]
    used_before = pile[SCR_USED_BEFORE]
    custs = pile[SCR_PAIR]
    rnd = st[S_ROUND]
    if ctx is not None and (ctx[CX_SEARCH][0, SEARCH_ON] or ctx[CX_SEARCH][1, SEARCH_ON]):
        _begin_live_pass(rng, pile, pile_n, arrival, used, st, stats, none, ctx)
    if trace is not None and trace.shape[0]:
        trace_hands(pile, pile_n, st, n_teams, trace)
    mask_a, cust_a, mask_b, cust_b = 0, -1, 0, -1
    for t in range(n_teams):
        # (each search branch is a test on ``ctx`` itself, so that numba prunes it)
        if forced[FX_MASK + t] >= 0:
            mask, cust, legal = forced[FX_MASK + t], forced[FX_CUST + t], True
        elif ctx is not None and ctx[CX_SEARCH][t, SEARCH_ON]:
            mask, cust, legal = decide_commit(t, cards, rules, seats, w_a, w_b, debug, pile,
                                              pile_n, arrival, used, st, none[t] != 0, ctx)
            if trace is not None and trace.shape[0]:
                log_search(trace, st, pile, KIND_COMMIT, t, ctx)
        else:
            mask, cust, legal = choose_commit(cards, rules, seats, w_a if t == 0 else w_b, rng,
                                              pile, pile_n, arrival, used, st, t,
                                              vals_a if t == 0 else vals_b, none[t] != 0, fscr)
        if forced[FX_MASK + t] >= 0 or (ctx is not None and ctx[CX_SEARCH][t, SEARCH_ON]):
            _know_effects(cards, pile, pile_n, seats, used, st, t)   # as choose_commit does
        none[t] = 0 if legal else 1
        if t == 0:
            mask_a, cust_a = mask, cust
        else:
            mask_b, cust_b = mask, cust
    if ctx is not None:
        facts = ctx[CX_FACTS]
        facts[FX_MASK] = mask_a
        facts[FX_CUST] = cust_a
        facts[FX_MASK + 1] = mask_b
        facts[FX_CUST + 1] = cust_b
    if mask_a == 0 and mask_b == 0:
        if trace is not None and trace.shape[0]:
            event(trace, st, rnd, EV_PASS, 0, 0, 0, 0)
            if n_teams == 2:
                event(trace, st, rnd, EV_PASS, 1, 0, 0, 0)
            trace_could_assist(cards, pile, pile_n, seats, used, st, n_teams, vals_a, trace)
        return True
    if rules[R_LOSER_EFFECTS_SPENT] == 0:
        for c in range(used.shape[0]):
            used_before[c] = used[c]
    marker = st[S_MARKER] if n_teams == 2 else 0
    other = 1 - marker
    masks = (mask_a, mask_b)
    custs[0] = cust_a
    custs[1] = cust_b
    other_keys = keys_a if other == 0 else keys_b
    w_m = w_a if marker == 0 else w_b
    bm = game_phase(w_m, pile_n) * NF
    keeps_declared = w_m[bm + C_NOISE] == 0.0 and (masks[other] == 0 or (
        w_m[bm + C_CONTEST_WIN] == 0.0 and w_m[bm + C_CONTEST_LOSE] == 0.0))
    search_marker = False
    if ctx is not None and ctx[CX_SEARCH][marker, SEARCH_ON]:
        search_marker = True
    # D3 may move the marker holder onto the other team's customer: its keys are needed
    free_target = search_marker or forced[FX_TARGET] >= 0
    n_other = 0
    n_marker = 0
    for k in range(2):
        t = other if k == 0 else marker
        if t >= n_teams:
            continue
        if masks[t] == 0:
            if trace is not None and trace.shape[0]:
                event(trace, st, rnd, EV_PASS, t, 0, 0, 0)
            continue
        t_keys = keys_a if t == 0 else keys_b
        t_vals = vals_a if t == 0 else vals_b
        if k == 1:
            if forced[FX_TARGET] >= 0:
                new_cust = forced[FX_TARGET]
            elif ctx is not None and ctx[CX_SEARCH][marker, SEARCH_ON]:
                new_cust = decide_target(marker, masks[marker], custs[marker], custs[other],
                                         other_keys, n_other, cards, rules, seats, w_a, w_b,
                                         debug, pile, pile_n, arrival, used, st, t_vals,
                                         t_keys, ctx)
                if trace is not None and trace.shape[0]:
                    log_search(trace, st, pile, KIND_TARGET, marker, ctx)
            elif keeps_declared:
                new_cust = custs[marker]
            else:
                new_cust = choose_target(cards, rules, seats, w_m, rng, pile, pile_n, arrival,
                                         used, st, marker, masks[marker], custs[marker],
                                         custs[other], other_keys, n_other, t_vals, t_keys)
            if trace is not None and trace.shape[0] and new_cust != custs[marker]:
                event(trace, st, rnd, EV_RETARGET, marker, custs[marker], new_cust, 0)
            custs[marker] = new_cust
            if ctx is not None:
                ctx[CX_FACTS][FX_TARGET] = new_cust
        if k == 0:
            need_keys = masks[marker] != 0 and (custs[0] == custs[1] or not keeps_declared
                                                or free_target)
        else:
            need_keys = custs[0] == custs[1] and masks[other] != 0
        n = reveal(cards, rules, pile, pile_n, seats, used, st, t, masks[t], custs[t],
                   t_vals, t_keys, trace, True, need_keys)
        if k == 0:
            n_other = n
        else:
            n_marker = n
    contest_winner = -1
    if n_teams == 2 and masks[0] and masks[1] and custs[0] == custs[1]:
        # R2c: a contest (as assist_loop)
        n_a = n_marker if marker == 0 else n_other
        n_b = n_marker if marker == 1 else n_other
        contest_winner = resolve_contest(cards, rules, seats, pile, pile_n, used, used_before,
                                         st, stats, trace, keys_a, n_a, keys_b, n_b, marker,
                                         masks, custs[0])
    for t in (other, marker):  # resolved in reveal order; after a contest only its winner
        if t < n_teams and masks[t] and (contest_winner < 0 or t == contest_winner):
            w_t = w_a if t == 0 else w_b
            cust = custs[t]
            take_customer(pile, pile_n, st, stats, t, masks[t], cust, trace)
            if forced[FX_PLACE + t] >= 0:
                best = forced[FX_PLACE + t]
            elif ctx is not None and ctx[CX_SEARCH][t, SEARCH_ON]:
                best = decide_place(t, cust, cards, rules, seats, w_a, w_b, debug, pile,
                                    pile_n, used, ctx)
                if trace is not None and trace.shape[0]:
                    log_search(trace, st, pile, KIND_PLACE, t, ctx)
            else:
                best = choose_place(cards, rules, seats, w_t, rng, pile, pile_n, used, t, cust)
            if ctx is not None:
                ctx[CX_FACTS][FX_PLACE + t] = best
            place_at(cards, rules, seats, w_t, rng, pile, pile_n, used, st, stats, t, cust,
                     best, trace)
    if debug:
        check_invariants(cards, rules, seats, pile, pile_n, st)
    return False


@njit(cache=True, _nrt=False)
def _know_effects(cards, pile, pile_n, seats, used, st, team):
    """The team's venture effects for its reveal (st[S_SHIFT_CARD + team] ..), as
    choose_commit caches them: a forced or searched commit skips choose_commit."""
    if st[S_EFFECTS_KNOWN + team] == 0:
        shift_card, shift_k, wild, _ = venture_effects(cards, pile, pile_n, seats, used, team)
        st[S_SHIFT_CARD + team] = shift_card
        st[S_SHIFT_K + team] = shift_k
        st[S_WILD + team] = wild
        st[S_EFFECTS_KNOWN + team] = 1


@njit(cache=True, _nrt=False)
def _begin_live_pass(rng, pile, pile_n, arrival, used, st, stats, none, ctx):
    """The live game at a pass start: the state playouts replay from, and no facts yet."""
    snap = ctx[CX_SNAP]
    copy_state((rng, pile, pile_n, arrival, used, st, stats, snap[7], snap[8]), snap)
    meta = ctx[CX_META]
    meta[M_NONE] = none[0]
    meta[M_NONE + 1] = none[1]
    facts = ctx[CX_FACTS]
    for i in range(N_FX):
        facts[i] = -1


# ---------------------------------------------------------------- playouts and decisions

@njit(cache=True, _nrt=False)
def playout(me, cards, rules, seats, w_a, w_b, debug, work, none, forced, free):
    """From a state at a pass start (``work``, a new_state tuple): the pass with ``forced``,
    the rest of the round and of the game with the base strategies. Returns team ``me``'s
    result: 1 a win, 0.5 a draw, else 0."""
    rng, pile, pile_n, arrival, used, st, stats, _, fscr = work
    f = forced
    while True:
        done = _pass(cards, rules, seats, w_a, w_b, rng, pile, pile_n, arrival, used, st, stats,
                     None, debug, fscr, none, f, None)
        f = free
        if not done:
            continue
        rnd = st[S_ROUND]
        winner = end_round(cards, rules, seats, w_a, w_b, None, debug, rng, pile, pile_n,
                           arrival, used, st, stats, rnd)
        if winner != NO_WINNER:
            break
        if rnd >= rules[R_MAX_ROUNDS]:
            winner = TIMEOUT
            break
        start_round(rules, None, pile, pile_n, arrival, used, st, rnd + 1)
        none[0] = 0
        none[1] = 0
    if winner == me or (winner == SOLO_WIN and me == 0):   # WIN_A = 0, WIN_B = 1
        return 1.0
    return 0.5 if winner == DRAW else 0.0


@njit(cache=True, _nrt=False)
def evaluate(kind, me, visible, n, cards, rules, seats, w_a, w_b, debug, ctx):
    """Rank the ``n`` listed options (ctx's opts, scores), keep the best k, play each out
    over n samples (module docstring) and return the row of ``opts`` chosen. ``visible``:
    the other team's hand slots revealed in this pass."""
    search = ctx[CX_SEARCH]
    meta = ctx[CX_META]
    opts = ctx[CX_OPTS]
    order = ctx[CX_ORDER]
    wins = ctx[CX_WINS]
    template = ctx[CX_TEMPLATE]
    forced = ctx[CX_FORCED]
    rng_d = ctx[CX_RNG]
    seedw = ctx[CX_SEEDW]
    none2 = ctx[CX_NONE2]
    snap = ctx[CX_SNAP]
    det = ctx[CX_DET]
    work = ctx[CX_WORK]
    kept = top_k(ctx[CX_SCORES], n, search[me, SEARCH_K], order)
    for j in range(kept):
        wins[j] = 0.0
    meta[M_KEPT] = kept
    meta[M_CHOSEN] = 0
    n_samples = search[me, SEARCH_N]
    meta[M_SAMPLES] = n_samples
    if kept <= 1:
        return order[0]   # nothing to choose
    seed_decision(rng_d, meta[M_SEED], meta[M_GAME], meta[M_DECISIONS])
    meta[M_DECISIONS] += 1
    for _ in range(n_samples):
        copy_state(snap, det)
        if meta[M_PEEK] == 0:
            determinize(me, visible, rng_d, rules, det[1], det[2], ctx[CX_FLAGS], ctx[CX_BUF])
        for i in range(4):
            seedw[i] = next_u64(rng_d)
        for j in range(kept):
            row = order[j]
            copy_state(det, work)
            for i in range(4):
                work[0][i] = seedw[i]
            for i in range(N_FX):
                forced[i] = template[i]
            if kind == KIND_COMMIT:
                forced[FX_MASK + me] = opts[row, 0]
                forced[FX_CUST + me] = opts[row, 1]
            elif kind == KIND_TARGET:
                forced[FX_TARGET] = opts[row, 0]
            else:
                forced[FX_PLACE + me] = opts[row, 0]
            none2[0] = meta[M_NONE]
            none2[1] = meta[M_NONE + 1]
            wins[j] += playout(me, cards, rules, seats, w_a, w_b, debug, work, none2, forced,
                               ctx[CX_FREE])
    best = 0
    for j in range(1, kept):
        if wins[j] > wins[best]:
            best = j
    meta[M_CHOSEN] = best
    return order[best]


@njit(cache=True, _nrt=False)
def _evaluate_in_pass(kind, me, n, cards, rules, seats, w_a, w_b, debug, ctx):
    """evaluate for a decision after this pass's commits (D3, D4): the playouts force what
    the pass has settled so far (ctx's facts), and the other team's revealed hand slots
    stay as they are in every sample."""
    template = ctx[CX_TEMPLATE]
    facts = ctx[CX_FACTS]
    for i in range(N_FX):
        template[i] = facts[i]
    visible = facts[FX_MASK + 1 - me] if rules[R_PLAYERS] > 1 else 0
    return evaluate(kind, me, max(visible, 0), n, cards, rules, seats, w_a, w_b, debug, ctx)


@njit(cache=True, _nrt=False)
def decide_commit(me, cards, rules, seats, w_a, w_b, debug, pile, pile_n, arrival, used, st,
                  none_known, ctx):
    """D2 by search on the live state: returns (mask, customer, any option legal), mask 0
    and customer -1 for the pass. The other team's commit is unknown: each playout has the
    other team commit with its base strategy on the sampled hand."""
    ctx[CX_META][M_KEPT] = 0
    if none_known:   # no legal option earlier this round, and none since (assist_loop)
        return 0, -1, False
    w = w_a if me == 0 else w_b
    opts = ctx[CX_OPTS]
    n = commit_options(w, cards, rules, seats, pile, pile_n, arrival, used, st, me, opts,
                       ctx[CX_SCORES], pile[SCR_VALS_A + me])
    if n <= 1:
        return 0, -1, False
    template = ctx[CX_TEMPLATE]
    for i in range(N_FX):
        template[i] = -1
    row = evaluate(KIND_COMMIT, me, 0, n, cards, rules, seats, w_a, w_b, debug, ctx)
    return opts[row, 0], opts[row, 1], True


@njit(cache=True, _nrt=False)
def decide_target(me, mask, declared, rival_cust, rival_keys, n_rival, cards, rules, seats,
                  w_a, w_b, debug, pile, pile_n, arrival, used, st, vals, keys, ctx):
    """D3 by search: the marker holder's customer, having seen the other team's reveal."""
    w = w_a if me == 0 else w_b
    opts = ctx[CX_OPTS]
    n = target_options(w, cards, rules, seats, pile, pile_n, arrival, used, st, me, mask,
                       rival_cust, rival_keys, n_rival, vals, keys, opts, ctx[CX_SCORES])
    if n == 0:   # (cannot happen: the declared customer is legal)
        ctx[CX_META][M_KEPT] = 0
        return declared
    return opts[_evaluate_in_pass(KIND_TARGET, me, n, cards, rules, seats, w_a, w_b, debug,
                                  ctx), 0]


@njit(cache=True, _nrt=False)
def decide_place(me, cust, cards, rules, seats, w_a, w_b, debug, pile, pile_n, used, ctx):
    """D4 by search: the destination code of the customer team ``me`` has won."""
    w = w_a if me == 0 else w_b
    opts = ctx[CX_OPTS]
    n = place_options(w, cards, rules, seats, pile, pile_n, used, me, cust, opts,
                      ctx[CX_SCORES])
    return opts[_evaluate_in_pass(KIND_PLACE, me, n, cards, rules, seats, w_a, w_b, debug,
                                  ctx), 0]


@njit(cache=True)
def log_search(trace, st, pile, kind, team, ctx):
    """Trace only: the options a search decision kept, their results and its choice."""
    meta = ctx[CX_META]
    kept = meta[M_KEPT]
    if kept <= 1:
        return
    opts = ctx[CX_OPTS]
    order = ctx[CX_ORDER]
    wins = ctx[CX_WINS]
    rnd = st[S_ROUND]
    for j in range(kept):
        row = order[j]
        event(trace, st, rnd, EV_SEARCH_OPTION, kind, j, np.int64(2.0 * wins[j] + 0.5),
              meta[M_SAMPLES])
        event(trace, st, rnd, EV_SEARCH_ARG, kind, opts[row, 0], opts[row, 1], opts[row, 2])
        if kind == KIND_COMMIT:
            m = opts[row, 0]
            slot = 0
            while m:
                if m & 1:
                    event(trace, st, rnd, EV_SEARCH_CARD, pile[P_HAND + team, slot], 0, 0, 0)
                m >>= 1
                slot += 1
    event(trace, st, rnd, EV_SEARCH_CHOICE, kind, meta[M_CHOSEN], team, kept)


# ---------------------------------------------------------------- whole games

@njit(cache=True)
def new_context(search, seed, peek, n_cards):
    """The search's work arrays for a batch of games (see the CX_* names)."""
    meta = np.zeros(N_META, np.int64)
    meta[M_SEED] = seed
    meta[M_PEEK] = peek
    return (search, meta, new_state(n_cards), new_state(n_cards), new_state(n_cards),
            np.full(N_FX, -1, np.int64), np.full(N_FX, -1, np.int64),
            np.full(N_FX, -1, np.int64), np.full(N_FX, -1, np.int64),
            np.zeros((MAX_OPTIONS, OPT_WIDTH), np.int64), np.zeros(MAX_OPTIONS),
            np.zeros(MAX_OPTIONS, np.int64), np.zeros(MAX_OPTIONS), np.zeros(4, np.uint64),
            np.zeros(4, np.uint64), np.zeros(n_cards, np.uint8), np.zeros(n_cards, np.int64),
            np.zeros(2, np.int64), np.zeros(2, np.int64))


@njit(cache=True)
def play_search_game(cards, rules, seats, w_a, w_b, seed, game_index, out, fates, trace, debug,
                     state, ctx):
    """engine_kernel's game (_play) with search teams (ctx's search matrix); writes the
    result row. Returns (trace events written, search decisions made)."""
    rng, pile, pile_n, arrival, used, st, stats, starts, fscr = state
    meta = ctx[CX_META]
    meta[M_GAME] = game_index
    meta[M_DECISIONS] = 0
    start_game(cards, rules, seats, w_a, w_b, seed, game_index, trace, rng, pile, pile_n, arrival,
               used, st, stats, starts)
    winner, rnd = search_rounds(cards, rules, seats, w_a, w_b, trace, debug, state, ctx, 1, True)
    if trace is not None and trace.shape[0]:
        event(trace, st, rnd, EV_END, winner, pile_n[P_SCORE], pile_n[P_SCORE + 1], 0)
    write_result(cards, rules, seats, pile, pile_n, st, stats, starts, game_index, winner, rnd,
                 out, fates)
    return st[S_TRACE_N], meta[M_DECISIONS]


@njit(cache=True)
def search_rounds(cards, rules, seats, w_a, w_b, trace, debug, state, ctx, first, deal_first):
    """Rounds ``first`` .. the end of the game with search teams (engine_kernel.play_round's
    phases, the assist loop as ``_pass``); ``deal_first`` False: round ``first`` has begun
    (start_round ran, or a test set the state up). Returns (winner code, last round)."""
    rng, pile, pile_n, arrival, used, st, stats, _, fscr = state
    none = ctx[CX_NONE]
    free = ctx[CX_FREE]
    winner = TIMEOUT
    rnd = first
    for rnd in range(first, rules[R_MAX_ROUNDS] + 1):
        if rnd > first or deal_first:
            start_round(rules, trace, pile, pile_n, arrival, used, st, rnd)
        none[0] = 0
        none[1] = 0
        while not _pass(cards, rules, seats, w_a, w_b, rng, pile, pile_n, arrival, used, st,
                        stats, trace, debug, fscr, none, free, ctx):
            pass
        ended = end_round(cards, rules, seats, w_a, w_b, trace, debug, rng, pile, pile_n,
                          arrival, used, st, stats, rnd)
        if ended != NO_WINNER:
            winner = ended
            break
    return winner, rnd


# Decisions on a given state, for tests (tests/peer_to_peer/test_search_player.py): each
# reuses the compiled decide_* and costs little to compile.
@njit(cache=True)
def commit_at(me, cards, rules, seats, w_a, w_b, state, ctx):
    """Team ``me``'s D2 by search on ``state``, taken as a pass start (nothing known about
    the round before it): (mask, customer). Its options, results and choice stay in ctx."""
    rng, pile, pile_n, arrival, used, st, stats, _, _ = state
    none = ctx[CX_NONE]
    none[0] = 0
    none[1] = 0
    _begin_live_pass(rng, pile, pile_n, arrival, used, st, stats, none, ctx)
    mask, cust, _ = decide_commit(me, cards, rules, seats, w_a, w_b, False, pile, pile_n,
                                  arrival, used, st, False, ctx)
    return mask, cust


@njit(cache=True)
def place_at_state(me, cust, facts, cards, rules, seats, w_a, w_b, state, ctx):
    """Team ``me``'s D4 by search for customer ``cust`` won in the pass that starts at
    ``state``, whose commits (and target) ``facts`` gives (FX_*): the destination code."""
    rng, pile, pile_n, arrival, used, st, stats, _, _ = state
    none = ctx[CX_NONE]
    none[0] = 0
    none[1] = 0
    _begin_live_pass(rng, pile, pile_n, arrival, used, st, stats, none, ctx)
    for i in range(N_FX):
        ctx[CX_FACTS][i] = facts[i]
    return decide_place(me, cust, cards, rules, seats, w_a, w_b, False, pile, pile_n, used, ctx)


@njit(cache=True, nogil=True)
def run_games_search(cards, rules, seats, w_a, w_b, seed, start, out, fates, debug, search,
                     peek, decisions):
    """engine_kernel.run_games with search teams: games start .. start+len(out)-1;
    ``decisions[i]`` gets game i's number of search decisions."""
    state = new_state(cards.shape[1])
    ctx = new_context(search, seed, peek, cards.shape[1])
    for i in range(out.shape[0]):
        _, made = play_search_game(cards, rules, seats, w_a, w_b, seed, start + i, out[i],
                                   fates[i], None, debug, state, ctx)
        decisions[i] = made


@njit(cache=True)
def trace_game_search(cards, rules, seats, w_a, w_b, seed, game_index, out, fates, trace, debug,
                      search):
    """engine_kernel.play_traced with search teams (their options in the trace)."""
    state = new_state(cards.shape[1])
    ctx = new_context(search, seed, 0, cards.shape[1])
    n, _ = play_search_game(cards, rules, seats, w_a, w_b, seed, game_index, out[0], fates[0],
                            trace, debug, state, ctx)
    return n
