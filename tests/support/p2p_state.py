"""Hand-made Peer-to-Peer game states for scenario tests (rules: P2P-*).

A ``State`` holds the engine's state arrays (see engine_kernel's module docstring) and lets
a test put named cards into piles, then run one kernel piece and read the piles back by
card id::

    s = State(players=4, rules={"customer_patience": 3})
    s.row("TE8", arrival=1)
    s.hand("A", "TE5", "SC3")
    s.hand("B", "SV5", "TE2", "IN1")
    s.marker = 1
    s.assist_loop()
    assert s.ids("score A") == ["TE8"]

Every card not placed by the test is put "out" of the game (P_OUT) before a kernel runs,
so the engine's debug invariants (every card in exactly one place, no seat over its
limit, no effect used twice, no illegal assist) hold and are checked after every call.

Pile names: "customers" (customer deck, listed top first), "row", "deck A"/"deck B"
(group decks, top first), "hand A", "discard A", "score A", "unhappy", "out",
"seat 0" .. "seat 5".  Teams are "A"/"B" (or 0/1).

Kernels use ``cache=True``; the argument types here are exactly those ``play_game`` uses,
so each kernel compiles (or loads from the cache) once per session. ``warm_up()`` runs
one tiny game so the first test does not pay for the compile.
"""
from __future__ import annotations

import itertools
import tempfile
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np

from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer import engine_kernel as e
from sim.games.peer_to_peer.assist_kernel import contest as _contest
from sim.games.peer_to_peer.assist_kernel import eval_assist as _eval_assist
from sim.games.peer_to_peer.assist_kernel import sorted_play as _sorted_play
from sim.games.peer_to_peer.cards import CardTable, default_cards_path, load_cards
from sim.games.peer_to_peer.curves_kernel import ROW as CURVE_ROW
from sim.games.peer_to_peer.features import (
    DEFAULT_WEIGHTS,
    WEIGHT_NAMES,
    expand_weight_key,
)
from sim.games.peer_to_peer.game import card_matrix
from sim.games.peer_to_peer.rules import OPTIONS, rules_array
from sim.games.peer_to_peer.seats import seat_layout
from sim.core.rng_kernel import seed_game
from sim.core.strategy import parse_spec

TRACE_ROWS = 20_000
_TABLES: dict[str, CardTable] = {}


# ---------------------------------------------------------------- cards, rules, strategies

def cards_table(path: str | Path | None = None) -> CardTable:
    """The default deck (or a card file), loaded once per session."""
    key = str(path or default_cards_path())
    if key not in _TABLES:
        _TABLES[key] = load_cards(path)
    return _TABLES[key]


# Card files written by deck_with, removed when the test session ends.
_CARD_FILES = tempfile.TemporaryDirectory(prefix="p2p_cards_")
_card_file_ids = itertools.count()


def deck_with(*rows: str) -> str:
    """A card file: the default deck plus ``rows`` (CSV lines ``id,name,domain,value,kind,start,effect``).

    Used where a scenario needs two cards with the same domain and value, or a second
    card with some effect, which the default deck does not have."""
    text = default_cards_path().read_text().rstrip("\n") + "\n" + "\n".join(rows) + "\n"
    path = Path(_CARD_FILES.name) / f"cards{next(_card_file_ids)}.csv"
    path.write_text(text)
    return str(path)


def open_protocol_zero_deck() -> str:
    """The default card file with Open Protocol A and B worth 0 (the default is 5,
    P2P-C3). For scenarios that need an `any` card worth 0."""
    text = default_cards_path().read_text()
    for cid, name, team in (("OPA", "Open Protocol A", "A"), ("OPB", "Open Protocol B", "B")):
        row = f"{cid},{name},any,5,group,{team},"
        assert row in text, row
        text = text.replace(row, f"{cid},{name},any,0,group,{team},")
    path = Path(_CARD_FILES.name) / f"cards{next(_card_file_ids)}.csv"
    path.write_text(text)
    return str(path)


def rule_overrides(rules: Mapping[str, object] | None) -> list[str]:
    """{"reshuffle_discard": False, "venture_limit": 2} -> ["reshuffle_discard=false", ...]."""
    out = []
    for key, value in (rules or {}).items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, (list, tuple)):
            text = "[" + ", ".join(str(v) for v in value) + "]"
        else:
            text = str(value)
        out.append(f"{key}={text}")
    return out


