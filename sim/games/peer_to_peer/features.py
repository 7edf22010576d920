"""Decision features for Peer-to-Peer strategies (P2P-D).

For every decision the kernel lists the legal options in a fixed order, computes these
features for each option and scores it as ``weights . features``; the highest score wins,
and the first option in the order below wins a tie. A strategy is a weight vector:
``NF`` weights for the early phase, ``NF`` for the late phase, then ``SWITCH`` (the game
is late once the customer deck holds at most this many cards; -1 means never).

Option order (the reference engine relies on it):
- D1 start venture: the two revealed venture cards, in the order they were revealed.
- D2 commit: "pass" first, then every hand subset as a bitmask over hand slots in
  ascending order, and for each subset every legal customer in row order.
- D3 retarget: every customer the committed cards can legally assist, in row order.
- D4 destination: score pile, then each seat of the team in seat order, then the
  develop targets deck, hand, discard (each once, if a usable develop effect allows it).
- D5 leaving venture card: the seat's cards in the order they were placed.
- D6 patience: "save nobody" first, then each customer about to turn unhappy, in row order.
A NOISE feature is a uniform draw from the game's random stream, made for each option
in that order, only when its weight is not zero. One exception: when a team's group hand
or the row is empty, D2 is not a decision at all (the team passes, no draw is made).
"""
import numpy as np

# D2 commit and D3 retarget
C_PASS = 0            # 1 for the pass option (D2 only)
C_VALUE = 1           # customer value
C_WAITED = 2          # full rounds the customer has already waited in the row
C_URGENT = 3          # 1 if it turns unhappy at the end of this round unless served
C_CARDS = 4           # cards played
C_HIGH = 5            # highest played value after effects
C_EFFECTS = 6         # venture effects the assist would use
C_TOP = 7             # 1 if no customer in the row is worth more (a likely contest)
C_CONTEST_WIN = 8     # D3: the rival declared this customer and we would win it
C_CONTEST_LOSE = 9    # D3: the rival declared this customer and we would lose it
C_CUST_EFFECT = 10    # the customer is a venture card with an effect
C_KIND = 11           # C_KIND + e - 1: the customer is a venture card whose effect is e, one
                      # of the six venture effects (constants.EFFECT_WILD_DOMAIN 1 ..
                      # EFFECT_PATIENCE 6, in that order)
C_REACH = 17          # other row customers the cards left in hand can still serve exactly
                      # (printed values, natural or dual_domain match; no other effect)
C_NOISE = 18
# D4 destination
D_SCORE = 19
D_VENTURE = 20
D_DEVELOP_DECK = 21
D_DEVELOP_HAND = 22
D_DEVELOP_DISCARD = 23
D_OVERFLOW = 24        # placing here pushes a venture card to the score pile
D_VENTURE_EFFECT = 25  # destination is a venture and the customer carries a venture effect
D_SCORE_VALUE = 26     # customer value, when the destination is the score pile
D_SCORE_REMAINING = 27 # customer deck size, when the destination is the score pile
D_NOISE = 28
# D5 which venture card leaves an over-full seat
L_HAS_EFFECT = 29     # the card is a venture card with an effect (one that works in a venture)
L_VALUE = 30
L_IS_NEW = 31
L_NOISE = 32
# D6 which customer patience saves
S_NONE = 33
S_VALUE = 34
S_NOISE = 35
# D1 starting venture
V_HAS_EFFECT = 36
V_VALUE = 37
V_NOISE = 38
NF = 39
SWITCH = 2 * NF
N_WEIGHTS = 2 * NF + 1

FEATURE_NAMES = (
    "commit.pass", "commit.value", "commit.waited", "commit.urgent", "commit.cards",
    "commit.high_card", "commit.effects", "commit.top_customer", "commit.contest_win",
    "commit.contest_lose", "commit.customer_effect", "commit.kind_wild_domain",
    "commit.kind_shift", "commit.kind_develop", "commit.kind_extra_draw", "commit.kind_tiebreak",
    "commit.kind_patience", "commit.reach", "commit.noise",
    "dest.score", "dest.venture", "dest.develop_deck", "dest.develop_hand",
    "dest.develop_discard", "dest.overflow", "dest.venture_effect", "dest.score_value",
    "dest.score_remaining", "dest.noise",
    "leave.has_effect", "leave.value", "leave.is_new", "leave.noise",
    "save.none", "save.value", "save.noise",
    "start.has_effect", "start.value", "start.noise",
)
assert len(FEATURE_NAMES) == NF

# The decision each feature scores (G_*: D2 and D3 share the commit features), the noise
# draws apart (G_NOISE). The search player decides D2, D3 and D4: it records the features
# of those decisions' options, and a policy fitted to its choices learns their weights
# (sim/studies/distill.py); the others are copied from the search's base.
G_NOISE, G_START, G_COMMIT, G_DEST, G_LEAVE, G_SAVE = range(6)
FEATURE_GROUP = np.array(
    [G_COMMIT] * (C_NOISE - C_PASS) + [G_NOISE] + [G_DEST] * (D_NOISE - D_SCORE) + [G_NOISE]
    + [G_LEAVE] * (L_NOISE - L_HAS_EFFECT) + [G_NOISE] + [G_SAVE] * (S_NOISE - S_NONE)
    + [G_NOISE] + [G_START] * (V_NOISE - V_HAS_EFFECT) + [G_NOISE], dtype=np.int64)
assert FEATURE_GROUP.shape == (NF,)
SEARCHED_GROUPS = (G_COMMIT, G_DEST)

# Weight names a strategy may set: "x" sets both phases, "early.x" / "late.x" one phase,
# "switch" the phase switch.
WEIGHT_NAMES = tuple(f"early.{n}" for n in FEATURE_NAMES) + tuple(
    f"late.{n}" for n in FEATURE_NAMES) + ("switch",)


def _defaults() -> np.ndarray:
    """The default policy every strategy starts from: the greedy strategy's weights."""
    w = np.zeros(NF)
    w[C_PASS] = -1000.0          # never pass while an assist is possible
    w[C_VALUE] = 1.0             # the most valuable customer first
    w[C_CARDS] = -0.01           # then the cheapest way to assist it
    w[C_CONTEST_LOSE] = 0.0
    w[D_SCORE] = 1.0             # always score
    w[L_HAS_EFFECT] = -1.0       # push out a card without an effect
    w[L_VALUE] = 0.01
    w[S_NONE] = -1.0             # always use patience
    w[S_VALUE] = 0.01            # on the most valuable customer
    w[V_HAS_EFFECT] = 1.0        # keep a venture with an effect
    w[V_VALUE] = 0.01
    return np.concatenate([w, w, [-1.0]])


DEFAULT_WEIGHTS = _defaults()


def expand_weight_key(key: str) -> tuple[str, ...]:
    """A strategy's key -> the WEIGHT_NAMES it sets."""
    if key == "switch" or key.startswith(("early.", "late.")):
        return (key,)
    return (f"early.{key}", f"late.{key}")
