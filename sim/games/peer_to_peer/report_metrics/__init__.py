"""Peer-to-Peer's report metrics: one module per metric, each with ``METRIC = Metric(...)``.

The game's ``Game.report_metrics`` names this package; ``reports.registry`` lists the
modules here whose name does not start with ``_`` (those are helpers). A new metric is one
new file, for example ``sim/games/peer_to_peer/report_metrics/contest_rate.py``::

    import polars as pl
    from sim.core.report_metric import Context, Metric, rate_table

    def compute(games, ctx: Context) -> pl.DataFrame:
        # per group: games, contested (a count), contested_rate / _lo / _hi (Wilson)
        return rate_table(games, ctx, {"contested": pl.col("contests") > 0},
                          {"contested": "contested"})

    METRIC = Metric(name="contest_rate", title="Games with a contest",
                    requires=("contests",), compute=compute, order=110,
                    description="Share of games with at least one contest (Wilson interval).")

``games`` is a polars LazyFrame over the run's parquet parts: aggregate, then ``collect``
(streaming), so the report's memory stays flat in the number of games
(``sim.core.report_metric.rate_table`` does both for a table of counts and their rates). Optional fields:
``findings(table, ctx) -> list[Finding]`` (sentences; use ``sim.core.wording.judge`` for
anything that calls an imbalance), ``plot(table, games, ctx) -> matplotlib Figure | None``
(``sim.core.plots``), ``display(table, ctx)`` for the HTML/Markdown, ``answers(table, ctx)
-> list[Answer]`` for the report's answers-first table. Metric modules import only
``sim.core`` and this game's package, never ``reports`` (the layer above games).
"""
