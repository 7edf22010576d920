"""Every game of 48 configurations is pinned: a refactor must leave each result table
identical.

tests/data/game_checksums.json holds, for each configuration (both games, every player
count, several strategies and rule options), a SHA-256 over its result table (column
names, dtypes and values, in order) and its winner counts. The columns that record the
reasons behind the report's answers (Peer-to-Peer's contest steps and causes of unhappy
customers) are pinned on their own in tests/data/answer_column_checksums.json. A change
that is meant
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
ANSWER_FIXTURE = Path(__file__).resolve().parents[1] / "data" / "answer_column_checksums.json"
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


def answer_columns(game) -> tuple[str, ...]:
    """The result columns that record the reasons behind the answers (Peer-to-Peer: how
    contests were decided, why customers turned unhappy): pinned on their own
    (ANSWER_FIXTURE), so adding them left every other column's pin as it was."""
    if game != "peer-to-peer":
        return ()
    from sim.games.peer_to_peer.constants import ANSWER_COLUMNS

    return ANSWER_COLUMNS


def _digest(table, names) -> str:
    digest = hashlib.sha256()
    for name in names:
        column = table[name].to_numpy()
        digest.update(f"{name}:{column.dtype}".encode())
        digest.update(np.ascontiguousarray(column).tobytes())
    return digest.hexdigest()[:24]


def _table(game, players, strategies, overrides, games):
    from sim.core.game import configure

    config = configure(game, players, strategies=dict(strategies),
                       rule_overrides=tuple(overrides))
    return config.run_chunk(SEED, 0, games)


def table_checksum(game, players, strategies, overrides, games=GAMES, table=None) -> dict:
    """The pin of every column but the answer columns (in table order)."""
    table = _table(game, players, strategies, overrides, games) if table is None else table
    added = set(answer_columns(game))
    winners = table["winner"].value_counts(sort=True).sort("winner")
    return {"sha256": _digest(table, [c for c in table.columns if c not in added]),
            "rows": table.height,
            "winner_counts": {str(w): int(n) for w, n in winners.iter_rows()}}


def answer_checksum(game, players, strategies, overrides, games=GAMES, table=None) -> dict:
    """The pin of the answer columns, with their totals (readable when one changes)."""
    table = _table(game, players, strategies, overrides, games) if table is None else table
    names = answer_columns(game)
    return {"sha256": _digest(table, names),
            "totals": {name: int(table[name].sum()) for name in names}}


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


ANSWER_CASES = [case for case in CASES + SEARCH_CASES if answer_columns(case[0])]


@pytest.mark.parametrize("case", ANSWER_CASES, ids=[case_key(*case) for case in ANSWER_CASES])
def test_answer_columns_are_unchanged(case):
    """The contest steps and the causes of unhappy customers, pinned like the rest."""
    want = json.loads(ANSWER_FIXTURE.read_text())["tables"][case_key(*case)]
    got = answer_checksum(*case)
    assert got["totals"] == want["totals"]
    assert got == want


def _write(path, tables) -> None:
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"seed": SEED, "games": GAMES, "tables": tables},
                               indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}: {len(tables)} tables", file=sys.stderr)


if __name__ == "__main__":  # regenerate (only in a change that is meant to change games)
    # --add: compute only the configurations a fixture lacks, keep every other entry
    add = "--add" in sys.argv[1:]
    for path, cases, pin in ((FIXTURE, CASES + SEARCH_CASES, table_checksum),
                             (ANSWER_FIXTURE, ANSWER_CASES, answer_checksum)):
        tables = json.loads(path.read_text())["tables"] if add and path.exists() else {}
        tables.update({case_key(*case): pin(*case) for case in cases
                       if case_key(*case) not in tables})
        _write(path, tables)
