"""random: uniform over the legal choices at every decision (P2P-D1..D6).

Every weight is zero except each decision's noise feature, so the best option is the one
with the highest independent uniform draw: a uniform pick among the legal options.
"""
from sim.games.peer_to_peer.features import FEATURE_NAMES
from sim.core.strategy import Strategy


def _weights(params):
    weights = {name: 0.0 for name in FEATURE_NAMES}
    for name in FEATURE_NAMES:
        if name.endswith(".noise"):
            weights[name] = 1.0
    return weights


STRATEGY = Strategy(
    name="random",
    summary="uniform over the legal choices at every decision",
    weights=_weights,
)
