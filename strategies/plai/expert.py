"""expert: weights learned from the search player on PLAI's default cards and rules.

The weights live in expert.yaml next to this file, exactly as `simulate distill
--per-count` wrote it (its `tuned_on` names the command, the card file's SHA-256 and every
rule option): the 4-player weights, and each other count's own under `by_players`. Three
counts come from commands of their own, named under `tuned_on.per_count`: 2 players from
`simulate tune --against` the shipped players, 3 from a second distillation that continues
the first's, 5 from a distillation against a mix of itself and `bluffer`. At every count it
beats `expert-v1` (docs/strategies.md). After a change to the default cards or rules,
re-make it with those commands and replace expert.yaml
(tests/core/test_expert_strategies.py fails until then).
"""
from pathlib import Path

from sim.core.strategy import shipped

FILE = Path(__file__).resolve().parent / "expert.yaml"
TUNED, STRATEGY = shipped(FILE, game="plai", module=__name__)
