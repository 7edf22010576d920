"""The PLAI game engine (PLAI-S, PLAI-T, PLAI-F) as numba kernels.

``play_games`` is the entry point: a serial, nogil kernel over a range of game indices;
each game seeds its own random stream from (seed, game index), so results do not depend
on threads or batch sizes. ``play_game`` with a non-empty trace matrix is the trace.

The turn (``take_turn``, ``act``, ``fight``) takes a ``hook`` (sim.core.search_kernel):
None in the engine's games (numba prunes every use), or a search player's, which forces a
seat's decision (D1 + D4, D2's cards, D3) or stops the game loop to ask for it. The search
player (search_kernel) plays its games through ``game_loop`` and its playouts through
``act``, ``fight``, ``fight_defend`` and ``play_rest``: every rule has one compiled copy.
"""
import numpy as np
from numba import njit

from sim.games.plai.constants import (
    ACT_FAMILY, ACT_PASS, ACT_REGIONAL, ACT_SPECIAL, ACT_TAKEOVER, ACT_VENTURE, CD_ARG,
    CD_EFFECT,
    CD_FLAGS, CD_STRENGTH, CD_TYPE, FL_ADVERSARY, FL_FIGHT_EFFECT, FL_USE_CASE,
    EFFECT_DISCARD_RIVAL, EFFECT_NEGATE, EFFECT_STEAL_RANDOM,
    EFFECT_TARGET_DISCARDS, ERR_CONSERVATION, ERR_POOL_CAP, EV_ACTION, EV_ATTACK,
    EV_BANKRUPT, EV_DEAL, EV_DEFEND, EV_DRAW, EV_DRAWN, EV_EFFECT_DISCARD, EV_END, EV_FIGHT,
    EV_JOIN, EV_NEGATE, EV_PLAY, EV_POOL_EXCESS, EV_RESOLVE, EV_RNG, EV_SPECIAL_LOSS,
    EV_SPOILS, EV_TURN, FIGHT_REGIONAL, FIGHT_TAKEOVER,
    FIGHT_VENTURE, FO_ATT_NEGATES, FO_ATT_STRENGTH, FO_DEF_NEGATES, FO_DEF_STRENGTH,
    FO_REASON, FO_WINNER, MARKET_EVENT, MARK_LEFT, MARK_SEAT, MAX_FIGHT_CARDS, MODE_NONE,
    OUT_MAINTAINERS, OUT_SEAT, OUT_STALEMATE, P_ATTACK, P_DECK, P_DEFENSE, P_DISCARD,
    P_EVENTS, P_FUNDING, P_HAND0, P_POOL, R_FIRST_SEAT, R_FIRST_SEAT_SHIFT, R_HELP_CARDS,
    R_HELP_IN_FOUR,
    R_DEBUG, R_MAX_TURNS, R_NEGATE_SPECIALS, R_PLAYERS, R_POOL_CAP, R_POOL_NEWEST,
    R_REGIONAL_NEXT_PLAYER, R_STARTING_HAND, R_VENTURE_JOINT, SEARCH_ACTION, SEARCH_ATTACK,
    SEARCH_DEFENSE, SIDE_ATTACK,
    SIDE_DEFENSE, CF_ATT, CF_DEF, SCR_CARD_FIGHTS, SCR_JOINT_BUDGET,
    SCR_JOINT_MODE, SCR_STAMP_ATT, SCR_STAMP_DEF,
    S_FIGHTS, S_BLUFFS_CALLED, S_ERROR, S_EVENTS, S_FUND_FAMILY, S_FUND_REGIONAL,
    S_FUND_VENTURE, S_HELP_CARDS, S_MAINT_ATTACKS, S_MAINT_ATTACKS_WON, S_MAINT_FAMILY,
    S_MAX_POOL, S_NEGATES, S_REGIONAL_ATTACKED,
    S_REGIONAL_ATTACK_WON, S_RESHUFFLES, S_SPECIALS, S_TAKEOVERS, S_TAKEOVERS_WON,
    S_TRACE_N, S_TURNS, S_VENTURE_ATTACKED, S_VENTURE_ATTACK_WON, WHY_BLUFF_CALLED,
)
from sim.games.plai.curves_kernel import record_deal, record_end, record_turn
from sim.games.plai.decide_kernel import (
    MASK_IDS, choose_action_s, decide_mode_s, decide_negate, pick_cards_s, pick_help, pick_table,
    worst_pool_card,
)
from sim.games.plai.fight_kernel import resolve_fight, verdict
from sim.games.plai.piles_kernel import (
    State, Tables, copy_state, discard_random_from, draw, enforce_pool_cap, log, move,
    move_all, move_random, new_state, resolve_events, seat_after, shuffle_pile, traced,
    unowned, write_search_log,
)
from sim.games.plai.view_kernel import view_action_options_if_traced, view_piles_if_traced
from sim.core.noalias import NoAliasCompiler
from sim.core.rng_kernel import bounded, seed_game
from sim.core.search_kernel import NO_ASK, any_search, asked, clear_forced


@njit(cache=True, _nrt=False, forceinline=True)
def _count_effect(cards, piles, pile_n, pile, effect):
    """(cards with ``effect`` in the pile, sum of their arguments)."""
    n = 0
    total = 0
    for i in range(pile_n[pile]):
        if piles[pile, i] < 0:
            break   # never taken (decide_kernel.SCALAR_LOOP)
        if cards[CD_EFFECT, piles[pile, i]] == effect:
            n += 1
            total += cards[CD_ARG, piles[pile, i]]
    return n, total


@njit(cache=True, _nrt=False, forceinline=True)
def _tally(scratch, st, side, card, won):
    """Per-card fight counts (fight_stats.FIELDS): ``card`` took part in the current fight
    (S_FIGHTS) on ``side``; a card counts once per fight and side (two copies: once)."""
    stamp = SCR_STAMP_ATT if side == SIDE_ATTACK else SCR_STAMP_DEF
    if scratch[stamp, card] == st[S_FIGHTS]:
        return
    scratch[stamp, card] = st[S_FIGHTS]
    row = SCR_CARD_FIGHTS + (CF_ATT if side == SIDE_ATTACK else CF_DEF)
    scratch[row, card] += 1
    if won:
        scratch[row + 1, card] += 1   # CF_ATT_WON / CF_DEF_WON


@njit(cache=True, _nrt=False, inline="always")
def _tally_played(scratch, st, piles, pile_n, pile, side, won):
    """``_tally`` for every card of a played pile. Ids below MASK_IDS are told apart by a
    bitmask in a register instead of the stamps' loads and stores (a played pile never
    holds a negate card, PLAI-F1, so these never meet the stamps of ``_spend_negates``)."""
    row = SCR_CARD_FIGHTS + (CF_ATT if side == SIDE_ATTACK else CF_DEF)
    seen = np.uint64(0)
    for i in range(pile_n[pile]):
        card = piles[pile, i]
        if card >= MASK_IDS:
            _tally(scratch, st, side, card, won)
            continue
        bit = np.uint64(1) << np.uint64(card)
        if seen & bit:
            continue   # a second copy in this fight
        seen |= bit
        scratch[row, card] += 1
        scratch[row + 1, card] += np.int64(won)   # CF_ATT_WON / CF_DEF_WON


