"""The report's "pace of the game" section: for a game with ``Game.curves``, each curve's
mean round by round (or turn by turn) with its 95 % band, per player count (and variant
and strategies), from the per-round sums the engine recorded in each run
(sim.runs.curve_files: a few kilobytes per run; the games are never read, so the memory
does not grow with them).

The mean of round t is over the games still running at t (a game that ended adds nothing
to later rounds); the "games still running" panel says how many those are. The band is
the mean's 95 % interval (normal approximation, from the sums of squares). The figure
stops where fewer than ``MIN_GAMES`` games (or ``MIN_SHARE`` of them) still run; the
table, written as ``curves.csv``, goes on to the last round any game reached.
"""
from __future__ import annotations

import numpy as np
import polars as pl

from reports.sections import ALWAYS, ExtraSection
from sim.core.curves import RUNNING, add_sums, curve_rows, mean_band, panels, shown_end, width
from sim.core.wording import plural

MIN_GAMES = 30        # the figure's last round: at least this many games still running
MIN_SHARE = 0.005     # ... and this share of the group's games
MAX_GROUPS = 8        # columns of the figure (groups beyond are in the table only)


def group_sums(rs) -> tuple[dict[tuple[int, str, str], np.ndarray], list[str]]:
    """(players, variant, pairing) -> the summed sums of its runs; and the runs without
    curves (played before the engine recorded them, or by search players)."""
    from sim.runs import curve_files

    groups: dict[tuple[int, str, str], np.ndarray] = {}
    missing = []
    for run in rs.runs:
        sums = curve_files.read(run.path, run.manifest)
        if sums is None:
            missing.append(run.path)
            continue
        key = (run.players, run.variant, run.pairing)
        groups[key] = add_sums(groups.get(key), sums)
    return dict(sorted(groups.items())), missing


def curves_table(spec, groups) -> pl.DataFrame:
    """One row per group and index: the games still running and each curve's mean with its
    interval (``<name>``, ``<name>_lo``, ``<name>_hi``; a curve a player count lacks is
    empty)."""
    rows = []
    for (players, variant, pairing), sums in groups.items():
        for row in curve_rows(spec, players, sums):
            rows.append({"players": players, "variant": variant, "pairing": pairing, **row})
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(row))
    return pl.DataFrame([{c: row.get(c) for c in columns} for row in rows],
                        schema={c: (pl.Utf8 if c in ("variant", "pairing") else
                                    pl.Int64 if c in ("players", spec.unit, "games")
                                    else pl.Float64) for c in columns})


def label(players: int, variant: str, pairing: str, games: int) -> str:
    text = plural(players, "player")
    if variant != "n/a":
        text += f", {variant}"
    return f"{text}\n{pairing}, n={games:,}"


def plot(spec, groups) -> bytes | None:
    from sim.core.plots import to_png

    fig = figure(spec, groups)
    return None if fig is None else to_png(fig)


def figure(spec, groups):
    """Small multiples: one column per group, one row per panel of the game's curves
    (curves sharing a panel in their colours) and a last row with the share of games
    still running; each mean with its 95 % band."""
    from matplotlib.ticker import MaxNLocator

    from sim.core.plots import COLORS, Figure, FigureCanvasAgg

    keys = list(groups)[:MAX_GROUPS]
    if not keys:
        return None
    by_panel = {}
    for key in keys:
        for name, items in panels(spec.series(key[0])).items():
            by_panel.setdefault(name, {})[key] = items
    rows = list(by_panel) + ["games still running"]
    fig = Figure(figsize=(2.6 * len(keys) + 1.2, 1.7 * len(rows) + 0.6), dpi=100,
                 layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(rows), len(keys), squeeze=False, sharex="col", sharey="row")
    for j, key in enumerate(keys):
        sums = groups[key]
        running = sums[:, RUNNING]
        end = max(1, shown_end(running, MIN_GAMES, MIN_SHARE))
        t = np.arange(end + 1)
        w = width(sums)
        axes[0, j].set_title(label(*key, int(running[0])), fontsize=8)
        for i, panel in enumerate(rows[:-1]):
            ax = axes[i, j]
            for k, curve in enumerate(by_panel[panel].get(key, ())):
                mean, lo, hi = mean_band(running[:end + 1], sums[:end + 1, 1 + curve.column],
                                         sums[:end + 1, 1 + w + curve.column])
                color = COLORS[k % len(COLORS)]
                ax.plot(t, mean, color=color, lw=1.2, label=curve.name)
                ax.fill_between(t, np.nan_to_num(lo, nan=mean), np.nan_to_num(hi, nan=mean),
                                color=color, alpha=0.25, lw=0)
            if j == 0:
                ax.set_ylabel(panel, fontsize=8)
            if len(by_panel[panel].get(key, ())) > 1:
                ax.legend(fontsize=6, loc="best")
        ax = axes[-1, j]
        ax.plot(t, 100.0 * running[:end + 1] / max(1, running[0]), color="black", lw=1.2)
        ax.set_ylim(0, 105)
        ax.set_xlabel(spec.unit, fontsize=8)
        if j == 0:
            ax.set_ylabel("% of games\nstill running", fontsize=8)
    for ax in axes.ravel():
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))   # rounds and turns are whole
    return fig


def display_table(spec, table: pl.DataFrame) -> pl.DataFrame:
    """The report's view: the means only (the csv has the intervals too), rounded."""
    names = [c for c in table.columns if c not in ("players", "variant", "pairing",
                                                   spec.unit, "games")
             and not c.endswith(("_lo", "_hi"))]
    return table.select("players", "variant", "pairing", spec.unit, "games",
                        *(pl.col(c).round(2) for c in names))


def build(path, rs, ctx) -> ExtraSection | None:
    from sim.core.game import resolve_game

    spec = resolve_game(rs.game).curves
    if spec is None:
        return None
    groups, missing = group_sums(rs)
    title = f"The game's pace, {spec.unit} by {spec.unit}"
    if not groups:
        return ExtraSection(
            name="curves", title=title, order=20,
            description=f"These runs hold no per-{spec.unit} sums: they were played before "
                        f"the engine recorded them, or by search players (whose games record "
                        f"none). Run them again with the default players to see the pace.")
    series = {c.name: c for key in groups for c in spec.series(key[0])}
    table = curves_table(spec, groups)
    description = (
        f"Each curve's mean {spec.unit} by {spec.unit} over the games still running at that "
        f"{spec.unit}, with its 95 % band (the shaded area), per player count; {spec.unit} "
        f"0 is the state after setup. The curves: "
        + "; ".join(f"{c.name}: {c.words}" for c in series.values())
        + f". The bottom row is the share of games still running: late {spec.unit}s average "
        f"over the long games only. The figure ends where fewer than {MIN_GAMES} games (or "
        f"{100 * MIN_SHARE:g} % of them) still run; curves.csv goes on to the last "
        f"{spec.unit} any game reached, with each mean's interval (<curve>_lo, <curve>_hi) "
        "and the games it averages (games).")
    if missing:
        description += (f" {len(missing)} run(s) hold no per-{spec.unit} sums (older runs, "
                        "or search players) and are left out: " + ", ".join(missing[:3])
                        + (", ..." if len(missing) > 3 else "") + ".")
    if len(groups) > MAX_GROUPS:
        description += f" The figure shows the first {MAX_GROUPS} groups; the table has all."
    return ExtraSection(name="curves", title=title, description=description, table=table,
                        display=display_table(spec, table), png=plot(spec, groups), order=20)


ALWAYS.append(build)

