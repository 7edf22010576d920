"""Distribution of game length in rounds."""
from __future__ import annotations

import polars as pl

from sim.games.peer_to_peer.report_metrics._common import (
    ALL_LOSE,
    TIMEOUT,
    keys,
    length_histograms,
    sort_groups,
)
from sim.core.report_metric import Context, Metric, distribution
from sim.core.stats import with_t_interval

CLASSES = ("all", "scored", "all_lose")


def _summary(games, ctx: Context, label: str, where_expr=None) -> pl.DataFrame:
    t = distribution(games, pl.col("rounds"), ctx, "rounds_", (0.1, 0.25, 0.5, 0.75, 0.9),
                     where_expr=where_expr)
    return t.with_columns(pl.lit(label).alias("ended"))


def compute(games, ctx: Context) -> pl.DataFrame:
    w = pl.col("winner")
    parts = [_summary(games, ctx, "all"),
             _summary(games, ctx, "scored", ~w.is_in([ALL_LOSE, TIMEOUT])),
             _summary(games, ctx, "all_lose", w == ALL_LOSE)]
    t = pl.concat(parts, how="vertical_relaxed")
    t = with_t_interval(t, "rounds_mean", "rounds_sd", "games", prefix="rounds_")
    cols = [*keys(ctx), "ended", "games", "rounds_mean", "rounds_lo", "rounds_hi", "rounds_sd",
            "rounds_min", "rounds_p10", "rounds_p25", "rounds_median", "rounds_p75", "rounds_p90",
            "rounds_max"]
    t = t.select(cols).with_columns(
        pl.col("ended").replace_strict({c: i for i, c in enumerate(CLASSES)}, return_dtype=pl.Int8).alias("_e"))
    return sort_groups(t, ctx, "_e").drop("_e")


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
