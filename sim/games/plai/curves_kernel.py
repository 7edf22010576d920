"""PLAI's pace, turn by turn: the per-turn sums of a chunk's games (sim.core.curves),
added during the engine's games.

``curves`` is the thread's sums matrix (int64[horizon + 1, ROW]) seen flat, as one
int64[(horizon + 1) * ROW] row after row (unsigned offsets: no negative-index code in the
turn). Row ``turn`` is turn ``turn`` (a seat's turn, as the result's ``turns`` counts
them), row 0 the deal; a turn past the horizon is not recorded. The series, each summed
over the games (column 1 + k) and squared (column 1 + WIDTH + k): each seat's hand at
the end of the turn (MAX_SEATS columns, seat order; a bankrupt seat holds none), then
what happened during the turn: its fight (a pitch or a venture attacked, a takeover: the
result's regional_attacked + venture_attacked + takeovers), its startup's funding
(family, regional pitch, venture capital: fund_family + fund_regional + fund_venture)
and the seats that went bankrupt at its end.

A turn costs about 200 ns (some 1,600 instructions), so the kernels write only what a
turn must, and PlaiConfig's ``finish_curves`` completes the matrix once per chunk:
- column 0 counts the games that *ended* at each turn (``record_end``, once a game); the
  games that reached a turn are the sum over the later ones;
- the hands are written seat by seat, unrolled (a loop over a run-time number of seats
  compiled to a vectorised loop with alias checks and a remainder: some 50 instructions
  a turn instead of 15);
- fights and fundings are written as the game's running totals at the end of the turn
  (no marks kept across the turn); ``record_end`` adds the game's final totals to the
  rows' otherwise unused squares columns of the turn it ended, and ``finish_curves``
  takes the differences: a turn's events summed over the games still running at it are
  the totals' sum at that turn, less the previous turn's, plus the final totals of the
  games that ended at the previous turn. A turn is one action (PLAI-T1): at most one
  fight and one funding, so their squares are their sums;
- bankruptcies are written in the turns that have one.
"""
import numpy as np
from numba import njit

from sim.games.plai.constants import (  # noqa: F401  (the series' columns)
    CURVE_WIDTH as WIDTH, K_BANKRUPT, K_FIGHTS, K_FUNDINGS, K_HAND0, MAX_SEATS, P_HAND0,
    S_FIGHTS, S_FUND_FAMILY, S_FUND_REGIONAL, S_FUND_VENTURE,
)

ROW = 1 + 2 * WIDTH   # one turn's sums
RUNNING_TOTALS = (K_FIGHTS, K_FUNDINGS)   # written as totals: finish_curves differences them
assert MAX_SEATS == 5, "_hands is unrolled for at most five seats"


@njit(cache=True, _nrt=False, inline='always')
def _hand(curves, base, pile_n, s):
    hand = pile_n[P_HAND0 + s]
    at = base + np.uint64(1 + K_HAND0 + s)
    curves[at] += hand
    curves[at + np.uint64(WIDTH)] += hand * hand


@njit(cache=True, _nrt=False, inline='always')
def _hands(curves, base, players, pile_n):
    _hand(curves, base, pile_n, 0)   # two to five seats (PLAI-S1)
    _hand(curves, base, pile_n, 1)
    if players > 2:
        _hand(curves, base, pile_n, 2)
    if players > 3:
        _hand(curves, base, pile_n, 3)
    if players > 4:
        _hand(curves, base, pile_n, 4)


@njit(cache=True, _nrt=False, inline='always')
def _totals(st):
    """The game's running totals (fights, its startups' fundings)."""
    return st[S_FIGHTS], st[S_FUND_FAMILY] + st[S_FUND_REGIONAL] + st[S_FUND_VENTURE]


@njit(cache=True, _nrt=False, inline='always')
def record_deal(curves, players, pile_n):
    """The hands after the deal (turn 0)."""
    _hands(curves, np.uint64(0), players, pile_n)


@njit(cache=True, _nrt=False, inline='always')
def record_turn(curves, turn, players, pile_n, st, left, left_before):
    """Turn ``turn`` of one game, ``left`` startups in the game after it (``left_before``
    before it)."""
    if (turn + 1) * ROW > curves.shape[0]:
        return
    base = np.uint64(turn * ROW)
    _hands(curves, base, players, pile_n)
    fights, fundings = _totals(st)
    curves[base + np.uint64(1 + K_FIGHTS)] += fights
    curves[base + np.uint64(1 + K_FUNDINGS)] += fundings
    if left != left_before:
        gone = left_before - left
        curves[base + np.uint64(1 + K_BANKRUPT)] += gone
        curves[base + np.uint64(1 + WIDTH + K_BANKRUPT)] += gone * gone


@njit(cache=True, _nrt=False, inline='always')
def record_end(curves, turns, st):
    """A game that ended after ``turns`` turns (past the horizon: at its last row), with
    its final running totals (in the squares columns of RUNNING_TOTALS)."""
    rows = curves.shape[0] // ROW
    base = np.uint64(min(turns, rows - 1) * ROW)
    curves[base] += 1
    fights, fundings = _totals(st)
    curves[base + np.uint64(1 + WIDTH + K_FIGHTS)] += fights
    curves[base + np.uint64(1 + WIDTH + K_FUNDINGS)] += fundings
