"""Integer constants shared by the PLAI kernels and the Python layer.

Kernels see cards as integer ids (row of the card file), card attributes as one int64
matrix ``cards[CD_*, card_id]``, enums as these integers, the resolved rule options as
one int64 array indexed by ``R_*`` and every card location as a row of ``piles``.
"""
import numpy as np

# Card types (PLAI-C1).
ADVERSARY, USE_CASE, BUZZWORD, SPECIAL, MARKET_EVENT = 0, 1, 2, 3, 4
TYPE_NAMES = ("adversary", "use_case", "buzzword", "special", "market_event")

# Numerals (PLAI-C2); 0 = none, always in.
NUMERAL_NAMES = ("", "I", "II", "III")

# Effects (PLAI-C3, PLAI-C4). The argument n lives in cards[CD_ARG].
EFFECT_NONE = 0
EFFECT_DISCARD_RIVAL = 1   # discard_random_rival_played n: in a fight (PLAI-F2)
EFFECT_NEGATE = 2          # negate: cancels one rival effect, outside the 4 cards (F1, F2)
EFFECT_TARGET_DISCARDS = 3 # target_discards n: an action (T1); the target loses n at random
EFFECT_STEAL_RANDOM = 4    # steal_random n: an action (T1); take n random cards of the target
EFFECT_ALL_DISCARD = 5     # market event: every startup discards n at random
EFFECT_ALL_DRAW = 6        # market event: every startup draws n
EFFECT_RICH_DISCARD = 7    # market event rich_discard_half n: startups holding >= n discard half
EFFECT_NAMES = ("", "discard_random_rival_played", "negate", "target_discards", "steal_random",
                "all_discard", "all_draw", "rich_discard_half")
EFFECT_TAKES_ARG = (False, True, False, True, True, True, True, True)
ACTION_EFFECTS = (EFFECT_TARGET_DISCARDS, EFFECT_STEAL_RANDOM)
EVENT_EFFECTS = (EFFECT_ALL_DISCARD, EFFECT_ALL_DRAW, EFFECT_RICH_DISCARD)

# The card table: cards[CD_*, card_id].
CD_TYPE, CD_STRENGTH, CD_EFFECT, CD_ARG = 0, 1, 2, 3
# Rows derived from the four above (cards.derived_rows), so the hottest scans of the
# decisions read a card's role in a fight without re-deriving it from type and effect:
CD_FLAGS = 4        # FL_* bits
CD_POWER_ATT = 5    # max(strength, 0) if the card can be played in an attack, else 0
CD_POWER_DEF = 6    # the same for a defense
CD_POWER_BLUFF = 7  # max(strength, 0) if it is a non-real fight card (a bluff card), else 0
CD_REAL_ATT = 8     # strength if the card is the attack's real type, else NOT_REAL
CD_REAL_DEF = 9     # the same for the defense
# A card's power as a count in a byte histogram: 1 << (8 * power) for powers 0 .. 7, 0 above
# (FL_BIG_POWER marks those). mode_powers adds them up per hand (see HIST_MAX_POWER).
CD_HIST_ATT = 10    # of CD_POWER_ATT
CD_HIST_DEF = 11    # of CD_POWER_DEF
CD_HIST_BLUFF = 12  # of CD_POWER_BLUFF
N_CARD_FIELDS = 13
HIST_MAX_POWER = 7
NOT_REAL = -(1 << 62)   # below every strength (the card file allows -99 .. 99)
# CD_FLAGS bits. A side's real type is bit ``1 << side`` (SIDE_ATTACK 0, SIDE_DEFENSE 1).
FL_ADVERSARY = 1    # the attack's real type
FL_USE_CASE = 2     # the defense's real type
FL_BLUFF = 4        # a buzzword or a fight special (effect none or discard_random_rival)
FL_ACTION = 8       # an action special (target_discards, steal_random)
FL_BUZZWORD = 16
FL_FIGHT_EFFECT = 32  # effect discard_random_rival_played
FL_BIG_POWER = 64   # a power above HIST_MAX_POWER: mode_powers cannot count it in bytes

