"""A strategy is data: a weight vector over the decision features of features.py.

Every decision (P2P-D1..D6) lists its legal options in the documented order, gives each
option a dict ``{feature index: value}``, and takes the option with the highest
``weights . features`` (the first one on ties). A decision's NOISE feature is one uniform
draw from the game's stream per option, in option order, made only when its weight is not
zero. Weights come in two phases; the game is "late" once the customer deck holds at most
``switch`` cards.
"""
from __future__ import annotations

from sim.games.peer_to_peer.features import NF, SWITCH


class Policy:
    def __init__(self, weights, rng):
        self.weights = [float(w) for w in weights]
        self.switch = self.weights[SWITCH]
        self.rng = rng

    def phase(self, customers_left: int) -> int:
        """0 = early, 1 = late (once the customer deck holds at most ``switch`` cards)."""
        return 1 if customers_left <= self.switch else 0

    def weighs(self, feature: int, customers_left: int) -> bool:
        """Whether ``feature`` has a weight in the current phase (a costly feature is
        computed only then; a zero weight adds nothing)."""
        return self.weights[self.phase(customers_left) * NF + feature] != 0.0

    def score(self, phase: int, features: dict) -> float:
        # In feature-index order, so that the float sum is the same as the kernel's.
        w = self.weights
        base = phase * NF
        total = 0.0
        for index in sorted(features):
            value = features[index]
            if value != 0.0:
                total += w[base + index] * value
        return total

    def choose(self, phase: int, options: list, noise: int):
        """``options``: [(option, features)] in the decision's documented order."""
        draws = self.weights[phase * NF + noise] != 0.0
        best, best_score = None, float("-inf")
        for option, features in options:
            if draws:
                features[noise] = self.rng.uniform()
            value = self.score(phase, features)
            if value > best_score:
                best, best_score = option, value
        return best
