"""PLAI card edits in experiments: refs by id and by name (a name printed on several
numeral rows means every row), editable fields from the PLAI card columns, one-line
errors naming the file, line and field, a tiny card sweep end to end, the turn-order
metrics, and autobalance over PLAI card fields."""
import math
import textwrap

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from reports.sweep import estimate
from sim import api
from sim.studies import experiments
from sim.studies import autobalance as ab
from sim.cli import main
from sim.games.peer_to_peer.description import CARD_FIELDS as EDITABLE_FIELDS
from sim.studies.experiments.cardfile import CardCsv, editable_fields
from sim.games.plai.cards import COLUMNS, DEFAULT_CARDS, load_cards

PLAI_CARDS = str(DEFAULT_CARDS)


def _write(tmp_path, text, name="experiments.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return str(path)


def _ids(table, ref):
    return [table.card_id(i) for i in table.find_all(ref)]


# ----------------------------------------------------------------------------- card files
def test_editable_fields_are_the_game_card_columns_but_id():
    assert editable_fields("plai") == ("name", "type", "strength", "numeral", "copies", "effect")
    assert set(editable_fields("plai")) == set(COLUMNS) - {"id"}
    assert editable_fields("peer-to-peer") == EDITABLE_FIELDS  # unchanged
    assert CardCsv(PLAI_CARDS, "plai").fields == editable_fields("plai")


def test_refs_by_numeric_id_and_by_name():
    table = CardCsv(PLAI_CARDS, "plai")
    assert _ids(table, "5") == ["5"]                    # Internet of Things at numeral I
    assert _ids(table, "05") == ["5"]                   # ids compare as numbers
    assert _ids(table, "Discrimination") == ["6"]       # printed once
    # printed under several numerals: every row (the file's rows 1/21, 4/31, 16/36)
    assert _ids(table, "Daily Standups") == ["1", "21"]
    assert _ids(table, "daily   STANDUPS") == ["1", "21"]
    assert _ids(table, "Vendor Lock-in") == ["4", "31"]
    assert _ids(table, "AI Winter") == ["16", "36"]
    assert table.card_id(table.find("21")) == "21"
    with pytest.raises(KeyError, match=r"names 2 rows \(ids 1, 21\)"):
        table.find("Daily Standups")
    with pytest.raises(KeyError) as caught:
        table.find_all("Daily Standup")
    message = caught.value.args[0]
    assert "no card 'Daily Standup'" in message and "did you mean 'Daily Standups'" in message
    assert "an id (1, 2, 3, 4, ...)" in message
    assert "a name (Daily Standups, Scope Creep, Tech Debt, Vendor Lock-in, ...)" in message
    with pytest.raises(KeyError, match="no card '99'"):
        table.find_all("99")


def test_a_name_edit_changes_every_row_and_only_those_cells(tmp_path):
    table = CardCsv(PLAI_CARDS, "plai")
    before = table.text()
    table.set_all(table.find_all("Daily Standups"), "strength", 5)
    table.set_all(table.find_all("27"), "copies", 3)           # GDPR Fine at II only
    table.set_all(table.find_all("Daily Standups"), "name", "Morning Sync")
    changed = [(a, b) for a, b in zip(before.splitlines(), table.text().splitlines()) if a != b]
    assert changed == [
        ("1,Daily Standups,adversary,3,I,2,", "1,Morning Sync,adversary,5,I,2,"),
        ("21,Daily Standups,adversary,3,II,1,", "21,Morning Sync,adversary,5,II,1,"),
        ("27,GDPR Fine,special,-1,II,1,discard_random_rival_played 1",
         "27,GDPR Fine,special,-1,II,3,discard_random_rival_played 1")]
    # the reconstruction comment stays; refs keep naming the printed card after a rename
    assert table.text().splitlines()[0] == before.splitlines()[0]
    assert before.splitlines()[0].startswith("# RECONSTRUCTION")
    assert _ids(table, "Daily Standups") == ["1", "21"]
    cards = load_cards(table.write(tmp_path / "c.csv"))
    strength = dict(zip(cards.ids, cards.strengths.tolist()))
    assert (strength[1], strength[21], strength[2]) == (5, 5, 2)
    # the printed deck: 28 cards at numeral I, 10 at II; GDPR Fine II went from 1 to 3
    assert len(cards.deck_for(2)) == 28 and len(cards.deck_for(3)) == 38 + 2
    with pytest.raises(KeyError, match="editable fields for plai: name, type, strength"):
        table.set(table.find("1"), "value", 4)


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize("body, line, key, words", [
    ("  card_overrides:\n    Daily Standups.value: 4\n", 4,
     "bad.card_overrides.Daily Standups.value",
     ["unknown card field 'value'",
      "editable fields for plai: name, type, strength, numeral, copies, effect"]),
    ("  card_overrides:\n    Daily Standup.strength: 4\n", 4,
     "bad.card_overrides.Daily Standup.strength",
     ["no card 'Daily Standup'", "did you mean 'Daily Standups'", "1, 2, 3, 4, ..."]),
    ("  card_overrides:\n    \"99.copies\": 2\n", 4, "bad.card_overrides.99.copies",
     ["no card '99'"]),
    ("  card_overrides:\n    Daily Standups.strength: lots\n", 4,
     "bad.card_overrides.Daily Standups.strength",
     ["expected an integer from -99 to 99, got 'lots'", f"{PLAI_CARDS}:3, field 'strength'"]),
    ("  sweep:\n    card.1.numeral: [I, IV]\n", 4, "bad.sweep.card.1.numeral",
     ["got 'IV'", f"{PLAI_CARDS}:3, field 'numeral'"]),
    ("  sweep:\n    card.Synergy.colour: [red]\n", 4, "bad.sweep.card.Synergy.colour",
     ["unknown card field 'colour'", "editable fields for plai"]),
    ("  autobalance:\n    vary:\n      Hype Cycle.effect: [all_draw 1, all_draw x]\n"
     "    targets: [{metric: mean_turns, min: 1}]\n", 5,
     "bad.autobalance.vary.Hype Cycle.effect", ["'all_draw' needs one whole number"]),
])
def test_bad_card_edits_are_one_line_errors_with_exit_2(tmp_path, body, line, key, words):
    path = _write(tmp_path, "bad:\n  game: plai\n" + body)
    result = CliRunner().invoke(main, ["experiment", "bad", "--file", path, "--no-progress"])
    assert result.exit_code == 2, result.output
    lines = [text for text in result.output.splitlines() if text.strip()]
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"error: {path}:{line}, field '{key}'"), lines[0]
    for word in words:
        assert word in lines[0], lines[0]


