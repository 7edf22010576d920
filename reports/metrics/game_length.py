"""Distribution of game length in rounds."""
from __future__ import annotations

import polars as pl

from reports.metrics._common import (
    ALL_LOSE,
    TIMEOUT,
    keys,
    length_histograms,
    sort_groups,
)
from reports.registry import Context, Metric
from sim.core.stats import with_t_interval

CLASSES = ("all", "scored", "all_lose")


def _summary(df: pl.DataFrame, ctx: Context, label: str) -> pl.DataFrame:
    r = pl.col("rounds").cast(pl.Float64)
    t = (df.group_by(keys(ctx))
         .agg(pl.len().cast(pl.Int64).alias("games"),
              r.mean().alias("rounds_mean"), r.std().alias("rounds_sd"),
              r.min().alias("rounds_min"),
              *[r.quantile(q, "nearest").alias(f"rounds_p{int(q * 100)}") for q in (0.1, 0.25)],
              r.median().alias("rounds_median"),
              *[r.quantile(q, "nearest").alias(f"rounds_p{int(q * 100)}") for q in (0.75, 0.9)],
              r.max().alias("rounds_max")))
    return t.with_columns(pl.lit(label).alias("ended"))


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    w = pl.col("winner")
    games = games.select(*keys(ctx), "winner", "rounds")  # filters below copy only these
    parts = [_summary(games, ctx, "all"),
             _summary(games.filter(~w.is_in([ALL_LOSE, TIMEOUT])), ctx, "scored"),
             _summary(games.filter(w == ALL_LOSE), ctx, "all_lose")]
    t = pl.concat(parts, how="vertical_relaxed")
    t = with_t_interval(t, "rounds_mean", "rounds_sd", "games", prefix="rounds_")
    cols = [*keys(ctx), "ended", "games", "rounds_mean", "rounds_lo", "rounds_hi", "rounds_sd",
            "rounds_min", "rounds_p10", "rounds_p25", "rounds_median", "rounds_p75", "rounds_p90",
            "rounds_max"]
    t = t.select(cols).with_columns(
        pl.col("ended").replace_strict({c: i for i, c in enumerate(CLASSES)}, return_dtype=pl.Int8).alias("_e"))
    return sort_groups(t, ctx, "_e").drop("_e")


def plot(table: pl.DataFrame, games: pl.DataFrame, ctx: Context):
    return length_histograms(games, "rounds", "rounds")


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
