"""simulate check: thresholds from the YAML, judged on whole intervals; exit 0 / 1."""
import math

import numpy as np
import textwrap

import pytest

from sim.studies import experiments
from sim.cli import main
from sim.studies.experiments.check import judge


def _cond(text, tmp_path):
    path = tmp_path / "e.yaml"
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return experiments.get("e", str(path)).checks[0]


@pytest.mark.parametrize("bounds, lo, hi, expected", [
    ("max_abs: 3", -2.9, 2.9, "pass"),
    ("max_abs: 3", -1.0, 3.1, "undecided"),   # the interval reaches past +3: not shown to hold
    ("max_abs: 3", 3.5, 6.0, "fail"),
    ("max: 15", 10.0, 14.99, "pass"),
    ("max: 15", 14.0, 16.0, "undecided"),
    ("max: 15", 15.01, 18.0, "fail"),
    ("min: 40", 40.0, 45.0, "pass"),
    ("{target: 50, tolerance: 1}", 49.2, 50.8, "pass"),
    ("{target: 50, tolerance: 1}", 48.5, 50.5, "undecided"),
    ("{target: 50, tolerance: 1}", 51.5, 53.0, "fail"),
    ("{target: 50, tolerance: 0}", 50.0, 50.0, "pass"),
    ("max: 15", math.nan, math.nan, "undecided"),
])
def test_judge_uses_the_whole_interval(tmp_path, bounds, lo, hi, expected):
    if bounds.startswith("{"):
        check = "    - {metric: all_lose_rate, " + bounds[1:-1] + "}\n"
    else:
        check = f"    - metric: all_lose_rate\n      {bounds}\n"
    cond = _cond("e:\n  players: [4]\n  checks:\n" + check, tmp_path)
    assert judge(cond, lo, hi) == expected


def test_bounds_need_a_bound_and_target_needs_tolerance(tmp_path):
    from sim.core.errors import UserError

    with pytest.raises(UserError, match="needs a bound"):
        _cond("e:\n  checks:\n    - metric: imbalance\n", tmp_path)
    with pytest.raises(UserError, match="target needs 'tolerance'") as caught:
        _cond("e:\n  checks:\n    - metric: imbalance\n      target: 0\n", tmp_path)
    assert caught.value.line == 4


GATE = """
    gate:
      players: [2, 4]
      games: 400
      strategies: {A: greedy, B: greedy}
      sweep:
        rule.hand_size: [4, 5]
      checks:
        {checks}
"""


def _gate(tmp_path, checks):
    path = tmp_path / "gate.yaml"
    path.write_text(textwrap.dedent(GATE).lstrip("\n").replace("{checks}", checks))
    return str(path)


