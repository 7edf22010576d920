"""The progress bar every long command draws on stderr (only when stderr is a terminal)."""
from __future__ import annotations

import contextlib
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
