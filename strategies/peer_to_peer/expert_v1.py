"""expert-v1: the first shipped expert, tuned by `simulate tune` (self-play, CMA-ES).

Its weights live in expert-v1.yaml next to this file, exactly as `simulate tune` wrote
them. It stays available under this name so every result made with the expert of that
time reproduces: ``--team-a expert-v1``. docs/strategies.md says how a new default is
made and measured against it.
"""
from pathlib import Path

from sim.core.strategy import shipped

FILE = Path(__file__).resolve().parent / "expert-v1.yaml"
TUNED, STRATEGY = shipped(FILE, game="peer-to-peer", name="expert-v1", module=__name__)
