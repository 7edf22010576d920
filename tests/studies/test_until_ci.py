"""--until-ci W: stop once every headline interval is narrower than W, with intervals
corrected for looking after every chunk (Bonferroni over the planned looks)."""
import json
from statistics import NormalDist

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from sim.core.stats import wilson
from sim.cli import main
from sim.core.errors import UserError
from sim.studies.sequential import Tally, parse_width, z_for_looks


@pytest.mark.parametrize("text, width", [("1", 1.0), ("0.5", 0.5), ("2pp", 2.0), ("1.5%", 1.5)])
def test_width_is_in_percentage_points(text, width):
    assert parse_width(text) == width


@pytest.mark.parametrize("bad", ["0", "-1", "abc", "100", ""])
def test_bad_width_is_a_user_error(bad):
    with pytest.raises(UserError):
        parse_width(bad)


def test_bonferroni_z_over_planned_looks():
    assert z_for_looks(1) == pytest.approx(1.959964, abs=1e-5)
    # 20 looks: each at 1 - 0.05/20 two-sided -> upper tail 0.00125
    assert z_for_looks(20) == pytest.approx(NormalDist().inv_cdf(1 - 0.00125))
    assert z_for_looks(20) == pytest.approx(3.023, abs=1e-3)


def test_tally_counts_solo_wins_for_team_a_and_uses_the_corrected_z():
    import polars as pl
    from sim.core.game import resolve_game

    tally = Tally(resolve_game("peer-to-peer"), players=4, z=3.0)
    tally.add(pl.DataFrame({"winner": [0, 1, 3, 3, 4, 2, 5, 0]}))  # A, B, lose, lose, solo, draw, timeout, A
    assert tally.n == 8
    assert tally.counts == {"team A win rate": 3, "all-lose rate": 2, "team B win rate": 1}
    got = tally.intervals()["team A win rate"]
    p, lo, hi = wilson(3, 8, 3.0)
    assert (got["lo"], got["hi"]) == (lo, hi)
    assert tally.narrow(100.0) and not tally.narrow(10.0)


def test_bonferroni_keeps_coverage_when_looking_after_every_chunk():
    """Simulated: the chance that a 95 % interval misses the true rate at SOME look is far
    above 5 % without correction and at most about 5 % with it (the union bound)."""
    rng = np.random.default_rng(5)
    p, looks, chunk, reps = 0.3, 10, 200, 4000
    wins = rng.binomial(chunk, p, size=(reps, looks)).cumsum(axis=1)
    n = chunk * np.arange(1, looks + 1)

    def missed_somewhere(z):
        _, lo, hi = wilson(wins, np.broadcast_to(n, wins.shape), z)
        return float(np.mean(np.any((lo > p) | (hi < p), axis=1)))

    assert missed_somewhere(1.959964) > 0.10
    assert missed_somewhere(z_for_looks(looks)) <= 0.06


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("uci")
    runner = CliRunner()
    wide = runner.invoke(main, ["--games", "3000", "--chunk-size", "1000", "--until-ci", "60",
                                "--out", str(root / "wide"), "--no-progress", "--seed", "3"])
    narrow = runner.invoke(main, ["--games", "3000", "--chunk-size", "1000", "--until-ci", "0.1",
                                  "--out", str(root / "narrow"), "--no-progress", "--seed", "3"])
    return root, wide, narrow


def test_wide_width_stops_after_the_first_chunk(runs):
    root, wide, _ = runs
    assert wide.exit_code == 0, wide.output
    manifest = json.loads((root / "wide" / "manifest.json").read_text())
    # any Wilson interval from 1000 games is narrower than 60 points
    assert manifest["complete"] and manifest["games"] == 1000
    assert manifest["until_ci"]["looks"] == 1 and manifest["until_ci"]["looks_planned"] == 3
    assert manifest["until_ci"]["z"] == pytest.approx(z_for_looks(3))
    assert "every headline interval is narrower" in wide.output
    assert "Bonferroni over 3 looks" in wide.output
    # the table's intervals are fixed-sample ones; the output says which ones hold the stop
    assert "the table's intervals above are for a fixed number of games" in wide.output


