"""Destination mix of each strategy: where its team sends the customers it wins (P2P-R2d)."""
from __future__ import annotations

import polars as pl

from sim.games.peer_to_peer.report_metrics._common import keys, sort_groups
from sim.core.plots import COLORS, MAX_PANELS, new_figure
from sim.core.report_metric import Context, Finding, Metric, collect, columns, lazy
from sim.core.stats import ratio_ci, t_interval
from sim.core.wording import pct, plural

DESTS = ("score", "venture", "deck")


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    g = keys(ctx)
    rows = []
    for team, suffix, strat in (("A", "a", "strategy_a"), ("B", "b", "strategy_b")):
        sub = lazy(games) if team == "A" else lazy(games).filter(pl.col("players") >= 2)
        total = sum(pl.col(f"sent_{d}_{suffix}").cast(pl.Float64) for d in DESTS)
        aggs = [pl.len().cast(pl.Int64).alias("games"),
                (pl.col(strat).max() if strat in columns(games) else pl.lit(team)).alias("strategy"),
                total.sum().alias("sy"), (total * total).sum().alias("syy")]
        for d in DESTS:       # one streamed pass per team for every destination
            x = pl.col(f"sent_{d}_{suffix}").cast(pl.Float64)
            aggs += [x.sum().alias(f"sx|{d}"), (x * x).sum().alias(f"sxx|{d}"),
                     (x * total).sum().alias(f"sxy|{d}"), x.mean().alias(f"sent_mean|{d}"),
                     x.std().alias(f"_sd|{d}")]
        agg = collect(sub.group_by(g).agg(aggs))
        for d in DESTS:
            part = agg.select(*g, "games", "strategy",
                              *[pl.col(f"{c}|{d}").alias(c) for c in ("sx", "sxx", "sxy")],
                              "sy", "syy", pl.col(f"sent_mean|{d}").alias("sent_mean"),
                              pl.col(f"_sd|{d}").alias("_sd"))
            rows.append(part.with_columns(pl.lit(team).alias("team"), pl.lit(d).alias("destination")))
    t = pl.concat(rows, how="vertical_relaxed")
    r, lo, hi = ratio_ci(t["sx"].to_numpy(), t["sxx"].to_numpy(), t["sxy"].to_numpy(),
                         t["sy"].to_numpy(), t["syy"].to_numpy(), t["games"].to_numpy(), ctx.z)
    _, mlo, mhi = t_interval(t["sent_mean"].to_numpy(), t["_sd"].fill_null(float("nan")).to_numpy(),
                             t["games"].to_numpy())
    t = t.with_columns(pl.Series("share_rate", r), pl.Series("share_lo", lo), pl.Series("share_hi", hi),
                       pl.Series("sent_lo", mlo), pl.Series("sent_hi", mhi),
                       pl.col("sx").cast(pl.Int64).alias("customers"),
                       pl.col("sy").cast(pl.Int64).alias("customers_won"))
    t = t.with_columns(pl.col("destination").replace_strict({d: i for i, d in enumerate(DESTS)},
                                                            return_dtype=pl.Int8).alias("_d"))
    t = sort_groups(t, ctx, "team", "_d")
    return t.select(*g, "team", "strategy", "destination", "games", "customers", "customers_won",
                    "share_rate", "share_lo", "share_hi", "sent_mean", "sent_lo", "sent_hi")


def findings(table: pl.DataFrame, ctx: Context) -> list[Finding]:
    out = []
    for (players, pairing, comp, team, strategy), part in table.group_by(
            *keys(ctx), "team", "strategy", maintain_order=True):
        if part["customers_won"][0] == 0:
            continue
        mix = ", ".join(f"{pct(r['share_rate'])} to {r['destination']} ({pct(r['share_lo'])}–"
                        f"{pct(r['share_hi'])})" for r in part.iter_rows(named=True))
        comp_txt = f", {comp}" if comp != "n/a" else ""
        out.append(Finding("destinations", "info",
                           f"{plural(players, 'player')}, {pairing}{comp_txt}: team {team} ({strategy}) sends "
                           f"the customers it wins {mix}; 95 % delta-method intervals with the game "
                           "as the unit."))
    return out


def plot(table: pl.DataFrame, games: pl.DataFrame, ctx: Context):
    if table.height == 0:
        return None
    sides = table.select(*keys(ctx), "team", "strategy", "games").unique(maintain_order=True)
    sides = sides.head(MAX_PANELS * 4)
    fig, axes = new_figure(1, panel_height=0.35 * sides.height + 1.5)
    ax = axes[0]
    labels, left = [], [0.0] * sides.height
    for j, d in enumerate(DESTS):
        vals = []
        for r in sides.iter_rows(named=True):
            row = table.filter((pl.col("players") == r["players"]) & (pl.col("pairing") == r["pairing"])
                               & (pl.col("variant") == r["variant"])
                               & (pl.col("team") == r["team"]) & (pl.col("destination") == d))
            v = row["share_rate"][0] * 100 if row.height else 0.0
            vals.append(0.0 if v != v else v)
        ax.barh(range(sides.height), vals, left=left, color=COLORS[j], label=d)
        left = [a + b for a, b in zip(left, vals)]
    for r in sides.iter_rows(named=True):
        comp = f" {r['variant']}" if r["variant"] != "n/a" else ""
        labels.append(f"{r['players']}p{comp} {r['team']}: {r['strategy']} (n={r['games']:,})")
    ax.set_yticks(range(sides.height))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("share of customers won (%)")
    ax.set_ylabel("team: strategy (n = games)")
    ax.set_title("Destination mix of each strategy", fontsize=10)
    ax.legend(fontsize=8, ncols=3, loc="lower right")
    return fig


METRIC = Metric(
    name="destinations",
    title="Destination mix of each strategy (score / venture / deck)",
    requires=("players", "sent_score_a", "sent_venture_a", "sent_deck_a",
              "sent_score_b", "sent_venture_b", "sent_deck_b"),
    compute=compute,
    findings=findings,
    plot=plot,
    order=100,
    description=("For each team and its strategy: of all customers the team won, the share it "
                 "sent to its score pile, to a venture and into its group deck (a ratio of sums; "
                 "95 % delta-method interval with the game as the unit, since customers in one "
                 "game are not independent), and the mean number per game (t interval)."),
)
