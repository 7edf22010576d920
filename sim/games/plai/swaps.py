"""PLAI's swaps (sim.core.attribution.Swap): who moves first, and who plays which seat.

``turn_order``: the first seat (PLAI-S1) moves r seats on, for every r of the rotation,
with the same random draws; the deal starts at the first seat, so the cards move with the
turn: seat s of the rotated game holds what seat s - r held and moves when it moved. If
the turn order explains a seat's edge, its mean share over the rotations is the fair
share 1/players (sim.core.attribution).

``strategies``: when the seats play different strategies, the strategies move r seats on
(weights, search budgets and names), for every r, on the same deals: how much of a seat's
edge its player makes."""
from __future__ import annotations

import dataclasses

import numpy as np

from sim.core.attribution import Swap


def _rotations(config):
    n = config.players
    return [(f"first seat moved {r} on",
             dataclasses.replace(config, first_seat_shift=(config.first_seat_shift + r) % n))
            for r in range(1, n)]


def _strategy_rotations(config):
    n = config.players
    if len(set(map(repr, config.strategies.values()))) < 2:
        return []
    seats = [f"seat{s}" for s in range(n)]
    out = []
    for r in range(1, n):   # seat s plays what seat s - r played
        moved = [seats[(s - r) % n] for s in range(n)]
        out.append((f"strategies moved {r} seat{'s' if r > 1 else ''} on", dataclasses.replace(
            config, strategies={seat: config.strategies[src] for seat, src in zip(seats, moved)},
            specs={seat: config.specs[src] for seat, src in zip(seats, moved)
                   if src in config.specs},
            weights=np.roll(config.weights, r, axis=0),
            search=None if config.search is None else np.roll(config.search, r, axis=0))))
    return out


SWAPS = (
    Swap("turn_order", "the turn order (who moves first)", ("seat_balance",), _rotations,
         advice="who takes the first turn (PLAI-S1: first_seat), or what moving first gives "
                "(the starting hands, the first funding)"),
    Swap("strategies", "the seats' strategies", ("seat_balance",), _strategy_rotations,
         advice="who plays which seat: an edge the strategies make is about the players, "
                "not the game; compare the seats with the same strategy"),
)