@njit(cache=True, _nrt=False, inline="always")
def _played(cards, piles, pile_n, pile):
    """(total strength, or of the flags) of a side's played cards (PLAI-F3 without effects)."""
    strength = 0
    flags = 0
    for i in range(pile_n[pile]):
        if piles[pile, i] < 0:
            break   # never taken (decide_kernel.SCALAR_LOOP)
        card = np.uint64(piles[pile, i])   # never negative: no wraparound code
        strength += cards[CD_STRENGTH, card]
        flags |= cards[CD_FLAGS, card]
    return strength, flags


@njit(cache=True, _nrt=False, forceinline=True)
def _spend_negate(cards, piles, pile_n, pile, seat, st, trace):
    """Discard one negate card of ``pile`` (PLAI-F2); returns it (-1 if none)."""
    for i in range(pile_n[pile]):
        if cards[CD_EFFECT, piles[pile, i]] == EFFECT_NEGATE:
            card = move(piles, pile_n, pile, i, P_DISCARD)
            log(trace, st, EV_NEGATE, seat, card, 0, 0)
            st[S_NEGATES] += 1
            return card
    return -1


@njit(cache=True, _nrt=False, inline="always")
def _spend_negates(cards, piles, pile_n, pile, n, seat, st, trace, scratch, side, won):
    """Discard ``n`` negate cards of ``pile`` in a fight; each counts for ``side`` (the
    side that played it) in the per-card fight counts."""
    for _ in range(n):
        card = _spend_negate(cards, piles, pile_n, pile, seat, st, trace)
        if card >= 0:
            _tally(scratch, st, side, card, won)


@njit(cache=True, _nrt=False, inline="always")
def _negate_budget(weights, ws, rng, cards, piles, pile_n, hand, rival_pile):
    """D5 in a fight: seeing the rival's revealed cards, negate up to this many effects.
    (The rival's few played cards are looked at first: without an effect there, the hand
    is not scanned; both counts are pure, so the order changes nothing.)"""
    effects, stake = _count_effect(cards, piles, pile_n, rival_pile, EFFECT_DISCARD_RIVAL)
    if effects == 0:
        return 0
    held, _ = _count_effect(cards, piles, pile_n, hand, EFFECT_NEGATE)
    if held == 0 or not decide_negate(weights, ws, rng, stake):
        return 0
    return min(held, effects)


@njit(cache=True, _nrt=False, forceinline=True)
def _joint_negate_budgets(weights, attacker, defender, lead_budget, rng, cards, piles, pile_n,
                          players, scratch):
    """D5 for a joint venture attack: the lead attacker's budget, then each other attacker
    in turn order from the funder decides for itself, up to the defense effects not yet
    covered. Each budget goes to SCR_JOINT_BUDGET; returns the side's total."""
    effects, _ = _count_effect(cards, piles, pile_n, P_DEFENSE, EFFECT_DISCARD_RIVAL)
    scratch[SCR_JOINT_BUDGET, attacker] = lead_budget
    total = lead_budget
    for k in range(1, players):
        s = seat_after(defender, k, players)
        if s == attacker or scratch[SCR_JOINT_MODE, s] == MODE_NONE:
            continue
        budget = 0
        if total < effects:
            budget = min(_negate_budget(weights, s, rng, cards, piles, pile_n, P_HAND0 + s,
                                        P_DEFENSE), effects - total)
        scratch[SCR_JOINT_BUDGET, s] = budget
        total += budget
    return total


@njit(cache=True, _nrt=False, inline="always")
def lead_maintainer(bankrupt, players):
    """D6 is decided by the maintainer who went bankrupt first (lowest seat on a tie)."""
    lead = -1
    for s in range(players):
        if bankrupt[s] >= 0 and (lead < 0 or bankrupt[s] < bankrupt[lead]):
            lead = s
    return lead


@njit(cache=True, _nrt=False, forceinline=True)
def cap_pool(weights, rng, cards, rules, piles, pile_n, bankrupt, st, trace):
    """PLAI-T7: the pool's excess over its cap is discarded at once. ``pool_excess:
    choose``: the lead maintainer's lowest-scoring cards go (D6 keep, the newest of equal
    scores first; the pool keeps its order); ``newest``: the cards that just arrived."""
    if not rules[R_POOL_NEWEST] and pile_n[P_POOL] > rules[R_POOL_CAP]:
        lead = max(lead_maintainer(bankrupt, rules[R_PLAYERS]), 0)
        while pile_n[P_POOL] > rules[R_POOL_CAP]:
            i = worst_pool_card(weights, lead, rng, cards, piles, pile_n)
            card = piles[P_POOL, i]
            for j in range(i, pile_n[P_POOL] - 1):
                piles[P_POOL, j] = piles[P_POOL, j + 1]
            pile_n[P_POOL] -= 1
            piles[P_DISCARD, pile_n[P_DISCARD]] = card
            pile_n[P_DISCARD] += 1
            log(trace, st, EV_POOL_EXCESS, card, 0, 0, 0)
    enforce_pool_cap(piles, pile_n, rules, st, trace)   # newest; and the max-pool counter


@njit(cache=True, _nrt=False, inline="always")
def _own_pile(bankrupt, seat):
    """A startup's hand, or the maintainers' pool for a bankrupt seat (PLAI-T7)."""
    return P_POOL if bankrupt[seat] >= 0 else P_HAND0 + seat


@njit(cache=True, _nrt=False, inline="always")
def _log_played(trace, st, piles, pile_n, pile, side, start, seat):
    """Trace rows of the cards played to ``pile`` from index ``start`` on, by ``seat``."""
    if traced(trace):
        for i in range(start, pile_n[pile]):
            log(trace, st, EV_PLAY, side, piles[pile, i], seat, 0)


@njit(cache=True, _nrt=False, inline="always")
def fight_open(kind, attacker, defender, att_mode, st, trace):
    """A fight begins (PLAI-F): its counter and trace row. The phases below, in order,
    make ``fight``."""
    st[S_FIGHTS] += 1
    log(trace, st, EV_ATTACK, attacker, defender, att_mode, kind)


@njit(cache=True, _nrt=False, forceinline=True)   # see engine_kernel.fight
def attack_cards(attacker, att_mode, weights, picks, rng, cards, piles, pile_n, bankrupt, st,
                 trace):
    """F1/D2: the attacker's cards, face down; returns how many it played."""
    a_hand = _own_pile(bankrupt, attacker)   # the pool in a maintainers' challenge
    n_own = pick_cards_s(weights, attacker, picks, rng, cards, piles, pile_n, a_hand,
                         P_ATTACK, SIDE_ATTACK, att_mode, MAX_FIGHT_CARDS)
    _log_played(trace, st, piles, pile_n, P_ATTACK, SIDE_ATTACK, 0, attacker)
    return n_own


