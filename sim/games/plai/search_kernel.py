"""PLAI's search player: determinized Monte Carlo over a base strategy, in numba.

At each of its decisions -- the turn's action with its target (D1 + D4), the attack's
mode and cards (D2 cards) and the defense (D3: none, or a mode and its cards) -- the
player lists its options, ranks them the way its base strategy scores them (features.py;
the base's own choice first), keeps the best ``k``, and for each of ``n`` samples of the
hidden information plays every kept option out to the end of the game with the base
strategy in every seat. It takes the option its seat won most often with (the first in
the ranking on ties). The search seat's row of the weight matrix is the base strategy's.

What a seat may see (PLAI-D): its own hand (the pool too once it is a maintainer), every
pile's size, the discard pile, who is bankrupt. A sample (``determinize``) keeps all of
that and deals the unseen cards -- the other hands, the deck, the face-down funding, a
startup's view of the pool, the face-down attack it defends against -- at random again,
every size kept: Market Events only into the deck (they never sit anywhere else), only
attack cards into a face-down attack. A sample is built from the multiset of unseen cards
(counted by card id), never from where they lie, so no arrangement of the hidden cards can
reach a decision; tests/plai/test_search_player.py checks that, and that the check fails for the
peeking variant (``peek`` = 1: the true hidden state, for that test only). The sampling
has no memory: a card the seat saw go into a rival's hand earlier is dealt at random too.

Random numbers: a decision's stream is seeded from (seed, game index, the game's search
decision counter) only (``seed_decision``); the game's own stream is never read or
advanced by the search. Within a decision, sample i's rollouts of every option start from
the same generator state (common random numbers), so options are compared on equal luck.
"""
import numpy as np
from numba import njit

from sim.core.rng_kernel import next_u64, seed_substream, shuffle
from sim.games.plai.constants import (
    ACT_FAMILY, ACT_PASS, ACT_SPECIAL, ACT_TAKEOVER, ACT_VENTURE, CD_FLAGS, CD_STRENGTH,
    CD_TYPE, EV_ACTION, EV_DEFEND, EV_END, EV_PLAY, EV_SEARCH_ARG, EV_SEARCH_CARD,
    EV_SEARCH_CHOICE, EV_SEARCH_OPTION, EV_TURN, FIGHT_TAKEOVER, FL_ADVERSARY, FL_BLUFF,
    MARKET_EVENT, MAX_FIGHT_CARDS, MODE_BLUFF, MODE_NONE, MODE_REAL, OUT_SEAT, OUT_STALEMATE,
    P_ATTACK, P_DECK, P_DEFENSE, P_FUNDING, P_HAND0, P_POOL, R_MAINTAINER_ATTACK,
    R_MAINTAINER_SPECIALS, R_MAX_TURNS, R_PLAYERS, R_TAKEOVER_THRESHOLD, SEARCH_ACTION,
    SEARCH_ATTACK, SEARCH_DEFENSE, SEARCH_K, SEARCH_N, SEARCH_ON, SIDE_ATTACK, SIDE_DEFENSE,
    S_TRACE_N, S_TURNS,
)
from sim.games.plai.decide_kernel import (
    NEG_INF, choose_action_s, fight_playable, first_of_id, funding_score, funding_setup,
    funding_terms, is_action_special, leader_hand, mode_powers, mode_score, pick_table,
    real_type, special_score, stop_score, takeover_score,
)
from sim.games.plai.engine_kernel import (
    act, attack_cards, copy_card_fights, count_action_fight, defense_cards, defense_stake,
    end_of_turn, fight_close, fight_open, fight_support, game_over, log_defense, open_action,
    play_rest, record, start_game,
)
from sim.games.plai.features import F_ACT_PASS
from sim.games.plai.piles_kernel import (
    log, move, new_state, seat_after, shuffle_pile, traced,
)

SEARCH_SALT = np.uint64(0x5EA2C4B1D3F0A977)   # the search streams differ from the game's
MAX_OPTIONS = 512
OPT_WIDTH = 3 + MAX_FIGHT_CARDS   # action or mode, card or card count, target, card ids
BASE_FIRST = 1e300                 # the base strategy's own choice ranks first


