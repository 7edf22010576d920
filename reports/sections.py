"""Optional report sections: parts of the report that need more than the runs' games
(a card ablation, a skill run, ...).

A section builder is a function ``build(path, rs, ctx) -> ExtraSection | None`` registered
under a name in :data:`OPTIONAL_SECTIONS` (use :func:`register`); ``write_report(...,
extra={"ablation": dir, "skill": dir})`` calls the builder of every name given, with its
path. Each section may add rows to the answers-first table (``answers``) and warnings shown
under the strategies (``warnings``, e.g. "a skill run says expert beats these strategies").
Builders that need nothing extra (the why-everyone-loses section reads the runs' own
games) are listed in :data:`ALWAYS` and get ``path=None``. The built-in section modules
(reports/ablation.py, reports/why_lose.py) register themselves when reports.build imports
them; a new one is one module plus one import line there.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import polars as pl

from sim.core.errors import UserError
from sim.core.report_metric import Answer, Finding


@dataclass
class ExtraSection:
    name: str                      # anchor and file stem
    title: str
    description: str
    table: Optional[pl.DataFrame] = None       # shown (and written as <name>.csv)
    display: Optional[pl.DataFrame] = None     # shown instead of the table, when given
    png: Optional[bytes] = None                # one figure
    findings: list[Finding] = field(default_factory=list)
    answers: list[Answer] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    order: int = 900               # place among the other extra sections


def same_game(kind: str, game: str | None, report_game: str, file: str) -> None:
    """Refuse a section's input (an ablation, a skill run) of another game than the runs'."""
    if game != report_game:
        raise UserError(f"the {kind} is of {game}, the report's runs of {report_game}",
                        file=file, field="game")


Builder = Callable[..., Optional[ExtraSection]]
OPTIONAL_SECTIONS: dict[str, Builder] = {}
ALWAYS: list[Builder] = []


def register(name: str, builder: Builder) -> None:
    """Register ``builder`` for ``write_report(extra={name: path})``."""
    if name in OPTIONAL_SECTIONS and OPTIONAL_SECTIONS[name] is not builder:
        raise ValueError(f"two report sections are named '{name}'")
    OPTIONAL_SECTIONS[name] = builder


def known() -> list[str]:
    return sorted(OPTIONAL_SECTIONS)


def builder(name: str) -> Builder:
    from sim.core.errors import UserError

    if name not in OPTIONAL_SECTIONS:
        raise UserError(f"no report section '{name}'; known: {', '.join(sorted(OPTIONAL_SECTIONS))}",
                        field="extra")
    return OPTIONAL_SECTIONS[name]


def always() -> list[Builder]:
    return list(ALWAYS)
