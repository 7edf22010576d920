"""cautious: cooperates against unhappy customers.

Serves first the customers closest to turning unhappy, avoids contests it would lose
(as the marker holder it retargets, P2P-R2b; without the marker it shies away from the
row's top customer by `risk`), develops its deck like a builder, and always uses
`patience` (P2P-E6).
"""
from sim.strategy import Strategy


def _weights(p):
    return {
        "commit.urgent": p["urgency"],
        "commit.waited": 2.0,
        "commit.contest_lose": -50.0,
        "commit.top_customer": -p["risk"],
        "dest.develop_deck": 3.0,
        "dest.develop_hand": 3.0,
        "dest.develop_discard": 3.0,
        "dest.venture": 2.0,
        "dest.overflow": -1.5,
        "save.none": -100.0,
        "late.dest.develop_deck": 0.0,
        "late.dest.develop_hand": 0.0,
        "late.dest.develop_discard": 0.0,
        "late.dest.venture": 0.0,
        "switch": 4.0,
    }


STRATEGY = Strategy(
    name="cautious",
    summary="serves customers about to turn unhappy first, avoids contests it would lose",
    weights=_weights,
    params={"urgency": 20.0, "risk": 1.0},
)
