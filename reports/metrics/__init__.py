"""Metric plug-ins: each module here (not starting with "_") defines METRIC = Metric(...).

See reports.registry for the contract; reports.registry.list_metrics() lists them.
"""
