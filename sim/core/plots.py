"""Plot helpers: matplotlib's object API on the Agg canvas (no pyplot, no global state).

Every figure labels its axes and shows sample sizes (n) in tick labels or legends.
"""
from __future__ import annotations

import io
import math

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

COLORS = ["#1f77b4", "#d62728", "#7f7f7f", "#9467bd", "#2ca02c", "#ff7f0e", "#8c564b", "#17becf"]
MAX_PANELS = 6


def new_figure(panels: int = 1, width: float = 9.0, panel_height: float = 3.6, sharex=False):
    panels = max(1, panels)
    fig = Figure(figsize=(width, panel_height * panels + 0.4), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(panels, 1, squeeze=False, sharex=sharex)[:, 0]
    return fig, list(axes)


def to_png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return buf.getvalue()


def category(players, compensation=None, n=None) -> str:
    text = f"{players}p"
    if compensation not in (None, "", "n/a"):
        text += f"\n{compensation}"
    if n is not None:
        text += f"\nn={int(n):,}"
    return text


def _err(est, lo, hi):
    est, lo, hi = (np.asarray(a, dtype=float) for a in (est, lo, hi))
    lower = np.where(np.isnan(lo), 0.0, np.maximum(est - lo, 0.0))
    upper = np.where(np.isnan(hi), 0.0, np.maximum(hi - est, 0.0))
    return np.vstack([lower, upper])


CHAR_INCHES = 0.075   # a character of an 8-point tick label, about


def fit_labels(labels: list[str], ax) -> list[str]:
    """Tick labels that fit side by side on ``ax``: a line longer than its share of the
    axis width is broken after its underscores ("extra_venture_empty" -> "extra_venture_"
    over "empty"), so neighbouring modes do not run into each other."""
    if not labels:
        return labels
    inches = ax.get_position().width * ax.figure.get_figwidth()
    room = max(4, int(inches / len(labels) / CHAR_INCHES) - 1)

    def fit(line: str) -> list[str]:
        if len(line) <= room or "_" not in line:
            return [line]
        out, current = [], ""
        for part in line.split("_"):
            piece = part if not current else "_" + part
            if current and len(current) + len(piece) > room:
                out.append(current + "_")
                current = part
            else:
                current += piece
        return out + [current]

    return ["\n".join(piece for line in label.split("\n") for piece in fit(line))
            for label in labels]


def grouped_points(ax, labels: list[str], series: list[tuple[str, list, list, list]],
                   percent: bool = True, ylabel: str = "", xlabel: str = ""):
    """Per category, one marker with an error bar per series, side by side."""
    x = np.arange(len(labels), dtype=float)
    k = max(1, len(series))
    width = 0.7 / k
    scale = 100.0 if percent else 1.0
    for j, (name, est, lo, hi) in enumerate(series):
        est = np.asarray(est, dtype=float) * scale
        lo = np.asarray(lo, dtype=float) * scale
        hi = np.asarray(hi, dtype=float) * scale
        xs = x - 0.35 + width * (j + 0.5)
        ax.errorbar(xs, est, yerr=_err(est, lo, hi), fmt="o", capsize=3, ms=5,
                    color=COLORS[j % len(COLORS)], label=name)
    ax.set_xticks(x)
    ax.set_xticklabels(fit_labels(labels, ax), fontsize=8)
    ax.set_xlim(-0.6, len(labels) - 0.4)
    if percent:
        top = max([float(np.nanmax(np.asarray(h, dtype=float))) for _, _, _, h in series
                   if np.isfinite(np.asarray(h, dtype=float)).any()] or [0.01])
        ax.set_ylim(0, min(100.0, max(5.0, top * 100 * 1.1)))
    ax.set_ylabel(ylabel)
    ax.set_xlabel(xlabel)
    ax.grid(axis="y", alpha=0.3)
    if series:
        ax.legend(fontsize=8, loc="best")


def players_panel(table, series: list[tuple[str, list, list, list]], ylabel: str, title: str):
    """One panel of :func:`grouped_points` with a category per row of ``table`` (its
    player count and games), or None for an empty table."""
    if table.height == 0:
        return None
    labels = [category(r["players"], None, r["games"]) for r in table.iter_rows(named=True)]
    fig, (ax,) = new_figure(1)
    grouped_points(ax, labels, series, ylabel=ylabel, xlabel="players")
    ax.set_title(title, fontsize=10)
    return fig


def threshold_band(ax, centre: float, threshold_pp: float, horizontal: bool = True):
    if horizontal:
        ax.axhspan(centre - threshold_pp, centre + threshold_pp, color="#2ca02c", alpha=0.12,
                   label=f"±{threshold_pp:g} pp threshold")
        ax.axhline(centre, color="black", lw=0.8)
    else:
        ax.axvspan(centre - threshold_pp, centre + threshold_pp, color="#2ca02c", alpha=0.12,
                   label=f"±{threshold_pp:g} pp threshold")
        ax.axvline(centre, color="black", lw=0.8)


def finite(values) -> bool:
    return any(v is not None and not math.isnan(v) for v in values)


__all__ = ["Figure", "FigureCanvasAgg", "new_figure", "to_png", "category", "grouped_points",
           "threshold_band", "finite", "COLORS", "MAX_PANELS"]
