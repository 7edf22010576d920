"""random: uniform over the legal options at every decision (PLAI-D1..D6).

Every weight is zero except ``noise``, so each decision takes the option with the
highest independent uniform draw: a uniform pick among its legal options.
"""
from sim.games.plai.features import FEATURE_NAMES
from sim.core.strategy import Strategy


def _weights(params):
    weights = {name: 0.0 for name in FEATURE_NAMES}
    weights["noise"] = 1.0
    return weights


STRATEGY = Strategy(
    name="random",
    summary="uniform over the legal options at every decision",
    weights=_weights,
)
