"""What the card files of a report's runs change from their game's default card file: card by
card and field by field (a path and a sha256 say that a file differs, not what was edited).
Cards are matched by id (case-insensitive); comments and layout do not count."""
from __future__ import annotations

import csv

from sim.core.csvfile import content_sha256, file_sha256, read_text
from sim.core.errors import UserError

MAX_LISTED = 20   # changes named per card file (the rest are counted)


def read_cards(path) -> dict[str, dict[str, str]]:
    """id (lower case) -> {column: text} of a card file, comments and blank rows skipped."""
    lines = [line for line in read_text(str(path), what="card file").splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    rows = list(csv.reader(lines))
    if not rows:
        return {}
    header = [cell.strip().lower() for cell in rows[0]]
    cards: dict[str, dict[str, str]] = {}
    for row in rows[1:]:
        values = dict(zip(header, (cell.strip() for cell in row)))
        if any(values.values()):
            cards.setdefault(values.get("id", "").lower(), values)
    return cards


def changes(default_path, edited_path) -> list[str]:
    """'card field: default -> this file' lines, then the cards only one file has."""
    before, after = read_cards(default_path), read_cards(edited_path)
    out = []
    for key, old in before.items():
        new = after.get(key)
        if new is None:
            out.append(f"{old.get('id', key)}: not in this file")
            continue
        for field in dict.fromkeys([*old, *new]):
            if field != "id" and old.get(field, "") != new.get(field, ""):
                out.append(f"{old.get('id', key)} {field}: {old.get(field, '') or '(empty)'} "
                           f"-> {new.get(field, '') or '(empty)'}")
    out += [f"{new.get('id', key)}: only in this file" for key, new in after.items()
            if key not in before]
    return out


def card_file_edits(rs) -> list[tuple[str, str]]:
    """(card file path, what it changes from the game's default card file, in words) for
    every card file of the runs that is not the default's cards."""
    from sim.core.game import resolve_game

    default = resolve_game(rs.game).default_cards_path()
    default_content = content_sha256(default)
    out, seen = [], set()
    for run in rs.runs:
        path = run.manifest.get("cards", {}).get("path")
        if not path or (path, run.sha256) in seen:
            continue
        seen.add((path, run.sha256))
        try:
            if file_sha256(path) != run.sha256:
                out.append((path, "not compared with the default: the file changed since "
                                  "the run (or is gone)"))
                continue
            if content_sha256(path) == default_content:
                continue   # the default's cards (its comments or layout aside)
            found = changes(default, path)
        except UserError as exc:
            out.append((path, f"not compared with the default ({exc})"))
            continue
        if not found:
            words = "the same cards as the default (they differ only in layout)"
        else:
            words = "; ".join(found[:MAX_LISTED]) + (
                f"; and {len(found) - MAX_LISTED} more" if len(found) > MAX_LISTED else "")
        out.append((path, f"{len(found)} change{'s' if len(found) != 1 else ''} from the "
                          f"default card file (card field: default -> this file): {words}"
                    if found else words))
    return out
