"""Every game of 48 configurations is pinned: a refactor must leave each result table
identical.

tests/data/game_checksums.json holds, for each configuration (both games, every player
count, several strategies and rule options), a SHA-256 over its whole result table
(column names, dtypes and values, in order) and its winner counts. A change that is meant
to change games (a rule, a default, a card) regenerates the fixture with
``python tests/core/test_game_checksums.py`` and says in its commit which games changed and why.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "game_checksums.json"
SEED = 4848
GAMES = 1000

P2P_PAIRS = [("greedy", "greedy"), ("cautious", "builder"), ("random", "random")]
P2P_CASES = [("peer-to-peer", p, {"A": a, "B": b}, ()) for p in range(1, 7)
             for a, b in P2P_PAIRS] + [
    ("peer-to-peer", 4, {"A": "cautious", "B": "cautious"}, ("contest_unpaired=tied",)),
    ("peer-to-peer", 4, {"A": "cautious", "B": "greedy"}, ("patience_resets_wait=true",)),
    ("peer-to-peer", 3, {"A": "builder", "B": "greedy"}, ("unchosen_ventures=deck",)),
    ("peer-to-peer", 1, {"A": "builder"}, ("solo_spare_start_cards=out",)),
    ("peer-to-peer", 5, {"A": "cautious", "B": "builder"}, ("odd_team_compensation=none",)),
    ("peer-to-peer", 2, {"A": "greedy", "B": "cautious"},
     ("customer_patience=3", "end_when=row_empty")),
]
PLAI_FIELDS = [{"all": "weighted"}, {"0": "aggressive", "all": "cautious"},
               {"all": "bluffer"}, {"all": "random"}]
PLAI_CASES = [("plai", p, field, ()) for p in range(2, 6) for field in PLAI_FIELDS] + [
    ("plai", 3, {"all": "weighted"}, ("first_seat=random",)),
    ("plai", 4, {"all": "aggressive"}, ("first_seat=random", "takeover_threshold=7")),
    ("plai", 4, {"all": "weighted"}, ("regional_attacker=next_player",)),
    ("plai", 4, {"all": "aggressive"}, ("venture_attackers=joint",)),
    ("plai", 5, {"all": "weighted"}, ("pool_excess=newest",)),
    ("plai", 5, {"all": "aggressive"}, ("maintainer_attack=true",)),
    ("plai", 3, {"1": "bluffer", "all": "weighted"}, ("maintainer_pool_cap=4",)),
    ("plai", 2, {"all": "cautious"}, ("starting_hand=5",)),
]
CASES = P2P_CASES + PLAI_CASES
assert len(CASES) == 48
# Search seats cost ~1,000 times a plain game: few games each, small budgets,
# still every search decision kind (D2-D4; PLAI's action, target, fight cards), each team.
SEARCH_CASES = [
    ("peer-to-peer", 4, {"A": "search:k=3,n=3,base=expert", "B": "expert"}, (), 40),
    ("peer-to-peer", 3, {"A": "greedy", "B": "search:k=4,n=2,base=expert"},
     ("contest_unpaired=tied",), 40),
    ("peer-to-peer", 1, {"A": "search:k=3,n=3,base=expert"}, (), 40),
    ("peer-to-peer", 6, {"A": "search:k=2,n=2,base=expert", "B": "search:k=2,n=3,base=cautious"},
     ("loser_effects_spent=false",), 20),
    ("plai", 3, {"0": "search:k=3,n=3,base=expert", "all": "expert"}, (), 60),
]


def case_key(game, players, strategies, overrides, games=GAMES) -> str:
    field = " ".join(f"{slot}={spec}" for slot, spec in strategies.items())
    return (f"{game} {players}p {field}" + (" " + " ".join(overrides) if overrides else "")
            + ("" if games == GAMES else f" {games}g"))


def table_checksum(game, players, strategies, overrides, games=GAMES) -> dict:
    from sim.core.game import configure

    config = configure(game, players, strategies=dict(strategies),
                       rule_overrides=tuple(overrides))
    table = config.run_chunk(SEED, 0, games)
    digest = hashlib.sha256()
    for name in table.columns:
        column = table[name].to_numpy()
        digest.update(f"{name}:{column.dtype}".encode())
        digest.update(np.ascontiguousarray(column).tobytes())
    winners = table["winner"].value_counts(sort=True).sort("winner")
    return {"sha256": digest.hexdigest()[:24], "rows": table.height,
            "winner_counts": {str(w): int(n) for w, n in winners.iter_rows()}}


@pytest.mark.parametrize("case", CASES, ids=[case_key(*case) for case in CASES])
def test_result_table_is_unchanged(case):
    expected = json.loads(FIXTURE.read_text())
    assert (expected["seed"], expected["games"]) == (SEED, GAMES)
    want = expected["tables"][case_key(*case)]
    got = table_checksum(*case)
    assert got["winner_counts"] == want["winner_counts"]
    assert got == want


@pytest.mark.parametrize("case", SEARCH_CASES, ids=[case_key(*case) for case in SEARCH_CASES])
def test_search_result_table_is_unchanged(case):
    want = json.loads(FIXTURE.read_text())["tables"][case_key(*case)]
    got = table_checksum(*case)
    assert got["winner_counts"] == want["winner_counts"]
    assert got == want


if __name__ == "__main__":  # regenerate (only in a change that is meant to change games)
    # --add: compute only the configurations the fixture lacks, keep every other entry
    every = CASES + SEARCH_CASES
    if "--add" in sys.argv[1:]:
        tables = json.loads(FIXTURE.read_text())["tables"]
        missing = [case for case in every if case_key(*case) not in tables]
        tables.update({case_key(*case): table_checksum(*case) for case in missing})
    else:
        tables = {case_key(*case): table_checksum(*case) for case in every}
    FIXTURE.parent.mkdir(exist_ok=True)
    FIXTURE.write_text(json.dumps({"seed": SEED, "games": GAMES, "tables": tables},
                                  indent=1, sort_keys=True) + "\n")
    print(f"wrote {FIXTURE}: {len(tables)} tables", file=sys.stderr)
