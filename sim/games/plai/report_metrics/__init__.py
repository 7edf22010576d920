"""PLAI's report metrics: one module per metric, each with ``METRIC = Metric(...)``; the
game's ``Game.report_metrics`` names this package (see
``sim/games/peer_to_peer/report_metrics/__init__.py`` for how to add one)."""
