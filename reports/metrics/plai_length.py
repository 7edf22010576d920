"""PLAI: distribution of game length in turns."""
from __future__ import annotations

import polars as pl

from reports.metrics._common import keys, length_histograms, sort_groups
from reports.metrics._plai import OUT_MAINTAINERS, OUT_SEAT, OUT_STALEMATE
from reports.registry import Context, Metric
from sim.core.stats import with_t_interval

ENDED = {"all": None, "seat_win": OUT_SEAT, "maintainers": OUT_MAINTAINERS,
         "stalemate": OUT_STALEMATE}
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


def _summary(df: pl.DataFrame, ctx: Context, label: str) -> pl.DataFrame:
    r = pl.col("turns").cast(pl.Float64)
    names = {0.5: "turns_median"}
    t = (df.group_by(keys(ctx))
         .agg(pl.len().cast(pl.Int64).alias("games"), r.mean().alias("turns_mean"),
              r.std().alias("turns_sd"), r.min().alias("turns_min"),
              *[(r.median() if q == 0.5 else r.quantile(q, "nearest"))
                .alias(names.get(q, f"turns_p{int(q * 100)}")) for q in QUANTILES],
              r.max().alias("turns_max")))
    return t.with_columns(pl.lit(label).alias("ended"))


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    # Only the columns used: filtering the whole table (with its per-card columns) would
    # copy every column of the matching rows.
    games = games.select(*keys(ctx), "outcome", "turns")
    parts = [_summary(games if code is None else games.filter(pl.col("outcome") == code), ctx, label)
             for label, code in ENDED.items()]
    t = pl.concat(parts, how="vertical_relaxed")
    t = with_t_interval(t, "turns_mean", "turns_sd", "games", prefix="turns_")
    cols = [*keys(ctx), "ended", "games", "turns_mean", "turns_lo", "turns_hi", "turns_sd",
            "turns_min", "turns_p10", "turns_p25", "turns_median", "turns_p75", "turns_p90",
            "turns_max"]
    order = {label: i for i, label in enumerate(ENDED)}
    t = t.select(cols).with_columns(
        pl.col("ended").replace_strict(order, return_dtype=pl.Int8).alias("_e"))
    return sort_groups(t, ctx, "_e").drop("_e")


def plot(table: pl.DataFrame, games: pl.DataFrame, ctx: Context):
    return length_histograms(games, "turns", "turns")


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
