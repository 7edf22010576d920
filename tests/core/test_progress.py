"""How a long stronger-play check shows its progress: the bar over an amount that grows in
fractions (sim/core/progress.py: seconds of search games, drawn in whole steps on a terminal
and not at all elsewhere), and the line said before it starts (sim/cli/common.py)."""
from __future__ import annotations

import sys

from sim.core.progress import AmountBar


def test_fractions_add_up_to_whole_steps_and_finishing_fills_the_bar(monkeypatch, capsys):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    bar = AmountBar(True, 2.5, "search games")
    assert bar.bar is None              # nothing drawn before the first amount
    for _ in range(5):
        bar.add(0.4)
    assert bar.bar.length == 3          # a fraction of a second is a step of its own
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


def test_a_balance_report_says_its_whole_search_budget_before_it_starts(capsys):
    from sim import api
    from sim.cli.common import say_search_budget

    counts = len({players for players, _ in api.balance_points("peer-to-peer")})
    say_search_budget("the report checks every answer", 300, None, " per player count",
                      counts)
    assert capsys.readouterr().err == (
        "the report checks every answer under stronger play: about 300 s of search games "
        "per player count, 6 player counts: about 30 min (--stronger-play 0 turns it off)\n")
    say_search_budget("the report checks every answer", 5, None, " per player count", 4)
    assert "about 5 s of search games per player count, 4 player counts: about 20 s (" in (
        capsys.readouterr().err)
    say_search_budget("checking the changes", 0, None)
    assert capsys.readouterr().err == ""
