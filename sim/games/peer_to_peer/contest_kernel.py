"""Reveals and contests (P2P-R2b, R2c, D3), as numba kernels.

After both teams commit, the team without the marker reveals first, then the marker
holder, who may retarget (D3: choose_target); reveal applies an assist's effects and sorts
its contest keys; unmark_assist gives a contest's loser back its effects
(loser_effects_spent=false). The legality of an assist and the contest comparison are
assist_kernel's; resolve_contest is the contest step (R2c) of round_kernel.assist_loop,
inlined there.
"""
import numpy as np
from numba import njit

from sim.games.peer_to_peer.assist_kernel import (
    contest, eval_assist, lowest_slot, sorted_play, unpaired_step,
)
from sim.games.peer_to_peer.commit_kernel import (
    assist_score, customer_has_effect, customer_kind_part, highest_played, score_from_contest,
)
from sim.games.peer_to_peer.constants import (
    CD_EFFECT, CD_VALUE, EFFECT_BOOST, EFFECT_DUAL_DOMAIN, EFFECT_SHIFT, EFFECT_TIEBREAK,
    EFFECT_WILD_DOMAIN, ERR_ILLEGAL_ASSIST, MAX_SEATS, R_CONTEST_UNPAIRED, R_CUSTOMER_PATIENCE,
    R_LOSER_EFFECTS_SPENT, SEAT_TEAM, UNPAIRED_TIED, WHY_TIEBREAK,
)
from sim.games.peer_to_peer.features import C_CUST_EFFECT, C_NOISE, C_REACH, NF
from sim.games.peer_to_peer.reach_kernel import reach_of, reach_served
from sim.games.peer_to_peer.state_kernel import (
    EV_CONTEST, EV_DECLARE, EV_PLAY, EV_RETURN, F_TARGET, P_HAND, P_ROW, P_SEAT, S_EFFECTS_KNOWN,
    S_ERROR, S_ROUND, S_SHIFT_CARD, S_SHIFT_K, S_WILD, TARGET_KNOWN, TARGET_PREFIX, TARGET_REACH,
    T_CONTESTS, T_CONTESTS_WON, T_UNPAIRED_WON, T_WHY_WON, event, feature_noise, find_effect,
    game_phase, listing_noise, mark_used, venture_effects,
)
from sim.core.search_kernel import add_option


@njit(cache=True, _nrt=False, forceinline=True)
def reveal(cards, rules, pile, pile_n, seats, used, st, team, mask, cust, vals, keys, trace,
           need_keys):
    """Apply the effects of an assist (P2P-R2b/R2f); with ``need_keys``, sort its contest
    keys into ``keys`` and return their number (else 0).

    The team's venture effects are those its D2 found (st[S_SHIFT_CARD + team] ...): only
    the other team's reveal ran since, and it marks only that team's cards."""
    hand = pile[P_HAND + team]
    shift_card = st[S_SHIFT_CARD + team]
    shift_k = st[S_SHIFT_K + team]
    wild = st[S_WILD + team]
    ok, sh_slot, sh_delta, use_wild, dual_slot, boost_mask = eval_assist(
        cards, hand, mask, cust, used, shift_k, wild >= 0, vals)
    if not ok:
        st[S_ERROR] = ERR_ILLEGAL_ASSIST
    if sh_slot >= 0:
        mark_used(used, st, shift_card, trace, team, EFFECT_SHIFT)
    if use_wild:
        mark_used(used, st, wild, trace, team, EFFECT_WILD_DOMAIN)
    if dual_slot >= 0:
        mark_used(used, st, hand[dual_slot], trace, team, EFFECT_DUAL_DOMAIN)
    for slot in range(pile_n[P_HAND + team]):
        if boost_mask >> slot & 1:
            mark_used(used, st, hand[slot], trace, team, EFFECT_BOOST)
    total = 0
    m = mask
    while m:
        slot = lowest_slot(m)
        m &= m - 1
        total += vals[slot]
        if trace is not None and trace.shape[0]:
            event(trace, st, st[S_ROUND], EV_PLAY, team, hand[slot], vals[slot], 0)
    if total != cards[CD_VALUE, cust]:
        st[S_ERROR] = ERR_ILLEGAL_ASSIST
    if trace is not None and trace.shape[0]:
        event(trace, st, st[S_ROUND], EV_DECLARE, team, cust,
              shift_card if sh_slot >= 0 else -1, wild if use_wild else -1)
    if not need_keys:
        return 0
    return sorted_play(cards, rules, hand, mask, vals, keys)


