"""The Peer-to-Peer game as numba kernels: a whole game, its rounds (P2P-R1, R5), scoring
(P2P-W) and the entry points the engine is called through.

The kernels, one module per part of the rules (each a ``*_kernel.py`` module, so the
compile-cache hash covers it):
- state_kernel: the state layout (piles, scratch rows, scalars, counters, trace events)
  and its primitives (push / pop, trace events, noise, used marks, venture effects,
  new_state, copy_state, the debug invariants);
- setup_kernel: setup (P2P-S, D1);
- commit_kernel: D2, the commit search (which hand subset for which customer);
- assist_kernel: the legality of an assist and the contest comparison (P2P-R2a, R2c, E);
- contest_kernel: reveals (R2b), the marker holder's retarget (D3), a contest loser's effects;
- place_kernel: the won customer's destination (R2d, D4) and venture overflow (D5);
- round_kernel: the assist loop (R2, with its R2c contest step), the refresh (R3) and
  unhappy customers (R4, E6);
- engine_kernel (this module): the round loop, scoring, the result row.

A game is ``start_game`` (seed, reset, setup), then its rounds (``play_from``: R1 deal,
the assist loop, R3-R5), on a ``State`` (state_kernel.new_state; its layout is described
there) with the game's ``Tables`` (cards, rules, seats, weights); a copy of the state
(state_kernel.copy_state) made between rounds plays on with ``play_rounds`` exactly as
the original would. The search player (search_kernel) plays its games and its playouts
through ``play_on``: the same rounds, with its ``hook`` (sim.core.search_kernel), from a
state copied at the start of a pass too.

The trace: ``trace`` is None for a game without one (run_games): numba prunes every
``trace is not None`` branch when it compiles that version, so a plain run compiles no
trace code at all, and the traced version (play_traced, an int64[rows, TRACE_FIELDS]
matrix; events beyond its rows are dropped) is compiled only when a trace is asked for.
Every trace test in the kernels is written ``trace is not None and ...`` for that reason
(numba prunes only a test on the argument itself).

Random draws, in order, all from the game's own counter-based stream: (1) shuffle of the
non-S cards, (2) per dealt seat the D1 noise (only if weighted), (3) shuffle of the deck
after the revealed cards return, (4) team A's then team B's S-card shuffle, (5) the first
team marker, then during play: strategy noise, `develop deck` shuffles and group-discard
reshuffles, in the order they happen. The customer deck is the deck shuffled in (3).
"""
from numba import njit