@njit(cache=True)
def seed_decision(rng, seed, game_index, decision):
    """The stream of the game's ``decision``-th search decision: from (seed, game index,
    decision) only, apart from the game's own stream (``seed_game``'s)."""
    seed_substream(rng, seed, game_index, decision, SEARCH_SALT)


@njit(cache=True)
def copy_state(piles, pile_n, bankrupt, st, scratch, d_piles, d_pile_n, d_bankrupt, d_st,
               d_scratch):
    """The game state into the second set of arrays (same shapes)."""
    for p in range(pile_n.shape[0]):
        d_pile_n[p] = pile_n[p]
        for i in range(pile_n[p]):
            d_piles[p, i] = piles[p, i]
    for s in range(bankrupt.shape[0]):
        d_bankrupt[s] = bankrupt[s]
    for i in range(st.shape[0]):
        d_st[i] = st[i]
    for r in range(scratch.shape[0]):
        for i in range(scratch.shape[1]):
            d_scratch[r, i] = scratch[r, i]


@njit(cache=True, inline="always")
def _hidden(pile, me, attack_hidden, bankrupt):
    """Is ``pile`` unseen by seat ``me``? (The deck and the discard pile: the deck yes, the
    discard pile no; the defense is only ever down when both sides are.)"""
    if pile == P_DECK or pile == P_FUNDING:
        return True
    if pile == P_POOL:
        return bankrupt[me] < 0
    if pile == P_ATTACK:
        return attack_hidden
    if pile >= P_HAND0:
        return pile != P_HAND0 + me
    return False


@njit(cache=True)
def determinize(me, attack_hidden, rng, cards, piles, pile_n, bankrupt, counts, buf):
    """Deal the cards ``me`` cannot see at random again (module docstring), in place.
    Only the multiset of unseen cards is read, by card id, so the result does not depend
    on where the unseen cards were."""
    for i in range(counts.shape[0]):
        counts[i] = 0
    events = 0
    for p in range(pile_n.shape[0]):
        if _hidden(p, me, attack_hidden, bankrupt):
            for i in range(pile_n[p]):
                counts[piles[p, i]] += 1
    m = 0
    for card in range(counts.shape[0]):
        if cards[CD_TYPE, card] == MARKET_EVENT:
            events += counts[card]
            continue
        for _ in range(counts[card]):
            buf[m] = card
            m += 1
    shuffle(rng, buf, m)
    j = 0
    if attack_hidden:   # only cards that can attack lie face down in an attack (PLAI-F1)
        for slot in range(pile_n[P_ATTACK]):
            q = j
            while q < m and (cards[CD_FLAGS, buf[q]] & (FL_ADVERSARY | FL_BLUFF)) == 0:
                q += 1
            if q == m:
                q = j
            tmp = buf[j]
            buf[j] = buf[q]
            buf[q] = tmp
            piles[P_ATTACK, slot] = buf[j]
            j += 1
    for p in range(pile_n.shape[0]):
        if p == P_DECK or p == P_ATTACK or not _hidden(p, me, attack_hidden, bankrupt):
            continue
        for i in range(pile_n[p]):
            piles[p, i] = buf[j]
            j += 1
    # the deck: its Market Events (by id) and the rest, then shuffled
    k = 0
    for card in range(counts.shape[0]):
        if cards[CD_TYPE, card] == MARKET_EVENT:
            for _ in range(counts[card]):
                piles[P_DECK, k] = card
                k += 1
    while k < pile_n[P_DECK] and j < m:
        piles[P_DECK, k] = buf[j]
        k += 1
        j += 1
    shuffle_pile(rng, piles, P_DECK, pile_n[P_DECK])
    return m + events


