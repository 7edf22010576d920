"""weighted: every feature weight is a parameter, for sweeps and searches to tune.

Parameters are the feature names of sim/games/plai/features.py (for example
``weighted:act.venture=2,attack.real=-1``); the defaults are the game's default weights,
so ``weighted`` with no parameters plays the game's default strategy.
"""
from sim.games.plai.features import DEFAULT_WEIGHTS, FEATURE_NAMES
from sim.core.strategy import Strategy

STRATEGY = Strategy(
    name="weighted",
    summary="the game's default weights, each one a tunable parameter",
    weights=lambda p: dict(p),
    params={name: float(w) for name, w in zip(FEATURE_NAMES, DEFAULT_WEIGHTS)},
)