@njit(cache=True, _nrt=False, forceinline=True)
def _joint_attack_cards(attacker, defender, weights, picks, rng, cards, rules, piles, pile_n,
                        st, trace, scratch):
    """venture_attackers: joint: the other attackers' cards, in turn order from the funder
    (an option, off by default: called, not inlined into the game loop)."""
    players = rules[R_PLAYERS]
    for k in range(1, players):   # in turn order from the funder
        s = seat_after(defender, k, players)
        if s != attacker and scratch[SCR_JOINT_MODE, s] != MODE_NONE:
            log(trace, st, EV_JOIN, s, scratch[SCR_JOINT_MODE, s], 0, 0)
            start = pile_n[P_ATTACK]
            pick_cards_s(weights, s, picks, rng, cards, piles, pile_n, P_HAND0 + s,
                         P_ATTACK, SIDE_ATTACK, scratch[SCR_JOINT_MODE, s],
                         MAX_FIGHT_CARDS)
            _log_played(trace, st, piles, pile_n, P_ATTACK, SIDE_ATTACK, start, s)


@njit(cache=True, _nrt=False, forceinline=True)
def _maintainers_help(kind, lead, n_own, weights, rng, cards, rules, piles, pile_n, st, trace):
    """PLAI-T7 / D6: the lead maintainer's help cards for a startup's attack (only once a
    seat is bankrupt; forceinline: see ``fight``)."""
    max_help = rules[R_HELP_CARDS]
    if rules[R_HELP_IN_FOUR]:
        max_help = min(max_help, MAX_FIGHT_CARDS - n_own)
    start = pile_n[P_ATTACK]
    st[S_HELP_CARDS] += pick_help(weights, lead, rng, cards, piles, pile_n, max_help,
                                  kind == FIGHT_TAKEOVER)
    _log_played(trace, st, piles, pile_n, P_ATTACK, SIDE_ATTACK, start, -1)


@njit(cache=True, _nrt=False, inline="always")
def fight_support(kind, attacker, defender, n_own, weights, picks, rng, cards, rules, piles,
                  pile_n, bankrupt, st, trace, scratch):
    """The joint venture's other attackers (venture_attackers: joint) and the maintainers'
    help (PLAI-T7 / D6), after the attacker's own ``n_own`` cards."""
    players = rules[R_PLAYERS]
    joint = kind == FIGHT_VENTURE and rules[R_VENTURE_JOINT] != 0
    if joint:
        _joint_attack_cards(attacker, defender, weights, picks, rng, cards, rules, piles,
                            pile_n, st, trace, scratch)
    lead = lead_maintainer(bankrupt, players)
    # PLAI-T7 / D6: help for a startup's attack (a maintainers' challenge is all pool cards)
    if lead >= 0 and rules[R_HELP_CARDS] > 0 and bankrupt[attacker] < 0:
        _maintainers_help(kind, lead, n_own, weights, rng, cards, rules, piles, pile_n, st,
                          trace)


@njit(cache=True, _nrt=False, inline="always")
def defense_stake(kind, defender, piles, pile_n):
    """What the defender stands to lose: its hand in a takeover, else the funding (D3)."""
    return pile_n[P_HAND0 + defender] if kind == FIGHT_TAKEOVER else pile_n[P_FUNDING]


@njit(cache=True, _nrt=False, forceinline=True)   # see engine_kernel.fight
def defense_cards(kind, defender, weights, picks, rng, cards, piles, pile_n, st, trace):
    """D3: whether and with which cards the defender defends."""
    d_hand = P_HAND0 + defender
    stake = defense_stake(kind, defender, piles, pile_n)
    d_mode = decide_mode_s(weights, defender, rng, cards, piles, pile_n, d_hand, SIDE_DEFENSE,
                           True, stake, 0)
    log(trace, st, EV_DEFEND, defender, d_mode, 0, 0)
    if d_mode != MODE_NONE:
        pick_cards_s(weights, defender, picks, rng, cards, piles, pile_n, d_hand, P_DEFENSE,
                     SIDE_DEFENSE, d_mode, MAX_FIGHT_CARDS)
        log_defense(trace, st, piles, pile_n, defender)


@njit(cache=True, _nrt=False, inline="always")
def log_defense(trace, st, piles, pile_n, defender):
    """The trace rows of the defender's played cards."""
    if traced(trace):
        for i in range(pile_n[P_DEFENSE]):
            log(trace, st, EV_PLAY, SIDE_DEFENSE, piles[P_DEFENSE, i], defender, 0)


@njit(cache=True, _nrt=False, forceinline=True, pipeline_class=NoAliasCompiler)
def fight(kind, attacker, defender, att_mode, weights, picks, rng, cards, rules, piles,
          pile_n, bankrupt, st, trace, scratch, hook=None):
    """PLAI-F1..F5 between two startups; returns the winning side. ``picks`` is
    ``decide_kernel.pick_table(weights, cards)``. Every array argument must be its own
    memory (NoAliasCompiler). ``hook`` (module docstring): the attacker's mode and cards
    (D2) and the defense (D3) may be forced, or asked for (then -1 is returned at once).

    ``forceinline`` (not numba's ``inline="always"``): numba compiles it once, as its own
    function, and LLVM inlines the machine-level code into each caller. numba's inliner
    re-translated every inlined function at every call site into one huge game-loop
    function (94 % of the cold compile, 4.3 GB); a plain call instead costs about 35 ns
    (some 100 words of array arguments), 16 % of a 4-player weighted game."""
    if hook is not None and asked(hook, SEARCH_ATTACK, attacker, SEARCH_ATTACK, kind,
                                  attacker, defender, att_mode):
        return -1
    mode = att_mode
    if hook is not None and hook.forced[SEARCH_ATTACK, 0] >= 0:
        mode = hook.forced[SEARCH_ATTACK, 0]
        write_search_log(trace, st, hook, SEARCH_ATTACK)
    fight_open(kind, attacker, defender, mode, st, trace)
    if hook is not None and hook.forced[SEARCH_ATTACK, 0] >= 0:
        n_own = place_forced(hook, SEARCH_ATTACK, piles, pile_n,
                             _own_pile(bankrupt, attacker), P_ATTACK)
        _log_played(trace, st, piles, pile_n, P_ATTACK, SIDE_ATTACK, 0, attacker)
    else:
        n_own = attack_cards(attacker, att_mode, weights, picks, rng, cards, piles, pile_n,
                             bankrupt, st, trace)
    fight_support(kind, attacker, defender, n_own, weights, picks, rng, cards, rules, piles,
                  pile_n, bankrupt, st, trace, scratch)
    return fight_defend(kind, attacker, defender, weights, picks, rng, cards, rules, piles,
                        pile_n, bankrupt, st, trace, scratch, hook)


