"""The phases of a Peer-to-Peer round after the deal (P2P-R2, R3, R4), as numba kernels.

assist_loop: both teams commit (D2, commit_kernel), reveal and contest (contest_kernel)
and the winners place their customers (place_kernel), until both pass (R2). Its D2, D3
and D4 may come from a caller (``hook``, sim.core.search_kernel): the search player
(search_kernel) plays its games and its playouts through this loop. refresh: the
group hand is discarded and drawn again (R3). unhappy: customers who waited too long or
overflow the row turn unhappy, unless a patience venture saves them (R4, E6, D6).
"""
from numba import njit

from sim.games.peer_to_peer.assist_kernel import eval_assist
from sim.games.peer_to_peer.commit_kernel import choose_commit, know_effects
from sim.games.peer_to_peer.constants import (
    CD_ARG, CD_EFFECT, CD_KIND, CD_VALUE, EFFECT_EXTRA_DRAW, EFFECT_PATIENCE, MAX_SEATS,
    R_CUSTOMER_PATIENCE, R_HAND_SIZE, R_LOSER_EFFECTS_SPENT, R_PATIENCE_RESETS_WAIT, R_PLAYERS,
    R_RESHUFFLE_DISCARD, R_ROW_CAPACITY, SEAT_TEAM, VENTURE,
)
from sim.games.peer_to_peer.contest_kernel import choose_target, resolve_contest, reveal
from sim.games.peer_to_peer.features import (
    C_CONTEST_LOSE, C_CONTEST_WIN, C_NOISE, NF, S_NOISE, S_NONE, S_VALUE,
)
from sim.games.peer_to_peer.place_kernel import win_customer
from sim.games.peer_to_peer.view_kernel import view_commit_options
from sim.games.peer_to_peer.state_kernel import (
    D_COMMIT, D_TARGET, EV_COULD, EV_DRAW, EV_HAND, EV_PASS, EV_REFRESH, EV_RESHUFFLE,
    EV_RETARGET, EV_SAVE, EV_UNHAPPY, KIND_COMMIT, KIND_TARGET, MARK_NONE, P_DISC, P_GDECK,
    P_HAND, P_ROW, P_SEAT, P_UNHAPPY, SCR_DOOMED, SCR_KEYS_A, SCR_KEYS_B, SCR_PAIR,
    SCR_USED_BEFORE, SCR_VALS_A, SCR_VALS_B, S_MARKER, S_ROUND, check_invariants, copy_state,
    event, feature_noise, find_effect, game_phase, mark_used, pop, push, remove_at,
    venture_effects, write_search_log,
)
from sim.core.rng_kernel import shuffle
from sim.core.search_kernel import (
    SEARCH_ON, any_search, asked, clear_facts, clear_forced,
)


# ---------------------------------------------------------------- R2: the assist loop

