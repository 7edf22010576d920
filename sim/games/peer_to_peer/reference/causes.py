"""Why a customer turned unhappy (R4): the reference's own reading of why_kernel.py.

For one team and one unhappy customer, the first true statement of: DECK (no subset of the
team's group cards, in deck, discard and hand, could assist it), DRAW (its hand at the
round's start could not), CAPACITY (that hand could, its hand at the end of the assist
loop could not), CHOICE (the team passed while an assist of it was legal). "Could assist"
is a reachable sum: every (sum, has a card of the customer's domain) of the non-empty
subsets, a `boost` card counting its value or its value plus its boost, a `dual_domain`
card naming the domain as one of it; then a sum within the team's strongest `shift` of
the customer's value, with a card of its domain or a `wild_domain` venture. Every effect
counts for the first three statements; for CHOICE only those unused at the end of the
assist loop.
"""
from __future__ import annotations

from sim.games.peer_to_peer import constants as k

DECK, DRAW, CAPACITY, CHOICE = range(4)


def _could_assist(team, cards, customer, usable) -> bool:
    reached: set[tuple[int, bool]] = set()
    for card in cards:
        values = [card.value]
        if card.has(k.EFFECT_BOOST) and usable(card):
            values.append(card.value + card.arg)
        matches = (customer.domain == k.ANY or card.domain in (customer.domain, k.ANY)
                   or (card.has(k.EFFECT_DUAL_DOMAIN, customer.domain) and usable(card)))
        grown = set()
        for value in values:
            grown.add((value, matches))
            grown.update((total + value, matched or matches) for total, matched in reached)
        reached |= grown
    wild = any(usable(c) for c in team.working_ventures(k.EFFECT_WILD_DOMAIN))
    shift = max((c.arg for c in team.working_ventures(k.EFFECT_SHIFT) if usable(c)), default=0)
    return any(abs(total - customer.value) <= shift and (matched or wild)
               for total, matched in reached)


def team_cause(team, customer, start_hand, end_hand, used) -> int:
    """DECK, DRAW, CAPACITY or CHOICE for ``team`` and an unhappy ``customer``."""
    def every(card):
        return True

    def unused(card):
        return card not in used

    owned = list(team.group_deck) + list(team.discard) + list(team.hand)
    if not _could_assist(team, owned, customer, every):
        return DECK
    if not _could_assist(team, start_hand, customer, every):
        return DRAW
    if not _could_assist(team, end_hand, customer, unused):
        return CAPACITY
    return CHOICE
