"""``python -m sim.cli``: the same as ``simulate``."""
from sim.cli import main

main()