from sim.games.peer_to_peer.constants import (
    ALL_LOSE, CD_VALUE, DRAW, END_DECK_EMPTY, FATE_CUSTOMER_DECK, FATE_GROUP_A, FATE_OUT,
    FATE_ROW, FATE_SCORE_A, FATE_UNHAPPY, FATE_VENTURE_A, R_DEAL_IN_FIRST_ROUND, R_DOMAIN_RANK,
    R_END_WHEN, R_MAX_ROUNDS, R_NEW_CUSTOMERS, R_PLAYERS, R_UNHAPPY_LIMIT, SEAT_TEAM, SOLO_WIN,
    TIMEOUT, WHY_DOMAIN, WHY_HIGHER_CARD, WHY_MARKER, WHY_TIEBREAK, WIN_A, WIN_B,
)
from sim.games.peer_to_peer.curves_kernel import record_round
from sim.games.peer_to_peer.place_kernel import place_customer
from sim.games.peer_to_peer.round_kernel import any_unhappy, assist_loop, refresh, unhappy
from sim.games.peer_to_peer.setup_kernel import setup_game
from sim.games.peer_to_peer.view_kernel import view_piles, view_unhappy_cause
from sim.games.peer_to_peer.why_kernel import (
    ASSIST_END, ROUND_START, count_unhappy_cause, snapshot_hands,
)
from sim.games.peer_to_peer.state_kernel import (
    EV_DEAL, EV_END, EV_MARKER, N_PILES, P_CUST, P_GDECK, P_OUT, P_ROW, P_SCORE, P_SEAT,
    P_UNHAPPY, SCR_KEPT, S_EFFECTS_KNOWN, S_ERROR, S_FIRST_MARKER, S_MARKER, S_ROUND, S_TRACE_N,
    TRACE_FIELDS, T_ASSISTS, T_CONTESTS, T_CONTESTS_WON, T_SENT_DECK, T_SENT_SCORE,
    T_SENT_VENTURE, T_UNHAPPY_CAUSE, T_UNPAIRED_WON, T_WHY_WON, check_invariants, event, new_state, pop, push, remove_at,
    venture_effects,
)
# The state layout, re-exported: trace.py and the tests read it from here.
from sim.games.peer_to_peer.state_kernel import (  # noqa: F401
    State, Tables,
    EV_ASIDE, EV_CONTEST, EV_COULD, EV_DECLARE, EV_DRAW, EV_EFFECT, EV_HAND, EV_OVERFLOW,
    EV_PASS, EV_PLACE, EV_PLAY, EV_REFRESH, EV_RESHUFFLE, EV_RETARGET, EV_RETURN, EV_SAVE,
    EV_SEARCH_ARG, EV_SEARCH_CARD, EV_SEARCH_CHOICE, EV_SEARCH_OPTION,
    EV_SEAT_START, EV_SETUP, EV_UNHAPPY, EV_VIEW_CAUSE, EV_VIEW_OPTION, EV_VIEW_PILE, EV_WIN,
    N_FROWS, N_ROWS, N_STATE, N_STATS,
    PILE_WIDTH_MIN, P_DISC, P_HAND, S_SHIFT_CARD, S_SHIFT_K, S_WILD,
)
from sim.core.rng_kernel import seed_game


# ---------------------------------------------------------------- a whole game

@njit(cache=True, _nrt=False, forceinline=False)
def _scoring(cards, rules, pile, pile_n):
    """P2P-W1/W2: returns the winner code for a two-team game."""
    key = pile[SCR_KEPT, :12].reshape((2, 6))  # score, value sum, then domain counts by rank
    key[:] = 0
    for team in range(2):
        key[team, 0] = pile_n[P_SCORE + team]
        for i in range(pile_n[P_SCORE + team]):
            c = pile[P_SCORE + team, i]
            key[team, 1] += cards[CD_VALUE, c]
            rank = rules[R_DOMAIN_RANK + cards[0, c]]
            if rank >= 0:
                key[team, 2 + 3 - rank] += 1
    for k in range(6):
        if key[0, k] != key[1, k]:
            return WIN_A if key[0, k] > key[1, k] else WIN_B
    return DRAW


NO_WINNER = -1  # end_round: the game goes on
ASKED = -2      # play_from: stopped for a decision its hook asks the caller for


@njit(cache=True, _nrt=False, inline='always')
def start_game(tables, seed, game_index, trace, state):
    """Seed game ``game_index``'s random stream, reset the state and set the game up (P2P-S)."""
    cards, rules, seats, w_a, w_b = tables
    rng, pile, pile_n, arrival, used, st, stats, starts, _ = state
    seed_game(rng, seed, game_index)
    pile_n[:] = 0
    arrival[:] = 0
    used[:] = 0
    st[:] = 0
    stats[:] = 0
    setup_game(cards, rules, seats, w_a, w_b, rng, pile, pile_n, arrival, st, starts, trace)


@njit(cache=True, _nrt=False, inline='always')
def play_from(tables, state, trace, debug, first, begun, hook, curves):
    """Rounds ``first`` .. the end of the game: R1 deal, R2 assists, R3 refresh, R4 unhappy
    customers, R5 the end of the game or the marker passes. Returns (winner code, last
    round), or (ASKED, the round) when the hook stopped the assist loop for a decision
    (sim.core.search_kernel). ``begun``: round ``first`` has begun, the state is at the
    start of one of its passes (a rerun or a playout); ``hook`` None: the engine's games.
    ``curves``: the chunk's per-round sums (curves_kernel) each round is added to, or None
    (pruned like ``trace``: the search's games and playouts, a trace)."""
    rules = tables.rules
    pile, pile_n, arrival, used, st = state.pile, state.pile_n, state.arrival, state.used, state.st
    winner = TIMEOUT
    rnd = first
    for rnd in range(first, rules[R_MAX_ROUNDS] + 1):
        resume = rnd == first and begun
        if not resume:
            start_round(rules, trace, pile, pile_n, arrival, used, st, rnd)
        done = assist_loop(tables, state, trace, debug, hook, resume)
        if hook is not None and not done:
            return ASKED, rnd
        ended = end_round(tables, trace, debug, state, rnd)
        if curves is not None:
            record_round(curves, rnd, pile_n, state.stats)
        if ended != NO_WINNER:
            winner = ended
            break
    return winner, rnd


