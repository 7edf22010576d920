"""Card-file edits for experiments: find a card by a reference, change one field, write
the modified CSV, diff two files. Used for every game's card file.

References (``ref`` in ``card_overrides: {REF.FIELD: value}``, sweep axes
``card.REF.FIELD`` and ``autobalance.vary``), tried in this order:

1. an **id** (any case; numeric ids compare as numbers): ``TE12``, ``te12`` (Peer-to-Peer),
   ``5`` (PLAI). One row.
2. a **name** (any case, spaces as printed): ``Service 10``, ``Daily Standups``. A name
   printed on several rows means **every row of that card**: PLAI prints a card once per
   numeral (``Daily Standups`` is id 1 at numeral I and id 21 at numeral II), so
   ``Daily Standups.strength: 4`` changes both rows. To change one row, use its id.
3. a **Domain-Value** name (Peer-to-Peer files, which have domain and value columns):
   ``Technology-12``; it must name one card.

Cards are found by what the file printed, so ``Technology-12`` still names TE12 after
its value was changed, and a renamed card keeps its printed name as its reference.

Editable fields are the game's card-file columns other than ``id`` (its description's
``card_fields``: Peer-to-Peer value, effect, domain, kind, start, name; PLAI name, type, strength,
numeral, copies, effect); for a game whose ``card_fields`` is None, the file's own columns other
than ``id``. Values are checked by loading the changed file with the game's
own loader (``sim.studies.experiments.schema.validate_experiment``).

The file keeps its comment lines and column order, so a written file differs from the
starting one only in the cells that were changed (what ``simulate autobalance`` prints).
"""
from __future__ import annotations

import csv
import difflib
import io
import re
from pathlib import Path

from sim.core.errors import UserError
from sim.core.game import DEFAULT_GAME, resolve_game

_DOMAIN_VALUE = re.compile(r"([A-Za-z]+)-(\d+)")
_SHOWN = 4  # how many example ids / names an unknown reference lists


def editable_fields(game: str | None) -> tuple[str, ...] | None:
    """The fields a card edit may change for ``game`` (its ``Game.card_fields``: its card
    columns other than id); None when the game does not declare them (then the card file's
    own header decides, see ``CardCsv``). ``None`` means the default game."""
    return resolve_game(game or DEFAULT_GAME).card_fields


def _same_id(a: str, b: str) -> bool:
    if a.isdigit() and b.isdigit():
        return int(a) == int(b)
    return a.lower() == b.lower()


def _norm(name: str) -> str:
    return " ".join(name.split()).lower()


