"""search: a determinized Monte Carlo player over a base strategy.

At each of its team's commits (D2: cards and customer, or pass), retargets (D3) and
placements of a won customer (D4) it keeps the ``k`` best options by its base strategy's
scores, deals what its team cannot see (the other team's hand and group deck, the order
of every deck) at random ``n`` times, plays each kept option out to the end of the game
with the base strategy for both teams, and takes the option with its team's best mean
result (a win 1, a draw 1/2). The compiled player is
sim/games/peer_to_peer/search_kernel.py; this file only names it.

    --team-a search:k=8,n=8,base=expert

Defaults k=8, n=8 (PLAI's are k=8, n=32): a Peer-to-Peer game has about 47 searched
decisions at 4 players, against PLAI's 9 at 3, and a playout is a longer game, so n=8
keeps a game near 10 per second of one thread (PLAI's default plays about 130);
benchmarks/skill_results.md has the budget curve. Cost: about k * n playouts per
decision with more than one option.
"""
from sim.core.strategy import search_player

DEFAULT_BASE = "expert"

STRATEGY = search_player(
    "peer_to_peer",
    summary="determinized Monte Carlo search: the k best commits, targets and placements "
            "of its base strategy, n samples of the hidden cards, each played out with the "
            "base (default k=8, n=8)",
    k=8, n=8, default_base=DEFAULT_BASE, module=__name__,
)
