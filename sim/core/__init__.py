"""The bottom layer: what every other layer may use and that uses nothing above it.

User errors, CSV and YAML reading, rule options, strategy specs, interval statistics,
user-input parsing (counts, seeds, threads), the Game protocol and registry, and the
kernels every game shares (rng, lanes, the no-alias compiler pipeline).

Layers, each importing only from the ones before it (tests/docs/test_layers.py):
``sim.core`` <- ``sim.games`` / ``strategies`` <- ``sim.runs`` <- ``reports`` <-
``sim.studies`` <- ``sim.api`` <- ``sim.cli``.
"""