@njit(cache=True, _nrt=False, forceinline=False)
def play_on(tables, state, trace, debug, first, begun, hook):
    """``play_from`` as a compiled function of its own: the search player's games and its
    playouts call it (one compiled copy for both)."""
    return play_from(tables, state, trace, debug, first, begun, hook, None)


@njit(cache=True, _nrt=False, inline='always')
def start_round(rules, trace, pile, pile_n, arrival, used, st, rnd):
    """The start of round ``rnd``: the marker event, R1's new customers, this round's
    effects unused (P2P-E)."""
    st[S_ROUND] = rnd
    if trace is not None and trace.shape[0]:
        event(trace, st, rnd, EV_MARKER, st[S_MARKER], 0, 0, 0)
    if rnd > 1 or rules[R_DEAL_IN_FIRST_ROUND]:  # R1
        for _ in range(rules[R_NEW_CUSTOMERS]):
            if pile_n[P_CUST] == 0:
                break
            c = pop(pile, pile_n, P_CUST)
            push(pile, pile_n, P_ROW, c)
            arrival[c] = rnd
            if trace is not None and trace.shape[0]:
                event(trace, st, rnd, EV_DEAL, c, 0, 0, 0)
    if trace is not None and trace.shape[0]:
        view_piles(pile, pile_n, arrival, st, trace)
    used[:] = 0
    st[S_EFFECTS_KNOWN] = 0
    st[S_EFFECTS_KNOWN + 1] = 0
    snapshot_hands(pile, pile_n, 1 if rules[R_PLAYERS] == 1 else 2, ROUND_START)


@njit(cache=True, _nrt=False, inline='always')
def end_round(tables, trace, debug, state, rnd):
    """After the assist loop of round ``rnd``: R3 refresh, R4 unhappy customers, R5 the end
    of the game (its winner code) or the marker passes (NO_WINNER)."""
    cards, rules, seats, w_a, w_b = tables
    rng, pile, pile_n, arrival, used, st, stats, _, _ = state
    solo = rules[R_PLAYERS] == 1
    # R4 decides from the row alone, which R3 leaves as it is; the hands before R3 are
    # those the causes of unhappy customers ask about (why_kernel)
    doomed = any_unhappy(rules, pile, pile_n, arrival, rnd)   # most rounds have none
    if doomed:
        snapshot_hands(pile, pile_n, 1 if solo else 2, ASSIST_END)
    for team in range(1 if solo else 2):  # R3
        refresh(cards, rules, seats, rng, pile, pile_n, used, st, team, trace)
    if doomed:  # R4, then why each customer that turned unhappy was lost
        before = pile_n[P_UNHAPPY]
        unhappy(cards, rules, seats, w_a, w_b, rng, pile, pile_n, arrival, used, st, trace)
        for i in range(before, pile_n[P_UNHAPPY]):
            count_unhappy_cause(cards, rules, seats, pile, pile_n, used, stats,
                                pile[P_UNHAPPY, i])
            if trace is not None and trace.shape[0]:
                view_unhappy_cause(cards, rules, seats, pile, pile_n, used, st,
                                   pile[P_UNHAPPY, i], trace)
    if debug:
        check_invariants(cards, rules, seats, pile, pile_n, st)
    if pile_n[P_UNHAPPY] >= rules[R_UNHAPPY_LIMIT]:  # R5
        return ALL_LOSE
    if pile_n[P_CUST] == 0 and (rules[R_END_WHEN] == END_DECK_EMPTY or pile_n[P_ROW] == 0):
        return SOLO_WIN if solo else _scoring(cards, rules, pile, pile_n)
    if not solo:  # R5: the marker passes to the other team (there is none in solo)
        st[S_MARKER] = 1 - st[S_MARKER]
    return NO_WINNER