def test_peer_to_peer_field_errors_list_its_own_fields(tmp_path):
    path = _write(tmp_path, "bad:\n  card_overrides:\n    TE12.strength: 3\n")
    result = CliRunner().invoke(main, ["experiment", "bad", "--file", path, "--no-progress"])
    assert result.exit_code == 2
    assert "editable fields for peer-to-peer: value, effect, domain, kind, start, name" \
        in result.output


# ----------------------------------------------------------------------------- metrics
def test_turn_order_advantages_and_absent_seats_by_hand():
    # 3 players; outcome 0 = a seat won, 1 = maintainers, 2 = stalemate
    g = {"game_index": np.arange(6),
         "winner": np.array([0, 1, 2, 2, -1, -1]),
         "outcome": np.array([0, 0, 0, 0, 1, 2]),
         "first_seat": np.array([0, 0, 0, 2, 0, 0]),
         "turns": np.array([10, 20, 30, 40, 50, 400]),
         "players": np.full(6, 3)}
    # startup wins: 4. First mover won games 0 and 3 -> 2/4 = 50 % against a fair 33.3 %;
    # last mover (seat 2, or seat 1 when seat 2 starts) won game 2 -> 1/4 = 25 %
    assert estimate("first_player_advantage", g)["est"] == pytest.approx(50 - 100 / 3)
    assert estimate("last_player_advantage", g)["est"] == pytest.approx(25 - 100 / 3)
    assert estimate("first_player_share", g)["est"] == pytest.approx(50)
    assert estimate("seat2_win_rate", g)["est"] == pytest.approx(100 * 2 / 6)
    e = estimate("first_player_advantage", g)
    assert e["lo"] < e["est"] < e["hi"]
    assert math.isnan(estimate("seat3_win_rate", g)["est"])   # no seat 3 at 3 players


