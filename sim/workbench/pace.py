"""The game's pace in a workbench comparison: both sides' per-round curves (the sums each
run's engine recorded, sim.runs.curve_files) as the page draws them, baseline and edit on
one plot per panel of the game's ``Game.curves``, each mean with its 95 % band.

Read after each look from the two runs' curves.npz (a few kilobytes), so a comparison's
memory does not grow with its games.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

import numpy as np

from sim.core.curves import RUNNING, mean_band, panels, shown_end, width


def _numbers(values: np.ndarray) -> list[float | None]:
    """JSON-able: NaN and infinities as null, 4 significant digits."""
    return [float(f"{v:.4g}") if math.isfinite(v) else None for v in values.tolist()]


def pace(game: Any, players: int, run_dirs: Mapping[str, str]) -> dict[str, Any] | None:
    """{unit, panels: [{name, curves: [{name, words}]}], sides: {side: {games, running,
    curves: {name: {mean, lo, hi}}}}} up to the last index both sides can draw (at least
    30 games, and 0.5 % of them, still running on each side); None for a game without curves or a side without sums."""
    from sim.runs import curve_files

    spec = game.curves
    if spec is None:
        return None
    sums = {}
    for side, path in run_dirs.items():
        found = curve_files.read(path)
        if found is None:
            return None
        sums[side] = found
    # the shorter side's end: past it one side's band rests on too few games to read
    end = max(1, min(shown_end(s[:, RUNNING]) for s in sums.values()))
    series = spec.series(players)
    sides = {}
    for side, s in sums.items():
        rows = np.zeros((end + 1, s.shape[1]), dtype=np.int64)
        rows[:min(end + 1, s.shape[0])] = s[:end + 1]
        running = rows[:, RUNNING]
        w = width(rows)
        curves = {}
        for curve in series:
            mean, lo, hi = mean_band(running, rows[:, 1 + curve.column],
                                     rows[:, 1 + w + curve.column])
            curves[curve.name] = {"mean": _numbers(mean), "lo": _numbers(lo),
                                  "hi": _numbers(hi)}
        sides[side] = {"games": int(running[0]), "running": [int(x) for x in running],
                       "curves": curves}
    return {"unit": spec.unit,
            "panels": [{"name": name, "curves": [{"name": c.name, "words": c.words}
                                                 for c in items]}
                       for name, items in panels(series).items()],
            "sides": sides}
