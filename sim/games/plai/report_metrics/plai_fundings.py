"""PLAI: fundings by type, the share attacked, and who won the fight."""
from __future__ import annotations

import polars as pl

from sim.core.report_metric import collect, lazy, keys, sort_groups
from sim.games.plai.report_metrics._plai import ratio_aggs, with_ratio
from sim.core.plots import category, grouped_points, new_figure
from sim.core.report_metric import Context, Metric
from sim.core.stats import with_t_interval

# type -> (fundings column, attacked column, attack-won column); family funding cannot be
# attacked (PLAI-T1), so it has no fight columns.
TYPES = {"family": ("fund_family", None, None),
         "regional": ("fund_regional", "regional_attacked", "regional_attack_won"),
         "venture": ("fund_venture", "venture_attacked", "venture_attack_won")}


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    parts = []
    for kind, (funded, attacked, won) in TYPES.items():
        f = pl.col(funded).cast(pl.Float64)
        aggs = [pl.len().cast(pl.Int64).alias("games"), f.sum().cast(pl.Int64).alias("fundings"),
                f.mean().alias("per_game_mean"), f.std().alias("per_game_sd")]
        if attacked is not None:
            aggs += [pl.col(attacked).sum().cast(pl.Int64).alias("attacked"),
                     pl.col(won).sum().cast(pl.Int64).alias("attack_won"),
                     *ratio_aggs(pl.col(attacked), pl.col(funded), "attacked_share"),
                     *ratio_aggs(pl.col(won), pl.col(attacked), "attacker_won")]
        t = collect(lazy(games).group_by(keys(ctx)).agg(aggs))
        if attacked is not None:
            t = with_ratio(with_ratio(t, "attacked_share", ctx.z), "attacker_won", ctx.z)
        else:
            t = t.with_columns(*(pl.lit(v).alias(n) for n, v in
                                 (("attacked", 0), ("attack_won", 0))),
                               *(pl.lit(None, dtype=pl.Float64).alias(f"{s}_{x}")
                                 for s in ("attacked_share", "attacker_won")
                                 for x in ("rate", "lo", "hi")))
        parts.append(t.with_columns(pl.lit(kind).alias("funding")))
    t = pl.concat(parts, how="diagonal_relaxed")
    t = with_t_interval(t, "per_game_mean", "per_game_sd", "games", prefix="per_game_")
    t = t.with_columns((pl.col("attacked") - pl.col("attack_won")).alias("funder_won"))
    cols = [*keys(ctx), "funding", "games", "fundings", "per_game_mean", "per_game_lo",
            "per_game_hi", "attacked", "attacked_share_rate", "attacked_share_lo",
            "attacked_share_hi", "attack_won", "funder_won", "attacker_won_rate",
            "attacker_won_lo", "attacker_won_hi"]
    order = {k: i for i, k in enumerate(TYPES)}
    t = t.select(cols).with_columns(pl.col("funding").replace_strict(order, return_dtype=pl.Int8).alias("_k"))
    return sort_groups(t, ctx, "_k").drop("_k")


def plot(table: pl.DataFrame, games: pl.DataFrame, ctx: Context):
    fought = table.filter(pl.col("funding") != "family")
    if fought.height == 0:
        return None
    groups = fought.select("players", "pairing", "variant", "games").unique(maintain_order=True).rows()
    labels = [category(p, None, n) for p, _, _, n in groups]
    fig, axes = new_figure(2)
    for ax, stem, ylabel in ((axes[0], "attacked_share", "fundings attacked (%)"),
                             (axes[1], "attacker_won", "attacks won by the attacker (%)")):
        series = []
        for kind in ("regional", "venture"):
            rows = [fought.filter((pl.col("players") == p) & (pl.col("pairing") == pair)
                                  & (pl.col("variant") == comp) & (pl.col("funding") == kind))
                    for p, pair, comp, _ in groups]
            series.append((kind, *[[r[f"{stem}_{x}"][0] if r.height else float("nan") for r in rows]
                                   for x in ("rate", "lo", "hi")]))
        grouped_points(ax, labels, series, ylabel=ylabel, xlabel="players")
    axes[0].set_title("Share of fundings attacked, and who won (95 % intervals, games as the unit)",
                      fontsize=10)
    return fig


METRIC = Metric(
    name="plai_fundings",
    title="Fundings by type: how often attacked, and who won",
    requires=("players", "fund_family", "fund_regional", "fund_venture", "regional_attacked",
              "regional_attack_won", "venture_attacked", "venture_attack_won"),
    compute=compute,
    plot=plot,
    order=70,
    description=("Fundings taken by startups (PLAI-T1), by type: per-game mean with its t "
                 "interval; for regional pitches and venture capital the share attacked "
                 "(attacked / fundings) and, of the attacked ones, the share the attacker won "
                 "(the funder won the rest). Shares are ratios of sums over games with "
                 "delta-method 95 % intervals that treat the game as the sampling unit. Family "
                 "funding cannot be attacked; maintainers' family fundings into the pool are "
                 "not counted here."),
)
