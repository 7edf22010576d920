"""Peer-to-Peer's swaps (sim.core.attribution.Swap): what a counterfactual replay may
exchange between the teams, keeping the rules and the random numbers.

- ``start_cards``: the teams' starting (S) cards change hands (the card file's ``start``
  column, A <-> B). The same draws deal them: each team's S-card shuffle and its group
  hands follow the same random numbers, so team A holds team B's cards in the order team
  A's would have had (with S sets of equal size).
- ``first_marker``: the same random draw decides the first team marker, but the other
  team receives it (a fixed first_marker=A plays B and the other way round).
- ``strategies``: when the teams play different strategies, each plays the other's (its
  weights and search budget), on the same deals: how much of the edge the players make.
- ``compensation`` (3 and 5 players): the game under each other odd_team_compensation
  mode, shown beside the answer (not an exchange of sides: the smaller team's seats).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from sim.core.attribution import COMPARE, Swap
from sim.games.peer_to_peer.constants import COMP_NAMES, TEAM_A, TEAM_B

ODD_COUNTS = (3, 5)


def _start_cards(config):
    if config.players < 2:
        return []
    start = config.cards.start
    swapped = np.where(start == TEAM_A, TEAM_B, np.where(start == TEAM_B, TEAM_A, start))
    swapped = swapped.astype(start.dtype)
    swapped.flags.writeable = False
    cards = dataclasses.replace(config.cards, start=swapped)
    return [("starting cards swapped", dataclasses.replace(config, cards=cards))]


def _first_marker(config):
    if config.players < 2:
        return []
    return [("first marker to the other team",
             dataclasses.replace(config, marker_to_other=not config.marker_to_other))]


def _strategies(config):
    if config.players < 2 or config.strategies["A"] == config.strategies["B"]:
        return []
    search = None if config.search is None else config.search[::-1].copy()
    return [("strategies exchanged", dataclasses.replace(
        config, strategies={"A": config.strategies["B"], "B": config.strategies["A"]},
        weights={"A": config.weights["B"], "B": config.weights["A"]}, search=search))]


def _compensation(config):
    if config.players not in ODD_COUNTS:
        return []
    mode = config.rules["odd_team_compensation"]
    return [(f"odd_team_compensation={other}",
             dataclasses.replace(config, rules={**config.rules, "odd_team_compensation": other}))
            for other in COMP_NAMES if other != mode]


SWAPS = (
    Swap("start_cards", "the starting cards", ("team_balance",), _start_cards,
         advice="the S marks of the card file (the `start` column): give both teams the same "
                "values and domains, or enter the real group decks"),
    Swap("first_marker", "the first team marker", ("team_balance",), _first_marker,
         advice="who starts with the first team marker (P2P-S6)"),
    Swap("strategies", "the teams' strategies", ("team_balance",), _strategies,
         advice="who plays which team: an edge the strategies make is about the players, "
                "not the game; compare the teams with the same strategy"),
    Swap("compensation", "the smaller team's seats (odd_team_compensation)",
         ("team_balance",), _compensation, kind=COMPARE,
         advice="odd_team_compensation: what the smaller team's extra seat holds"),
)
