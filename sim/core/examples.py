"""An example game for an answer: how a game finds, in a run's games table, one game that
shows what an answer is about (an all-lose game, a contest decided on the domain step, a
game the first marker decided), so a designer can open it in the game viewer.

A game declares its examples in its package (the description's ``answer_examples`` field): for an
answer's key (answers.json's ``question``), a function of (the answer's record, the run's
manifest, the run's games as a polars LazyFrame) that returns an :class:`ExampleQuery`, or
None when the answer has no example in that run. ``sim.studies.examples`` runs the query.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

Row = Mapping[str, Any]


@dataclass(frozen=True)
class ExampleQuery:
    """Which games show an answer, and which of them to show first.

    ``where``: a polars expression over the games table, true for the games that show it;
    ``order``: (expression, descending) pairs, the best example first (the lowest game
    index breaks ties); ``shows``: what the example shows, in words ("an all-lose game");
    ``describe(row, swapped)``: the chosen game in words, from its row of the table (and
    its replay under ``swap`` when there is one). ``swap``: the key of one of the game's
    swaps (its description's ``swaps``): a game is kept only when its replay under the swap's
    first variant ends differently (a game the first marker *decided*)."""

    shows: str
    where: Any
    describe: Callable[[Row, Row | None], str]
    order: tuple[tuple[Any, bool], ...] = ()
    swap: str | None = None


def favoured_above(answer: Row) -> bool:
    """Whether an answer's edge lies above its even point (the ``above`` side: team A, the
    team with the first marker...); an answer without a value or even point counts as above."""
    value, even = answer.get("value"), answer.get("even")
    if value is None or even is None:
        return True
    return float(value) >= float(even)
