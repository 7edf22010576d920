"""Peer-to-Peer's pace, round by round: the per-round sums of a chunk's games
(sim.core.curves), added at the end of every round of the engine's games.

``curves`` is the thread's sums matrix (int64[horizon + 1, ROW]) seen flat, as one
int64[(horizon + 1) * ROW] row after row (unsigned offsets: no negative-index code in the
round). Row ``rnd`` is round ``rnd``, row 0 the state after setup; a round past the
horizon is not recorded. Column 0 counts the games that reached the round; then each
series' sum, then the sum of its squares, in this order (its value at the end of the
round, after R3 and R4): team A's score and team B's score (customers in each score
pile), the customers in the row, the unhappy customers, the customers served (won by
either team, the result's assists_a + assists_b) and the cards left in the customer deck.
"""
import numpy as np
from numba import njit

from sim.games.peer_to_peer.constants import (  # noqa: F401  (the series' columns)
    CURVE_WIDTH as WIDTH, K_DECK, K_ROW, K_SCORE_A, K_SCORE_B, K_SERVED, K_UNHAPPY,
)
from sim.games.peer_to_peer.state_kernel import (
    P_CUST, P_ROW, P_SCORE, P_UNHAPPY, T_ASSISTS,
)

ROW = 1 + 2 * WIDTH   # one round's sums


@njit(cache=True, _nrt=False, inline='always')
def _add(curves, base, k, value):
    curves[base + np.uint64(1 + k)] += value
    curves[base + np.uint64(1 + WIDTH + k)] += value * value


@njit(cache=True, _nrt=False, inline='always')
def record_round(curves, rnd, pile_n, stats):
    """Round ``rnd`` of one game in the sums (0: after setup)."""
    if (rnd + 1) * ROW > curves.shape[0]:
        return
    base = np.uint64(rnd * ROW)
    curves[base] += 1
    _add(curves, base, K_SCORE_A, pile_n[P_SCORE])
    _add(curves, base, K_SCORE_B, pile_n[P_SCORE + 1])
    _add(curves, base, K_ROW, pile_n[P_ROW])
    _add(curves, base, K_UNHAPPY, pile_n[P_UNHAPPY])
    _add(curves, base, K_SERVED, stats[T_ASSISTS] + stats[T_ASSISTS + 1])
    _add(curves, base, K_DECK, pile_n[P_CUST])