@njit(cache=True, _nrt=False, forceinline=True)
def fight_defend(kind, attacker, defender, weights, picks, rng, cards, rules, piles, pile_n,
                 bankrupt, st, trace, scratch, hook):
    """The rest of ``fight`` once the attack is down: D3 (forced or asked for under a
    hook, as the attack), then F2..F5; returns the winning side (-1: asked)."""
    if hook is not None and asked(hook, SEARCH_DEFENSE, defender, SEARCH_DEFENSE, kind,
                                  attacker, defender, 0):
        return -1
    if hook is not None and hook.forced[SEARCH_DEFENSE, 0] >= 0:
        write_search_log(trace, st, hook, SEARCH_DEFENSE)
        mode = hook.forced[SEARCH_DEFENSE, 0]
        log(trace, st, EV_DEFEND, defender, mode, 0, 0)
        if mode != MODE_NONE:
            place_forced(hook, SEARCH_DEFENSE, piles, pile_n, P_HAND0 + defender, P_DEFENSE)
            log_defense(trace, st, piles, pile_n, defender)
    else:
        defense_cards(kind, defender, weights, picks, rng, cards, piles, pile_n, st, trace)
    return fight_close(kind, attacker, defender, weights, rng, cards, rules, piles, pile_n,
                       bankrupt, st, trace, scratch)


@njit(cache=True, _nrt=False, inline="always")
def place_forced(hook, slot, piles, pile_n, src, dst):
    """The cards of a forced fight play (the hook's ``slot``: mode, count, -1, card ids),
    moved by id from ``src`` to ``dst``; returns how many moved."""
    moved = 0
    for c in range(hook.forced[slot, 1]):
        card = hook.forced[slot, 3 + c]
        for i in range(pile_n[src]):
            if piles[src, i] == card:
                move(piles, pile_n, src, i, dst)
                moved += 1
                break
    return moved


@njit(cache=True, _nrt=False, forceinline=True)
def _fight_effects(kind, attacker, defender, weights, rng, cards, rules, piles, pile_n,
                   bankrupt, st, trace, scratch):
    """F2..F4 of a fight with an effect in play (a defended fight, the rare case): the
    negates (D5), the effects, the verdict. Returns (winner, reason, attack strength,
    defense strength). forceinline: see ``fight``."""
    players = rules[R_PLAYERS]
    a_hand = _own_pile(bankrupt, attacker)
    d_hand = P_HAND0 + defender
    joint = kind == FIGHT_VENTURE and rules[R_VENTURE_JOINT] != 0
    defended = pile_n[P_DEFENSE] > 0
    att_neg = _negate_budget(weights, attacker, rng, cards, piles, pile_n, a_hand,
                             P_DEFENSE)
    if joint:
        att_neg = _joint_negate_budgets(weights, attacker, defender, att_neg, rng, cards,
                                        piles, pile_n, players, scratch)
    def_neg = _negate_budget(weights, defender, rng, cards, piles, pile_n, d_hand,
                             P_ATTACK)
    if traced(trace):   # what the differential test needs to replay resolve_fight
        log(trace, st, EV_RESOLVE, att_neg, def_neg, 0, 0)
        for w in range(0, 4, 2):
            log(trace, st, EV_RNG, rng[w] & np.uint64(0xFFFFFFFF), rng[w] >> np.uint64(32),
                rng[w + 1] & np.uint64(0xFFFFFFFF), rng[w + 1] >> np.uint64(32))
    # scratch rows: 0 attack cards removed, 1 defense cards removed, 2 the outcome.
    resolve_fight(cards, piles, P_ATTACK, pile_n[P_ATTACK], piles, P_DEFENSE,
                  pile_n[P_DEFENSE], defended, att_neg, def_neg, rng, scratch, 0, scratch,
                  1, scratch, 2)
    winner = scratch[2, FO_WINNER]
    reason = scratch[2, FO_REASON]
    att_strength = scratch[2, FO_ATT_STRENGTH]
    def_strength = scratch[2, FO_DEF_STRENGTH]
    if joint:   # attacker by attacker in turn order, each up to its own budget
        used = scratch[2, FO_ATT_NEGATES]
        for k in range(1, players):
            s = seat_after(defender, k, players)
            if s == attacker or scratch[SCR_JOINT_MODE, s] != MODE_NONE:
                n = min(used, scratch[SCR_JOINT_BUDGET, s])
                _spend_negates(cards, piles, pile_n, P_HAND0 + s, n, s, st, trace,
                               scratch, SIDE_ATTACK, winner == SIDE_ATTACK)
                used -= n
    else:
        _spend_negates(cards, piles, pile_n, a_hand, scratch[2, FO_ATT_NEGATES], attacker,
                       st, trace, scratch, SIDE_ATTACK, winner == SIDE_ATTACK)
    _spend_negates(cards, piles, pile_n, d_hand, scratch[2, FO_DEF_NEGATES], defender, st,
                   trace, scratch, SIDE_DEFENSE, winner == SIDE_DEFENSE)
    return winner, reason, att_strength, def_strength


@njit(cache=True, _nrt=False, forceinline=True)
def _joint_spoils(attacker, defender, rules, piles, pile_n, st, trace, scratch):
    """A joint venture attack won: the drawn cards are dealt one at a time to the
    attackers in turn order, starting after the funder (the top card first)."""
    players = rules[R_PLAYERS]
    n = pile_n[P_FUNDING]
    while pile_n[P_FUNDING] > 0:
        for k in range(1, players):
            s = seat_after(defender, k, players)
            if pile_n[P_FUNDING] > 0 and (s == attacker
                                          or scratch[SCR_JOINT_MODE, s] != MODE_NONE):
                card = move(piles, pile_n, P_FUNDING, pile_n[P_FUNDING] - 1, P_HAND0 + s)
                log(trace, st, EV_DEAL, s, card, 0, 0)
    log(trace, st, EV_SPOILS, attacker, n, -1, 1)


