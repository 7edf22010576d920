"""PLAI's arena for ``simulate tune`` (its ``Game.tune_arena``): a candidate's weight vector
sits in one seat, the opponent's in every other seat, every seat in turn."""
from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from sim.core.arena import Tally, ThreadedArena


class PlaiArena(ThreadedArena):
    """Side s: the candidate sits in seat s, the opponent in every other seat."""

    game = "plai"
    default_budget = 12_000_000   # games a default `simulate tune` plays

    @staticmethod
    def weight_names() -> tuple[str, ...]:
        from sim.games.plai import features

        return tuple(features.FEATURE_NAMES)

    def __init__(self, template: Any, threads: int = 1):
        from sim.games.plai import features
        from sim.games.plai.search_kernel import RECORDED_KINDS

        super().__init__(template, threads)
        self.players = template.players
        self.sides = template.players
        self.fair_share = 1.0 / template.players
        self.names = self.weight_names()
        self.scales_floor: dict[str, float] = {}
        # simulate distill: the weights of the decisions the search player makes (the
        # action, the attack's and the defense's mode and cards) are learned; the noise
        # draws, the negate, help and keep decisions stay the base's
        self.feature_width = features.NF
        self.decision_kinds = RECORDED_KINDS   # a recorded decision's kind, named
        self.learned = np.isin(features.FEATURE_GROUP, features.SEARCHED_GROUPS)
        self.noise = features.FEATURE_GROUP == features.G_NOISE   # noise and bluff coins

    @staticmethod
    def vector_of(config: Any) -> np.ndarray:
        return np.array(config.weights[0], dtype=np.float64)

    @staticmethod
    def strategies_for(spec: str) -> dict[str, str]:
        return {"all": spec}

    @staticmethod
    def sided_strategies(candidate: str, opponent: str, side: int) -> dict[str, str]:
        """Strategy specs by seat with the candidate in seat ``side``."""
        return {"all": opponent, f"seat{side}": candidate}

    def configured(self, candidate, opponent, side):
        weights = np.tile(np.asarray(opponent, dtype=np.float64), (self.players, 1))
        weights[side] = candidate
        return dataclasses.replace(self.template, weights=weights)

    def tally(self, played, side) -> Tally:
        return self.tally_counts(np.bincount(played["winner"].astype(np.int64) + 128,
                                             minlength=256), side, len(played))

    def tally_counts(self, counts, side, games) -> Tally:
        seats = counts[128:128 + self.players]   # winner is the seat, -1 when no startup won
        wins = int(seats[side])
        return Tally(wins, int(seats.sum()) - wins, games)
