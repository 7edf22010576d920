"""Metric plug-ins: one module per metric; ``reports.registry.list_metrics()`` lists them.

Every module here whose name does not start with ``_`` must define ``METRIC``.
A new metric is one new file, for example ``reports/metrics/contest_rate.py``::

    import polars as pl
    from reports.metrics._common import keys, sort_groups
    from reports.registry import Context, Metric
    from sim.core.stats import with_wilson

    def compute(games: pl.DataFrame, ctx: Context) -> pl.DataFrame:
        t = games.group_by(keys(ctx)).agg(pl.len().alias("games"),
                                          (pl.col("contests") > 0).sum().alias("contested"))
        return sort_groups(with_wilson(t, "contested", "games", prefix="contested_"), ctx)

    METRIC = Metric(name="contest_rate", title="Games with a contest",
                    requires=("contests",), compute=compute, order=110,
                    description="Share of games with at least one contest (Wilson interval).")

Optional fields: ``findings(table, ctx) -> list[Finding]`` (sentences; use
``reports.wording.judge`` for anything that calls an imbalance), ``plot(table, games, ctx)
-> matplotlib Figure | None``, ``display(table, ctx) -> polars table`` for the HTML/Markdown.
A metric runs on the games whose ``report_metrics`` hook names it (sim/games/<g>/hooks.py:
add the new name there) and whose tables have its ``requires`` columns.
"""
