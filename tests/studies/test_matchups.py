"""simulate matchups / sim.studies.matchups and simulate strategies: layout, balance, errors."""
from __future__ import annotations

import csv
import io
import json
import types

import pytest
from click.testing import CliRunner

from sim import cli
from sim.studies import matchups
from sim.core.strategy import registry


def invoke(*args: str):
    return CliRunner().invoke(cli.main, list(args))


def test_split_specs_keeps_parameters_with_their_strategy():
    assert matchups.split_specs("random, builder:threshold=12,x=1,greedy") == [
        "random", "builder:threshold=12,x=1", "greedy"]


def test_a_search_spec_keeps_its_base_name_among_its_numbers():
    """A search player over a named base (search:base=...) is listed as given; its numbers
    in their short form."""
    from sim.studies.matchup_files import strategy_names

    assert strategy_names("greedy,search:k=8.0,n=16,base=cautious",
                          "peer_to_peer", "greedy,builder") == [
        "greedy", "search:k=8,n=16,base=cautious"]


@pytest.fixture(scope="module")
def odd_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("matchups") / "run"
    return matchups.run("greedy,builder:threshold=12", players=3, games=801, seed=4, out=out,
                        threads=1)


def test_every_ordered_pair_plays_both_markers_on_distinct_games(odd_run):
    pairs = odd_run.pairs
    assert [(p["team_a"], p["team_b"], p["first_marker"]) for p in pairs] == [
        (a, b, m) for a in odd_run.strategies for b in odd_run.strategies for m in "AB"]
    for a, b in {(p["team_a"], p["team_b"]) for p in pairs}:
        halves = [p["games"] for p in pairs if (p["team_a"], p["team_b"]) == (a, b)]
        assert sorted(halves) == [400, 401]
    starts = sorted(p["first_game_index"] for p in pairs)
    assert all(lo + 401 <= hi for lo, hi in zip(starts, starts[1:]))  # no game played twice
    assert all(p["errors"] == p["timeouts"] == 0 for p in pairs)


def test_matrix_pools_both_seatings_so_each_strategy_is_on_the_larger_team(odd_run):
    x, y = odd_run.strategies
    xy, yx = odd_run.cell(x, y), odd_run.cell(y, x)
    assert xy["games"] == yx["games"] == 2 * 801
    assert xy["wins"] == yx["losses"] and xy["losses"] == yx["wins"]
    assert xy["ci_low"] <= xy["win_rate"] <= xy["ci_high"]


def test_run_directory_holds_csv_table_and_manifest(odd_run):
    files = {p.name for p in odd_run.run_dir.iterdir()}
    assert files == {"manifest.json", "matrix.csv", "pairs.csv", "matrix.txt"}
    with open(odd_run.run_dir / "matrix.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 4 and tuple(rows[0]) == matchups.MATRIX_COLUMNS
    manifest = json.loads((odd_run.run_dir / "manifest.json").read_text())
    assert manifest["strategies"] == ["greedy", "builder:threshold=12"]
    assert manifest["games_per_pair"] == 801


def test_cli_prints_the_matrix(tmp_path):
    result = invoke("matchups", "--strategies", "random,greedy", "--players", "2", "--games",
                    "400", "--threads", "1", "--rule", "unhappy_limit=99",
                    "--out", str(tmp_path / "m"))
    assert result.exit_code == 0, result.output
    assert "random" in result.stdout and "[" in result.stdout and "run dir:" in result.stdout
    assert (tmp_path / "m" / "matrix.csv").is_file()


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("flag, shown", [([], True), (["--no-progress"], False)])
def test_matchups_show_their_progress_on_a_terminal(tmp_path, monkeypatch, flag, shown):
    """A long matchups shows how far it is (a bar of the games on stderr, a terminal's
    only); --no-progress leaves it out."""
    from sim.core import progress

    terminal = Terminal()
    monkeypatch.setattr(progress, "sys", types.SimpleNamespace(stderr=terminal))
    result = invoke("matchups", "--strategies", "random,greedy", "--players", "2", "--games",
                    "400", "--threads", "1", *flag, "--out", str(tmp_path / "m"))
    assert result.exit_code == 0, result.output
    assert ("matchups" in terminal.getvalue() and "100%" in terminal.getvalue()) == shown


@pytest.mark.parametrize("args, needle", [
    (["--strategies", "random,gredy"], "valid: builder, cautious, expert, expert-v1, greedy, random, search, weighted"),
    (["--strategies", "builder:treshold=1"], "valid: threshold"),
    (["--strategies", "random,greedy", "--players", "1"], "at least 2 players"),
    (["--strategies", "random,greedy", "--rule", "first_marker=A"], "first_marker"),
    (["--strategies", "random,random"], "listed twice"),
])
def test_user_errors_are_one_line_with_exit_2(args, needle):
    result = invoke("matchups", *args, "--games", "10")
    assert result.exit_code == 2, result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0]


def test_existing_output_directory_is_refused(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "x").write_text("x")
    result = invoke("matchups", "--strategies", "random", "--games", "10", "--out",
                    str(tmp_path / "m"))
    assert result.exit_code == 2 and "choose a new --out" in result.stderr


def test_ctrl_c_outside_a_long_command_is_one_line_with_exit_130(monkeypatch):
    """Ctrl-C where no command keeps work (here: listing strategies) ends on one line,
    not click's traceback."""
    from sim import api

    def interrupted(game):
        raise KeyboardInterrupt

    monkeypatch.setattr(api, "strategies", interrupted)
    result = invoke("strategies")
    assert result.exit_code == 130 and result.stderr.strip() == "simulate: interrupted"


def test_strategies_lists_every_registered_strategy_with_parameters():
    result = invoke("strategies", "--game", "peer-to-peer")
    assert result.exit_code == 0, result.output
    for name, strategy in registry("peer_to_peer").items():
        assert name in result.stdout and strategy.summary in result.stdout
    assert "threshold=10" in result.stdout
    bad = invoke("strategies", "--game", "nope")
    assert bad.exit_code == 2 and len(bad.stderr.splitlines()) == 1
