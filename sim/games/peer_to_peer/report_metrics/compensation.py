"""Side-by-side comparison of odd_team_compensation modes (3 and 5 players)."""
from __future__ import annotations

import polars as pl

from sim.games.peer_to_peer.report_metrics._common import (ALL_LOSE, DRAW, WIN_A, WIN_B, add_verdict, judged)
from sim.core.plots import MAX_PANELS, grouped_points, new_figure, threshold_band
from sim.core.report_metric import Context, Finding, Metric, columns, rate_table
from sim.core.stats import diff_ci, with_wilson
from sim.core.wording import pp

MODE_ORDER = ("extra_venture", "extra_venture_empty", "none")


def _mode_rank(mode: str) -> tuple[int, str]:
    return (MODE_ORDER.index(mode) if mode in MODE_ORDER else len(MODE_ORDER), mode)


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    odd = pl.col("players").is_in([3, 5]) & (pl.col("variant") != "n/a")
    t = rate_table(games, ctx, {n: pl.col("winner") == c for n, c in
                                (("a_wins", WIN_A), ("b_wins", WIN_B), ("draws", DRAW),
                                 ("all_lose", ALL_LOSE))}, {},
                   by=("players", "pairing", "variant"), where_expr=odd,
                   extra=[pl.col(c).max() for c in ("seats_b",) if c in columns(games)])
    # keep only (players, pairing) with at least two modes: that is the comparison (the
    # rates come after it, and after the decisive count, in the table)
    t = t.with_columns(pl.col("variant").n_unique().over("players", "pairing").alias("_modes"))
    t = t.filter(pl.col("_modes") >= 2).drop("_modes")
    t = t.with_columns((pl.col("a_wins") + pl.col("b_wins")).alias("decisive"))
    for stem, col in (("a_win", "a_wins"), ("b_win", "b_wins"), ("draw", "draws"), ("all_lose", "all_lose")):
        t = with_wilson(t, col, "games", prefix=f"{stem}_", z=ctx.z)
    t = with_wilson(t, "a_wins", "decisive", prefix="a_share_", z=ctx.z)
    t = add_verdict(t, "a_share", 0.5, ctx)
    # difference of A's share of decisive games against the reference mode (Newcombe)
    ref_mode, d, lo, hi = [], [], [], []
    rows = t.to_dicts()
    for r in rows:
        peers = [p for p in rows if p["players"] == r["players"] and p["pairing"] == r["pairing"]]
        ref = min(peers, key=lambda p: _mode_rank(p["variant"]))
        ref_mode.append(ref["variant"])
        dd, ll, hh = diff_ci(r["a_wins"], r["decisive"], ref["a_wins"], ref["decisive"], ctx.z)
        if ref is r:
            dd = ll = hh = float("nan")
        d.append(dd), lo.append(ll), hi.append(hh)
    t = t.with_columns(pl.Series("reference_mode", ref_mode, dtype=pl.Utf8),
                       pl.Series("vs_reference_diff", d, dtype=pl.Float64),
                       pl.Series("vs_reference_lo", lo, dtype=pl.Float64),
                       pl.Series("vs_reference_hi", hi, dtype=pl.Float64))
    if t.height:
        t = t.with_columns(pl.col("variant").map_elements(lambda m: _mode_rank(m)[0],
                                                               return_dtype=pl.Int64).alias("_r"))
        t = t.sort("players", "pairing", "_r", "variant").drop("_r")
    return t


def findings(table: pl.DataFrame, ctx: Context) -> list[Finding]:
    if table.height == 0:
        return [Finding("compensation", "info",
                        "No comparison of odd_team_compensation modes: it needs runs of the same "
                        "3- or 5-player pairing with at least two different modes.")]
    out = []
    for (players, pairing), part in table.group_by("players", "pairing", maintain_order=True):
        where = f"{players} players, {pairing}, {{}}"
        for row in part.iter_rows(named=True):
            f = judged("compensation", where.format(row["variant"]),
                       "team A's (the larger team's) share of the games won by a team",
                       row["a_share_rate"], row["a_share_lo"], row["a_share_hi"], row["decisive"], ctx,
                       centre=0.5, centre_words="50 %", method="Wilson",
                       above_words="the larger team A is favoured",
                       below_words="the smaller team B is favoured")
            text = f.text
            if row["reference_mode"] != row["variant"] and row["vs_reference_diff"] == row["vs_reference_diff"]:
                text += (f" Against {row['reference_mode']} the share changes by "
                         f"{pp(row['vs_reference_diff'])} (95 % Newcombe interval "
                         f"{pp(row['vs_reference_lo'])} to {pp(row['vs_reference_hi'])}).")
            out.append(Finding("compensation", f.level, text))
    return out


def plot(table: pl.DataFrame, games: pl.DataFrame, ctx: Context):
    if table.height == 0:
        return None
    groups = table.select("players", "pairing").unique(maintain_order=True).rows()[:MAX_PANELS]
    fig, axes = new_figure(len(groups))
    for ax, (players, pairing) in zip(axes, groups):
        t = table.filter((pl.col("players") == players) & (pl.col("pairing") == pairing))
        labels = [f"{m}\nn={n:,}" for m, n in zip(t["variant"], t["games"])]
        threshold_band(ax, 50.0, ctx.threshold_pp)
        grouped_points(ax, labels, [
            ("A share of decisive games", t["a_share_rate"], t["a_share_lo"], t["a_share_hi"]),
            ("A win rate", t["a_win_rate"], t["a_win_lo"], t["a_win_hi"]),
            ("B win rate", t["b_win_rate"], t["b_win_lo"], t["b_win_hi"]),
            ("all-lose rate", t["all_lose_rate"], t["all_lose_lo"], t["all_lose_hi"]),
        ], ylabel="% with 95 % Wilson interval", xlabel="odd_team_compensation mode (n = games)")
        ax.set_title(f"Compensation modes, {players} players: {pairing}", fontsize=10)
    return fig


def display(table: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    """The comparison without the raw counts (they stay in the CSV)."""
    return table.drop("a_wins", "b_wins", "draws", "all_lose")


METRIC = Metric(
    name="compensation",
    title="odd_team_compensation modes side by side (3 and 5 players)",
    requires=("winner", "players"),
    compute=compute,
    findings=findings,
    plot=plot,
    display=display,
    order=30,
    description=("For each 3- or 5-player pairing run under two or more odd_team_compensation "
                 "modes: each mode's A win, B win, draw and all-lose rates, team A's share of "
                 "decisive games (Wilson), and the change of that share against the first mode "
                 "(extra_venture when present) with a Newcombe interval."),
)
