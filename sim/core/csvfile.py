"""Reading the CSV files a user gives us (card lists of every game).

Every problem becomes a ``UserError`` that names the file, the physical line and the
field, because the people editing these files are game designers working in a
spreadsheet or a text editor, not programmers reading a traceback.

Blank lines and lines whose first non-blank character is ``#`` are skipped, so a file
can carry comments (the default card files open with one). The first other line is
the header.
"""
from __future__ import annotations

import csv
import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from sim.core.errors import UserError

_INTEGER = re.compile(r"[+-]?\d+")  # stricter than int(): no "1_000", no spaces inside


@dataclass(frozen=True)
class CsvRow:
    """One data row: ``values`` maps every known column (stripped) to its text."""

    values: dict[str, str]
    line: int
    path: str

    def error(self, field: str | None, message: str) -> UserError:
        """A UserError pointing at this row (and field)."""
        return UserError(message, file=self.path, line=self.line, field=field)

    def get_str(self, field: str, required: bool = True) -> str:
        text = self.values[field]
        if required and not text:
            raise self.error(field, "expected a value, got an empty cell")
        return text

    def get_int(self, field: str, lo: int | None = None, hi: int | None = None) -> int:
        text = self.values[field]
        if not _INTEGER.fullmatch(text):
            got = _quoted(text) if text else "an empty cell"
            raise self.error(field, f"expected {_describe_int(lo, hi)}, got {got}")
        number = int(text)
        if (lo is not None and number < lo) or (hi is not None and number > hi):
            raise self.error(field, f"expected {_describe_int(lo, hi)}, got {number}")
        return number

    def get_choice(self, field: str, choices: Sequence[str]) -> str:
        """The choice matching the cell case-insensitively, in its canonical spelling."""
        text = self.values[field]
        for choice in choices:
            if text.lower() == choice.lower():
                return choice
        listed = ", ".join(c if c else "(empty)" for c in choices)
        got = _quoted(text) if text else "an empty cell"
        raise self.error(field, f"expected one of {listed}; got {got}")


def _quoted(text: str, limit: int = 60) -> str:
    """A cell as an error quotes it: at most ``limit`` characters."""
    text = " ".join(text.split())
    return f"'{text}'" if len(text) <= limit else f"'{text[:limit - 3]}...'"