@njit(cache=True)
def playout(seat, left, me, W, picks, rng, cards, rules, piles, pile_n, bankrupt, st,
            trace, scratch, deck_size):
    """The rest of the game after ``seat``'s turn's action: the end of that turn, then
    every turn with the base strategies (the engine's own game loop, ``play_rest``).
    Returns 1.0 if seat ``me`` wins, else 0.0."""
    players = rules[R_PLAYERS]
    left = end_of_turn(rules, piles, pile_n, bankrupt, st, trace, deck_size, left)
    if left <= 1:   # PLAI-T6
        outcome, winner = game_over(players, bankrupt)
    else:
        outcome, winner = play_rest(seat_after(seat, 1, players), left, W, picks, rng, cards,
                                    rules, piles, pile_n, bankrupt, st, trace, scratch,
                                    deck_size)
    return 1.0 if outcome == OUT_SEAT and winner == me else 0.0


# One compiled copy each of the engine's inlined phases (they are inline="always" there):
# the search's own functions call these, so that each phase is compiled once here.
@njit(cache=True)
def act_once(seat, action, card, target, W, picks, rng, cards, rules, piles, pile_n, bankrupt,
             st, trace, scratch):
    """``engine_kernel.act``: a search option's action, then its fight with the base
    strategy's cards (the fight, the asks and a special are calls there)."""
    act(seat, action, card, target, W, picks, rng, cards, rules, piles, pile_n, bankrupt, st,
        trace, scratch)


@njit(cache=True)
def fight_close_once(kind, attacker, defender, W, rng, cards, rules, piles, pile_n, bankrupt,
                     st, trace, scratch):
    return fight_close(kind, attacker, defender, W, rng, cards, rules, piles, pile_n,
                       bankrupt, st, trace, scratch)


@njit(cache=True)
def fight_support_once(kind, attacker, defender, n_own, W, picks, rng, cards, rules, piles,
                       pile_n, bankrupt, st, trace, scratch):
    fight_support(kind, attacker, defender, n_own, W, picks, rng, cards, rules, piles, pile_n,
                  bankrupt, st, trace, scratch)


@njit(cache=True)
def defense_cards_once(kind, defender, W, picks, rng, cards, piles, pile_n, st, trace):
    defense_cards(kind, defender, W, picks, rng, cards, piles, pile_n, st, trace)


@njit(cache=True)
def attack_cards_once(attacker, att_mode, W, picks, rng, cards, piles, pile_n, bankrupt, st,
                      trace):
    return attack_cards(attacker, att_mode, W, picks, rng, cards, piles, pile_n, bankrupt, st,
                        trace)


@njit(cache=True, inline="always")
def _add(opts, scores, n, a, b, c, score):
    if n >= MAX_OPTIONS:
        return n
    opts[n, 0] = a
    opts[n, 1] = b
    opts[n, 2] = c
    scores[n] = score
    return n + 1


@njit(cache=True)
def action_options(W, ws, cards, rules, piles, pile_n, bankrupt, seat, left, turn, opts,
                   scores):
    """D1 + D4: every option ``choose_action_s`` weighs, in its order, with its score
    without noise. Returns how many."""
    players = rules[R_PLAYERS]
    maintainer = bankrupt[seat] >= 0
    own = P_POOL if maintainer else P_HAND0 + seat
    startups = left if maintainer else left - 1
    n = 0
    if maintainer:
        n = _add(opts, scores, n, ACT_PASS, -1, -1, W[ws, F_ACT_PASS])
        first, last = ACT_FAMILY, ACT_FAMILY
        defense = 0
    else:
        first, last = ACT_FAMILY, ACT_VENTURE
        _, _, defense, _, _ = mode_powers(cards, piles, pile_n, own, SIDE_DEFENSE)
    regional, missing = funding_setup(rules, pile_n, bankrupt, seat, own, maintainer, startups)
    for action in range(first, last + 1):
        attackers, gap = funding_terms(action, regional, startups, missing)
        n = _add(opts, scores, n, action, -1, -1,
                 funding_score(W, ws, action, attackers, defense, gap))
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
            for k in range(1, players):
                t = seat_after(seat, k, players)
                if bankrupt[t] >= 0:
                    continue
                n = _add(opts, scores, n, ACT_SPECIAL, card, t,
                         special_score(W, ws, pile_n[P_HAND0 + t], most))
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
                n = _add(opts, scores, n, ACT_TAKEOVER, -1, t,
                         takeover_score(W, ws, power, pile_n[P_HAND0 + t], most, turns_left,
                                        last_rival))
    return n


