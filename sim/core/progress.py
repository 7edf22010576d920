"""The progress bar every long command draws on stderr (only when stderr is a terminal)."""
from __future__ import annotations

import contextlib
import math
import sys


def progress_bar(enabled: bool, total: int, label: str, *, done: int = 0,
                 show_pos: bool = False):
    """A click progress bar of ``total`` steps (``done`` already counted), or None when
    disabled or stderr is not a terminal. Use ``bar.update(n)`` and ``bar.render_finish()``,
    or ``with bar_context(bar)``."""
    if not (enabled and sys.stderr.isatty()):
        return None
    import click

    bar = click.progressbar(length=total, label=label, file=sys.stderr, show_eta=True,
                            show_percent=True, show_pos=show_pos, width=30)
    if done:
        bar.update(done)
    return bar


def bar_context(bar):
    """``with bar_context(bar) as bar:`` works for a bar and for None alike."""
    return contextlib.nullcontext(None) if bar is None else bar


class AmountBar:
    """A bar over an amount that grows in fractions (seconds of search games): it draws the
    whole steps of ``total`` done so far. It appears at the first amount added, so time
    spent before (compiling the search player) does not enter its rate. Does nothing when
    disabled or when stderr is not a terminal, so callers need not ask."""

    def __init__(self, enabled: bool, total: float, label: str):
        self.enabled, self.length, self.label = enabled, max(1, math.ceil(total)), label
        self.bar = None
        self.done, self.drawn = 0.0, 0

    def add(self, amount: float) -> None:
        self.done += amount
        if self.bar is None and self.enabled:
            self.bar = progress_bar(True, self.length, self.label)
            self.enabled = self.bar is not None
        if self.bar is None:
            return
        step = min(int(self.done), self.length) - self.drawn
        if step > 0:
            self.bar.update(step)
            self.drawn += step

    def finish(self) -> None:
        if self.bar is not None:
            self.bar.update(self.length - self.drawn)   # a budget ends where it ends
            self.bar.render_finish()