@njit(cache=True, _nrt=False, forceinline=False)
def play_rounds(tables, trace, debug, state):
    """Play on from a state after round st[S_ROUND] (a copy, say) until the game ends;
    returns (winner code, the last round played). Not on the engine's path (_play runs
    the same rounds in its own copy of play_from), so it is compiled only when called."""
    return play_from(tables, state, trace, debug, state.st[S_ROUND] + 1, False, None, None)


@njit(cache=True, _nrt=True, forceinline=False)
def play_game(tables, seed, game_index, out, fates, trace, debug):
    """Play one game; write its result row into ``out`` (a record) and ``fates``.

    Returns the number of trace events written (0 when ``trace`` has no rows)."""
    return _play(tables, seed, game_index, out, fates, trace, debug,
                 new_state(tables.cards.shape[1]), None)


@njit(cache=True, _nrt=False, inline='always')
def _play(tables, seed, game_index, out, fates, trace, debug, state, curves):
    start_game(tables, seed, game_index, trace, state)
    if curves is not None:
        record_round(curves, 0, state.pile_n, state.stats)
    winner, rnd = play_from(tables, state, trace, debug, 1, False, None, curves)
    finish_game(tables, state, trace, game_index, winner, rnd, out, fates)
    return state.st[S_TRACE_N]


@njit(cache=True, _nrt=False, inline='always')
def finish_game(tables, state, trace, game_index, winner, rnd, out, fates):
    """The game's end: its trace event and its result row (``out``, ``fates``)."""
    st, pile_n = state.st, state.pile_n
    if trace is not None and trace.shape[0]:
        view_piles(state.pile, pile_n, state.arrival, st, trace)
        event(trace, st, rnd, EV_END, winner, pile_n[P_SCORE], pile_n[P_SCORE + 1], 0)
    _write_result(tables.cards, tables.rules, tables.seats, state.pile, pile_n, st, state.stats,
                  state.starts, game_index, winner, rnd, out, fates)


