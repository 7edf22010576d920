"""expert: the weights `simulate tune` found by self-play on PLAI's default cards and rules.

The weights live in expert.yaml next to this file, exactly as `simulate tune` wrote it
(its `tuned_on` names the command, the card file's SHA-256 and every rule option). One
file serves every player count (2-5): a strategy's weight vector is built without the
player count (Strategy.vector), and the file's `players` says where it was tuned; it beats
every other shipped strategy at 2, 3, 4 and 5 players (README, "Strong play"). After a
change to the default cards or rules, re-tune and replace expert.yaml
(tests/test_expert_strategy.py fails until then).
"""
from pathlib import Path

from sim.core.strategy import Strategy
from sim.core.strategy_file import read

FILE = Path(__file__).resolve().parent / "expert.yaml"
TUNED = read(str(FILE), game="plai", field_name="strategies/plai/expert.yaml")


def _weights(p):
    return dict(TUNED.weight_values)


STRATEGY = Strategy(
    name="expert",
    summary=f"weights tuned by simulate tune (self-play, default cards and rules, "
            f"{'/'.join(map(str, TUNED.players)) or '?'} players)",
    weights=_weights,
)
