"""PLAI strategies: one file each; see sim/strategy.py."""