def test_check_passes_with_exit_0_and_runs_only_selected_points(runner, tmp_path):
    # every game lasts at least one round and a rate lies in [0, 100] %: these hold
    path = _gate(tmp_path, "- {metric: mean_rounds, players: 4, where: {rule.hand_size: 5}, min: 1}\n"
                           "    - {metric: all_lose_rate, players: 4, max: 100, min: 0}")
    out = tmp_path / "kept"
    result = runner.invoke(main, ["check", "gate", "--file", path, "--out", str(out),
                                  "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "all checks hold" in result.output
    assert result.output.count("pass") == 3   # one point for the first check, two for the second
    # only 4-player points were played (2 players selected by no check)
    assert sorted(p.name for p in out.iterdir() if p.is_dir() and p.name != "report") == \
        ["4p-hand_size=4", "4p-hand_size=5"]


def test_check_fails_with_exit_1(runner, tmp_path):
    # a zero-width band can never hold an interval of positive width
    path = _gate(tmp_path, "- {metric: mean_rounds, players: 4, target: 5, tolerance: 0}")
    result = runner.invoke(main, ["check", "gate", "--file", path, "--games", "200",
                                  "--no-progress"])
    assert result.exit_code == 1, result.output
    assert "2 of 2 failed" in result.output and "(200 games per point)" in result.output


def test_the_verdict_tells_undecided_checks_from_failed_ones():
    from sim.studies.experiments.check import CheckResult, CheckRow

    def row(status):
        return CheckRow("c", "4p", 5.0, 4.0, 6.0, 0.95, "≤ 5 pp", status)

    result = CheckResult([row("undecided"), row("undecided"), row("pass")], 1000)
    assert result.table().endswith("2 of 3 did not hold: 0 failed, 2 undecided (more games "
                                   "may settle them) (1,000 games per point)")
    result = CheckResult([row("fail"), row("undecided")], 1000)
    assert "2 of 2 did not hold: 1 failed, 1 undecided (more games may settle it)" in \
        result.table()
    assert "1 of 1 failed (" in CheckResult([row("fail")], 10).table()


def test_a_metric_the_point_lacks_is_not_applicable_and_the_gate_can_pass(runner, tmp_path):
    """Seat 2 at 2 players: no game counts toward its win rate, so the 2-player point is
    n/a (no more games could settle it), and the 3-player point decides the check."""
    path = tmp_path / "e.yaml"
    path.write_text("gate:\n  game: plai\n  players: [2, 3]\n  checks:\n"
                    "    - {metric: seat2_win_rate, max: 90}\n")
    result = runner.invoke(main, ["check", "gate", "--file", str(path), "--games", "300",
                                  "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "N/A" in result.output and "nan" not in result.output
    assert "all checks hold; 1 not applicable" in result.output


def test_a_check_that_applies_at_no_point_it_selects_is_refused_at_its_line(runner, tmp_path):
    path = tmp_path / "e.yaml"
    path.write_text("gate:\n  game: plai\n  players: [2, 3]\n  checks:\n"
                    "    - {metric: seat4_win_rate, max: 90}\n")
    result = runner.invoke(main, ["check", "gate", "--file", str(path), "--games", "50"])
    assert result.exit_code == 2
    assert "e.yaml:5" in result.output and "applies from 5 players" in result.output


def test_a_metric_no_game_happened_to_count_toward_is_undecided_not_na():
    """a_share with no game won by a team: more games may settle it, so undecided."""
    from sim.games.peer_to_peer.constants import ALL_LOSE
    from sim.studies.experiments.check import evaluate
    from sim.studies.experiments.model import Condition

    cond = Condition("a_share", 40.0, 60.0, None, (), 0.95, "a_share 40 to 60", None)
    games = {"game_index": np.arange(20), "winner": np.full(20, ALL_LOSE, dtype=np.int8),
             "rounds": np.full(20, 5)}
    point = {"name": "4p", "players": 4, "values": {}, "games": games}
    assert [row.status for row in evaluate([cond], [point], "peer-to-peer")] == ["undecided"]


def test_check_without_checks_is_a_user_error(runner, tmp_path):
    path = tmp_path / "none.yaml"
    path.write_text("plain:\n  players: [4]\n")
    result = runner.invoke(main, ["check", "plain", "--file", str(path)])
    assert result.exit_code == 2 and "declares no checks" in result.output


def test_a_team_metric_at_one_player_is_not_applicable(tmp_path, runner):
    """A solo game has no team B: the imbalance check there is n/a (not undecided), and
    the sweep table shows team B's win rate as n/a, not as a certain 0 %."""
    path = tmp_path / "solo.yaml"
    path.write_text(textwrap.dedent("""
        solo:
          players: [1, 2]
          games: 300
          checks:
            - {metric: imbalance, max_abs: 40}
    """).lstrip())
    args = ["--file", str(path), "--threads", "1", "--no-progress", "--out",
            str(tmp_path / "out")]
    checked = runner.invoke(main, ["check", "solo"] + args)
    assert checked.exit_code == 0, checked.output
    row = next(line for line in checked.output.splitlines() if "  1p  " in line)
    assert row.split()[-1] == "N/A" and "UNDECIDED" not in checked.output
    assert "1 not applicable" in checked.output
    assert checked.output.splitlines()[-1] == (
        "played with strategies expert (solo) (1 player); expert vs expert (2 players); "
        "cards: the default card file (tech-deck-reconstruction.csv, a reconstruction)")
    shown = runner.invoke(main, ["experiment", "solo", "--no-report"] + args)
    assert shown.exit_code == 0, shown.output
    solo = next(line for line in shown.output.splitlines() if line.startswith("1p "))
    assert solo.count("n/a") == 2, solo    # team A's share of team wins and B's win rate


def test_a_check_of_other_points_rewrites_a_report_that_lacks_them(runner, tmp_path):
    """The report in OUT names the points it covers (experiment.json): a check playing
    points outside them rewrites it; one playing only covered points leaves it."""
    import json

    out = tmp_path / "o"
    args = ["--out", str(out), "--games", "100", "--no-progress"]
    four = _gate(tmp_path, "- {metric: all_lose_rate, players: 4, max: 100}")
    assert runner.invoke(main, ["check", "gate", "--file", four] + args).exit_code == 0
    report = (out / "report" / "sweep.md").read_text()
    assert "4p-hand_size=4" in report and "2p-hand_size=4" not in report
    both = _gate(tmp_path, "- {metric: all_lose_rate, max: 100}")
    assert runner.invoke(main, ["check", "gate", "--file", both] + args).exit_code == 0
    report = (out / "report" / "sweep.md").read_text()
    assert "2p-hand_size=4" in report and "4p-hand_size=5" in report
    assert len(json.loads((out / "experiment.json").read_text())["report_points"]) == 4
    assert runner.invoke(main, ["check", "gate", "--file", four] + args).exit_code == 0
    assert (out / "report" / "sweep.md").read_text() == report


def test_a_retuned_expert_is_named_as_such_not_by_a_file_the_check_removed(runner, tmp_path,
                                                                          monkeypatch):
    """check without --out tunes 'expert' in a temporary directory: its played line names
    the retuned expert once for every point, not a deleted expert.yaml per point."""
    from sim.studies import tune

    def fake_tune(*, out, **_):   # a tuned expert without the minutes of tuning
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("cardsim_strategy: 1\ngame: peer-to-peer\nname: mine\nbase: greedy\n"
                       "weights:\n  early.commit.cards: -1.0\n")
    monkeypatch.setattr(tune, "tune_strategy", fake_tune)
    path = tmp_path / "gate.yaml"
    path.write_text(textwrap.dedent("""
        gate:
          players: 2
          games: 200
          strategies: {A: expert, B: greedy}
          retune: true
          sweep:
            rule.hand_size: [4, 5]
          checks:
            - {metric: all_lose_rate, max: 100}
    """).lstrip("\n"))
    result = runner.invoke(main, ["check", "gate", "--file", str(path), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "expert.yaml" not in result.output
    assert "strategies expert (retuned at each point) vs greedy (2 players)" in result.output
