"""PLAI's pace, turn by turn: the per-turn sums of a chunk's games (sim.core.curves),
added at the end of every turn of the engine's games.

Row ``turn`` of ``curves`` (int64[horizon + 1, 1 + 2 * WIDTH]) is turn ``turn`` (a seat's
turn, as the result's ``turns`` counts them), row 0 the deal; a turn past the horizon is
not recorded. Column 0 counts the games that reached the turn; then each series' sum,
then the sum of its squares, in this order: each seat's hand at the end of the turn
(MAX_SEATS columns, seat order; a bankrupt seat holds none), then what happened during
the turn: its fights (regional pitches and ventures attacked, takeovers: the result's
regional_attacked + venture_attacked + takeovers), its startups' fundings (family,
regional pitch, venture capital: fund_family + fund_regional + fund_venture) and the
seats that went bankrupt at its end.
"""
from numba import njit

from sim.games.plai.constants import (
    MAX_SEATS, P_HAND0, S_FIGHTS, S_FUND_FAMILY, S_FUND_REGIONAL, S_FUND_VENTURE,
)

K_HAND0 = 0
K_FIGHTS = K_HAND0 + MAX_SEATS
K_FUNDINGS = K_FIGHTS + 1
K_BANKRUPT = K_FUNDINGS + 1
WIDTH = K_BANKRUPT + 1


@njit(cache=True, _nrt=False, inline='always')
def _add(curves, turn, k, value):
    curves[turn, 1 + k] += value
    curves[turn, 1 + WIDTH + k] += value * value


@njit(cache=True, _nrt=False, inline='always')
def turn_marks(st, left):
    """What a turn's events are counted from: (fights, startups' fundings, startups in
    the game) before it."""
    return st[S_FIGHTS], st[S_FUND_FAMILY] + st[S_FUND_REGIONAL] + st[S_FUND_VENTURE], left


@njit(cache=True, _nrt=False, inline='always')
def record_turn(curves, turn, players, pile_n, st, left, marks):
    """Turn ``turn`` of one game in the sums (0: the deal), ``left`` startups in the game
    after it, ``marks`` (turn_marks) taken before it."""
    if turn >= curves.shape[0]:
        return
    curves[turn, 0] += 1
    for s in range(players):
        _add(curves, turn, K_HAND0 + s, pile_n[P_HAND0 + s])
    fights, fundings, left_before = marks
    _add(curves, turn, K_FIGHTS, st[S_FIGHTS] - fights)
    _add(curves, turn, K_FUNDINGS,
         st[S_FUND_FAMILY] + st[S_FUND_REGIONAL] + st[S_FUND_VENTURE] - fundings)
    _add(curves, turn, K_BANKRUPT, left_before - left)
