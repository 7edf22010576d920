"""The PLAI card file: load, validate (PLAI-C1), select the deck by player count (PLAI-C2).

Columns: id, name, type, strength, numeral, copies, effect. One row is one card id; a
card that comes back under another numeral (Daily Standups under I and II) is a second
row with its own id. Every error is one line naming the file, the row's line and field.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.core.csvfile import CsvRow, file_sha256, read_rows
from sim.core.errors import UserError
from sim.games.plai import constants as c

DEFAULT_CARDS = Path(__file__).parent / "data" / "plai-reconstruction.csv"
COLUMNS = ("id", "name", "type", "strength", "numeral", "copies", "effect")
OPTIONAL = ("effect",)
MAX_DECK = 30000  # piles are int16

# Which card types may carry which effect (a GDPR-like discard fits any fight card).
_EFFECT_TYPES = {
    c.EFFECT_DISCARD_RIVAL: (c.ADVERSARY, c.USE_CASE, c.BUZZWORD, c.SPECIAL),
    c.EFFECT_NEGATE: (c.SPECIAL,),
    c.EFFECT_TARGET_DISCARDS: (c.SPECIAL,),
    c.EFFECT_STEAL_RANDOM: (c.SPECIAL,),
    c.EFFECT_ALL_DISCARD: (c.MARKET_EVENT,),
    c.EFFECT_ALL_DRAW: (c.MARKET_EVENT,),
    c.EFFECT_RICH_DISCARD: (c.MARKET_EVENT,),
}


@dataclass(frozen=True)
class CardTable:
    path: str
    sha256: str
    ids: tuple[int, ...]
    names: tuple[str, ...]
    types: np.ndarray      # int64, TYPE_NAMES index
    strengths: np.ndarray  # int64
    numerals: np.ndarray   # int64, 0 = none, 1..3 = I..III
    copies: np.ndarray     # int64
    effects: np.ndarray    # int64, EFFECT_NAMES index
    args: np.ndarray       # int64, 0 without an argument

    @property
    def matrix(self) -> np.ndarray:
        """cards[CD_*, card] as the kernels take it."""
        base = np.stack([self.types, self.strengths, self.effects, self.args]).astype(np.int64)
        return np.ascontiguousarray(np.concatenate([base, derived_rows(base)]))

    def deck_for(self, players: int) -> np.ndarray:
        """PLAI-C2: card instances (card row indices, int16) for ``players`` players."""
        top = 1 if players == 2 else (2 if players <= 4 else 3)
        chosen = np.repeat(np.arange(len(self.ids)), self.copies)
        chosen = chosen[self.numerals[chosen] <= top]
        if len(chosen) == 0:
            raise UserError(f"no cards for {players} players (numerals up to "
                            f"{c.NUMERAL_NAMES[top]})", file=self.path, field="numeral")
        if len(chosen) > MAX_DECK:
            raise UserError(f"the deck for {players} players has {len(chosen)} cards; at most "
                            f"{MAX_DECK}", file=self.path, field="copies")
        return chosen.astype(np.int16)

    def check_deal(self, players: int, starting_hand: int) -> None:
        """PLAI-S2: the deck for ``players`` players holds enough cards besides the Market
        Events for every starting hand (a shorter deck would deal some seats nothing)."""
        deck = self.deck_for(players)
        dealt = int(np.sum(self.types[deck] != c.MARKET_EVENT))
        needed = players * starting_hand
        if dealt < needed:
            raise UserError(f"{players} players' starting hands take {needed:,} cards "
                            f"({starting_hand} each, PLAI-S2), but the deck for {players} "
                            f"players holds only {dealt:,} cards that are not Market Events; "
                            "add cards or lower starting_hand",
                            file=self.path, field="copies")

    def describe(self, card: int) -> str:
        """'Daily Standups (adversary 3)', 'Hype Cycle (market event: all_draw 1)'."""
        kind = c.TYPE_NAMES[self.types[card]].replace("_", " ")
        effect = c.EFFECT_NAMES[self.effects[card]]
        if effect and c.EFFECT_TAKES_ARG[self.effects[card]]:
            effect += f" {self.args[card]}"
        if self.types[card] == c.MARKET_EVENT:
            return f"{self.names[card]} ({kind}: {effect})"
        return f"{self.names[card]} ({kind} {int(self.strengths[card])}" + (
            f", {effect})" if effect else ")")


def parse_effect(row: CsvRow, card_type: int) -> tuple[int, int]:
    text = row.values.get("effect", "").strip()
    if not text:
        if card_type == c.MARKET_EVENT:
            raise row.error("effect", "a market_event needs an effect: one of "
                            + ", ".join(c.EFFECT_NAMES[e] + " N" for e in c.EVENT_EFFECTS))
        return c.EFFECT_NONE, 0
    parts = text.split()
    name = parts[0].lower()
    if name not in c.EFFECT_NAMES[1:]:
        raise row.error("effect", f"unknown effect '{parts[0]}'; expected one of "
                        + ", ".join(c.EFFECT_NAMES[1:]))
    effect = c.EFFECT_NAMES.index(name)
    if c.EFFECT_TAKES_ARG[effect]:
        if len(parts) != 2 or not parts[1].isdigit() or not 1 <= int(parts[1]) <= 99:
            raise row.error("effect", f"'{name}' needs one whole number from 1 to 99 after "
                            f"it, like '{name} 1'; got '{text}'")
        arg = int(parts[1])
    else:
        if len(parts) != 1:
            raise row.error("effect", f"'{name}' takes no number; got '{text}'")
        arg = 0
    if card_type not in _EFFECT_TYPES[effect]:
        allowed = " or ".join(c.TYPE_NAMES[t] for t in _EFFECT_TYPES[effect])
        kind = c.TYPE_NAMES[card_type]
        raise row.error("effect", f"'{name}' only works on a {allowed} card, not "
                        f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}")
    return effect, arg


def load_cards(path=None) -> CardTable:
    path = str(path or DEFAULT_CARDS)
    rows = read_rows(path, required=COLUMNS[:-1], optional=OPTIONAL)
    if not rows:
        raise UserError("no cards: the file has a header but no rows", file=path)
    seen: dict[int, int] = {}
    fields: dict[str, list] = {k: [] for k in ("ids", "names", "types", "strengths", "numerals",
                                                "copies", "effects", "args")}
    for row in rows:
        card_id = row.get_int("id", 0, 32767)
        if card_id in seen:
            raise row.error("id", f"id {card_id} is already used on line {seen[card_id]}")
        seen[card_id] = row.line
        card_type = c.TYPE_NAMES.index(row.get_choice("type", c.TYPE_NAMES))
        effect, arg = parse_effect(row, card_type)
        fields["ids"].append(card_id)
        fields["names"].append(row.get_str("name"))
        fields["types"].append(card_type)
        fields["strengths"].append(row.get_int("strength", -99, 99))
        fields["numerals"].append(c.NUMERAL_NAMES.index(row.get_choice("numeral",
                                                                       c.NUMERAL_NAMES)))
        fields["copies"].append(row.get_int("copies", 0, 999))
        fields["effects"].append(effect)
        fields["args"].append(arg)
    arrays = {k: np.array(v, dtype=np.int64) for k, v in fields.items()
              if k not in ("ids", "names")}
    return CardTable(path=path, sha256=file_sha256(path), ids=tuple(fields["ids"]),
                     names=tuple(fields["names"]), **arrays)


def derived_rows(base: np.ndarray) -> np.ndarray:
    """Rows CD_FLAGS .. CD_HIST_BLUFF of the kernel's card table from rows CD_TYPE ..
    CD_ARG (PLAI-F1: a side plays its real type, buzzwords and the specials that act in a
    fight; action specials and negate are never among the 4 cards)."""
    t, s, e = base[c.CD_TYPE], base[c.CD_STRENGTH], base[c.CD_EFFECT]
    bluff = (t == c.BUZZWORD) | ((t == c.SPECIAL) & ((e == c.EFFECT_NONE)
                                                     | (e == c.EFFECT_DISCARD_RIVAL)))
    action = (t == c.SPECIAL) & ((e == c.EFFECT_TARGET_DISCARDS) | (e == c.EFFECT_STEAL_RANDOM))
    flags = (np.where(t == c.ADVERSARY, c.FL_ADVERSARY, 0)
             | np.where(t == c.USE_CASE, c.FL_USE_CASE, 0)
             | np.where(bluff, c.FL_BLUFF, 0) | np.where(action, c.FL_ACTION, 0)
             | np.where(t == c.BUZZWORD, c.FL_BUZZWORD, 0)
             | np.where(e == c.EFFECT_DISCARD_RIVAL, c.FL_FIGHT_EFFECT, 0))
    pos = np.maximum(s, 0)
    flags |= np.where(pos > c.HIST_MAX_POWER, c.FL_BIG_POWER, 0)
    powers = [np.where((t == c.ADVERSARY) | bluff, pos, 0),
              np.where((t == c.USE_CASE) | bluff, pos, 0), np.where(bluff, pos, 0)]
    counts = [np.where(p <= c.HIST_MAX_POWER, np.left_shift(1, 8 * np.minimum(p, c.HIST_MAX_POWER)),
                       0) for p in powers]
    rows = [flags, *powers,
            np.where(t == c.ADVERSARY, s, c.NOT_REAL), np.where(t == c.USE_CASE, s, c.NOT_REAL),
            *counts]
    assert len(rows) == c.N_CARD_FIELDS - c.CD_FLAGS
    return np.stack(rows).astype(np.int64)
