"""Balance reports: metrics, statistics, plots, rendering."""
