"""A won customer: the winner's played cards go to its discard and it places the
customer (P2P-R2d, D4), pushing a venture out on overflow (D5), as numba kernels."""
import numpy as np
from numba import njit

from sim.games.peer_to_peer.constants import (
    CD_EFFECT, CD_KIND, CD_VALUE, DEVELOP_DECK, DEVELOP_HAND, EFFECT_DEVELOP, EFFECT_NONE,
    MAX_SEATS, R_VENTURE_LIMIT, SEAT_TEAM, VENTURE,
)
from sim.games.peer_to_peer.features import (
    D_DEVELOP_DECK, D_DEVELOP_DISCARD, D_DEVELOP_HAND, D_NOISE, D_OVERFLOW, D_SCORE,
    D_SCORE_REMAINING, D_SCORE_VALUE, D_VENTURE, D_VENTURE_EFFECT, L_HAS_EFFECT, L_IS_NEW,
    L_NOISE, L_VALUE, NF,
)
from sim.games.peer_to_peer.state_kernel import (
    D_PLACE, EV_OVERFLOW, EV_PLACE, EV_WIN, KIND_PLACE, P_CUST, P_DISC, P_GDECK, P_HAND, P_ROW,
    P_SCORE, P_SEAT, S_EFFECTS_KNOWN, S_ROUND, T_ASSISTS, T_SENT_DECK, T_SENT_SCORE,
    T_SENT_VENTURE, event, feature_noise, find_effect, game_phase, listing_noise, mark_used,
    push, remove_at, venture_effects, write_search_log,
)
from sim.games.peer_to_peer.view_kernel import MAX_PLACES, OPTION_WIDTH, VIEW_PLACE, write_options
from sim.core.rng_kernel import shuffle
from sim.core.search_kernel import add_option, asked, new_options


@njit(cache=True, _nrt=False, forceinline=True)
def win_customer(cards, rules, seats, w, rng, pile, pile_n, used, st, stats, team, mask, cust,
                 trace, hook):
    """The winner's played cards go to its discard and it places the customer (R2d).

    ``hook``: the round's (round_kernel.assist_loop): None in the engine's games; a
    search player's may force the placement (D4) or be asked for it, and then this
    returns True before the placement (else False)."""
    take_customer(pile, pile_n, st, stats, team, mask, cust, trace)
    if hook is not None and asked(hook, D_PLACE + team, team, KIND_PLACE, cust, 0, 0, 0):
        return True
    if trace is not None and trace.shape[0]:
        view_place_options(cards, rules, seats, w, rng, pile, pile_n, used, st, team, cust, trace)
    if hook is not None and hook.forced[D_PLACE + team, 0] >= 0:
        best = hook.forced[D_PLACE + team, 0]
        if trace is not None and trace.shape[0]:
            write_search_log(trace, st, hook, D_PLACE + team)
    else:
        best = choose_place(cards, rules, seats, w, rng, pile, pile_n, used, team, cust, None)
    if hook is not None:
        hook.facts[D_PLACE + team, 0] = best
    place_at(cards, rules, seats, w, rng, pile, pile_n, used, st, stats, team, cust, best, trace)
    return False


@njit(cache=True, _nrt=False, inline='always')
def take_customer(pile, pile_n, st, stats, team, mask, cust, trace):
    """R2d before the placement: the played cards go to the team's discard, the customer
    leaves the row."""
    p = P_HAND + team
    for slot in range(pile_n[p] - 1, -1, -1):  # from the back so slots stay valid
        if mask >> slot & 1:
            push(pile, pile_n, P_DISC + team, remove_at(pile, pile_n, p, slot))
    for j in range(pile_n[P_ROW]):
        if pile[P_ROW, j] == cust:
            remove_at(pile, pile_n, P_ROW, j)
            break
    stats[T_ASSISTS + team] += 1
    if trace is not None and trace.shape[0]:
        event(trace, st, st[S_ROUND], EV_WIN, team, cust, 0, 0)


