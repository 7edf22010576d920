"""PLAI: win rate of every seat by player count, with intervals."""
from __future__ import annotations

import polars as pl

from sim.core.report_metric import add_verdict, judged, keys, rate_table, sort_groups, where
from sim.games.plai.report_metrics._plai import MAX_SEATS, OUT_SEAT
from sim.core.plots import category, grouped_points, new_figure
from sim.core.report_metric import (Answer, Context, Finding, Metric, answer_of, family_kw,
                                    with_family)
from sim.core.stats import with_wilson
from sim.games.plai.measures import seat_share


def by_place(games: pl.DataFrame, ctx: Context, place: pl.Expr, name: str) -> pl.DataFrame:
    """One row per group and place (``place`` = the winner's seat, or its position in the
    turn order): wins over all games (win_rate) and the place's share of the games a
    startup won (share_rate), both Wilson; fair = 1 / players; edge = share - fair."""
    won = pl.col("outcome") == OUT_SEAT
    t = rate_table(games, ctx, {"decided": won,
                                **{f"_w{s}": won & (place == s) for s in range(MAX_SEATS)}}, {})
    t = t.unpivot(index=[*keys(ctx), "games", "decided"],
                  on=[f"_w{s}" for s in range(MAX_SEATS)], variable_name="_p", value_name="wins")
    t = t.with_columns(pl.col("_p").str.slice(2).cast(pl.Int64).alias(name),
                       pl.col("games").cast(pl.Int64), pl.col("decided").cast(pl.Int64),
                       pl.col("wins").cast(pl.Int64), (1.0 / pl.col("players")).alias("fair"))
    t = t.filter(pl.col(name) < pl.col("players"))
    t = with_wilson(t, "wins", "games", prefix="win_", z=ctx.z)
    t = with_wilson(t, "wins", "decided", prefix="share_", z=ctx.z)
    t = t.with_columns((pl.col("share_rate") - pl.col("fair")).alias("edge_diff"),
                       (pl.col("share_lo") - pl.col("fair")).alias("edge_lo"),
                       (pl.col("share_hi") - pl.col("fair")).alias("edge_hi"))
    t = with_family(add_verdict(t, "edge", 0.0, ctx), "edge", 0.0, ctx)
    cols = [*keys(ctx), name, "games", "decided", "wins", "win_rate", "win_lo", "win_hi", "fair",
            "share_rate", "share_lo", "share_hi", "edge_diff", "edge_lo", "edge_hi", "verdict",
            "p_beyond", "p_holm", "called", "tested"]
    return sort_groups(t.select(cols), ctx, name)


def place_findings(metric: str, table: pl.DataFrame, ctx: Context, name: str, who) -> list[Finding]:
    out = []
    for row in table.iter_rows(named=True):
        w = who(row[name])
        out.append(judged(metric, where(row), f"{w}'s share of the games a startup won",
                          row["share_rate"], row["share_lo"], row["share_hi"], row["decided"],
                          ctx, centre=row["fair"],
                          centre_words=f"the fair share 1/{row['players']}", method="Wilson",
                          above_words=f"{w} is favoured", below_words=f"{w} is at a disadvantage",
                          **family_kw(row)))
    return out


def place_answers(table: pl.DataFrame, ctx: Context, name: str, question: str, who,
                  pick_first: bool = False, order: int = 40, key: str | None = None,
                  measure=None) -> list[Answer]:
    """Per group, one answer: the place furthest from its fair share (every seat), or the
    first place in the turn order (``pick_first``). ``measure(place, players)``: its
    sim.core.attribution.Measure (measures.py)."""
    out = []
    for _, part in table.group_by(keys(ctx), maintain_order=True):
        if pick_first:
            part = part.filter(pl.col(name) == 0)
        else:
            part = part.with_columns(pl.col("edge_diff").abs().fill_nan(-1).alias("_a")).sort(
                "_a", descending=True)
        if part.height == 0:
            continue
        row = part.row(0, named=True)
        m = measure(row[name], row["players"]) if measure is not None else None
        above, below = (m.above, m.below) if m is not None else (f"to {who(row[name])}",
                                                                 f"against {who(row[name])}")
        # the furthest of the group's places is picked, so it is judged as such
        furthest = (None if pick_first else
                    (row["wins"], row["decided"], row["fair"], part.height))
        out.append(answer_of(row, question, "edge", 0.0, ctx, above=above, below=below,
                             kind="diff", order=order, key=key, measure=m,
                             furthest_of=furthest))
    return out


def place_plot(table: pl.DataFrame, name: str, label: str, title: str):
    if table.height == 0:
        return None
    groups = table.select("players", "pairing", "variant", "decided").unique(
        maintain_order=True).rows()
    several = len({g[1] for g in groups}) > 1
    labels = [category(p, None, n) + (f"\n{pair[:24]}" if several else "")
              for p, pair, _, n in groups]
    series = []
    for s in range(int(table[name].max()) + 1):
        rows = [table.filter((pl.col("players") == p) & (pl.col("pairing") == pair)
                             & (pl.col("variant") == comp) & (pl.col(name) == s))
                for p, pair, comp, _ in groups]
        series.append((f"{label} {s}", *[[r[f"share_{x}"][0] if r.height else float("nan")
                                          for r in rows] for x in ("rate", "lo", "hi")]))
    fig, (ax,) = new_figure(1)
    grouped_points(ax, labels, series, ylabel="share of startup wins (%)", xlabel="players")
    for i, (p, *_rest) in enumerate(groups):
        ax.hlines(100.0 / p, i - 0.4, i + 0.4, colors="black", lw=0.8, linestyles=":")
    ax.set_title(title, fontsize=10)
    return fig


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    return by_place(games, ctx, pl.col("winner"), "seat")


def findings(table: pl.DataFrame, ctx: Context) -> list[Finding]:
    return place_findings("plai_seats", table, ctx, "seat", lambda s: f"seat {s}")


def answers(table: pl.DataFrame, ctx: Context) -> list[Answer]:
    return place_answers(table, ctx, "seat", "Is every seat fair? (the seat furthest from "
                         "its fair share)", lambda s: f"seat {s}", order=10,
                         key="seat_balance", measure=seat_share)


def plot(table: pl.DataFrame, games: pl.DataFrame, ctx: Context):
    return place_plot(table, "seat", "seat", "Seat shares of startup wins, 95 % Wilson "
                      "intervals (dotted: fair share 1/players)")


METRIC = Metric(
    name="plai_seats",
    title="Seat win rates by player count",
    requires=("outcome", "winner", "players"),
    compute=compute,
    findings=findings,
    plot=plot,
    answers=answers,
    order=20,
    description=("For every seat: its wins over all games (win) and its share of the games a "
                 "startup won (share; games the maintainers won or that hit max_turns left "
                 "out), both with 95 % Wilson intervals. A fair game gives every seat "
                 "1/players of the startup wins; edge is the share minus that, and the verdict "
                 "compares its interval with the threshold. With the same strategy in every "
                 "seat and first_seat=0 (PLAI-S1), seat 0 moves first, so its row measures the "
                 "first player's advantage; see also the turn-order section."),
)
