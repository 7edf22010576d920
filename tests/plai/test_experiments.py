"""Experiments, checks and --until-ci with game: plai."""
import textwrap

import numpy as np
import polars as pl
import pytest

from sim.studies import experiments
from sim.core.errors import UserError
from sim.studies.experiments import schema
from sim.studies.sequential import Tally

EXP = """
small:
  game: plai
  players: [2]
  games: 120
  seed: 4
  strategies: {all: aggressive, seat1: "bluffer:rate=0.4"}
  sweep:
    rule.takeover_threshold: [7, 9]
  baseline: {rule.takeover_threshold: 9}
  checks:
    - metric: stalemate_rate
      max: 100
    - metric: maintainers_win_rate
      min: 50
defaults:
  game: plai
  players: [3]
  games: 50
"""


@pytest.fixture(scope="module")
def exp_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("plai_exp") / "experiments.yaml"
    path.write_text(EXP)
    return path


@pytest.fixture(scope="module")
def ran(exp_file, tmp_path_factory):
    exp = experiments.get("small", exp_file)
    out = tmp_path_factory.mktemp("plai_exp_run") / "out"
    return experiments.run_experiment(exp, out=out, threads=1, progress=False)


def test_plai_experiment_parses_seats_and_default_metrics(exp_file):
    exp = experiments.get("small", exp_file)
    assert exp.game == "plai"
    assert exp.strategies == {"all": ("aggressive", {}), "seat1": ("bluffer", {"rate": 0.4})}
    # every seat of the largest player count (2 here), then the turn-order advantages
    assert exp.metrics == ("seat0_win_rate", "seat1_win_rate", "first_player_advantage",
                           "last_player_advantage", "maintainers_win_rate", "stalemate_rate",
                           "mean_turns")
    point = exp.points()[0]
    assert point.strategies == {"all": "aggressive", "seat1": "bluffer:rate=0.4"}
    assert experiments.get("defaults", exp_file).metrics[0] == "seat0_win_rate"


def test_plai_experiment_runs_every_point_with_paired_metrics(ran):
    assert [p["name"] for p in ran.points] == ["2p-takeover_threshold=7", "2p-takeover_threshold=9"]
    from reports.sweep import estimate, sweep_tables

    for p in ran.points:
        games = pl.read_parquet(f"{p['run_dir']}/games/*.parquet")
        assert games.height == 120
        seat0 = int(((games["outcome"] == 0) & (games["winner"] == 0)).sum())
        assert estimate("seat0_win_rate", p["games"])["est"] == pytest.approx(100 * seat0 / 120)
        first = int(((games["outcome"] == 0) & (games["winner"] == games["first_seat"])).sum())
        decided = int((games["outcome"] == 0).sum())
        assert estimate("first_player_share", p["games"])["est"] == pytest.approx(100 * first / decided)
        assert estimate("mean_turns", p["games"])["est"] == pytest.approx(games["turns"].mean())
    table, diffs = sweep_tables(ran.points, ran.experiment.metrics)
    assert table.height == 2 and set(diffs["metric"]) == set(ran.experiment.metrics)
    assert ran.report["html"].is_file()
    assert "Seat 0 win rate" in ran.table_text()


def test_plai_checks(exp_file, tmp_path):
    from sim.studies.experiments.check import evaluate

    exp = experiments.get("small", exp_file)
    rows = evaluate(exp.checks, [{"name": "p", "players": 2, "values": {"rule.takeover_threshold": 9},
                                  "games": _games([0, 1, 0] * 10, [0, 0, 0] * 10)}])
    assert [r.status for r in rows] == ["pass", "fail"]


def _games(winners, outcomes):
    n = len(winners)
    return {"game_index": np.arange(n), "winner": np.asarray(winners),
            "outcome": np.asarray(outcomes), "turns": np.full(n, 10),
            "first_seat": np.zeros(n, dtype=int), "players": np.full(n, 2)}


