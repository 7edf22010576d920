"""Card movement between piles, drawing, Market Events and the trace (numba kernels).

Every card location is a row of ``piles`` (see constants.P_*), with its size in
``pile_n``; the top of a pile is its last entry. Removing from the middle of a pile moves
the pile's last card into the gap: hands have no order in PLAI, only sizes.
``st`` holds the per-game counters (constants.S_*); ``trace`` is an int32 matrix (with no
rows for a test that wants none), or an empty int8 matrix when the game is played without
one: then numba compiles the trace writes away (``tracing``).
"""
from collections import namedtuple

import numba
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from sim.games.plai.constants import (
    CD_ARG, CD_EFFECT, CD_TYPE, EFFECT_ALL_DISCARD, EFFECT_ALL_DRAW, EFFECT_RICH_DISCARD,
    EV_EVENT_GAIN, EV_EVENT_LOSS, EV_MARKET_EVENT, EV_POOL_EXCESS, EV_RESHUFFLE,
    MARKET_EVENT, N_FIGHT_OUT, N_SCRATCH, N_STATS, P_DECK, P_DISCARD, P_EVENTS, P_HAND0,
    P_POOL, R_PLAYERS, R_POOL_CAP, R_RESHUFFLE, S_EVENTS, S_MAX_POOL, S_RESHUFFLES, S_TRACE_N,
    S_TURNS,
)
from sim.core.rng_kernel import bounded, bounded_of, step


@intrinsic
def _as_voidptr(typingctx, address):
    """An integer address as a ``void*`` (for ``numba.carray``)."""
    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)
    return types.voidptr(address), codegen


# One game's state: every pile, their sizes, each seat's bankruptcy turn (-1: a startup),
# the counters (constants.S_*), the scratch rows (constants.SCR_*: a fight's outcome, the
# per-card fight counts) and the game's random stream.
State = namedtuple("State", "piles pile_n bankrupt st scratch rng")
# What never changes during a game: the card table, the rules vector, the weight matrix
# (a row per seat) and its pick table (decide_kernel.pick_table).
Tables = namedtuple("Tables", "cards rules weights picks")


@njit(cache=True, _nrt=True, forceinline=False)
def new_state(players, deck_size, n_ids):
    """One game's ``State``, allocated once per batch (each game resets it). ``piles`` has
    a row per location (constants.P_*, a hand per seat) as wide as the deck; ``scratch``
    (constants.SCR_*) is as wide as the widest of its uses (a fight's outcome, the deck,
    the card ids ``n_ids``). The engine (engine_kernel.play_games, trace_game) and the
    search player (its games and its work copies of the state) all allocate through here."""
    return State(np.zeros((P_HAND0 + players, deck_size), np.int16),
                 np.zeros(P_HAND0 + players, np.int64), np.zeros(players, np.int64),
                 np.zeros(N_STATS, np.int64),
                 np.zeros((N_SCRATCH, max(N_FIGHT_OUT, deck_size, n_ids)), np.int64),
                 np.zeros(4, np.uint64))


@njit(cache=True, _nrt=False, forceinline=False)
def copy_state(src, dst):
    """The game state ``src`` into ``dst`` (a State of the same shapes): a copy plays on
    exactly as the original would."""
    for p in range(src.pile_n.shape[0]):
        dst.pile_n[p] = src.pile_n[p]
        for i in range(src.pile_n[p]):
            dst.piles[p, i] = src.piles[p, i]
    for s in range(src.bankrupt.shape[0]):
        dst.bankrupt[s] = src.bankrupt[s]
    for i in range(src.st.shape[0]):
        dst.st[i] = src.st[i]
    for r in range(src.scratch.shape[0]):
        for i in range(src.scratch.shape[1]):
            dst.scratch[r, i] = src.scratch[r, i]
    for i in range(src.rng.shape[0]):
        dst.rng[i] = src.rng[i]


@njit(cache=True, inline="always")
def unowned(a):
    """A view of the C-contiguous array ``a`` that numba does not reference-count.

    numba increments and decrements (atomically) the reference count of every array
    argument of every call that is not inlined; in the engine's call tree that was about a
    third of the run time. Calls on an unowned view skip the atomics (its meminfo is
    null). The caller must keep ``a`` itself alive, by using it after the last use of the
    view: numba frees an array after its variable's last use. Inlined: play_games takes
    views of seven array types, each a compile of its own otherwise (about 1.4 s cold)."""
    return numba.carray(_as_voidptr(a.ctypes.data), a.shape, a.dtype)


def tracing(trace):
    """Is ``trace`` a trace matrix (int32)? The untraced engine passes an empty int8 matrix
    instead: decided by the type, when numba compiles, so that version has no trace writes
    at all (some 60 of them were inlined into the game loop, each behind a test)."""
    return trace.dtype == np.int32


@overload(tracing)
def _tracing(trace):
    on = trace.dtype == types.int32   # a constant of each compiled version
    return lambda trace: on


