"""search: a determinized Monte Carlo player over a base strategy.

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

from sim.core.strategy import search_player

DEFAULT_BASE = "expert" if importlib.util.find_spec("strategies.plai.expert") else "weighted"

STRATEGY = search_player(
    "plai",
    summary="determinized Monte Carlo search: the k best options of its base strategy, "
            "n samples of the hidden cards, each played out with the base (default "
            "k=8, n=32)",
    k=8, n=32, default_base=DEFAULT_BASE, module=__name__,
)
