"""Integer constants shared by the Peer-to-Peer kernels and the Python layer.

Kernels see cards as integer ids, card attributes as a struct of arrays, enums as these
integers and the resolved rule options as one int64 array indexed by ``R_*``.
"""
import numpy as np

# Domains (P2P-C2). The ids are fixed; their *rank* comes from the domain_order option.
SERVICE, TECHNOLOGY, SCIENCE, INFORMATION, ANY = 0, 1, 2, 3, 4
DOMAIN_NAMES = ("Service", "Technology", "Science", "Information", "any")

# Kinds (P2P-C1).
GROUP, VENTURE = 0, 1
KIND_NAMES = ("group", "venture")

# Teams; also the `start` column (-1 = no S mark).
TEAM_A, TEAM_B, NO_TEAM = 0, 1, -1

# Effects (P2P-E). The argument lives in card_effect_arg.
EFFECT_NONE = 0
EFFECT_WILD_DOMAIN = 1   # E1, no argument
EFFECT_SHIFT = 2         # E2, arg k >= 1
EFFECT_DEVELOP = 3       # E3, arg DEVELOP_DECK / DEVELOP_HAND / DEVELOP_DISCARD
EFFECT_EXTRA_DRAW = 4    # E4, arg n >= 1
EFFECT_TIEBREAK = 5      # E5, no argument
EFFECT_PATIENCE = 6      # E6, no argument
EFFECT_BOOST = 7         # E7, arg k >= 1 (group card)
EFFECT_DUAL_DOMAIN = 8   # E8, arg = a domain id (group card)
EFFECT_NAMES = ("", "wild_domain", "shift", "develop", "extra_draw", "tiebreak",
                "patience", "boost", "dual_domain")
# the effects that work only from a venture card in a team's seat (P2P-E): E1 .. E6
VENTURE_EFFECTS = tuple(range(EFFECT_WILD_DOMAIN, EFFECT_PATIENCE + 1))
DEVELOP_DECK, DEVELOP_HAND, DEVELOP_DISCARD = 0, 1, 2
DEVELOP_TARGETS = ("deck", "hand", "discard")

# odd_team_compensation (P2P-S1)
COMP_EXTRA_VENTURE, COMP_EXTRA_VENTURE_EMPTY, COMP_NONE = 0, 1, 2
COMP_NAMES = ("extra_venture", "extra_venture_empty", "none")

# first_marker reading (P2P-S6 says random; fixed values are for experiments)
MARKER_RANDOM, MARKER_A, MARKER_B = 0, 1, 2
MARKER_NAMES = ("random", "A", "B")
# Not an option value: the first-marker swap of a counterfactual replay (swaps.py) draws the
# marker as MARKER_RANDOM does, from the same random number, and gives it to the other team.
MARKER_RANDOM_OTHER = 3

# Resolved rule options for one player count: int64 array indexed by these.
R_PLAYERS = 0
R_HAND_SIZE = 1
R_INITIAL_ROW = 2
R_NEW_CUSTOMERS = 3          # for this player count
R_DEAL_IN_FIRST_ROUND = 4
R_VENTURE_LIMIT = 5          # for this player count
R_RESHUFFLE_DISCARD = 6
R_CUSTOMER_PATIENCE = 7
R_ROW_CAPACITY = 8
R_UNHAPPY_LIMIT = 9          # for this player count
R_MAX_ROUNDS = 10
R_ODD_COMP = 11
R_FIRST_MARKER = 12
R_LOSER_EFFECTS_SPENT = 13
R_DOMAIN_RANK = 14           # 5 entries: rank of each domain id, higher wins; `any` = -1
R_END_WHEN = R_DOMAIN_RANK + 5
R_UNCHOSEN_VENTURES = R_END_WHEN + 1     # P2P-S2, UNCHOSEN_*
R_SOLO_SPARE_START = R_END_WHEN + 2      # P2P-S3, SOLO_SPARE_*
R_CONTEST_UNPAIRED = R_END_WHEN + 3      # P2P-R2c, UNPAIRED_*
R_PATIENCE_RESETS_WAIT = R_END_WHEN + 4  # P2P-E6, 0 / 1
N_RULES = R_PATIENCE_RESETS_WAIT + 1

# end_when (P2P-R5 reading): the game ends once the customer deck is empty, or once the
# deck and the row are both empty (the last customers are served or turn unhappy first).
END_DECK_EMPTY, END_ROW_EMPTY = 0, 1
END_WHEN_NAMES = ("deck_empty", "row_empty")

# unchosen_ventures (P2P-S2): the revealed venture a seat did not keep leaves the game, or
# goes back into the deck (the other reading).
UNCHOSEN_ASIDE, UNCHOSEN_DECK = 0, 1
UNCHOSEN_NAMES = ("aside", "deck")

# solo_spare_start_cards (P2P-S3): in a solo game team B's S cards join the customer deck,
# or are out of the game (the other reading).
SOLO_SPARE_CUSTOMERS, SOLO_SPARE_OUT = 0, 1
SOLO_SPARE_NAMES = ("customers", "out")

# contest_unpaired (P2P-R2c): after equal pairs, the longer list wins, or the unpaired cards
# count for nothing and the contest goes on to the tiebreak step.
UNPAIRED_LONGER_WINS, UNPAIRED_TIED = 0, 1
UNPAIRED_NAMES = ("longer_wins", "tied")

