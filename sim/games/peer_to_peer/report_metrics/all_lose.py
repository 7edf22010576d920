"""All-lose rate (unhappy customers reached the limit, P2P-R5) and the round those games end."""
from __future__ import annotations

import polars as pl

from sim.games.peer_to_peer.report_metrics._common import ALL_LOSE, keys, sort_groups, where
from sim.core.plots import MAX_PANELS, category, grouped_points, new_figure
from sim.core.report_metric import Answer, Context, Finding, Metric, distribution, rate_table
from sim.core.stats import with_t_interval
from sim.core.wording import count, interval_text, pct
from sim.games.peer_to_peer.measures import ALL_LOSE_RATE


def compute(games, ctx: Context) -> pl.DataFrame:
    lose = pl.col("winner") == ALL_LOSE
    t = rate_table(games, ctx, {"all_lose": lose}, {"all_lose": "all_lose"})
    ends = distribution(games, pl.col("rounds"), ctx, "end_round_", (0.1, 0.5, 0.9),
                        count_name="_n", where_expr=lose)
    t = t.join(ends.drop("_n"), on=keys(ctx), how="left", nulls_equal=True)
    t = with_t_interval(t, "end_round_mean", "end_round_sd", "all_lose", prefix="end_round_")
    cols = [*keys(ctx), "games", "all_lose", "all_lose_rate", "all_lose_lo", "all_lose_hi",
            "end_round_mean", "end_round_lo", "end_round_hi", "end_round_sd", "end_round_min",
            "end_round_p10", "end_round_median", "end_round_p90", "end_round_max"]
    return sort_groups(t.select(cols), ctx)


def findings(table: pl.DataFrame, ctx: Context) -> list[Finding]:
    out = []
    for row in table.iter_rows(named=True):
        rate = interval_text(row["all_lose_rate"], row["all_lose_lo"], row["all_lose_hi"], 1,
                             100, " %")
        text = (f"{where(row)}: {rate} of games end with every player losing to unhappy "
                f"customers (95 % Wilson interval, n = {count(row['games'])})")
        if row["all_lose"] > 0:
            m, lo, hi = row["end_round_mean"], row["end_round_lo"], row["end_round_hi"]
            ci = (f" (95 % t interval {lo:.2f} to {hi:.2f})" if lo == lo else "")
            text += (f"; those games end on average in round {m:.2f}{ci}, "
                     f"median {row['end_round_median']:g}")
        out.append(Finding("all_lose", "info", text + "."))
    return out


def plot(table: pl.DataFrame, games: pl.DataFrame, ctx: Context):
    if table.height == 0:
        return None
    pairings = table["pairing"].unique(maintain_order=True).to_list()[:MAX_PANELS]
    fig, axes = new_figure(len(pairings))
    for ax, pairing in zip(axes, pairings):
        t = table.filter(pl.col("pairing") == pairing)
        labels = [category(r["players"], r["variant"], r["games"]) for r in t.iter_rows(named=True)]
        grouped_points(ax, labels, [("all lose", t["all_lose_rate"], t["all_lose_lo"], t["all_lose_hi"])],
                       ylabel="all-lose rate (%), 95 % Wilson", xlabel="player count (n = games)")
        ax.set_title(f"All-lose rate by player count: {pairing}", fontsize=10)
    return fig


def answers(table: pl.DataFrame, ctx: Context) -> list[Answer]:
    out = []
    for row in table.iter_rows(named=True):
        words = (f"{pct(row['all_lose_rate'])} of games"
                 + (f", ending on average in round {row['end_round_mean']:.1f}"
                    if row["all_lose"] else "") + " (see why below)")
        out.append(Answer("How often does everyone lose?", where(row), words, "info",
                          row["all_lose_rate"], row["all_lose_lo"], row["all_lose_hi"],
                          players=row["players"], order=30, key="all_lose",
                          measure=ALL_LOSE_RATE,
                          group={k: row[k] for k in keys(ctx)}))
    return out


METRIC = Metric(
    name="all_lose",
    title="All lose: unhappy customers",
    requires=("winner", "players", "rounds"),
    compute=compute,
    findings=findings,
    plot=plot,
    answers=answers,
    order=50,
    description=("Share of games that end with every player losing because the unhappy pile "
                 "reached its limit (Wilson interval), and the round in which those games end: "
                 "mean with a t interval, and quantiles."),
)
