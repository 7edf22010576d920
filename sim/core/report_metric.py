"""What a report metric is, for the games that define them (sim/games/<g>/report_metrics/).

A game's metrics live in its own package, one module per metric with a module-level
``METRIC = Metric(...)``; the game's ``Game.report_metrics`` names that package, and
``reports.registry`` collects them from there. This module holds only the data types and
the game-neutral helpers a metric uses (polars and core only; plots come from
``sim.core.plots``, sentences from ``sim.core.wording``), so a game package never imports
the report layer above it.

``compute(games, ctx)`` takes the per-game table and returns a tidy polars table. The
games table is a ``polars.LazyFrame`` over the run's parquet parts (so a report's memory
does not grow with the run): aggregate with ``group_by(...).agg(...)`` and finish with
:func:`collect`. Interval columns follow one naming rule, which the renderers rely on: an
estimate ``<stem>_rate`` (a proportion), ``<stem>_diff`` (a difference of proportions) or
``<stem>_mean`` (a mean) has its 95 % bounds in ``<stem>_lo`` and ``<stem>_hi``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np
import polars as pl

from sim.core.wording import edge_answer, group_label, judge, level_of, verdict

# Every metric groups by these: player count, strategy pairing, and the game's variant
# label of the run (its Game.report_group; Peer-to-Peer: the odd_team_compensation mode at
# 3 and 5 players; "n/a" where a game has no such variant).
GROUP_KEYS = ("players", "pairing", "variant")


@dataclass
class Context:
    """What a metric may know besides the games table."""

    game: str
    threshold_pp: float = 2.0
    z: float = 1.959964
    card_ids: list[str] = field(default_factory=list)     # global card index -> id
    card_names: list[str] = field(default_factory=list)   # global card index -> name
    group_keys: tuple[str, ...] = GROUP_KEYS

    def card_name(self, card_id: str) -> str:
        try:
            return self.card_names[self.card_ids.index(card_id)]
        except (ValueError, IndexError):
            return card_id


@dataclass(frozen=True)
class Finding:
    """One sentence for the report. ``level``: imbalance | undecided | within | info.
    ``tested``: how many tests of the same family this one was judged among (multiple-
    comparison control; 1 for a single test)."""

    metric: str
    level: str
    text: str
    tested: int = 1


@dataclass(frozen=True)
class Answer:
    """One row of the report's answers-first table: a designer question at one group.

    ``verdict``: a sim.core.wording code (above/below/within/small/undecided/no_data) or
    "info".
    ``answer``: the answer in words; ``estimate``/``lo``/``hi`` the number and its 95 %
    interval; ``kind``: "rate" (a proportion), "diff" (a difference) or "mean"."""

    question: str
    where: str
    answer: str
    verdict: str
    estimate: float
    lo: float
    hi: float
    kind: str = "rate"
    players: int | None = None
    order: int = 100
    key: str | None = None          # the question's stable key (answers.json)
    even: float | None = None       # the even point (50 %, 1/players), when it has one
    measure: Any = None             # sim.core.attribution.Measure: replays can explain it
    group: dict = field(default_factory=dict)   # players, pairing, variant of its runs
    causes: tuple = ()              # dicts: attribution.Cause.as_dict, or a split in causes
    stronger: dict | None = None    # the same answer under stronger play (reports.stronger)
    # (games) -> (estimate, lo, hi): the same answer, of the same subject (card, seat, cause),
    # on another games table; None: from ``measure`` (reports.stronger)
    recompute: Any = None


@dataclass(frozen=True)
class Metric:
    name: str                       # file stem and CSV name, e.g. "team_balance"
    title: str                      # section heading
    requires: tuple[str, ...]       # per-game columns needed ("prefix*" = any column with prefix)
    compute: Callable[[Any, Context], pl.DataFrame]   # (games LazyFrame, ctx) -> table
    description: str = ""           # what it measures and how (one paragraph, plain words)
    findings: Optional[Callable[[pl.DataFrame, Context], list[Finding]]] = None
    plot: Optional[Callable[[pl.DataFrame, Any, Context], Any]] = None  # (table, games, ctx) -> Figure | None
    display: Optional[Callable[[pl.DataFrame, Context], pl.DataFrame]] = None    # table shown in HTML/Markdown
    answers: Optional[Callable[[pl.DataFrame, Context], list[Answer]]] = None   # answers-first rows
    order: int = 100                # position in the report (lower first)

    def missing(self, columns: list[str] | tuple[str, ...]) -> str | None:
        """Why this metric cannot run on a table with these columns, or None when it can."""
        cols = set(columns)
        absent = []
        for req in self.requires:
            if req.endswith("*"):
                if not any(c.startswith(req[:-1]) for c in cols):
                    absent.append(req)
            elif req not in cols:
                absent.append(req)
        if absent:
            return "missing column(s): " + ", ".join(absent)
        return None


# ----------------------------------------------------------------------------- helpers
def collect(frame) -> pl.DataFrame:
    """A lazy aggregate as a table, on polars' streaming engine (memory flat in the number
    of games); an eager table passes through."""
    if isinstance(frame, pl.LazyFrame):
        return frame.collect(engine="streaming")
    return frame


def lazy(games) -> pl.LazyFrame:
    return games.lazy() if isinstance(games, pl.DataFrame) else games


def columns(games) -> list[str]:
    return games.collect_schema().names() if isinstance(games, pl.LazyFrame) else list(games.columns)


def schema(games):
    return games.collect_schema() if isinstance(games, pl.LazyFrame) else games.schema


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


def with_family(df: pl.DataFrame, stem: str, centre, ctx: Context) -> pl.DataFrame:
    """Multiple-comparison control over the table's rows as one family (sim.core.multiple,
    Holm): adds ``p_beyond`` (each row's one-sided p of lying beyond centre ± threshold),
    ``p_holm`` (Holm-adjusted), ``called`` (an imbalance the family's control calls) and
    ``tested`` (the family's size). ``centre``: a number or a column name."""
    from sim.core.multiple import ALPHA, family_size, holm, p_beyond

    t = ctx.threshold_pp / 100.0
    centres = df[centre].to_list() if isinstance(centre, str) else [centre] * df.height
    p = [p_beyond(e, lo, hi, c, t) for e, lo, hi, c in
         zip(df[f"{stem}_rate" if f"{stem}_rate" in df.columns else f"{stem}_diff"].to_list(),
             df[f"{stem}_lo"].to_list(), df[f"{stem}_hi"].to_list(), centres)]
    adj = holm(p)
    return df.with_columns(pl.Series("p_beyond", p, dtype=pl.Float64),
                           pl.Series("p_holm", adj, dtype=pl.Float64),
                           pl.Series("called", [bool(a < ALPHA) for a in adj], dtype=pl.Boolean),
                           pl.lit(family_size(p), dtype=pl.Int64).alias("tested"))


def family_kw(row: dict) -> dict:
    """judge()'s family arguments from a row of a ``with_family`` table."""
    if "tested" not in row:
        return {}
    return {"tested": int(row["tested"]), "p_holm": row["p_holm"]}


def where(row: dict) -> str:
    return group_label(row.get("players"), row.get("pairing"), row.get("variant"))


def judged(metric: str, row_where: str, quantity: str, est, lo, hi, n, ctx: Context, **kw) -> Finding:
    code, text = judge(row_where, quantity, est, lo, hi, n, threshold_pp=ctx.threshold_pp, **kw)
    return Finding(metric, level_of(code), text, kw.get("tested", 1))


def n_of(df: pl.DataFrame, col: str = "games") -> str:
    return f"n = {int(df[col].sum()):,}" if df.height else "n = 0"


def rate_table(games, ctx: Context, counts: Mapping[str, pl.Expr],
               rates: Mapping[str, str | tuple[str, str]], *, by: Sequence[str] | None = None,
               where_expr: pl.Expr | None = None, extra: Sequence[pl.Expr] = ()) -> pl.DataFrame:
    """The table of a metric made of rates: per group (``by``, default the group keys;
    only the games ``where_expr`` keeps) the number of ``games``, a count per ``counts``
    entry (name -> a per-game expression, summed: a condition counts the games it holds
    in), both Int64, then any ``extra`` aggregations as they are; and per ``rates`` entry
    (stem -> the successes column, out of ``games``, or (successes, trials)) the rate with
    its Wilson interval, ``<stem>_rate``, ``<stem>_lo``, ``<stem>_hi`` (in that order, at
    ``ctx.z``). Aggregated lazily; rows sorted by the group keys."""
    from sim.core.stats import with_wilson

    frame = lazy(games)
    if where_expr is not None:
        frame = frame.filter(where_expr)
    t = collect(frame.group_by(list(by) if by is not None else keys(ctx)).agg(
        pl.len().cast(pl.Int64).alias("games"),
        *[expr.sum().cast(pl.Int64).alias(name) for name, expr in counts.items()], *extra))
    for stem, of in rates.items():
        successes, trials = (of, "games") if isinstance(of, str) else of
        t = with_wilson(t, successes, trials, prefix=f"{stem}_", z=ctx.z)
    return sort_groups(t, ctx)


def value_counts(games, column: str, ctx: Context) -> pl.DataFrame:
    """(group keys..., ``column``, ``count``): the distribution of a per-game column, per
    group, aggregated lazily (a histogram needs no more than this)."""
    g = keys(ctx)
    return collect(lazy(games).group_by(*g, column).agg(pl.len().alias("count"))).sort(*g, column)


def length_histograms(games, column: str, unit: str, ctx: Context | None = None):
    """One panel per strategy pairing: the distribution of ``column`` (rounds or turns) per
    player count (and variant where it applies), as step histograms from per-value counts."""
    from sim.core.plots import COLORS, MAX_PANELS, new_figure

    ctx = ctx or Context(game="")
    counts = value_counts(games, column, ctx)
    if counts.height == 0:
        return None
    pairings = counts["pairing"].unique().sort().to_list()[:MAX_PANELS]
    fig, axes = new_figure(len(pairings))
    lo, hi = int(counts[column].min()), int(counts[column].max())
    bins = np.arange(lo - 0.5, hi + 1.5, 1.0) if hi - lo <= 80 else 60
    for ax, pairing in zip(axes, pairings):
        sub = counts.filter(pl.col("pairing") == pairing)
        groups = sub.select("players", "variant").unique().sort("players", "variant").rows()
        for j, (players, comp) in enumerate(groups):
            r = sub.filter((pl.col("players") == players) & (pl.col("variant") == comp))
            values, weights = r[column].to_numpy(), r["count"].to_numpy().astype(float)
            n = int(weights.sum())
            label = f"{players}p" + (f" {comp}" if comp != "n/a" else "") + f" (n={n:,})"
            ax.hist(values, bins=bins, weights=weights, density=True, histtype="step", lw=1.5,
                    color=COLORS[j % len(COLORS)], label=label)
        ax.set_xlabel(f"{unit} played")
        ax.set_ylabel("share of games")
        ax.set_title(f"Game length: {pairing}", fontsize=10)
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    return fig


def _nearest(sorted_values: np.ndarray, cum: np.ndarray, n: int, q: float) -> float:
    """polars' ``quantile(q, "nearest")``: the value at index round((n - 1) q) (half away
    from zero) of the sorted games, read off the cumulative counts."""
    idx = int(np.floor((n - 1) * q + 0.5))
    return float(sorted_values[np.searchsorted(cum, idx, side="left")])


def distribution(games, value: pl.Expr, ctx: Context, prefix: str,
                 quantiles: tuple[float, ...] = (0.1, 0.5, 0.9), count_name: str = "games",
                 where_expr: pl.Expr | None = None) -> pl.DataFrame:
    """Per group: the count, mean, standard deviation (n - 1), min, the ``quantiles``
    (polars' "nearest"; 0.5 is the median, which averages the two middle games when their
    number is even, as polars does) and max of an integer-valued per-game ``value``.

    Computed from per-value counts aggregated lazily over the games, so its memory does not
    grow with the run; the numbers are those polars gives on the whole table (the mean and
    standard deviation up to rounding in the last digit)."""
    g = keys(ctx)
    frame = lazy(games)
    if where_expr is not None:
        frame = frame.filter(where_expr)
    counts = collect(frame.group_by(*g, value.alias("_v")).agg(pl.len().alias("_c")))
    counts = counts.filter(pl.col("_v").is_not_null()).sort(*g, "_v")
    names = {q: (f"{prefix}median" if q == 0.5 else f"{prefix}p{round(q * 100)}") for q in quantiles}
    rows = []
    for key, part in counts.group_by(g, maintain_order=True):
        v = part["_v"].cast(pl.Float64).to_numpy()
        c = part["_c"].cast(pl.Int64).to_numpy()
        n = int(c.sum())
        mean = float((v * c).sum() / n)
        sd = float(np.sqrt((c * (v - mean) ** 2).sum() / (n - 1))) if n > 1 else float("nan")
        cum = np.cumsum(c) - 1          # index of the last game holding each value
        row = dict(zip(g, key), **{count_name: n, f"{prefix}mean": mean, f"{prefix}sd": sd,
                                   f"{prefix}min": float(v[0]), f"{prefix}max": float(v[-1])})
        for q in quantiles:
            if q == 0.5 and n % 2 == 0:
                row[names[q]] = (_nearest(v, cum, n, 0.0 + (n // 2 - 1) / (n - 1))
                                 + _nearest(v, cum, n, (n // 2) / (n - 1))) / 2.0
            else:
                row[names[q]] = _nearest(v, cum, n, q)
        rows.append(row)
    schema = {**{k: counts.schema[k] for k in g}, count_name: pl.Int64,
              **{f"{prefix}{s}": pl.Float64 for s in ("mean", "sd", "min", "max")},
              **{names[q]: pl.Float64 for q in quantiles}}
    return pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)


def length_table(games, column: str, ctx: Context, ended: Mapping[str, pl.Expr | None],
                 quantiles: tuple[float, ...] = (0.1, 0.25, 0.5, 0.75, 0.9)) -> pl.DataFrame:
    """A game-length metric's table: per group and per way of ending (``ended``: label ->
    the games it keeps, None for all), the :func:`distribution` of ``column`` (rounds or
    turns) with its mean's Student t interval, rows in the order of ``ended``."""
    from sim.core.stats import with_t_interval

    p = f"{column}_"
    parts = [distribution(games, pl.col(column), ctx, p, quantiles, where_expr=where)
             .with_columns(pl.lit(label).alias("ended")) for label, where in ended.items()]
    t = with_t_interval(pl.concat(parts, how="vertical_relaxed"), f"{p}mean", f"{p}sd", "games",
                        prefix=p)
    cols = [*keys(ctx), "ended", "games", f"{p}mean", f"{p}lo", f"{p}hi", f"{p}sd", f"{p}min",
            *[f"{p}median" if q == 0.5 else f"{p}p{round(q * 100)}" for q in quantiles], f"{p}max"]
    order = {label: i for i, label in enumerate(ended)}
    t = t.select(cols).with_columns(
        pl.col("ended").replace_strict(order, return_dtype=pl.Int8).alias("_e"))
    return sort_groups(t, ctx, "_e").drop("_e")


def answer_of(row: dict, question: str, stem: str, centre: float, ctx: Context, *,
              above: str, below: str, kind: str = "rate", order: int = 100,
              key: str | None = None, measure: Any = None,
              furthest_of: tuple[int, int, float, int] | None = None) -> Answer:
    """An answers-first row from a table row with ``<stem>_rate|_diff``, ``<stem>_lo`` and
    ``<stem>_hi`` (and, from ``with_family``, ``called``/``p_holm``/``tested``), in the
    words of sim.core.wording.edge_answer (``above``/``below``: whom an edge favours, "to
    team A"): "balanced (within ±T pp)", "a small edge to X (N points), inside the ±T band",
    "an edge to X of N points, beyond the ±T band" (called: the whole interval beyond the
    threshold, after the family's correction where there is one), "not decided ...", or
    "no data". ``key`` and ``measure`` (sim.core.attribution.Measure) let the report
    explain and check the answer (answers.json). ``furthest_of`` (successes, n, fair share,
    places): the row is the place furthest from its fair share, judged as such
    (sim.core.wording.edge_answer)."""
    est = row.get(f"{stem}_rate", row.get(f"{stem}_diff"))
    lo, hi = row[f"{stem}_lo"], row[f"{stem}_hi"]
    code, words = edge_answer(est, lo, hi, centre, ctx.threshold_pp, above, below,
                              furthest_of)
    if code in ("above", "below") and row.get("called", True) is False:
        code = "undecided"
        words = f"not called after Holm's correction: {words}"
    tested = int(row.get("tested") or 1)
    if tested > 1:
        words += f" ({tested} tested, Holm)"
    return Answer(question=question, where=where(row), answer=words, verdict=code,
                  estimate=est, lo=lo, hi=hi, kind=kind, players=row.get("players"), order=order,
                  key=key, even=centre, measure=measure,
                  group={k: row.get(k) for k in GROUP_KEYS if k in row})


def in_group(games, group: Mapping[str, Any]):
    """The games of one answer's group (its players, pairing and variant present)."""
    frame = lazy(games)
    names = columns(frame)
    for key, value in group.items():
        if key in names and value is not None:
            frame = frame.filter(pl.col(key) == value)
    return frame

