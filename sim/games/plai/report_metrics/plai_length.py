"""PLAI: distribution of game length in turns."""
from __future__ import annotations

import polars as pl

from sim.core.report_metric import collect, columns, lazy, keys, length_histograms, sort_groups
from sim.games.plai.report_metrics._plai import OUT_MAINTAINERS, OUT_SEAT, OUT_STALEMATE
from sim.core.report_metric import Context, Metric, distribution
from sim.core.stats import with_t_interval

ENDED = {"all": None, "seat_win": OUT_SEAT, "maintainers": OUT_MAINTAINERS,
         "stalemate": OUT_STALEMATE}
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


def _summary(games, ctx: Context, label: str, where_expr=None) -> pl.DataFrame:
    t = distribution(games, pl.col("turns"), ctx, "turns_", QUANTILES, where_expr=where_expr)
    return t.with_columns(pl.lit(label).alias("ended"))


def compute(games, ctx: Context) -> pl.DataFrame:
    parts = [_summary(games, ctx, label, None if code is None else pl.col("outcome") == code)
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
