"""PLAI's search player: determinized Monte Carlo over a base strategy, in numba.

At each of its decisions -- the turn's action with its target (D1 + D4), the attack's
mode and cards (D2 cards) and the defense (D3: none, or a mode and its cards) -- the
player lists its options, ranks them the way its base strategy scores them (features.py;
the base's own choice first), keeps the best ``k``, and for each of ``n`` samples of the
hidden information plays every kept option out to the end of the game with the base
strategy in every seat. It takes the option its seat won most often with (the first in
the ranking on ties). The search seat's row of the weight matrix is the base strategy's.

Every game it plays goes through the engine's own turn (engine_kernel.game_loop, with a
hook: sim.core.search_kernel.Decisions): the engine asks for a search seat's decision and
stops; this module decides on the state the turn left (``decide``), forces the choice and
has the engine play the turn again from its start (the hook's ``snap``). A playout starts
from the state at the decision and runs the engine's rest of it with the option forced:
``act`` for an action, ``fight`` for an attack's cards, ``fight_defend`` for a defense,
then ``play_rest`` (the engine's game loop) to the end of the game.

The search's own functions are inlined into its entry points (``inline="always"``, one
call site each): numba optimises a compiled function's code with every compiled callee
linked in, so each level of compiled calls above the playouts cost its cold compile one
more pass over all of them (about 25 s of CPU a level).

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
decision counter) only (sim.core.search_kernel.seed_decision); the game's own stream is
never read or advanced by the search. Within a decision, sample i's rollouts of every
option start from the same generator state (common random numbers), so options are
compared on equal luck.
"""
from collections import namedtuple

import numpy as np
from numba import njit

from sim.core.rng_kernel import next_u64, shuffle
from sim.core.search_kernel import (
    N_EXTRA, NO_ASK, add_option, best_kept, collect_ids, log_row, new_decisions, new_options,
    open_decision, record_kept, seed_decision, top_k,
)
from sim.games.plai.constants import (
    CD_FLAGS, CD_STRENGTH, CD_TYPE, DECISION_WIDTH, EV_END, EV_SEARCH_ARG, EV_SEARCH_CARD,
    EV_SEARCH_CHOICE, EV_SEARCH_OPTION, FIGHT_TAKEOVER, FL_ADVERSARY, FL_BLUFF, MARKET_EVENT,
    MARK_LEFT, MARK_SEAT, MAX_FIGHT_CARDS, MODE_BLUFF, MODE_NONE, MODE_REAL, N_DECISIONS,
    OUT_SEAT, P_ATTACK, P_DECK, P_FUNDING, P_HAND0, P_POOL, R_PLAYERS, SEARCH_ACTION,
    SEARCH_ATTACK, SEARCH_DEFENSE, SEARCH_K, SEARCH_N, SIDE_ATTACK, SIDE_DEFENSE, S_TRACE_N,
    S_TURNS,
)
from sim.games.plai.features import FEATURE_GROUP, G_ACTION, G_ATTACK, G_CARDS, G_DEFEND, NF
from sim.games.plai.decide_kernel import (
    NEG_INF, choose_action_s, fight_playable, mode_powers, mode_score, pick_table, real_type,
    stop_score,
)
from sim.games.plai.engine_kernel import (
    act, copy_card_fights, defense_stake, end_of_turn, fight, fight_defend, game_loop,
    game_over, play_rest, record, start_game,
)
from sim.games.plai.piles_kernel import (
    Tables, copy_state, log, new_state, seat_after, shuffle_pile, traced,
)
from sim.games.plai.view_kernel import view_piles_if_traced