# Card locations: piles[P_*, i] holds card ids, pile_n[P_*] how many. Hands follow.
P_DECK, P_DISCARD, P_POOL, P_FUNDING, P_EVENTS, P_ATTACK, P_DEFENSE = 0, 1, 2, 3, 4, 5, 6
P_HAND0 = 7
PILE_NAMES = ("deck", "discard", "maintainer pool", "funding (face down)", "events in play",
              "attack", "defense")

MAX_SEATS = 5
MAX_FIGHT_CARDS = 4  # PLAI-F1

# The per-turn curves' series (curves_kernel.py sums them; the description names them),
# here so that reading a run's curves needs no compiled code: each seat's hand, then the
# turn's fights, fundings and bankruptcies.
K_HAND0 = 0
K_FIGHTS = K_HAND0 + MAX_SEATS
K_FUNDINGS = K_FIGHTS + 1
K_BANKRUPT = K_FUNDINGS + 1
CURVE_WIDTH = K_BANKRUPT + 1

# Resolved rule options: int64 array indexed by these.
R_PLAYERS = 0
R_FIRST_SEAT = 1            # -1 = random (PLAI-S1)
R_STARTING_HAND = 2         # PLAI-S2
R_RESHUFFLE = 3             # PLAI-T4
R_TAKEOVER_THRESHOLD = 4    # PLAI-T1
R_MAX_TURNS = 5             # PLAI-T6
R_POOL_CAP = 6              # PLAI-T7
R_HELP_CARDS = 7            # PLAI-T7
R_HELP_IN_FOUR = 8          # reading of T7/F1: help cards count against the attacker's 4
R_NEGATE_SPECIALS = 9       # reading of C3/F2: a target may negate a special action
R_MAINTAINER_SPECIALS = 10  # reading of T7: maintainers may play specials from the pool
R_DEBUG = 11                # not a rule: 1 = check the invariants after every turn (--debug)
R_REGIONAL_NEXT_PLAYER = 12 # PLAI-T1 regional_attacker: 1 = next_player, 0 = next_startup
R_VENTURE_JOINT = 13        # PLAI-T1 venture_attackers: 1 = joint, 0 = first
R_POOL_NEWEST = 14          # PLAI-T7 pool_excess: 1 = newest, 0 = choose (D6)
R_MAINTAINER_ATTACK = 15    # PLAI-T7 maintainer_attack: 1 = a maintainer may challenge
R_FIRST_SEAT_SHIFT = 16     # not a rule: the turn-order swap of a replay (swaps.py) moves the
                            # first seat (and the deal with it) this many seats on
N_RULES = 17

# Actions (PLAI-T1, T7), in the option order of decision D1.
ACT_PASS, ACT_FAMILY, ACT_REGIONAL, ACT_VENTURE, ACT_SPECIAL, ACT_TAKEOVER = 0, 1, 2, 3, 4, 5
ACTION_NAMES = ("pass", "family funding", "regional pitch", "venture capital",
                "special card", "hostile takeover")
FUNDING_DRAWS = (0, 1, 2, 3, 0, 0)

# Fight modes (D2/D3): a real side must include an adversary (attack) / use case (defense);
# a bluff uses none (buzzwords and fight specials only).
MODE_NONE, MODE_REAL, MODE_BLUFF = 0, 1, 2
MODE_NAMES = ("none", "real", "bluff")

# Fight kinds.
FIGHT_REGIONAL, FIGHT_VENTURE, FIGHT_TAKEOVER = 0, 1, 2
FIGHT_NAMES = ("regional pitch", "venture capital", "hostile takeover")

# Game outcome (PLAI-T6).
OUT_SEAT, OUT_MAINTAINERS, OUT_STALEMATE = 0, 1, 2
OUTCOME_NAMES = ("seat", "maintainers", "stalemate")

