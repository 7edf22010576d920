"""PLAI: the fight-win contribution of each card, from the per-card fight columns the
engine writes for every game (runs made before it did: a replayed sample, see
reports/plai_fights.py)."""
from __future__ import annotations

import re

import numpy as np
import polars as pl

from reports.metrics._common import keys, sort_groups
from reports.metrics._plai import PLAI, ratio_aggs, with_ratio
from reports.plots import COLORS, new_figure
from reports.registry import Context, Finding, Metric
from reports.wording import pp

FIGHTS = pl.col("regional_attacked") + pl.col("venture_attacked") + pl.col("takeovers")
ATT_WON = pl.col("regional_attack_won") + pl.col("venture_attack_won") + pl.col("takeovers_won")
SIDES = {"attack": ("card_att", ATT_WON), "defense": ("card_def", FIGHTS - ATT_WON)}
MAX_PLOT_PANELS = 3


def card_indices(columns) -> list[int]:
    return sorted(int(m.group(1)) for c in columns if (m := re.fullmatch(r"card_att_(\d+)", c)))


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    cards = card_indices(games.columns)
    if not cards:
        return pl.DataFrame()
    counted = pl.any_horizontal(pl.col(f"card_att_{k}").is_not_null() for k in cards)
    total = games.group_by(keys(ctx)).agg(pl.len().cast(pl.Int64).alias("games"))
    sample = games.filter(counted)
    parts = []
    for side, (prefix, side_won) in SIDES.items():
        for k in cards:
            played, won = pl.col(f"{prefix}_{k}"), pl.col(f"{prefix}_won_{k}")
            t = sample.group_by(keys(ctx)).agg(
                pl.len().cast(pl.Int64).alias("games_counted"),
                FIGHTS.sum().cast(pl.Int64).alias("fights"),
                played.sum().cast(pl.Int64).alias("played"),
                won.sum().cast(pl.Int64).alias("won"),
                *ratio_aggs(won, played, "with"),
                *ratio_aggs(side_won - won, FIGHTS - played, "without"))
            t = with_ratio(with_ratio(t, "with", ctx.z), "without", ctx.z)
            card_id = ctx.card_ids[k] if k < len(ctx.card_ids) else str(k)
            parts.append(t.with_columns(pl.lit(side).alias("side"), pl.lit(k).alias("_k"),
                                        pl.lit(card_id).alias("card"),
                                        pl.lit(ctx.card_name(card_id)).alias("name")))
    t = pl.concat(parts, how="vertical_relaxed").filter(pl.col("played") > 0)
    t = t.join(total, on=keys(ctx), how="left")
    # MOVER (Newcombe-style) interval of the difference from the two intervals
    d = pl.col("with_rate") - pl.col("without_rate")
    t = t.with_columns(
        d.alias("contribution_diff"),
        (d - ((pl.col("with_rate") - pl.col("with_lo")) ** 2
              + (pl.col("without_hi") - pl.col("without_rate")) ** 2).sqrt()).alias("contribution_lo"),
        (d + ((pl.col("with_hi") - pl.col("with_rate")) ** 2
              + (pl.col("without_rate") - pl.col("without_lo")) ** 2).sqrt()).alias("contribution_hi"))
    cols = [*keys(ctx), "side", "card", "name", "games", "games_counted", "fights", "played", "won",
            "with_rate", "with_lo", "with_hi", "without_rate", "without_lo", "without_hi",
            "contribution_diff", "contribution_lo", "contribution_hi"]
    t = t.with_columns(pl.when(pl.col("side") == "attack").then(0).otherwise(1).alias("_s"))
    return sort_groups(t, ctx, "_s", "_k").select(cols)