@pytest.mark.parametrize("body,needle", [
    ("metrics: [a_share]", "does not apply to plai"),
    ("strategies: {A: aggressive}", "expected a seat"),
    ("sweep: {strategy.A: [aggressive]}", "strategy.seatN"),
    ("metrics: [nosuch]", "unknown metric 'nosuch'"),
])
def test_plai_schema_errors_name_the_line(tmp_path, body, needle):
    path = tmp_path / "e.yaml"
    path.write_text(textwrap.dedent(f"""\
        bad:
          game: plai
          players: [2]
          {body}
        """))
    with pytest.raises(UserError, match=needle) as info:
        schema.load(path)
    assert f"{path}:4" in str(info.value)


def test_peer_to_peer_rejects_plai_metrics(tmp_path):
    path = tmp_path / "e.yaml"
    path.write_text("bad:\n  players: [4]\n  metrics: [stalemate_rate]\n")
    with pytest.raises(UserError, match="does not apply to peer-to-peer"):
        schema.load(path)


def test_strategy_axis_by_seat(tmp_path):
    path = tmp_path / "e.yaml"
    path.write_text(textwrap.dedent("""\
        seats:
          game: plai
          players: [3]
          sweep:
            strategy.seat2: [aggressive, cautious]
            strategy.all.rate: [0.2]
          strategies: {all: bluffer}
        """))
    exp = schema.load(path)["seats"]
    names = [p.name for p in exp.points()]
    assert names == ["3p-seat2=aggressive-all.rate=0.2", "3p-seat2=cautious-all.rate=0.2"]
    assert exp.points()[1].strategies == {"all": "bluffer:rate=0.2", "seat2": "cautious"}


def test_the_shipped_plai_experiment_is_valid():
    exp = experiments.get("plai_first_player", "experiments.yaml")
    assert exp.game == "plai" and exp.players == (2, 3, 4, 5)
    assert exp.checks[0].metric == "first_player_share"


def test_until_ci_tally_for_plai():
    import polars as pl
    from sim.core.game import resolve_game

    tally = Tally(resolve_game("plai"), players=3, z=1.959964)
    tally.add(pl.DataFrame({"winner": [0, 2, 2, -1, -1, 1], "outcome": [0, 0, 0, 1, 2, 0]}))
    got = tally.intervals()
    assert list(got) == ["seat 0 win rate", "seat 1 win rate", "seat 2 win rate",
                         "maintainers win rate", "stalemate rate"]
    assert [round(v["rate"], 4) for v in got.values()] == [round(x / 6, 4)
                                                           for x in (1, 1, 2, 1, 1)]


def test_the_sweep_report_names_what_every_point_fixes(tmp_path):
    """The card changes and rule options every point plays are in the report and in
    experiment.json, as well as in each point's files."""
    path = tmp_path / "e.yaml"
    path.write_text(textwrap.dedent("""
        fixed:
          game: plai
          players: [2]
          games: 40
          card_overrides:
            Daily Standups.strength: 4
          rules:
            takeover_threshold: 8
          sweep:
            strategy.seat1: [aggressive, cautious]
          metrics: [seat0_win_rate, seat2_win_rate]
        """).lstrip("\n"))
    result = experiments.run_experiment(experiments.get("fixed", path), out=tmp_path / "out",
                                        threads=1, progress=False)
    text = result.report["markdown"].read_text()
    assert "Cards changed at every point: Daily Standups.strength = 4." in text
    assert "Rule options at every point: takeover_threshold=8." in text
    assert "Daily Standups.strength = 4" in (tmp_path / "out" / "experiment.json").read_text()
    # the same --out with other fixed cards: refused, not resumed with the old cards
    path.write_text(path.read_text().replace("strength: 4", "strength: 5"))
    with pytest.raises(UserError, match="cards and rules every point plays differ"):
        experiments.run_experiment(experiments.get("fixed", path), out=tmp_path / "out",
                                   threads=1, progress=False)
    # seat 2 at 2 players: no game counts toward it, so no share of games is the same for it
    seat2 = [line for line in text.splitlines() if "| seat2_win_rate |" in line]
    assert seat2 and all(line.rstrip(" |").endswith("| n/a") for line in seat2), seat2
