"""The report's "Why everyone loses" section, for a game whose ``Game.why_lose`` replays its
all-lose games (Peer-to-Peer: sim/games/peer_to_peer/why_lose.py).

Per run, up to SAMPLE all-lose games (the lowest game indices, so the choice does not
depend on the outcome of anything else) are replayed from the run's manifest (the same
seed, cards, rules and strategies: sim.runs.setup.configure_from_manifest, below this
layer); a replay that does not end in all-lose is reported, not used. Shown per player
count: the unhappy customers by value and domain, their wait in the row, and the share
that no team's hand could have assisted (a ratio over games, the game as the unit:
delta-method interval, sim.core.stats.ratio_ci; waits: t interval over customers).
"""
from __future__ import annotations

import numpy as np
import polars as pl

from reports.sections import ALWAYS, ExtraSection
from sim.core.errors import UserError
from sim.core.report_metric import Answer
from sim.core.stats import ratio_ci, t_interval

SAMPLE = 300


def replayed(rs, sample: int = SAMPLE) -> tuple[pl.DataFrame, list[str]]:
    """(unhappy customers of the replayed all-lose games with players and variant, notes)."""
    from sim.core.game import resolve_game
    from sim.runs.setup import configure_from_manifest

    why = resolve_game(rs.game).why_lose
    column = resolve_game(rs.game).outcome_column
    parts, notes = [], []
    for k, run in enumerate(rs.runs):
        lost = (rs.games.filter((pl.col("run") == k) & (pl.col(column) == why.code))
                .select("game_index").bottom_k(sample, by="game_index")
                .collect(engine="streaming")["game_index"].sort().to_list())
        if not lost:
            continue
        try:
            config = configure_from_manifest(run.manifest)
        except (UserError, KeyError) as exc:
            notes.append(f"{run.path}: why-everyone-loses replay skipped (cannot rebuild the "
                         f"run's configuration: {exc})")
            continue
        table = why.replay(config, int(run.manifest["seed"]), lost)
        if table.height and (table["winner"] != why.code).any():
            notes.append(f"{run.path}: a replayed game did not end as stored; its why-everyone-"
                         "loses numbers are left out (was the simulator changed?)")
            continue
        parts.append(table.with_columns(pl.lit(run.players, dtype=pl.Int64).alias("players"),
                                        pl.lit(run.variant).alias("variant"),
                                        pl.lit(len(lost), dtype=pl.Int64).alias("_replayed")))
    if not parts:
        return pl.DataFrame(), notes
    return pl.concat(parts, how="vertical_relaxed"), notes


def summary(customers: pl.DataFrame) -> pl.DataFrame:
    """Per players and variant: games replayed, unhappy customers, mean wait [t], the share
    no hand could reach [ratio over games]."""
    rows = []
    for (players, variant), part in customers.group_by("players", "variant", maintain_order=True):
        per_game = part.group_by("game_index").agg(pl.len().alias("n"),
                                                   pl.col("unreachable").sum().alias("u"))
        x, y = per_game["u"].cast(pl.Float64).to_numpy(), per_game["n"].cast(pl.Float64).to_numpy()
        r, lo, hi = ratio_ci(x.sum(), (x * x).sum(), (x * y).sum(), y.sum(), (y * y).sum(),
                             len(x))
        w = part["wait"].cast(pl.Float64).to_numpy()
        wm, wlo, whi = t_interval(w.mean(), w.std(ddof=1) if w.size > 1 else float("nan"), w.size)
        top_value = part.group_by("value").len().sort("len", descending=True).row(0)
        high = part.filter(pl.col("value") >= 10).height / part.height
        rows.append({"players": players, "variant": variant,
                     "games_replayed": int(part["_replayed"][0]),
                     "unhappy_customers": part.height,
                     "unreachable_rate": float(r), "unreachable_lo": float(lo),
                     "unreachable_hi": float(hi),
                     "wait_mean": float(wm), "wait_lo": float(wlo), "wait_hi": float(whi),
                     "value_10_plus_share": high, "most_common_value": int(top_value[0])})
    return pl.DataFrame(rows).sort("players", "variant")


