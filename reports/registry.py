"""The metric registry: each game registers its own metrics.

A game's metrics live in its package (``sim/games/<g>/report_metrics/<name>.py``, one module
per metric with a module-level ``METRIC = Metric(...)``; modules whose name starts with
``_`` are helpers). The game's ``Game.report_metrics`` names that package (None: the game
has no metrics); :func:`game_metrics` imports its modules and returns their ``METRIC``
objects in report order, so adding a metric for a game means adding one file to that game.

The data types (``Metric``, ``Context``, ``Finding``, ``Answer``) live in
``sim.core.report_metric`` (below the games, so a game package can define metrics without
importing the report layer); they are re-exported here.

A metric whose per-game columns (``requires``; ``"fate_*"`` means "at least one column
starting with ``fate_``") are missing is skipped with a stated reason (:func:`select_metrics`).
"""
from __future__ import annotations

import importlib
import pkgutil

from sim.core.report_metric import GROUP_KEYS, Answer, Context, Finding, Metric  # noqa: F401


def game_metrics(game: str) -> list[Metric]:
    """The metrics the game registers (its ``report_metrics`` package), in report order."""
    from sim.core.game import resolve_game

    package = resolve_game(game).report_metrics
    if not package:
        return []
    pkg = importlib.import_module(package)
    found: dict[str, Metric] = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        metric = getattr(module, "METRIC", None)
        if not isinstance(metric, Metric):
            raise TypeError(f"{module.__file__}: a metric module must define METRIC = Metric(...)")
        if metric.name in found:
            raise ValueError(f"two metrics of {game} are named '{metric.name}'")
        found[metric.name] = metric
    return sorted(found.values(), key=lambda m: (m.order, m.name))


def list_metrics() -> list[Metric]:
    """Every built-in game's metrics, game by game, each game's in report order."""
    from sim.core.game import GAME_MODULES, game_modules

    out: list[Metric] = []
    for game in game_modules():
        try:
            out += game_metrics(game)
        except Exception:  # an extra game whose module is not importable here
            if game in GAME_MODULES:   # a built-in game must import
                raise
    return out


def select_metrics(game: str, columns) -> tuple[list[Metric], list[tuple[str, str]]]:
    """Split the game's metrics into (metrics that can run, [(name, reason) skipped])."""
    run, skipped = [], []
    for metric in game_metrics(game):
        reason = metric.missing(list(columns))
        if reason is None:
            run.append(metric)
        else:
            skipped.append((metric.name, reason))
    return run, skipped
