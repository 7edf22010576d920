"""PLAI: how games end: a seat wins, the Open Source Maintainers win, or stalemate."""
from __future__ import annotations

import polars as pl

from sim.core.report_metric import keys, rate_table, where
from sim.games.plai.report_metrics._plai import OUT_MAINTAINERS, OUT_SEAT, OUT_STALEMATE
from sim.core.plots import players_panel
from sim.core.report_metric import Answer, Context, Finding, Metric
from sim.core.wording import interval_text, pct
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
        maintainers = interval_text(row["maintainers_win_rate"], row["maintainers_win_lo"],
                                    row["maintainers_win_hi"], 1, 100, " %")
        stalemates = interval_text(row["stalemate_rate"], row["stalemate_lo"],
                                   row["stalemate_hi"], 1, 100, " %")
        out.append(Finding("plai_outcomes", "info", (
            f"{where(row)}: the maintainers win {maintainers} of games and {stalemates} end "
            f"in a stalemate at max_turns (95 % Wilson intervals); n = {row['games']:,}.")))
    return out


def answers(table: pl.DataFrame, ctx: Context) -> list[Answer]:
    return [Answer("How often do the maintainers win (every startup loses)?", where(row),
                   f"{pct(row['maintainers_win_rate'])} of games; "
                   f"{pct(row['stalemate_rate'])} end in a stalemate", "info",
                   row["maintainers_win_rate"], row["maintainers_win_lo"],
                   row["maintainers_win_hi"], players=row["players"], order=30,
                   key="maintainers", measure=MAINTAINERS,
                   group={k: row[k] for k in keys(ctx)}, causes=(RULES_CAUSE,))
            for row in table.iter_rows(named=True)]


# Why the maintainers win so seldom, and what a stalemate is: the rules (PLAI-T5 to T7)
RULES_CAUSE = {
    "cause": "rule:maintainers", "kind": "rule", "share": float("nan"), "lo": float("nan"),
    "hi": float("nan"),
    "words": ("the rules: the game ends as soon as one startup is left, and that one wins "
              "(PLAI-T6), so the maintainers win only when the last startups all go "
              "bankrupt in the same turn; a game still running at max_turns is a stalemate")}


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