@njit(cache=True, _nrt=False, inline='always')
def place_customer(cards, rules, seats, w, rng, pile, pile_n, used, st, stats, team, cust, trace):
    """D4 (and D5 on overflow): put a won customer somewhere (P2P-R2d)."""
    best = choose_place(cards, rules, seats, w, rng, pile, pile_n, used, team, cust, None)
    place_at(cards, rules, seats, w, rng, pile, pile_n, used, st, stats, team, cust, best, trace)


@njit(cache=True, _nrt=False, inline='always')
def choose_place(cards, rules, seats, w, rng, pile, pile_n, used, team, cust, options):
    """D4: the destination code of a won customer (0 score, 1 + seat, 100 + develop target),
    the first maximum of the strategy's score over features.py's D4 option order.

    ``options`` None: the engine's choice. A search player's ``Options``
    (sim.core.search_kernel): every destination is listed instead, in that order, as
    (code, -1, 0) with its score without noise."""
    phase = game_phase(w, pile_n)
    b = phase * NF
    limit = rules[R_VENTURE_LIMIT]
    carries = 1.0 if (cards[CD_KIND, cust] == VENTURE and cards[CD_EFFECT, cust] != EFFECT_NONE) else 0.0
    # option codes: 0 score, 1 + seat, 100 + develop target; scores summed in feature order
    best = 0
    best_score = (w[b + D_SCORE] + w[b + D_SCORE_VALUE] * cards[CD_VALUE, cust]
                  + w[b + D_SCORE_REMAINING] * pile_n[P_CUST]
                  + w[b + D_NOISE] * listing_noise(w, phase, D_NOISE, rng, options))
    if options is not None:
        add_option(options, 0, -1, 0, best_score)
    # Without noise a seat scores one of two values (with or without overflow): when neither
    # beats the score option, the seats need no scan.
    seats_may_win = (w[b + D_NOISE] != 0.0
                     or w[b + D_VENTURE] + w[b + D_VENTURE_EFFECT] * carries > best_score
                     or (w[b + D_VENTURE] + w[b + D_OVERFLOW]
                         + w[b + D_VENTURE_EFFECT] * carries) > best_score)
    if options is not None:
        seats_may_win = True
    for s in range(MAX_SEATS if seats_may_win else 0):
        if seats[SEAT_TEAM, s] != team:
            continue
        overflow = 1.0 if pile_n[P_SEAT + s] + 1 > limit else 0.0
        sc = (w[b + D_VENTURE] + w[b + D_OVERFLOW] * overflow + w[b + D_VENTURE_EFFECT] * carries
              + w[b + D_NOISE] * listing_noise(w, phase, D_NOISE, rng, options))
        best, best_score = _offer(options, 1 + s, sc, best, best_score)
    # Without noise a develop option scores its weight alone: when none beats the best so
    # far, the team's develop effects do not matter and its seats need no scan.
    develop = 0
    if options is not None or (w[b + D_NOISE] != 0.0 or w[b + D_DEVELOP_DECK] > best_score
                               or w[b + D_DEVELOP_HAND] > best_score
                               or w[b + D_DEVELOP_DISCARD] > best_score):
        develop = venture_effects(cards, pile, pile_n, seats, used, team)[3]
    for target in range(3):
        if not develop >> target & 1:
            continue
        sc = (w[b + D_DEVELOP_DECK + target]
              + w[b + D_NOISE] * listing_noise(w, phase, D_NOISE, rng, options))
        best, best_score = _offer(options, 100 + target, sc, best, best_score)
    return best


@njit(cache=True, _nrt=True, forceinline=False)
def view_place_options(cards, rules, seats, w, rng, pile, pile_n, used, st, team, cust, trace):
    """Trace only (view_kernel): D4's options, just before the won customer is placed, as
    choose_place lists them for the search (the score pile, each seat of the team in seat
    order, each develop target a usable effect allows), each with its score without noise.
    The listing draws nothing; the stream is put back all the same."""
    options = new_options(MAX_PLACES, OPTION_WIDTH)
    saved = rng.copy()
    choose_place(cards, rules, seats, w, rng, pile, pile_n, used, team, cust, options)
    rng[:] = saved
    write_options(options, 2 * VIEW_PLACE + team, cust, st, trace)


