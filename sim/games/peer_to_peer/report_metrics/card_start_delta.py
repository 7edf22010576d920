"""Per card: win-rate delta for the team that started with it as a venture (P2P-S2)."""
from __future__ import annotations

import numpy as np
import polars as pl

from sim.games.peer_to_peer.report_metrics._common import SOLO_WIN, WIN_A, WIN_B, keys, sort_groups, where
from sim.core.plots import MAX_PANELS, threshold_band
from sim.core.multiple import CONTROL_WORDS
from sim.core.report_metric import (Answer, Context, Finding, Metric, collect, columns, family_kw, in_group, lazy,
                                    schema, with_family)
from sim.core.stats import with_diff, with_wilson
from sim.core.wording import ABOVE, BELOW, NO_DATA, UNDECIDED, WITHIN, judge, level_of, verdict

SEATS = 6
MAX_LISTED = 25


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    g = keys(ctx)
    w = pl.col("winner")
    team_win = w.is_in([WIN_A, WIN_B, SOLO_WIN])
    teams = pl.when(pl.col("players") >= 2).then(2).otherwise(1)
    cols_in = columns(games)
    games = lazy(games)
    totals = collect(games.group_by(g)
              .agg((teams.sum()).cast(pl.Int64).alias("_obs"),
                   (team_win.sum() + 0).cast(pl.Int64).alias("_wins"),
                   teams.max().cast(pl.Int64).alias("_k")))  # constant per group: max streams, first does not
    won = ((pl.col("team") == 0) & pl.col("winner").is_in([WIN_A, SOLO_WIN])) | \
          ((pl.col("team") == 1) & (pl.col("winner") == WIN_B))
    # one streamed aggregate per seat (small: group x card), summed: memory flat in games
    parts = []
    for s in range(SEATS):
        c, tcol = f"start_card_{s}", f"seat_team_{s}"
        if c not in cols_in or tcol not in cols_in:
            continue
        seat = (games.select(*g, w, pl.col(c).cast(pl.Int64).alias("card"),
                             pl.col(tcol).cast(pl.Int64).alias("team"))
                .filter((pl.col("card") >= 0) & (pl.col("team") >= 0)))
        parts.append(collect(seat.group_by(*g, "card").agg(
            pl.len().cast(pl.Int64).alias("starts"),
            won.sum().cast(pl.Int64).alias("wins_with"),
            pl.col("winner").is_in([WIN_A, WIN_B, SOLO_WIN]).sum().cast(pl.Int64).alias("_games_won"))))
    empty = pl.DataFrame(schema={**{k: schema(games)[k] for k in g}, "card": pl.Int64,
                                 "starts": pl.Int64, "wins_with": pl.Int64, "_games_won": pl.Int64})
    per = (pl.concat(parts).group_by(*g, "card").agg(pl.col("starts", "wins_with", "_games_won").sum())
           if parts else empty)
    # every card seen as a start anywhere, in every group (0 starts where it never was)
    cards = per.select("card").unique()
    grid = totals.join(cards, how="cross")
    t = grid.join(per, on=[*g, "card"], how="left").with_columns(
        pl.col("starts", "wins_with", "_games_won").fill_null(0))
    t = t.with_columns((pl.col("_obs") - pl.col("starts") * pl.col("_k")).alias("obs_without"),
                       (pl.col("_wins") - pl.col("_games_won")).alias("wins_without"))
    t = with_wilson(t, "wins_with", "starts", prefix="with_", z=ctx.z)
    t = with_wilson(t, "wins_without", "obs_without", prefix="without_", z=ctx.z)
    t = with_diff(t, "wins_with", "starts", "wins_without", "obs_without", prefix="delta_", z=ctx.z)
    t = t.rename({"delta_rate": "delta_diff"})
    codes = [verdict(lo, hi, ctx.threshold_pp) for lo, hi in zip(t["delta_lo"], t["delta_hi"])]
    ids = [ctx.card_ids[i] if 0 <= i < len(ctx.card_ids) else str(i) for i in t["card"]]
    names = [ctx.card_names[i] if 0 <= i < len(ctx.card_names) else str(i) for i in t["card"]]
    t = t.with_columns(pl.Series("verdict", codes, dtype=pl.Utf8),
                       pl.Series("card_id", ids, dtype=pl.Utf8),
                       pl.Series("card_name", names, dtype=pl.Utf8))
    cols = [*g, "card", "card_id", "card_name", "starts", "wins_with", "with_rate", "with_lo",
            "with_hi", "obs_without", "wins_without", "without_rate", "without_lo", "without_hi",
            "delta_diff", "delta_lo", "delta_hi", "verdict"]
    t = with_family(t.select(cols), "delta", 0.0, ctx)   # every card x group: one family (Holm)
    return sort_groups(t, ctx, "card")


