"""search: a determinized Monte Carlo player over a base strategy (issue 24).

At each of its decisions (the turn's action and its target, the attack's cards, the
defense) it keeps the ``k`` best options by its base strategy's scores, deals the cards
it cannot see at random ``n`` times, plays each kept option out to the end of the game
with the base strategy in every seat, and takes the option its seat won most often with.
The compiled player is sim/games/plai/search_kernel.py; this file only names it.

    search:k=8,n=32,base=expert

``base`` is a registered strategy's name (default: ``expert`` once that strategy ships,
``weighted`` until then). Cost: about k * n playouts per decision that has more than one
option.
"""
import importlib.util

from sim.core.errors import UserError
from sim.core.strategy import Strategy, registry

DEFAULT_BASE = "expert" if importlib.util.find_spec("strategies.plai.expert") else "weighted"


def base_strategy(params) -> Strategy:
    """The base strategy named by ``params["base"]`` (any registered one but search)."""
    name = str(params.get("base") or DEFAULT_BASE)
    known = {n: s for n, s in registry("plai").items() if not s.search}
    if name not in known:
        raise UserError(f"search: unknown base strategy '{name}'; valid: "
                        f"{', '.join(sorted(known))}", field="strategy")
    return known[name]


def _weights(params):
    base = base_strategy(params)
    if int(params["k"]) < 1 or int(params["n"]) < 1:
        raise UserError("search: k and n must be at least 1", field="strategy")
    return dict(base.weights(dict(base.params)))


STRATEGY = Strategy(
    name="search",
    summary="determinized Monte Carlo search: the k best options of its base strategy, "
            "n samples of the hidden cards, each played out with the base (default "
            "k=8, n=32)",
    weights=_weights,
    params={"k": 8.0, "n": 32.0},
    text_params={"base": DEFAULT_BASE},
    search=True,
)
