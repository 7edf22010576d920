"""PLAI: the fight-win contribution of each card, from the per-card fight columns the
engine writes for every game (runs made before it did: a replayed sample, see
reports/plai_fights.py)."""
from __future__ import annotations

import re

import numpy as np
import polars as pl

from sim.core.report_metric import collect, columns, lazy, keys, sort_groups
from sim.games.plai.report_metrics._plai import with_ratio
from sim.core.plots import COLORS, new_figure
from sim.core.report_metric import Context, Finding, Metric
from sim.core.wording import pp

FIGHTS = pl.col("regional_attacked") + pl.col("venture_attacked") + pl.col("takeovers")
ATT_WON = pl.col("regional_attack_won") + pl.col("venture_attack_won") + pl.col("takeovers_won")
SIDES = {"attack": ("card_att", ATT_WON), "defense": ("card_def", FIGHTS - ATT_WON)}
NEEDED = ("regional_attacked", "venture_attacked", "takeovers", "regional_attack_won",
          "venture_attack_won", "takeovers_won")
MAX_PLOT_PANELS = 3


def card_indices(columns) -> list[int]:
    return sorted(int(m.group(1)) for c in columns if (m := re.fullmatch(r"card_att_(\d+)", c)))


def _ints(games: pl.DataFrame, expr: pl.Expr) -> np.ndarray:
    return games.select(expr.fill_null(0).cast(pl.Int64)).to_series().to_numpy()


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    cards = card_indices(columns(games))
    if not cards:
        return pl.DataFrame()
    # numpy sums over the games below: collect only the columns they read (the per-card
    # columns grow with the run; the Peer-to-Peer metrics aggregate lazily instead)
    games = collect(lazy(games).select(*keys(ctx), "^card_(att|att_won|def|def_won)_\\d+$",
                                       *[c for c in columns(games) if c in NEEDED]))
    # Per group (ctx keys) and card, a handful of sums over the games, one card column at a
    # time with numpy (np.bincount by group), so that a report on millions of games with 4
    # columns per card needs no copy of the table. Sums of integers: exact.
    key = pl.concat_str([pl.col(k).cast(pl.Utf8) for k in keys(ctx)], separator="\x1f")
    index = games.select((key.rank("dense") - 1).cast(pl.Int64).alias("_g"), *keys(ctx))
    groups = index.unique("_g").sort("_g")
    n_groups = groups.height
    gid = index["_g"].to_numpy().copy()
    counted = games.select(pl.any_horizontal(pl.col(f"card_att_{k}").is_not_null()
                                             for k in cards)).to_series().to_numpy()
    total = np.bincount(gid, minlength=n_groups)
    gid[~counted] = n_groups                 # games without card counts: a bin left out

    one = n_groups == 1 and bool(counted.all())   # the usual case: one run, all counted

    def sums(x):
        if one:
            return np.array([x.sum()], dtype=np.float64)
        return np.bincount(gid, weights=x.astype(np.float64), minlength=n_groups + 1)[:n_groups]

    def dots(x, y):
        if one:
            return np.array([np.dot(x, y)], dtype=np.float64)
        return sums(x * y)

    def ratio_sums(x, y, stem):
        return {f"_{stem}_x": sums(x), f"_{stem}_xx": dots(x, x), f"_{stem}_xy": dots(x, y),
                f"_{stem}_y": sums(y), f"_{stem}_yy": dots(y, y)}

    n_counted = np.bincount(gid, minlength=n_groups + 1)[:n_groups]
    fights = _ints(games, FIGHTS)
    fights_sum = sums(fights)
    parts = []
    for side, (prefix, side_won_expr) in SIDES.items():
        side_won = _ints(games, side_won_expr)
        for k in cards:
            played = _ints(games, pl.col(f"{prefix}_{k}"))
            won = _ints(games, pl.col(f"{prefix}_won_{k}"))
            card_id = ctx.card_ids[k] if k < len(ctx.card_ids) else str(k)
            sums_out = {"games": total, "games_counted": n_counted,
                       "fights": fights_sum.astype(np.int64),
                       "played": sums(played).astype(np.int64), "won": sums(won).astype(np.int64),
                       **ratio_sums(won, played, "with"), "_with_n": n_counted,
                       **ratio_sums(side_won - won, fights - played, "without"),
                       "_without_n": n_counted}
            parts.append(groups.drop("_g").with_columns(
                *(pl.Series(name, values) for name, values in sums_out.items()),
                pl.lit(side).alias("side"), pl.lit(k).alias("_k"), pl.lit(card_id).alias("card"),
                pl.lit(ctx.card_name(card_id)).alias("name")))
    t = pl.concat(parts, how="vertical_relaxed").filter(pl.col("games_counted") > 0)
    t = with_ratio(with_ratio(t, "with", ctx.z), "without", ctx.z).filter(pl.col("played") > 0)
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
        sub = table.filter((pl.col("side") == side) & pl.col("contribution_lo").is_not_nan())
        if sub.height == 0:
            continue
        # ranked by the interval's lower end: the card that surely adds the most, not a
        # card whose large estimate comes from a handful of fights
        best = sub.sort("contribution_lo", "contribution_diff", descending=True).row(0, named=True)
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
    groups = table.select("players", "pairing", "variant").unique(maintain_order=True).rows()
    groups = groups[:MAX_PLOT_PANELS]
    labels = table.select("card", "name").unique(maintain_order=True).rows()
    fig, axes = new_figure(len(groups), panel_height=max(3.0, 0.22 * len(labels) + 1.2))
    y = np.arange(len(labels), dtype=float)
    for ax, (p, pair, comp) in zip(axes, groups):
        sub = table.filter((pl.col("players") == p) & (pl.col("pairing") == pair)
                           & (pl.col("variant") == comp))
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
                 "unit; never narrower than Wilson's over the pooled fights); the finding "
                 "names the card whose contribution has the highest lower bound; the difference's interval combines the two (MOVER, as Newcombe's). "
                 "The engine counts every game (games_counted = games); only runs made before it "
                 "did are covered by replaying their first 2,000 games (reports/plai_fights.py). A "
                 "contribution is an association, not a causal effect: strategies choose when "
                 "to play a card."),
)
