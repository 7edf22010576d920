"""Why everyone loses (P2P-R5): the causes of the unhappy customers, as the engine records
them (why_kernel.py) in the result columns ``unhappy_<cause>`` (the cause for the team that
came closest to serving the customer) and ``unhappy_<cause>_a`` / ``_b`` (each team's).

The ``why_lose`` hook: which outcome code is "everyone loses", the causes in their order
(the first true statement wins), what each means and what a designer can change for it.
"""
from __future__ import annotations

from dataclasses import dataclass

from sim.games.peer_to_peer import constants as k


@dataclass(frozen=True)
class Cause:
    name: str       # the column stem and answers.json's cause key
    words: str      # what it means for a customer
    advice: str     # what a designer can change


CAUSES = (
    Cause("deck", "no combination of the team's own cards (deck, discard and hand) could "
          "assist it: the card file cannot reach it",
          "the card values and domains (the card file): customers no set of group cards "
          "adds up to, in their domain"),
    Cause("draw", "the team's cards could, but the hand it held that round could not",
          "the hand size (hand_size), extra_draw effects, or fewer dead cards in the group "
          "decks"),
    Cause("capacity", "the hand at the round's start could, but its cards went to other "
          "customers or to a lost contest",
          "the customers per round (new_customers_per_round), customer_patience, "
          "row_capacity or unhappy_limit"),
    Cause("choice", "the team passed while an assist of it was legal",
          "the strategy (the players' choices), not the cards"),
)


class WhyLose:
    """The ``why_lose`` hook (reports/why_lose.py reads it)."""

    code = k.ALL_LOSE
    causes = CAUSES

    @staticmethod
    def column(cause: str, team: str | None = None) -> str:
        """The result column of a cause: for the closest team, or team "a" / "b"."""
        return f"unhappy_{cause}" + (f"_{team}" if team else "")