SEARCH_SALT = np.uint64(0x5EA2C4B1D3F0A977)   # the search streams differ from the game's
MAX_OPTIONS = 512
OPT_WIDTH = DECISION_WIDTH         # action or mode, card or card count, target, card ids
BASE_FIRST = 1e300                 # the base strategy's own choice ranks first
# The entries of a recording (REC_KIND; record_decision): the action (D1 + D4) as listed,
# a fight's mode, and a fight's "stop or play the next card", attack and defense apart.
REC_ACTION, REC_ATTACK_MODE, REC_DEFENSE_MODE, REC_ATTACK_STOP, REC_DEFENSE_STOP = range(5)
RECORDED_KINDS = ("action", "attack mode", "defense mode", "attack: stop or play on",
                  "defense: stop or play on")
# The context's numbers (``meta``): the run's seed, the game, peek (tests only) and the
# game's search decisions so far.
M_SEED, M_GAME, M_PEEK, M_DECISIONS = range(4)
N_META = 4
# A search player's work for a batch of games (new_context): the live game's hook, a
# playout's (no search seat: it forces only the option under test), the numbers above,
# the sample's and a playout's states, the options with their ranking and wins, the
# decision's stream, the dealing arrays, a fight option's picks and an empty trace.
Context = namedtuple("Context", "hook playout meta det work options order wins rng counts "
                                "buf taken notrace")


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


@njit(cache=True, _nrt=True, forceinline=False)
def determinize(me, attack_hidden, rng, cards, piles, pile_n, bankrupt, counts, buf):
    """Deal the cards ``me`` cannot see at random again (module docstring), in place.
    Only the multiset of unseen cards is read, by card id, so the result does not depend
    on where the unseen cards were."""
    for p in range(pile_n.shape[0]):
        if _hidden(p, me, attack_hidden, bankrupt):
            for i in range(pile_n[p]):
                counts[piles[p, i]] += 1
    # Market Events go back into the deck, by id, first (they never sit anywhere else)
    k = 0
    for card in range(counts.shape[0]):
        if cards[CD_TYPE, card] == MARKET_EVENT:
            for _ in range(counts[card]):
                piles[P_DECK, k] = card
                k += 1
            counts[card] = 0
    events = k
    m = collect_ids(counts, buf, 0)
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
    # the deck: its Market Events (placed above) and the rest, then shuffled
    while k < pile_n[P_DECK] and j < m:
        piles[P_DECK, k] = buf[j]
        k += 1
        j += 1
    shuffle_pile(rng, piles, P_DECK, pile_n[P_DECK])
    return m + events


@njit(cache=True, inline="always")
def playout(seat, left, me, tables, state, trace, deck_size):
    """The rest of the game after ``seat``'s turn's decision: the end of that turn, then
    every turn with the base strategies (the engine's own game loop, ``play_rest``).
    Returns 1.0 if seat ``me`` wins, else 0.0."""
    players = tables.rules[R_PLAYERS]
    left = end_of_turn(tables.rules, state.piles, state.pile_n, state.bankrupt, state.st,
                       trace, deck_size, left)
    if left <= 1:   # PLAI-T6
        outcome, winner = game_over(players, state.bankrupt)
    else:
        outcome, winner = play_rest(seat_after(seat, 1, players), left, tables, state, trace,
                                    deck_size)
    return 1.0 if outcome == OUT_SEAT and winner == me else 0.0


