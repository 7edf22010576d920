"""cautious: family funding, defends whenever it holds a use case.

Family funding (nobody can attack it) outscores every other action but a very strong
takeover; the real defense outscores not defending whenever a use case is in hand (the
option is only legal then).
"""
from sim.core.strategy import Strategy

STRATEGY = Strategy(
    name="cautious",
    summary="family funding; defends whenever it holds a use case",
    weights=lambda p: {"act.family": 5.0, "defend.real": 100.0},
)
