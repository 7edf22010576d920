"""builder: develops its group deck and ventures early, scores late.

Early in the game a won customer goes into the group deck (where a `develop` venture
allows) or onto a seat; once the customer deck holds at most `threshold` cards, it
scores everything. `threshold` is the switch-over point.
"""
from sim.core.strategy import Strategy


def _weights(p):
    return {
        "switch": p["threshold"],
        "early.dest.develop_deck": 4.0,
        "early.dest.develop_hand": 3.5,
        "early.dest.develop_discard": 3.0,
        "early.dest.venture": 2.0,
        "early.dest.overflow": -1.5,   # rather not push a venture card out to score
        "early.dest.venture_effect": 0.5,
        "early.commit.customer_effect": 2.0,  # go for customers that make good ventures
    }


STRATEGY = Strategy(
    name="builder",
    summary="sends customers to its deck and ventures early, scores late",
    weights=_weights,
    params={"threshold": 10.0},
)
