"""greedy: assist the highest-value customer it can; always score.

It is the default policy (sim/games/peer_to_peer/features.py), so it overrides nothing.
"""
from sim.core.strategy import Strategy

STRATEGY = Strategy(
    name="greedy",
    summary="assist the highest-value customer it can; always score",
    weights=lambda p: {},
)