def test_narrow_width_plays_every_chunk_and_the_prefix_matches(runs):
    root, _, narrow = runs
    assert narrow.exit_code == 0, narrow.output
    manifest = json.loads((root / "narrow" / "manifest.json").read_text())
    assert manifest["complete"] and manifest["games"] == 3000
    assert manifest["until_ci"]["looks"] == 3 and "reached --games" in manifest["until_ci"]["stopped"]
    # game i of a seed is the same game however long the run: the stopped run is a prefix
    short = pl.read_parquet(str(root / "wide" / "games" / "*.parquet")).sort("game_index")
    full = pl.read_parquet(str(root / "narrow" / "games" / "*.parquet")).sort("game_index")
    assert short.equals(full.head(1000))
    # the corrected interval of the full run is what was reported
    wins = int(full["winner"].is_in([0, 4]).sum())
    _, lo, hi = wilson(wins, 3000, z_for_looks(3))
    got = manifest["until_ci"]["intervals"]["team A win rate"]
    assert got["lo"] == pytest.approx(lo) and got["hi"] == pytest.approx(hi)


def test_resume_of_a_stopped_run_has_nothing_to_do(runs):
    root, _, _ = runs
    result = CliRunner().invoke(main, ["--resume", str(root / "wide"), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert json.loads((root / "wide" / "manifest.json").read_text())["games"] == 1000


def test_a_run_stopped_in_its_second_look_resumes_to_the_uninterrupted_end(runs, tmp_path):
    """Stopped while playing its second look (as Ctrl-C leaves it: the manifest grown to
    that look, its chunk missing, the until-ci state as it started), --resume finishes
    that look and goes on looking: the narrow run's 3,000 games and its stop, not 2,000."""
    import shutil

    root, _, narrow = runs
    out = tmp_path / "stopped"
    shutil.copytree(root / "narrow", out)
    manifest = json.loads((out / "manifest.json").read_text())
    state = {key: value for key, value in manifest["until_ci"].items() if key != "intervals"}
    manifest.update(games=2000, complete=False, status="interrupted", games_done=1000,
                    chunks_done=1, until_ci={**state, "looks": 0, "stopped": None})
    manifest["chunks"].update(count=2, last_count=1000)
    (out / "manifest.json").write_text(json.dumps(manifest))
    for start in (1000, 2000):
        (out / "games" / f"part-3-{start:012d}.parquet").unlink()
    result = CliRunner().invoke(main, ["--resume", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    resumed = json.loads((out / "manifest.json").read_text())
    expected = json.loads((root / "narrow" / "manifest.json").read_text())
    assert resumed["complete"] and resumed["games"] == 3000
    assert resumed["until_ci"] == expected["until_ci"]
    assert "reached --games" in result.output
    full = pl.read_parquet(str(root / "narrow" / "games" / "*.parquet")).sort("game_index")
    assert pl.read_parquet(str(out / "games" / "*.parquet")).sort("game_index").equals(full)


def test_the_api_without_games_may_play_up_to_the_cli_maximum(tmp_path):
    """api.run(until_ci=W) without games: at most 1e7 games, as the CLI's --until-ci (not
    a plain run's default 1,000)."""
    from sim import api
    from sim.studies.sequential import DEFAULT_MAX_GAMES

    result = api.run(until_ci=60, chunk_size=1000, threads=1, progress=False,
                     out=tmp_path / "r")
    assert result.manifest["until_ci"]["max_games"] == DEFAULT_MAX_GAMES
    assert result.manifest["games"] == 1000     # one look was enough


def test_until_ci_conflicts_with_resume_and_subcommands(tmp_path):
    result = CliRunner().invoke(main, ["--until-ci", "1", "--resume", str(tmp_path)])
    assert result.exit_code == 2 and "--until-ci" in result.output
    result = CliRunner().invoke(main, ["--until-ci", "1", "strategies"])
    assert result.exit_code == 2
