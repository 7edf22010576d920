"""bluffer: attacks and defends with buzzwords alone at a tunable rate.

Whenever it may attack or must decide a defense and holds a buzzword, it bluffs with
probability ``rate``: the bluff option scores ``1000 * (u - (1 - rate))`` for a uniform
draw u (the bluff_coin feature), which beats every other option when u > 1 - rate and
loses to them otherwise. Its cards are buzzwords, strongest first (no GDPR Fine).
"""
from sim.core.strategy import Strategy

BIG = 1000.0


def _weights(p):
    bias = -BIG * (1.0 - p["rate"])   # rate in [0, 1]: param_bounds
    return {"attack.bluff": bias, "attack.bluff_coin": BIG,
            "defend.bluff": bias, "defend.bluff_coin": BIG, "pick.effect": -5.0}


STRATEGY = Strategy(
    name="bluffer",
    summary="attacks and defends with buzzwords alone at rate `rate` (default 0.5)",
    weights=_weights,
    params={"rate": 0.5},
    param_bounds={"rate": (0.0, 1.0)},
)
