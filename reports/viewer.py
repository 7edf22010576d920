"""The game viewer: one replayed game (or a baseline and an edited game side by side) as
one self-contained HTML page, drawn from sim.core.story stories.

The page is reports/viewer.html with the stories as JSON; its CSS and JavaScript are inline
and it loads nothing (no font, image, script or style from anywhere), so it opens offline
and from a mail attachment. The step list (one button per round or turn) is written here,
so every step is reachable without the script too; the script draws the chosen step.
"""
from __future__ import annotations

import html
import json
import math
from importlib import resources
from typing import Any

from sim.core.story import Story, card_changes, first_divergence, header_changes

TEMPLATE = "viewer.html"


def viewer_data(stories: list[Story], names: list[str]) -> dict[str, Any]:
    """The page's data: each story (its lines without their comparison keys), the first
    divergence of a pair and what the edit changed."""
    data: dict[str, Any] = {"names": names, "stories": [_plain(s) for s in stories],
                            "divergence": None, "changes": []}
    if len(stories) == 2:
        base, edit = stories
        found = first_divergence(base, edit)
        if found is not None:
            data["divergence"] = {"step": found.step, "line": found.line,
                                  "base": found.base_text, "edit": found.edit_text}
        data["changes"] = header_changes(base, edit) + card_changes(base, edit)
    return data


def viewer_page(stories: list[Story], names: list[str] | None = None,
                title: str | None = None) -> str:
    """The HTML page of one story, or of a baseline and an edited story (``names``: their
    column headings) opened at their first divergence."""
    if not 1 <= len(stories) <= 2:
        raise ValueError("the viewer shows one game or a pair")
    names = names or (["baseline", "edited"] if len(stories) == 2 else [""])
    data = viewer_data(stories, names)
    first = stories[0]
    title = title or (first.header[0] if first.header else first.game)
    if len(stories) == 2:
        title += " — baseline and edited"
    steps = max(len(s.steps) for s in stories)
    diverged = data["divergence"]["step"] if data["divergence"] else None
    buttons = []
    for i in range(steps):
        story = next(s for s in stories if i < len(s.steps))
        step = story.steps[i]
        label = "Setup" if i == 0 else f"{story.unit.capitalize()} {step.number}"
        marks = " diverged" if diverged == i else (" after" if diverged is not None and i > diverged else "")
        buttons.append(f'<button type="button" class="step{marks}" data-step="{i}" '
                       f'title="{html.escape(step.title)}">{html.escape(label)}</button>')
    template = resources.files("reports").joinpath(TEMPLATE).read_text(encoding="utf-8")
    # JSON inside a script element: "</" would end it
    payload = json.dumps(_finite(data), allow_nan=False).replace("</", "<\\/")
    return (template.replace("{{TITLE}}", html.escape(title))
            .replace("{{NAV}}", "\n".join(buttons))
            .replace("{{DATA}}", payload))


def _plain(story: Story) -> dict[str, Any]:
    data = story.to_json()
    for step in data["steps"]:
        for line in step["lines"]:
            line.pop("key", None)
            line.pop("lead", None)
    return data


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: a score that is one is written as a word."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value
