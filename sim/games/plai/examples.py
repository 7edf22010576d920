"""PLAI's example games (the description's ``answer_examples`` field, sim.core.examples): for each balance
answer, which games of a run show it, read from the result columns.

- ``seat_balance``: a game won by the seat furthest from its fair share of the games a
  startup won (PLAI-T6), when it is above it; otherwise a game that seat lost to another
  startup. The seat is read from the run's own games.
- ``first_player``: a game going first decided: won by the first player (or, when the edge
  is against the first player, lost by it), and replayed with the first seat moved one on
  (the ``turn_order`` swap) it ends differently.
- ``maintainers``: the first game the maintainers won.
"""
from __future__ import annotations

from typing import Any, Mapping

import polars as pl

from sim.core.examples import ExampleQuery, Row, favoured_above
from sim.games.plai import constants as c

WON = pl.col("outcome") == c.OUT_SEAT


def _outcome(row: Row) -> str:
    outcome = int(row["outcome"])
    if outcome == c.OUT_SEAT:
        return f"seat {row['winner']} wins on turn {row['turns']}"
    if outcome == c.OUT_MAINTAINERS:
        return f"the maintainers win on turn {row['turns']}"
    return f"a stalemate after {row['turns']} turns"


def seat_balance(answer: Row, manifest: Mapping[str, Any], games) -> ExampleQuery | None:
    players = int(manifest["players"])
    shares = (games.filter(WON).group_by("winner").agg(pl.len().alias("won"))
              .collect())
    total = int(shares["won"].sum()) if shares.height else 0
    if total == 0:
        return None
    share = {int(s): int(n) / total for s, n in zip(shares["winner"], shares["won"])}
    fair = 1.0 / players
    seat = max(range(players), key=lambda s: (abs(share.get(s, 0.0) - fair), -s))
    above = share.get(seat, 0.0) >= fair

    def describe(row: Row, swapped: Row | None) -> str:
        return (f"seat {seat} wins {100 * share.get(seat, 0.0):.1f} % of the games a startup "
                f"won in this run (fair share {100 * fair:.1f} %); in this game "
                f"{_outcome(row)}")

    where = WON & ((pl.col("winner") == seat) if above else (pl.col("winner") != seat))
    return ExampleQuery(shows=f"a game {'won' if above else 'lost'} by seat {seat}",
                        where=where, describe=describe)


def first_player(answer: Row, manifest: Mapping[str, Any], games) -> ExampleQuery:
    players = int(manifest["players"])
    first_won = ((pl.col("winner").cast(pl.Int64) - pl.col("first_seat").cast(pl.Int64))
                 % players) == 0
    to_first = favoured_above(answer)

    def describe(row: Row, swapped: Row | None) -> str:
        text = f"seat {row['first_seat']} moved first; {_outcome(row)}"
        if swapped is None:
            return text
        return (f"{text}; with the first seat moved one on (seat {swapped['first_seat']} "
                f"first), the same deal: {_outcome(swapped)}")

    return ExampleQuery(shows="a game going first decided",
                        where=WON & (first_won if to_first else ~first_won),
                        describe=describe, swap="turn_order")


def maintainers(answer: Row, manifest: Mapping[str, Any], games) -> ExampleQuery:
    def describe(row: Row, swapped: Row | None) -> str:
        return f"{_outcome(row)}: every startup lost"

    return ExampleQuery(shows="a game the maintainers won",
                        where=pl.col("outcome") == c.OUT_MAINTAINERS, describe=describe)


EXAMPLES = {"seat_balance": seat_balance, "first_player": first_player,
            "maintainers": maintainers}
