"""expert: the weights `simulate tune` found by self-play on the default cards and rules.

The weights live in expert.yaml next to this file, exactly as `simulate tune` wrote it
(its `tuned_on` names the command, the card file's SHA-256 and every rule option). One
file serves every player count: a strategy's weight vector is built without the player
count (Strategy.vector), and it was tuned at 4 players. After a change to the default
cards or rules, re-tune and replace expert.yaml (tests/test_expert_strategy.py fails
until then).
"""
from pathlib import Path

from sim.core.strategy import Strategy
from sim.core.strategy_file import read

FILE = Path(__file__).resolve().parent / "expert.yaml"
TUNED = read(str(FILE), game="peer-to-peer", field_name="strategies/peer_to_peer/expert.yaml")


def _weights(p):
    return dict(TUNED.weight_values)


STRATEGY = Strategy(
    name="expert",
    summary=f"weights tuned by simulate tune (self-play, default cards and rules, "
            f"{'/'.join(map(str, TUNED.players)) or '?'} players)",
    weights=_weights,
)
