"""PLAI rule options: every ``option:`` of the rules file, plus the readings we added.

Defaults are exactly those of ../shared/rules/plai.md. Options after the first seven
are readings where the rules leave a choice open; each names the rule it reads.
Readings that are fixed in the engine (no option) are listed in ``FIXED_READINGS``.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from sim.core.errors import UserError
from sim.games.plai import constants as c
from sim.core.options import Option, OptionSet

PLAYER_COUNTS = (2, 3, 4, 5)

OPTIONS = OptionSet([
    Option("first_seat", "0", "choice", "Who takes the first turn: seat 0, or a random seat.",
           "PLAI-S1", choices=("0", "random")),
    Option("starting_hand", 6, "int", "Cards dealt to each player at setup.", "PLAI-S2",
           lo=0, hi=99),
    Option("reshuffle", True, "bool",
           "Shuffle the discard pile into a new deck when the deck is empty.", "PLAI-T4"),
    Option("takeover_threshold", 9, "int",
           "Cards a startup must hold to launch a Hostile Takeover.", "PLAI-T1", lo=0, hi=999),
    # Results store turns as int16, hence the upper bound.
    Option("max_turns", 400, "int",
           "Turns (of any seat) after which the game ends as a stalemate.", "PLAI-T6",
           lo=1, hi=32767),
    Option("maintainer_pool_cap", 6, "int",
           "Most cards the Open Source Maintainers' shared pool holds.", "PLAI-T7",
           lo=0, hi=999),
    Option("maintainer_help_cards", 1, "int",
           "Pool cards the maintainers may add to the attacking side of a fight.", "PLAI-T7",
           lo=0, hi=999),
    Option("maintainer_help_in_four", False, "bool",
           "Help cards count against the attacker's 4 cards (false: played on top of them).",
           "PLAI-T7, PLAI-F1"),
    Option("negate_specials", True, "bool",
           "The target of an action special (target_discards, steal_random) may negate it.",
           "PLAI-C3, PLAI-F2"),
    Option("maintainer_specials", True, "bool",
           "Maintainers may play action specials from the pool on a startup.", "PLAI-T7"),
])

FIXED_READINGS = (
    "PLAI-T1: a turn is one seat's turn; maintainers' turns count toward max_turns.",
    "PLAI-T1: a maintainer may also pass (its family funding would only churn the pool).",
    "PLAI-T1: an attack needs at least one card; a takeover needs a card that can attack.",
    "PLAI-T3: events hit startups only, in turn order from the current seat; discards are "
    "random; rich_discard_half N makes each startup holding >= N cards discard half "
    "(rounded down) at random.",
    "PLAI-T3: an event drawn while another event resolves is discarded without effect and "
    "not replaced (otherwise two draw events can cycle forever on an events-only deck).",
    "PLAI-T7: the excess over the pool cap is the newest cards; D6 is decided by the "
    "maintainer who went bankrupt first; help goes to the attacking side, and spoils go to "
    "the attacking startup.",
    "PLAI-F1: fight cards are the side's real type, buzzwords, and specials without an "
    "action effect (GDPR Fine); action specials and negate are never among the 4.",
    "PLAI-F2: each side decides once per fight (D5), seeing the rival's revealed cards, "
    "whether to negate; it then cancels the rival's effects in play order while it has "
    "negate cards. A negate cannot itself be negated. A played card that a defense effect "
    "discards before the attack is revealed has no effect.",
    "PLAI-F4: when neither side is real, the higher strength wins (ties to the defender).",
    "PLAI-T1: target_discards N makes the target discard N random cards; steal_random N "
    "takes N random cards of the target.",
)


def rules_array(resolved: Mapping[str, Any], players: int) -> np.ndarray:
    """The resolved options as the kernel's int64 array (``R_*``)."""
    if players not in PLAYER_COUNTS:
        raise UserError(f"PLAI is played by 2 to 5 players, got {players}", field="players")
    rules = np.zeros(c.N_RULES, dtype=np.int64)
    rules[c.R_PLAYERS] = players
    rules[c.R_FIRST_SEAT] = -1 if resolved["first_seat"] == "random" else 0
    rules[c.R_STARTING_HAND] = resolved["starting_hand"]
    rules[c.R_RESHUFFLE] = int(resolved["reshuffle"])
    rules[c.R_TAKEOVER_THRESHOLD] = resolved["takeover_threshold"]
    rules[c.R_MAX_TURNS] = resolved["max_turns"]
    rules[c.R_POOL_CAP] = resolved["maintainer_pool_cap"]
    rules[c.R_HELP_CARDS] = resolved["maintainer_help_cards"]
    rules[c.R_HELP_IN_FOUR] = int(resolved["maintainer_help_in_four"])
    rules[c.R_NEGATE_SPECIALS] = int(resolved["negate_specials"])
    rules[c.R_MAINTAINER_SPECIALS] = int(resolved["maintainer_specials"])
    return rules