@njit(cache=True, _nrt=False, forceinline=False)
def _write_result(cards, rules, seats, pile, pile_n, st, stats, starts, game_index, winner, rnd, out,
                  fates):
    out.game_index = game_index
    out.players = rules[R_PLAYERS]
    out.winner = winner
    out.first_marker = st[S_FIRST_MARKER]
    out.rounds = rnd
    out.unhappy = pile_n[P_UNHAPPY]
    out.score_a = pile_n[P_SCORE]
    out.score_b = pile_n[P_SCORE + 1]
    for team in range(2):
        value = 0
        for i in range(pile_n[P_SCORE + team]):
            value += cards[CD_VALUE, pile[P_SCORE + team, i]]
        if team == 0:
            out.value_a = value
        else:
            out.value_b = value
    out.assists_a = stats[T_ASSISTS]
    out.assists_b = stats[T_ASSISTS + 1]
    out.contests = stats[T_CONTESTS]
    out.contests_won_a = stats[T_CONTESTS_WON]
    out.contests_won_b = stats[T_CONTESTS_WON + 1]
    out.contests_unpaired_won_a = stats[T_UNPAIRED_WON]
    out.contests_unpaired_won_b = stats[T_UNPAIRED_WON + 1]
    out.sent_score_a = stats[T_SENT_SCORE]
    out.sent_score_b = stats[T_SENT_SCORE + 1]
    out.sent_venture_a = stats[T_SENT_VENTURE]
    out.sent_venture_b = stats[T_SENT_VENTURE + 1]
    out.sent_deck_a = stats[T_SENT_DECK]
    out.sent_deck_b = stats[T_SENT_DECK + 1]
    out.start_card_0 = starts[0]
    out.start_card_1 = starts[1]
    out.start_card_2 = starts[2]
    out.start_card_3 = starts[3]
    out.start_card_4 = starts[4]
    out.start_card_5 = starts[5]
    out.error = st[S_ERROR]
    out.contests_higher_won_a = stats[T_WHY_WON + 2 * (WHY_HIGHER_CARD - 1)]
    out.contests_higher_won_b = stats[T_WHY_WON + 2 * (WHY_HIGHER_CARD - 1) + 1]
    out.contests_tiebreak_won_a = stats[T_WHY_WON + 2 * (WHY_TIEBREAK - 1)]
    out.contests_tiebreak_won_b = stats[T_WHY_WON + 2 * (WHY_TIEBREAK - 1) + 1]
    out.contests_domain_won_a = stats[T_WHY_WON + 2 * (WHY_DOMAIN - 1)]
    out.contests_domain_won_b = stats[T_WHY_WON + 2 * (WHY_DOMAIN - 1) + 1]
    out.contests_marker_won_a = stats[T_WHY_WON + 2 * (WHY_MARKER - 1)]
    out.contests_marker_won_b = stats[T_WHY_WON + 2 * (WHY_MARKER - 1) + 1]
    c = T_UNHAPPY_CAUSE   # the closest team's cause, then team A's, then team B's
    out.unhappy_deck = stats[c]
    out.unhappy_draw = stats[c + 1]
    out.unhappy_capacity = stats[c + 2]
    out.unhappy_choice = stats[c + 3]
    out.unhappy_deck_a = stats[c + 4]
    out.unhappy_draw_a = stats[c + 5]
    out.unhappy_capacity_a = stats[c + 6]
    out.unhappy_choice_a = stats[c + 7]
    out.unhappy_deck_b = stats[c + 8]
    out.unhappy_draw_b = stats[c + 9]
    out.unhappy_capacity_b = stats[c + 10]
    out.unhappy_choice_b = stats[c + 11]
    # Fates: where each card ended.
    for p in range(N_PILES):
        if p == P_CUST:
            code = FATE_CUSTOMER_DECK
        elif p == P_ROW:
            code = FATE_ROW
        elif p == P_UNHAPPY:
            code = FATE_UNHAPPY
        elif p == P_OUT:
            code = FATE_OUT
        elif p >= P_SEAT:
            code = FATE_VENTURE_A + seats[SEAT_TEAM, p - P_SEAT]
        elif p >= P_SCORE:
            code = FATE_SCORE_A + (p - P_SCORE)
        else:
            code = FATE_GROUP_A + (p - P_GDECK) % 2
        for i in range(pile_n[p]):
            fates[pile[p, i]] = code


@njit(cache=True, nogil=True, _nrt=False, forceinline=False)
def run_games(tables, seed, start, out, fates, debug, state, curves):
    """Play games start .. start+len(out)-1 (serial, GIL released: callers use threads) on
    one ``new_state(n_cards)`` (one per thread), adding each round to ``curves`` (the
    thread's own sums, curves_kernel.py: int64[(horizon + 1) * curves_kernel.ROW]).

    The game (_play) is inlined here, so its code is optimised and emitted by LLVM once:
    as a kernel of its own it was compiled for itself and again inside this one (numba
    links a callee's code into its caller's), about 8 % of the cold compile."""
    for i in range(out.shape[0]):
        # trace None: every trace branch is pruned when numba compiles this version
        _play(tables, seed, start + i, out[i], fates[i], None, debug, state, curves)


@njit(cache=True, _nrt=True, forceinline=False)
def play_traced(tables, seed, game_index, out, fates, trace, debug):
    """One game with its trace buffer filled; returns the number of events."""
    return play_game(tables, seed, game_index, out[0], fates[0], trace, debug)


# The names the scenario tests (tests/support/p2p_state.py) and other callers use for the kernels
# that moved out of this module.
_setup = setup_game
_assist_loop = assist_loop
_refresh = refresh
_unhappy = unhappy
_place = place_customer
_check = check_invariants
_venture_effects = venture_effects
_remove_at = remove_at