def _describe_int(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f"an integer from {lo} to {hi}"
    if lo is not None:
        return f"an integer >= {lo}"
    if hi is not None:
        return f"an integer <= {hi}"
    return "an integer"


MAX_TEXT_BYTES = 16_000_000   # a card, rules or experiments file; read no more than this


def read_text(path: str, what: str = "file", kind: str = "CSV",
              limit: int | None = None) -> str:
    """A UTF-8 text file (a byte-order mark is dropped: spreadsheets often write one);
    every failure is one UserError naming the file (and the line of a bad byte).
    ``what`` names the file in messages ("rules file"), ``kind`` what it should be.
    A file over ``limit`` bytes (default ``MAX_TEXT_BYTES``) is refused before it is read
    whole."""
    limit = MAX_TEXT_BYTES if limit is None else limit
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
        if len(data) > limit:
            raise UserError(f"the {what} is larger than {limit:,} bytes; is it the right file?",
                            file=path)
    except FileNotFoundError:
        raise UserError(f"{what} not found", file=path) from None
    except IsADirectoryError:
        raise UserError(f"is a directory, expected a {kind} file", file=path) from None
    except OSError as exc:
        raise UserError(f"cannot read the {what} ({exc.strerror})", file=path) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise UserError(f"not UTF-8 text (byte 0x{data[exc.start]:02x}); save the {what} as "
                        f"UTF-8 {kind}", file=path, line=line) from None


def _content_lines(text: str, consumed: list[int]) -> Iterator[str]:
    """Lines that are neither blank nor comments; appends each one's line number to
    ``consumed`` so a record's first physical line is known after csv reads it."""
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        consumed.append(number)
        yield line


def read_rows(path, required: Sequence[str], optional: Sequence[str] = ()) -> list[CsvRow]:
    """Rows of a CSV file whose header has every ``required`` column and otherwise only
    ``optional`` ones (any order, case-insensitive). Absent optional columns read as ''."""
    path = str(path)
    consumed: list[int] = []
    reader = csv.reader(_content_lines(read_text(path), consumed), strict=True)

    def next_record() -> tuple[int, list[str]] | None:
        start = len(consumed)
        try:
            cells = next(reader)
        except StopIteration:
            return None
        except csv.Error as exc:
            raise UserError(f"malformed CSV ({exc})", file=path,
                            line=consumed[start] if start < len(consumed) else None) from None
        return consumed[start], [cell.strip() for cell in cells]

    header_record = next_record()
    if header_record is None:
        raise UserError("no header line (the file is empty or has only comments); expected "
                        f"columns: {', '.join(required)}", file=path)
    header = _check_header(path, *header_record, required, optional)
    # A spreadsheet pads every row, header included, to the same width with empty cells;
    # empty cells up to the header's padded width are padding, anything beyond is an error
    # (often an unquoted comma in a name).
    padded_width = len(header_record[1])

    rows: list[CsvRow] = []
    while (record := next_record()) is not None:
        line, cells = record
        if not any(cells):
            continue  # a row of empty cells: a blank line as a spreadsheet writes it
        if len(cells) < len(header):
            missing = header[len(cells)]
            raise UserError(f"this row has {len(cells)} cells but the header has "
                            f"{len(header)} columns; the '{missing}' cell is missing",
                            file=path, line=line, field=missing)
        if len(cells) > padded_width or any(cells[len(header):]):
            raise UserError(f"this row has {len(cells)} cells but the header has "
                            f"{len(header)} columns (an unquoted comma in a name?)",
                            file=path, line=line, field=header[-1])
        values = {name: "" for name in optional}
        values.update(zip(header, cells))  # zip drops the padding
        rows.append(CsvRow(values=values, line=line, path=path))
    return rows


def _check_header(path: str, line: int, cells: list[str], required: Sequence[str],
                  optional: Sequence[str]) -> list[str]:
    known = {name.lower(): name for name in (*required, *optional)}
    while cells and not cells[-1]:
        cells = cells[:-1]  # spreadsheets pad the header with empty cells
    header: list[str] = []
    for position, cell in enumerate(cells, start=1):
        if cell.lower() not in known:
            shown = _quoted(cell) if cell else f"'(empty, column {position})'"
            separator = next((name for mark, name in ((";", "semicolons"), ("\t", "tabs"))
                              if len(cells) == 1 and mark in cell), None)
            if separator:   # a spreadsheet's export in another locale
                raise UserError(f"the header is one column separated by {separator}; save "
                                "the file as comma-separated CSV", file=path, line=line)
            raise UserError(f"unknown column {shown}; expected columns: "
                            f"{', '.join(required)}"
                            + (f" and optionally {', '.join(optional)}" if optional else ""),
                            file=path, line=line, field=_quoted(cell)[1:-1] if cell else None)
        name = known[cell.lower()]
        if name in header:
            raise UserError("this column appears twice in the header", file=path, line=line,
                            field=name)
        header.append(name)
    for name in required:
        if name not in header:
            raise UserError(f"missing required column; the header must name: "
                            f"{', '.join(required)}", file=path, line=line, field=name)
    return header


def content_sha256(path) -> str:
    """Hex SHA-256 of the file's lines that are not comments (``#`` first), joined by
    newlines: the same for two files that differ only in their comments (the cards an
    expert strategy was tuned on stay the cards when a header comment changes)."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise UserError(f"cannot read the file ({exc.strerror})", file=str(path)) from None
    lines = [line.rstrip("\r") for line in text.split("\n")]
    kept = "\n".join(line for line in lines if not line.lstrip().startswith("#"))
    return hashlib.sha256(kept.encode("utf-8")).hexdigest()


def content_sha256_or_none(path) -> str | None:
    """content_sha256 of ``path``, or None without a path or a readable file (a strategy
    file's provenance records what it can)."""
    try:
        return content_sha256(path) if path else None
    except UserError:
        return None


def file_sha256(path) -> str:
    """Hex SHA-256 of the file's bytes, recorded with every run."""
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as exc:
        raise UserError(f"cannot read the file ({exc.strerror})", file=str(path)) from None
