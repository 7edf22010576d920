"""Why a customer turned unhappy (P2P-R4), as numba kernels: the causes of "everyone loses".

For each customer that turns unhappy, and for each team, the first true statement of:

- DECK: no subset of all the group cards the team owns (group deck, discard and hand)
  could assist it: the card file cannot reach it;
- DRAW: the team's cards could, its hand at the start of that round could not;
- CAPACITY: the hand at the round's start could, but by the end of the team's assist loop
  the cards (or the effects) that could were gone: to other customers, or spent on a lost
  contest;
- CHOICE: the team passed, at the end of the assist loop, while an assist of it was legal.

The customer's own cause is the furthest of its teams' (CHOICE > CAPACITY > DRAW > DECK):
the cause for the team that came closest to serving it.

"Could assist" reads the assist rules (P2P-R2a, E) as reachable sums: some non-empty subset
of the cards whose values add up to the customer's value, each card counting its value or,
a `boost` card, its value plus its boost; with a card of the customer's domain (or `any`,
or a `dual_domain` card naming it) unless the team holds a `wild_domain` venture; with a
`shift k` venture, any sum within k of the value. The venture effects are those of the
team's ventures when the customer turns unhappy. For DECK, DRAW and CAPACITY every effect
counts (a round starts with all unused); for CHOICE only those still unused at the end of
the assist loop. (One simplification: a shift that would take the highest card below 0 is
not excluded.)

The engine keeps two snapshots of each team's hand per round in the scratch row SCR_HANDS
(the round's start: ``snapshot_hands`` from engine_kernel.start_round; the end of the
assist loop: from end_round, only in a round where a customer may turn unhappy) and
classifies each customer that R4 moved to the unhappy pile (engine_kernel.end_round) with
a 0/1 knapsack over the sums up to its value (row SCR_SUMS): a few hundred additions per
team, only when a customer turns unhappy.
"""
from numba import njit

from sim.games.peer_to_peer.constants import (
    ANY, CD_ARG, CD_DOMAIN, CD_EFFECT, CD_KIND, CD_VALUE, EFFECT_BOOST, EFFECT_DUAL_DOMAIN,
    EFFECT_SHIFT, EFFECT_WILD_DOMAIN, MAX_SEATS, R_PLAYERS, SEAT_TEAM, VENTURE,
)
from sim.games.peer_to_peer.state_kernel import (
    HAND_END, HAND_START, P_DISC, P_GDECK, P_HAND, P_SEAT, SCR_HANDS, SCR_SUMS, T_UNHAPPY_CAUSE,
)

DECK, DRAW, CAPACITY, CHOICE = 0, 1, 2, 3
N_CAUSES = 4


@njit(cache=True, _nrt=False, forceinline=False)
def snapshot_hands(pile, pile_n, n_teams, slot):
    """Copy each team's group hand into SCR_HANDS slot ``slot + team`` (HAND_START or
    HAND_END), the count first."""
    hands = pile[SCR_HANDS]
    quarter = hands.shape[0] // 4
    for team in range(n_teams):
        base = (slot + team) * quarter
        n = min(pile_n[P_HAND + team], quarter - 1)
        hands[base] = n
        for i in range(n):
            hands[base + 1 + i] = pile[P_HAND + team, i]


REACHED, MATCHED = 1, 2   # bits of a sum in the SCR_SUMS row


@njit(cache=True, _nrt=False, inline='always')
def _clear(sums, top):
    for s in range(top + 1):
        sums[s] = 0


@njit(cache=True, _nrt=False, inline='always')
def _add_card(cards, used, c, domain, unused_only, sums, top):
    """Card ``c`` joins the cards whose sums ``sums[0..top]`` holds (REACHED: a non-empty
    subset adds up to it; MATCHED: one with a card of ``domain``): a 0/1 knapsack step, the
    card counting its value or, a usable `boost`, its value plus the boost."""
    value = cards[CD_VALUE, c]
    effect = cards[CD_EFFECT, c]
    usable = not unused_only or used[c] == 0
    d = cards[CD_DOMAIN, c]
    match = (domain == ANY or d == domain or d == ANY
             or (effect == EFFECT_DUAL_DOMAIN and cards[CD_ARG, c] == domain and usable))
    boosted = value + cards[CD_ARG, c] if effect == EFFECT_BOOST and usable else -1
    for s in range(top, -1, -1):   # downwards: each sum below s still without this card
        got = 0
        for v in (value, boosted):
            if v < 0 or v > s:
                continue
            if v == s:
                got |= REACHED | (MATCHED if match else 0)
            below = sums[s - v]   # (v = 0: sums[s] itself, not yet updated)
            if below & REACHED:
                got |= REACHED | (MATCHED if match or below & MATCHED else 0)
        sums[s] |= got