@njit(cache=True)
def _prefixes(W, ws, pick_scores, cards, piles, pile_n, src, side, mode, score_of_mode,
              take_base, opts, scores, n, taken):
    """The plays of ``mode`` that follow the base's greedy pick order (pick_cards_s without
    noise): every legal prefix of it, each scored by the mode's score, its cards' pick
    scores (``pick_scores``: pick_table's, the base's own) and the stop score after them.
    With ``take_base``, the prefix the base stops at ranks first (BASE_FIRST). Returns the
    new option count."""
    rt = real_type(side)
    allow_real = mode == MODE_REAL
    for i in range(pile_n[src]):
        taken[i] = 0
    count = 0
    strength = 0
    has_real = False
    total = score_of_mode
    stopped = False
    start = n
    while count < MAX_FIGHT_CARDS:
        need_real = allow_real and not has_real and count == MAX_FIGHT_CARDS - 1
        stop_ok = count > 0 and (mode == MODE_BLUFF or has_real)
        stop = stop_score(W, ws, strength, count)
        best = -1
        best_score = NEG_INF
        for i in range(pile_n[src]):
            card = piles[src, i]
            if taken[i] or not fight_playable(cards, card, side, allow_real):
                continue
            if need_real and cards[CD_TYPE, card] != rt:
                continue
            if _earlier_copy(piles, src, i, taken):
                continue   # options are card ids: the first copy left in hand stands for all
            score = pick_scores[ws * 2 + side, card]
            if score > best_score:
                best_score = score
                best = i
        if stop_ok:
            base = take_base and not stopped and (best < 0 or stop >= best_score)
            stopped = stopped or base
            m = _add(opts, scores, n, mode, count, -1, BASE_FIRST if base else total + stop)
            if m > n:
                _fill(opts, n, piles, pile_n, src, taken, count)
            n = m
        if best < 0:
            break
        taken[best] = count + 1
        card = piles[src, best]
        strength += cards[CD_STRENGTH, card]
        has_real = has_real or cards[CD_TYPE, card] == rt
        total += best_score
        count += 1
    if count == MAX_FIGHT_CARDS and (mode == MODE_BLUFF or has_real):
        m = _add(opts, scores, n, mode, count, -1,
                 BASE_FIRST if take_base and not stopped else total)
        if m > n:
            _fill(opts, n, piles, pile_n, src, taken, count)
        n = m
    elif take_base and not stopped and n > start:
        scores[n - 1] = BASE_FIRST
    return n


@njit(cache=True, inline="always")
def _earlier_copy(piles, src, i, taken):
    """Does a card of the same id as slot i sit earlier in ``src``, not yet picked?"""
    for j in range(i):
        if taken[j] == 0 and piles[src, j] == piles[src, i]:
            return True
    return False


@njit(cache=True, inline="always")
def _fill(opts, row, piles, pile_n, src, taken, count):
    """The card ids of a prefix: the cards marked 1 .. count in ``taken``, in pick order."""
    for c in range(MAX_FIGHT_CARDS):
        opts[row, 3 + c] = -1
    for i in range(pile_n[src]):
        if 0 < taken[i] <= count:
            opts[row, 3 + taken[i] - 1] = piles[src, i]


@njit(cache=True)
def card_options(W, ws, pick_scores, cards, piles, pile_n, src, side, allow_none, stake,
                 rival_hand, opts, scores, taken):
    """D2 cards (``allow_none`` False: the attack is on) or D3 (none, real, bluff): every
    mode the hand allows, with the prefixes of its base pick order (``_prefixes``); the
    base strategy's own play (its best mode score without noise, then its picks) first."""
    n = 0
    best_mode = MODE_NONE
    best_mode_score = NEG_INF
    if allow_none:
        best_mode_score = 0.0
    has_real, has_bluff, real_power, bluff_power, _ = mode_powers(cards, piles, pile_n, src,
                                                                  side)
    mode_scores = np.zeros(3)
    for mode in (MODE_REAL, MODE_BLUFF):
        if (mode == MODE_REAL and not has_real) or (mode == MODE_BLUFF and not has_bluff):
            continue
        power = real_power if mode == MODE_REAL else bluff_power
        score = mode_score(W, ws, side, mode, power, stake, rival_hand, 0.0)
        mode_scores[mode] = score
        if score > best_mode_score:
            best_mode_score = score
            best_mode = mode
    if allow_none:
        n = _add(opts, scores, n, MODE_NONE, 0, -1,
                 BASE_FIRST if best_mode == MODE_NONE else 0.0)
        for c in range(MAX_FIGHT_CARDS):
            opts[0, 3 + c] = -1
    for mode in (MODE_REAL, MODE_BLUFF):
        if (mode == MODE_REAL and not has_real) or (mode == MODE_BLUFF and not has_bluff):
            continue
        n = _prefixes(W, ws, pick_scores, cards, piles, pile_n, src, side, mode,
                      mode_scores[mode], mode == best_mode, opts, scores, n, taken)
    return n