def only_traced(kernel):
    """A function for kernels to call in place of ``kernel`` (whose last argument is the
    trace): ``kernel(...)`` where the game writes a trace, and for the untraced engine's
    int8 matrix nothing, decided when numba compiles. Behind a plain ``if traced(trace)``
    numba still types the call, so the untraced engine would compile a kernel it never
    runs (the viewer's listings: about 4.5 s of a 22 s cold compile)."""
    def call(*args):   # run as Python (numba's JIT disabled): the same choice at run time
        if tracing(args[-1]) and args[-1].shape[0] > 0:
            kernel(*args)

    @overload(call)
    def _call(*args):
        if args[-1].dtype != types.int32:
            return lambda *args: None

        def run(*args):
            if args[-1].shape[0] > 0:
                kernel(*args)
        return run
    return call


@njit(cache=True, _nrt=False, inline="always")
def traced(trace):
    """Does this game write a trace? (An int32 matrix with rows; False at compile time for
    the int8 no-trace matrix.)"""
    return tracing(trace) and trace.shape[0] > 0


@njit(cache=True, _nrt=False, forceinline=True)
def log(trace, st, code, a, b, c, d):
    """Append one trace row (no-op when the game writes no trace). Not inlined by numba
    (some 60 call sites each re-translated it into the game loop: a large share of the
    cold compile); LLVM inlines it, and in the no-trace version it is empty."""
    if not traced(trace):
        return
    n = st[S_TRACE_N]
    if n >= trace.shape[0]:
        return  # full: Python reports the trace as cut short
    trace[n, 0] = st[S_TURNS]
    trace[n, 1] = code
    trace[n, 2] = a
    trace[n, 3] = b
    trace[n, 4] = c
    trace[n, 5] = d
    st[S_TRACE_N] = n + 1


@njit(cache=True, _nrt=False, forceinline=False)
def write_search_log(trace, st, hook, slot):
    """Trace only: the rows of the search decision in ``slot`` of the turn's hook (the
    options it kept, their results and its choice), where the turn takes it."""
    for r in range(hook.log_n[slot]):
        log(trace, st, hook.log[slot, r, 0], hook.log[slot, r, 1], hook.log[slot, r, 2],
            hook.log[slot, r, 3], hook.log[slot, r, 4])


@njit(cache=True, _nrt=False, forceinline=False)
def shuffle_pile(rng, piles, pile, n):
    """Fisher-Yates shuffle of ``piles[pile, :n]`` in place, exactly as
    ``sim.rng_kernel.shuffle`` (from the back), without making a row view. The generator
    state stays in local variables: through ``rng`` every draw would load and store it
    (numba cannot tell that ``piles`` does not overlap it), a chain of memory round trips."""
    s0, s1, s2, s3 = rng[0], rng[1], rng[2], rng[3]
    for i in range(n - 1, 0, -1):
        x, s0, s1, s2, s3 = step(s0, s1, s2, s3)
        j = bounded_of(x, i + 1)
        tmp = piles[pile, i]
        piles[pile, i] = piles[pile, j]
        piles[pile, j] = tmp
    rng[0], rng[1], rng[2], rng[3] = s0, s1, s2, s3


@njit(cache=True, _nrt=False, inline="always")
def seat_after(seat, k, players):
    """``(seat + k) % players`` for 0 <= seat, k < players, without the integer division
    (tens of cycles, and the turn loop, the funding asks and every Market Event step
    through seats this way)."""
    s = seat + k
    return s - players if s >= players else s


@njit(cache=True, _nrt=False, inline="always")
def move(piles, pile_n, src, i, dst):
    """Move the card at index ``i`` of pile ``src`` onto pile ``dst``; returns it."""
    card = piles[src, i]
    last = pile_n[src] - 1
    piles[src, i] = piles[src, last]
    pile_n[src] = last
    piles[dst, pile_n[dst]] = card
    pile_n[dst] += 1
    return card


@njit(cache=True, _nrt=False, forceinline=True)
def move_random(piles, pile_n, src, dst, rng):
    """Move a card chosen uniformly at random from ``src`` (which must not be empty)."""
    return move(piles, pile_n, src, bounded(rng, pile_n[src]), dst)


@njit(cache=True, _nrt=False, inline="always")
def move_all(piles, pile_n, src, dst):
    """Move every card of ``src`` onto ``dst`` as ``move`` would one by one, top card
    first (``dst`` gets them in reverse order), in one copy loop with the pile sizes in
    locals: ``move`` stores and reloads both sizes per card, as numba cannot tell that
    ``pile_n`` and ``piles`` do not overlap."""
    n = pile_n[src]
    base = pile_n[dst]
    for k in range(n):
        card = piles[src, n - 1 - k]
        if card < 0:
            break   # never taken (decide_kernel.SCALAR_LOOP)
        piles[dst, base + k] = card
    pile_n[dst] = base + n
    pile_n[src] = 0


