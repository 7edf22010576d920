"""expert: weights learned from the search player on Peer-to-Peer's default cards and rules.

The weights live in expert.yaml next to this file, exactly as `simulate distill
--per-count` wrote it (its `tuned_on` names the command, the card file's SHA-256 and every
rule option): the 4-player weights, and each other count's own under `by_players`. Where
the weights learned at a count won less than 55 % of the decided games against
`expert-v1`, and solo (not distilled), it plays `expert-v1`'s weights (docs/strategies.md).
After a change to the default cards or rules, re-make it with that command and replace
expert.yaml (tests/core/test_expert_strategies.py fails until then).
"""
from pathlib import Path

from sim.core.strategy import shipped

FILE = Path(__file__).resolve().parent / "expert.yaml"
TUNED, STRATEGY = shipped(FILE, game="peer-to-peer", module=__name__)
