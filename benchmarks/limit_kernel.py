"""The least work every Peer-to-Peer game must do, as a numba kernel.

Per game: seed the counter-based RNG, shuffle 54 cards, then 20 rounds x 2 teams x 15
hand subsets (all non-empty subsets of a 4-card hand) x 2 customers, each a subset sum
with a domain test. The engine's games/s divided by this kernel's is how close the engine
comes to the least possible work.
"""
import numpy as np
from numba import njit

from sim.core.rng_kernel import seed_game, shuffle

ROUNDS, TEAMS, HAND, CUSTOMERS = 20, 2, 4, 2


@njit(cache=True, nogil=True)
def limit_games(values, domains, seed, start, count):
    """Returns a checksum so the work cannot be optimised away."""
    rng = np.empty(4, np.uint64)
    deck = np.empty(values.shape[0], np.int64)
    checksum = 0
    for g in range(start, start + count):
        seed_game(rng, seed, g)
        for i in range(deck.shape[0]):
            deck[i] = i
        shuffle(rng, deck, deck.shape[0])
        pos = 0
        for r in range(ROUNDS):
            for t in range(TEAMS):
                base = (pos + t * HAND) % (deck.shape[0] - HAND - CUSTOMERS)
                for mask in range(1, 1 << HAND):
                    total = 0
                    dom_mask = 0
                    for s in range(HAND):
                        if mask >> s & 1:
                            c = deck[base + s]
                            total += values[c]
                            dom_mask |= 1 << domains[c]
                    for k in range(CUSTOMERS):
                        cust = deck[base + HAND + k]
                        if total == values[cust] and dom_mask >> domains[cust] & 1:
                            checksum += 1
            pos += 1
    return checksum