@njit(cache=True, _nrt=False, forceinline=True)   # see engine_kernel.fight
def fight_close(kind, attacker, defender, weights, rng, cards, rules, piles, pile_n, bankrupt,
                st, trace, scratch):
    """F2..F5 once both sides' cards are down: effects, the verdict, the spoils; returns
    the winning side."""
    a_hand = _own_pile(bankrupt, attacker)
    d_hand = P_HAND0 + defender
    joint = kind == FIGHT_VENTURE and rules[R_VENTURE_JOINT] != 0
    defended = pile_n[P_DEFENSE] > 0
    att_strength, att_flags = _played(cards, piles, pile_n, P_ATTACK)
    def_strength, def_flags = _played(cards, piles, pile_n, P_DEFENSE)
    # Most fights have no effect in play: then no negate is asked for (D5), no card is
    # discarded and no draw made, and resolve_fight would only count the cards counted above.
    effects = defended and ((att_flags | def_flags) & FL_FIGHT_EFFECT) != 0
    if effects:
        winner, reason, att_strength, def_strength = _fight_effects(
            kind, attacker, defender, weights, rng, cards, rules, piles, pile_n, bankrupt, st,
            trace, scratch)
    else:
        att_real = np.int64((att_flags & FL_ADVERSARY) != 0)   # PLAI-F4: a real card shown
        def_real = np.int64((def_flags & FL_USE_CASE) != 0)
        winner, reason = verdict(defended, att_strength, att_real, def_strength, def_real)
    # Per-card fight counts: every played card, the maintainers' help with the attack.
    _tally_played(scratch, st, piles, pile_n, P_ATTACK, SIDE_ATTACK, winner == SIDE_ATTACK)
    _tally_played(scratch, st, piles, pile_n, P_DEFENSE, SIDE_DEFENSE, winner == SIDE_DEFENSE)
    if traced(trace) and effects:
        for i in range(pile_n[P_ATTACK]):
            if scratch[0, i]:
                log(trace, st, EV_EFFECT_DISCARD, SIDE_ATTACK, piles[P_ATTACK, i], 0, 0)
        for i in range(pile_n[P_DEFENSE]):
            if scratch[1, i]:
                log(trace, st, EV_EFFECT_DISCARD, SIDE_DEFENSE, piles[P_DEFENSE, i], 0, 0)
    if reason == WHY_BLUFF_CALLED:
        st[S_BLUFFS_CALLED] += 1
    log(trace, st, EV_FIGHT, winner, att_strength, def_strength, reason)
    # F5: every played card is discarded (those an effect discarded already are, in effect).
    move_all(piles, pile_n, P_ATTACK, P_DISCARD)
    move_all(piles, pile_n, P_DEFENSE, P_DISCARD)
    win_seat = attacker if winner == SIDE_ATTACK else defender
    if kind == FIGHT_TAKEOVER:   # the winner takes the loser's whole remaining hand
        loser_hand = d_hand if winner == SIDE_ATTACK else a_hand
        win_hand = a_hand if winner == SIDE_ATTACK else d_hand
        n = pile_n[loser_hand]
        move_all(piles, pile_n, loser_hand, win_hand)
        log(trace, st, EV_SPOILS, win_seat, n, defender if winner == SIDE_ATTACK else attacker, 0)
        if win_hand == P_POOL:   # a maintainers' challenge won: the pool is capped (T7)
            cap_pool(weights, rng, cards, rules, piles, pile_n, bankrupt, st, trace)
    elif joint and winner == SIDE_ATTACK:
        _joint_spoils(attacker, defender, rules, piles, pile_n, st, trace, scratch)
    else:                        # the winner takes the drawn cards
        n = pile_n[P_FUNDING]
        move_all(piles, pile_n, P_FUNDING, P_HAND0 + win_seat)
        log(trace, st, EV_SPOILS, win_seat, n, -1, 0)
    return winner


@njit(cache=True, _nrt=False, inline="always")
def _draw_into(piles, pile_n, cards, rules, rng, st, trace, bankrupt, seat, dst, n):
    """Draw n times into ``dst``, resolving Market Events at once (PLAI-T3). Returns the
    cards that reached ``dst`` (a Market Event does not, and is not replaced)."""
    got = 0
    for _ in range(n):
        card = draw(piles, pile_n, cards, rules, rng, st, trace, dst)
        if card < 0:
            break
        log(trace, st, EV_DRAWN, seat, card, dst, 0)
        if pile_n[P_EVENTS] > 0:
            resolve_events(piles, pile_n, cards, rules, rng, st, trace, bankrupt, seat, seat)
        else:
            got += 1
    return got


@njit(cache=True, _nrt=False, forceinline=True)   # see engine_kernel.fight
def fund(action, seat, maintainer, weights, rng, cards, rules, piles, pile_n, bankrupt, st,
         trace, scratch):
    """PLAI-T1/T2/T7: family funding (a maintainer's into the pool), regional pitch or
    venture capital: the draws, then for the last two the asks (D2). Returns (attacker,
    its mode); attacker -1 if nobody attacks, and then the funder keeps the cards.

    The fight, if any, is the caller's (``act``); the asks of the other two are
    ``funding_asks``."""
    hand = P_HAND0 + seat
    if maintainer:
        dst = P_POOL
    elif action == ACT_FAMILY:
        dst = hand
    else:
        dst = P_FUNDING
    draws = 1 if action == ACT_FAMILY else (2 if action == ACT_REGIONAL else 3)
    # The trace names each card drawn (EV_DRAWN) and what an event did; EV_DRAW then says
    # how many cards the funding brought (a Market Event is not replaced, PLAI-T3).
    got = _draw_into(piles, pile_n, cards, rules, rng, st, trace, bankrupt, seat, dst, draws)
    if maintainer:
        st[S_MAINT_FAMILY] += 1
        log(trace, st, EV_DRAW, seat, got, ACT_FAMILY, 1)
        cap_pool(weights, rng, cards, rules, piles, pile_n, bankrupt, st, trace)
        return -1, MODE_NONE
    if action == ACT_FAMILY:
        st[S_FUND_FAMILY] += 1
        log(trace, st, EV_DRAW, seat, got, action, 0)
        return -1, MODE_NONE
    log(trace, st, EV_DRAW, seat, pile_n[P_FUNDING], action, 0)
    return funding_asks(action, seat, weights, rng, cards, rules, piles, pile_n, bankrupt,
                        st, scratch)


@njit(cache=True, _nrt=False, forceinline=True)
def funding_asks(action, seat, weights, rng, cards, rules, piles, pile_n, bankrupt, st,
                 scratch):
    """D2 asks of a regional pitch or venture capital (the cards are drawn): who attacks,
    in what mode; the funder keeps the cards if nobody does. Returns (attacker or -1,
    mode). forceinline: see ``fight``."""
    players = rules[R_PLAYERS]
    hand = P_HAND0 + seat
    prize = pile_n[P_FUNDING]
    attacker = -1
    mode = MODE_NONE
    joint = action == ACT_VENTURE and rules[R_VENTURE_JOINT] != 0
    if joint:
        for s in range(players):
            scratch[SCR_JOINT_MODE, s] = MODE_NONE
    next_only = action == ACT_REGIONAL and rules[R_REGIONAL_NEXT_PLAYER] != 0
    for k in range(1, players):
        other = seat_after(seat, k, players)
        if bankrupt[other] >= 0:
            if next_only:
                break   # regional_attacker: next_player: the next seat is bankrupt, nobody
            continue
        other_mode = decide_mode_s(weights, other, rng, cards, piles, pile_n, P_HAND0 + other,
                                   SIDE_ATTACK, True, prize, pile_n[hand])
        if other_mode != MODE_NONE:
            if attacker < 0:
                attacker = other
                mode = other_mode
                if not joint:
                    break
            else:   # venture_attackers: joint: it joins the attacking side
                scratch[SCR_JOINT_MODE, other] = other_mode
        if action == ACT_REGIONAL:
            break   # only the next startup may attack a regional pitch
    if action == ACT_REGIONAL:
        st[S_FUND_REGIONAL] += 1
    else:
        st[S_FUND_VENTURE] += 1
    if attacker < 0:
        move_all(piles, pile_n, P_FUNDING, hand)
    return attacker, mode


@njit(cache=True, _nrt=False, inline="always")
def count_fight(kind, winner, st):
    """The per-game counters of a fight's outcome."""
    won = 1 if winner == SIDE_ATTACK else 0
    if kind == FIGHT_REGIONAL:
        st[S_REGIONAL_ATTACKED] += 1
        st[S_REGIONAL_ATTACK_WON] += won
    elif kind == FIGHT_VENTURE:
        st[S_VENTURE_ATTACKED] += 1
        st[S_VENTURE_ATTACK_WON] += won
    else:
        st[S_TAKEOVERS_WON] += won


