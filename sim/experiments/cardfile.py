"""Card-file edits for experiments: find a card by id (``TE12``) or by its domain-value
name (``Technology-12``), change one field, write the modified CSV, diff two files.

The file keeps its comment lines and column order, so a written file differs from the
starting one only in the cells that were changed (what ``simulate autobalance`` prints).
"""
from __future__ import annotations

import csv
import difflib
import io
import re
from pathlib import Path

from sim.errors import UserError

EDITABLE_FIELDS = ("value", "effect", "domain", "kind", "start", "name")
_DOMAIN_VALUE = re.compile(r"([A-Za-z]+)-(\d+)")


class CardCsv:
    """A card file as text lines: comments and blank lines kept, data rows editable."""

    def __init__(self, path: str | Path):
        self.path = str(path)
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
        self._edited: set[int] = set()
        # cards are found by what the file printed (Technology-12 stays Technology-12
        # after its value is changed)
        self._printed = {k: list(v) for k, v in self.rows.items()}

    def copy(self) -> "CardCsv":
        other = object.__new__(CardCsv)
        other.path, other.lines, other.header = self.path, list(self.lines), list(self.header)
        other.header_index = self.header_index
        other.rows = {k: list(v) for k, v in self.rows.items()}
        other._edited = set(self._edited)
        other._printed = self._printed
        return other

    def _cell(self, cells: list[str], column: str) -> str:
        i = self.header.index(column)
        return cells[i].strip() if i < len(cells) else ""

    def find(self, ref: str) -> int:
        """The line index of the card ``ref``: an id (any case), a name, or Domain-Value."""
        ref = str(ref).strip()
        by_id = [i for i, cells in self._printed.items() if self._cell(cells, "id").lower() == ref.lower()]
        if by_id:
            return by_id[0]
        if "name" in self.header:
            by_name = [i for i, cells in self._printed.items()
                       if self._cell(cells, "name").lower() == ref.lower()]
            if len(by_name) == 1:
                return by_name[0]
        match = _DOMAIN_VALUE.fullmatch(ref)
        if match and {"domain", "value"} <= set(self.header):
            domain, value = match.group(1).lower(), match.group(2)
            found = [i for i, cells in self._printed.items()
                     if self._cell(cells, "domain").lower() == domain
                     and self._cell(cells, "value").lstrip("+0") == value.lstrip("0")]
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                ids = ", ".join(self._cell(self._printed[i], "id") for i in found)
                raise KeyError(f"'{ref}' matches several cards ({ids}); use a card id")
        raise KeyError(f"no card '{ref}' in {self.path} (use an id such as TE12 or a "
                       "domain-value name such as Technology-12)")

    def card_id(self, index: int) -> str:
        return self._cell(self.rows[index], "id")

    def get(self, index: int, field: str) -> str:
        return self._cell(self.rows[index], field) if field in self.header else ""

    def set(self, index: int, field: str, value) -> None:
        if field not in EDITABLE_FIELDS:
            raise KeyError(f"cannot change field '{field}'; editable fields: "
                           f"{', '.join(EDITABLE_FIELDS)}")
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
