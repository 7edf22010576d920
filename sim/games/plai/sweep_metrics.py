"""PLAI's sweep metrics (``GAME.sweep_metrics``): each seat's win rate, the first player's
share and the first and last player's advantage, the maintainers' win rate, the stalemate
rate, the mean length."""
from __future__ import annotations

import numpy as np

from sim.core.sweep_metric import SweepMetric, indicator, ones
from sim.games.plai.constants import OUT_MAINTAINERS, OUT_SEAT, OUT_STALEMATE

SWEEP_SEATS = 5                      # seat<N>_win_rate sweep metrics exist for N < 5
OUTCOME = ("outcome",)


def _seat_metric(seat: int) -> SweepMetric:
    def xy(g):
        won = indicator((g["outcome"] == OUT_SEAT) & (g["winner"] == seat))
        # games with no seat ``seat`` (fewer players) are not in the denominator, so the
        # metric is n/a rather than 0 % at a player count without that seat
        present = indicator(g["players"] > seat) if "players" in g else ones(g, "outcome")
        return won * present, present

    return SweepMetric(f"seat{seat}_win_rate", f"Seat {seat} win rate", "%", "rate", 100.0, 0.0,
                       xy, f"Share of all games seat {seat} won (PLAI; n/a where the game has "
                       f"no seat {seat}).", ("outcome", "winner", "players"),
                       min_players=seat + 1)


def _first_player(g):
    won = g["outcome"] == OUT_SEAT
    first = won & (g["winner"] == g["first_seat"])
    return indicator(first), indicator(won)


def _place_advantage(place: str):
    """x, y with sum x / sum y = (the share of startup wins taken by the seat that moved
    first, or last, in turn order) - 1/players: 0 when fair at any player count."""
    def xy(g):
        won = g["outcome"] == OUT_SEAT
        players = np.asarray(g["players"], dtype=np.int64)
        seat = g["first_seat"] if place == "first" else (g["first_seat"] + players - 1) % players
        return indicator(won & (g["winner"] == seat)) - indicator(won) / players, indicator(won)
    return xy


PLACE = ("outcome", "winner", "first_seat", "players")
SWEEP_METRICS = (
    *[_seat_metric(s) for s in range(SWEEP_SEATS)],
    SweepMetric("first_player_share", "First player's share of startup wins", "%", "rate",
                100.0, 0.0, _first_player,
                "Among games a startup won, the share the seat that moved first won (PLAI; "
                "fair = 100/players).", ("outcome", "winner", "first_seat")),
    SweepMetric("first_player_advantage", "First player's advantage", "pp", "mean", 100.0,
                0.0, _place_advantage("first"),
                "The first mover's share of startup wins minus the fair share 100/players, in "
                "percentage points (0 is fair at every player count; PLAI). Delta-method "
                "interval.", PLACE, reference=0.0),
    SweepMetric("last_player_advantage", "Last player's advantage", "pp", "mean", 100.0,
                0.0, _place_advantage("last"),
                "The share of startup wins taken by the seat that moves last in turn order, "
                "minus 100/players, in percentage points (0 is fair; PLAI).", PLACE,
                reference=0.0),
    SweepMetric("maintainers_win_rate", "Maintainers' win rate", "%", "rate", 100.0, 0.0,
                lambda g: (indicator(g["outcome"] == OUT_MAINTAINERS), ones(g, "outcome")),
                "Share of games every startup went bankrupt (PLAI-T6).", OUTCOME),
    SweepMetric("stalemate_rate", "Stalemate rate", "%", "rate", 100.0, 0.0,
                lambda g: (indicator(g["outcome"] == OUT_STALEMATE), ones(g, "outcome")),
                "Share of games that reached max_turns (PLAI-T6).", OUTCOME),
    SweepMetric("mean_turns", "Mean game length", "turns", "mean", 1.0, 0.0,
                lambda g: (np.asarray(g["turns"], dtype=np.float64), ones(g, "turns")),
                "Turns per game (PLAI).", ("turns",)),
)