@njit(cache=True, _nrt=False, forceinline=False)
def funding(action, seat, weights, picks, rng, cards, rules, piles, pile_n, bankrupt, st,
            trace, scratch):
    """A startup's family, regional pitch or venture capital with its fight, in one call
    (for tests; ``take_turn`` calls ``fund`` and ``fight`` itself)."""
    attacker, mode = fund(action, seat, False, weights, rng, cards, rules, piles, pile_n,
                          bankrupt, st, trace, scratch)
    if attacker >= 0:
        kind = FIGHT_REGIONAL if action == ACT_REGIONAL else FIGHT_VENTURE
        winner = fight(kind, attacker, seat, mode, weights, picks, rng, cards, rules, piles,
                       pile_n, bankrupt, st, trace, scratch)
        count_fight(kind, winner, st)


@njit(cache=True, _nrt=False, forceinline=True)
def play_special(seat, card, target, weights, rng, cards, rules, piles, pile_n, bankrupt, st,
                 trace):
    """PLAI-T1/T7: an action special on a target startup; the target may negate it (D5).
    A maintainer plays from the pool, and what it steals goes to the pool (capped)."""
    own = P_POOL if bankrupt[seat] >= 0 else P_HAND0 + seat
    for i in range(pile_n[own]):
        if piles[own, i] == card:
            move(piles, pile_n, own, i, P_DISCARD)
            break
    st[S_SPECIALS] += 1
    t_hand = P_HAND0 + target
    n = cards[CD_ARG, card]
    if rules[R_NEGATE_SPECIALS]:
        held, _ = _count_effect(cards, piles, pile_n, t_hand, EFFECT_NEGATE)
        if held > 0 and decide_negate(weights, target, rng, n):
            _spend_negate(cards, piles, pile_n, t_hand, target, st, trace)
            return
    if cards[CD_EFFECT, card] == EFFECT_TARGET_DISCARDS:
        lost = discard_random_from(piles, pile_n, t_hand, n, rng)
        log(trace, st, EV_SPECIAL_LOSS, target, lost, -1, 0)
    elif cards[CD_EFFECT, card] == EFFECT_STEAL_RANDOM:
        got = 0
        while got < n and pile_n[t_hand] > 0:
            move_random(piles, pile_n, t_hand, own, rng)
            got += 1
        log(trace, st, EV_SPECIAL_LOSS, target, got, seat, 0)
        if own == P_POOL:
            cap_pool(weights, rng, cards, rules, piles, pile_n, bankrupt, st, trace)


@njit(cache=True, _nrt=False, inline="always")
def take_turn(seat, weights, picks, rng, cards, rules, piles, pile_n, bankrupt, st, trace,
              scratch, left, hook=None):
    """One turn of ``seat`` (PLAI-T1), ``left`` startups being in the game. ``hook``
    (module docstring): its decisions may be forced, or asked for (then the turn stops
    there, ``hook.ask`` set)."""
    maintainer = bankrupt[seat] >= 0
    own = P_POOL if maintainer else P_HAND0 + seat
    log(trace, st, EV_TURN, seat, 1 if maintainer else 0, pile_n[own], pile_n[P_DECK])
    view_piles_if_traced(rules, piles, pile_n, bankrupt, st, trace)
    if hook is not None and asked(hook, SEARCH_ACTION, seat, SEARCH_ACTION, 0, 0, 0, 0):
        return
    view_action_options_if_traced(weights, seat, rng, cards, rules, piles, pile_n, bankrupt,
                                  seat, left, st[S_TURNS], st, trace)
    if hook is not None and hook.forced[SEARCH_ACTION, 0] >= 0:
        write_search_log(trace, st, hook, SEARCH_ACTION)
        action = hook.forced[SEARCH_ACTION, 0]
        card = hook.forced[SEARCH_ACTION, 1]
        target = hook.forced[SEARCH_ACTION, 2]
    else:
        action, card, target = choose_action_s(weights, seat, rng, cards, rules, piles,
                                               pile_n, bankrupt, seat, left, st[S_TURNS], None)
    log(trace, st, EV_ACTION, seat, action, card, target)
    act(seat, action, card, target, weights, picks, rng, cards, rules, piles, pile_n,
        bankrupt, st, trace, scratch, hook)


@njit(cache=True, _nrt=False, forceinline=True)
def takeover_mode(weights, seat, rng, cards, piles, pile_n, own, t_hand):
    """D2 of a takeover (real or bluff; none is not allowed). forceinline: see ``fight``."""
    return decide_mode_s(weights, seat, rng, cards, piles, pile_n, own, SIDE_ATTACK, False,
                         t_hand, t_hand)


@njit(cache=True, _nrt=False, inline="always")
def act(seat, action, card, target, weights, picks, rng, cards, rules, piles, pile_n,
        bankrupt, st, trace, scratch, hook):
    """The chosen action of ``seat``'s turn (PLAI-T1), with its fight if any."""
    if action == ACT_PASS:
        return
    maintainer = bankrupt[seat] >= 0
    kind, attacker, defender, mode = open_action(seat, action, card, target, weights, rng,
                                                 cards, rules, piles, pile_n, bankrupt, st,
                                                 trace, scratch)
    if kind >= 0:
        winner = fight(kind, attacker, defender, mode, weights, picks, rng, cards, rules,
                       piles, pile_n, bankrupt, st, trace, scratch, hook)
        if hook is not None and hook.ask[0] != NO_ASK:
            return
        count_action_fight(kind, winner, maintainer, st)


@njit(cache=True, _nrt=False, inline="always")
def open_action(seat, action, card, target, weights, rng, cards, rules, piles, pile_n,
                bankrupt, st, trace, scratch):
    """``seat``'s action (PLAI-T1, not a pass) up to its fight: a special is played, a
    takeover's mode chosen, a funding taken. Returns the fight it leads to: (kind, FIGHT_*
    or -1 for none; attacker; defender; the attack's mode)."""
    maintainer = bankrupt[seat] >= 0
    own = P_POOL if maintainer else P_HAND0 + seat
    kind = -1          # the fight this action leads to (FIGHT_*), -1 for none
    attacker = seat
    defender = target
    mode = MODE_NONE
    if action == ACT_SPECIAL:
        play_special(seat, card, target, weights, rng, cards, rules, piles, pile_n, bankrupt,
                     st, trace)
    elif action == ACT_TAKEOVER:   # a maintainer's is a challenge (maintainer_attack)
        st[S_TAKEOVERS] += 1
        if maintainer:
            st[S_MAINT_ATTACKS] += 1
        t_hand = pile_n[P_HAND0 + target]
        mode = takeover_mode(weights, seat, rng, cards, piles, pile_n, own, t_hand)
        kind = FIGHT_TAKEOVER
    else:   # a funding; a maintainer's family funding goes into the shared pool (T7)
        attacker, mode = fund(action, seat, maintainer, weights, rng, cards, rules, piles,
                              pile_n, bankrupt, st, trace, scratch)
        if attacker >= 0:
            kind = FIGHT_REGIONAL if action == ACT_REGIONAL else FIGHT_VENTURE
            defender = seat
    return kind, attacker, defender, mode


