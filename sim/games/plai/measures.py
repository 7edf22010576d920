"""PLAI's balance answers as measures (sim.core.attribution.Measure): a seat's share of the
games a startup won (even at 1/players), the first player's share, the maintainers' win
rate. The report's metrics and the counterfactual replays of swaps.py read them."""
from __future__ import annotations

from typing import Any, Mapping

import polars as pl

from sim.core.attribution import Measure
from sim.games.plai.constants import OUT_MAINTAINERS, OUT_SEAT

WON = pl.col("outcome") == OUT_SEAT


def seat_share(seat: int, players: int) -> Measure:
    return Measure("seat_balance", num=WON & (pl.col("winner") == seat), den=WON,
                   even=1.0 / players, above=f"to seat {seat}", below=f"against seat {seat}",
                   label=f"seat {seat}'s share of the games a startup won")


def first_player_share(players: int) -> Measure:
    position = (pl.col("winner").cast(pl.Int64) - pl.col("first_seat").cast(pl.Int64)) % players
    return Measure("first_player", num=WON & (position == 0), den=WON, even=1.0 / players,
                   above="to the first player", below="against the first player")


def balance_measures(players: int) -> list[Measure]:
    """GAME.balance_measures: the measures a balance answer picks from (the seat furthest
    from its fair share; the workbench shows the same)."""
    return [seat_share(seat, players) for seat in range(players)]


def balance_measure(players: int, summary: Mapping[str, Any]) -> Measure | None:
    """GAME.balance_measure: the measure of the summary's seat-balance line, which the
    command line explains by replays (sim.runs.explain)."""
    balance = summary.get("seat_balance")
    return seat_share(balance["seat"], players) if balance else None


MAINTAINERS = Measure("maintainers", num=pl.col("outcome") == OUT_MAINTAINERS, den=pl.lit(1),
                      even=float("nan"))