@njit(cache=True, _nrt=True, forceinline=False)
def _prefixes(W, ws, pick_scores, cards, piles, pile_n, src, side, mode, score_of_mode,
              take_base, options, taken):
    """The plays of ``mode`` that follow the base's greedy pick order (pick_cards_s without
    noise): every legal prefix of it, each scored by the mode's score, its cards' pick
    scores (``pick_scores``: pick_table's, the base's own) and the stop score after them.
    With ``take_base``, the prefix the base stops at ranks first (BASE_FIRST)."""
    rt = real_type(side)
    allow_real = mode == MODE_REAL
    for i in range(pile_n[src]):
        taken[i] = 0
    count = 0
    strength = 0
    has_real = False
    total = score_of_mode
    stopped = False
    start = options.n[0]
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
            row = add_option(options, mode, count, -1, BASE_FIRST if base else total + stop)
            if row >= 0:
                _fill(options.rows, row, piles, pile_n, src, taken, count)
        if best < 0:
            break
        taken[best] = count + 1
        card = piles[src, best]
        strength += cards[CD_STRENGTH, card]
        has_real = has_real or cards[CD_TYPE, card] == rt
        total += best_score
        count += 1
    if count == MAX_FIGHT_CARDS and (mode == MODE_BLUFF or has_real):
        row = add_option(options, mode, count, -1,
                         BASE_FIRST if take_base and not stopped else total)
        if row >= 0:
            _fill(options.rows, row, piles, pile_n, src, taken, count)
    elif take_base and not stopped and options.n[0] > start:
        options.scores[options.n[0] - 1] = BASE_FIRST


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


@njit(cache=True, _nrt=True, forceinline=False)
def card_options(W, ws, pick_scores, cards, piles, pile_n, src, side, allow_none, stake,
                 rival_hand, options, taken):
    """D2 cards (``allow_none`` False: the attack is on) or D3 (none, real, bluff): every
    mode the hand allows, with the prefixes of its base pick order (``_prefixes``); the
    base strategy's own play (its best mode score without noise, then its picks) first."""
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
        row = add_option(options, MODE_NONE, 0, -1, BASE_FIRST if best_mode == MODE_NONE else 0.0)
        for c in range(MAX_FIGHT_CARDS):
            options.rows[row, 3 + c] = -1
    for mode in (MODE_REAL, MODE_BLUFF):
        if (mode == MODE_REAL and not has_real) or (mode == MODE_BLUFF and not has_bluff):
            continue
        _prefixes(W, ws, pick_scores, cards, piles, pile_n, src, side, mode, mode_scores[mode],
                  mode == best_mode, options, taken)
    return options.n[0]


@njit(cache=True, inline="always")
def evaluate(kind, me, turn_seat, left, fight_kind, attacker, defender, tables, state,
             deck_size, ctx):
    """Rank the listed options (ctx.options), keep the best k in ctx.order and add each
    one's wins over n samples into ctx.wins. Returns how many were kept."""
    search, options, order, wins = ctx.hook.search, ctx.options, ctx.order, ctx.wins
    det, work, playout_hook, trace = ctx.det, ctx.work, ctx.playout, ctx.notrace
    kept = top_k(options.scores, options.n[0], search[me, SEARCH_K], order)
    for j in range(kept):
        wins[j] = 0.0
    if kept <= 1:
        return kept   # nothing to choose
    attack_hidden = kind == SEARCH_DEFENSE
    for _ in range(search[me, SEARCH_N]):
        copy_state(state, det)
        if not ctx.meta[M_PEEK]:
            determinize(me, attack_hidden, ctx.rng, tables.cards, det.piles, det.pile_n,
                        det.bankrupt, ctx.counts, ctx.buf)
        for w in range(4):
            det.rng[w] = next_u64(ctx.rng)
        for j in range(kept):
            row = order[j]
            copy_state(det, work)
            if kind == SEARCH_ACTION:   # the engine's action and fight, as in its games
                act(me, options.rows[row, 0], options.rows[row, 1], options.rows[row, 2],
                    tables.weights, tables.picks, work.rng, tables.cards, tables.rules,
                    work.piles, work.pile_n, work.bankrupt, work.st, trace, work.scratch,
                    None)
            else:   # the fight from the decision on, the option forced
                for f in range(DECISION_WIDTH):
                    playout_hook.forced[kind, f] = options.rows[row, f]
                if kind == SEARCH_ATTACK:
                    fight(fight_kind, attacker, defender, options.rows[row, 0], tables.weights,
                          tables.picks, work.rng, tables.cards, tables.rules, work.piles,
                          work.pile_n, work.bankrupt, work.st, trace, work.scratch,
                          playout_hook)
                else:
                    fight_defend(fight_kind, attacker, defender, tables.weights, tables.picks,
                                 work.rng, tables.cards, tables.rules, work.piles, work.pile_n,
                                 work.bankrupt, work.st, trace, work.scratch, playout_hook)
                playout_hook.forced[kind, 0] = -1
            wins[j] += playout(turn_seat, left, me, tables, work, trace, deck_size)
    return kept