@njit(cache=True, _nrt=False, inline="always")
def count_action_fight(kind, winner, maintainer, st):
    """An action's fight in the counters: by kind and winner, and a maintainers'
    challenge won."""
    count_fight(kind, winner, st)
    if maintainer and kind == FIGHT_TAKEOVER and winner == SIDE_ATTACK:
        st[S_MAINT_ATTACKS_WON] += 1


@njit(cache=True, _nrt=False, inline="always")
def end_of_turn(rules, piles, pile_n, bankrupt, st, trace, deck_size, left):
    """PLAI-T5 bankruptcies, then (in debug mode) the invariants: card conservation and
    the pool cap (PLAI-T7). ``left`` startups were in the game; returns how many are now."""
    players = rules[R_PLAYERS]
    # Most turns bankrupt nobody: one branch-free pass asks whether a startup's hand is
    # empty, and only then are seats marked and counted.
    empty = False
    for s in range(players):
        if pile_n[P_HAND0 + s] < 0:
            break   # never taken (see decide_kernel.SCALAR_LOOP)
        empty |= (bankrupt[s] < 0) & (pile_n[P_HAND0 + s] == 0)
    if empty:
        left = 0
        for s in range(players):
            if bankrupt[s] < 0 and pile_n[P_HAND0 + s] == 0:
                bankrupt[s] = st[S_TURNS]
                log(trace, st, EV_BANKRUPT, s, 0, 0, 0)
            left += bankrupt[s] < 0
    if rules[R_DEBUG]:   # about 4 % of the run time at 4 players, so only when asked
        if pile_n.sum() != deck_size:
            st[S_ERROR] = ERR_CONSERVATION
        if pile_n[P_POOL] > rules[R_POOL_CAP]:
            st[S_ERROR] = ERR_POOL_CAP
    return left


@njit(cache=True, _nrt=False, forceinline=False)
def setup(deck, cards, rules, rng, piles, pile_n):
    """PLAI-S2: events aside, shuffle, deal, events back, shuffle. Returns the first seat."""
    players = rules[R_PLAYERS]
    first = rules[R_FIRST_SEAT]
    if first < 0:
        first = bounded(rng, players)
    first = (first + rules[R_FIRST_SEAT_SHIFT]) % players   # 0 but in a turn-order replay
    for p in range(pile_n.shape[0]):
        pile_n[p] = 0
    for i in range(deck.shape[0]):
        card = deck[i]
        pile = P_EVENTS if cards[CD_TYPE, card] == MARKET_EVENT else P_DECK
        piles[pile, pile_n[pile]] = card
        pile_n[pile] += 1
    shuffle_pile(rng, piles, P_DECK, pile_n[P_DECK])
    for _ in range(rules[R_STARTING_HAND]):
        for k in range(players):
            if pile_n[P_DECK] > 0:
                move(piles, pile_n, P_DECK, pile_n[P_DECK] - 1,
                     P_HAND0 + seat_after(first, k, players))
    move_all(piles, pile_n, P_EVENTS, P_DECK)
    shuffle_pile(rng, piles, P_DECK, pile_n[P_DECK])
    return first


@njit(cache=True, _nrt=False, inline="always")
def start_game(seed, game_index, deck, cards, rules, state):
    """A game's start on the ``State`` of the game before: its own random stream (seed,
    game index), the counters, no seat bankrupt, the per-game scratch rows cleared, then
    the deal (``setup``). Returns the first seat."""
    piles, pile_n, bankrupt, st, scratch, rng = state
    seed_game(rng, seed, game_index)
    for i in range(st.shape[0]):
        st[i] = 0
    for s in range(bankrupt.shape[0]):
        bankrupt[s] = -1
    for r in range(SCR_CARD_FIGHTS, SCR_STAMP_DEF + 1):   # the joint rows are set when used
        for k in range(scratch.shape[1]):
            scratch[r, k] = 0
    return setup(deck, cards, rules, rng, piles, pile_n)


@njit(cache=True, _nrt=False, inline="always")
def play_game(seed, game_index, deck, tables, state, trace, curves):
    """One game; returns (outcome, winner seat or -1, first seat). Inlined into its
    callers, with the game loop (``game_loop``): a cold compile optimises the game's code
    once, in ``play_games``. It was a no-alias compile of its own; inlined it plays as fast
    (PLAI engine CPU per game 0.985x at 4 players, 0.93x at 3). ``curves``: the chunk's
    per-turn sums (curves_kernel), or None."""
    players = tables.rules[R_PLAYERS]
    first = start_game(seed, game_index, deck, tables.cards, tables.rules, state)
    if curves is not None:   # turn 0: the deal
        record_deal(curves, players, state.pile_n)
    outcome, winner = game_loop(first, players, tables, state, trace, deck.shape[0], None,
                                curves)
    if curves is not None:
        record_end(curves, state.st[S_TURNS], state.st)
    view_piles_if_traced(tables.rules, state.piles, state.pile_n, state.bankrupt, state.st,
                         trace)
    log(trace, state.st, EV_END, outcome, winner, 0, 0)
    return outcome, winner, first


@njit(cache=True, _nrt=False, inline="always")
def game_over(players, bankrupt):
    """(outcome, winner seat or -1) once at most one startup is left (PLAI-T6): the last
    startup wins, or the maintainers when none is left."""
    outcome = OUT_MAINTAINERS
    winner = -1
    for s in range(players):
        if bankrupt[s] < 0:
            outcome = OUT_SEAT
            winner = s
    return outcome, winner


@njit(cache=True, _nrt=False, pipeline_class=NoAliasCompiler, forceinline=False)
def play_rest(seat, left, tables, state, trace, deck_size):
    """``game_loop`` as a compiled function of its own, for the search player's playouts
    (search_kernel.playout): one compiled copy there. Every array argument must be its own
    memory (NoAliasCompiler)."""
    return game_loop(seat, left, tables, state, trace, deck_size, None, None)


@njit(cache=True, _nrt=False, inline="always")
def game_loop(seat, left, tables, state, trace, deck_size, hook, curves):
    """The turns from ``seat``'s (the next to play, ``left`` startups in the game) to the
    end of the game (PLAI-T6); returns (outcome, winner seat or -1). Inlined into
    ``play_game`` (so into ``play_games``): numba optimises and emits a caller's module with
    every compiled callee linked in, so a separate game loop cost a cold compile one more
    pass over the whole game's code (about 1.3 s of the serial tail), and plays no faster
    (engine CPU per game 0.98x at 4 players, 0.99x at 3, against play_rest called).

    ``hook`` (module docstring) None: the engine's games. A search player's: each turn
    starts by noting the seat, the startups and (where a seat searches) a copy of the
    state in it; a turn that stops to ask for a decision ends the loop at once (its
    caller decides, restores the copy and plays the turn again).

    ``curves``: the chunk's per-turn sums (curves_kernel) each turn is added to, or None
    (pruned like ``trace``: the search's games and playouts, a trace)."""
    cards, rules, weights, picks = tables
    piles, pile_n, bankrupt, st, scratch, rng = state
    players = rules[R_PLAYERS]
    outcome = OUT_STALEMATE
    winner = -1
    while st[S_TURNS] < rules[R_MAX_TURNS]:
        if hook is not None:
            turn_start(hook, state, seat, left)
        st[S_TURNS] += 1
        take_turn(seat, weights, picks, rng, cards, rules, piles, pile_n, bankrupt, st, trace,
                  scratch, left, hook)
        if hook is not None and hook.ask[0] != NO_ASK:
            break
        if hook is not None:
            clear_forced(hook)
        before = left
        left = end_of_turn(rules, piles, pile_n, bankrupt, st, trace, deck_size, left)
        if curves is not None:
            record_turn(curves, st[S_TURNS], players, pile_n, st, left, before)
        if left <= 1:   # PLAI-T6
            outcome, winner = game_over(players, bankrupt)
            break
        seat = seat_after(seat, 1, players)
    return outcome, winner


