"""aggressive: venture capital, attacks fundings, takes over whenever it can.

A takeover (legal only at the threshold) outscores everything; otherwise venture capital.
Attacking a funding with an adversary outscores passing at any stake.
"""
from sim.core.strategy import Strategy

STRATEGY = Strategy(
    name="aggressive",
    summary="venture capital; attacks every funding it can; takes over whenever it can",
    weights=lambda p: {"act.venture": 5.0, "act.attackers": 0.0, "act.takeover": 100.0,
                       "attack.real": 100.0},
)
