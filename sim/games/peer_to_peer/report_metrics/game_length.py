"""Distribution of game length in rounds."""
from __future__ import annotations

import polars as pl

from sim.games.peer_to_peer.report_metrics._common import ALL_LOSE, TIMEOUT, length_histograms
from sim.core.report_metric import Context, Metric, length_table

def compute(games, ctx: Context) -> pl.DataFrame:
    w = pl.col("winner")
    return length_table(games, "rounds", ctx, {"all": None,
                                               "scored": ~w.is_in([ALL_LOSE, TIMEOUT]),
                                               "all_lose": w == ALL_LOSE})


def plot(table: pl.DataFrame, games: pl.DataFrame, ctx: Context):
    return length_histograms(games, "rounds", "rounds", ctx)


METRIC = Metric(
    name="game_length",
    title="Game length (rounds)",
    requires=("winner", "players", "rounds"),
    compute=compute,
    plot=plot,
    order=60,
    description=("Rounds per game for all games, for games that were scored (customer deck ran "
                 "out) and for all-lose games: mean with its t interval, standard deviation and "
                 "quantiles. The histogram shows the whole distribution."),
)
