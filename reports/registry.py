"""The metric registry: one module per metric in ``reports/metrics/``.

A metric is a module ``reports/metrics/<name>.py`` with a module-level
``METRIC = Metric(...)``. Modules whose name starts with ``_`` are helpers, not metrics.
:func:`list_metrics` imports every module in that folder and returns their ``METRIC``
objects in report order, so adding a metric means adding one file.

Each metric declares the game(s) it applies to and the per-game columns it needs
(``"fate_*"`` means "at least one column starting with ``fate_``"). A metric whose
game or columns are missing is skipped with a stated reason (:func:`select_metrics`),
so a PLAI metric can live next to the Peer-to-Peer ones.

``compute(games, ctx)`` takes the merged per-game table (polars) and returns a tidy
polars table. Interval columns follow one naming rule, which the renderers rely on:
an estimate ``<stem>_rate`` (a proportion), ``<stem>_diff`` (a difference of
proportions) or ``<stem>_mean`` (a mean) has its 95 % bounds in ``<stem>_lo`` and
``<stem>_hi``.
"""
from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import polars as pl

# Every metric groups by these: player count, strategy pairing, and the
# odd_team_compensation mode ("n/a" where the player count has no odd team).
GROUP_KEYS = ("players", "pairing", "compensation")


@dataclass
class Context:
    """What a metric may know besides the games table."""

    game: str
    threshold_pp: float = 2.0
    z: float = 1.959964
    card_ids: list[str] = field(default_factory=list)     # global card index -> id
    card_names: list[str] = field(default_factory=list)   # global card index -> name
    group_keys: tuple[str, ...] = GROUP_KEYS

    def card_name(self, card_id: str) -> str:
        try:
            return self.card_names[self.card_ids.index(card_id)]
        except (ValueError, IndexError):
            return card_id


@dataclass(frozen=True)
class Finding:
    """One sentence for the report. ``level``: imbalance | undecided | within | info."""

    metric: str
    level: str
    text: str


@dataclass(frozen=True)
class Metric:
    name: str                       # file stem and CSV name, e.g. "team_balance"
    title: str                      # section heading
    requires: tuple[str, ...]       # per-game columns needed ("prefix*" = any column with prefix)
    compute: Callable[[pl.DataFrame, Context], pl.DataFrame]
    description: str = ""           # what it measures and how (one paragraph, plain words)
    findings: Optional[Callable[[pl.DataFrame, Context], list[Finding]]] = None
    plot: Optional[Callable[[pl.DataFrame, pl.DataFrame, Context], Any]] = None  # (table, games, ctx) -> Figure | None
    display: Optional[Callable[[pl.DataFrame, Context], pl.DataFrame]] = None    # table shown in HTML/Markdown
    order: int = 100                # position in the report (lower first)

    def missing(self, game: str, columns: list[str] | tuple[str, ...]) -> str | None:
        """Why this metric cannot run on these games, or None when it can (the game's
        ``report_metrics`` hook names the metrics that apply to it)."""
        from sim.core.game import game_hook, game_modules

        if self.name not in game_hook(game, "report_metrics"):
            owners = [g for g in game_modules() if g != game
                      and self.name in getattr(_game_or_none(g), "report_metrics", ())]
            return f"applies to {', '.join(owners) or 'no game'}, not {game}"
        cols = set(columns)
        absent = []
        for req in self.requires:
            if req.endswith("*"):
                if not any(c.startswith(req[:-1]) for c in cols):
                    absent.append(req)
            elif req not in cols:
                absent.append(req)
        if absent:
            return "missing column(s): " + ", ".join(absent)
        return None


def _game_or_none(name: str):
    from sim.core.errors import UserError
    from sim.core.game import resolve_game

    try:
        return resolve_game(name)
    except UserError:  # an extra game whose module is not importable here
        return None


METRICS_PACKAGE = "reports.metrics"


def list_metrics() -> list[Metric]:
    """Every metric in ``reports/metrics/``, in report order (``order``, then name)."""
    pkg = importlib.import_module(METRICS_PACKAGE)
    found: dict[str, Metric] = {}
    for info in pkgutil.iter_modules(pkg.__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{METRICS_PACKAGE}.{info.name}")
        metric = getattr(module, "METRIC", None)
        if not isinstance(metric, Metric):
            raise TypeError(f"{module.__file__}: a metric module must define METRIC = Metric(...)")
        if metric.name in found:
            raise ValueError(f"two metrics are named '{metric.name}'")
        found[metric.name] = metric
    return sorted(found.values(), key=lambda m: (m.order, m.name))


def select_metrics(game: str, columns) -> tuple[list[Metric], list[tuple[str, str]]]:
    """Split the registry into (metrics that can run, [(name, reason) skipped])."""
    run, skipped = [], []
    for metric in list_metrics():
        reason = metric.missing(game, list(columns))
        if reason is None:
            run.append(metric)
        else:
            skipped.append((metric.name, reason))
    return run, skipped
