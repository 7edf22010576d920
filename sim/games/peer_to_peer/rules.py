"""Peer-to-Peer rule options, with their defaults: the "Rule options" of
docs/rules/peer-to-peer.md.

The document gives each option's values, default and why; the rule ids say where each
one comes from. A test holds the document and these declarations together.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from sim.core.errors import UserError
from sim.games.peer_to_peer import constants as c
from sim.core.options import Option, OptionSet

REAL_DOMAINS = c.DOMAIN_NAMES[:4]  # `any` has no rank of its own (P2P-C2)
PLAYER_COUNTS = (1, 2, 3, 4, 5, 6)

OPTIONS = OptionSet([
    Option("domain_order", list(REAL_DOMAINS), "list",
           "Domains from highest to lowest rank, used by the contest tie-break.",
           "P2P-C2", choices=REAL_DOMAINS, permutation=True),
    Option("odd_team_compensation", "extra_venture", "choice",
           "With 3 or 5 players, the smaller team's extra seat: dealt a starting venture, "
           "empty, or not there.", "P2P-S1", choices=c.COMP_NAMES),
    Option("hand_size", 4, "int", "Cards each team draws into its group hand.",
           "P2P-S4", lo=1),
    Option("initial_row", 2, "int", "Customers dealt into the row at setup.",
           "P2P-S5", lo=0),
    Option("new_customers_per_round", {1: 1, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}, "int",
           "Customers dealt into the row each round from round 2 on.",
           "P2P-R1", lo=1, per_players=True),
    Option("deal_in_first_round", False, "bool",
           "Also deal new customers in round 1 (setup already dealt some).", "P2P-R1"),
    Option("venture_limit", {1: 3, 2: 3, 3: 3, 4: 3, 5: 2, 6: 2}, "int",
           "Venture cards a seat holds; one more pushes a card to the score pile.",
           "P2P-R2d", lo=1, per_players=True),
    Option("reshuffle_discard", True, "bool",
           "Shuffle the group discard into a new group deck when the deck runs out.",
           "P2P-R3"),
    Option("customer_patience", 2, "int",
           "Rounds a customer waits in the row before it turns unhappy.", "P2P-R4", lo=1),
    Option("row_capacity", 0, "int",
           "Most customers the row holds at the end of a round (0 = no cap).",
           "P2P-R4", lo=0),
    Option("unhappy_limit", {1: 4, 2: 3, 3: 2, 4: 2, 5: 1, 6: 1}, "int",
           "Unhappy customers at which the game ends and every player loses.",
           "P2P-R5", lo=1, per_players=True),
    # Results store rounds as int16, hence the upper bound.
    Option("max_rounds", 200, "int", "Safety stop: the game ends as a timeout.",
           "P2P-R6", lo=1, hi=32767),
    Option("first_marker", "random", "choice",
           "Which team starts with the first team marker (fixed values are for experiments).",
           "P2P-S6", choices=c.MARKER_NAMES),
    Option("end_when", "deck_empty", "choice",
           "The game ends at the end of a round once the customer deck is empty "
           "(`deck_empty`), or once the deck and the row are both empty (`row_empty`).",
           "P2P-R5", choices=c.END_WHEN_NAMES),
    Option("loser_effects_spent", True, "bool",
           "Effects a contest loser used stay used for the round.", "P2P-R2e, P2P-R2f"),
    Option("unchosen_ventures", "aside", "choice",
           "The revealed venture a seat does not keep at setup: out of the game (`aside`) "
           "or shuffled back into the deck, where it can come out as a customer (`deck`).",
           "P2P-S2", choices=c.UNCHOSEN_NAMES),
    Option("solo_spare_start_cards", "customers", "choice",
           "In a solo game, team B's starting cards join the customer deck (`customers`) "
           "or are out of the game (`out`).", "P2P-S3", choices=c.SOLO_SPARE_NAMES),
    Option("contest_unpaired", "longer_wins", "choice",
           "A contest whose pairs are all equal but one list is longer: the longer list "
           "wins (`longer_wins`), or the unpaired cards count for nothing and the contest "
           "goes on to the tiebreak steps (`tied`).", "P2P-R2c", choices=c.UNPAIRED_NAMES),
    Option("patience_resets_wait", False, "bool",
           "A customer saved by `patience` starts its wait again (true) or keeps its "
           "waiting time (false).", "P2P-E6"),
])


def plays_like(resolved: Mapping[str, Any], players: int) -> int | None:
    """4 when 3 players play exactly like 4 under these options (6 for 5 players), else None.

    True when the kernel's rule arrays for both counts are equal once the per-player-count
    options are resolved (the player count itself aside: the kernel only asks whether a
    game is solo) and the seat layouts are equal, which with odd_team_compensation
    extra_venture makes team B's extra seat a seat like a player's (P2P-S1): every game of
    the smaller count is then the same game as the larger count's."""
    from sim.games.peer_to_peer.seats import seat_layout

    if players not in (3, 5):
        return None
    other = players + 1
    mine, theirs = rules_array(resolved, players), rules_array(resolved, other)
    mine[c.R_PLAYERS] = theirs[c.R_PLAYERS] = 0
    mode = resolved["odd_team_compensation"]
    if np.array_equal(mine, theirs) and np.array_equal(seat_layout(players, mode),
                                                       seat_layout(other, mode)):
        return other
    return None


