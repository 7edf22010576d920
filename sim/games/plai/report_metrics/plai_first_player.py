"""PLAI: first-player advantage: wins by place in the turn order (0 = moves first)."""
from __future__ import annotations

import polars as pl

from sim.games.plai.report_metrics.plai_seats import by_place, place_answers, place_findings, place_plot
from sim.core.report_metric import Answer, Context, Finding, Metric
from sim.games.plai.measures import first_player_share

# the winner's place in the turn order of its game (PLAI-S1: first_seat moves first)
POSITION = (pl.col("winner").cast(pl.Int64) - pl.col("first_seat").cast(pl.Int64)) \
    % pl.col("players").cast(pl.Int64)


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    return by_place(games, ctx, POSITION, "position")


ORDINALS = ("first", "second", "third", "fourth", "fifth")   # PLAI seats 2 to 5 players


def _who(position: int) -> str:
    return "the first player" if position == 0 else f"the player moving {ORDINALS[position]}"


def findings(table: pl.DataFrame, ctx: Context) -> list[Finding]:
    return place_findings("plai_first_player", table, ctx, "position", _who)


def answers(table: pl.DataFrame, ctx: Context) -> list[Answer]:
    return place_answers(table, ctx, "position", "Does going first matter?", _who,
                         pick_first=True, order=20, key="first_player",
                         measure=lambda position, players: first_player_share(players))


def plot(table: pl.DataFrame, games: pl.DataFrame, ctx: Context):
    return place_plot(table, "position", "position", "Shares of startup wins by place in the "
                      "turn order (0 = first), 95 % Wilson intervals (dotted: 1/players)")


METRIC = Metric(
    name="plai_first_player",
    title="First-player advantage (wins by place in the turn order)",
    requires=("outcome", "winner", "players", "first_seat"),
    compute=compute,
    findings=findings,
    plot=plot,
    answers=answers,
    order=21,
    description=("The winner's place in its game's turn order, counted from the seat that "
                 "took the first turn (first_seat, PLAI-S1; position 0 moves first), so this "
                 "holds with first_seat=random too. Share of the games a startup won, by "
                 "position, with 95 % Wilson intervals against the fair share 1/players. "
                 "Different strategies in different seats mix strategy strength into this "
                 "unless the first seat is random."),
)
