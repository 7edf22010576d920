"""A fixed-seed table pins PLAI's default games: a checksum of every result
column of 3,000 games per player count under the default options and strategy. A change
that alters default games (a rule default, the default weights, a decision's option
order, a random draw) fails here; if the change is meant, say which games changed and
why, and rewrite the fixture with ``python tests/plai/test_default_games_pinned.py --write``.

The reading options' other values (regional_attacker: next_player, venture_attackers:
joint, pool_excess: newest, maintainer_attack: true) change games only when set: see
test_rule_option_scenarios.py."""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from sim import api
from sim.games.plai import constants as c

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "plai_default_games.json"
SEED = 2121
GAMES = 3000


def checksum(players: int) -> dict:
    out = api.configure(game="plai", players=players).play(SEED, 0, GAMES)
    digest = hashlib.sha256()
    for name in c.RESULT_DTYPE.names:
        digest.update(name.encode())
        digest.update(out[name].tobytes())
    won = out["outcome"] == c.OUT_SEAT
    return {"sha256": digest.hexdigest(),
            "seat_wins": [int((out["winner"][won] == s).sum()) for s in range(players)],
            "stalemates": int((out["outcome"] == c.OUT_STALEMATE).sum()),
            "mean_turns": round(float(out["turns"].mean()), 3)}


@pytest.mark.parametrize("players", (2, 3, 4, 5))
def test_default_games_are_pinned(players):
    pinned = json.loads(FIXTURE.read_text())[str(players)]
    got = checksum(players)
    # the small numbers first, so a failure says how much moved
    assert (got["seat_wins"], got["stalemates"], got["mean_turns"]) == (
        pinned["seat_wins"], pinned["stalemates"], pinned["mean_turns"])
    assert got["sha256"] == pinned["sha256"]


if __name__ == "__main__" and "--write" in sys.argv:
    FIXTURE.write_text(json.dumps({str(p): checksum(p) for p in (2, 3, 4, 5)}, indent=1) + "\n")
    print(f"wrote {FIXTURE}")
