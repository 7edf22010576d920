"""Distribution of the score margin (team A's score minus team B's) in scored games."""
from __future__ import annotations

import numpy as np
import polars as pl

from reports.metrics._common import DRAW, WIN_A, WIN_B, keys, sort_groups
from reports.plots import COLORS, MAX_PANELS, new_figure
from reports.registry import Context, Metric
from sim.core.stats import with_t_interval, with_wilson


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    scored = games.filter((pl.col("players") >= 2) & pl.col("winner").is_in([WIN_A, WIN_B, DRAW]))
    m = (pl.col("score_a").cast(pl.Float64) - pl.col("score_b").cast(pl.Float64))
    t = (scored.group_by(keys(ctx))
         .agg(pl.len().cast(pl.Int64).alias("games"),
              m.mean().alias("margin_mean"), m.std().alias("margin_sd"),
              m.abs().mean().alias("abs_margin_mean"), m.abs().std().alias("abs_margin_sd"),
              (m == 0).sum().cast(pl.Int64).alias("level_scores"),
              m.min().alias("margin_min"), m.quantile(0.1, "nearest").alias("margin_p10"),
              m.median().alias("margin_median"), m.quantile(0.9, "nearest").alias("margin_p90"),
              m.max().alias("margin_max")))
    t = with_t_interval(t, "margin_mean", "margin_sd", "games", prefix="margin_")
    t = with_t_interval(t, "abs_margin_mean", "abs_margin_sd", "games", prefix="abs_margin_")
    t = with_wilson(t, "level_scores", "games", prefix="level_", z=ctx.z)
    cols = [*keys(ctx), "games", "margin_mean", "margin_lo", "margin_hi", "margin_sd",
            "abs_margin_mean", "abs_margin_lo", "abs_margin_hi", "level_scores", "level_rate",
            "level_lo", "level_hi", "margin_min", "margin_p10", "margin_median", "margin_p90",
            "margin_max"]
    return sort_groups(t.select(cols), ctx)


def plot(table: pl.DataFrame, games: pl.DataFrame, ctx: Context):
    scored = games.filter((pl.col("players") >= 2) & pl.col("winner").is_in([WIN_A, WIN_B, DRAW]))
    if scored.height == 0:
        return None
    scored = scored.with_columns((pl.col("score_a").cast(pl.Int64) - pl.col("score_b").cast(pl.Int64)).alias("_m"))
    pairings = scored["pairing"].unique().sort().to_list()[:MAX_PANELS]
    lo, hi = int(scored["_m"].min()), int(scored["_m"].max())
    bins = np.arange(lo - 0.5, hi + 1.5, 1.0) if hi - lo <= 80 else 60
    fig, axes = new_figure(len(pairings))
    for ax, pairing in zip(axes, pairings):
        sub = scored.filter(pl.col("pairing") == pairing)
        groups = sub.select("players", "compensation").unique().sort("players", "compensation").rows()
        for j, (players, comp) in enumerate(groups):
            x = sub.filter((pl.col("players") == players) & (pl.col("compensation") == comp))["_m"].to_numpy()
            label = f"{players}p" + (f" {comp}" if comp != "n/a" else "") + f" (n={x.size:,})"
            ax.hist(x, bins=bins, density=True, histtype="step", lw=1.5,
                    color=COLORS[j % len(COLORS)], label=label)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_xlabel("score margin, team A minus team B (cards)")
        ax.set_ylabel("share of scored games")
        ax.set_title(f"Score margin: {pairing}", fontsize=10)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    return fig


METRIC = Metric(
    name="score_margin",
    title="Score margin (A minus B)",
    requires=("winner", "players", "score_a", "score_b"),
    compute=compute,
    plot=plot,
    order=70,
    description=("In games that were scored (A win, B win or draw; 2-6 players), the margin "
                 "score_a - score_b: mean and mean absolute margin with t intervals, the share "
                 "of level scores (decided by the value tie-break or drawn; Wilson) and quantiles."),
)
