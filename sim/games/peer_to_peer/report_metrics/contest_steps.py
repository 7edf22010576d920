"""How contests are decided (P2P-R2c), beside the team answer: per step (a higher card, the
longer list, the `tiebreak` effect, the domain step, the first team marker) its share of
the contests and team A's share of the contests decided there."""
from __future__ import annotations

import polars as pl

from sim.core.report_metric import Context, Finding, Metric, collect, keys, lazy, sort_groups, where
from sim.core.stats import ratio_ci

# (step, the columns of its contests won by team A and team B; None: the rest, the
# contests the longer list decided: contests_unpaired_won under contest_unpaired=longer_wins,
# none under `tied`, whose unpaired contests go on to the next steps)
STEPS = (("higher card", "contests_higher_won"), ("longer list", None),
         ("tiebreak", "contests_tiebreak_won"), ("domain", "contests_domain_won"),
         ("marker", "contests_marker_won"))


def _won(stem: str | None, team: str) -> pl.Expr:
    if stem is not None:
        return pl.col(f"{stem}_{team}").cast(pl.Float64)
    rest = pl.col(f"contests_won_{team}").cast(pl.Float64)
    for _, other in STEPS:
        if other is not None:
            rest = rest - pl.col(f"{other}_{team}").cast(pl.Float64)
    return rest


def _sums(x: pl.Expr, y: pl.Expr, name: str) -> list[pl.Expr]:
    return [x.sum().alias(f"{name}__x"), (x * x).sum().alias(f"{name}__xx"),
            (x * y).sum().alias(f"{name}__xy"), y.sum().alias(f"{name}__y"),
            (y * y).sum().alias(f"{name}__yy")]


def compute(games, ctx: Context) -> pl.DataFrame:
    """One row per group and step: contests decided there (share of all contests) and team
    A's share of them, both ratios over games (the game as the unit, delta method)."""
    frame = lazy(games).filter(pl.col("players") >= 2)
    total = pl.col("contests").cast(pl.Float64)
    aggs = [pl.len().alias("games")]
    for step, stem in STEPS:
        a, b = _won(stem, "a"), _won(stem, "b")
        aggs += _sums(a + b, total, f"{step}|step") + _sums(a, a + b, f"{step}|a")
    t = collect(frame.group_by(keys(ctx)).agg(aggs))
    rows = []
    for r in t.iter_rows(named=True):
        for step, _ in STEPS:
            s = [r[f"{step}|step__{k}"] for k in ("x", "xx", "xy", "y", "yy")]
            share, lo, hi = ratio_ci(s[0], s[1], s[2], s[3], s[4], r["games"])
            w = [r[f"{step}|a__{k}"] for k in ("x", "xx", "xy", "y", "yy")]
            a_share, a_lo, a_hi = ratio_ci(w[0], w[1], w[2], w[3], w[4], r["games"])
            rows.append({**{k: r[k] for k in keys(ctx)}, "step": step, "games": r["games"],
                         "contests": int(s[3]), "decided_here": int(s[0]),
                         "step_rate": share, "step_lo": lo, "step_hi": hi,
                         "a_share_rate": a_share, "a_share_lo": a_lo, "a_share_hi": a_hi})
    order = {step: i for i, (step, _) in enumerate(STEPS)}
    table = pl.DataFrame(rows)
    if table.height == 0:
        return table
    table = table.with_columns(pl.col("step").replace_strict(order, return_dtype=pl.Int8)
                               .alias("_o"))
    return sort_groups(table, ctx, "_o").drop("_o")


def findings(table: pl.DataFrame, ctx: Context) -> list[Finding]:
    """Per group: the step where one team wins the most lopsided share of a sizeable part
    of the contests (at least 5 %)."""
    out = []
    if table.height == 0:
        return out
    for _, part in table.group_by(keys(ctx), maintain_order=True):
        big = part.filter(pl.col("step_rate") >= 0.05)
        if big.height == 0:
            continue
        row = big.with_columns((pl.col("a_share_rate") - 0.5).abs().alias("_d")).sort(
            "_d", descending=True).row(0, named=True)
        team, share = ("A", row["a_share_rate"]) if row["a_share_rate"] >= 0.5 else \
            ("B", 1 - row["a_share_rate"])
        lo, hi = ((row["a_share_lo"], row["a_share_hi"]) if team == "A"
                  else (1 - row["a_share_hi"], 1 - row["a_share_lo"]))
        out.append(Finding("contest_steps", "info", (
            f"{where(row)}: {100 * row['step_rate']:.0f} % of the contests are decided on the "
            f"{row['step']} step, and team {team} wins {100 * share:.1f} % of those (95 % "
            f"interval {100 * lo:.1f} to {100 * hi:.1f}, the game as the unit).")))
    return out


METRIC = Metric(
    name="contest_steps",
    title="How contests are decided",
    requires=("players", "contests", "contests_won_a", "contests_higher_won_a",
              "contests_domain_won_a", "contests_tiebreak_won_a", "contests_marker_won_a"),
    compute=compute,
    findings=findings,
    order=21,
    description=("Every contest (P2P-R2c) is decided at one step: a higher card in the paired "
                 "comparison, the longer list (contest_unpaired=longer_wins), the `tiebreak` "
                 "effect, the domain step (domain_order), or the first team marker. Per step: "
                 "its share of the contests and team A's share of the contests decided there, "
                 "both ratios over games with delta-method 95 % intervals. A team that wins "
                 "most contests at one step points at the cause of a team edge (the swaps in "
                 "'Why: counterfactual replays' measure it)."),
)