@njit(cache=True, _nrt=False, inline='always')
def choose_target(cards, rules, seats, w, rng, pile, pile_n, arrival, used, st, team, mask,
                  declared, rival_cust, rival_keys, n_rival, vals, keys, options, fscr,
                  from_d2):
    """D3: the marker holder picks any customer its committed cards can legally assist.

    ``options`` None: the engine's choice. A search player's ``Options``
    (sim.core.search_kernel): every customer it could pick is listed instead, in row
    order, as (customer, -1, 0) with its score without noise (``declared`` returned).

    ``from_d2``: the team's own D2 chose this subset in this pass, so where it left the
    subset's score with each row position (fscr[F_TARGET + team], without noise) D3 adds
    each legal customer's noise draw to D2's score, in row order as the full scan draws
    them, and the other team's customer gains the contest features in their place in the
    sum. The first maximum is found for a won and a lost contest at once: only where they
    differ is the contest played out, and it picks one of the two. That path is a short
    loop, inlined where it is called (a call with these arguments cost about as much as
    the loop); the full scan is target_by_scan."""
    phase = game_phase(w, pile_n)
    b = phase * NF
    nrow = pile_n[P_ROW]
    target = fscr[F_TARGET + team]
    if from_d2 and options is None and target[TARGET_KNOWN] != 0.0:
        best_won, best_lost = declared, declared
        score_won, score_lost = -np.inf, -np.inf
        for j in range(nrow):
            if target[j] == -np.inf:
                continue  # not legal for this subset
            noise = w[b + C_NOISE] * feature_noise(w, phase, C_NOISE, rng)
            sc_won = target[j] + noise
            sc_lost = sc_won
            if pile[P_ROW, j] == rival_cust:
                sc_won = _with_contest(cards, w, b, pile, target, j, 1.0, 0.0) + noise
                sc_lost = _with_contest(cards, w, b, pile, target, j, 0.0, 1.0) + noise
            if sc_won > score_won:
                score_won, best_won = sc_won, pile[P_ROW, j]
            if sc_lost > score_lost:
                score_lost, best_lost = sc_lost, pile[P_ROW, j]
        if best_won == best_lost:
            return best_won
        # The contest decides. The full scan would draw the same noise again and score
        # every customer with the same sums, the rival's with the contest played out: so
        # playing out that one contest picks between the two.
        return best_won if _wins_contest(cards, rules, seats, pile, pile_n, used, st, team,
                                         mask, rival_cust, rival_keys, n_rival, vals,
                                         keys) else best_lost
    return target_by_scan(cards, rules, seats, w, rng, pile, pile_n, arrival, used, st, team,
                          mask, declared, rival_cust, rival_keys, n_rival, vals, keys, options)


@njit(cache=True, _nrt=False, forceinline=False)
def target_by_scan(cards, rules, seats, w, rng, pile, pile_n, arrival, used, st, team, mask,
                   declared, rival_cust, rival_keys, n_rival, vals, keys, options):
    """D3 without D2's scores: each row customer the committed cards can legally assist,
    scored in row order with its noise draw, the first maximum chosen (``declared`` if
    none); or, for a search player (``options``), each listed with its score."""
    b = game_phase(w, pile_n) * NF
    nrow = pile_n[P_ROW]
    # the committed cards are fixed, so the customers the rest of the hand serves are too
    served = (reach_served(cards, pile[P_HAND + team], pile_n[P_HAND + team], used,
                           pile[P_ROW], nrow, mask)
              if w[b + C_REACH] != 0.0 else 0)
    context = _target_context(cards, rules, seats, w, rng, pile, pile_n, arrival, used, st,
                              team, mask, rival_cust, rival_keys, n_rival, vals, keys, options)
    best = declared
    best_score = -np.inf
    for j in range(nrow):
        ok, sc = _target_score(context, j, reach_of(served, j))
        if not ok:
            continue
        if options is not None:
            add_option(options, pile[P_ROW, j], -1, 0, sc)
        elif sc > best_score:
            best_score = sc
            best = pile[P_ROW, j]
    return best


