"""PLAI: how games end: a seat wins, the Open Source Maintainers win, or stalemate."""
from __future__ import annotations

import polars as pl

from sim.core.report_metric import keys, rate_table, where
from sim.games.plai.report_metrics._plai import OUT_MAINTAINERS, OUT_SEAT, OUT_STALEMATE
from sim.core.plots import players_panel
from sim.core.report_metric import Answer, Context, Finding, Metric
from sim.core.wording import pct
from sim.games.plai.measures import MAINTAINERS


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    o = pl.col("outcome")
    return rate_table(games, ctx, {"seat_wins": o == OUT_SEAT,
                                   "maintainer_wins": o == OUT_MAINTAINERS,
                                   "stalemates": o == OUT_STALEMATE},
                      {"seat_win": "seat_wins", "maintainers_win": "maintainer_wins",
                       "stalemate": "stalemates"})


def findings(table: pl.DataFrame, ctx: Context) -> list[Finding]:
    out = []
    for row in table.iter_rows(named=True):
        out.append(Finding("plai_outcomes", "info", (
            f"{where(row)}: the maintainers win {pct(row['maintainers_win_rate'])} of games "
            f"(95 % Wilson interval {pct(row['maintainers_win_lo'])} to "
            f"{pct(row['maintainers_win_hi'])}); {pct(row['stalemate_rate'])} end in a "
            f"stalemate at max_turns ({pct(row['stalemate_lo'])} to {pct(row['stalemate_hi'])}); "
            f"n = {row['games']:,}.")))
    return out


def answers(table: pl.DataFrame, ctx: Context) -> list[Answer]:
    return [Answer("How often do the maintainers win (every startup loses)?", where(row),
                   f"{pct(row['maintainers_win_rate'])} of games; "
                   f"{pct(row['stalemate_rate'])} end in a stalemate", "info",
                   row["maintainers_win_rate"], row["maintainers_win_lo"],
                   row["maintainers_win_hi"], players=row["players"], order=30,
                   key="maintainers", measure=MAINTAINERS,
                   group={k: row[k] for k in keys(ctx)})
            for row in table.iter_rows(named=True)]


def plot(table: pl.DataFrame, games: pl.DataFrame, ctx: Context):
    return players_panel(table, [
        ("maintainers win", table["maintainers_win_rate"], table["maintainers_win_lo"],
         table["maintainers_win_hi"]),
        ("stalemate", table["stalemate_rate"], table["stalemate_lo"], table["stalemate_hi"])],
        "share of games (%)", "Maintainers' wins and stalemates, 95 % Wilson intervals")


METRIC = Metric(
    name="plai_outcomes",
    title="Maintainers' win rate and stalemate rate",
    requires=("outcome", "players"),
    compute=compute,
    findings=findings,
    plot=plot,
    answers=answers,
    order=30,
    description=("How games end (PLAI-T6): the last startup standing wins (seat_win); if "
                 "every startup goes bankrupt the Open Source Maintainers win; a game still "
                 "running at max_turns is a stalemate. Shares of all games with 95 % Wilson "
                 "intervals."),
)