@njit(cache=True, _nrt=False, inline='always')
def _offer(options, code, score, best, best_score):
    """A D4 destination after the first: listed (a search player's ``options``), or the
    new (best, best score) if it scores higher (the first maximum wins)."""
    if options is not None:
        add_option(options, code, -1, 0, score)
    elif score > best_score:
        return code, score
    return best, best_score


@njit(cache=True, _nrt=False, inline='always')
def place_at(cards, rules, seats, w, rng, pile, pile_n, used, st, stats, team, cust, best, trace):
    """Put a won customer where destination code ``best`` says (choose_place's codes), with
    D5 on a venture overflow (P2P-R2d)."""
    phase = game_phase(w, pile_n)
    limit = rules[R_VENTURE_LIMIT]
    rnd = st[S_ROUND]
    if best == 0:
        push(pile, pile_n, P_SCORE + team, cust)
        stats[T_SENT_SCORE + team] += 1
        if trace is not None and trace.shape[0]:
            event(trace, st, rnd, EV_PLACE, team, cust, 0, -1)
    elif best < 100:
        s = best - 1
        push(pile, pile_n, P_SEAT + s, cust)
        stats[T_SENT_VENTURE + team] += 1
        if trace is not None and trace.shape[0]:
            event(trace, st, rnd, EV_PLACE, team, cust, 1, s)
        while pile_n[P_SEAT + s] > limit:
            _overflow(cards, w, phase, rng, pile, pile_n, st, team, s, trace)
        st[S_EFFECTS_KNOWN + team] = 0
    else:
        target = best - 100
        src = find_effect(cards, pile, pile_n, seats, used, team, EFFECT_DEVELOP, target)
        mark_used(used, st, src, trace, team, EFFECT_DEVELOP)
        stats[T_SENT_DECK + team] += 1
        if target == DEVELOP_DECK:
            push(pile, pile_n, P_GDECK + team, cust)
            shuffle(rng, pile[P_GDECK + team], pile_n[P_GDECK + team])
        elif target == DEVELOP_HAND:
            push(pile, pile_n, P_HAND + team, cust)
        else:
            push(pile, pile_n, P_DISC + team, cust)
        if trace is not None and trace.shape[0]:
            event(trace, st, rnd, EV_PLACE, team, cust, 2 + target, -1)


@njit(cache=True, _nrt=False, forceinline=True)
def _overflow(cards, w, phase, rng, pile, pile_n, st, team, s, trace):
    """D5: one of the seat's venture cards moves to the team's score pile."""
    p = P_SEAT + s
    b = phase * NF
    best = 0
    best_score = -np.inf
    for i in range(pile_n[p]):
        c = pile[p, i]
        # a venture effect: a group card's effect does not work in a venture (P2P-E)
        has_effect = 1.0 if (cards[CD_EFFECT, c] != EFFECT_NONE and cards[CD_KIND, c] == VENTURE) else 0.0
        value = float(cards[CD_VALUE, c])
        is_new = 1.0 if i == pile_n[p] - 1 else 0.0
        noise = feature_noise(w, phase, L_NOISE, rng)
        sc = 0.0  # weights . features over the non-zero features, in feature order
        if has_effect != 0.0:
            sc += w[b + L_HAS_EFFECT] * has_effect
        if value != 0.0:
            sc += w[b + L_VALUE] * value
        if is_new != 0.0:
            sc += w[b + L_IS_NEW] * is_new
        if noise != 0.0:
            sc += w[b + L_NOISE] * noise
        if sc > best_score:
            best_score = sc
            best = i
    c = remove_at(pile, pile_n, p, best)
    push(pile, pile_n, P_SCORE + team, c)
    if trace is not None and trace.shape[0]:
        event(trace, st, st[S_ROUND], EV_OVERFLOW, team, s, c, 0)