@njit(cache=True, _nrt=False, forceinline=False)
def _wins_contest(cards, rules, seats, pile, pile_n, used, st, team, mask, rival_cust,
                  rival_keys, n_rival, vals, keys):
    """D3: whether ``team``'s committed cards (``mask``) would win the contest for the
    other team's customer (a legal assist for it), as _target_score plays it out. The
    team's effects are those its D2 found this pass (st[S_SHIFT_K + team] ..., as reveal
    reads them): only the other team's reveal ran since, and it marks only its own cards."""
    hand = pile[P_HAND + team]
    eval_assist(cards, hand, mask, rival_cust, used, st[S_SHIFT_K + team],
                st[S_WILD + team] >= 0, vals)
    win, _ = _contest_against_rival(cards, rules, seats, pile, pile_n, used, team, hand, mask,
                                    vals, keys, rival_cust, rival_cust, rival_keys, n_rival)
    return win == 1.0


@njit(cache=True, _nrt=False, inline='always')
def _contest_against_rival(cards, rules, seats, pile, pile_n, used, team, hand, mask, vals,
                           keys, cust, rival_cust, rival_keys, n_rival):
    """D3's contest features (win, lose) of assisting ``cust`` (``vals``: the played
    values, from eval_assist), with each team's unused tiebreak."""
    tb_me = find_effect(cards, pile, pile_n, seats, used, team, EFFECT_TIEBREAK, -1) >= 0
    tb_rival = find_effect(cards, pile, pile_n, seats, used, 1 - team, EFFECT_TIEBREAK,
                           -1) >= 0
    return contest_features(cards, rules, hand, mask, vals, keys, cust, rival_cust,
                            rival_keys, n_rival, tb_me, tb_rival, team)


@njit(cache=True, _nrt=False, inline='always')
def _with_contest(cards, w, b, pile, target, j, win, lose):
    """D3's score of row position ``j`` from the sum D2 left before the contest features
    (TARGET_PREFIX), with contest features (``win``, ``lose``): the rest of assist_score's
    sum in its order (no noise where D2 left its scores)."""
    return score_from_contest(w, b, target[TARGET_PREFIX + j], win, lose,
                              w[b + C_CUST_EFFECT] * customer_has_effect(cards, pile[P_ROW, j]),
                              customer_kind_part(cards, w, b, pile[P_ROW, j]),
                              target[TARGET_REACH + j])


@njit(cache=True, _nrt=False, inline='always')
def _target_context(cards, rules, seats, w, rng, pile, pile_n, arrival, used, st, team, mask,
                    rival_cust, rival_keys, n_rival, vals, keys, options):
    """What _target_score reads, the team's effects and the row's top value found once."""
    _, shift_k, wild, _ = venture_effects(cards, pile, pile_n, seats, used, team)
    top_value = 0
    for j in range(pile_n[P_ROW]):
        top_value = max(top_value, cards[CD_VALUE, pile[P_ROW, j]])
    return (cards, rules, seats, w, rng, pile, pile_n, arrival, used, st, team, mask,
            rival_cust, rival_keys, n_rival, vals, keys, options, shift_k, wild >= 0, top_value)


@njit(cache=True, _nrt=False, inline='always')
def _target_score(context, j, reach):
    """D3: (legal, score) of retargeting to row position ``j`` (``reach``: its reach
    feature)."""
    (cards, rules, seats, w, rng, pile, pile_n, arrival, used, st, team, mask, rival_cust,
     rival_keys, n_rival, vals, keys, options, shift_k, has_wild, top_value) = context
    phase = game_phase(w, pile_n)
    b = phase * NF
    hand = pile[P_HAND + team]
    cust = pile[P_ROW, j]
    ok, sh_slot, _, use_wild, _, _ = eval_assist(cards, hand, mask, cust, used, shift_k,
                                                 has_wild, vals)
    if not ok:
        return False, 0.0
    win, lose = 0.0, 0.0
    if cust == rival_cust:
        win, lose = _contest_against_rival(cards, rules, seats, pile, pile_n, used, team, hand,
                                           mask, vals, keys, cust, rival_cust, rival_keys,
                                           n_rival)
    value = cards[CD_VALUE, cust]
    waited = st[S_ROUND] - arrival[cust]
    n_played = 0
    m = mask
    while m:
        n_played += m & 1
        m >>= 1
    return True, assist_score(
        w, b, value, waited, 1.0 if waited + 1 >= rules[R_CUSTOMER_PATIENCE] else 0.0,
        n_played, highest_played(vals, mask), (1.0 if sh_slot >= 0 else 0.0) + use_wild,
        1.0 if value >= top_value else 0.0, win, lose, customer_has_effect(cards, cust),
        customer_kind_part(cards, w, b, cust), reach if w[b + C_REACH] != 0.0 else 0.0,
        listing_noise(w, phase, C_NOISE, rng, options))


