"""Helpers shared by the Peer-to-Peer metric modules (not a metric itself)."""
from __future__ import annotations

import numpy as np
import polars as pl

from reports.registry import Context, Finding
from reports.wording import group_label, judge, level_of, verdict

# winner codes: the game's own (sim/games/peer_to_peer/constants.py; its outcome_codes hook)
from sim.games.peer_to_peer.constants import (ALL_LOSE, DRAW, SOLO_WIN, TIMEOUT,  # noqa: F401
                                              WIN_A, WIN_B)

# players per team by player count (P2P-S1); team A is the larger team
TEAM_PLAYERS = {1: (1, 0), 2: (1, 1), 3: (2, 1), 4: (2, 2), 5: (3, 2), 6: (3, 3)}


def keys(ctx: Context) -> list[str]:
    return list(ctx.group_keys)


def sort_groups(df: pl.DataFrame, ctx: Context, *extra: str) -> pl.DataFrame:
    cols = [c for c in (*ctx.group_keys, *extra) if c in df.columns]
    return df.sort(cols) if cols and df.height else df


def add_verdict(df: pl.DataFrame, stem: str, centre: float, ctx: Context,
                column: str = "verdict") -> pl.DataFrame:
    """Verdict column from ``<stem>_lo``/``<stem>_hi`` against ``centre`` ± threshold."""
    codes = [verdict(lo - centre, hi - centre, ctx.threshold_pp)
             for lo, hi in zip(df[f"{stem}_lo"].to_list(), df[f"{stem}_hi"].to_list())]
    return df.with_columns(pl.Series(column, codes, dtype=pl.Utf8))


def where(row: dict) -> str:
    return group_label(row.get("players"), row.get("pairing"), row.get("compensation"))


def judged(metric: str, row_where: str, quantity: str, est, lo, hi, n, ctx: Context, **kw) -> Finding:
    code, text = judge(row_where, quantity, est, lo, hi, n, threshold_pp=ctx.threshold_pp, **kw)
    return Finding(metric, level_of(code), text)


def n_of(df: pl.DataFrame, col: str = "games") -> str:
    return f"n = {int(df[col].sum()):,}" if df.height else "n = 0"


def length_histograms(games: pl.DataFrame, column: str, unit: str):
    """One panel per strategy pairing: the distribution of ``column`` (rounds or turns) per
    player count (and odd-team compensation where it applies), as step histograms."""
    from reports.plots import COLORS, MAX_PANELS, new_figure

    if games.height == 0:
        return None
    games = games.select("pairing", "players", "compensation", column)  # filters copy these only
    pairings = games["pairing"].unique().sort().to_list()[:MAX_PANELS]
    fig, axes = new_figure(len(pairings))
    lo, hi = int(games[column].min()), int(games[column].max())
    bins = np.arange(lo - 0.5, hi + 1.5, 1.0) if hi - lo <= 80 else 60
    for ax, pairing in zip(axes, pairings):
        sub = games.filter(pl.col("pairing") == pairing)
        groups = sub.select("players", "compensation").unique().sort("players", "compensation").rows()
        for j, (players, comp) in enumerate(groups):
            r = sub.filter((pl.col("players") == players) & (pl.col("compensation") == comp))[column].to_numpy()
            label = f"{players}p" + (f" {comp}" if comp != "n/a" else "") + f" (n={r.size:,})"
            ax.hist(r, bins=bins, density=True, histtype="step", lw=1.5,
                    color=COLORS[j % len(COLORS)], label=label)
        ax.set_xlabel(f"{unit} played")
        ax.set_ylabel("share of games")
        ax.set_title(f"Game length: {pairing}", fontsize=10)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    return fig
