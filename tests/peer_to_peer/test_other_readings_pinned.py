"""The other readings of the rules play exactly their pinned games.

tests/data/p2p_other_readings.json holds, for a fixed seed, a digest of every column of the
result table (and of the whole per-card fate matrix) of games played with the other
readings -- ``unchosen_ventures=deck`` (P2P-S2), ``solo_spare_start_cards=out`` (P2P-S3)
and a card file whose Open Protocol cards are worth 0 (P2P-C3) -- as the engine played them
when those readings were its only ones (captured then with
``python tests/peer_to_peer/test_other_readings_pinned.py``). Today's engine must reproduce
those tables bit for bit.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "p2p_other_readings.json"
SEED = 20200
GAMES = 3000
PAIRS = [("greedy", "greedy"), ("cautious", "builder"), ("random", "random")]
CASES = [(players, a, b, ()) for players in range(1, 7) for a, b in PAIRS] + [
    (4, "builder", "cautious", ("customer_patience=3", "loser_effects_spent=false")),
    (3, "greedy", "random", ("odd_team_compensation=extra_venture_empty",)),
]
OTHER_READINGS = ("unchosen_ventures=deck", "solo_spare_start_cards=out")


def case_key(players, a, b, overrides) -> str:
    return f"{players}p {a} v {b}" + (" " + " ".join(overrides) if overrides else "")


def open_protocol_zero_deck_path(directory: Path) -> str:
    """The default card file with Open Protocol A and B worth 0 (P2P-C3's other value)."""
    from sim.games.peer_to_peer.cards import default_cards_path

    lines = default_cards_path().read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if not line.startswith("#"))   # the header
    header = lines[at].split(",")
    ids, value = header.index("id"), header.index("value")
    out = lines[:at + 1]
    for line in lines[at + 1:]:
        cells = line.split(",")
        if cells[ids] in ("OPA", "OPB"):
            cells[value] = "0"
        out.append(",".join(cells))
    path = directory / "open-protocol-0.csv"
    path.write_text("\n".join(out) + "\n")
    return str(path)


def digest(array) -> str:
    data = np.ascontiguousarray(np.asarray(array).astype(np.int64)).tobytes()
    return hashlib.sha256(data).hexdigest()[:16]


def table_digest(players, a, b, overrides, cards) -> dict:
    """Digests of one result table: each non-fate column, and the fate matrix as one."""
    from sim.games.peer_to_peer.game import GAME

    config = GAME.configure(players=players, strategies={"A": a, "B": b}, cards=cards,
                            rule_overrides=tuple(overrides))
    table = config.run_chunk(SEED, 0, GAMES)
    fate_columns = [f"fate_{cid}" for cid in config.cards.ids]
    columns = {name: digest(table[name].to_numpy()) for name in table.columns
               if not name.startswith("fate_")}
    columns["fates"] = digest(np.stack([table[name].to_numpy() for name in fate_columns]))
    winners = np.bincount(table["winner"].to_numpy(), minlength=6).tolist()
    return {"columns": columns, "winner_counts": winners}


@pytest.mark.parametrize("players,a,b,overrides", CASES,
                         ids=[case_key(*case) for case in CASES])
def test_the_other_readings_reproduce_their_pinned_tables(players, a, b, overrides, tmp_path):
    expected = json.loads(FIXTURE.read_text())
    assert expected["seed"] == SEED and expected["games"] == GAMES
    want = expected["tables"][case_key(players, a, b, overrides)]
    got = table_digest(players, a, b, OTHER_READINGS + tuple(overrides),
                       open_protocol_zero_deck_path(tmp_path))
    assert got["winner_counts"] == want["winner_counts"]
    differing = sorted(name for name, value in want["columns"].items()
                       if got["columns"].get(name) != value)
    assert not differing, f"columns that changed: {differing}"


def test_the_default_readings_give_other_games(tmp_path):
    """Guard against a fixture that any engine would match: the default deck and
    readings give other games than the fixture's."""
    expected = json.loads(FIXTURE.read_text())
    from sim.games.peer_to_peer.cards import default_cards_path

    got = table_digest(4, "greedy", "greedy", (), str(default_cards_path()))
    assert got["columns"]["winner"] != expected["tables"][case_key(4, "greedy", "greedy", ())][
        "columns"]["winner"]


if __name__ == "__main__":  # capture the fixture (on an engine whose defaults were these readings)
    import tempfile

    overrides_now = tuple(sys.argv[1:])  # empty where these readings were the defaults
    with tempfile.TemporaryDirectory() as tmp:
        cards = open_protocol_zero_deck_path(Path(tmp))
        tables = {case_key(*case): table_digest(*case[:3], overrides_now + case[3], cards)
                  for case in CASES}
    FIXTURE.write_text(json.dumps({"seed": SEED, "games": GAMES, "tables": tables},
                                  indent=1, sort_keys=True) + "\n")
    print(f"wrote {FIXTURE} ({FIXTURE.stat().st_size} bytes)")
