"""A new game is one package: the test game of tests/support/fake_game.py, copied into a package
of its own outside the repository under a name no file of the repository knows
(``tabletop_x.game``, game ``tabletop-x``) with a sweep metric no other game has, plays
through run, trace, report and an experiment sweep with nothing changed outside that
package (it is found through CARDSIM_EXTRA_GAMES). Its sweep metric comes from its own
description: reports.sweep has no list of metrics."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from sim import cli

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent
NAME = "tabletop-x"

EXTRA_METRIC = '''
SWEEP_METRICS = SWEEP_METRICS + (
    SweepMetric("long_game_rate", "Games of 30 rounds or more", "%", "rate", 100.0, 0.0,
                lambda g: (indicator(g["rounds"] >= 30), ones(g, "rounds")),
                "Share of games lasting 30 rounds or more.", ("rounds",)),
)


'''


def tracked_files() -> str:
    done = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True, text=True)
    return done.stdout if done.returncode == 0 else ""


@pytest.fixture
def new_game(tmp_path, monkeypatch):
    """The package tabletop_x/ (game.py and its card file) in tmp_path, registered."""
    package = tmp_path / "pkgs" / "tabletop_x"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    source = (TESTS / "support" / "fake_game.py").read_text(encoding="utf-8")
    source = source.replace('"fake"', f'"{NAME}"')
    cards = 'Path(__file__).resolve().parent.parent / "data" / "fake_cards.csv"'
    assert cards in source
    source = source.replace(cards, 'Path(__file__).with_name("cards.csv")')
    marker = "# Everything the commands know about"
    assert marker in source
    source = source.replace(marker, EXTRA_METRIC + marker, 1)
    source = source.replace('default_sweep_metrics=default_sweep_metrics',
                            'default_sweep_metrics=lambda players: ("long_game_rate",)')
    (package / "game.py").write_text(source, encoding="utf-8")
    (package / "cards.csv").write_bytes((TESTS / "data" / "fake_cards.csv").read_bytes())
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    monkeypatch.setenv("CARDSIM_EXTRA_GAMES", f"{NAME}=tabletop_x.game")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def invoke(*args: str):
    return CliRunner().invoke(cli.main, list(args), catch_exceptions=False)


def test_no_file_of_the_repository_knows_the_new_game():
    done = subprocess.run(["git", "grep", "-n", "-e", "tabletop_x", "-e", "long_game_rate",
                           "--", ".", ":!tests/core/test_new_game_package.py"],
                          cwd=ROOT, capture_output=True, text=True)
    if done.returncode == 128:
        pytest.skip("not a git checkout")
    assert done.stdout == ""


def test_a_new_game_package_plays_through_every_command(new_game):
    before = tracked_files()
    run = new_game / "run"
    result = invoke("--game", NAME, "--games", "400", "--seed", "2", "--out", str(run),
                    "--json", "--no-progress")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["game"] == NAME
    traced = invoke("trace", "--game", NAME, "--seed", "2", "--game-index", "5")
    assert traced.exit_code == 0 and "round" in traced.output, traced.output
    reported = invoke("report", str(run), "--out", str(new_game / "report"))
    assert reported.exit_code == 0, reported.output
    assert (new_game / "report" / "report.html").is_file()

    (new_game / "experiments.yaml").write_text(f"""
lengths:
  game: {NAME}
  players: [4]
  games: 400
  seed: 3
  sweep:
    rule.bonus: [0, 30]
""")
    swept = invoke("experiment", "lengths", "--file", str(new_game / "experiments.yaml"),
                   "--out", str(new_game / "e"), "--no-progress")
    assert swept.exit_code == 0, swept.output
    sweep = pl.read_csv(next((new_game / "e").rglob("sweep.csv")))
    # its own metric, from its description: 30 more rounds make every game a long one
    rate = dict(zip(sweep["rule.bonus"].to_list(), sweep["long_game_rate"].to_list()))
    assert rate[30] == 100.0 and rate[0] < 100.0
    assert tracked_files() == before