# Winner codes (P2P "What a game must report")
WIN_A, WIN_B, DRAW, ALL_LOSE, SOLO_WIN, TIMEOUT = 0, 1, 2, 3, 4, 5
WINNER_NAMES = ("A", "B", "draw", "all_lose", "solo_win", "timeout")

# Where each card ends the game (per-card fate columns).
FATE_CUSTOMER_DECK = 0   # never dealt as a customer
FATE_ROW = 1             # still waiting in the row at the end
FATE_UNHAPPY = 2
FATE_SCORE_A, FATE_SCORE_B = 3, 4
FATE_VENTURE_A, FATE_VENTURE_B = 5, 6
FATE_GROUP_A, FATE_GROUP_B = 7, 8   # group deck, hand or discard (S cards and developed customers)
FATE_OUT = 9                        # out of the game (unchosen ventures set aside; team B's S cards in a solo game with solo_spare_start_cards=out)
FATE_NAMES = ("customer_deck", "row", "unhappy", "score_A", "score_B", "venture_A",
              "venture_B", "group_A", "group_B", "out")

MAX_SEATS = 6

# One row per game. Field order is the Parquet column order (fates are extra columns).
RESULT_DTYPE = np.dtype([
    ("game_index", np.int64),
    ("players", np.int8),
    ("winner", np.int8),
    ("first_marker", np.int8),
    ("rounds", np.int16),
    ("unhappy", np.int16),
    ("score_a", np.int16), ("score_b", np.int16),
    ("value_a", np.int16), ("value_b", np.int16),
    ("assists_a", np.int16), ("assists_b", np.int16),
    ("contests", np.int16),
    ("contests_won_a", np.int16), ("contests_won_b", np.int16),
    # contests that reached P2P-R2c's unpaired step (all pairs equal, one list longer),
    # by the team that won them: under contest_unpaired=longer_wins an unpaired card
    # decided them; under `tied` the tiebreak steps did.
    ("contests_unpaired_won_a", np.int16), ("contests_unpaired_won_b", np.int16),
    ("sent_score_a", np.int16), ("sent_score_b", np.int16),
    ("sent_venture_a", np.int16), ("sent_venture_b", np.int16),
    ("sent_deck_a", np.int16), ("sent_deck_b", np.int16),
] + [(f"start_card_{s}", np.int16) for s in range(MAX_SEATS)] + [
    ("error", np.int16),     # 0; an invariant violation code in debug mode
    # How contests were decided (P2P-R2c), by the team that won them: on a higher card, by
    # the `tiebreak` effect, on the domain step, by the first team marker. (A contest won
    # by the longer list is counted in contests_unpaired_won_*.)
    ("contests_higher_won_a", np.int16), ("contests_higher_won_b", np.int16),
    ("contests_tiebreak_won_a", np.int16), ("contests_tiebreak_won_b", np.int16),
    ("contests_domain_won_a", np.int16), ("contests_domain_won_b", np.int16),
    ("contests_marker_won_a", np.int16), ("contests_marker_won_b", np.int16),
    # Why each customer that turned unhappy (R4) was lost, by the first true statement
    # (why_kernel.py): deck, draw, capacity, choice; for the team that came closest to
    # serving it, then for each team.
] + [(f"unhappy_{cause}{team}", np.int16) for team in ("", "_a", "_b")
     for cause in ("deck", "draw", "capacity", "choice")])

# The columns added to the result row for the report's reasons (contest steps, the causes
# of unhappy customers): tests/core/test_game_checksums.py pins them apart from the others.
ANSWER_COLUMNS = RESULT_DTYPE.names[RESULT_DTYPE.names.index("contests_higher_won_a"):]
UNHAPPY_CAUSES = ("deck", "draw", "capacity", "choice")

# The card table as one int16 matrix (struct of arrays): cards[CD_*, card_id].
CD_DOMAIN, CD_VALUE, CD_KIND, CD_START, CD_EFFECT, CD_ARG = 0, 1, 2, 3, 4, 5
N_CARD_FIELDS = 6

# Seat layout passed to the kernel: seats[SEAT_TEAM, s] (-1 = no such seat) and
# seats[SEAT_DEALT, s] (1 = dealt a starting venture in P2P-S2).
SEAT_TEAM, SEAT_DEALT = 0, 1

# Invariant violations reported in the `error` column in debug mode.
ERR_NONE, ERR_CONSERVATION, ERR_VENTURE_LIMIT, ERR_EFFECT_TWICE, ERR_ILLEGAL_ASSIST = 0, 1, 2, 3, 4
ERROR_NAMES = ("", "a card is not in exactly one place", "a seat is over its venture limit",
               "an effect was used twice in a round", "an assist was not legal")

# Why a contest was won (P2P-R2c), for the trace.
WHY_HIGHER_CARD, WHY_LONGER, WHY_TIEBREAK, WHY_DOMAIN, WHY_MARKER = 1, 2, 3, 4, 5

# The per-round curves' series (curves_kernel.py sums them; the description names them),
# here so that reading a run's curves needs no compiled code.
K_SCORE_A, K_SCORE_B, K_ROW, K_UNHAPPY, K_SERVED, K_DECK = 0, 1, 2, 3, 4, 5
CURVE_WIDTH = 6
