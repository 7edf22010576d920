"""Outcome rates: each team's win rate, draw, all-lose, solo win and timeout rates."""
from __future__ import annotations

import polars as pl

from sim.games.peer_to_peer.report_metrics._common import (ALL_LOSE, DRAW, SOLO_WIN, TIMEOUT, WIN_A, WIN_B,
                                     collect, keys, lazy, sort_groups)
from sim.core.plots import MAX_PANELS, category, grouped_points, new_figure
from sim.core.report_metric import Context, Metric
from sim.core.stats import with_wilson

OUTCOMES = (("A_win", WIN_A), ("B_win", WIN_B), ("draw", DRAW), ("all_lose", ALL_LOSE),
            ("solo_win", SOLO_WIN), ("timeout", TIMEOUT))
SOLO_OUTCOMES = {"solo_win", "all_lose", "timeout"}
TEAM_OUTCOMES = {"A_win", "B_win", "draw", "all_lose", "timeout"}


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    g = keys(ctx)
    counts = collect(lazy(games).group_by(g).agg(
        pl.len().alias("games"),
        *[(pl.col("winner") == code).sum().alias(name) for name, code in OUTCOMES]))
    long = counts.unpivot(index=[*g, "games"], variable_name="outcome", value_name="count")
    long = long.filter(pl.when(pl.col("players") == 1)
                       .then(pl.col("outcome").is_in(list(SOLO_OUTCOMES)))
                       .otherwise(pl.col("outcome").is_in(list(TEAM_OUTCOMES))))
    long = long.with_columns(pl.col("games").cast(pl.Int64), pl.col("count").cast(pl.Int64))
    order = {name: i for i, (name, _) in enumerate(OUTCOMES)}
    long = long.with_columns(pl.col("outcome").replace_strict(order, return_dtype=pl.Int8).alias("_o"))
    long = sort_groups(long, ctx, "_o").drop("_o")
    return with_wilson(long, "count", "games", prefix="", z=ctx.z)


def plot(table: pl.DataFrame, games: pl.DataFrame, ctx: Context):
    if table.height == 0:
        return None
    pairings = table["pairing"].unique(maintain_order=True).to_list()[:MAX_PANELS]
    fig, axes = new_figure(len(pairings))
    for ax, pairing in zip(axes, pairings):
        t = table.filter(pl.col("pairing") == pairing)
        cats = t.select("players", "variant", "games").unique(maintain_order=True)
        labels = [category(r["players"], r["variant"], r["games"]) for r in cats.iter_rows(named=True)]
        series = []
        for name in ("A_win", "B_win", "draw", "solo_win"):
            rows = {(r["players"], r["variant"]): r for r in
                    t.filter(pl.col("outcome") == name).iter_rows(named=True)}
            if not rows:
                continue
            pick = [rows.get((c["players"], c["variant"])) for c in cats.iter_rows(named=True)]
            series.append((name.replace("_", " "),
                           [r["rate"] if r else float("nan") for r in pick],
                           [r["lo"] if r else float("nan") for r in pick],
                           [r["hi"] if r else float("nan") for r in pick]))
        grouped_points(ax, labels, series, ylabel="rate (%) with 95 % Wilson interval",
                       xlabel="player count (n = games)")
        ax.set_title(f"Win rate by player count: {pairing}", fontsize=10)
    return fig


METRIC = Metric(
    name="outcomes",
    title="Outcomes: win, draw and all-lose rates",
    requires=("winner", "players"),
    compute=compute,
    plot=plot,
    order=10,
    description=("Share of all games ending in each outcome, by player count, strategy pairing "
                 "and compensation mode. Team outcomes (A win, B win, draw, all lose, timeout) "
                 "for 2-6 players; solo win, all lose and timeout for 1 player. Each rate has "
                 "its 95 % Wilson interval; the game is the unit."),
)
