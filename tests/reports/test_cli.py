"""simulate report / --report / balance-report through click's CliRunner."""
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from sim.api import balance_points
from sim.cli import main


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    runner = CliRunner()
    dirs = []
    for mode in ("extra_venture", "none"):
        out = base / mode
        result = runner.invoke(main, ["--games", "1500", "--players", "3", "--rule",
                                      f"odd_team_compensation={mode}", "--out", str(out),
                                      "--no-progress", "--json"])
        assert result.exit_code == 0, result.output
        dirs.append(str(out))
    return dirs


def test_report_command_writes_html_markdown_and_tables(runner, two_runs, tmp_path):
    out = tmp_path / "rep"
    result = runner.invoke(main, ["report", *two_runs, "--out", str(out)])
    assert result.exit_code == 0, result.output
    html = (out / "report.html").read_text()
    assert "http://" not in html and "https://" not in html
    assert html.count('src="data:image/png;base64,') >= 3
    assert (out / "report.md").exists() and list(out.glob("*.csv"))
    assert "imbalance" in result.stdout
    assert "strategies: expert vs expert (3 players)" in result.stdout   # the default, named


def test_report_refuses_runs_with_other_rules_unless_allowed(runner, two_runs, tmp_path):
    other = tmp_path / "other"
    made = runner.invoke(main, ["--games", "500", "--players", "3", "--rule", "hand_size=5",
                                "--out", str(other), "--no-progress"])
    assert made.exit_code == 0, made.output
    refused = runner.invoke(main, ["report", two_runs[0], str(other), "--out", str(tmp_path / "r")])
    assert refused.exit_code == 2 and "hand_size" in refused.stderr
    allowed = runner.invoke(main, ["report", two_runs[0], str(other), "--out",
                                   str(tmp_path / "r2"), "--allow-mixed"])
    assert allowed.exit_code == 0, allowed.output


def test_one_runs_report_goes_beside_it_and_several_runs_need_out(runner, two_runs, tmp_path):
    run = tmp_path / "run"
    made = runner.invoke(main, ["--games", "300", "--out", str(run), "--no-progress"])
    assert made.exit_code == 0, made.output
    result = runner.invoke(main, ["report", str(run), "--stronger-play", "0"])
    assert result.exit_code == 0, result.output
    assert (run / "report" / "report.html").exists()      # where --report writes it
    assert f"report: {run / 'report' / 'report.html'}" in result.stdout
    several = runner.invoke(main, ["report", *two_runs])
    assert several.exit_code == 2 and "--out" in several.stderr
    assert not any((Path(d) / "report").exists() for d in two_runs)


def test_run_with_report_flag(runner, tmp_path):
    out = tmp_path / "run"
    result = runner.invoke(main, ["--games", "800", "--report", "--out", str(out), "--json",
                                  "--no-progress"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert Path(payload["report"]).exists() and payload["report"].startswith(str(out))
    text = runner.invoke(main, ["--games", "300", "--report", "--out", str(tmp_path / "run2"),
                                "--no-progress"])
    assert text.exit_code == 0, text.output
    # the report checks the answers under stronger play: no "not checked here" line
    assert "report: " in text.stdout and "under stronger play: not checked" not in text.stdout


def test_balance_report_has_no_players_option_and_says_why(runner):
    assert "--players" not in runner.invoke(main, ["balance-report", "--help"]).output
    refused = runner.invoke(main, ["balance-report", "--players", "3", "--games", "10"])
    assert refused.exit_code == 2 and "plays every player count" in refused.output


def test_balance_report_runs_every_player_count_and_mode(runner, tmp_path):
    points = balance_points("peer-to-peer")
    assert sorted({p for p, _ in points}) == [1, 2, 3, 4, 5, 6]
    assert sum(1 for p, _ in points if p == 3) == 3 and sum(1 for p, _ in points if p == 5) == 3
    out = tmp_path / "bal"
    result = runner.invoke(main, ["balance-report", "--games", "300", "--out", str(out),
                                  "--no-progress"])
    assert result.exit_code == 0, result.output
    assert len(list((out / "runs").iterdir())) == len(points)
    assert (out / "report.html").exists()
    assert "expert vs expert (4 players)" in result.stdout.split("strategies: ")[1]
    again = runner.invoke(main, ["balance-report", "--games", "300", "--out", str(out),
                                 "--no-progress"])
    assert again.exit_code == 2 and "--out" in again.stderr
