"""The default Peer-to-Peer card file with one card's value changed (the viewer's tests)."""
from __future__ import annotations

from pathlib import Path

from sim import api


def edited_cards(folder: Path, card_id: str, value: int) -> Path:
    """A copy of the default card file in ``folder`` with ``card_id``'s value set."""
    lines = api.default_cards("peer-to-peer").splitlines()
    for i, line in enumerate(lines):
        if line.startswith(card_id + ","):
            fields = line.split(",")
            fields[3] = str(value)
            lines[i] = ",".join(fields)
    path = folder / f"{card_id}-{value}.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