@njit(cache=True, inline="always")
def fight_sides(kind, attacker, defender, fight_kind, pile_n, bankrupt):
    """A fight decision's (cards' pile, side, cards at stake, the rival's hand): the
    attacker plays from its hand (the pool for the maintainers) against the defender's
    hand or the funding; the defender from its hand (defense_stake)."""
    if kind == SEARCH_ATTACK:
        src = P_POOL if bankrupt[attacker] >= 0 else P_HAND0 + attacker
        hand = pile_n[P_HAND0 + defender]
        stake = hand if fight_kind == FIGHT_TAKEOVER else pile_n[P_FUNDING]
        return src, SIDE_ATTACK, stake, hand
    return P_HAND0 + defender, SIDE_DEFENSE, -1, 0


@njit(cache=True, inline="always")
def decide(kind, me, turn_seat, left, fight_kind, attacker, defender, tables, state, trace,
           deck_size, ctx, recording=None):
    """One search decision of seat ``me`` on the live state (``turn_seat``'s turn, ``left``
    startups; a fight's kind and sides): returns the row of ctx.options it chose (-1: no
    option listed), with its trace rows in the hook's log when ``trace`` is a trace (and
    the decision in ``recording`` unless None)."""
    cards, rules, weights, picks = tables
    piles, pile_n, bankrupt, st = state.piles, state.pile_n, state.bankrupt, state.st
    options = ctx.options
    options.n[0] = 0
    src, side, stake, rival_hand = fight_sides(kind, attacker, defender, fight_kind, pile_n,
                                               bankrupt)
    if kind == SEARCH_ACTION:
        choose_action_s(weights, me, state.rng, cards, rules, piles, pile_n, bankrupt, me,
                        left, st[S_TURNS], options)
    elif kind == SEARCH_ATTACK:
        card_options(weights, me, picks[1], cards, piles, pile_n, src, side, False,
                     stake, rival_hand, options, ctx.taken)
    else:
        card_options(weights, me, picks[1], cards, piles, pile_n, src, side, True,
                     defense_stake(fight_kind, defender, piles, pile_n), rival_hand, options,
                     ctx.taken)
    if options.n[0] == 0:
        return -1
    meta = ctx.meta
    seed_decision(ctx.rng, meta[M_SEED], meta[M_GAME], meta[M_DECISIONS], SEARCH_SALT)
    meta[M_DECISIONS] += 1
    kept = evaluate(kind, me, turn_seat, left, fight_kind, attacker, defender, tables, state,
                    deck_size, ctx)
    chosen = best_kept(ctx.wins, kept)
    ctx.hook.log_n[kind] = 0
    if kept > 1 and traced(trace):
        _log_search(kind, me, kept, chosen, ctx)
    record_decision(recording, kind, me, left, fight_kind, defender, src, side, stake,
                    rival_hand, kept, chosen, tables, state, ctx)
    return ctx.order[chosen]


