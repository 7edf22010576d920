"""Advantage of starting with the first team marker (P2P-S6)."""
from __future__ import annotations

import polars as pl

from sim.games.peer_to_peer.report_metrics._common import WIN_A, WIN_B, add_verdict, judged, sort_groups, where
from sim.core.report_metric import Answer, Context, Finding, Metric, answer_of, family_kw, rate_table, with_family
from sim.core.stats import with_diff
from sim.core.wording import pp
from sim.games.peer_to_peer.measures import FIRST_MARKER


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    w, m = pl.col("winner"), pl.col("first_marker")
    t = rate_table(games, ctx, {"decisive": w.is_in([WIN_A, WIN_B]),
                                "holder_wins": ((w == WIN_A) & (m == 0)) | ((w == WIN_B) & (m == 1)),
                                "games_a_marker": m == 0,
                                "a_wins_a_marker": (m == 0) & (w == WIN_A),
                                "games_b_marker": m == 1,
                                "a_wins_b_marker": (m == 1) & (w == WIN_A)},
                   {"holder_share": ("holder_wins", "decisive")},
                   where_expr=pl.col("players") >= 2)
    t = t.with_columns((pl.col("holder_share_rate") - 0.5).alias("holder_edge_diff"),
                       (pl.col("holder_share_lo") - 0.5).alias("holder_edge_lo"),
                       (pl.col("holder_share_hi") - 0.5).alias("holder_edge_hi"))
    t = with_family(add_verdict(t, "holder_share", 0.5, ctx), "holder_share", 0.5, ctx)
    t = with_diff(t, "a_wins_a_marker", "games_a_marker", "a_wins_b_marker", "games_b_marker",
                  prefix="a_marker_delta_", z=ctx.z)
    t = t.rename({"a_marker_delta_rate": "a_marker_delta_diff"})
    return sort_groups(t, ctx)


def findings(table: pl.DataFrame, ctx: Context) -> list[Finding]:
    out = []
    for row in table.iter_rows(named=True):
        f = judged("first_marker", where(row),
                   "the first-marker team's share of the games won by a team",
                   row["holder_share_rate"], row["holder_share_lo"], row["holder_share_hi"],
                   row["decisive"], ctx, centre=0.5, centre_words="50 %", method="Wilson",
                   above_words="starting with the first team marker is an advantage",
                   below_words="starting with the first team marker is a disadvantage",
                   **family_kw(row))
        text = f.text
        d = row["a_marker_delta_diff"]
        if d == d:  # not nan
            text += (f" Cross-check: team A's win rate with the marker minus without it is "
                     f"{pp(d)} (95 % Newcombe interval {pp(row['a_marker_delta_lo'])} to "
                     f"{pp(row['a_marker_delta_hi'])}).")
        out.append(Finding("first_marker", f.level, text))
    return out


def answers(table: pl.DataFrame, ctx: Context) -> list[Answer]:
    return [answer_of(row, "Does the first team marker matter?", "holder_share", 0.5, ctx,
                      above=FIRST_MARKER.above, below=FIRST_MARKER.below, order=20,
                      key="first_marker", measure=FIRST_MARKER)
            for row in table.iter_rows(named=True)]


METRIC = Metric(
    name="first_marker",
    title="Advantage of the first team marker",
    requires=("winner", "players", "first_marker"),
    compute=compute,
    findings=findings,
    answers=answers,
    order=40,
    description=("Among games won by a team, the share won by the team that started with the "
                 "first team marker (Wilson); 50 % means no advantage. This assumes the marker "
                 "is given at random (P2P-S6), so team strength averages out. As a cross-check, "
                 "a_marker_delta is team A's win rate with the marker minus without it "
                 "(Newcombe interval for two independent proportions)."),
)
