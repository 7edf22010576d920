"""Runs: run directories and manifests (rundir), setting up and finishing a run (setup),
the chunk pipeline (runner) and where chunks are played (backends: local, Dask).

Uses sim.core and the games (through the Game protocol); knows nothing of reports or
studies.
"""