def plot(customers: pl.DataFrame) -> bytes | None:
    """Per player count: unhappy customers by value, stacked by domain, and the share of
    each value no hand could reach."""
    from sim.core.plots import COLORS, Figure, FigureCanvasAgg, to_png

    groups = customers.select("players", "variant").unique().sort("players", "variant").rows()
    if not groups:
        return None
    fig = Figure(figsize=(9, 2.8 * len(groups) + 0.4), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(groups), 2, squeeze=False)
    domains = sorted(customers["domain"].unique().to_list())
    values = sorted(customers["value"].unique().to_list())
    for (players, variant), (left, right) in zip(groups, axes):
        part = customers.filter((pl.col("players") == players) & (pl.col("variant") == variant))
        label = f"{players} players" + (f", {variant}" if variant != "n/a" else "")
        bottom = np.zeros(len(values))
        for j, d in enumerate(domains):
            counts = part.filter(pl.col("domain") == d).group_by("value").len()
            c = dict(counts.iter_rows())
            h = np.array([c.get(v, 0) for v in values], dtype=float)
            left.bar(values, h, bottom=bottom, color=COLORS[j % len(COLORS)], label=d)
            bottom += h
        left.set_xlabel("customer value")
        left.set_ylabel("unhappy customers")
        left.set_title(f"Unhappy customers by value and domain: {label} "
                       f"(n = {part.height:,})", fontsize=9)
        left.legend(fontsize=7)
        share = part.group_by("value").agg(pl.col("unreachable").mean().alias("s"), pl.len())
        s = dict((v, (sh, n)) for v, sh, n in share.iter_rows())
        right.bar(values, [100 * s.get(v, (0, 0))[0] for v in values], color="#7f7f7f")
        right.set_ylim(0, 100)
        right.set_xlabel("customer value")
        right.set_ylabel("% no hand could assist")
        right.set_title(f"Unreachable by any hand (when both teams passed): {label}", fontsize=9)
        for ax in (left, right):
            ax.grid(axis="y", alpha=0.3)
    return to_png(fig)


def build(path, rs, ctx) -> ExtraSection | None:
    from sim.core.game import resolve_game

    why = resolve_game(rs.game).why_lose
    if why is None or "run" not in rs.columns:
        return None
    customers, notes = replayed(rs)
    if customers.height == 0:
        return None
    table = summary(customers)
    answers = []
    for r in table.iter_rows(named=True):
        where = f"{r['players']} players" + (f", {r['variant']}" if r["variant"] != "n/a" else "")
        answers.append(Answer(
            "Why does everyone lose? (share of unhappy customers no hand could assist)", where,
            f"{100 * r['unreachable_rate']:.0f} % could not have been assisted by any hand; "
            f"they waited {r['wait_mean']:.1f} rounds; {100 * r['value_10_plus_share']:.0f} % "
            f"are worth 10 or more ({r['games_replayed']:,} all-lose games replayed)", "info",
            r["unreachable_rate"], r["unreachable_lo"], r["unreachable_hi"],
            players=r["players"], order=31))
    n = int(table["games_replayed"].sum())
    description = (
        f"The unhappy customers of up to {SAMPLE} all-lose games per run ({n:,} replayed in "
        "all, the lowest game indices), replayed from each run's manifest: by value and domain, "
        "how long they waited in the row, and the share that no team's hand could legally have "
        "assisted in the round they turned unhappy, once both teams passed (with the team's "
        "unused effects): those could not have been saved by any play that round. Shares are "
        "ratios over games (the game is the unit, delta-method interval); waits have t "
        "intervals over customers.")
    if notes:
        description += " " + " ".join(notes)
    return ExtraSection(name="why_lose", title="Why everyone loses", description=description,
                        table=table, png=plot(customers), answers=answers, order=10)

ALWAYS.append(build)
