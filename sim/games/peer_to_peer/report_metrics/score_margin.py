"""Distribution of the score margin (team A's score minus team B's) in scored games."""
from __future__ import annotations

import numpy as np
import polars as pl

from sim.games.peer_to_peer.report_metrics._common import DRAW, WIN_A, WIN_B, keys, sort_groups
from sim.core.plots import COLORS, MAX_PANELS, new_figure
from sim.core.report_metric import Context, Metric, collect, distribution, lazy
from sim.core.stats import with_t_interval, with_wilson


SCORED = (pl.col("players") >= 2) & pl.col("winner").is_in([WIN_A, WIN_B, DRAW])
MARGIN = pl.col("score_a").cast(pl.Int64) - pl.col("score_b").cast(pl.Int64)


def compute(games, ctx: Context) -> pl.DataFrame:
    t = distribution(games, MARGIN, ctx, "margin_", (0.1, 0.5, 0.9), where_expr=SCORED)
    a = distribution(games, MARGIN.abs(), ctx, "abs_margin_", (), count_name="_n",
                     where_expr=SCORED).select(*keys(ctx), "abs_margin_mean", "abs_margin_sd")
    level = collect(lazy(games).filter(SCORED).group_by(keys(ctx))
                    .agg((MARGIN == 0).sum().cast(pl.Int64).alias("level_scores")))
    t = t.join(a, on=keys(ctx), how="left", nulls_equal=True).join(level, on=keys(ctx), how="left",
                                                                    nulls_equal=True)
    t = with_t_interval(t, "margin_mean", "margin_sd", "games", prefix="margin_")
    t = with_t_interval(t, "abs_margin_mean", "abs_margin_sd", "games", prefix="abs_margin_")
    t = with_wilson(t, "level_scores", "games", prefix="level_", z=ctx.z)
    cols = [*keys(ctx), "games", "margin_mean", "margin_lo", "margin_hi", "margin_sd",
            "abs_margin_mean", "abs_margin_lo", "abs_margin_hi", "level_scores", "level_rate",
            "level_lo", "level_hi", "margin_min", "margin_p10", "margin_median", "margin_p90",
            "margin_max"]
    return sort_groups(t.select(cols), ctx)


def plot(table: pl.DataFrame, games, ctx: Context):
    counts = collect(lazy(games).filter(SCORED).group_by(*keys(ctx), MARGIN.alias("_m"))
                     .agg(pl.len().alias("_c")))
    if counts.height == 0:
        return None
    scored = counts
    pairings = scored["pairing"].unique().sort().to_list()[:MAX_PANELS]
    lo, hi = int(scored["_m"].min()), int(scored["_m"].max())
    bins = np.arange(lo - 0.5, hi + 1.5, 1.0) if hi - lo <= 80 else 60
    fig, axes = new_figure(len(pairings))
    for ax, pairing in zip(axes, pairings):
        sub = scored.filter(pl.col("pairing") == pairing)
        groups = sub.select("players", "variant").unique().sort("players", "variant").rows()
        for j, (players, comp) in enumerate(groups):
            r = sub.filter((pl.col("players") == players) & (pl.col("variant") == comp))
            x, w = r["_m"].to_numpy(), r["_c"].to_numpy().astype(float)
            label = f"{players}p" + (f" {comp}" if comp != "n/a" else "") + f" (n={int(w.sum()):,})"
            ax.hist(x, bins=bins, weights=w, density=True, histtype="step", lw=1.5,
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
