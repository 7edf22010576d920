"""Per card: where it ended the game (scored, venture, group deck, unhappy, never dealt)."""
from __future__ import annotations

import polars as pl

from sim.games.peer_to_peer.report_metrics._common import keys, sort_groups
from sim.core.report_metric import Context, Metric, collect, columns, lazy
from sim.core.stats import with_wilson

# fate codes (data contract) grouped into what a designer asks about
FATES = (("scored", (3, 4)), ("venture", (5, 6)), ("group_deck", (7, 8)), ("unhappy", (2,)),
         ("never_dealt", (0,)), ("row", (1,)), ("out", (9,)))
ALWAYS = ("scored", "venture", "group_deck", "unhappy", "never_dealt")


def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    g = keys(ctx)
    fate_cols = [c for c in columns(games) if c.startswith("fate_")]
    aggs = []
    for c in fate_cols:
        aggs.append(pl.col(c).is_not_null().sum().cast(pl.Int64).alias(f"{c}|games"))
        aggs += [pl.col(c).is_in(list(codes)).sum().cast(pl.Int64).alias(f"{c}|{name}")
                 for name, codes in FATES]
    wide = collect(lazy(games).group_by(g).agg(aggs))
    long = wide.unpivot(index=g, variable_name="_v", value_name="count")
    long = long.with_columns(pl.col("_v").str.split_exact("|", 1).struct.rename_fields(["_c", "fate"])
                             ).unnest("_v")
    n = long.filter(pl.col("fate") == "games").select(*g, "_c", pl.col("count").alias("games"))
    long = long.filter(pl.col("fate") != "games").join(n, on=[*g, "_c"])
    # drop the rare categories (row, out) where no card ever had them
    seen = long.group_by("fate").agg(pl.col("count").sum())
    keep = set(ALWAYS) | {f for f, s in seen.iter_rows() if s > 0}
    long = long.filter(pl.col("fate").is_in(list(keep)))
    long = long.with_columns(pl.col("_c").str.slice(len("fate_")).alias("card_id")).drop("_c")
    index = {cid: i for i, cid in enumerate(ctx.card_ids)}
    long = long.with_columns(
        pl.col("card_id").replace_strict(index, default=len(index), return_dtype=pl.Int64).alias("_i"),
        pl.col("card_id").map_elements(ctx.card_name, return_dtype=pl.Utf8).alias("card_name"),
        pl.col("fate").replace_strict({f: i for i, (f, _) in enumerate(FATES)}, return_dtype=pl.Int8).alias("_f"))
    long = sort_groups(long, ctx, "_i", "card_id", "_f")
    long = long.select(*g, "card_id", "card_name", "fate", "games", "count")
    return with_wilson(long, "count", "games", prefix="", z=ctx.z)


def display(table: pl.DataFrame, ctx: Context) -> pl.DataFrame:
    """One row per card and group, one column per fate: rate % [95 % Wilson interval]."""
    if table.height == 0:
        return table
    cell = table.with_columns(
        pl.format("{} [{}–{}]", (pl.col("rate") * 100).round(1), (pl.col("lo") * 100).round(1),
                  (pl.col("hi") * 100).round(1)).alias("cell"))
    wide = cell.pivot(on="fate", index=[*keys(ctx), "card_id", "card_name", "games"], values="cell")
    return wide.rename({c: f"{c} %" for c in wide.columns if c in dict(FATES)})


METRIC = Metric(
    name="card_fate",
    title="Per card: fate at the end of the game",
    requires=("players", "fate_*"),
    compute=compute,
    display=display,
    order=90,
    description=("For each card, the share of games in which it ended scored (either team's "
                 "score pile), in a venture, in a team's group deck/hand/discard (S cards, and "
                 "customers developed into the deck), unhappy, or never dealt from the customer "
                 "deck; 'row' (still waiting) and 'out' (solo: team B's S cards) appear when they "
                 "occur. Wilson intervals per card and fate."),
)