def weights(spec: str | Mapping[str, float] | np.ndarray = "greedy") -> np.ndarray:
    """A team's weight vector: a strategy spec ("cautious", "builder:threshold=3"), raw
    overrides of the default (greedy) weights ({"commit.pass": 1e6}), or a vector."""
    if isinstance(spec, np.ndarray):
        return spec.astype(np.float64)
    if isinstance(spec, str):
        strategy, params = parse_spec(spec, "peer_to_peer")
        return strategy.vector(WEIGHT_NAMES, DEFAULT_WEIGHTS, params, expand=expand_weight_key)
    out = np.array(DEFAULT_WEIGHTS, dtype=np.float64)
    index = {name: i for i, name in enumerate(WEIGHT_NAMES)}
    for key, value in spec.items():
        for name in expand_weight_key(key):
            out[index[name]] = float(value)
    return out


PASSIVE = {"commit.pass": 1e6, "save.none": 1e6}   # never assists (R2a: it may always pass), never saves (D6)


def _team(team) -> int:
    if team in (0, 1):
        return int(team)
    return "AB".index(team)


# ---------------------------------------------------------------- the state

class State:
    def __init__(self, players: int = 4, rules: Mapping[str, object] | None = None,
                 strategies: Mapping[str, object] | None = None, cards: str | None = None,
                 seed: int = 1, round: int = 1, marker=0):
        self.players = players
        self.resolved = OPTIONS.resolve(None, rule_overrides(rules))
        self.table = cards_table(cards)
        self.cards = card_matrix(self.table)
        self.rules = rules_array(self.resolved, players)
        self.seats = seat_layout(players, self.resolved["odd_team_compensation"])
        strategies = dict(strategies or {})
        self.w_a = weights(strategies.get("A", "greedy"))
        self.w_b = weights(strategies.get("B", "greedy"))
        n = self.table.n
        self.index = {cid: i for i, cid in enumerate(self.table.ids)}
        self.pile = np.zeros((e.N_ROWS, max(n, e.PILE_WIDTH_MIN)), np.int64)  # piles + scratch rows
        self.fscr = np.zeros((e.N_FROWS, max(n, e.PILE_WIDTH_MIN)))  # float scratch rows
        self.pile_n = np.zeros(e.N_PILES, np.int64)
        self.arrival = np.zeros(n, np.int64)
        self.used = np.zeros(n, np.uint8)
        self.st = np.zeros(e.N_STATE, np.int64)
        self.stats = np.zeros(e.N_STATS, np.int64)
        self.rng = np.empty(4, np.uint64)
        seed_game(self.rng, seed, 0)
        self.trace = np.zeros((TRACE_ROWS, e.TRACE_FIELDS), np.int64)
        self.round = round
        self.marker = _team(marker)
        self._filled = False   # True once the unplaced cards were put "out"

    # -- scalars
    @property
    def round(self) -> int:
        return int(self.st[e.S_ROUND])

    @round.setter
    def round(self, value: int) -> None:
        self.st[e.S_ROUND] = value

    @property
    def marker(self) -> str:
        return "AB"[int(self.st[e.S_MARKER])]

    @marker.setter
    def marker(self, team) -> None:
        self.st[e.S_MARKER] = _team(team)

    # -- card ids
    def id(self, card: str) -> int:
        return self.index[card]

    def name(self, card: int) -> str:
        return self.table.ids[card]

    def value(self, card: str) -> int:
        return int(self.cards[k.CD_VALUE, self.id(card)])

    # -- piles
    def pile_index(self, name: str) -> int:
        word, _, arg = name.partition(" ")
        base = {"customers": e.P_CUST, "row": e.P_ROW, "unhappy": e.P_UNHAPPY, "out": e.P_OUT,
                "deck": e.P_GDECK, "hand": e.P_HAND, "discard": e.P_DISC, "score": e.P_SCORE,
                "seat": e.P_SEAT}[word]
        if word in ("deck", "hand", "discard", "score"):
            return base + _team(arg)
        if word == "seat":
            return base + int(arg)
        return base

    def _add(self, p: int, cards: Iterable[str]) -> None:
        for cid in cards:
            c = self.id(cid)
            if self._filled and self.where(cid) == "out":   # placed after a kernel ran
                i = int(np.nonzero(self.pile[e.P_OUT, :self.pile_n[e.P_OUT]] == c)[0][0])
                e._remove_at(self.pile, self.pile_n, e.P_OUT, i)
            assert self.where(cid) is None, f"{cid} is already in {self.where(cid)}"
            self.pile[p, self.pile_n[p]] = c
            self.pile_n[p] += 1

    def put(self, pile: str, *cards: str) -> "State":
        """Push cards onto a pile in the order given (the last one ends on top)."""
        self._add(self.pile_index(pile), cards)
        return self

    def row(self, *cards: str, arrival: int = 1) -> "State":
        self.put("row", *cards)
        for cid in cards:
            self.arrival[self.id(cid)] = arrival
        return self

    def customers(self, *cards: str) -> "State":
        """The customer deck, listed top first (the first one is dealt first)."""
        return self.put("customers", *reversed(cards))

    def deck(self, team, *cards: str) -> "State":
        """A group deck, listed top first (the first one is drawn first)."""
        return self.put(f"deck {'AB'[_team(team)]}", *reversed(cards))

    def hand(self, team, *cards: str) -> "State":
        return self.put(f"hand {'AB'[_team(team)]}", *cards)

    def discard(self, team, *cards: str) -> "State":
        return self.put(f"discard {'AB'[_team(team)]}", *cards)

    def score(self, team, *cards: str) -> "State":
        return self.put(f"score {'AB'[_team(team)]}", *cards)

    def seat(self, seat: int, *cards: str) -> "State":
        assert self.seats[k.SEAT_TEAM, seat] >= 0, f"no seat {seat} with {self.players} players"
        return self.put(f"seat {seat}", *cards)

    def use(self, *cards: str) -> "State":
        """Mark these cards' effects as already used this round (P2P-E)."""
        for cid in cards:
            self.used[self.id(cid)] = 1
        return self

    def ids(self, pile: str) -> list[str]:
        """The cards of a pile, bottom first (for decks: the last one is drawn first)."""
        p = self.pile_index(pile)
        return [self.name(c) for c in self.pile[p, :self.pile_n[p]]]

    def count(self, pile: str) -> int:
        return int(self.pile_n[self.pile_index(pile)])

    def where(self, card: str) -> str | None:
        c = self.id(card)
        for p in range(e.N_PILES):
            if c in self.pile[p, :self.pile_n[p]]:
                return self._pile_name(p)
        return None

    def _pile_name(self, p: int) -> str:
        names = {e.P_CUST: "customers", e.P_ROW: "row", e.P_UNHAPPY: "unhappy", e.P_OUT: "out"}
        if p in names:
            return names[p]
        if p >= e.P_SEAT:
            return f"seat {p - e.P_SEAT}"
        for word, base in (("deck", e.P_GDECK), ("hand", e.P_HAND), ("discard", e.P_DISC),
                           ("score", e.P_SCORE)):
            if base <= p < base + 2:
                return f"{word} {'AB'[p - base]}"
        raise AssertionError(p)

    def seat_ids(self) -> dict[int, list[str]]:
        return {s: self.ids(f"seat {s}") for s in range(k.MAX_SEATS)
                if self.seats[k.SEAT_TEAM, s] >= 0}

    # -- running kernel pieces
    def _fill(self) -> None:
        if self._filled:
            return
        placed = set()
        for p in range(e.N_PILES):
            placed.update(self.pile[p, :self.pile_n[p]].tolist())
        self._add(e.P_OUT, [cid for cid in self.table.ids if self.id(cid) not in placed])
        self._filled = True

    def _after(self, check: bool) -> None:
        if check:
            e._check(self.cards, self.rules, self.seats, self.pile, self.pile_n, self.st)
            err = int(self.st[e.S_ERROR])
            assert err == 0, f"engine invariant violated: {k.ERROR_NAMES[err]}\n{self.story()}"

    def assist_loop(self, check: bool = True) -> "State":
        """P2P-R2: the assist loop until neither team commits."""
        self._fill()
        tables = e.Tables(self.cards, self.rules, self.seats, self.w_a, self.w_b)
        state = e.State(self.rng, self.pile, self.pile_n, self.arrival, self.used, self.st,
                        self.stats, np.zeros(k.MAX_SEATS, np.int64), self.fscr)
        e._assist_loop(tables, state, self.trace, True, None, False)
        self._after(check)
        return self

    def refresh(self, team, check: bool = True) -> "State":
        """P2P-R3 for one team."""
        self._fill()
        e._refresh(self.cards, self.rules, self.seats, self.rng, self.pile, self.pile_n,
                   self.used, self.st, _team(team), self.trace)
        self._after(check)
        return self

    def unhappy(self, check: bool = True) -> "State":
        """P2P-R4 (with E6)."""
        self._fill()
        e._unhappy(self.cards, self.rules, self.seats, self.w_a, self.w_b, self.rng, self.pile,
                   self.pile_n, self.arrival, self.used, self.st, self.trace)
        self._after(check)
        return self

    def place(self, team, customer: str, check: bool = True) -> "State":
        """P2P-R2d D4 (and D5): place a won customer (it must not be in any pile yet)."""
        assert self.where(customer) in (None, "out"), f"{customer} is in {self.where(customer)}"
        self._fill()
        # _fill put the customer "out" (it is in hand of nobody): take it out of the game.
        p, c = e.P_OUT, self.id(customer)
        i = int(np.nonzero(self.pile[p, :self.pile_n[p]] == c)[0][0])
        e._remove_at(self.pile, self.pile_n, p, i)
        w = self.w_a if _team(team) == 0 else self.w_b
        e._place(self.cards, self.rules, self.seats, w, self.rng, self.pile, self.pile_n,
                 self.used, self.st, self.stats, _team(team), c, self.trace)
        self._after(check)
        return self

    def setup(self, seed: int = 1, game_index: int = 0) -> np.ndarray:
        """P2P-S on an empty state; returns each seat's starting card id (-1: none)."""
        assert not self.pile_n.any(), "setup needs an empty state"
        seed_game(self.rng, seed, game_index)
        starts = np.empty(k.MAX_SEATS, np.int64)
        e._setup(self.cards, self.rules, self.seats, self.w_a, self.w_b, self.rng, self.pile,
                 self.pile_n, self.arrival, self.st, starts, self.trace)
        self._filled = True
        self._after(True)
        return starts

    def scoring(self) -> str:
        """P2P-W1/W2 for a two-team game: "A", "B" or "draw"."""
        self._fill()
        return k.WINNER_NAMES[e._scoring(self.cards, self.rules, self.pile, self.pile_n)]

    def eval_assist(self, team, cards: Sequence[str], customer: str):
        """P2P-R2a: can ``cards`` (all in the team's hand) legally assist ``customer``, with
        the team's unused venture effects? Returns None, or the played values after effects
        by card id."""
        t = _team(team)
        hand = self.pile[e.P_HAND + t]
        in_hand = [self.name(c) for c in hand[:self.pile_n[e.P_HAND + t]]]
        mask = sum(1 << in_hand.index(cid) for cid in cards)
        _, shift_k, wild, _ = e._venture_effects(self.cards, self.pile, self.pile_n, self.seats,
                                                 self.used, t)
        wild = wild >= 0
        vals = np.zeros(self.table.n, np.int64)
        ok, *_ = _eval_assist(self.cards, hand, mask, self.id(customer), self.used, shift_k,
                              wild, vals)
        if not ok:
            return None
        return {cid: int(vals[in_hand.index(cid)]) for cid in cards}

    def keys(self, played: Mapping[str, int] | Sequence[str]) -> tuple[np.ndarray, int]:
        """Contest keys (sorted_play) for cards at the given values (default: printed)."""
        if not isinstance(played, Mapping):
            played = {cid: self.value(cid) for cid in played}
        hand = np.zeros(self.table.n, np.int64)
        vals = np.zeros(self.table.n, np.int64)
        for slot, (cid, v) in enumerate(played.items()):
            hand[slot] = self.id(cid)
            vals[slot] = v
        keys = np.zeros(self.table.n, np.int64)
        n = _sorted_play(self.cards, self.rules, hand, (1 << len(played)) - 1, vals, keys)
        return keys, int(n)

    def contest(self, a, b, tiebreak_a: bool = False, tiebreak_b: bool = False,
                marker=None) -> tuple[str, int]:
        """P2P-R2c between two played sets; returns (winning team, why code)."""
        keys_a, n_a = self.keys(a)
        keys_b, n_b = self.keys(b)
        m = _team(self.marker if marker is None else marker)
        tied = bool(self.rules[k.R_CONTEST_UNPAIRED] == k.UNPAIRED_TIED)
        winner, why = _contest(keys_a, n_a, keys_b, n_b, bool(tiebreak_a), bool(tiebreak_b), m,
                               tied)
        return "AB"[winner], int(why)

    # -- reading the trace
    def events(self, code: int | None = None) -> list[tuple[int, ...]]:
        n = int(self.st[e.S_TRACE_N])
        rows = [tuple(int(x) for x in r) for r in self.trace[:n]]
        return [r for r in rows if code is None or r[1] == code]

    def story(self) -> str:
        """The trace so far in words (for assertion messages)."""
        from sim.games.peer_to_peer.trace import format_trace
        seat_names = ["AB"[t] if t >= 0 else "-" for t in self.seats[k.SEAT_TEAM]]
        n = int(self.st[e.S_TRACE_N])
        return format_trace(self.trace[:n], self.table.ids, seat_names, "scenario", "", {})


