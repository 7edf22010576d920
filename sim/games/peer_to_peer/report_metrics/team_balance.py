"""Team A against team B; for 3 and 5 players, the larger team (A) against the smaller."""
from __future__ import annotations

import polars as pl

from sim.games.peer_to_peer.report_metrics._common import (TEAM_PLAYERS, WIN_A, WIN_B, add_verdict, judged,
                                     sort_groups, where)
from sim.core.report_metric import (Answer, Context, Finding, Metric, answer_of, columns, family_kw,
                                    rate_table, with_family)
from sim.core.stats import with_wilson
from sim.core.wording import plural
from sim.games.peer_to_peer.measures import team_balance_measure


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    # constant per group: max streams, first() would make polars load the whole table
    seats = [pl.col(c).max() for c in ("seats_a", "seats_b") if c in columns(games)]
    t = rate_table(games, ctx, {"a_wins": pl.col("winner") == WIN_A,
                                "b_wins": pl.col("winner") == WIN_B}, {},
                   where_expr=pl.col("players") >= 2, extra=seats)
    # the share of the decisive games, which come after the team sizes in the table
    t = t.with_columns(
        pl.col("players").replace_strict({k: v[0] for k, v in TEAM_PLAYERS.items()},
                                         default=None, return_dtype=pl.Int64).alias("team_a_players"),
        pl.col("players").replace_strict({k: v[1] for k, v in TEAM_PLAYERS.items()},
                                         default=None, return_dtype=pl.Int64).alias("team_b_players"),
        (pl.col("a_wins") + pl.col("b_wins")).cast(pl.Int64).alias("decisive"))
    t = with_wilson(t, "a_wins", "decisive", prefix="a_share_", z=ctx.z)
    t = t.with_columns((pl.col("a_share_rate") - 0.5).alias("a_edge_diff"),
                       (pl.col("a_share_lo") - 0.5).alias("a_edge_lo"),
                       (pl.col("a_share_hi") - 0.5).alias("a_edge_hi"))
    t = with_family(add_verdict(t, "a_share", 0.5, ctx), "a_share", 0.5, ctx)
    return sort_groups(t, ctx)


def _sides(row: dict) -> tuple[str, str]:
    a, b = row.get("team_a_players"), row.get("team_b_players")
    sa, sb = row.get("seats_a"), row.get("seats_b")
    da = f"team A ({plural(a, 'player')}" + (f", {plural(sa, 'seat')})" if sa is not None else ")")
    db = f"team B ({plural(b, 'player')}" + (f", {plural(sb, 'seat')})" if sb is not None else ")")
    return da, db


def findings(table: pl.DataFrame, ctx: Context) -> list[Finding]:
    out = []
    for row in table.iter_rows(named=True):
        da, db = _sides(row)
        if row["players"] in (3, 5):
            above = f"the larger {da} is favoured over the smaller {db}"
            below = f"the smaller {db} is favoured over the larger {da}"
        else:
            above, below = f"{da} is favoured", f"{db} is favoured"
        quantity = ("the larger team A's share of the games won by a team" if row["players"] in (3, 5)
                    else "team A's share of the games won by a team")
        out.append(judged("team_balance", where(row), quantity,
                          row["a_share_rate"], row["a_share_lo"], row["a_share_hi"], row["decisive"],
                          ctx, centre=0.5, centre_words="50 %", method="Wilson",
                          above_words=above, below_words=below, **family_kw(row)))
    return out


def answers(table: pl.DataFrame, ctx: Context) -> list[Answer]:
    """One per group: the team-balance measure (measures.py), in the words the run summary
    uses too (sim.core.wording.edge_answer)."""
    out = []
    for row in table.iter_rows(named=True):
        odd = row["players"] in (3, 5)
        measure = team_balance_measure(row["players"])
        out.append(answer_of(row, "Is it fair between the teams?" if not odd else
                             "Is the larger team against the smaller one fair?", "a_share", 0.5,
                             ctx, above=measure.above, below=measure.below, order=10,
                             key="team_balance", measure=measure))
    return out


METRIC = Metric(
    name="team_balance",
    title="Team A against team B (3 and 5 players: larger team against smaller)",
    requires=("winner", "players"),
    compute=compute,
    findings=findings,
    answers=answers,
    order=20,
    description=("Among games won by a team (draws, all-lose and timeouts left out), the share "
                 "won by team A, with its 95 % Wilson interval. 50 % is even. With 3 and 5 "
                 "players team A is the larger team, so this is the larger team against the "
                 "smaller one (which may control an extra seat, see odd_team_compensation). "
                 "a_edge is the share minus 50 %; the verdict compares its interval with the "
                 "threshold."),
)
