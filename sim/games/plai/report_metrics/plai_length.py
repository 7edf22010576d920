"""PLAI: distribution of game length in turns."""
from __future__ import annotations

import polars as pl

from sim.core.report_metric import Context, Metric, length_histograms, length_table
from sim.games.plai.report_metrics._plai import OUT_MAINTAINERS, OUT_SEAT, OUT_STALEMATE

ENDED = {"all": None, "seat_win": OUT_SEAT, "maintainers": OUT_MAINTAINERS,
         "stalemate": OUT_STALEMATE}


def compute(games, ctx: Context) -> pl.DataFrame:
    return length_table(games, "turns", ctx, {label: None if code is None else pl.col("outcome") == code
                                              for label, code in ENDED.items()})


def plot(table: pl.DataFrame, games: pl.DataFrame, ctx: Context):
    return length_histograms(games, "turns", "turns", ctx)


METRIC = Metric(
    name="plai_length",
    title="Game length (turns)",
    requires=("outcome", "players", "turns"),
    compute=compute,
    plot=plot,
    order=60,
    description=("Turns per game (one turn = one startup's or maintainer's action) for all "
                 "games and by how they ended: a seat won, the maintainers won, or max_turns "
                 "was reached (stalemate, PLAI-T6). Mean with its Student t interval, standard "
                 "deviation and quantiles; the histogram shows the whole distribution."),
)
