"""The game viewer of the workbench: one game of a comparison, the baseline and the edit
side by side (the same seed and game index, so the same deal), as a self-contained page.

``game_page`` is the one place the workbench asks for that page. Until the project's
game viewer (``simulate trace --html``) is wired in here, it draws both sides' text traces
(``sim.api.trace``) side by side, each line beside its counterpart, with the first line
that differs marked (``id="first-divergence"``) and linked from the top.
"""
from __future__ import annotations

import difflib
import html
from typing import Any

from sim import api
from sim.core.request import GameRequest

STYLE = """
body { font: 13px/1.35 system-ui, sans-serif; margin: 0 1em 2em; color: #222; }
h1 { font-size: 1.15em; } .muted { color: #666; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
th { text-align: left; border-bottom: 1px solid #ccc; position: sticky; top: 0;
     background: #fff; }
td { font: 12px/1.3 ui-monospace, monospace; white-space: pre-wrap; vertical-align: top;
     padding: 0 .5em; border-right: 1px solid #eee; overflow-wrap: anywhere; }
tr.same td { color: #555; }
tr.differs td { background: #fff6e0; }
tr#first-divergence td { background: #ffd9a8; outline: 2px solid #c60; }
"""


def side_request(plan: Any, side: str, players: int) -> GameRequest:
    """The game request of one side of a workbench comparison (``compare.Plan``)."""
    chosen = plan.baseline if side == "baseline" else plan.edit
    return GameRequest(game=plan.game, players=players, cards=chosen.cards,
                       rules_file=chosen.rules_file, rule_overrides=(),
                       strategies=plan.strategies.get(players) or None, debug=False)


def game_page(plan: Any, players: int, game_index: int, title: str = "") -> str:
    """The viewer page of game ``game_index`` at ``players`` players of the comparison
    ``plan``: the baseline and the edit side by side, stopping at the first divergence."""
    base = api.trace(side_request(plan, "baseline", players), seed=plan.seed,
                     game_index=game_index)
    edit = api.trace(side_request(plan, "edit", players), seed=plan.seed,
                     game_index=game_index)
    return side_by_side(base, edit, title or f"{plan.game}, {players} players, seed "
                                             f"{plan.seed}, game {game_index}")


def side_by_side(base: str, edit: str, title: str) -> str:
    """Two text traces aligned line by line (difflib: a line one side adds faces a gap);
    the first line that differs is marked."""
    left, right = base.splitlines(), edit.splitlines()
    pairs: list[tuple[str | None, str | None]] = []
    matcher = difflib.SequenceMatcher(None, left, right, autojunk=False)
    for _, i1, i2, j1, j2 in matcher.get_opcodes():
        for k in range(max(i2 - i1, j2 - j1)):
            pairs.append((left[i1 + k] if i1 + k < i2 else None,
                          right[j1 + k] if j1 + k < j2 else None))
    first = next((i for i, (a, b) in enumerate(pairs) if a != b), None)
    rows = []
    for i, (a, b) in enumerate(pairs):
        mark = ' id="first-divergence"' if i == first else ""
        kind = "same" if a == b else "differs"
        rows.append(f'<tr class="{kind}"{mark}><td>{html.escape(a or "")}</td>'
                    f'<td>{html.escape(b or "")}</td></tr>')
    where = ("the two games are the same line for line" if first is None else
             f'<a href="#first-divergence">the first difference</a>: row {first + 1}')
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><p class=\"muted\">Baseline and edit replayed "
            f"on the same seed and game index; {where}.</p>"
            f'<table data-first-divergence="{"" if first is None else first}">'
            f"<colgroup><col><col></colgroup><tr><th>baseline</th><th>edit</th></tr>"
            f"{''.join(rows)}</table></body></html>")
