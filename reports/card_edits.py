"""What the card files of a report's runs change from their game's default card file: card by
card and field by field (a path and a sha256 say that a file differs, not what was edited).
Cards are matched by id (case-insensitive); comments and layout do not count."""
from __future__ import annotations

import csv

from sim.core.csvfile import content_sha256, file_sha256, read_text
from sim.core.errors import UserError

MAX_LISTED = 20   # changes named per card file (the rest are counted)


def read_cards(path) -> dict[str, dict[str, str]]:
    """id (lower case) -> {column: text} of a card file, comments and blank rows skipped;
    UserError when it has no header with an 'id' column."""
    lines = [line for line in read_text(str(path), what="card file").splitlines()
             if line.strip() and not line.lstrip().startswith("#")]
    rows = list(csv.reader(lines))
    header = [cell.strip().lower() for cell in rows[0]] if rows else []
    if "id" not in header:
        raise UserError("the card file has no header with an 'id' column", file=str(path))
    cards: dict[str, dict[str, str]] = {}
    for row in rows[1:]:
        values = dict(zip(header, (cell.strip() for cell in row)))
        if any(values.values()):
            cards.setdefault(values.get("id", "").lower(), values)
    return cards


def field_changes(before_path, after_path) -> dict[str, list]:
    """What a card file changes from another, card by card (matched by id, any case) and
    field by field: {"changes": [{"card", "name", "field", "baseline", "edit"}], "added":
    ids only the second file has, "removed": ids only the first has}."""
    before, after = read_cards(before_path), read_cards(after_path)
    out: dict[str, list] = {"changes": [], "added": [], "removed": []}
    for key, old in before.items():
        cid = old.get("id") or key
        new = after.get(key)
        if new is None:
            out["removed"].append(cid)
            continue
        for field in dict.fromkeys([*old, *new]):
            if field != "id" and old.get(field, "") != new.get(field, ""):
                out["changes"].append({"card": cid, "name": old.get("name") or cid,
                                       "field": field, "baseline": old.get(field, ""),
                                       "edit": new.get(field, "")})
    out["added"] = [new.get("id") or key for key, new in after.items() if key not in before]
    return out


def changes(default_path, edited_path) -> list[str]:
    """'card field: default -> this file' lines, then the cards only one file has."""
    found = field_changes(default_path, edited_path)
    return ([f"{c['card']} {c['field']}: {c['baseline'] or '(empty)'} -> "
             f"{c['edit'] or '(empty)'}" for c in found["changes"]]
            + [f"{cid}: not in this file" for cid in found["removed"]]
            + [f"{cid}: only in this file" for cid in found["added"]])


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
