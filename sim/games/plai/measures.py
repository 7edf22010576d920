"""PLAI's balance answers as measures (sim.core.attribution.Measure): a seat's share of the
games a startup won (even at 1/players), the first player's share, the maintainers' win
rate. The report's metrics and the counterfactual replays of swaps.py read them."""
from __future__ import annotations

import polars as pl

from sim.core.attribution import Measure
from sim.games.plai.constants import OUT_MAINTAINERS, OUT_SEAT

WON = pl.col("outcome") == OUT_SEAT


def seat_share(seat: int, players: int) -> Measure:
    return Measure("seat_balance", num=WON & (pl.col("winner") == seat), den=WON,
                   even=1.0 / players, above=f"to seat {seat}", below=f"against seat {seat}")


def first_player_share(players: int) -> Measure:
    position = (pl.col("winner").cast(pl.Int64) - pl.col("first_seat").cast(pl.Int64)) % players
    return Measure("first_player", num=WON & (position == 0), den=WON, even=1.0 / players,
                   above="to the first player", below="against the first player")


MAINTAINERS = Measure("maintainers", num=pl.col("outcome") == OUT_MAINTAINERS, den=pl.lit(1),
                      even=float("nan"))
