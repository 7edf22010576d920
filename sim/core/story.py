"""One replayed game as a story: its steps (rounds or turns), each with the table at its
start, what happened in words, and every decision with the options the player weighed.

A game package turns its kernels' trace buffer into a ``Story`` once (its ``trace.py``);
the text trace (``simulate trace``) and the game viewer (``simulate trace --html``,
reports/viewer.py) are both drawn from it, so nothing is read from the buffer twice and
the viewer needs no game-specific code.

Each ``Line`` carries a ``key``: its words with every card named by its id instead of its
name, so the same game under an edited card file (a new value, a new name) compares line
by line (``first_divergence``).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Callable


@dataclass
class Option:
    """One option of a decision: its words, its score (the strategy's weighted sum, or the
    search's mean result), and whether the player took it."""

    text: str
    score: float | None = None
    chosen: bool = False
    detail: str = ""            # e.g. "12 of 16 playouts"


@dataclass
class Decision:
    """A choice with the options the player weighed."""

    who: str                    # "team A", "seat 2"
    what: str                   # "commit (D2)", "action (PLAI-D1)"
    scored_by: str              # how the scores were made, in words
    options: list[Option] = field(default_factory=list)

    @property
    def chosen(self) -> Option | None:
        return next((o for o in self.options if o.chosen), None)


@dataclass
class Line:
    """One thing that happened, in words. ``kind`` lets the viewer mark it: event,
    decision, contest, unhappy, search, end. ``depth`` is its indentation below the step.
    ``lead`` holds text-only lines printed before it (a search decision's option list).
    ``tag`` marks a contest's deciding step or an unhappy customer's cause."""

    text: str
    kind: str = "event"
    depth: int = 0
    key: str = ""
    decision: Decision | None = None
    lead: list[str] = field(default_factory=list)
    tag: str = ""               # a short mark: "decided by: domain", "cause: draw"


@dataclass
class Pile:
    """A pile of the table as it stood: its cards (card indices) or only its size."""

    label: str
    group: str                  # "table", "team A", "seat 2" ... (the viewer's column)
    size: int
    cards: list[int] | None = None   # None: only the size is shown (a deck)
    notes: list[str] | None = None   # per card, e.g. "waited 1 round"


@dataclass
class Step:
    """A round (Peer-to-Peer) or a turn (PLAI); number 0 is the setup."""

    number: int
    title: str
    heading: list[str] = field(default_factory=list)   # the text trace's lines before it
    state: list[Pile] = field(default_factory=list)    # the table at its start
    lines: list[Line] = field(default_factory=list)
    end_state: list[Pile] = field(default_factory=list)  # the last step: the table at the end


@dataclass
class CardInfo:
    id: str
    name: str
    label: str                  # the card in a few words ("Technology 13: venture, shift 2")
    domain: str = ""            # a colour group for the viewer (domain or type)


@dataclass
class Story:
    game: str                   # the game's title
    unit: str                   # "round" or "turn"
    header: list[str]
    steps: list[Step]
    footer: list[str]
    cards: list[CardInfo]
    result: dict[str, Any] = field(default_factory=dict)
    line_prefix: str = "  "     # the text trace's indentation of a step's lines
    depth_prefix: str = "  "    # ... and of each depth below it

    def text(self) -> str:
        """The text trace (``simulate trace``)."""
        out = list(self.header)
        for step in self.steps:
            out += step.heading
            for line in step.lines:
                out += line.lead
                out.append(self.line_prefix + self.depth_prefix * line.depth + line.text)
        out += self.footer
        return "\n".join(out)

    def to_json(self) -> dict[str, Any]:
        """Plain data for the viewer page."""
        return asdict(self)


def keyed(build: Callable[[Callable[[int], str]], Story], names: list[str],
          ids: list[str]) -> Story:
    """``build(card_words)`` with cards by name, its lines' keys from the same build with
    cards by id: a game's trace reader is written once, for either."""
    story = build(lambda c: names[c] if c >= 0 else "-")
    by_id = build(lambda c: ids[c] if c >= 0 else "-")
    for step, id_step in zip(story.steps, by_id.steps):
        for line, id_line in zip(step.lines, id_step.lines):
            line.key = id_line.text
    return story


@dataclass
class Divergence:
    """Where two stories of the same game first differ: the step's index in both, the line
    index in each (-1: the step itself differs, e.g. one game ended earlier)."""

    step: int
    line: int
    base_text: str
    edit_text: str

    def describe(self, unit: str) -> str:
        return (f"{unit} {self.step}: '{self.base_text}' became '{self.edit_text}'"
                if self.line >= 0 else f"{unit} {self.step}: {self.base_text} / {self.edit_text}")


def first_divergence(base: Story, edit: Story) -> Divergence | None:
    """The first line where the two games differ (by key: cards compared by id), or None
    when every step reads the same."""
    for s in range(max(len(base.steps), len(edit.steps))):
        if s >= len(base.steps) or s >= len(edit.steps):
            ended = "the game had ended"
            return Divergence(s, -1, ended if s >= len(base.steps) else "the game went on",
                              ended if s >= len(edit.steps) else "the game went on")
        a, b = base.steps[s].lines, edit.steps[s].lines
        for i in range(max(len(a), len(b))):
            ka = a[i].key if i < len(a) else None
            kb = b[i].key if i < len(b) else None
            if ka != kb:
                return Divergence(s, i, a[i].text if i < len(a) else "(nothing more)",
                                  b[i].text if i < len(b) else "(nothing more)")
    return None