@njit(cache=True)
def top_k(scores, n, k, order):
    """The ``k`` best of ``scores[:n]``, best first, the earlier of equal scores first."""
    used = np.zeros(n, np.bool_)
    kept = min(k, n)
    for r in range(kept):
        best = -1
        for i in range(n):
            if not used[i] and (best < 0 or scores[i] > scores[best]):
                best = i
        used[best] = True
        order[r] = best
    return kept


@njit(cache=True, inline="always")
def _place(opts, row, piles, pile_n, src, dst):
    """Move the option's cards (by id) from ``src`` to ``dst``; returns how many moved."""
    moved = 0
    for c in range(opts[row, 1]):
        card = opts[row, 3 + c]
        for i in range(pile_n[src]):
            if piles[src, i] == card:
                move(piles, pile_n, src, i, dst)
                moved += 1
                break
    return moved


@njit(cache=True)
def evaluate(kind, me, turn_seat, left, fight_kind, attacker, defender, k, n_samples, peek,
             rng_d, W, picks, cards, rules, deck_size, piles, pile_n, bankrupt, st, scratch,
             det, work, bufs, opts, scores, order, wins):
    """Rank the options ``opts[:len(scores)]`` (``scores``), keep the best ``k`` in
    ``order`` and add each one's wins over ``n_samples`` samples into ``wins``. Returns
    how many were kept. ``det`` and ``work`` are (piles, pile_n, bankrupt, st, scratch,
    rng) work arrays, ``bufs`` (counts, buf, taken, trace-less matrix)."""
    d_piles, d_pile_n, d_bankrupt, d_st, d_scratch, d_rng = det
    w_piles, w_pile_n, w_bankrupt, w_st, w_scratch, w_rng = work
    counts, buf, taken, notrace = bufs
    kept = top_k(scores, scores.shape[0], k, order)
    for j in range(kept):
        wins[j] = 0.0
    if kept <= 1:
        return kept   # nothing to choose
    attack_hidden = kind == SEARCH_DEFENSE
    for _ in range(n_samples):
        copy_state(piles, pile_n, bankrupt, st, scratch, d_piles, d_pile_n, d_bankrupt, d_st,
                   d_scratch)
        if not peek:
            determinize(me, attack_hidden, rng_d, cards, d_piles, d_pile_n, d_bankrupt, counts,
                        buf)
        for w in range(4):
            d_rng[w] = next_u64(rng_d)
        for j in range(kept):
            row = order[j]
            copy_state(d_piles, d_pile_n, d_bankrupt, d_st, d_scratch, w_piles, w_pile_n,
                       w_bankrupt, w_st, w_scratch)
            for w in range(4):
                w_rng[w] = d_rng[w]
            if kind == SEARCH_ACTION:
                act_once(me, opts[row, 0], opts[row, 1], opts[row, 2], W, picks, w_rng, cards,
                         rules, w_piles, w_pile_n, w_bankrupt, w_st, notrace, w_scratch)
            elif kind == SEARCH_ATTACK:
                src = P_POOL if w_bankrupt[attacker] >= 0 else P_HAND0 + attacker
                fight_open(fight_kind, attacker, defender, opts[row, 0], w_st, notrace)
                n_own = _place(opts, row, w_piles, w_pile_n, src, P_ATTACK)
                fight_support_once(fight_kind, attacker, defender, n_own, W, picks, w_rng,
                                   cards, rules, w_piles, w_pile_n, w_bankrupt, w_st, notrace,
                                   w_scratch)
                defense_cards_once(fight_kind, defender, W, picks, w_rng, cards, w_piles,
                                   w_pile_n, w_st, notrace)
                fight_close_once(fight_kind, attacker, defender, W, w_rng, cards, rules,
                                 w_piles, w_pile_n, w_bankrupt, w_st, notrace, w_scratch)
            else:
                _place(opts, row, w_piles, w_pile_n, P_HAND0 + defender, P_DEFENSE)
                fight_close_once(fight_kind, attacker, defender, W, w_rng, cards, rules,
                                 w_piles, w_pile_n, w_bankrupt, w_st, notrace, w_scratch)
            wins[j] += playout(turn_seat, left, me, W, picks, w_rng, cards, rules, w_piles,
                               w_pile_n, w_bankrupt, w_st, notrace, w_scratch, deck_size)
    return kept


