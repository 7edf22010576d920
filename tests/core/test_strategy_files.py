"""Strategy files: ``@FILE.yaml`` wherever a strategy goes, and every bad file
is one line naming the file, line and field, with exit code 2."""
from __future__ import annotations

import json

import numpy as np
import pytest

from sim.cli import main

GOOD = """cardsim_strategy: 1
game: peer-to-peer
weights:
  commit.urgent: 2e1
  late.dest.score: 2.5
  switch: 6
"""


def _file(tmp_path, text, name="s.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def _one_line_error(result):
    assert result.exit_code == 2, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.output
    return lines[0]


@pytest.mark.parametrize("text, line, field, words", [
    ("game: peer-to-peer\nweights:\n  commit.value: [1\n", 4, None, "not valid YAML"),
    ("game: plai\nweights:\n  noise: 1\n", 1, "game", "for plai, not peer-to-peer"),
    ("game: peer-to-peer\nweights:\n  commit.value: 1\n  commit.valeu: 2\n", 4,
     "weights.commit.valeu", "unknown weight 'commit.valeu'"),
    ("game: peer-to-peer\nweights:\n  commit.value: lots\n", 3, "weights.commit.value",
     "must be a number, got 'lots'"),
    ("game: peer-to-peer\nweights:\n  commit.value: .nan\n", 3, "weights.commit.value",
     "finite number"),
    ("game: peer-to-peer\nweights:\n  commit.value: true\n", 3, "weights.commit.value",
     "must be a number"),
    ("game: peer-to-peer\nweights:\n  commit.value: '5'\n", 3, "weights.commit.value",
     "must be a number, got '5'"),
    ("game: peer-to-peer\nweights:\n  commit.value: [5]\n", 3, "weights.commit.value",
     "must be a number, got 'a sequence'"),
    ("game: peer-to-peer\nweigths:\n  commit.value: 1\n", 2, "weigths", "unknown key 'weigths'"),
    ("game: peer-to-peer\n", 1, "weights", "needs 'weights'"),
    ("game: peer-to-peer\nweights: 3\n", 2, "weights", "mapping of weight name"),
    ("game: peer-to-peer\nweights:\n  commit.value: 1\n  commit.value: 2\n", 4,
     "weights.commit.value", "given twice (first on line 3)"),
    ("cardsim_strategy: 7\ngame: peer-to-peer\nweights: {}\n", 1, "cardsim_strategy",
     "format 1"),
    ("game: peer-to-peer\nweights: {}\nby_players:\n  2:\n    commit.valeu: 1\n", 5,
     "by_players.2.commit.valeu", "unknown weight 'commit.valeu'"),
    ("game: peer-to-peer\nweights: {}\nby_players:\n  two: {commit.value: 1}\n", 4,
     "by_players", "expected a player count, got 'two'"),
    ("game: peer-to-peer\nweights: {}\nby_players:\n  2: {commit.value: x}\n", 4,
     "by_players.2.commit.value", "must be a number, got 'x'"),
    ("game: peer-to-peer\nweights: {}\nby_players:\n  2: {}\n  2: {}\n", 5,
     "by_players.2", "given twice (first on line 4)"),
    ("game: peer-to-peer\nweights: {}\nby_players:\n  7: {commit.value: 1}\n", 4,
     "by_players.7", "peer-to-peer has no 7-player game (player counts: 1, 2, 3, 4, 5, 6)"),
    ("game: peer-to-peer\nweights: {}\nby_players: [2]\n", 3, "by_players",
     "mapping of player count"),
])
def test_bad_strategy_file_is_one_line_with_file_line_and_field(runner, tmp_path, text, line,
                                                                 field, words):
    path = _file(tmp_path, text)
    result = runner.invoke(main, ["--games", "10", "--team-a", f"@{path}", "--out",
                                  str(tmp_path / "run"), "--no-progress"])
    message = _one_line_error(result)
    assert f"{path}:{line}" in message
    if field:
        assert f"field '{field}'" in message
    assert words in message
    assert not (tmp_path / "run").exists()   # refused before any game


def test_missing_strategy_file_names_the_file_and_option(runner, tmp_path):
    path = str(tmp_path / "nowhere.yaml")
    result = runner.invoke(main, ["--games", "10", "--team-b", f"@{path}", "--no-progress"])
    message = _one_line_error(result)
    assert path in message and "not found" in message and "--team-b" in message


def test_bad_file_in_a_plai_seat_and_in_matchups(runner, tmp_path):
    path = _file(tmp_path, "game: plai\nweights:\n  act.venture: x\n")
    for args in (["--game", "plai", "--players", "3", "--games", "10", "--seat", f"1=@{path}"],
                 ["matchups", "--game", "plai", "--players", "3", "--games", "10",
                  "--strategies", f"weighted,@{path}", "--out", str(tmp_path / "m")]):
        message = _one_line_error(runner.invoke(main, args))
        assert f"{path}:3" in message and "weights.act.venture" in message


def test_good_file_plays_its_weights_and_its_name_shows(runner, tmp_path):
    from sim import api
    from sim.games.peer_to_peer import features

    path = _file(tmp_path, GOOD)
    config = api.configure("peer-to-peer", 4, strategies={"A": f"@{path}", "B": "cautious"})
    expected = features.DEFAULT_WEIGHTS.copy()
    names = list(features.WEIGHT_NAMES)
    expected[names.index("early.commit.urgent")] = expected[names.index("late.commit.urgent")] = 20
    expected[names.index("late.dest.score")] = 2.5
    expected[names.index("switch")] = 6
    assert np.array_equal(config.weights["A"], expected)
    result = runner.invoke(main, ["--games", "200", "--team-a", f"@{path}", "--out",
                                  str(tmp_path / "run"), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert f"@{path}" in result.stdout               # the summary names the file
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["strategies"]["A"]["name"] == f"@{path}"


def test_a_counts_own_weights_play_at_that_count_only(tmp_path):
    """``by_players``: a 2-player game plays the file's weights with its 2-player entries
    on top, a 4-player game the file's weights alone; a search player over the file
    plays the same vectors."""
    from sim import api
    from sim.games.peer_to_peer import features

    path = _file(tmp_path, GOOD + "by_players:\n  2:\n    late.dest.score: -1\n    switch: 3\n")
    names = list(features.WEIGHT_NAMES)
    vectors = {}
    for players in (2, 4):
        config = api.configure("peer-to-peer", players,
                               strategies={"A": f"@{path}", "B": f"search:base=@{path}"})
        vectors[players] = config.weights["A"]
        assert np.array_equal(config.weights["B"], config.weights["A"])
    assert vectors[4][names.index("late.dest.score")] == 2.5 and vectors[4][names.index("switch")] == 6
    assert vectors[2][names.index("late.dest.score")] == -1 and vectors[2][names.index("switch")] == 3
    assert vectors[2][names.index("late.commit.urgent")] == 20     # not named at 2: the file's
    differ = [n for n, a, b in zip(names, vectors[2], vectors[4]) if a != b]
    assert differ == ["late.dest.score", "switch"]


def test_file_strategy_in_matchups_and_experiments(runner, tmp_path):
    path = _file(tmp_path, GOOD, "mine.yaml")
    result = runner.invoke(main, ["matchups", "--players", "2", "--games", "40", "--strategies",
                                  f"greedy,@{path}", "--out", str(tmp_path / "m")])
    assert result.exit_code == 0, result.output
    assert f"@{path}" in result.stdout
    experiments = tmp_path / "experiments.yaml"
    experiments.write_text("tiny:\n  players: 2\n  games: 50\n  strategies:\n"
                           "    A: '@mine.yaml'\n    B: greedy\n")
    from sim.studies import experiments as exps

    exp = exps.get("tiny", str(experiments))
    assert exp.strategies["A"][0].startswith("@") and exp.strategies["A"][0].endswith("mine.yaml")
    experiments.write_text("tiny:\n  players: 2\n  games: 50\n  strategies:\n"
                           "    A: '@missing.yaml'\n")
    result = runner.invoke(main, ["experiment", "tiny", "--file", str(experiments),
                                  "--out", str(tmp_path / "e")])
    message = _one_line_error(result)
    assert f"{experiments}:5" in message and "missing.yaml" in message


def test_tune_refuses_bad_arguments_in_one_line(runner, tmp_path):
    for args, words in ((["tune", "--out", str(tmp_path / "x.txt")], ".yaml or .yml"),
                        (["tune", "--players", "1", "--out", str(tmp_path / "x.yaml")],
                         "at least 2 players"),
                        (["tune", "--base", "nosuch", "--out", str(tmp_path / "x.yaml")],
                         "unknown strategy 'nosuch'")):
        assert words in _one_line_error(runner.invoke(main, args))