@njit(cache=True, _nrt=False, forceinline=False)
def _reaches(cards, used, seats, pile, pile_n, team, cust, unused_only, sums):
    """Do these reachable sums assist ``cust`` (module docstring), with the team's venture
    effects (only unused ones if ``unused_only``)?"""
    wild = False
    shift_k = 0
    for s in range(MAX_SEATS):
        if seats[SEAT_TEAM, s] != team:
            continue
        for i in range(pile_n[P_SEAT + s]):
            c = pile[P_SEAT + s, i]
            if cards[CD_KIND, c] != VENTURE or (unused_only and used[c] != 0):
                continue
            if cards[CD_EFFECT, c] == EFFECT_WILD_DOMAIN:
                wild = True
            elif cards[CD_EFFECT, c] == EFFECT_SHIFT:
                shift_k = max(shift_k, cards[CD_ARG, c])
    target = cards[CD_VALUE, cust]
    need = REACHED if wild else MATCHED
    for s in range(max(0, target - shift_k), _top(sums, cards, cust, shift_k) + 1):
        if sums[s] & need:
            return True
    return False


@njit(cache=True, _nrt=False, inline='always')
def _top(sums, cards, cust, shift_k):
    """The largest sum that matters: the customer's value plus the shift (within the row)."""
    return min(cards[CD_VALUE, cust] + shift_k, sums.shape[0] - 1)


@njit(cache=True, _nrt=False, inline='always')
def _shift_reach(cards, seats, pile, pile_n, team):
    """The strongest `shift` of the team's ventures, used or not (the widest sum needed)."""
    k = 0
    for s in range(MAX_SEATS):
        if seats[SEAT_TEAM, s] != team:
            continue
        for i in range(pile_n[P_SEAT + s]):
            c = pile[P_SEAT + s, i]
            if cards[CD_KIND, c] == VENTURE and cards[CD_EFFECT, c] == EFFECT_SHIFT:
                k = max(k, cards[CD_ARG, c])
    return k


@njit(cache=True, _nrt=False, forceinline=False)
def _hand_reaches(cards, used, seats, pile, pile_n, team, cust, slot, unused_only, top):
    """Could the team's hand snapshot ``slot`` (HAND_START / HAND_END) assist ``cust``?"""
    hands = pile[SCR_HANDS]
    sums = pile[SCR_SUMS]
    base = (slot + team) * (hands.shape[0] // 4)
    domain = cards[CD_DOMAIN, cust]
    _clear(sums, top)
    for i in range(hands[base]):
        _add_card(cards, used, hands[base + 1 + i], domain, unused_only, sums, top)
    return _reaches(cards, used, seats, pile, pile_n, team, cust, unused_only, sums)


@njit(cache=True, _nrt=False, forceinline=False)
def team_cause(cards, seats, pile, pile_n, used, team, cust):
    """DECK, DRAW, CAPACITY or CHOICE: why ``team`` did not serve customer ``cust``."""
    domain = cards[CD_DOMAIN, cust]
    sums = pile[SCR_SUMS]
    top = _top(sums, cards, cust, _shift_reach(cards, seats, pile, pile_n, team))
    _clear(sums, top)
    for p in (P_GDECK + team, P_DISC + team, P_HAND + team):
        for i in range(pile_n[p]):
            _add_card(cards, used, pile[p, i], domain, False, sums, top)
    if not _reaches(cards, used, seats, pile, pile_n, team, cust, False, sums):
        return DECK
    if not _hand_reaches(cards, used, seats, pile, pile_n, team, cust, HAND_START, False, top):
        return DRAW
    if not _hand_reaches(cards, used, seats, pile, pile_n, team, cust, HAND_END, True, top):
        return CAPACITY
    return CHOICE


@njit(cache=True, _nrt=False, forceinline=False)
def count_unhappy_cause(cards, rules, seats, pile, pile_n, used, stats, cust):
    """Count why customer ``cust``, turning unhappy now (R4), was lost: per team and for
    the team that came closest to serving it (stats T_UNHAPPY_CAUSE, state_kernel)."""
    n_teams = 1 if rules[R_PLAYERS] == 1 else 2
    closest = DECK
    for team in range(n_teams):
        cause = team_cause(cards, seats, pile, pile_n, used, team, cust)
        stats[T_UNHAPPY_CAUSE + N_CAUSES * (1 + team) + cause] += 1
        closest = max(closest, cause)
    stats[T_UNHAPPY_CAUSE + closest] += 1


# The round's hand snapshots by name, for engine_kernel
ROUND_START = HAND_START
ASSIST_END = HAND_END