@njit(cache=True, _nrt=True, forceinline=False)
def record_decision(recording, kind, me, left, fight_kind, defender, src, side, stake,
                    rival_hand, kept, chosen, tables, state, ctx):
    """Learning only (``recording``: a sim.core.search_kernel.Recording; None compiles to
    nothing): the decision just made, as the base strategy's own choices (REC_*), each
    option as its features (features.py): the options' scores under unit weights (each
    feature's weight 1 in the deciding seat's row, every other 0).

    - An action: the kept options with their means, then up to ``extra`` options not
      played out; features from the engine's own listing (choose_action_s).
    - A fight: the strategy chooses a mode (decide_mode_s), then plays cards one at a
      time in its pick order until the stop option scores higher (pick_cards_s), and the
      search weighs plays along that order. So a fight is recorded as those choices: the
      mode (none, real, bluff: mode_score's features; a mode's value is its best kept
      play's), then, for the chosen mode, each point where the strategy could stop up to
      where the search stopped: stop (stop_score's features) or play the next card of
      the order (its pick features), with the value of stopping there and the best value
      of playing on (NaN when the search did not play that out)."""
    if recording is None or kept <= 1:
        return
    options, meta, order, wins = ctx.options, ctx.meta, ctx.order, ctx.wins
    samples = ctx.hook.search[me, SEARCH_N]
    game = meta[M_GAME]
    cards, piles, pile_n = tables.cards, state.piles, state.pile_n
    unit = np.zeros_like(tables.weights)
    if kind == SEARCH_ACTION:
        picked = np.empty(kept + recording.n[N_EXTRA], np.int64)
        first, count = record_kept(recording, ctx.rng, game, me, REC_ACTION, 0, samples,
                                   order, kept, chosen, wins, options.n[0], picked)
        if first < 0:
            return
        listed = new_options(MAX_OPTIONS, OPT_WIDTH)
        for f in range(NF):
            if FEATURE_GROUP[f] != G_ACTION:
                continue
            unit[me, f] = 1.0
            listed.n[0] = 0
            choose_action_s(unit, me, state.rng, cards, tables.rules, piles, pile_n,
                            state.bankrupt, me, left, state.st[S_TURNS], listed)
            unit[me, f] = 0.0
            for j in range(count):
                recording.features[first + j, f] = listed.scores[picked[j]]
        return
    if kind == SEARCH_DEFENSE:
        stake = defense_stake(fight_kind, defender, piles, pile_n)
    _, _, real_power, bluff_power, _ = mode_powers(cards, piles, pile_n, src, side)
    rows = options.rows
    listed = options.n[0]
    value = np.full(listed, np.nan)
    for j in range(kept):
        value[order[j]] = wins[j] / samples
    best = order[chosen]
    # the mode: each listed mode (listing order: none, real, bluff), valued by its best play
    modes = np.full(3, -1, np.int64)
    mode_value = np.full(3, np.nan)
    n_modes = 0
    for i in range(listed):
        m = rows[i, 0]
        if modes[max(n_modes - 1, 0)] != m:
            modes[n_modes] = m
            n_modes += 1
        if value[i] == value[i] and not value[i] <= mode_value[m]:
            mode_value[m] = value[i]
    mode_group = G_ATTACK if kind == SEARCH_ATTACK else G_DEFEND
    if n_modes > 1:
        taken = 0
        for q in range(n_modes):
            if modes[q] == rows[best, 0]:
                taken = q
        first = open_decision(recording, game, me,
                              REC_ATTACK_MODE if kind == SEARCH_ATTACK else REC_DEFENSE_MODE,
                              0, samples, n_modes, taken)
        if first >= 0:
            for q in range(n_modes):
                recording.values[first + q] = mode_value[modes[q]]
            for f in range(NF):
                if FEATURE_GROUP[f] != mode_group:
                    continue
                unit[me, f] = 1.0
                for q in range(n_modes):
                    if modes[q] != MODE_NONE:
                        recording.features[first + q, f] = mode_score(
                            unit, me, side, modes[q],
                            real_power if modes[q] == MODE_REAL else bluff_power, stake,
                            rival_hand, 0.0)
                unit[me, f] = 0.0
    # stop or play on, along the chosen mode's pick order, up to where the search stopped
    mode = rows[best, 0]
    if mode == MODE_NONE:
        return
    stopped = rows[best, 1]
    longest = best
    for i in range(listed):
        if rows[i, 0] == mode and rows[i, 1] > rows[longest, 1]:
            longest = i
    for i in range(listed):
        step = rows[i, 1]
        if rows[i, 0] != mode or step > stopped or step >= rows[longest, 1]:
            continue
        on = np.nan   # the best value of playing on from here
        for r in range(listed):
            if rows[r, 0] == mode and rows[r, 1] > step and value[r] == value[r] and not (
                    value[r] <= on):
                on = value[r]
        first = open_decision(recording, game, me,
                              REC_ATTACK_STOP if kind == SEARCH_ATTACK else REC_DEFENSE_STOP,
                              0, samples, 2, 0 if step == stopped else 1)
        if first < 0:
            return
        recording.values[first] = value[i]
        recording.values[first + 1] = on
        strength = 0
        for c in range(step):
            strength += cards[CD_STRENGTH, rows[longest, 3 + c]]
        card = rows[longest, 3 + step]
        for f in range(NF):
            if FEATURE_GROUP[f] != G_CARDS:
                continue
            unit[me, f] = 1.0
            _, pick_scores = pick_table(unit, cards)
            recording.features[first, f] = stop_score(unit, me, strength, step)
            recording.features[first + 1, f] = pick_scores[me * 2 + side, card]
            unit[me, f] = 0.0