# ----------------------------------------------------------------------------- a tiny sweep
SWEEP = """
tiny:
  game: plai
  players: [2]
  games: 150
  seed: 11
  sweep:
    card.Daily Standups.strength: [3, 6]
  baseline: {card.Daily Standups.strength: 3}
"""


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    root = tmp_path_factory.mktemp("plai_card_sweep")
    path = _write(root, SWEEP)
    out = root / "out"
    result = CliRunner().invoke(main, ["experiment", "tiny", "--file", path, "--out", str(out),
                                       "--no-progress", "--threads", "1"])
    assert result.exit_code == 0, result.output
    return out, result.output


def test_card_sweep_points_play_their_card_files(swept):
    out, _ = swept
    names = ["2p-Daily_Standups.strength=3", "2p-Daily_Standups.strength=6"]
    assert sorted(p.name for p in out.iterdir() if p.name.startswith("2p")) == names
    default = open(PLAI_CARDS).read()
    # strength 3 is the printed value: the point plays the default file, byte for byte
    assert (out / names[0] / "cards.csv").read_text() == default
    changed = [(i + 1, a, b) for i, (a, b) in enumerate(zip(
        default.splitlines(), (out / names[1] / "cards.csv").read_text().splitlines())) if a != b]
    assert changed == [(3, "1,Daily Standups,adversary,3,I,2,", "1,Daily Standups,adversary,6,I,2,"),
                       (20, "21,Daily Standups,adversary,3,II,1,",
                        "21,Daily Standups,adversary,6,II,1,")]


def test_card_sweep_uses_common_random_numbers(swept):
    out, _ = swept
    base = pl.read_parquet(f"{out}/2p-Daily_Standups.strength=3/run/games/*.parquet").sort("game_index")
    other = pl.read_parquet(f"{out}/2p-Daily_Standups.strength=6/run/games/*.parquet").sort("game_index")
    # the baseline point is an ordinary run with the default cards: same games as one
    plain = api.configure(game="plai", players=2).run_chunk(11, 0, 150).sort("game_index")
    for column in ("winner", "outcome", "turns", "first_seat"):
        assert base[column].to_list() == plain[column].to_list(), column
    assert base["game_index"].to_list() == other["game_index"].to_list() == list(range(150))


def test_card_sweep_report_shows_the_plai_metrics(swept):
    out, output = swept
    for title in ("Seat 0 win rate", "Seat 1 win rate", "First player's advantage",
                  "Last player's advantage", "Maintainers' win rate", "Stalemate rate",
                  "Mean game length"):
        assert title in output, title
    table = pl.read_csv(out / "report" / "sweep.csv")
    games = pl.read_parquet(f"{out}/2p-Daily_Standups.strength=6/run/games/*.parquet")
    won = games.filter(pl.col("outcome") == 0)
    first = won.filter(pl.col("winner") == pl.col("first_seat")).height
    row = table.filter(pl.col("point") == "2p-Daily_Standups.strength=6")
    assert row["first_player_advantage"][0] == pytest.approx(100 * first / won.height - 50)
    assert row["seat1_win_rate"][0] == pytest.approx(
        100 * games.filter((pl.col("outcome") == 0) & (pl.col("winner") == 1)).height / 150)
    paired = pl.read_csv(out / "report" / "paired.csv")
    assert set(paired["metric"]) == {"seat0_win_rate", "seat1_win_rate", "first_player_advantage",
                                     "last_player_advantage", "maintainers_win_rate",
                                     "stalemate_rate", "mean_turns"}


