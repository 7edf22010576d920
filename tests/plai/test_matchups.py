"""PLAI matchups: every strategy in every seat (sim/studies/matchups_every_seat.py)."""
import csv
import json

import pytest
from click.testing import CliRunner

from sim.core.stats import wilson
from sim.studies import matchups
from sim.cli import main
from sim.core.errors import UserError
from sim.studies.matchups_every_seat import FIELD, seating

from compile_time import pretend_a_compile_in

NAMES = ["aggressive", "bluffer:rate=0.3"]


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    out = tmp_path_factory.mktemp("plai_mu") / "m"
    return matchups.run(",".join(NAMES), game="plai", players=2, games=41, seed=2, out=out,
                        threads=1)


def test_seating_puts_the_strategy_in_its_seat_and_fills_the_rest():
    names = ["a", "b", "c"]
    assert seating("a", "b", 2, 3, names) == ["b", "b", "a"]
    assert seating("a", FIELD, 1, 4, names) == ["b", "a", "c", "b"]
    assert seating("b", FIELD, 0, 3, names) == ["b", "a", "c"]
    assert seating("a", FIELD, 0, 2, ["a"]) == ["a", "a"]   # alone: plays itself


def test_every_cell_plays_every_seat_with_the_games_split_evenly(result):
    assert result.strategies == NAMES and result.players == 2 and result.games == 41
    cells = [(x, y) for x in NAMES for y in [*NAMES, FIELD]]
    assert [(p["strategy"], p["opponent"]) for p in result.pairs] == \
        [cell for cell in cells for _ in range(2)]
    assert [p["seat"] for p in result.pairs] == [0, 1] * len(cells)
    assert [p["games"] for p in result.pairs] == [21, 20] * len(cells)
    starts = [p["first_game_index"] for p in result.pairs]
    assert starts == [21 * b for b in range(len(result.pairs))]   # distinct game indices
    for p in result.pairs:
        assert p["wins"] + p["field_wins"] + p["maintainers"] + p["stalemate"] == p["games"]
        assert p["seats"].split(" | ")[p["seat"]] == p["strategy"]
        assert p["errors"] == 0


def test_matrix_pools_the_seats(result):
    for row in result.matrix:
        blocks = [p for p in result.pairs
                  if (p["strategy"], p["opponent"]) == (row["strategy"], row["opponent"])]
        wins = sum(p["wins"] for p in blocks)
        assert row["games"] == 41 and row["wins"] == wins
        assert (row["win_rate"], row["ci_low"], row["ci_high"]) == pytest.approx(wilson(wins, 41))
        assert row["fair_share"] == 0.5
    # two strategies at two players: the field of 'aggressive' is 'bluffer' alone
    field_cell = result.cell("aggressive", FIELD)
    assert [p["seats"] for p in result.pairs if p["opponent"] == FIELD][:2] == \
        ["aggressive | bluffer:rate=0.3", "bluffer:rate=0.3 | aggressive"]
    assert field_cell["games"] == 41


def test_head_to_head_pools_both_cells_of_a_pair(result):
    """X v Y: X alone v Y plus Y alone v X; X's seats' wins over the decided games."""
    x, y = NAMES
    rows = {(h["strategy"], h["opponent"]): h for h in result.head_to_head}
    assert set(rows) == {(x, y), (y, x)}
    alone = [p for p in result.pairs if (p["strategy"], p["opponent"]) == (x, y)]
    among = [p for p in result.pairs if (p["strategy"], p["opponent"]) == (y, x)]
    wins = sum(p["wins"] for p in alone) + sum(p["field_wins"] for p in among)
    decided = sum(p["wins"] + p["field_wins"] for p in alone + among)
    h = rows[(x, y)]
    assert (h["games"], h["decided"], h["wins"]) == (82, decided, wins)
    assert (h["share"], h["share_low"], h["share_high"]) == pytest.approx(wilson(wins, decided))
    assert h["beats"] == (h["share_low"] > 0.5)
    back = rows[(y, x)]   # the same games seen from the other side
    assert back["decided"] == decided and back["wins"] == decided - wins
    with open(result.run_dir / "head_to_head.csv") as handle:
        assert [(r["strategy"], int(r["wins"])) for r in csv.DictReader(handle)] == \
            [(x, wins), (y, decided - wins)]
    assert "head to head" in result.table()


