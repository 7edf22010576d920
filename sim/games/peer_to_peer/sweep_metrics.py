"""Peer-to-Peer's sweep metrics (``GAME.sweep_metrics``): team A's share of team wins and
its imbalance, each team's win rate, the all-lose and draw rates, the mean length, and why
everyone loses: the unhappy customers of all-lose games by cause (why_lose.py)."""
from __future__ import annotations

import numpy as np

from sim.core.sweep_metric import SweepMetric, indicator, ones
from sim.games.peer_to_peer.constants import ALL_LOSE, DRAW, SOLO_WIN, WIN_A, WIN_B
from sim.core.loss_causes import lost_to
from sim.games.peer_to_peer.why_lose import CAUSES, WHY_LOSE, column

WINNER = ("winner",)


def _team_share(g):
    return indicator(g["winner"] == WIN_A), indicator(np.isin(g["winner"], (WIN_A, WIN_B)))


def _rate_of(*codes):
    return lambda g: (indicator(np.isin(g["winner"], codes)), ones(g, "winner"))


def _lost_to(cause: str):
    return lambda g: (lost_to(g, WHY_LOSE, "winner", cause), ones(g, "winner"))


SWEEP_METRICS = (
    SweepMetric("a_share", "Team A's share of team wins", "%", "rate", 100.0, 0.0, _team_share,
                "Among games a team won, the share team A won (50 % is even; with 3 and 5 "
                "players team A is the larger team).", WINNER, reference=50.0, min_players=2),
    SweepMetric("imbalance", "Imbalance: team A's share of team wins minus 50 %", "pp", "rate",
                100.0, -0.5, _team_share,
                "a_share - 50 %, in percentage points; positive favours team A (the larger "
                "team at 3 and 5 players).", WINNER, reference=0.0, min_players=2),
    SweepMetric("a_win_rate", "Team A win rate", "%", "rate", 100.0, 0.0,
                _rate_of(WIN_A, SOLO_WIN),
                "Share of all games won by team A (solo wins count for A).", WINNER),
    SweepMetric("b_win_rate", "Team B win rate", "%", "rate", 100.0, 0.0, _rate_of(WIN_B),
                "Share of all games won by team B.", WINNER, min_players=2),   # solo: no B
    SweepMetric("all_lose_rate", "All-lose rate", "%", "rate", 100.0, 0.0, _rate_of(ALL_LOSE),
                "Share of games everyone loses to unhappy customers.", WINNER),
    SweepMetric("draw_rate", "Draw rate", "%", "rate", 100.0, 0.0, _rate_of(DRAW),
                "Share of drawn games.", WINNER),
    SweepMetric("mean_rounds", "Mean game length", "rounds", "mean", 1.0, 0.0,
                lambda g: (np.asarray(g["rounds"], dtype=np.float64), ones(g, "rounds")),
                "Rounds per game.", ("rounds",)),
    *(SweepMetric(f"lost_to_{c.name}",
                  f"Unhappy customers of all-lose games, cause {c.name}", "per 1,000 games",
                  "mean", 1000.0, 0.0, _lost_to(c.name),
                  f"Per 1,000 games, the customers that turned unhappy in games everyone lost "
                  f"because {c.words} (0 for a game someone won); the four causes add up to "
                  f"all of them, so their changes say why the all-lose rate moved. To "
                  f"change it: {c.advice}.", ("winner", column(c.name)))
      for c in CAUSES),
)
