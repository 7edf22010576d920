"""PLAI: the fight-win contribution of each card, from the per-card fight columns the
engine writes for every game (runs made before it did: a replayed sample, see
reports/card_fights.py)."""
from __future__ import annotations

import re
import textwrap

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
MAX_PLOT_PANELS = 8   # beyond this the figure is too tall to read; a note names the rest
CARDS_PER_PASS = 2   # cards aggregated per pass over the games (see compute)


def card_indices(columns) -> list[int]:
    return sorted(int(m.group(1)) for c in columns if (m := re.fullmatch(r"card_att_(\d+)", c)))


def compute(games, ctx: Context) -> pl.DataFrame:
    cards = card_indices(columns(games))
    if not cards:
        return pl.DataFrame()
    # Per group (ctx keys) and card, a handful of integer sums over the games, aggregated
    # lazily on polars' streaming engine: memory does not grow with the run however many
    # per-card columns it has. Games without card counts (a run made before the engine
    # wrote them, beyond its replayed sample) count in ``games`` only. Sums of integers in
    # Int64: exact, so the rates are those of summing the games one by one.
    g = keys(ctx)
    frame = lazy(games)
    counted = pl.any_horizontal(pl.col(f"card_att_{k}").is_not_null() for k in cards)
    total = frame.group_by(*g).agg(pl.len().cast(pl.Int64).alias("games"))

    def n(expr: pl.Expr) -> pl.Expr:
        return expr.fill_null(0).cast(pl.Int64)

    fights = n(FIGHTS)

    def card_sums(k: int) -> list[pl.Expr]:
        out = []
        for s, (prefix, side_won_expr) in enumerate(SIDES.values()):
            side_won = n(side_won_expr)
            played, won = n(pl.col(f"{prefix}_{k}")), n(pl.col(f"{prefix}_won_{k}"))
            for stem, x, y in (("with", won, played),
                               ("without", side_won - won, fights - played)):
                out += [x.sum().alias(f"{s}_{k}_{stem}_x"), (x * x).sum().alias(f"{s}_{k}_{stem}_xx"),
                        (x * y).sum().alias(f"{s}_{k}_{stem}_xy"), y.sum().alias(f"{s}_{k}_{stem}_y"),
                        (y * y).sum().alias(f"{s}_{k}_{stem}_yy")]
            out += [played.sum().alias(f"{s}_{k}_played"), won.sum().alias(f"{s}_{k}_won")]
        return out

    # A few cards per pass: the streaming engine evaluates every aggregate's input for a
    # batch of games at once, so one pass over all cards (~800 inputs) held ~1.5 GB at
    # 1e7 games; each pass reads only its cards' columns.
    # (runs the engine wrote count every game: then no pass needs to read the filter's
    # 33 columns again)
    uncounted = collect(frame.select((~counted).sum().alias("n")))["n"][0]
    counted_games = frame.filter(counted) if uncounted else frame
    sums = collect(total)
    head = [pl.len().cast(pl.Int64).alias("games_counted"), fights.sum().alias("fights")]
    for i in range(0, len(cards), CARDS_PER_PASS):
        batch = [e for k in cards[i:i + CARDS_PER_PASS] for e in card_sums(k)]
        part = collect(counted_games.group_by(*g).agg(*(head if i == 0 else []), *batch))
        sums = sums.join(part, on=g, how="left", nulls_equal=True)
    parts = []
    for s, side in enumerate(SIDES):
        for k in cards:
            card_id = ctx.card_ids[k] if k < len(ctx.card_ids) else str(k)
            stems = {f"{s}_{k}_{stem}_{x}": f"_{stem}_{x}" for stem in ("with", "without")
                     for x in ("x", "xx", "xy", "y", "yy")}
            parts.append(sums.select(
                *g, "games", pl.col("games_counted").fill_null(0), pl.col("fights").fill_null(0),
                pl.col(f"{s}_{k}_played").fill_null(0).alias("played"),
                pl.col(f"{s}_{k}_won").fill_null(0).alias("won"),
                *(pl.col(a).fill_null(0).cast(pl.Float64).alias(b) for a, b in stems.items()),
                pl.col("games_counted").fill_null(0).alias("_with_n"),
                pl.col("games_counted").fill_null(0).alias("_without_n"),
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
    # one best card per group and side: each player count (and pairing) has its own cards
    # that matter, and the best over the whole table would speak for one count only
    for group in table.select("players", "pairing", "variant").unique(maintain_order=True).rows():
        rows = table.filter((pl.col("players") == group[0]) & (pl.col("pairing") == group[1])
                            & (pl.col("variant") == group[2]))
        for side in SIDES:
            sub = rows.filter((pl.col("side") == side) & pl.col("contribution_lo").is_not_nan())
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
    groups, left_out = groups[:MAX_PLOT_PANELS], groups[MAX_PLOT_PANELS:]
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
    if left_out:   # wrapped: many groups left out would run past the figure's edges
        fig.suptitle(textwrap.fill(
            "Not drawn (too many panels; their rows are in plai_card_fights.csv): "
            + "; ".join(f"{p} players, {pair}" for p, pair, _ in left_out), 110), fontsize=9)
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
                 "unit; never narrower than Wilson's over the pooled fights); for each "
                 "player count (and pairing) and side the finding names the card whose "
                 "contribution has the highest lower bound, and the figure draws every group "
                 f"(beyond {MAX_PLOT_PANELS} panels a note names the groups left out); the difference's interval combines the two (MOVER, as Newcombe's). "
                 "The engine counts every game (games_counted = games); only runs made before it "
                 "did are covered by replaying their first 2,000 games (reports/card_fights.py). A "
                 "contribution is an association, not a causal effect: strategies choose when "
                 "to play a card."),
)