def findings(table: pl.DataFrame, ctx: Context) -> list[Finding]:
    if table.height == 0:
        return [Finding("card_start_delta", "info", "No starting ventures in these games.")]
    out = []
    tally = {ABOVE: 0, BELOW: 0, WITHIN: 0, UNDECIDED: 0, NO_DATA: 0}
    listed = 0
    alone = 0     # beyond the threshold on their own, not called after the correction
    for row in table.iter_rows(named=True):
        tally[row["verdict"]] += 1
        if row["verdict"] in (ABOVE, BELOW) and not row["called"]:
            alone += 1
        if row["verdict"] in (ABOVE, BELOW) and row["called"] and listed < MAX_LISTED:
            listed += 1
            code, text = judge(f"{where(row)}, card {row['card_name']} ({row['card_id']})",
                               "the win-rate delta of the team that started with it as a venture",
                               row["delta_diff"], row["delta_lo"], row["delta_hi"], row["starts"],
                               centre=0.0, centre_words="no difference", threshold_pp=ctx.threshold_pp,
                               method="Newcombe", above_words="the card goes with more wins",
                               below_words="the card goes with fewer wins", estimate_is_diff=True,
                               **family_kw(row))
            out.append(Finding("card_start_delta", level_of(code), text, int(row["tested"])))
    t = f"{ctx.threshold_pp:g} pp"
    m = int(table["tested"].max() or 0)
    called = int(table["called"].sum())
    summary = (f"Starting-venture deltas, {table.height} card × group rows, {m} tested as one "
               f"family with {CONTROL_WORDS}: {called} called an imbalance (the 95 % Newcombe "
               f"interval beyond ±{t} after the correction), {alone} beyond ±{t} on their own "
               f"but not after the correction, {tally[WITHIN]} within ±{t}, {tally[UNDECIDED]} "
               f"not decided, {tally[NO_DATA]} without data. These are associations, not effects "
               "(the card ablation measures effects): "
               "each seat chooses its starting venture (P2P-D1), so a card chosen in better "
               "positions looks stronger.")
    if called > listed:
        summary += f" Only the first {listed} imbalances are listed; see the CSV for all."
    return [Finding("card_start_delta", "info", summary)] + out


def _same_card(card: int, group: dict, ctx: Context):
    """The answer's card on another games table (the stronger-play check): its delta."""
    def recompute(games):
        t = compute(in_group(games, group), ctx).filter(pl.col("card") == card)
        if t.height == 0:
            return None
        r = t.row(0, named=True)
        return r["delta_diff"], r["delta_lo"], r["delta_hi"]
    return recompute


def answers(table: pl.DataFrame, ctx: Context) -> list[Answer]:
    """Per group: the card whose starting-venture delta is furthest from zero, and whether
    any card is called under Holm's correction (an association; the card ablation, when
    given, answers what a card does)."""
    out = []
    if table.height == 0:
        return out
    for _, part in table.group_by(keys(ctx), maintain_order=True):
        part = part.filter(pl.col("delta_diff").is_not_nan())
        if part.height == 0:
            continue
        top = part.with_columns(pl.col("delta_diff").abs().alias("_a")).sort("_a", descending=True)
        row = top.row(0, named=True)
        called = int(part["called"].sum())
        m = int(row["tested"])
        if called:
            words = (f"{row['card_name']} goes with {100 * row['delta_diff']:+.1f} points of wins "
                     f"as a starting venture ({called} of {m} cards × groups called, Holm; an "
                     "association, see the card ablation for the effect)")
            code = "above" if row["delta_diff"] > 0 else "below"
        else:
            words = (f"no card called ({m} tested, Holm); the largest: {row['card_name']} "
                     f"{100 * row['delta_diff']:+.1f} points (an association)")
            code = "within" if row["verdict"] == WITHIN else "undecided"
        out.append(Answer("Which card is too strong? (starting ventures)", where(row), words,
                          code, row["delta_diff"], row["delta_lo"], row["delta_hi"], kind="diff",
                          players=row["players"], order=40, key="card_strength", even=0.0,
                          group={k: row[k] for k in keys(ctx)},
                          recompute=_same_card(row["card"], {k: row[k] for k in keys(ctx)}, ctx),
                          causes=({"cause": f"card:{row['card_id']}", "share": row["delta_diff"],
                                   "lo": row["delta_lo"], "hi": row["delta_hi"],
                                   "words": f"{row['card_name']} as a starting venture "
                                            "(an association, not an effect)"},)))
    return out