class CardCsv:
    """A card file as text lines: comments and blank lines kept, data rows editable."""

    def __init__(self, path: str | Path, game: str | None = DEFAULT_GAME):
        self.path = str(path)
        self.game = game
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise UserError(f"cannot read the card file ({exc.strerror or exc})",
                            file=self.path) from None
        self.lines: list[str] = text.splitlines()
        self.header: list[str] | None = None
        self.rows: dict[int, list[str]] = {}     # line index -> cells
        for index, line in enumerate(self.lines):
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            cells = next(csv.reader([line]))
            if self.header is None:
                self.header = [cell.strip().lower() for cell in cells]
                self.header_index = index
            else:
                self.rows[index] = cells
        if self.header is None or "id" not in self.header:
            raise UserError("the card file has no header with an 'id' column", file=self.path)
        declared = editable_fields(game)
        self.fields: tuple[str, ...] = declared if declared is not None else tuple(
            c for c in self.header if c != "id")
        self._edited: set[int] = set()
        # cards are found by what the file printed (Technology-12 stays Technology-12
        # after its value is changed)
        self._printed = {k: list(v) for k, v in self.rows.items()}

    def copy(self) -> "CardCsv":
        other = object.__new__(CardCsv)
        other.path, other.lines, other.header = self.path, list(self.lines), list(self.header)
        other.game, other.fields = self.game, self.fields
        other.header_index = self.header_index
        other.rows = {k: list(v) for k, v in self.rows.items()}
        other._edited = set(self._edited)
        other._printed = self._printed
        return other

    def _cell(self, cells: list[str], column: str) -> str:
        i = self.header.index(column)
        return cells[i].strip() if i < len(cells) else ""

    def find_all(self, ref: str) -> list[int]:
        """The line indices of the rows ``ref`` names (module docstring): one row for an
        id or a Domain-Value name, every row printed with that name for a name. An unknown
        ref raises KeyError with a few valid ones."""
        ref = " ".join(str(ref).split())
        by_id = [i for i, cells in self._printed.items() if _same_id(self._cell(cells, "id"), ref)]
        if by_id:
            return by_id[:1]
        if "name" in self.header:
            by_name = [i for i, cells in self._printed.items()
                       if _norm(self._cell(cells, "name")) == ref.lower()]
            if by_name:
                return by_name
        match = _DOMAIN_VALUE.fullmatch(ref)
        if match and {"domain", "value"} <= set(self.header):
            domain, value = match.group(1).lower(), match.group(2)
            found = [i for i, cells in self._printed.items()
                     if self._cell(cells, "domain").lower() == domain
                     and self._cell(cells, "value").lstrip("+0") == value.lstrip("0")]
            if len(found) == 1:
                return found
            if len(found) > 1:
                ids = ", ".join(self._cell(self._printed[i], "id") for i in found)
                raise KeyError(f"'{ref}' matches several cards ({ids}); use a card id")
        raise KeyError(self._unknown(ref))

    def find(self, ref: str) -> int:
        """The line index of the one row ``ref`` names (KeyError when it names several)."""
        found = self.find_all(ref)
        if len(found) > 1:
            ids = ", ".join(self.card_id(i) for i in found)
            raise KeyError(f"'{ref}' names {len(found)} rows (ids {ids}); use an id for one")
        return found[0]

    def _unknown(self, ref: str) -> str:
        rows = list(self._printed.values())
        ids = [self._cell(cells, "id") for cells in rows]
        names = list(dict.fromkeys(self._cell(cells, "name") for cells in rows)) \
            if "name" in self.header else []
        close = difflib.get_close_matches(ref, ids + names, n=1, cutoff=0.6)
        text = f"no card '{ref}' in {self.path}"
        if close:
            text += f" (did you mean '{close[0]}'?)"

        def some(items):
            return ", ".join(items[:_SHOWN]) + (", ..." if len(items) > _SHOWN else "")

        text += f"; a card is an id ({some(ids)})"
        if names:
            text += f" or a name ({some(names)})"
        if {"domain", "value"} <= set(self.header) and rows:
            first = rows[0]
            text += (f" or Domain-Value ({self._cell(first, 'domain')}-"
                     f"{self._cell(first, 'value')}, ...)")
        return text

    def card_id(self, index: int) -> str:
        return self._cell(self.rows[index], "id")

    def get(self, index: int, field: str) -> str:
        return self._cell(self.rows[index], field) if field in self.header else ""

    def set(self, index: int, field: str, value) -> None:
        if field not in self.fields:
            raise KeyError(f"cannot change field '{field}'; editable fields"
                           + (f" for {self.game}" if self.game else "")
                           + f": {', '.join(self.fields)}")
        cells = self.rows[index]
        if field not in self.header:  # e.g. a file without the optional effect column
            self.header.append(field)
            self.lines[self.header_index] = _csv_line(self.header)
            for i, row in self.rows.items():
                row.extend([""] * (len(self.header) - len(row)))
                if i not in self._edited:
                    self._edited.add(i)
        column = self.header.index(field)
        while len(cells) <= column:
            cells.append("")
        cells[column] = "" if value is None else str(value)
        self._edited.add(index)

    def set_all(self, indices, field: str, value) -> None:
        """``set`` on every row of ``indices`` (the rows one ref names)."""
        for index in indices:
            self.set(index, field, value)

    def text(self) -> str:
        lines = list(self.lines)
        for index in self._edited:
            lines[index] = _csv_line(self.rows[index])
        return "\n".join(lines) + "\n"

    def write(self, path: str | Path) -> Path:
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.text(), encoding="utf-8")
        return path


def _csv_line(cells: list[str]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="").writerow(cells)
    return buf.getvalue()


def diff(before: str, after: str, before_name: str, after_name: str) -> str:
    """A unified diff of two card files' text ('' when they are equal)."""
    return "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                        fromfile=before_name, tofile=after_name, n=0))
