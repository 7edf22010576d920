"""Studies built from many runs: experiments (schema, run, check), ``--until-ci``
sequential stopping, strategy matchups, autobalance and the Peer-to-Peer conformance check.

Uses sim.core, the games, sim.runs and reports; the API and CLI sit above it.
"""
