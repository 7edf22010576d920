"""Peer-to-Peer's balance answers as measures (sim.core.attribution.Measure): one
definition each, read by the report's metrics, the run summary and the workbench, and
explained by the counterfactual replays of swaps.py.

Team balance is team A's share of the games won by a team (draws, all-lose games and
timeouts left out), even at 50 %; its edge is named after the team it favours, in the
words of sim.core.wording.edge_answer ("a small edge to team B (1.6 points), inside the
±2 band").
"""
from __future__ import annotations

from typing import Any

import polars as pl

from sim.core.attribution import Measure
from sim.core.stats import wilson
from sim.core.wording import edge_answer
from sim.games.peer_to_peer.constants import ALL_LOSE, WIN_A, WIN_B

ODD_COUNTS = (3, 5)   # team A is the larger team (P2P-S1)


def team_sides(players: int) -> tuple[str, str]:
    """Whom an edge above / below 50 % favours: "to team A", "to team B" (at 3 and 5
    players "to the larger team A", "to the smaller team B")."""
    if players in ODD_COUNTS:
        return "to the larger team A", "to the smaller team B"
    return "to team A", "to team B"


def team_balance_measure(players: int) -> Measure:
    above, below = team_sides(players)
    return Measure("team_balance", num=pl.col("winner") == WIN_A,
                   den=pl.col("winner").is_in([WIN_A, WIN_B]), even=0.5, above=above,
                   below=below, label="team A's share of the games won by a team")


def balance_measures(players: int) -> list[Measure]:
    """GAME.balance_measures: the measures a balance answer picks from (none in solo)."""
    return [team_balance_measure(players)] if players > 1 else []


def balance_measure(players: int, summary: Any) -> Measure | None:
    """GAME.balance_measure: the measure of the summary's balance line (the report's
    team_balance answer), which the command line explains by replays; None in solo."""
    return team_balance_measure(players) if players > 1 else None


FIRST_MARKER = Measure(
    "first_marker",
    num=((pl.col("winner") == WIN_A) & (pl.col("first_marker") == 0))
    | ((pl.col("winner") == WIN_B) & (pl.col("first_marker") == 1)),
    den=pl.col("winner").is_in([WIN_A, WIN_B]), even=0.5,
    above="to the team with the first marker", below="to the team without the first marker")

ALL_LOSE_RATE = Measure("all_lose", num=pl.col("winner") == ALL_LOSE, den=pl.lit(1),
                        even=float("nan"))


def team_balance(a_wins: int, decided: int, players: int, threshold_pp: float) -> dict[str, Any]:
    """The team-balance answer from its counts: value (team A's share of the games won by
    a team), lo, hi (Wilson), even, decided, verdict and words."""
    value, lo, hi = wilson(a_wins, decided)
    above, below = team_sides(players)
    code, words = edge_answer(value, lo, hi, 0.5, threshold_pp, above, below)
    return {"value": value, "lo": lo, "hi": hi, "even": 0.5, "decided": int(decided),
            "verdict": code, "words": words}
