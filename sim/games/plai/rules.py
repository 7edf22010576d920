"""PLAI rule options, with their defaults: the "Rule options" of docs/rules/plai.md.

The document gives each option's values, default and why; the rule ids say which rule
each one reads. A test holds the document and these declarations together.
Readings that are fixed in the engine (no option) are listed in ``FIXED_READINGS``; the
document describes them under their rules.
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
    Option("regional_attacker", "next_startup", "choice",
           "Who may attack a regional pitch: the next startup in turn order (skipping "
           "bankrupt seats), or only the next seat (nobody if it is bankrupt).", "PLAI-T1",
           choices=("next_startup", "next_player")),
    Option("venture_attackers", "first", "choice",
           "Venture capital: the first other startup in turn order that chooses to attack "
           "does so, or every startup that chooses joins one attacking side (up to 4 cards "
           "each; a win deals the drawn cards to the attackers in turn order).", "PLAI-T1",
           choices=("first", "joint")),
    Option("pool_excess", "choose", "choice",
           "Which cards go when the maintainers' pool is over its cap: those their strategy "
           "scores lowest (D6), or the cards that just arrived.", "PLAI-T7, PLAI-D6",
           choices=("choose", "newest")),
    Option("maintainer_attack", False, "bool",
           "On its turn a maintainer may challenge any startup as in a Hostile Takeover, "
           "without the threshold, with up to 4 pool cards.", "PLAI-T7"),
])

FIXED_READINGS = (
    "PLAI-T1: a turn is one seat's turn; maintainers' turns count toward max_turns.",
    "PLAI-T1: a maintainer may also pass (under pool_excess: newest its family funding only "
    "churns a full pool).",
    "PLAI-T1: an attack needs at least one card; a takeover needs a card that can attack.",
    "PLAI-T3: events hit startups only, in turn order from the current seat; discards are "
    "random; rich_discard_half N makes each startup holding >= N cards discard half "
    "(rounded down) at random.",
    "PLAI-T3: an event drawn while another event resolves is discarded without effect and "
    "not replaced (otherwise two draw events can cycle forever on an events-only deck).",
    "PLAI-T7: D6 (help, and which pool cards to keep under pool_excess: choose) is decided "
    "by the maintainer who went bankrupt first (the lowest seat among those who went "
    "bankrupt in the same turn); help goes to the attacking side, and spoils go to the "
    "attacking startup. Under pool_excess: choose the lowest-scoring cards go, the newest "
    "of equal scores first.",
    "PLAI-T7: under maintainer_attack a challenge is a takeover fight with the pool as the "
    "challenger's hand: the maintainers add no help on top, a win moves the startup's hand "
    "into the pool (then capped), a loss gives the startup the pool's remaining cards.",
    "PLAI-T1: under venture_attackers: joint the attackers are asked in turn order from the "
    "funder; each plays up to 4 cards in its own mode; each decides for itself whether to "
    "negate (D5), and the side's negates are spent attacker by attacker in that order.",
    "PLAI-D: options naming a seat (targets of specials, takeovers and maintainer "
    "challenges) are listed from the next seat clockwise from the deciding seat.",
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
    rules[c.R_REGIONAL_NEXT_PLAYER] = int(resolved["regional_attacker"] == "next_player")
    rules[c.R_VENTURE_JOINT] = int(resolved["venture_attackers"] == "joint")
    rules[c.R_POOL_NEWEST] = int(resolved["pool_excess"] == "newest")
    rules[c.R_MAINTAINER_ATTACK] = int(resolved["maintainer_attack"])
    return rules
