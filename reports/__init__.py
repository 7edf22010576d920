"""Balance reports: metrics, statistics, plots, rendering.

API: ``reports.build.write_report(run_dirs, out_dir, threshold_pp=2.0, allow_mixed=False)``.
Interval statistics: ``sim.core.stats`` (imported by the engine's summary, so keep this
package's import light: nothing heavy is imported here).
Metrics: one module per metric in ``reports/metrics/``; ``reports.registry.list_metrics()``.
"""
