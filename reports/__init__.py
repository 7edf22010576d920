"""Balance reports: metrics, statistics, plots, rendering.

API: ``reports.build.write_report(run_dirs, out_dir, threshold_pp=2.0, allow_mixed=False)``.
Interval statistics: ``sim.core.stats`` (imported by the engine's summary, so keep this
package's import light: nothing heavy is imported here).
Metrics: each game's own, one module per metric in its package
(``sim/games/<g>/report_metrics/``, named by ``Game.report_metrics``);
``reports.registry.game_metrics(game)``, ``reports.registry.list_metrics()``. Sweep
metrics: each game's ``Game.sweep_metrics`` (``sim/games/<g>/sweep_metrics.py``), used by
``reports.sweep``.
"""
