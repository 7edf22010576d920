"""PLAI's swap (sim.core.attribution.Swap): who moves first.

``turn_order``: the first seat (PLAI-S1) moves r seats on, for every r of the rotation,
with the same random draws; the deal starts at the first seat, so the cards move with the
turn: seat s of the rotated game holds what seat s - r held and moves when it moved. If
the turn order explains a seat's edge, its mean share over the rotations is the fair
share 1/players (sim.core.attribution)."""
from __future__ import annotations

import dataclasses

from sim.core.attribution import Swap


def _rotations(config):
    n = config.players
    return [(f"first seat moved {r} on",
             dataclasses.replace(config, first_seat_shift=(config.first_seat_shift + r) % n))
            for r in range(1, n)]


SWAPS = (
    Swap("turn_order", "the turn order (who moves first)", ("seat_balance",), _rotations,
         advice="who takes the first turn (PLAI-S1: first_seat), or what moving first gives "
                "(the starting hands, the first funding)"),
)