def test_head_to_head_is_fair_at_half_for_equal_strategies():
    """5 players, every seat winning 16 % of the games in both cells: X alone wins 16, its
    four seats among Ys win 64, out of 160 decided: 50 %, not 'beats'."""
    from sim.studies.matchups_every_seat import head_to_head_rows

    pairs = [{"strategy": a, "opponent": b, "games": 100, "wins": 16, "field_wins": 64}
             for a, b in (("a", "b"), ("b", "a"))]
    rows = head_to_head_rows(["a", "b"], pairs)
    assert rows[0]["decided"] == 160 and rows[0]["wins"] == 16 + 64
    assert rows[0]["share"] == pytest.approx(0.5) and not rows[0]["beats"]


def test_files_and_table(result):
    d = result.run_dir
    with open(d / "matrix.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 2 * 3 and rows[0]["strategy"] == "aggressive"
    with open(d / "pairs.csv") as handle:
        assert len(list(csv.DictReader(handle))) == 12
    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["game"] == "plai" and manifest["games_per_cell"] == 41
    text = (d / "matrix.txt").read_text()
    assert "fair = 50.0 %" in text and "field" in text.splitlines()[1]
    assert text.startswith(result.table())


def test_a_block_replays_from_pairs_csv(result):
    """The first game of a block is game first_game_index of the seed with those seats."""
    from sim.games.plai.game import GAME

    block = result.pairs[3]
    specs = block["seats"].split(" | ")
    config = GAME.configure(players=2, strategies={f"seat{s}": v for s, v in enumerate(specs)})
    out = config.play(2, block["first_game_index"], block["games"])
    wins = int(((out["outcome"] == 0) & (out["winner"] == block["seat"])).sum())
    assert wins == block["wins"]


@pytest.mark.parametrize("kwargs,needle", [
    (dict(players=6), "2 to 5 players"),
    (dict(players=3, games=2), "at least 3"),
    (dict(strategies="aggressive,aggressive"), "listed twice"),
    (dict(strategies="nosuch"), "unknown strategy"),
    (dict(game="chess"), "unknown game 'chess'"),
])
def test_bad_inputs(kwargs, needle, tmp_path):
    args = dict(strategies="aggressive", players=2, games=10, out=tmp_path / "m", game="plai")
    args.update(kwargs)
    with pytest.raises(UserError, match=needle):
        matchups.run(args.pop("strategies"), **args)
    assert not (tmp_path / "m").exists()


def test_cli_matchups_for_plai(tmp_path):
    result = CliRunner().invoke(main, ["matchups", "--game", "plai", "--strategies", "aggressive",
                                       "--players", "2", "--games", "6", "--threads", "1",
                                       "--out", str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    assert "PLAI, 2 players" in result.stdout and "12 games in" in result.stdout
    bad = CliRunner().invoke(main, ["matchups", "--game", "plai", "--strategies", "x",
                                    "--players", "2", "--out", str(tmp_path / "n")])
    assert bad.exit_code == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_cli_matchups_names_a_compile_inside_the_command(tmp_path, monkeypatch):
    """A cold cache compiles the kernels inside the command: its last line says so."""
    pretend_a_compile_in(monkeypatch, "matchups")
    result = CliRunner().invoke(main, ["matchups", "--game", "plai", "--strategies", "aggressive",
                                       "--players", "2", "--games", "6", "--threads", "1",
                                       "--out", str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    line = result.stdout.strip().splitlines()[-1]
    assert line.startswith("12 games in ") and line.endswith("s of it compiling the kernels, once)")
