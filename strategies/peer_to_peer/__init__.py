"""Peer-to-Peer strategies: one file each; see sim/strategy.py."""
