"""Setup of a Peer-to-Peer game (P2P-S1..S6, D1), as a numba kernel.

Its random draws are the first of a game (engine_kernel's docstring lists them in order):
the shuffle of the non-S cards, each dealt seat's D1 noise, the customer deck's shuffle,
the teams' S-card shuffles and the first team marker.
"""
import numpy as np
from numba import njit

from sim.games.peer_to_peer.constants import (
    CD_EFFECT, CD_KIND, CD_START, CD_VALUE, EFFECT_NONE, MARKER_A, MARKER_B,
    MARKER_RANDOM_OTHER, MAX_SEATS,
    R_FIRST_MARKER, R_HAND_SIZE, R_INITIAL_ROW, R_PLAYERS, R_SOLO_SPARE_START,
    R_UNCHOSEN_VENTURES, SEAT_DEALT, SEAT_TEAM, SOLO_SPARE_CUSTOMERS, UNCHOSEN_ASIDE, VENTURE,
)
from sim.games.peer_to_peer.features import V_HAS_EFFECT, V_NOISE, V_VALUE
from sim.games.peer_to_peer.state_kernel import (
    EV_ASIDE, EV_DEAL, EV_DRAW, EV_SEAT_START, EV_SETUP, P_CUST, P_GDECK, P_HAND, P_OUT, P_ROW,
    P_SEAT, SCR_DECK, SCR_KEPT, S_FIRST_MARKER, S_MARKER, event, feature_noise, pop, push,
)
from sim.core.rng_kernel import shuffle, uniform


@njit(cache=True, _nrt=False, forceinline=False)
def setup_game(cards, rules, seats, w_a, w_b, rng, pile, pile_n, arrival, st, starts, trace):
    n_cards = cards.shape[1]
    solo = rules[R_PLAYERS] == 1
    # S2: S cards aside; shuffle the rest; reveal until each dealt seat has seen 2 ventures.
    deck = pile[SCR_DECK]
    n_deck = 0
    for c in range(n_cards):
        if cards[CD_START, c] < 0:
            deck[n_deck] = c
            n_deck += 1
    shuffle(rng, deck, n_deck)
    kept = pile[SCR_KEPT]
    kept[:] = 0
    pos = 0
    for s in range(MAX_SEATS):
        starts[s] = -1
        if seats[SEAT_TEAM, s] < 0 or seats[SEAT_DEALT, s] == 0:
            continue
        w = w_a if seats[SEAT_TEAM, s] == 0 else w_b
        first = -1
        second = -1
        while second < 0:  # validation guarantees enough venture cards
            c = deck[pos]
            pos += 1
            if cards[CD_KIND, c] == VENTURE:
                if first < 0:
                    first = c
                else:
                    second = c
        best = first
        best_score = -np.inf
        for k in range(2):  # D1
            c = first if k == 0 else second
            has_effect = 1.0 if cards[CD_EFFECT, c] != EFFECT_NONE else 0.0
            value = float(cards[CD_VALUE, c])
            noise = feature_noise(w, 0, V_NOISE, rng)
            sc = 0.0  # weights . features over the non-zero features, in feature order
            if has_effect != 0.0:
                sc += w[V_HAS_EFFECT] * has_effect
            if value != 0.0:
                sc += w[V_VALUE] * value
            if noise != 0.0:
                sc += w[V_NOISE] * noise
            if sc > best_score:
                best_score = sc
                best = c
        unchosen = second if best == first else first
        kept[best] = 1
        starts[s] = best
        push(pile, pile_n, P_SEAT + s, best)
        if trace is not None and trace.shape[0]:
            event(trace, st, 0, EV_SEAT_START, s, best, unchosen, 0)
        if rules[R_UNCHOSEN_VENTURES] == UNCHOSEN_ASIDE:  # S2: only group cards go back
            kept[unchosen] = 1
            push(pile, pile_n, P_OUT, unchosen)
            if trace is not None and trace.shape[0]:
                event(trace, st, 0, EV_ASIDE, s, unchosen, 0, 0)
    # Every revealed card not kept (or set aside) returns; the deck is shuffled (S2) and
    # becomes the customer deck (S5) once the S cards are in the group decks.
    for i in range(n_deck):
        if kept[deck[i]] == 0:
            push(pile, pile_n, P_CUST, deck[i])
    spare_to_customers = solo and rules[R_SOLO_SPARE_START] == SOLO_SPARE_CUSTOMERS
    if spare_to_customers:  # S3 solo: team B's S cards join the customer deck
        for c in range(n_cards):
            if cards[CD_START, c] == 1:
                push(pile, pile_n, P_CUST, c)
    shuffle(rng, pile[P_CUST], pile_n[P_CUST])
    # S3: each team's S cards shuffled into its group deck; solo: team B's are out (or
    # already customers).
    for team in range(2):
        if solo and team == 1:
            if not spare_to_customers:
                for c in range(n_cards):
                    if cards[CD_START, c] == 1:
                        push(pile, pile_n, P_OUT, c)
            continue
        for c in range(n_cards):
            if cards[CD_START, c] == team:
                push(pile, pile_n, P_GDECK + team, c)
        shuffle(rng, pile[P_GDECK + team], pile_n[P_GDECK + team])
    # S4: group hands.
    for team in range(2 - solo):
        for _ in range(rules[R_HAND_SIZE]):
            if pile_n[P_GDECK + team] == 0:
                break
            push(pile, pile_n, P_HAND + team, pop(pile, pile_n, P_GDECK + team))
            if trace is not None and trace.shape[0]:
                event(trace, st, 0, EV_DRAW, team, pile[P_HAND + team, pile_n[P_HAND + team] - 1], 0, 0)
    if trace is not None and trace.shape[0]:
        event(trace, st, 0, EV_SETUP, pile_n[P_CUST], pile_n[P_GDECK], pile_n[P_GDECK + 1], 0)
    # S5: the first customers.
    for _ in range(rules[R_INITIAL_ROW]):
        if pile_n[P_CUST] == 0:
            break
        c = pop(pile, pile_n, P_CUST)
        push(pile, pile_n, P_ROW, c)
        arrival[c] = 1
        if trace is not None and trace.shape[0]:
            event(trace, st, 1, EV_DEAL, c, 0, 0, 0)
    # S6: the first team marker.
    if solo or rules[R_FIRST_MARKER] == MARKER_A:
        st[S_MARKER] = 0
    elif rules[R_FIRST_MARKER] == MARKER_B:
        st[S_MARKER] = 1
    else:  # random; MARKER_RANDOM_OTHER (a replay's swap): the same draw, the other team
        st[S_MARKER] = 1 if uniform(rng) >= 0.5 else 0
        if rules[R_FIRST_MARKER] == MARKER_RANDOM_OTHER:
            st[S_MARKER] = 1 - st[S_MARKER]
    st[S_FIRST_MARKER] = st[S_MARKER]
