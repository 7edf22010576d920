"""Trace events, in the kernel's form ``(round, code, a, b, c, d)`` with cards as indices.

The codes and fields are those of state_kernel.py (EV_*), so that the two traces of one
game can be compared event by event. tests/peer_to_peer/test_reference_rng.py checks that they
match.
"""
SEAT_START = 1   # seat, kept card, other card
MARKER = 2       # team holding the first team marker this round
DEAL = 3         # customer card dealt into the row
PASS = 4         # team
PLAY = 5         # team, card, value after effects
DECLARE = 6      # team, customer, shift card (-1), wild card (-1)
RETARGET = 7     # team, old customer, new customer
CONTEST = 8      # winner, customer, why
WIN = 9          # team, customer
PLACE = 10       # team, customer, destination (0 score, 1 venture, 2 deck, 3 hand, 4 discard), seat
OVERFLOW = 11    # team, seat, card pushed to the score pile
REFRESH = 12     # team, cards drawn, reshuffles, extra draw
UNHAPPY = 13     # customer
SAVE = 14        # team, patience card, customer
END = 15         # winner, score A, score B
EFFECT = 16      # team, card whose effect was used, effect code
RETURN = 17      # team whose cards went back to its hand
SETUP = 18       # customers in the deck, group deck A, group deck B
HAND = 19        # team, card (-1: empty hand), hand position, hand size: before each commit
DRAW = 20        # team, card drawn into the group hand (S4, R3)
RESHUFFLE = 21   # team, cards of the discard shuffled into a new group deck (R3)
COULD = 22       # team, row customer, first hand subset (position mask, 0 = none) that could
                 # legally assist it when the team passed at the end of the assist loop
ASIDE = 23       # seat, the revealed venture it did not keep, set aside (P2P-S2)
# What the game viewer shows beyond the rule events (sim/games/peer_to_peer/view_kernel.py):
VIEW_PILE = 28   # pile (round.py's view_piles order), -1, its size, 0; then per card: pile, position,
                 # card, its arrival round (row) or 0; at each round's start and at the end
VIEW_OPTION = 29  # 2 x decision (0 D2, 1 D4) + team, option (D2 hand mask, D4 destination
                  # code), customer (-1: pass), round(score * SCORE_UNIT)
VIEW_CAUSE = 30  # a customer turned unhappy: customer, team A's cause, team B's cause (-1
                 # solo), its own cause (causes.DECK ..), after R4
SCORE_UNIT = 1e6

NAMES = {v: n for n, v in globals().items() if n.isupper() and isinstance(v, int)}


class Log:
    """Collects events when tracing; a no-op otherwise (the benchmark runs without it)."""

    __slots__ = ("events", "on")

    def __init__(self, on: bool):
        self.on = on
        self.events: list[tuple[int, int, int, int, int, int]] = []

    def __call__(self, rnd, code, a=0, b=0, c=0, d=0):
        if self.on:
            self.events.append((int(rnd), code, _id(a), _id(b), _id(c), _id(d)))


def _id(x) -> int:
    """Cards are logged by index, None as -1."""
    if x is None:
        return -1
    return x if isinstance(x, int) else x.index


def describe(event, names) -> str:
    rnd, code, a, b, c, d = event
    return f"round {rnd} {NAMES.get(code, code)}({a}, {b}, {c}, {d})"