@njit(cache=True, _nrt=True, forceinline=False)
def _log_search(kind, me, kept, chosen, ctx):
    """Trace only: the options a decision kept, their wins and its choice, as the hook's
    trace rows for the decision (the turn writes them where it takes it)."""
    hook, rows, order, wins = ctx.hook, ctx.options.rows, ctx.order, ctx.wins
    n_samples = hook.search[me, SEARCH_N]
    for j in range(kept):
        row = order[j]
        log_row(hook, kind, EV_SEARCH_OPTION, kind, np.int64(wins[j]), n_samples, j)
        log_row(hook, kind, EV_SEARCH_ARG, rows[row, 0], rows[row, 1], rows[row, 2], kind)
        if kind != SEARCH_ACTION:
            for c in range(rows[row, 1]):
                log_row(hook, kind, EV_SEARCH_CARD, rows[row, 3 + c], 0, 0, 0)
    log_row(hook, kind, EV_SEARCH_CHOICE, kind, chosen, me, kept)


@njit(cache=True, inline="always")
def decide_asked(tables, state, trace, deck_size, ctx, recording):
    """The decision the engine's turn asked for (ctx.hook.ask), by search, as the hook's
    forced choice for the turn played again: the option's row; without one, an attack
    in the mode chosen before with no cards, no defense."""
    hook = ctx.hook
    kind, me = hook.ask[0], hook.ask[1]
    row = decide(kind, me, hook.marks[MARK_SEAT], hook.marks[MARK_LEFT], hook.ask[2],
                 hook.ask[3], hook.ask[4], tables, state, trace, deck_size, ctx, recording)
    for f in range(DECISION_WIDTH):
        hook.forced[kind, f] = ctx.options.rows[row, f] if row >= 0 else -1
    if row < 0:
        hook.forced[kind, 0] = hook.ask[5] if kind == SEARCH_ATTACK else MODE_NONE
        hook.forced[kind, 1] = 0


@njit(cache=True, _nrt=True, forceinline=False)
def new_context(search, seed, peek, deck_size, players, n_ids, log_rows):
    """A search player's work for a batch of games (Context); ``log_rows``: trace rows per
    decision (0 without a trace)."""
    meta = np.zeros(N_META, np.int64)
    meta[M_SEED] = seed
    meta[M_PEEK] = peek
    hook = new_decisions(search, N_DECISIONS, DECISION_WIDTH,
                         new_state(players, deck_size, n_ids), log_rows)
    playout_hook = new_decisions(np.zeros_like(search), N_DECISIONS, DECISION_WIDTH,
                                 new_state(players, deck_size, n_ids), 0)
    return Context(hook, playout_hook, meta, new_state(players, deck_size, n_ids),
                   new_state(players, deck_size, n_ids), new_options(MAX_OPTIONS, OPT_WIDTH),
                   np.zeros(MAX_OPTIONS, np.int64), np.zeros(MAX_OPTIONS),
                   np.zeros(4, np.uint64), np.zeros(n_ids, np.int64),
                   np.zeros(deck_size, np.int64), np.zeros(deck_size, np.int64),
                   np.zeros((0, 6), np.int8))