# ---------------------------------------------------------------- whole games

class Game:
    """Whole games through the engine's own entry points (play_traced / run_games)."""

    def __init__(self, players: int = 4, rules: Mapping[str, object] | None = None,
                 strategies: Mapping[str, object] | None = None, cards: str | None = None,
                 debug: bool = True):
        self.players = players
        self.resolved = OPTIONS.resolve(None, rule_overrides(rules))
        self.table = cards_table(cards)
        self.cards = card_matrix(self.table)
        self.rules = rules_array(self.resolved, players)
        self.seats = seat_layout(players, self.resolved["odd_team_compensation"])
        strategies = dict(strategies or {})
        self.w_a = weights(strategies.get("A", "greedy"))
        self.w_b = weights(strategies.get("B", "greedy"))
        self.debug = debug

    def _args(self):
        return e.Tables(self.cards, self.rules, self.seats, self.w_a, self.w_b)

    def traced(self, seed: int = 1, game_index: int = 0):
        """One game: (result row, fates by card id, trace events as tuples)."""
        out = np.zeros(1, dtype=k.RESULT_DTYPE)
        fates = np.zeros((1, self.table.n), dtype=np.int8)
        trace = np.zeros((TRACE_ROWS, e.TRACE_FIELDS), np.int64)
        n = e.play_traced(self._args(), seed, game_index, out, fates, trace, self.debug)
        events = [tuple(int(x) for x in r) for r in trace[:n]]
        return out[0], dict(zip(self.table.ids, fates[0].tolist())), events

    def run(self, count: int, seed: int = 1, start: int = 0):
        """``count`` games: (result records, fates int8[count, n_cards])."""
        out = np.zeros(count, dtype=k.RESULT_DTYPE)
        fates = np.zeros((count, self.table.n), dtype=np.int8)
        e.run_games(self._args(), seed, start, out, fates, self.debug, e.new_state(self.table.n),
                    np.zeros(201 * CURVE_ROW, dtype=np.int64))  # its sums, unread here
        return out, fates


def rounds_of(events) -> dict[int, list[tuple[int, ...]]]:
    """Trace events grouped by round, from each round's EV_MARKER on (setup events,
    which come before the first EV_MARKER, are under key 0)."""
    out: dict[int, list] = {0: []}
    current = 0
    for ev in events:
        if ev[1] == e.EV_MARKER:
            current = ev[0]
            out[current] = []
        out[current].append(ev)
    return out


def warm_up() -> None:
    """Compile (or load) every kernel piece once, with the types the tests use."""
    s = State(players=2)
    s.row("SV5").hand("A", "SV2", "SV3").hand("B", "OPB").seat(0, "SC12").seat(1, "SV12")
    s.deck("A", "TE2").discard("B", "TE3")
    s.assist_loop().refresh("A").refresh("B").unhappy()
    s.scoring()
    State(players=2).hand("B", "OPB").eval_assist("B", ["OPB"], "TE9")
    s.contest(["SV5"], ["TE5"])
    State(players=2).setup()
    Game(players=2).traced()
    Game(players=2).run(2)
