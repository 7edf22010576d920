"""expert: the weights `simulate tune` found by self-play on the default cards and rules.

The weights live in expert.yaml next to this file, exactly as `simulate tune` wrote it
(its `tuned_on` names the command, the card file's SHA-256 and every rule option). Its
one set of weights serves every player count; it was tuned at 4 players. After a change to the default
cards or rules, re-tune and replace expert.yaml (tests/core/test_expert_strategies.py fails
until then).
"""
from pathlib import Path

from sim.core.strategy import shipped

FILE = Path(__file__).resolve().parent / "expert.yaml"
TUNED, STRATEGY = shipped(FILE, game="peer-to-peer", module=__name__)