def rules_array(resolved: Mapping[str, Any], players: int) -> np.ndarray:
    """The resolved options for one player count as the kernel's int64 array (``R_*``)."""
    if players not in PLAYER_COUNTS:
        raise UserError(f"Peer-to-Peer is played by 1 to 6 players, got {players}",
                        field="players")

    def value(key: str) -> Any:
        return OPTIONS.value_for(resolved, key, players)

    rules = np.zeros(c.N_RULES, dtype=np.int64)
    rules[c.R_PLAYERS] = players
    rules[c.R_HAND_SIZE] = value("hand_size")
    rules[c.R_INITIAL_ROW] = value("initial_row")
    rules[c.R_NEW_CUSTOMERS] = value("new_customers_per_round")
    rules[c.R_DEAL_IN_FIRST_ROUND] = int(value("deal_in_first_round"))
    rules[c.R_VENTURE_LIMIT] = value("venture_limit")
    rules[c.R_RESHUFFLE_DISCARD] = int(value("reshuffle_discard"))
    rules[c.R_CUSTOMER_PATIENCE] = value("customer_patience")
    rules[c.R_ROW_CAPACITY] = value("row_capacity")
    rules[c.R_UNHAPPY_LIMIT] = value("unhappy_limit")
    rules[c.R_MAX_ROUNDS] = value("max_rounds")
    rules[c.R_ODD_COMP] = c.COMP_NAMES.index(value("odd_team_compensation"))
    rules[c.R_FIRST_MARKER] = c.MARKER_NAMES.index(value("first_marker"))
    rules[c.R_LOSER_EFFECTS_SPENT] = int(value("loser_effects_spent"))
    rules[c.R_END_WHEN] = c.END_WHEN_NAMES.index(value("end_when"))
    rules[c.R_UNCHOSEN_VENTURES] = c.UNCHOSEN_NAMES.index(value("unchosen_ventures"))
    rules[c.R_SOLO_SPARE_START] = c.SOLO_SPARE_NAMES.index(value("solo_spare_start_cards"))
    rules[c.R_CONTEST_UNPAIRED] = c.UNPAIRED_NAMES.index(value("contest_unpaired"))
    rules[c.R_PATIENCE_RESETS_WAIT] = int(value("patience_resets_wait"))
    order = value("domain_order")  # highest first
    for position, name in enumerate(order):
        rules[c.R_DOMAIN_RANK + c.DOMAIN_NAMES.index(name)] = len(order) - 1 - position
    rules[c.R_DOMAIN_RANK + c.ANY] = -1
    return rules