def plot(table: pl.DataFrame, games: pl.DataFrame, ctx: Context):
    if table.height == 0:
        return None
    from sim.core.plots import Figure, FigureCanvasAgg  # noqa: F401 (same backend as new_figure)
    groups = table.select(*keys(ctx)).unique(maintain_order=True).rows()[:MAX_PANELS]
    n_cards = table["card"].n_unique()
    height = 0.22 * n_cards + 1.4
    fig = Figure(figsize=(9, height * len(groups) + 0.3), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(groups), 1, squeeze=False)[:, 0]
    for ax, key in zip(axes, groups):
        cond = pl.lit(True)
        for k, v in zip(keys(ctx), key):
            cond = cond & (pl.col(k) == v)
        t = table.filter(cond).sort("card", descending=True)
        d = t["delta_diff"].to_numpy() * 100
        lo = t["delta_lo"].to_numpy() * 100
        hi = t["delta_hi"].to_numpy() * 100
        y = np.arange(t.height)
        threshold_band(ax, 0.0, ctx.threshold_pp, horizontal=False)
        err = np.vstack([np.nan_to_num(d - lo), np.nan_to_num(hi - d)])
        called = t["called"].to_numpy().astype(bool)
        for mask, color, label in ((~called, "#1f77b4", "not called"), (called, "#d62728", "imbalance called")):
            if mask.any():
                ax.errorbar(d[mask], y[mask], xerr=err[:, mask], fmt="o", ms=3.5, color=color,
                            capsize=2, label=label)
        ax.set_yticks(y)
        ax.set_yticklabels([f"{n} (n={s:,})" for n, s in zip(t["card_name"], t["starts"])], fontsize=7)
        ax.set_xlabel("win-rate delta when a starting venture (pp), 95 % Newcombe interval")
        ax.set_ylabel("card (n = starts)")
        ax.set_title(f"Per-card starting-venture delta: {where(dict(zip(keys(ctx), key)))}", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    return fig


def display(table: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    """Called imbalances first, then the rest; raw counts of the baseline stay in the CSV."""
    order = {ABOVE: 1, BELOW: 1, UNDECIDED: 2, WITHIN: 3, NO_DATA: 4}
    t = table.with_columns(pl.when(pl.col("called")).then(0).otherwise(
        pl.col("verdict").replace_strict(order, return_dtype=pl.Int8)).alias("_v"))
    return t.sort("_v", *keys(ctx), "card").drop("_v", "card", "wins_with", "wins_without",
                                                 "p_beyond")


METRIC = Metric(
    name="card_start_delta",
    title="Per card: win-rate delta as a starting venture",
    requires=("winner", "players", "start_card_0", "seat_team_0"),
    compute=compute,
    findings=findings,
    plot=plot,
    display=display,
    answers=answers,
    order=80,
    description=("For each card that was some seat's starting venture: the win rate of the team "
                 "that started with it (one observation per such game) minus the win rate of "
                 "the teams in games where no seat started with it (each team is one "
                 "observation; a solo game has one team), with Newcombe's interval for a "
                 "difference of two proportions. The two teams of one game are counted as "
                 "independent, which makes the interval slightly wide, not narrow, because at "
                 "most one of them wins. Red points are imbalances called under Holm's "
                 "correction over every card × group tested (see the decision rule)."),
)