@njit(cache=True, _nrt=False, inline='always')
def assist_loop(tables, state, trace, debug, hook, resume):
    """R2: passes until both teams pass. Returns True then, or False when a search
    player's ``hook`` asked its caller for a decision (sim.core.search_kernel: the loop
    stops there, and the caller reruns the pass from ``hook.snap`` with the decision
    forced). ``hook`` None: the engine's own games (every hook branch is pruned).
    ``resume``: the loop goes on with the pass that starts at ``state`` (a rerun or a
    playout), so each team's "no legal option earlier this round" comes from the hook."""
    cards, rules, seats, w_a, w_b = tables
    rng, pile, pile_n, arrival, used, st, stats, _, fscr = state
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
    if hook is not None and resume:
        none_a = hook.marks[MARK_NONE] != 0
        none_b = hook.marks[MARK_NONE + 1] != 0
    while True:
        if hook is not None:
            pass_start(hook, state, none_a, none_b)
        # R2a: both teams commit at once, from the same state.
        # (one call site: choose_commit is inlined)
        if trace is not None and trace.shape[0]:
            _trace_hands(pile, pile_n, st, n_teams, trace)
        mask_a, cust_a, mask_b, cust_b = 0, -1, 0, -1
        chosen_a, chosen_b = True, True  # each team's commit is its own D2's choice
        for t in range(n_teams):
            if hook is not None and asked(hook, D_COMMIT + t, t, KIND_COMMIT, 0, 0, 0, 0):
                return False
            if trace is not None and trace.shape[0]:
                view_commit_options(cards, rules, seats, w_a if t == 0 else w_b, rng, pile,
                                    pile_n, arrival, used, st, t, vals_a if t == 0 else vals_b,
                                    trace)
            if hook is not None and hook.forced[D_COMMIT + t, 0] >= 0:
                mask, cust, legal = forced_commit(cards, pile, pile_n, seats, used, st, t,
                                                  hook, trace)
                if t == 0:
                    chosen_a = False
                else:
                    chosen_b = False
            else:
                mask, cust, legal = choose_commit(cards, rules, seats, w_a if t == 0 else w_b,
                                                  rng, pile, pile_n, arrival, used, st, t,
                                                  vals_a if t == 0 else vals_b,
                                                  none_a if t == 0 else none_b, fscr)
            if t == 0:
                mask_a, cust_a, none_a = mask, cust, not legal
            else:
                mask_b, cust_b, none_b = mask, cust, not legal
        if hook is not None:
            hook.facts[D_COMMIT, 0] = mask_a
            hook.facts[D_COMMIT, 1] = cust_a
            hook.facts[D_COMMIT + 1, 0] = mask_b
            hook.facts[D_COMMIT + 1, 1] = cust_b
        if mask_a == 0 and mask_b == 0:
            if trace is not None and trace.shape[0]:
                event(trace, st, rnd, EV_PASS, 0, 0, 0, 0)
                if n_teams == 2:
                    event(trace, st, rnd, EV_PASS, 1, 0, 0, 0)
                _trace_could_assist(cards, pile, pile_n, seats, used, st, n_teams, vals_a,
                                    trace)
            if hook is not None:
                clear_forced(hook)
            return True
        if rules[R_LOSER_EFFECTS_SPENT] == 0:
            for c in range(used.shape[0]):
                used_before[c] = used[c]
        marker = st[S_MARKER] if n_teams == 2 else 0
        other = 1 - marker
        masks = (mask_a, mask_b)
        custs[0] = cust_a
        custs[1] = cust_b
        # R2b: the team without the marker reveals first, then the marker holder, who may
        # retarget (D3). (One reveal and one win_customer call site each: they are inlined.)
        other_keys = keys_a if other == 0 else keys_b
        w_m = w_a if marker == 0 else w_b
        bm = game_phase(w_m, pile_n) * NF
        # D3 without noise or contest features scores each customer as D2 did for this
        # subset, so it keeps the customer declared in D2 (the first maximum).
        keeps_declared = w_m[bm + C_NOISE] == 0.0 and (masks[other] == 0 or (
            w_m[bm + C_CONTEST_WIN] == 0.0 and w_m[bm + C_CONTEST_LOSE] == 0.0))
        # ... unless a hook may choose it (a search player): then the marker holder may
        # move onto the other team's customer, and the first revealer's keys are needed
        free_target = False
        if hook is not None:
            free_target = (hook.search[marker, SEARCH_ON] != 0
                           or hook.forced[D_TARGET, 0] >= 0)
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
                if hook is not None and asked(hook, D_TARGET, marker, KIND_TARGET, n_other, 0,
                                              0, 0):
                    return False
                if hook is not None and hook.forced[D_TARGET, 0] >= 0:
                    new_cust = hook.forced[D_TARGET, 0]
                    if trace is not None and trace.shape[0]:
                        write_search_log(trace, st, hook, D_TARGET)
                elif keeps_declared:
                    new_cust = custs[marker]
                else:
                    new_cust = choose_target(cards, rules, seats, w_m, rng, pile, pile_n,
                                             arrival, used, st, marker, masks[marker],
                                             custs[marker], custs[other], other_keys, n_other,
                                             t_vals, t_keys, None, fscr,
                                             chosen_a if marker == 0 else chosen_b)
                if trace is not None and trace.shape[0] and new_cust != custs[marker]:
                    event(trace, st, rnd, EV_RETARGET, marker, custs[marker], new_cust, 0)
                custs[marker] = new_cust
                if hook is not None:
                    hook.facts[D_TARGET, 0] = new_cust
            # contest keys only where a contest may follow (R2c) or D3 scores one
            if k == 0:
                need_keys = masks[marker] != 0 and (custs[0] == custs[1] or not keeps_declared
                                                    or free_target)
            else:
                need_keys = custs[0] == custs[1] and masks[other] != 0
            n = reveal(cards, rules, pile, pile_n, seats, used, st, t, masks[t], custs[t],
                       t_vals, t_keys, trace, need_keys)
            if k == 0:
                n_other = n
            else:
                n_marker = n
        contest_winner = -1
        if n_teams == 2 and masks[0] and masks[1] and custs[0] == custs[1]:
            # R2c: a contest.
            n_a = n_marker if marker == 0 else n_other
            n_b = n_marker if marker == 1 else n_other
            contest_winner = resolve_contest(cards, rules, seats, pile, pile_n, used,
                                             used_before, st, stats, trace, keys_a, n_a,
                                             keys_b, n_b, marker, masks, custs[0])
        for t in (other, marker):  # resolved in reveal order; after a contest only its winner
            if t < n_teams and masks[t] and (contest_winner < 0 or t == contest_winner):
                w_t = w_a if t == 0 else w_b
                stopped = win_customer(cards, rules, seats, w_t, rng, pile, pile_n, used, st,
                                       stats, t, masks[t], custs[t], trace, hook)
                if hook is not None and stopped:
                    return False
        if debug:
            check_invariants(cards, rules, seats, pile, pile_n, st)
        if hook is not None:
            clear_forced(hook)


