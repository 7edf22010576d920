"""cautious: cooperates against unhappy customers; otherwise plays like greedy.

Everyone loses when too many customers turn unhappy (P2P-R5), so this strategy tests
whether cooperating pays: it serves first the customers closest to turning unhappy,
avoids contests it would lose and always uses `patience` (P2P-E6; greedy's default).
It scores everything it wins, like greedy, so a cautious-vs-greedy matchup isolates
the cooperation and is not muddied by deck building.

Contests: as the marker holder it has seen the rival's play and retargets away from a
contest it would lose (P2P-R2b, D3). Without the marker it cannot know, so it shies
away from the row's most valuable customer, the one a greedy rival goes for, by `risk`.
"""
from sim.core.strategy import Strategy


def _weights(p):
    return {
        # urgency outweighs any customer value (at most 13), so urgent customers come first
        "commit.urgent": p["urgency"],
        "commit.waited": 0.1 * p["urgency"],   # then the longest-waiting ones
        "commit.contest_lose": -50.0,          # D3: never walk into a lost contest
        "commit.top_customer": -p["risk"],
        "save.none": -100.0,                   # patience: always save someone
    }


STRATEGY = Strategy(
    name="cautious",
    summary="serves customers about to turn unhappy first, avoids contests it would lose, "
            "uses patience; scores everything",
    weights=_weights,
    params={"urgency": 20.0, "risk": 2.0},
)
