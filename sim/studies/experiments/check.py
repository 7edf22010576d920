"""``simulate check EXPERIMENT``: the balance gate. Every check of the experiment names a
metric, the points it applies to and the bounds it must keep; it holds at a point when
the metric's whole interval (at the check's confidence, 95 % by default) lies within
the bounds. An interval that crosses a bound has not shown the threshold holds, so it
fails too ("undecided": more games may settle it). A point below the metric's smallest
player count (seat 2's win rate at 2 players) is "n/a"; a check that applies at none of
the points it selects is refused before anything plays. Exit status 0 when every check
holds wherever it applies, 1 otherwise.
"""
from __future__ import annotations

import math
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reports.tables import text_table
from sim.core.wording import interval_text
from sim.core.errors import UserError
from sim.core.inputs import parse_count
from sim.studies.experiments.schema import Condition, Experiment


NOT_APPLICABLE = "n/a"


@dataclass
class CheckRow:
    check: str
    point: str
    est: float
    lo: float
    hi: float
    confidence: float
    bounds: str
    status: str     # pass | fail | undecided | n/a (below the metric's smallest player count)


@dataclass
class CheckResult:
    rows: list[CheckRow] = field(default_factory=list)
    games: int = 0
    played: str = ""   # 'played with strategies ...; cards: ...' (run.played_line)

    @property
    def passed(self) -> bool:
        judged = [row for row in self.rows if row.status != NOT_APPLICABLE]
        return bool(judged) and all(row.status == "pass" for row in judged)

    def table(self) -> str:
        head = ["check", "point", "estimate [interval]", "bounds", "result"]
        rows = [[r.check, r.point, "n/a" if r.status == NOT_APPLICABLE else
                 f"{interval_text(r.est, r.lo, r.hi, 2)} ({100 * r.confidence:g} %)",
                 r.bounds, r.status.upper() if r.status != "pass" else "pass"] for r in self.rows]
        return (text_table(head, rows) + f"\n{self.verdict()} ({self.games:,} games per point)"
                + (f"\n{self.played}" if self.played else ""))

    def verdict(self) -> str:
        skipped = sum(r.status == NOT_APPLICABLE for r in self.rows)
        total = len(self.rows) - skipped
        aside = (f"; {skipped} not applicable (below the metric's smallest player count, "
                 "such as a seat or team the game lacks there)" if skipped else "")
        if self.passed:
            return "all checks hold" + aside
        failed = sum(r.status == "fail" for r in self.rows)
        undecided = sum(r.status == "undecided" for r in self.rows)
        if not undecided:
            return f"{failed} of {total} failed" + aside
        them = "it" if undecided == 1 else "them"
        return (f"{failed + undecided} of {total} did not hold: {failed} failed, "
                f"{undecided} undecided (more games may settle {them})" + aside)


def bounds_text(cond: Condition, unit: str) -> str:
    if math.isinf(cond.lo) and math.isinf(cond.hi):
        return "any"
    if math.isinf(cond.lo):
        return f"≤ {cond.hi:g} {unit}"
    if math.isinf(cond.hi):
        return f"≥ {cond.lo:g} {unit}"
    return f"{cond.lo:g} to {cond.hi:g} {unit}"


def judge(cond: Condition, lo: float, hi: float) -> str:
    """pass: the interval lies within the bounds; fail: wholly outside; else undecided."""
    if any(math.isnan(v) for v in (lo, hi)):
        return "undecided"
    if lo >= cond.lo and hi <= cond.hi:
        return "pass"
    if hi < cond.lo or lo > cond.hi:
        return "fail"
    return "undecided"


def evaluate(conditions, points: list[dict], game: str | None = None) -> list[CheckRow]:
    """Judge every condition at every point (dicts with name, players, values, games) of
    ``game`` (its sweep metrics; None: the metric of that name of any game)."""
    from reports.sweep import estimate, metric, z_for

    rows = []
    for cond in conditions:
        selected = [p for p in points if cond.selects(_PointView(p))]
        smallest = metric(cond.metric, game).min_players
        for p in selected:
            e = estimate(cond.metric, p["games"], z_for(cond.confidence), game=game)
            # no game can count toward it at this player count; a chance zero is undecided
            status = (NOT_APPLICABLE if p["players"] < smallest
                      else judge(cond, e["lo"], e["hi"]))
            rows.append(CheckRow(cond.text, p["name"], e["est"], e["lo"], e["hi"], cond.confidence,
                                 bounds_text(cond, metric(cond.metric, game).unit), status))
    return rows


def refuse_conditions_that_never_apply(exp: Experiment, conditions, kind: str = "check") -> None:
    """A check or autobalance target (``kind``) whose metric applies at none of the points
    it selects (seat 4's win rate at 2 and 3 players) can never hold: refused at its line."""
    for cond in conditions:
        counts = sorted({p.players for p in exp.points() if cond.selects(p)})
        smallest = smallest_players(cond.metric, exp.game)
        if counts and all(players < smallest for players in counts):
            raise cond.loc.error(f"{cond.metric} applies from {smallest} players; this {kind} "
                                 f"selects only {', '.join(map(str, counts))}")


def smallest_players(metric_name: str, game: str | None) -> int:
    """The smallest player count at which the metric has games to count (below it: n/a)."""
    from reports.sweep import metric

    return metric(metric_name, game).min_players


@dataclass
class _PointView:
    d: dict

    @property
    def players(self) -> int:
        return self.d["players"]

    @property
    def values(self) -> dict:
        return self.d["values"]


def check_experiment(exp: Experiment, *, games: Any = None, out: Any = None,
                     threads: Any = None, progress: bool = True,
                     command_line: str | None = None, backend: Any = None,
                     backend_options: Any = None) -> CheckResult:
    """Run the points the checks select (into ``out``, or a temporary directory) on
    ``backend`` (as ``run_experiment``) and judge."""
    from sim.studies.experiments.run import played_line, run_experiment, strategies_line

    if not exp.checks:
        raise UserError("the experiment declares no checks (add a 'checks:' list)",
                        file=exp.file, line=exp.loc.line, field=exp.name)
    games = exp.games if games is None else parse_count(games, field="--games")

    def needed(point) -> bool:
        return any(cond.selects(point) for cond in exp.checks)

    if not any(needed(p) for p in exp.points()):
        raise UserError("no point of the experiment matches any check (players / where)",
                        file=exp.file, line=exp.loc.line, field=f"{exp.name}.checks")
    refuse_conditions_that_never_apply(exp, exp.checks)
    from sim.runs.resumable import Stopped

    with tempfile.TemporaryDirectory(prefix="cardsim-check-") as tmp:
        target = Path(out) if out is not None else Path(tmp) / exp.name
        # a report in OUT that covers every point the check plays (the experiment's, of all
        # its points) is kept; one that lacks some of them is rewritten
        try:
            result = run_experiment(exp, games=games, out=target, threads=threads,
                                    progress=progress, only=needed, command_line=command_line,
                                    report=out is not None, backend=backend,
                                    backend_options=backend_options, command="check",
                                    keep_covering_report=True)
        except Stopped as stop:
            if out is None:   # the runs were in a temporary directory: nothing is kept
                stop.out, stop.out_option = Path("(nothing: no --out)"), None
            raise
        return CheckResult(evaluate(exp.checks, result.points, exp.game), games,
                           played_line(exp, strategies_line(result.points)))
