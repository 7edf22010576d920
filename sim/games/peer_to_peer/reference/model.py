"""The things on the table: cards, piles, seats, teams, and the rule options in force.

Written from docs/rules/peer-to-peer.md (P2P-C, P2P-S1). A pile is a stack whose
top is its last element; a group hand is a list whose order is the order the cards were
drawn (its positions are the "hand slots" of the D2 option order).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer.rules import OPTIONS


@dataclass(frozen=True, eq=False)
class Card:
    """One card (P2P-C1). ``index`` is its row in the card file; it is the card's identity."""

    index: int
    id: str
    name: str
    domain: int          # k.SERVICE .. k.ANY
    value: int
    kind: int            # k.GROUP / k.VENTURE
    start: int           # k.TEAM_A / k.TEAM_B / k.NO_TEAM
    effect: int          # k.EFFECT_*
    arg: int

    @property
    def is_venture(self) -> bool:
        return self.kind == k.VENTURE

    def has(self, effect: int, arg: int | None = None) -> bool:
        return self.effect == effect and (arg is None or self.arg == arg)

    def __repr__(self) -> str:
        return f"<{self.id}>"


def cards_from_table(table) -> list[Card]:
    """The CardTable of a configuration as Card objects, in file order."""
    return [Card(i, table.ids[i], table.names[i], int(table.domain[i]), int(table.value[i]),
                 int(table.kind[i]), int(table.start[i]), int(table.effect[i]),
                 int(table.effect_arg[i]))
            for i in range(table.n)]


class Pile:
    """A stack of cards; the top is the end of the list."""

    __slots__ = ("name", "cards")

    def __init__(self, name: str, cards=()):
        self.name = name
        self.cards: list[Card] = list(cards)

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self):
        return iter(self.cards)

    def __bool__(self) -> bool:
        return bool(self.cards)

    def put(self, card: Card) -> None:
        self.cards.append(card)

    def draw(self) -> Card:
        return self.cards.pop()

    def take(self, card: Card) -> Card:
        self.cards.remove(card)
        return card

    def shuffle(self, rng) -> None:
        rng.shuffle(self.cards)

    def __repr__(self) -> str:
        return f"{self.name}{self.cards}"


@dataclass(eq=False)
class Seat:
    """One venture: a stack of venture cards in the order they were placed (P2P-S1)."""

    index: int
    team: "Team"
    dealt: bool                      # gets a starting venture in P2P-S2
    ventures: list[Card] = field(default_factory=list)
    start_card: Card | None = None


@dataclass(eq=False)
class Team:
    index: int                       # 0 = A, 1 = B
    policy: object                   # a reference.policy.Policy
    group_deck: Pile = None
    hand: list[Card] = field(default_factory=list)
    discard: Pile = None
    score_pile: Pile = None
    seats: list[Seat] = field(default_factory=list)
    # counters for the result row
    assists: int = 0
    contests_won: int = 0
    contests_unpaired_won: int = 0   # contests that reached R2c's unpaired step, won
    contests_won_by: dict = field(default_factory=dict)   # k.WHY_* -> contests won that way
    unhappy_causes: list = field(default_factory=lambda: [0, 0, 0, 0])  # causes.DECK ..
    sent_score: int = 0
    sent_venture: int = 0
    sent_deck: int = 0

    def __post_init__(self):
        name = self.name
        self.group_deck = Pile(f"group deck {name}")
        self.discard = Pile(f"discard {name}")
        self.score_pile = Pile(f"score {name}")

    @property
    def name(self) -> str:
        return "AB"[self.index]

    def venture_cards(self):
        """Every card in this team's ventures, seat by seat, in placement order."""
        for seat in self.seats:
            yield from seat.ventures

    def working_ventures(self, effect: int, arg: int | None = None):
        """Venture cards whose ``effect`` works now: a venture card sitting in one of this
        team's ventures (P2P-E: effects on venture cards work only there)."""
        return [c for c in self.venture_cards() if c.is_venture and c.has(effect, arg)]


TEAM_SIZES = {1: (1, 0), 2: (1, 1), 3: (2, 1), 4: (2, 2), 5: (3, 2), 6: (3, 3)}  # P2P-S1


@dataclass(frozen=True)
class Rules:
    """The rule options in force for one player count (every ``option:`` of the rules)."""

    players: int
    domain_rank: dict            # domain id -> rank, higher wins; `any` ranks below all
    odd_team_compensation: str
    hand_size: int
    initial_row: int
    new_customers_per_round: int
    deal_in_first_round: bool
    venture_limit: int
    reshuffle_discard: bool
    customer_patience: int
    row_capacity: int
    unhappy_limit: int
    max_rounds: int
    first_marker: str
    loser_effects_spent: bool
    end_when: str = "deck_empty"      # P2P-R5 reading: or "row_empty"
    unchosen_ventures: str = "aside"          # P2P-S2: or "deck"
    solo_spare_start_cards: str = "customers"  # P2P-S3: or "out"
    contest_unpaired: str = "longer_wins"      # P2P-R2c: or "tied"
    patience_resets_wait: bool = False         # P2P-E6

    @classmethod
    def from_resolved(cls, resolved: dict, players: int) -> "Rules":
        def value(key):
            return OPTIONS.value_for(resolved, key, players)

        order = list(value("domain_order"))  # highest first
        rank = {k.DOMAIN_NAMES.index(name): len(order) - 1 - i for i, name in enumerate(order)}
        rank[k.ANY] = -1
        return cls(players=players, domain_rank=rank,
                   odd_team_compensation=value("odd_team_compensation"),
                   hand_size=int(value("hand_size")), initial_row=int(value("initial_row")),
                   new_customers_per_round=int(value("new_customers_per_round")),
                   deal_in_first_round=bool(value("deal_in_first_round")),
                   venture_limit=int(value("venture_limit")),
                   reshuffle_discard=bool(value("reshuffle_discard")),
                   customer_patience=int(value("customer_patience")),
                   row_capacity=int(value("row_capacity")),
                   unhappy_limit=int(value("unhappy_limit")),
                   max_rounds=int(value("max_rounds")),
                   first_marker=value("first_marker"),
                   loser_effects_spent=bool(value("loser_effects_spent")),
                   end_when=value("end_when"),
                   unchosen_ventures=value("unchosen_ventures"),
                   solo_spare_start_cards=value("solo_spare_start_cards"),
                   contest_unpaired=value("contest_unpaired"),
                   patience_resets_wait=bool(value("patience_resets_wait")))

    @property
    def solo(self) -> bool:
        return self.players == 1

    def seat_plan(self) -> list[tuple[int, bool]]:
        """P2P-S1: (team, dealt a starting venture) per seat; team A's seats first.

        Each player owns one seat; with 3 or 5 players the smaller team (B) controls one
        extra seat, dealt a start (`extra_venture`), empty (`extra_venture_empty`) or absent."""
        size_a, size_b = TEAM_SIZES[self.players]
        plan = [(k.TEAM_A, True)] * size_a + [(k.TEAM_B, True)] * size_b
        if self.players in (3, 5) and self.odd_team_compensation != "none":
            plan.append((k.TEAM_B, self.odd_team_compensation == "extra_venture"))
        return plan