def findings(table: pl.DataFrame, ctx: Context) -> list[Finding]:
    if table.height == 0:
        return []
    out = []
    for side in SIDES:
        sub = table.filter((pl.col("side") == side) & pl.col("contribution_diff").is_not_nan())
        if sub.height == 0:
            continue
        best = sub.sort("contribution_diff", descending=True).row(0, named=True)
        out.append(Finding("plai_card_fights", "info", (
            f"{best['players']} players, {best['pairing']}: on the {side}, {best['name']} "
            f"(card {best['card']}) adds the most: its side wins {pp(best['contribution_diff'])} "
            f"more often with it than without it (95 % interval {pp(best['contribution_lo'])} to "
            f"{pp(best['contribution_hi'])}; {best['played']:,} fights in "
            f"{_games_text(best['games_counted'], best['games'])}). This is an association: "
            "strategies choose when to play a card.")))
    return out


def _games_text(counted: int, games: int) -> str:
    if counted == games:
        return f"all {games:,} games"
    return f"{counted:,} of {games:,} games, replayed (a run made before the engine counted cards)"


def plot(table: pl.DataFrame, games: pl.DataFrame, ctx: Context):
    if table.height == 0:
        return None
    groups = table.select("players", "pairing", "compensation").unique(maintain_order=True).rows()
    groups = groups[:MAX_PLOT_PANELS]
    labels = table.select("card", "name").unique(maintain_order=True).rows()
    fig, axes = new_figure(len(groups), panel_height=max(3.0, 0.22 * len(labels) + 1.2))
    y = np.arange(len(labels), dtype=float)
    for ax, (p, pair, comp) in zip(axes, groups):
        sub = table.filter((pl.col("players") == p) & (pl.col("pairing") == pair)
                           & (pl.col("compensation") == comp))
        for j, side in enumerate(SIDES):
            est, lo, hi = (np.full(len(labels), np.nan) for _ in range(3))
            for r in sub.filter(pl.col("side") == side).iter_rows(named=True):
                i = labels.index((r["card"], r["name"]))
                est[i], lo[i], hi[i] = (100 * r[f"contribution_{x}"] for x in ("diff", "lo", "hi"))
            ok = ~np.isnan(est)
            err = np.vstack([np.nan_to_num(est - lo), np.nan_to_num(hi - est)])[:, ok]
            ax.errorbar(est[ok], y[ok] + (0.18 if j else -0.18), xerr=err, fmt="o", ms=4,
                        capsize=2, color=COLORS[j], label=f"on the {side}")
        ax.axvline(0, color="black", lw=0.8)
        ax.set_yticks(y, [f"{name} ({cid})" for cid, name in labels], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("side's fight-win rate with the card minus without it (pp)")
        n = int(sub["games_counted"].max()) if sub.height else 0
        total = int(sub["games"].max()) if sub.height else 0
        n_text = f"all {total:,} games" if n == total else f"{n:,} of {total:,} games, replayed"
        ax.set_title(f"{p} players, {pair}: fight-win contribution by card "
                     f"(n = {n_text})", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
        ax.legend(fontsize=8)
    return fig


METRIC = Metric(
    name="plai_card_fights",
    title="Fight-win contribution of each card",
    games=PLAI,
    requires=("players", "card_att_*", "regional_attacked", "venture_attacked", "takeovers",
              "regional_attack_won", "venture_attack_won", "takeovers_won"),
    compute=compute,
    findings=findings,
    plot=plot,
    order=90,
    description=("For every card and side (attack or defense): the fights it was played in "
                 "(a negate card counts for the side that used it; the maintainers' help cards "
                 "for the attack), the share its side won (with), the share the same side won "
                 "in fights without it (without), and the difference (contribution). Rates are "
                 "ratios of sums over games with delta-method 95 % intervals (games as the "
                 "unit); the difference's interval combines the two (MOVER, as Newcombe's). "
                 "The engine counts every game (games_counted = games); only runs made before it "
                 "did are covered by replaying their first 2,000 games (reports/plai_fights.py). A "
                 "contribution is an association, not a causal effect: strategies choose when "
                 "to play a card."),
)