@njit(cache=True, _nrt=False, inline='always')
def pass_start(hook, state, none_a, none_b):
    """A pass starts under a hook: what the caller replays it from (each team's "no legal
    option earlier this round" and, where a team searches, a copy of the state), and
    nothing settled in it yet."""
    hook.marks[MARK_NONE] = none_a
    hook.marks[MARK_NONE + 1] = none_b
    if any_search(hook):
        copy_state(state, hook.snap)
    clear_facts(hook)


@njit(cache=True, _nrt=False, inline='always')
def forced_commit(cards, pile, pile_n, seats, used, st, team, hook, trace):
    """A commit the hook forces (D2): (mask, customer, legal), with the team's venture
    effects cached as choose_commit caches them (its reveal reads them)."""
    know_effects(cards, pile, pile_n, seats, used, st, team)
    if trace is not None and trace.shape[0]:
        write_search_log(trace, st, hook, D_COMMIT + team)
    return (hook.forced[D_COMMIT + team, 0], hook.forced[D_COMMIT + team, 1],
            hook.forced[D_COMMIT + team, 2] != 0)


@njit(cache=True, _nrt=False, forceinline=False)
def _trace_hands(pile, pile_n, st, n_teams, trace):
    """Trace only: each team's group hand before it commits (R2a), slot by slot."""
    for t in range(n_teams):
        h = pile_n[P_HAND + t]
        if h == 0:
            event(trace, st, st[S_ROUND], EV_HAND, t, -1, -1, 0)
        for slot in range(h):
            event(trace, st, st[S_ROUND], EV_HAND, t, pile[P_HAND + t, slot], slot, h)


@njit(cache=True, _nrt=False, forceinline=False)
def _trace_could_assist(cards, pile, pile_n, seats, used, st, n_teams, vals, trace):
    """Trace only: once both teams passed, for each team and row customer the first hand
    subset (ascending slot mask, 0 = none) that could legally assist it (R2a, with the
    team's unused effects), so a trace answers "could they have served that customer?"."""
    for t in range(n_teams):
        h = pile_n[P_HAND + t]
        _, shift_k, wild, _ = venture_effects(cards, pile, pile_n, seats, used, t)
        for j in range(pile_n[P_ROW]):
            cust = pile[P_ROW, j]
            found = 0
            for mask in range(1, 1 << h):
                ok = eval_assist(cards, pile[P_HAND + t], mask, cust, used, shift_k, wild >= 0,
                                 vals)[0]
                if ok:
                    found = mask
                    break
            event(trace, st, st[S_ROUND], EV_COULD, t, cust, found, 0)


# ---------------------------------------------------------------- R3, R4: end of round

