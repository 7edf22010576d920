"""Peer-to-Peer's example games (the description's ``answer_examples`` field, sim.core.examples): for each
balance answer, which games of a run show it, read from the result columns.

- ``team_balance``: a contest decided on the domain step (P2P-R2c) won by the team the
  edge favours, in a game that team won; the most such contests first.
- ``first_marker``: a game the first team marker decided: won by the team the edge
  favours (the one with the marker, or the one without), and replayed with the marker
  given to the other team (the ``first_marker`` swap), it ends differently; games where
  the marker broke the most ties for its team first.
- ``all_lose``: the first game everyone lost (P2P-R5).
- ``why_all_lose``: an all-lose game with the most unhappy customers of the answer's main
  cause (the ``unhappy_<cause>`` columns, why_lose.py).
- ``card_strength``: a game where the answer's card was a starting venture (the
  ``start_card_<seat>`` columns) of the team that won (of the team that lost, when the
  card goes with losses).
"""
from __future__ import annotations

from typing import Any, Mapping

import polars as pl

from sim.core.examples import ExampleQuery, Row, favoured_above
from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer.why_lose import CAUSES

TEAM_NAMES = {k.WIN_A: "A", k.WIN_B: "B"}
MAX_SEATS = 6


def _outcome(row: Row) -> str:
    """How a game ended, in words."""
    winner = int(row["winner"])
    if winner in TEAM_NAMES:
        return f"team {TEAM_NAMES[winner]} wins {row['score_a']}-{row['score_b']}"
    return {k.ALL_LOSE: "everyone loses", k.DRAW: "a draw", k.SOLO_WIN: "the solo player wins",
            k.TIMEOUT: "a timeout"}.get(winner, f"outcome {winner}")


def team_balance(answer: Row, manifest: Mapping[str, Any], games) -> ExampleQuery:
    team, other = ("a", "b") if favoured_above(answer) else ("b", "a")
    code = k.WIN_A if team == "a" else k.WIN_B
    won = pl.col(f"contests_domain_won_{team}")
    lost = pl.col(f"contests_domain_won_{other}")
    name, other_name = team.upper(), other.upper()

    def describe(row: Row, swapped: Row | None) -> str:
        return (f"team {name} won {row[f'contests_domain_won_{team}']} of its contests on "
                f"the domain step (team {other_name}: {row[f'contests_domain_won_{other}']}) "
                f"and the game, {row['score_a']}-{row['score_b']} in {row['rounds']} rounds")

    return ExampleQuery(shows=f"a contest decided on the domain step, won by team {name}",
                        where=(pl.col("winner") == code) & (won > 0),
                        order=((won - lost, True),), describe=describe)


def first_marker(answer: Row, manifest: Mapping[str, Any], games) -> ExampleQuery:
    holder = pl.col("first_marker")            # 0: team A holds it, 1: team B
    holder_won = pl.when(holder == 0).then(pl.col("winner") == k.WIN_A).otherwise(
        pl.col("winner") == k.WIN_B)
    ties = pl.when(holder == 0).then(pl.col("contests_marker_won_a")).otherwise(
        pl.col("contests_marker_won_b"))
    with_marker = favoured_above(answer)       # the edge goes to the team with the marker

    def describe(row: Row, swapped: Row | None) -> str:
        team = "AB"[int(row["first_marker"])]
        other = "AB"[1 - int(row["first_marker"])]
        won = f"team {team} held the first marker; {_outcome(row)}"
        ties_won = row[f"contests_marker_won_{team.lower()}"]
        if ties_won:
            won += f" (the marker broke {ties_won} tie(s) in its favour)"
        if swapped is None:
            return won
        return f"{won}; with the marker given to team {other}, the same deal: {_outcome(swapped)}"

    winner = holder_won if with_marker else ~holder_won
    return ExampleQuery(
        shows="a game the first team marker decided",
        where=pl.col("winner").is_in([k.WIN_A, k.WIN_B]) & winner,
        order=((ties, True),), describe=describe, swap="first_marker")


def _unhappy(row: Row) -> str:
    parts = ", ".join(f"{c.name} {row[f'unhappy_{c.name}']}" for c in CAUSES
                      if row.get(f"unhappy_{c.name}"))
    return f"{row['unhappy']} unhappy customers" + (f" ({parts})" if parts else "")


def all_lose(answer: Row, manifest: Mapping[str, Any], games) -> ExampleQuery:
    def describe(row: Row, swapped: Row | None) -> str:
        return f"everyone lost in round {row['rounds']}: {_unhappy(row)}"

    return ExampleQuery(shows="a game everyone lost", where=pl.col("winner") == k.ALL_LOSE,
                        describe=describe)


def why_all_lose(answer: Row, manifest: Mapping[str, Any], games) -> ExampleQuery | None:
    causes = [c for c in answer.get("causes") or [] if c.get("share") is not None]
    known = {c.name for c in CAUSES}
    if not causes:
        return None
    main = max(causes, key=lambda c: c["share"])["cause"]
    if main not in known:
        return None
    column = pl.col(f"unhappy_{main}")

    def describe(row: Row, swapped: Row | None) -> str:
        return (f"everyone lost in round {row['rounds']}; {row[f'unhappy_{main}']} of its "
                f"{_unhappy(row)} were of the main cause, '{main}'")

    return ExampleQuery(shows=f"an all-lose game of the main cause, '{main}'",
                        where=(pl.col("winner") == k.ALL_LOSE) & (column > 0),
                        order=((column, True),), describe=describe)


def card_strength(answer: Row, manifest: Mapping[str, Any], games) -> ExampleQuery | None:
    card = next((c["cause"].split(":", 1)[1] for c in answer.get("causes") or []
                 if str(c.get("cause", "")).startswith("card:")), None)
    ids = [str(i) for i in (manifest.get("cards") or {}).get("ids", [])]
    names = [str(n) for n in (manifest.get("cards") or {}).get("names", [])]
    teams = list(manifest.get("seat_teams") or [])
    present = set(games.collect_schema().names())
    if card is None or card not in ids:
        return None
    index = ids.index(card)
    name = names[index] if index < len(names) else card
    wins = favoured_above(answer)              # the card goes with wins (or with losses)
    held = []
    for seat, team in enumerate(teams[:MAX_SEATS]):
        column = f"start_card_{seat}"
        if column in present and team in ("A", "B"):
            code = k.WIN_A if team == "A" else k.WIN_B
            result = pl.col("winner") == code if wins else pl.col("winner").is_in(
                [k.WIN_A, k.WIN_B]) & (pl.col("winner") != code)
            held.append((pl.col(column) == index) & result)
    if not held:
        return None

    def describe(row: Row, swapped: Row | None) -> str:
        seat = next(s for s in range(len(teams)) if row.get(f"start_card_{s}") == index)
        return (f"{name} was a starting venture of seat {seat} (team {teams[seat]}); "
                f"{_outcome(row)}")

    return ExampleQuery(shows=f"a game with {name} as a starting venture of the team that "
                              f"{'won' if wins else 'lost'}",
                        where=pl.any_horizontal(held), describe=describe)


EXAMPLES = {"team_balance": team_balance, "first_marker": first_marker, "all_lose": all_lose,
            "why_all_lose": why_all_lose, "card_strength": card_strength}
