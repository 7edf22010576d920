"""Assists and contests (P2P-R2a, P2P-R2c, effects P2P-E1/E2/E5/E7/E8).

An assist is legal when the played cards, after effects, sum exactly to the customer's
value and at least one of them matches the customer's domain. When several effect uses
make it legal, the engine takes the first in this documented order (the kernel's
convention, assist_kernel.py): a natural domain match before `dual_domain` before
`wild_domain`; boosts off before on (boost combinations in ascending order over the
boost cards in hand order); no `shift` before `shift`, the shift on the highest card
(first on ties). A team uses at most one instance of each venture effect per assist:
its strongest unused `shift` and its first unused `wild_domain`.
"""
from __future__ import annotations

from dataclasses import dataclass

from sim.games.peer_to_peer import constants as k


@dataclass
class Assist:
    """A legal way for ``played`` (hand cards, in hand order) to assist ``customer``."""

    customer: object
    played: list
    values: list                 # each played card's value after effects
    shift_card: object = None    # the venture whose `shift` is used
    wild_card: object = None     # the venture whose `wild_domain` is used
    dual_card: object = None     # the played card whose `dual_domain` is used
    boosted: tuple = ()          # the played cards whose `boost` is used

    @property
    def venture_effects(self) -> int:
        return (self.shift_card is not None) + (self.wild_card is not None)

    def effect_uses(self):
        """(card, effect) for every effect this assist uses, in the trace's order."""
        uses = []
        if self.shift_card is not None:
            uses.append((self.shift_card, k.EFFECT_SHIFT))
        if self.wild_card is not None:
            uses.append((self.wild_card, k.EFFECT_WILD_DOMAIN))
        if self.dual_card is not None:
            uses.append((self.dual_card, k.EFFECT_DUAL_DOMAIN))
        uses.extend((card, k.EFFECT_BOOST) for card in self.boosted)
        return uses


def strongest_shift(team, used):
    """The team's unused `shift` venture with the largest k (the first on ties)."""
    best = None
    for card in team.working_ventures(k.EFFECT_SHIFT):
        if card not in used and (best is None or card.arg > best.arg):
            best = card
    return best


def first_unused(team, used, effect, arg=None):
    for card in team.working_ventures(effect, arg):
        if card not in used:
            return card
    return None


def plan_assist(team, played, customer, used):
    """The Assist by which ``played`` legally assists ``customer``, or None."""
    # Domain (R2a): a natural match, else a `dual_domain` card, else a `wild_domain` venture.
    dual = wild = None
    natural = customer.domain == k.ANY or any(
        c.domain == customer.domain or c.domain == k.ANY for c in played)
    if not natural:
        dual = next((c for c in played if c.has(k.EFFECT_DUAL_DOMAIN, customer.domain)
                     and c not in used), None)
        if dual is None:
            wild = first_unused(team, used, k.EFFECT_WILD_DOMAIN)
            if wild is None:
                return None
    # Value: boosts (E7) off before on, then one `shift` (E2) on the highest card.
    boostable = [c for c in played if c.has(k.EFFECT_BOOST) and c not in used]
    base = sum(c.value for c in played)
    combos = []
    for bits in range(1 << len(boostable)):
        on = tuple(c for i, c in enumerate(boostable) if bits >> i & 1)
        combos.append((on, base + sum(c.arg for c in on)))
    for on, total in combos:
        if total == customer.value:
            return _assist(customer, played, on, None, 0, wild, dual)
    shifter = strongest_shift(team, used)
    if shifter is not None:
        for on, total in combos:
            delta = customer.value - total
            if delta == 0 or abs(delta) > shifter.arg:
                continue
            high = max(c.value + (c.arg if c in on else 0) for c in played)
            if delta > 0 or high + delta >= 0:  # no card goes below 0
                return _assist(customer, played, on, shifter, delta, wild, dual)
    return None


def _assist(customer, played, boosted, shifter, delta, wild, dual):
    values = [c.value + (c.arg if c in boosted else 0) for c in played]
    if shifter is not None:
        i = values.index(max(values))  # the highest card, the first one on ties
        values[i] += delta
    return Assist(customer, list(played), values, shifter, wild, dual, boosted)


def ranked_play(assist, domain_rank):
    """P2P-R2c: the played cards as (value after effects, domain rank), highest first."""
    return sorted(((v, domain_rank[c.domain]) for c, v in zip(assist.played, assist.values)),
                  reverse=True)


def reaches_unpaired_step(play_a, play_b) -> bool:
    """P2P-R2c: every pair is equal in value and one list is longer."""
    return len(play_a) != len(play_b) and all(va == vb for (va, _), (vb, _) in zip(play_a, play_b))


def contest(play_a, play_b, tiebreak_a: bool, tiebreak_b: bool, marker: int,
            unpaired: str = "longer_wins"):
    """P2P-R2c: (winning team, why) for two ranked plays of teams A and B.

    ``unpaired`` is the contest_unpaired option: after equal pairs the longer play wins
    (``longer_wins``), or its unpaired cards count for nothing (``tied``): the contest goes
    on as if the plays were identical, the domain step comparing the pairs."""
    for (va, _), (vb, _) in zip(play_a, play_b):
        if va != vb:
            return (k.TEAM_A if va > vb else k.TEAM_B), k.WHY_HIGHER_CARD
    if len(play_a) != len(play_b) and unpaired == "longer_wins":
        return (k.TEAM_A if len(play_a) > len(play_b) else k.TEAM_B), k.WHY_LONGER
    if tiebreak_a != tiebreak_b:  # E5: if both hold one, neither applies
        return (k.TEAM_A if tiebreak_a else k.TEAM_B), k.WHY_TIEBREAK
    for (_, ra), (_, rb) in zip(play_a, play_b):
        if ra != rb:
            return (k.TEAM_A if ra > rb else k.TEAM_B), k.WHY_DOMAIN
    return marker, k.WHY_MARKER