@njit(cache=True, _nrt=False, forceinline=True)
def refresh(cards, rules, seats, rng, pile, pile_n, used, st, team, trace):
    """R3: discard the hand, draw hand_size plus extra_draw, reshuffling the discard."""
    while pile_n[P_HAND + team]:
        push(pile, pile_n, P_DISC + team, pop(pile, pile_n, P_HAND + team))
    extra = 0
    for s in range(MAX_SEATS):
        if seats[SEAT_TEAM, s] != team:
            continue
        for i in range(pile_n[P_SEAT + s]):
            c = pile[P_SEAT + s, i]
            if (cards[CD_EFFECT, c] == EFFECT_EXTRA_DRAW and used[c] == 0
                    and cards[CD_KIND, c] == VENTURE):
                extra += cards[CD_ARG, c]
                mark_used(used, st, c, trace, team, EFFECT_EXTRA_DRAW)
    drawn = 0
    reshuffles = 0
    for _ in range(rules[R_HAND_SIZE] + extra):
        if pile_n[P_GDECK + team] == 0:
            if rules[R_RESHUFFLE_DISCARD] == 0 or pile_n[P_DISC + team] == 0:
                break
            if trace is not None and trace.shape[0]:
                event(trace, st, st[S_ROUND], EV_RESHUFFLE, team, pile_n[P_DISC + team], 0, 0)
            while pile_n[P_DISC + team]:
                push(pile, pile_n, P_GDECK + team, pop(pile, pile_n, P_DISC + team))
            shuffle(rng, pile[P_GDECK + team], pile_n[P_GDECK + team])
            reshuffles += 1
        push(pile, pile_n, P_HAND + team, pop(pile, pile_n, P_GDECK + team))
        drawn += 1
        if trace is not None and trace.shape[0]:
            event(trace, st, st[S_ROUND], EV_DRAW, team, pile[P_HAND + team, pile_n[P_HAND + team] - 1],
                  0, 0)
    if trace is not None and trace.shape[0]:
        event(trace, st, st[S_ROUND], EV_REFRESH, team, drawn, reshuffles, extra)


@njit(cache=True, _nrt=False, inline='always')
def any_unhappy(rules, pile, pile_n, arrival, rnd):
    """Would R4 turn any customer unhappy (before E6 saves)? As unhappy decides."""
    nrow = pile_n[P_ROW]
    if rules[R_ROW_CAPACITY] > 0 and nrow > rules[R_ROW_CAPACITY]:
        return True
    for j in range(nrow):
        if rnd - arrival[pile[P_ROW, j]] + 1 >= rules[R_CUSTOMER_PATIENCE]:
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=False)
def unhappy(cards, rules, seats, w_a, w_b, rng, pile, pile_n, arrival, used, st, trace):
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
            phase = game_phase(w, pile_n)
            while n_doomed:
                src = find_effect(cards, pile, pile_n, seats, used, team, EFFECT_PATIENCE, -1)
                if src < 0:
                    break
                b = phase * NF  # scores summed in feature order
                best = -1
                best_score = w[b + S_NONE] + w[b + S_NOISE] * feature_noise(w, phase, S_NOISE, rng)
                for j in range(nrow):
                    if doomed[j] == 0:
                        continue
                    sc = (w[b + S_VALUE] * cards[CD_VALUE, pile[P_ROW, j]]
                          + w[b + S_NOISE] * feature_noise(w, phase, S_NOISE, rng))
                    if sc > best_score:
                        best_score = sc
                        best = j
                if best < 0:
                    break
                mark_used(used, st, src, trace, team, EFFECT_PATIENCE)
                doomed[best] = 0
                n_doomed -= 1
                if rules[R_PATIENCE_RESETS_WAIT]:  # E6: its wait starts again next round
                    arrival[pile[P_ROW, best]] = rnd + 1
                if trace is not None and trace.shape[0]:
                    event(trace, st, rnd, EV_SAVE, team, src, pile[P_ROW, best],
                          rules[R_PATIENCE_RESETS_WAIT])
    for j in range(nrow - 1, -1, -1):
        if doomed[j]:
            c = remove_at(pile, pile_n, P_ROW, j)
            push(pile, pile_n, P_UNHAPPY, c)
            if trace is not None and trace.shape[0]:
                event(trace, st, rnd, EV_UNHAPPY, c, 0, 0, 0)