@njit(cache=True, inline="always")
def play_game_search(seed, game_index, deck, tables, state, trace, ctx, recording):
    """``engine_kernel.play_game`` with search seats (``search[s, SEARCH_ON]``), their
    decisions into ``recording`` unless None; returns (outcome, winner, first seat, search
    decisions made)."""
    players = tables.rules[R_PLAYERS]
    first = start_game(seed, game_index, deck, tables.cards, tables.rules, state)
    ctx.meta[M_GAME] = game_index
    ctx.meta[M_DECISIONS] = 0
    hook = ctx.hook
    hook.ask[0] = NO_ASK
    seat, left = first, players
    while True:
        outcome, winner = game_loop(seat, left, tables, state, trace, deck.shape[0], hook,
                                    None)
        if hook.ask[0] == NO_ASK:
            break
        decide_asked(tables, state, trace, deck.shape[0], ctx, recording)
        copy_state(hook.snap, state)   # the turn again from its start, the choice forced
        seat, left = hook.marks[MARK_SEAT], hook.marks[MARK_LEFT]
    view_piles_if_traced(tables.rules, state.piles, state.pile_n, state.bankrupt, state.st,
                         trace)
    log(trace, state.st, EV_END, outcome, winner, 0, 0)
    return outcome, winner, first, ctx.meta[M_DECISIONS]


@njit(cache=True, _nrt=True, nogil=True, forceinline=False)
def play_games_search(seed, start, deck, cards, rules, W, search, peek, out, card_fights,
                      decisions, recording=None):
    """``engine_kernel.play_games`` with search seats; ``decisions[i]`` gets game i's
    number of search decisions; ``recording``: None, or a Recording the search seats'
    decisions go into (record_decision)."""
    players = rules[R_PLAYERS]
    n = deck.shape[0]
    state = new_state(players, n, cards.shape[1])
    tables = Tables(cards, rules, W, pick_table(W, cards))
    ctx = new_context(search, seed, peek, n, players, cards.shape[1], 0)
    for i in range(out.shape[0]):
        outcome, winner, first, made = play_game_search(seed, start + i, deck, tables, state,
                                                        ctx.notrace, ctx, recording)
        record(out[i], start + i, players, n, outcome, winner, first, state.pile_n,
               state.bankrupt, state.st)
        decisions[i] = made
        if card_fights.shape[0] > 0:
            copy_card_fights(card_fights, i, state.scratch)


@njit(cache=True, _nrt=True, forceinline=False)
def trace_game_search(seed, game_index, deck, cards, rules, W, search, trace, out):
    """``engine_kernel.trace_game`` with search seats (their options in the trace)."""
    players = rules[R_PLAYERS]
    n = deck.shape[0]
    state = new_state(players, n, cards.shape[1])
    tables = Tables(cards, rules, W, pick_table(W, cards))
    k = 0
    for s in range(search.shape[0]):
        k = max(k, search[s, SEARCH_K])
    ctx = new_context(search, seed, 0, n, players, cards.shape[1],
                      1 + k * (2 + MAX_FIGHT_CARDS))
    outcome, winner, first, _ = play_game_search(seed, game_index, deck, tables, state, trace,
                                                 ctx, None)
    record(out[0], game_index, players, n, outcome, winner, first, state.pile_n,
           state.bankrupt, state.st)
    return state.st[S_TRACE_N]
