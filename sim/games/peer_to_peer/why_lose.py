"""Why everyone loses (P2P-R5): the causes of the unhappy customers, as the engine records
them (why_kernel.py) in the result columns ``unhappy_<cause>`` (the cause for the team that
came closest to serving the customer) and ``unhappy_<cause>_a`` / ``_b`` (each team's).

``GAME.why_lose`` (sim.core.game.WhyLose): which outcome code is "everyone loses", the
causes in their order (the first true statement wins), what each means and what a designer
can change for it.
"""
from __future__ import annotations

from sim.core.game import LossCause, WhyLose
from sim.games.peer_to_peer import constants as k

CAUSES = (
    LossCause("deck", "no combination of the team's own cards (deck, discard and hand) could "
              "assist it: the card file cannot reach it",
              "the card values and domains (the card file), so that the group cards can add "
              "up to these customers' values in their domain"),
    LossCause("draw", "the team's cards could, but the hand it held that round could not",
              "the hand size (hand_size), extra_draw effects, or fewer dead cards in the "
              "group decks"),
    LossCause("capacity", "the hand at the round's start could, but its cards went to other "
              "customers or to a lost contest",
              "the customers per round (new_customers_per_round), customer_patience, "
              "row_capacity or unhappy_limit"),
    LossCause("choice", "the team passed while an assist of it was legal",
              "the strategy (the players' choices), not the cards"),
)


def column(cause: str, team: str | None = None) -> str:
    """The result column of a cause: for the closest team, or team "a" / "b"."""
    return f"unhappy_{cause}" + (f"_{team}" if team else "")


WHY_LOSE = WhyLose(code=k.ALL_LOSE, causes=CAUSES, column=column, rate_key="all_lose")