@njit(cache=True, _nrt=False, forceinline=True)
def refill_deck(rng, piles, pile_n):
    """PLAI-T4: the discard pile becomes the (empty) deck and is shuffled. The cards go
    over top card first (``move_all``: the deck holds the discard pile reversed)."""
    move_all(piles, pile_n, P_DISCARD, P_DECK)
    shuffle_pile(rng, piles, P_DECK, pile_n[P_DECK])


@njit(cache=True, _nrt=False, inline="always")
def draw(piles, pile_n, cards, rules, rng, st, trace, dst):
    """PLAI-T4: draw the top card into ``dst``; refill from the discard when the deck is
    empty. A Market Event goes to the P_EVENTS stack instead (PLAI-T3): the caller must
    then call ``resolve_events``. Returns the card, or -1 if nothing could be drawn."""
    if pile_n[P_DECK] == 0:
        if rules[R_RESHUFFLE] == 0 or pile_n[P_DISCARD] == 0:
            return -1
        refill_deck(rng, piles, pile_n)
        st[S_RESHUFFLES] += 1
        log(trace, st, EV_RESHUFFLE, pile_n[P_DECK], 0, 0, 0)
    top = pile_n[P_DECK] - 1
    if cards[CD_TYPE, piles[P_DECK, top]] == MARKET_EVENT:
        return move(piles, pile_n, P_DECK, top, P_EVENTS)
    return move(piles, pile_n, P_DECK, top, dst)


@njit(cache=True, _nrt=False, forceinline=True)
def enforce_pool_cap(piles, pile_n, rules, st, trace):
    """PLAI-T7: excess pool cards are discarded at once; the newest ones are the excess."""
    while pile_n[P_POOL] > rules[R_POOL_CAP]:
        card = move(piles, pile_n, P_POOL, pile_n[P_POOL] - 1, P_DISCARD)
        log(trace, st, EV_POOL_EXCESS, card, 0, 0, 0)
    if pile_n[P_POOL] > st[S_MAX_POOL]:
        st[S_MAX_POOL] = pile_n[P_POOL]


@njit(cache=True, _nrt=False, forceinline=True)
def discard_random_from(piles, pile_n, pile, n, rng):
    """Discard ``n`` random cards of ``pile`` (fewer if it holds fewer); returns how many."""
    lost = 0
    while lost < n and pile_n[pile] > 0:
        move_random(piles, pile_n, pile, P_DISCARD, rng)
        lost += 1
    return lost


@njit(cache=True, _nrt=False, forceinline=True)   # see engine_kernel.fight
def resolve_events(piles, pile_n, cards, rules, rng, st, trace, bankrupt, first_seat, drawer):
    """PLAI-T3: resolve the Market Event waiting in P_EVENTS, then discard it.

    Events affect startups only (the pool is the maintainers'), in turn order from
    ``first_seat`` (the seat whose turn it is)."""
    players = rules[R_PLAYERS]
    while pile_n[P_EVENTS] > 0:
        pile_n[P_EVENTS] -= 1
        event = piles[P_EVENTS, pile_n[P_EVENTS]]
        st[S_EVENTS] += 1
        log(trace, st, EV_MARKET_EVENT, event, drawer, 0, 0)
        effect = cards[CD_EFFECT, event]
        arg = cards[CD_ARG, event]
        for k in range(players):
            seat = seat_after(first_seat, k, players)
            if bankrupt[seat] >= 0:
                continue
            hand = P_HAND0 + seat
            if effect == EFFECT_ALL_DRAW:
                got = 0
                for _ in range(arg):
                    card = draw(piles, pile_n, cards, rules, rng, st, trace, hand)
                    if card < 0:
                        break
                    if cards[CD_TYPE, card] == MARKET_EVENT:
                        # Reading of T3: an event drawn while another resolves is
                        # discarded without effect and not replaced. Resolving it could
                        # cycle forever once the deck holds only events.
                        move(piles, pile_n, P_EVENTS, pile_n[P_EVENTS] - 1, P_DISCARD)
                        log(trace, st, EV_MARKET_EVENT, card, seat, 1, 0)
                    else:
                        got += 1
                log(trace, st, EV_EVENT_GAIN, seat, got, 0, 0)
            elif effect == EFFECT_ALL_DISCARD:
                lost = discard_random_from(piles, pile_n, hand, arg, rng)
                log(trace, st, EV_EVENT_LOSS, seat, lost, 0, 0)
            elif effect == EFFECT_RICH_DISCARD:
                if pile_n[hand] >= arg:
                    lost = discard_random_from(piles, pile_n, hand, pile_n[hand] // 2, rng)
                    log(trace, st, EV_EVENT_LOSS, seat, lost, 0, 0)
        piles[P_DISCARD, pile_n[P_DISCARD]] = event
        pile_n[P_DISCARD] += 1