# ----------------------------------------------------------------------------- autobalance
# A deliberately broken deck: AI Winter (an event; ids 16 at numeral I and 36 at III)
# made to discard 99 cards, so whoever draws it wipes every hand and a 2-player game
# ends within a few turns (the printed all_discard 1 plays 16.6 turns on average at 2
# players under expert-v1, 1e6 games; without the event games are longer still). The
# target asks for games of at least 10 turns; every neighbour that drops the broken effect
# (all_discard 1 or 2) or the card (copies 0) restores that, so the search must leave the
# start. The players are pinned: 2-player games between today's expert last 6 turns.
BROKEN = """
fix:
  game: plai
  players: [2]
  games: 300
  seed: 3
  strategies: {all: expert-v1}
  card_overrides:
    AI Winter.effect: all_discard 99
  autobalance:
    vary:
      AI Winter.effect: [all_discard 1, all_discard 2, all_discard 99]
      AI Winter.copies: {min: 0, max: 2}
    targets:
      - {metric: mean_turns, players: 2, min: 10}
    batches: 3
    rounds: 3
"""


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    root = tmp_path_factory.mktemp("plai_ab")
    path = _write(root, BROKEN)
    out = root / "best.csv"
    result = CliRunner().invoke(main, ["autobalance", "fix", "--file", path, "--out", str(out),
                                       "--no-progress", "--threads", "1"])
    return path, out, result


def test_autobalance_repairs_a_broken_plai_deck(broken):
    path, out, result = broken
    assert result.exit_code == 0, result.output
    assert "-16,AI Winter,market_event,0,I,1,all_discard 99" in result.output
    assert "-36,AI Winter,market_event,0,III,1,all_discard 99" in result.output
    assert "mean_turns at 2p ≥ 10" in result.output and f"card file: {out}" in result.output
    found = ab.autobalance(experiments.get("fix", path), out=out.parent / "again.csv",
                           progress=False, threads=1)
    start_turns = found.start.metrics[0][2]
    assert start_turns < 10 and found.start.loss == pytest.approx(10 - start_turns)
    assert found.best.loss < found.start.loss and found.best.loss == 0
    cards = load_cards(out)   # the written file is a valid PLAI card file
    winter = [i for i, name in enumerate(cards.names) if name == "AI Winter"]
    # both rows carry the same repair (a name edits every row of the card)
    assert len({(int(cards.copies[i]), int(cards.args[i])) for i in winter}) == 1
    i = winter[0]
    assert int(cards.copies[i]) == 0 or int(cards.args[i]) != 99


def test_autobalance_is_deterministic_for_a_seed(broken, tmp_path):
    path, out, _ = broken
    exp = experiments.get("fix", path)
    runs = [ab.autobalance(exp, out=tmp_path / f"best{k}.csv", progress=False, threads=t)
            for k, t in ((1, 1), (2, 2))]
    assert runs[0].best_text == runs[1].best_text == out.read_text()
    assert runs[0].best.changes == runs[1].best.changes
    assert (runs[0].start.loss, runs[0].best.loss, runs[0].evaluated) == \
        (runs[1].start.loss, runs[1].best.loss, runs[1].evaluated)


def test_the_shipped_plai_card_examples_are_valid():
    sweep = experiments.get("plai_card_strength", "experiments.yaml")
    assert sweep.game == "plai" and [a.key for a in sweep.axes] == ["card.Daily Standups.strength"]
    balance = experiments.get("plai_two_player_balance", "experiments.yaml")
    assert balance.autobalance is not None
    assert {v.field for v in balance.autobalance.vary} <= set(editable_fields("plai"))