@njit(cache=True)
def best_kept(wins, kept):
    """The rank of the kept option with the most wins (the first of equals)."""
    best = 0
    for j in range(1, kept):
        if wins[j] > wins[best]:
            best = j
    return best


@njit(cache=True)
def _log_search(trace, st, kind, me, kept, n_samples, order, wins, opts, chosen):
    if not traced(trace):
        return
    for j in range(kept):
        row = order[j]
        log(trace, st, EV_SEARCH_OPTION, kind, np.int64(wins[j]), n_samples, j)
        log(trace, st, EV_SEARCH_ARG, opts[row, 0], opts[row, 1], opts[row, 2], kind)
        if kind != SEARCH_ACTION:
            for c in range(opts[row, 1]):
                log(trace, st, EV_SEARCH_CARD, opts[row, 3 + c], 0, 0, 0)
    log(trace, st, EV_SEARCH_CHOICE, kind, chosen, me, kept)


@njit(cache=True)
def decide(kind, me, turn_seat, left, fight_kind, attacker, defender, W, picks, cards, rules,
           piles, pile_n, bankrupt, st, trace, scratch, ctx):
    """One search decision of seat ``me`` on the live state: returns the row of ``opts``
    (ctx) it chose. ``ctx``: (search matrix, seed, game index, peek, deck size, decision
    counter, det, work, bufs, opts, scores, order, wins, stream)."""
    (search, seed, game_index, peek, deck_size, counter, det, work, bufs, opts, scores,
     order, wins, rng_d) = ctx
    taken = bufs[2]
    if kind == SEARCH_ACTION:
        n = action_options(W, me, cards, rules, piles, pile_n, bankrupt, me, left, st[S_TURNS],
                           opts, scores)
    elif kind == SEARCH_ATTACK:
        src = P_POOL if bankrupt[attacker] >= 0 else P_HAND0 + attacker
        hand = pile_n[P_HAND0 + defender]
        stake = hand if fight_kind == FIGHT_TAKEOVER else pile_n[P_FUNDING]
        n = card_options(W, me, picks[1], cards, piles, pile_n, src, SIDE_ATTACK, False, stake,
                         hand, opts, scores, taken)
    else:
        n = card_options(W, me, picks[1], cards, piles, pile_n, P_HAND0 + defender,
                         SIDE_DEFENSE, True, defense_stake(fight_kind, defender, piles, pile_n),
                         0, opts, scores, taken)
    if n == 0:
        return -1
    seed_decision(rng_d, seed, game_index, counter[0])
    counter[0] += 1
    n_samples = search[me, SEARCH_N]
    kept = evaluate(kind, me, turn_seat, left, fight_kind, attacker, defender,
                    search[me, SEARCH_K], n_samples, peek, rng_d, W, picks, cards, rules,
                    deck_size, piles, pile_n, bankrupt, st, scratch, det, work, bufs, opts,
                    scores[:n], order, wins)
    chosen = best_kept(wins, kept)
    if kept > 1:
        _log_search(trace, st, kind, me, kept, n_samples, order, wins, opts, chosen)
    return order[chosen]


