"""PLAI: hostile takeovers tried and won, and bluffs called."""
from __future__ import annotations

import polars as pl

from sim.core.report_metric import keys, rate_table, sort_groups
from sim.games.plai.report_metrics._plai import ratio_aggs, with_ratio
from sim.core.plots import players_panel
from sim.core.report_metric import Context, Metric
from sim.core.stats import with_t_interval

FIGHTS = pl.col("regional_attacked") + pl.col("venture_attacked") + pl.col("takeovers")


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    tk, won, bluffs = (pl.col(c).cast(pl.Float64) for c in ("takeovers", "takeovers_won",
                                                           "bluffs_called"))
    t = rate_table(
        games, ctx, {"games_with_takeover": pl.col("takeovers") > 0},
        {"any_takeover": "games_with_takeover"},
        extra=[tk.sum().cast(pl.Int64).alias("takeovers"),
               won.sum().cast(pl.Int64).alias("takeovers_won"),
               tk.mean().alias("takeovers_mean"), tk.std().alias("_tk_sd"),
               *ratio_aggs(pl.col("takeovers_won"), pl.col("takeovers"), "takeover_won"),
               FIGHTS.sum().cast(pl.Int64).alias("fights"),
               bluffs.sum().cast(pl.Int64).alias("bluffs_called"),
               bluffs.mean().alias("bluffs_called_mean"), bluffs.std().alias("_b_sd"),
               *ratio_aggs(pl.col("bluffs_called"), FIGHTS, "bluff_called_per_fight")])
    t = with_t_interval(t, "takeovers_mean", "_tk_sd", "games", prefix="takeovers_")
    t = with_t_interval(t, "bluffs_called_mean", "_b_sd", "games", prefix="bluffs_called_")
    t = with_ratio(t, "takeover_won", ctx.z)
    t = with_ratio(t, "bluff_called_per_fight", ctx.z)
    cols = [*keys(ctx), "games", "games_with_takeover", "any_takeover_rate", "any_takeover_lo",
            "any_takeover_hi", "takeovers", "takeovers_mean", "takeovers_lo", "takeovers_hi",
            "takeovers_won", "takeover_won_rate", "takeover_won_lo", "takeover_won_hi",
            "fights", "bluffs_called", "bluffs_called_mean", "bluffs_called_lo",
            "bluffs_called_hi", "bluff_called_per_fight_rate", "bluff_called_per_fight_lo",
            "bluff_called_per_fight_hi"]
    return sort_groups(t.select(cols), ctx)


def plot(table: pl.DataFrame, games: pl.DataFrame, ctx: Context):
    return players_panel(table, [
        (f"{label} (95 % interval)", table[f"{stem}_rate"], table[f"{stem}_lo"], table[f"{stem}_hi"])
        for stem, label in (("any_takeover", "games with a takeover"),
                            ("takeover_won", "takeovers won by the attacker"),
                            ("bluff_called_per_fight", "fights ending in a called bluff"))],
        "share (%)", "Hostile takeovers and called bluffs")


METRIC = Metric(
    name="plai_takeovers",
    title="Hostile takeovers tried and won; bluffs called",
    requires=("players", "takeovers", "takeovers_won", "bluffs_called", "regional_attacked",
              "venture_attacked"),
    compute=compute,
    plot=plot,
    order=80,
    description=("Hostile takeovers (PLAI-T1): share of games with at least one (Wilson), "
                 "takeovers per game (t interval) and the share the attacker won (ratio of "
                 "sums, delta-method interval with games as the unit). Bluffs called "
                 "(PLAI-F4: a side without a real card facing a real one loses): per game, "
                 "and per fight of any kind (regional, venture, takeover)."),
)