# Per-game counters, filled by the engine: stats[S_*].
S_TURNS = 0
S_FUND_FAMILY = 1
S_FUND_REGIONAL = 2
S_FUND_VENTURE = 3
S_REGIONAL_ATTACKED = 4
S_REGIONAL_ATTACK_WON = 5
S_VENTURE_ATTACKED = 6
S_VENTURE_ATTACK_WON = 7
S_TAKEOVERS = 8
S_TAKEOVERS_WON = 9
S_BLUFFS_CALLED = 10
S_SPECIALS = 11
S_NEGATES = 12
S_EVENTS = 13
S_HELP_CARDS = 14
S_ERROR = 15
S_MAX_POOL = 16
S_RESHUFFLES = 17
S_TRACE_N = 18             # rows written to the trace matrix
S_MAINT_FAMILY = 19        # family fundings by maintainers into the pool
S_FIGHTS = 20              # fights so far (stamps the per-card fight counts, see SCR_*)
S_MAINT_ATTACKS = 21       # maintainer challenges (maintainer_attack), also in S_TAKEOVERS
S_MAINT_ATTACKS_WON = 22
N_STATS = 23

# Invariant violations (the `error` column); checked after every turn in debug mode
# (R_DEBUG, ``--debug``), 0 otherwise.
ERR_NONE, ERR_CONSERVATION, ERR_POOL_CAP = 0, 1, 2
ERROR_NAMES = ("", "card count changed", "maintainer pool above its cap")

# One row per game. Per-seat fields are (MAX_SEATS,) sub-arrays; run_chunk flattens them
# into columns like hand_0 .. hand_4 (-1 for a seat that is not in the game).
RESULT_DTYPE = np.dtype([
    ("game_index", np.int64),
    ("players", np.int8),
    ("outcome", np.int8),          # OUT_*
    ("winner", np.int8),           # winning seat, -1 if maintainers or stalemate
    ("first_seat", np.int8),
    ("turns", np.int16),
    ("deck_size", np.int16),
    ("fund_family", np.int16),     # by startups; maintainers' are maintainer_family
    ("fund_regional", np.int16),
    ("fund_venture", np.int16),
    ("regional_attacked", np.int16),
    ("regional_attack_won", np.int16),
    ("venture_attacked", np.int16),
    ("venture_attack_won", np.int16),
    ("takeovers", np.int16),
    ("takeovers_won", np.int16),
    ("bluffs_called", np.int16),
    ("specials", np.int16),
    ("negates", np.int16),
    ("events", np.int16),
    ("help_cards", np.int16),
    ("maintainer_family", np.int16),
    ("reshuffles", np.int16),
    ("maintainer_attacks", np.int16),      # maintainer challenges (counted in takeovers too)
    ("maintainer_attacks_won", np.int16),
    ("deck_left", np.int16),
    ("discard_left", np.int16),
    ("pool_left", np.int16),
    ("max_pool", np.int16),
    ("bankrupt_turn", np.int16, (MAX_SEATS,)),   # -1 = never bankrupt
    ("hand", np.int16, (MAX_SEATS,)),            # final hand size
    ("error", np.int16),
])

# Trace rows: trace[i, TR_*]. The kernel writes numbers, Python turns them into words.
TR_TURN, TR_CODE, TR_A, TR_B, TR_C, TR_D = 0, 1, 2, 3, 4, 5
TRACE_WIDTH = 6
(EV_TURN, EV_ACTION, EV_DRAW, EV_MARKET_EVENT, EV_EVENT_LOSS, EV_EVENT_GAIN, EV_ATTACK,
 EV_PLAY, EV_DEFEND, EV_HELP, EV_NEGATE, EV_EFFECT_DISCARD, EV_FIGHT, EV_SPOILS,
 EV_SPECIAL_LOSS, EV_BANKRUPT, EV_END, EV_RESHUFFLE, EV_POOL_EXCESS, EV_DRAWN, EV_JOIN,
 EV_RESOLVE, EV_RNG, EV_DEAL) = range(24)
