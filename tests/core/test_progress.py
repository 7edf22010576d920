"""The bar over an amount that grows in fractions (sim/core/progress.py): seconds of search
games, drawn in whole steps on a terminal and not at all elsewhere."""
from __future__ import annotations

import sys

from sim.core.progress import AmountBar


def test_fractions_add_up_to_whole_steps_and_finishing_fills_the_bar(monkeypatch, capsys):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    bar = AmountBar(True, 2.5, "search games")
    assert bar.bar.length == 3          # a fraction of a second is a step of its own
    for _ in range(5):
        bar.add(0.4)
    assert bar.bar.pos == 2             # 2.0 of 2.5 seconds
    bar.add(5.0)
    assert bar.bar.pos == 3             # a chunk past the budget stops at the end
    bar.finish()
    assert "search games" in capsys.readouterr().err


def test_no_terminal_or_not_asked_draws_nothing(monkeypatch, capsys):
    for enabled, terminal in ((True, False), (False, True)):
        monkeypatch.setattr(sys.stderr, "isatty", lambda terminal=terminal: terminal)
        bar = AmountBar(enabled, 10, "search games")
        bar.add(4.0)
        bar.finish()
        assert bar.bar is None and bar.done == 4.0
    assert capsys.readouterr().err == ""
