"""Report-level figures: the small-multiples panel of the headline answers by player count."""
from __future__ import annotations

import math
import textwrap

import numpy as np

from sim.core.plots import COLORS, Figure, FigureCanvasAgg, category, fit_labels, to_png

VERDICT_COLORS = {"within": "#2ca02c", "small": "#bcbd22", "above": "#d62728", "below": "#d62728",
                  "undecided": "#ff7f0e", "no_data": "#7f7f7f", "info": "#1f77b4"}


def small_multiples(answers) -> bytes | None:
    fig = answers_figure(answers)
    return None if fig is None else to_png(fig)


def answers_figure(answers):
    """One small panel per question: its estimate and 95 % interval (percent, or points for
    a difference) at each player count, coloured by the answer's verdict; the same layout
    for every question so they read side by side."""
    by_q: dict[str, list] = {}
    for a in answers:
        if a.players is None or a.estimate is None or (isinstance(a.estimate, float)
                                                       and math.isnan(a.estimate)):
            continue
        by_q.setdefault(a.question, []).append(a)
    if not by_q:
        return None
    n = len(by_q)
    cols = min(3, n)
    rows = math.ceil(n / cols)
    fig = Figure(figsize=(3.4 * cols, 2.6 * rows + 0.3), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in axes[n:]:
        ax.set_visible(False)
    for ax, (question, items) in zip(axes, by_q.items()):
        labels = sorted({(a.players, a.where) for a in items})
        x = {key: i for i, key in enumerate(labels)}
        variants = {(a.players, a.where): (a.group or {}).get("variant") for a in items}
        for a in items:
            scale = 100.0
            est, lo, hi = (v * scale for v in (a.estimate, a.lo, a.hi))
            xi = x[(a.players, a.where)]
            err = np.array([[max(est - lo, 0) if lo == lo else 0], [max(hi - est, 0) if hi == hi else 0]])
            ax.errorbar([xi], [est], yerr=err, fmt="o", ms=5, capsize=3,
                        color=VERDICT_COLORS.get(a.verdict, COLORS[0]))
        if any(a.kind == "diff" for a in items):
            ax.axhline(0, color="black", lw=0.7)
        elif any(a.verdict in ("within", "small", "above", "below", "undecided") for a in items):
            ax.axhline(50, color="black", lw=0.7)       # a share: 50 % is even
        ax.set_xticks(range(len(labels)))
        # two answers at one player count differ in their mode (Peer-to-Peer's
        # compensation at 3 and 5 players): the label names it, as the report's other plots do
        ax.set_xticklabels(fit_labels([category(p, variants[(p, where)]) for p, where in labels],
                                      ax), fontsize=7)
        ax.set_xlim(-0.6, len(labels) - 0.4)
        ax.set_title(textwrap.fill(question, 40), fontsize=8)
        ax.set_ylabel("points" if any(a.kind == "diff" for a in items) else "%", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(axis="y", alpha=0.3)
    return fig
