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


def scored_by(strategy: str) -> str:
    """How a decision's listed options are scored, in words (Decision's third field)."""
    return (f"the {strategy} strategy's score of each option (its weights times the option's "
            "features, without its random noise feature); without noise it takes the first "
            "highest, with noise the highest once each option's noise draw is added")


def decode_score(code: int, unit: float, infinite: int, nan: int) -> float:
    """A score as a game's trace writes it (round(score * unit), +/- ``infinite`` beyond
    its range, ``nan`` for not-a-number) back as a float."""
    if code == nan:
        return float("nan")
    if abs(code) == infinite:
        return float("inf") if code > 0 else float("-inf")
    return code / unit


def keyed(build: Callable[[Callable[[int], str]], Story], names: list[str],
          ids: list[str]) -> Story:
    """``build(card_words)`` with cards by name, its lines' keys from the same build with
    cards by id: a game's trace reader is written once, for either."""
    story = build(lambda c: names[c] if c >= 0 else "-")
    by_id = build(lambda c: ids[c] if c >= 0 else "-")
    for step, id_step in zip(story.steps, by_id.steps):
        for line, id_line in zip(step.lines, id_step.lines):
            line.key = id_line.text
            if id_line.decision is not None:   # the options weighed and the one taken
                line.key += " | " + " ; ".join(("* " if o.chosen else "") + o.text
                                               for o in id_line.decision.options)
    return story


@dataclass
class Divergence:
    """Where two stories of the same game first differ: the step's index in both, the line
    index in each (-1: the step itself differs, e.g. one game ended earlier)."""

    step: int
    line: int
    base_text: str
    edit_text: str
    where: str = ""             # the step's title ("Round 3 (first team marker: team A)")


def first_divergence(base: Story, edit: Story) -> Divergence | None:
    """The first line where the two games differ (by key: cards compared by id), or None
    when every step reads the same."""
    for s in range(max(len(base.steps), len(edit.steps))):
        if s >= len(base.steps) or s >= len(edit.steps):
            ended = "the game had ended"
            title = (base.steps[s] if s < len(base.steps) else edit.steps[s]).title
            return Divergence(s, -1, ended if s >= len(base.steps) else "the game went on",
                              ended if s >= len(edit.steps) else "the game went on", title)
        if base.steps[s].title != edit.steps[s].title:
            # what a step's heading shows (a deck's size) differs before any line: the deal
            return Divergence(s, -1, base.steps[s].title, edit.steps[s].title,
                              base.steps[s].title)
        a, b = base.steps[s].lines, edit.steps[s].lines
        for i in range(max(len(a), len(b))):
            ka = a[i].key if i < len(a) else None
            kb = b[i].key if i < len(b) else None
            if ka != kb:
                if ka is None or kb is None:
                    words = (a[i].text if ka else "(nothing more)",
                             b[i].text if kb else "(nothing more)")
                else:
                    words = _difference(a[i], b[i])
                return Divergence(s, i, *words, base.steps[s].title)
    return None


def _difference(a: Line, b: Line) -> tuple[str, str]:
    """Two differing lines in words; for the same words with other options or another
    choice, what the decisions weighed and took."""
    if a.text != b.text or a.decision is None or b.decision is None:
        return a.text, b.text
    texts_a = [o.text for o in a.decision.options]
    texts_b = [o.text for o in b.decision.options]

    def words(line: Line, others: list[str]) -> str:
        chosen = line.decision.chosen
        extra = [o.text for o in line.decision.options if o.text not in others]
        return (f"{line.text}: took {chosen.text if chosen else 'nothing'}"
                + (f"; only this game weighed {'; '.join(extra)}" if extra and len(extra) <= 3
                   else f"; {len(extra)} options only this game weighed" if extra else ""))

    return words(a, texts_b), words(b, texts_a)


def card_changes(base: Story, edit: Story) -> list[str]:
    """The edited game's card file against the baseline's, in words: each card whose
    description changed, and the cards only one of them has (compared by id)."""
    before = {c.id: c for c in base.cards}
    after = {c.id: c for c in edit.cards}
    changes = [f"{c.id}: {c.label} -> {after[c.id].label}" for c in base.cards
               if c.id in after and c.label != after[c.id].label]
    changes += [f"{c.id} only in the baseline: {c.label}" for c in base.cards if c.id not in after]
    changes += [f"{c.id} only in the edited game: {c.label}" for c in edit.cards
                if c.id not in before]
    return changes


def header_changes(base: Story, edit: Story) -> list[str]:
    """The header lines (configuration, rules) that differ, baseline then edited; rule
    lists are compared option by option. The card file's line is left out: the cards are
    compared card by card (card_changes), so a copy of a file changes nothing."""
    changes = []
    for a, b in zip(base.header, edit.header):
        head_a, _, list_a = a.partition(": ")
        head_b, _, list_b = b.partition(": ")
        if a == b or head_a == head_b == "cards":
            continue
        if head_a == head_b == "rules":
            items_a, items_b = list_a.split(", "), list_b.split(", ")
            changes += [f"{x} -> {y}" for x, y in zip(items_a, items_b) if x != y]
        else:
            changes.append(f"{a} -> {b}")
    return changes