# EV_DRAWN: seat, card drawn (a Market Event too), destination pile (P_*), 0.
# EV_JOIN: a joint venture attacker (venture_attackers: joint): seat, mode, 0, 0.
# EV_RESOLVE / EV_RNG: a fight with effects goes to resolve_fight: the negate budgets
# (attack, defense), then two rows with the random stream's state (four uint64 words as
# eight int32 halves, low half first). Not shown in words: the differential test of fights
# with effects replays resolve_fight from them (tests/plai/test_fight_effects.py).
# EV_DEAL: a joint venture's spoils: seat, card.
# The search player (search_kernel.py), at each of its decisions: EV_SEARCH_OPTION per
# option it evaluated: decision kind (SEARCH_*), wins of its seat, rollouts, option rank
# (0 = its base strategy's choice); then EV_SEARCH_ARG: action or mode, card or card count,
# target, decision kind; then EV_SEARCH_CARD per card of a fight option: card id; after all options
# EV_SEARCH_CHOICE: kind, the chosen option's rank, the searching seat, options listed.
EV_SEARCH_OPTION, EV_SEARCH_ARG, EV_SEARCH_CARD, EV_SEARCH_CHOICE = 24, 25, 26, 27
# What the game viewer shows beyond the rule events (view_kernel.py), only when tracing:
# EV_VIEW_PILE at each turn's start and at the end: per pile (P_*, a hand per seat) pile,
# -1, its size, the seat's bankrupt turn (hands; -1: a startup) or 0; then per shown card
# pile, position, card id, 0. EV_VIEW_OPTION before D1: per option of choose_action_s
# action, card id or -1, target seat or -1, score (view_kernel.score_code).
EV_VIEW_PILE, EV_VIEW_OPTION = 28, 29
SEARCH_ACTION, SEARCH_ATTACK, SEARCH_DEFENSE = 0, 1, 2
SEARCH_KIND_NAMES = ("action", "attack cards", "defense")
# A seat's row of the search matrix (PlaiConfig.search): on (0/1), k, n.
SEARCH_ON, SEARCH_K, SEARCH_N = 0, 1, 2
# The decisions of a turn that a caller (the search player) may force or be asked for
# (sim.core.search_kernel.Decisions), a slot per kind (SEARCH_*): the action (action, card,
# target), the attack's cards and the defense (mode, card count, -1, then the card ids).
N_DECISIONS = 3
DECISION_WIDTH = 3 + MAX_FIGHT_CARDS
# The hook's marks at a turn start: the seat to play and the startups in the game.
MARK_SEAT, MARK_LEFT = 0, 1

# Rows of the engine's int64 scratch matrix (width: max(N_FIGHT_OUT, deck size, cards)).
SCR_ATT_REMOVED, SCR_DEF_REMOVED, SCR_OUT = 0, 1, 2   # resolve_fight's marks and outcome
# Per-card fight counts of the current game, one row per CARD_FIGHT_FIELDS entry, indexed
# by card id (row of the card file); copied into the card_fights output after each game.
SCR_CARD_FIGHTS = 3
CARD_FIGHT_FIELDS = ("card_att", "card_att_won", "card_def", "card_def_won")
CF_ATT, CF_ATT_WON, CF_DEF, CF_DEF_WON = 0, 1, 2, 3
# The fight (S_FIGHTS) in which a card was last counted for the attack / the defense, so
# a card counts once per fight and side however many copies a side used.
SCR_STAMP_ATT, SCR_STAMP_DEF = 7, 8
# A joint venture attack (venture_attackers: joint): per seat, its mode (MODE_NONE if it
# does not attack), its negate budget and the cards it played. Written before each use.
SCR_JOINT_MODE, SCR_JOINT_BUDGET = 9, 10
N_SCRATCH = 11

# What resolve_fight reports: out[FO_*].
FO_WINNER = 0            # SIDE_ATTACK or SIDE_DEFENSE
FO_ATT_STRENGTH = 1      # PLAI-F3, after effects
FO_DEF_STRENGTH = 2
FO_ATT_REAL = 3          # PLAI-F4, after effects
FO_DEF_REAL = 4
FO_ATT_NEGATES = 5       # negate cards the attacker used (PLAI-F2)
FO_DEF_NEGATES = 6
FO_REASON = 7            # WHY_*
N_FIGHT_OUT = 8
SIDE_ATTACK, SIDE_DEFENSE = 0, 1
WHY_STRENGTH, WHY_BLUFF_CALLED, WHY_UNDEFENDED = 0, 1, 2
WHY_NAMES = ("strength", "bluff called", "no defense")