@njit(cache=True, _nrt=False, inline='always')
def contest_features(cards, rules, hand, mask, vals, keys, cust, rival_cust, rival_keys,
                     n_rival, tb_me, tb_rival, team):
    """D3's contest features (win, lose) of assisting ``cust`` with the hand slots ``mask``:
    (0, 0) unless the other team revealed for it, else how the contest (R2c) would end.
    Fills ``keys`` with the assist's contest keys then."""
    if cust != rival_cust:
        return 0.0, 0.0
    n = sorted_play(cards, rules, hand, mask, vals, keys)
    tied = rules[R_CONTEST_UNPAIRED] == UNPAIRED_TIED
    if team == 0:
        winner, _ = contest(keys, n, rival_keys, n_rival, tb_me, tb_rival, team, tied)
    else:
        winner, _ = contest(rival_keys, n_rival, keys, n, tb_rival, tb_me, team, tied)
    win = 1.0 if winner == team else 0.0
    return win, 1.0 - win


@njit(cache=True, _nrt=False, inline='always')
def resolve_contest(cards, rules, seats, pile, pile_n, used, used_before, st, stats, trace,
                    keys_a, n_a, keys_b, n_b, marker, masks, cust):
    """R2c: both teams assisted customer ``cust``; returns the winning team. Spends the
    winner's tiebreak if it decided, counts the contest and the step that decided it
    (higher card, longer list, tiebreak, domain, marker), and (loser_effects_spent=false)
    gives the loser back the effects of its assist. Keys come from reveal."""
    tb_a = find_effect(cards, pile, pile_n, seats, used, 0, EFFECT_TIEBREAK, -1)
    tb_b = find_effect(cards, pile, pile_n, seats, used, 1, EFFECT_TIEBREAK, -1)
    winner, why = contest(keys_a, n_a, keys_b, n_b, tb_a >= 0, tb_b >= 0, marker,
                          rules[R_CONTEST_UNPAIRED] == UNPAIRED_TIED)
    if why == WHY_TIEBREAK:
        mark_used(used, st, tb_a if winner == 0 else tb_b, trace, winner, EFFECT_TIEBREAK)
    stats[T_CONTESTS] += 1
    stats[T_CONTESTS_WON + winner] += 1
    stats[T_WHY_WON + 2 * (why - 1) + winner] += 1   # which step decided it
    unpaired = unpaired_step(keys_a, n_a, keys_b, n_b)
    if unpaired:
        stats[T_UNPAIRED_WON + winner] += 1
    if trace is not None and trace.shape[0]:
        event(trace, st, st[S_ROUND], EV_CONTEST, winner, cust, why, 1 if unpaired else 0)
        event(trace, st, st[S_ROUND], EV_RETURN, 1 - winner, 0, 0, 0)
    if rules[R_LOSER_EFFECTS_SPENT] == 0:
        unmark_assist(cards, pile, pile_n, seats, used, used_before, st, 1 - winner,
                      masks[1 - winner])
    return winner


@njit(cache=True, _nrt=False, forceinline=False)
def unmark_assist(cards, pile, pile_n, seats, used, used_before, st, team, mask):
    """Reading loser_effects_spent=false: a contest loser's effects stay available.

    Restores the loser's assist venture effects and played group cards to ``used_before``
    (taken before this pass's reveals), so an effect spent earlier in the round stays
    spent (P2P-E: once per round)."""
    st[S_EFFECTS_KNOWN + team] = 0
    for s in range(MAX_SEATS):
        if seats[SEAT_TEAM, s] != team:
            continue
        for i in range(pile_n[P_SEAT + s]):
            c = pile[P_SEAT + s, i]
            if cards[CD_EFFECT, c] == EFFECT_SHIFT or cards[CD_EFFECT, c] == EFFECT_WILD_DOMAIN:
                used[c] = used_before[c]
    m = mask
    slot = 0
    while m:
        if m & 1:
            c = pile[P_HAND + team, slot]
            used[c] = used_before[c]
        m >>= 1
        slot += 1