@njit(cache=True)
def search_fight(kind, attacker, defender, att_mode, turn_seat, left, W, picks, rng, cards,
                 rules, piles, pile_n, bankrupt, st, trace, scratch, ctx):
    """``engine_kernel.fight`` with the search seats' card choices (D2 cards, D3)."""
    search = ctx[0]
    opts = ctx[9]
    if search[attacker, SEARCH_ON]:
        row = decide(SEARCH_ATTACK, attacker, turn_seat, left, kind, attacker, defender, W,
                     picks, cards, rules, piles, pile_n, bankrupt, st, trace, scratch, ctx)
        mode = opts[row, 0] if row >= 0 else att_mode
        fight_open(kind, attacker, defender, mode, st, trace)
        n_own = 0
        if row >= 0:
            src = P_POOL if bankrupt[attacker] >= 0 else P_HAND0 + attacker
            n_own = _place(opts, row, piles, pile_n, src, P_ATTACK)
            if traced(trace):
                for i in range(pile_n[P_ATTACK]):
                    log(trace, st, EV_PLAY, SIDE_ATTACK, piles[P_ATTACK, i], attacker, 0)
    else:
        fight_open(kind, attacker, defender, att_mode, st, trace)
        n_own = attack_cards_once(attacker, att_mode, W, picks, rng, cards, piles, pile_n,
                                  bankrupt, st, trace)
    fight_support_once(kind, attacker, defender, n_own, W, picks, rng, cards, rules, piles,
                       pile_n, bankrupt, st, trace, scratch)
    if search[defender, SEARCH_ON]:
        row = decide(SEARCH_DEFENSE, defender, turn_seat, left, kind, attacker, defender, W,
                     picks, cards, rules, piles, pile_n, bankrupt, st, trace, scratch, ctx)
        mode = opts[row, 0] if row >= 0 else MODE_NONE
        log(trace, st, EV_DEFEND, defender, mode, 0, 0)
        if row >= 0 and mode != MODE_NONE:
            _place(opts, row, piles, pile_n, P_HAND0 + defender, P_DEFENSE)
            log_defense(trace, st, piles, pile_n, defender)
    else:
        defense_cards_once(kind, defender, W, picks, rng, cards, piles, pile_n, st, trace)
    return fight_close_once(kind, attacker, defender, W, rng, cards, rules, piles, pile_n,
                            bankrupt, st, trace, scratch)


@njit(cache=True)
def search_act(seat, action, card, target, left, W, picks, rng, cards, rules, piles, pile_n,
               bankrupt, st, trace, scratch, ctx):
    """``engine_kernel.act`` with ``search_fight``: the search seats choose their cards in
    this turn's fight, whoever's turn it is."""
    if action == ACT_PASS:
        return
    maintainer = bankrupt[seat] >= 0
    kind, attacker, defender, mode = open_action(seat, action, card, target, W, rng, cards,
                                                 rules, piles, pile_n, bankrupt, st, trace,
                                                 scratch)
    if kind >= 0:
        winner = search_fight(kind, attacker, defender, mode, seat, left, W, picks, rng, cards,
                              rules, piles, pile_n, bankrupt, st, trace, scratch, ctx)
        count_action_fight(kind, winner, maintainer, st)


@njit(cache=True)
def search_take_turn(seat, left, W, picks, rng, cards, rules, piles, pile_n, bankrupt, st,
                     trace, scratch, ctx):
    """``engine_kernel.take_turn`` with the search seats' decisions."""
    search = ctx[0]
    opts = ctx[9]
    maintainer = bankrupt[seat] >= 0
    own = P_POOL if maintainer else P_HAND0 + seat
    log(trace, st, EV_TURN, seat, 1 if maintainer else 0, pile_n[own], pile_n[P_DECK])
    if search[seat, SEARCH_ON]:
        row = decide(SEARCH_ACTION, seat, seat, left, -1, -1, -1, W, picks, cards, rules,
                     piles, pile_n, bankrupt, st, trace, scratch, ctx)
        action, card, target = opts[row, 0], opts[row, 1], opts[row, 2]
    else:
        action, card, target = choose_action_s(W, seat, rng, cards, rules, piles, pile_n,
                                               bankrupt, seat, left, st[S_TURNS])
    log(trace, st, EV_ACTION, seat, action, card, target)
    search_act(seat, action, card, target, left, W, picks, rng, cards, rules, piles, pile_n,
               bankrupt, st, trace, scratch, ctx)


