"""``answers.json`` beside report.html: every answer of the report, for scripts and the
workbench. docs/answers.md describes the schema; ``SCHEMA`` is its version.

    {"schema": 1, "game": "peer-to-peer", "threshold_pp": 2.0, "runs": [...],
     "answers": [{"question": "team_balance", "title": "Is it fair between the teams?",
                  "players": 4, "variant": "n/a", "pairing": "expert vs expert",
                  "where": "...", "words": "a small edge to team B (1.6 points), inside ...",
                  "value": 0.484, "lo": 0.481, "hi": 0.486, "even": 0.5, "kind": "rate",
                  "verdict": "small", "section": "team_balance",
                  "causes": [{"cause": "start_cards", "share": ..., "lo": ..., "hi": ...,
                              "words": "...", ...}],
                  "stronger_play": {"checked": true, "holds": true, "value": ..., ...}}]}

Numbers are fractions (0.484 is 48.4 %; a "diff" answer's value is a difference of
fractions); NaN and infinities are written as null.
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

SCHEMA = 1


def _clean(value: Any) -> Any:
    """JSON-safe: NaN/inf to null, numpy scalars to Python, containers walked."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def answer_record(answer, anchor: str) -> dict[str, Any]:
    group = answer.group or {}
    return {"question": answer.key, "title": answer.question,
            "players": group.get("players", answer.players),
            "variant": group.get("variant"), "pairing": group.get("pairing"),
            "where": answer.where, "words": answer.answer, "value": answer.estimate,
            "lo": answer.lo, "hi": answer.hi, "even": answer.even, "kind": answer.kind,
            "verdict": answer.verdict, "section": anchor, "causes": list(answer.causes),
            "stronger_play": answer.stronger}


def write_answers(path: Path, answers: list, rs, ctx) -> Path:
    doc = {"schema": SCHEMA, "game": rs.game, "threshold_pp": ctx.threshold_pp,
           "runs": [run.path for run in rs.runs],
           "answers": [answer_record(a, anchor) for a, anchor in answers]}
    path.write_text(json.dumps(_clean(doc), indent=1) + "\n", encoding="utf-8")
    return path


def read_answers(path: str | Path) -> dict[str, Any]:
    """An answers.json (a report's directory or the file itself)."""
    path = Path(path)
    if path.is_dir():
        path = path / "answers.json"
    return json.loads(path.read_text(encoding="utf-8"))