@njit(cache=True, _nrt=False, forceinline=False)
def turn_start(hook, state, seat, left):
    """A turn starts under a hook: what the caller replays it from (the seat, the startups
    and, where a seat searches, a copy of the state), nothing asked yet."""
    hook.marks[MARK_SEAT] = seat
    hook.marks[MARK_LEFT] = left
    hook.ask[0] = NO_ASK
    if any_search(hook):
        copy_state(state, hook.snap)


@njit(cache=True, _nrt=True, nogil=True, forceinline=False)
def play_games(seed, start, deck, cards, rules, weights, out, card_fights, curves):
    """Play games start .. start+len(out)-1 into the RESULT_DTYPE records ``out``, adding
    each turn to ``curves`` (the thread's own sums, curves_kernel.py:
    int64[(horizon + 1) * curves_kernel.ROW]).

    ``card_fights`` (int16[len(out), 4, cards], or with 0 rows when not wanted) gets each
    game's per-card fight counts: [CF_ATT, CF_ATT_WON, CF_DEF, CF_DEF_WON] x card id."""
    players = rules[R_PLAYERS]
    n = deck.shape[0]
    piles, pile_n, bankrupt, st, scratch, rng = new_state(players, n, cards.shape[1])
    trace = np.zeros((0, 6), np.int8)   # no trace, compiled away (tracing)
    deck_c = np.ascontiguousarray(deck)
    cards_c = np.ascontiguousarray(cards)
    rules_c = np.ascontiguousarray(rules)
    weights_c = np.ascontiguousarray(weights)
    pick_keys, pick_scores = pick_table(weights_c, cards_c)
    # The game loop works on unowned views (see piles_kernel.unowned): no atomic reference
    # counting per call. ``owned`` keeps the arrays alive until the loop is done.
    owned = (piles, pile_n, bankrupt, st, scratch, trace, rng, deck_c, cards_c, rules_c,
             weights_c, pick_keys, pick_scores)
    u_piles = unowned(piles)
    u_pile_n = unowned(pile_n)
    u_bankrupt = unowned(bankrupt)
    u_st = unowned(st)
    u_scratch = unowned(scratch)
    u_trace = unowned(trace)
    u_rng = unowned(rng)
    u_deck = unowned(deck_c)
    u_cards = unowned(cards_c)
    u_rules = unowned(rules_c)
    u_weights = unowned(weights_c)
    u_picks = (unowned(pick_keys), unowned(pick_scores))
    u_state = State(u_piles, u_pile_n, u_bankrupt, u_st, u_scratch, u_rng)
    u_tables = Tables(u_cards, u_rules, u_weights, u_picks)
    for i in range(out.shape[0]):
        outcome, winner, first = play_game(seed, start + i, u_deck, u_tables, u_state, u_trace,
                                           curves)
        record(out[i], start + i, players, n, outcome, winner, first, u_pile_n, u_bankrupt,
                u_st)
        if card_fights.shape[0] > 0:
            copy_card_fights(card_fights, i, u_scratch)
    return len(owned)


@njit(cache=True, _nrt=False, forceinline=False)
def copy_card_fights(card_fights, i, scratch):
    """Game i's per-card fight counts (the scratch's SCR_CARD_FIGHTS rows) into
    ``card_fights[i]`` (see ``play_games``)."""
    for f in range(4):
        for k in range(card_fights.shape[2]):
            card_fights[i, f, k] = scratch[SCR_CARD_FIGHTS + f, k]


@njit(cache=True, _nrt=True, forceinline=False)
def trace_game(seed, game_index, deck, cards, rules, weights, trace, out):
    """Replay one game with a trace; returns the number of trace rows written."""
    players = rules[R_PLAYERS]
    n = deck.shape[0]
    state = new_state(players, n, cards.shape[1])
    outcome, winner, first = play_game(seed, game_index, deck,
                                       Tables(cards, rules, weights, pick_table(weights, cards)),
                                       state, trace, None)
    record(out[0], game_index, players, n, outcome, winner, first, state.pile_n,
           state.bankrupt, state.st)
    return state.st[S_TRACE_N]


@njit(cache=True, _nrt=False, forceinline=False)
def record(r, game_index, players, deck_size, outcome, winner, first, pile_n, bankrupt, st):
    r['game_index'] = game_index
    r['players'] = players
    r['outcome'] = outcome
    r['winner'] = winner
    r['first_seat'] = first
    r['turns'] = st[S_TURNS]
    r['deck_size'] = deck_size
    r['fund_family'] = st[S_FUND_FAMILY]
    r['fund_regional'] = st[S_FUND_REGIONAL]
    r['fund_venture'] = st[S_FUND_VENTURE]
    r['regional_attacked'] = st[S_REGIONAL_ATTACKED]
    r['regional_attack_won'] = st[S_REGIONAL_ATTACK_WON]
    r['venture_attacked'] = st[S_VENTURE_ATTACKED]
    r['venture_attack_won'] = st[S_VENTURE_ATTACK_WON]
    r['takeovers'] = st[S_TAKEOVERS]
    r['takeovers_won'] = st[S_TAKEOVERS_WON]
    r['bluffs_called'] = st[S_BLUFFS_CALLED]
    r['specials'] = st[S_SPECIALS]
    r['negates'] = st[S_NEGATES]
    r['events'] = st[S_EVENTS]
    r['help_cards'] = st[S_HELP_CARDS]
    r['maintainer_family'] = st[S_MAINT_FAMILY]
    r['reshuffles'] = st[S_RESHUFFLES]
    r['maintainer_attacks'] = st[S_MAINT_ATTACKS]
    r['maintainer_attacks_won'] = st[S_MAINT_ATTACKS_WON]
    r['deck_left'] = pile_n[P_DECK]
    r['discard_left'] = pile_n[P_DISCARD]
    r['pool_left'] = pile_n[P_POOL]
    r['max_pool'] = st[S_MAX_POOL]
    for s in range(r['hand'].shape[0]):
        r['bankrupt_turn'][s] = bankrupt[s] if s < players else -1
        r['hand'][s] = pile_n[P_HAND0 + s] if s < players else -1
    r['error'] = st[S_ERROR]