@njit(cache=True)
def new_context(search, seed, game_index, peek, deck_size, players, n, n_ids):
    """The search's work arrays for one game (see ``decide``): its two work copies of the
    state are ``new_state``'s, like the game's own."""
    bufs = (np.zeros(n_ids, np.int64), np.zeros(n, np.int64), np.zeros(n, np.int64),
            np.zeros((0, 6), np.int8))
    return (search, seed, game_index, peek, deck_size, np.zeros(1, np.int64),
            new_state(players, n, n_ids), new_state(players, n, n_ids), bufs,
            np.zeros((MAX_OPTIONS, OPT_WIDTH), np.int64), np.zeros(MAX_OPTIONS),
            np.zeros(MAX_OPTIONS, np.int64), np.zeros(MAX_OPTIONS), np.zeros(4, np.uint64))


@njit(cache=True)
def play_game_search(seed, game_index, deck, cards, rules, W, picks, search, peek, piles,
                     pile_n, bankrupt, st, trace, scratch, rng):
    """``engine_kernel.play_game`` with search seats (``search[s, SEARCH_ON]``); returns
    (outcome, winner, first seat, search decisions made)."""
    players = rules[R_PLAYERS]
    first = start_game(seed, game_index, deck, cards, rules, piles, pile_n, bankrupt, st,
                       scratch, rng)
    ctx = new_context(search, seed, game_index, peek, deck.shape[0], players, deck.shape[0],
                      cards.shape[1])
    seat = first
    outcome = OUT_STALEMATE
    winner = -1
    left = players
    while st[S_TURNS] < rules[R_MAX_TURNS]:
        st[S_TURNS] += 1
        search_take_turn(seat, left, W, picks, rng, cards, rules, piles, pile_n, bankrupt, st,
                         trace, scratch, ctx)
        left = end_of_turn(rules, piles, pile_n, bankrupt, st, trace, deck.shape[0], left)
        if left <= 1:   # PLAI-T6
            outcome, winner = game_over(players, bankrupt)
            break
        seat = seat_after(seat, 1, players)
    log(trace, st, EV_END, outcome, winner, 0, 0)
    return outcome, winner, first, ctx[5][0]


@njit(cache=True, nogil=True)
def play_games_search(seed, start, deck, cards, rules, W, search, peek, out, card_fights,
                      decisions):
    """``engine_kernel.play_games`` with search seats; ``decisions[i]`` gets game i's
    number of search decisions."""
    players = rules[R_PLAYERS]
    n = deck.shape[0]
    piles, pile_n, bankrupt, st, scratch, rng = new_state(players, n, cards.shape[1])
    trace = np.zeros((0, 6), np.int8)
    picks = pick_table(W, cards)
    for i in range(out.shape[0]):
        outcome, winner, first, made = play_game_search(
            seed, start + i, deck, cards, rules, W, picks, search, peek, piles, pile_n,
            bankrupt, st, trace, scratch, rng)
        record(out[i], start + i, players, n, outcome, winner, first, pile_n, bankrupt, st)
        decisions[i] = made
        if card_fights.shape[0] > 0:
            copy_card_fights(card_fights, i, scratch)


@njit(cache=True)
def trace_game_search(seed, game_index, deck, cards, rules, W, search, trace, out):
    """``engine_kernel.trace_game`` with search seats (their options in the trace)."""
    players = rules[R_PLAYERS]
    n = deck.shape[0]
    piles, pile_n, bankrupt, st, scratch, rng = new_state(players, n, cards.shape[1])
    picks = pick_table(W, cards)
    outcome, winner, first, _ = play_game_search(seed, game_index, deck, cards, rules, W,
                                                 picks, search, 0, piles, pile_n, bankrupt,
                                                 st, trace, scratch, rng)
    record(out[0], game_index, players, n, outcome, winner, first, pile_n, bankrupt, st)
    return st[S_TRACE_N]
