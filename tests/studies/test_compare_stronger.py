"""simulate compare under stronger play (sim/studies/compare_stronger.py): the lowest game
indices both runs hold, replayed with search on every side of both runs, tallied paired, and
every change set beside the runs' own."""
from __future__ import annotations

import hashlib
import json
import math
import re
import shutil
import sys
from pathlib import Path

import polars as pl
import pytest

from sim import api
from sim.cli import main
from sim.core.attribution import contrast
from sim.core.errors import UserError
from sim.core.game import resolve_game
from sim.core.paired import headline_indicators, paired_interval
from sim.core.stats import Z95
from sim.games.peer_to_peer.measures import team_balance_measure
from sim.runs.kept_search import KEPT_FOLDER, KeptSearchGames
from sim.studies.compare_stronger import check_change, points_section

SWEEP_VERDICT = {"holds": "holds", "changes": "differs", "not decided": "not decided",
                 None: "not checked"}   # a change's status, as the sweep report's table says it

GAMES, SEARCHED = 300, 24


@pytest.fixture(scope="module")
def edited(tmp_path_factory):
    """4-player Peer-to-Peer, seed 3: the default cards and Technology 13's value 13 -> 10."""
    root = tmp_path_factory.mktemp("compare-stronger")
    cards = root / "te13.csv"
    cards.write_text(api.default_cards("peer-to-peer").replace(
        "TE13,Technology 13,Technology,13,", "TE13,Technology 13,Technology,10,"))
    for name, extra in (("base", {}), ("edit", {"cards": str(cards)})):
        api.run(game="peer-to-peer", players=4, games=GAMES, seed=3, out=root / name,
                progress=False, **extra)
    return root, cards


def test_the_search_games_are_both_runs_lowest_indices_played_by_search_and_paired(edited):
    root, cards = edited
    result = api.compare(root / "base", root / "edit", stronger_play_games=SEARCHED,
                         threads=1)
    found = result.stronger
    assert found["checked"] and found["games"] == SEARCHED
    assert found["strategies"]["baseline"] == "A=search:base=expert, B=search:base=expert"
    # the same games played directly by search on both configurations
    searched = {"A": "search:base=expert", "B": "search:base=expert"}
    tables = {side: api.run(game="peer-to-peer", players=4, games=SEARCHED, seed=3,
                            out=root / f"search-{side}", progress=False, strategies=searched,
                            **extra)
              for side, extra in (("baseline", {}), ("edit", {"cards": str(cards)}))}
    games = {side: pl.read_parquet(root / f"search-{side}" / "games" / "*.parquet")
             .sort("game_index") for side in tables}
    measure = team_balance_measure(4)
    direct = contrast([measure.arrays(games["baseline"]), measure.arrays(games["edit"])],
                      [-1.0, 1.0])
    row, = found["balance"]
    d = row["difference"]
    assert (d["mean"], d["lo"], d["hi"]) == pytest.approx(
        (direct["est"], direct["lo"], direct["hi"]), abs=1e-12)
    game = resolve_game("peer-to-peer")
    base_hits = headline_indicators(game, games["baseline"], 4)
    edit_hits = headline_indicators(game, games["edit"], 4)
    for headline in found["headlines"]:
        diff = (edit_hits[headline["headline"]].astype(int)
                - base_hits[headline["headline"]].astype(int))
        expect = paired_interval(int(diff.sum()), int((diff != 0).sum()), SEARCHED, Z95)
        assert headline["difference"]["mean"] == pytest.approx(expect["mean"], abs=1e-12)
    # each change set beside the runs' own: the difference of the two differences; "holds"
    # exactly when its interval lies within ±2 pp, "differs" when it excludes 0, else "not
    # decided"
    ours = {r["headline"]: r["difference"] for r in result.rows()}
    ours.update({r["label"]: r["difference"] for r in result.balance_rows()})
    for name, r in [(h["headline"], h) for h in found["headlines"]] + [
            (b["label"], b) for b in found["balance"]]:
        change = r["change"]
        assert change["mean"] == pytest.approx(r["difference"]["mean"] - ours[name]["mean"])
        if r["status"] is None:
            assert "too few search games" in r["words"] and r["holds"] is False
            continue
        status = ("changes" if change["lo"] > 0 or change["hi"] < 0 else
                  "holds" if -0.02 <= change["lo"] and change["hi"] <= 0.02 else "not decided")
        assert (r["status"], r["holds"]) == (status, status == "holds")
        assert r["words"].startswith({"holds": "the edit's change holds",
                                      "changes": "the edit's change differs",
                                      "not decided": "the edit's change is not decided"}[status])
        assert math.isfinite(change["mean"])


def test_the_command_prints_the_changes_under_stronger_play_or_that_it_is_off(edited, runner):
    root, _ = edited
    out = runner.invoke(main, ["compare", str(root / "base"), str(root / "edit"),
                               "--stronger-play-games", "8"])
    assert out.exit_code == 0, out.output
    assert "under stronger play (8 games" in out.output
    assert "- team A's share of the games won by a team: " in out.output
    # one line counts the verdicts listed below it, so an undecided change is not read past
    listed = [line.split(": the edit's change ", 1)[1] for line in out.output.splitlines()
              if ": the edit's change " in line]
    counts = {word: sum(v.startswith(word) for v in listed)
              for word in ("holds", "differs", "is not decided")}
    said = re.search(r"under stronger play, of the (\d+) changes (\d+) holds?, (\d+) "
                     r"differs?(?:,| and) (\d+) (?:is|are) not decided", out.output)
    assert said, out.output
    assert [int(x) for x in said.groups()] == [len(listed), *counts.values()]
    assert (("more search games would decide" in said.string)
            == (counts["is not decided"] > 0))
    off = runner.invoke(main, ["compare", str(root / "base"), str(root / "edit"),
                               "--stronger-play", "0"])
    assert off.exit_code == 0, off.output
    assert "\n- not checked under stronger play (turned off)\n" in off.output
    assert "search on every side" not in off.output


def _copies(root, tmp_path):
    """The fixture's two runs copied without the search games kept in them."""
    import shutil

    for name in ("base", "edit"):
        shutil.copytree(root / name, tmp_path / name,
                        ignore=shutil.ignore_patterns(KEPT_FOLDER))
    return str(tmp_path / "base"), str(tmp_path / "edit")


def test_the_search_games_are_kept_in_the_runs_and_read_back(edited, tmp_path,
                                                             search_games_played,
                                                             monkeypatch):
    """A check stopped after 6 games and run again with 10 plays games 6-9 only; run again
    it plays nothing and gives the same answer; an engine of other source, or a damaged
    part, plays again; a run directory that cannot hold them still answers."""
    import sim

    base, edit = _copies(edited[0], tmp_path)

    def check(n):
        search_games_played.clear()
        found = api.compare(base, edit, stronger_play_games=n, threads=1).stronger
        return found, sum(new for _, new in search_games_played)

    (six, played6), (ten, played10), (again, played_again) = check(6), check(10), check(10)
    assert (played6, played10, played_again) == (2 * 6, 2 * 4, 0)
    assert (six["read_back"], ten["read_back"], again["read_back"]) == (0, 2 * 6, 2 * 10)
    assert six["not_kept"] == ten["not_kept"] == []
    # each folder says what decides its games, and is named by that text's hash
    keys = list((Path(base) / KEPT_FOLDER).glob("*/key.json"))
    assert len(keys) == 1
    for key in keys:
        assert hashlib.sha256(key.read_bytes()).hexdigest()[:16] == key.parent.name
        assert json.loads(key.read_text())["seed"] == 3
    assert {**again, "read_back": 0} == {**ten, "read_back": 0}
    # the games read back are the games: a check that keeps nothing gives the same rows
    class Forgetful(KeptSearchGames):
        def folder(self, run, config, seed):
            return Path(run) / "nothing-kept-here"

        def _keep(self, folder, table, lo, hi):
            pass
    fresh = check_change(api.compare(base, edit, stronger_play=0), games=10, threads=1,
                         kept=Forgetful())
    assert [r["difference"] for r in fresh["headlines"] + fresh["balance"]] == [
        r["difference"] for r in again["headlines"] + again["balance"]]
    parts = sorted((Path(base) / KEPT_FOLDER).glob("*/part-*.parquet"))
    parts[-1].write_bytes(b"not parquet")
    assert check(10)[1] == 1          # the damaged last part: its one game played again
    monkeypatch.setattr(sim, "source_hash", lambda package=None: "another engine")
    assert check(10)[1] == 2 * 10
    for run in (base, edit):
        shutil.rmtree(Path(run) / KEPT_FOLDER)
        (Path(run) / KEPT_FOLDER).write_text("a file where the folder would go")
    found, played = check(4)
    assert played == 2 * 4 and found["checked"] and found["read_back"] == 0
    assert found["not_kept"] == [str(Path(base).resolve()), str(Path(edit).resolve())]
    text = api.compare(base, edit, stronger_play_games=2, threads=1).to_text()
    assert f"(the search games of {Path(edit).resolve()} could not be kept there" in text


def test_an_experiments_points_play_their_shared_baselines_search_games_once(
        edited, tmp_path, search_games_played):
    """Two points against one baseline: the baseline's search games are played for the
    first point and read back for the second, and each point's rows are those of a check
    of the two runs."""
    base, edit = _copies(edited[0], tmp_path)
    points = [{"name": name, "run_dir": edit, "baseline_run_dir": base} for name in "xy"]
    section = points_section(points, None, 6, 1)
    assert sum(new for run, new in search_games_played if run == "base") == 6
    direct = check_change(api.compare(base, edit, stronger_play=0), games=6, threads=1)
    rows = {name: [r[1:] for r in section["rows"] if r[0] == name] for name in "xy"}
    assert rows["x"] == rows["y"]
    assert [r[-1] for r in rows["x"]] == [
        SWEEP_VERDICT[r["status"]] for r in [*direct["headlines"], *direct["balance"]]]


def test_a_report_reads_back_the_search_games_a_compare_kept(edited, tmp_path,
                                                            search_games_played):
    """One run's search games serve every check: a report after a compare plays none of
    the games the compare played, and its stronger-play table is a fresh report's."""
    base, edit = _copies(edited[0], tmp_path)
    api.compare(base, edit, stronger_play_games=6, threads=1)
    search_games_played.clear()
    api.report([base], tmp_path / "after", replay_games=0, stronger_play_games=6)
    assert search_games_played and sum(new for _, new in search_games_played) == 0
    fresh = tmp_path / "fresh"
    shutil.copytree(edited[0] / "base", fresh, ignore=shutil.ignore_patterns(KEPT_FOLDER))
    api.report([fresh], tmp_path / "fresh-report", replay_games=0, stronger_play_games=6)
    assert sum(new for _, new in search_games_played) == 6

    def table(out):
        frame = pl.read_csv(out / "stronger_play.csv")
        return frame.drop([c for c in frame.columns if "seconds" in c or c == "run"])
    assert table(tmp_path / "after").equals(table(tmp_path / "fresh-report"))
    # a run directory that cannot keep them: the report says so beside its games
    blocked = tmp_path / "blocked"
    shutil.copytree(edited[0] / "base", blocked, ignore=shutil.ignore_patterns(KEPT_FOLDER))
    (blocked / KEPT_FOLDER).write_text("a file where the folder would go")
    api.report([blocked], tmp_path / "blocked-report", replay_games=0, stronger_play_games=2)
    note, = pl.read_csv(tmp_path / "blocked-report" / "stronger_play.csv")["note"]
    assert note.startswith("search games not kept: the run directory cannot be written")


def test_the_search_games_draw_a_bar_on_a_terminal_and_the_commands_say_what_they_play(
        edited, tmp_path, runner, monkeypatch, capsys):
    """The stronger-play check takes minutes by default: compare and report draw a bar over
    its budget while it plays (a terminal only), and the commands say beforehand what it
    will play."""
    base, edit = _copies(edited[0], tmp_path)
    label = "search games for the stronger-play check"
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    # 6 game indices: the first alone (it compiles the search player), then 2 at a time
    api.compare(base, edit, stronger_play_games=6, threads=1, progress=True)
    drawn = capsys.readouterr().err
    assert label in drawn and all(f"{pct}%" in drawn for pct in (16, 50, 83, 100))
    # a report counts the 5 after each run's first game, in 2 x threads at a time
    monkeypatch.setattr("sim.core.inputs.default_threads", lambda: 1)
    api.report([base], tmp_path / "bar", replay_games=0, stronger_play_games=6, progress=True)
    drawn = capsys.readouterr().err
    assert label in drawn and all(f"{pct}%" in drawn for pct in (40, 80, 100))
    api.report([base], tmp_path / "quiet", replay_games=0, stronger_play_games=6)
    assert label not in capsys.readouterr().err
    out = runner.invoke(main, ["report", str(base), "--out", str(tmp_path / "said"),
                               "--replay-games", "0", "--stronger-play-games", "2"])
    assert out.exit_code == 0, out.output
    assert ("the report checks every answer under stronger play: the lowest 2 game indices "
            "of each run, played by search (--stronger-play 0 turns it off)") in out.output
    monkeypatch.setenv("CARDSIM_STRONGER_PLAY", "7")
    out = runner.invoke(main, ["compare", str(base), str(edit), "--stronger-play-games",
                               "2"])
    assert "checking the changes under stronger play: the lowest 2 game indices" in out.output
    out = runner.invoke(main, ["report", str(base), "--out", str(tmp_path / "off"),
                               "--replay-games", "0", "--stronger-play", "0"])
    assert out.exit_code == 0 and "under stronger play:" not in out.output


def test_a_refused_report_or_compare_says_only_why(edited, tmp_path, runner):
    """The line saying what the check will play comes once the runs were read: a report of
    a folder that is no run, or a compare of runs that are not paired, prints its one-line
    error and nothing about search games it will never play."""
    base, _ = _copies(edited[0], tmp_path)
    other = tmp_path / "other"
    api.run(game="peer-to-peer", players=4, games=20, seed=4, out=other, progress=False)
    for args in (["report", str(tmp_path / "nothing"), "--out", str(tmp_path / "r")],
                 ["compare", str(base), str(other)]):
        out = runner.invoke(main, [*args, "--stronger-play", "5"])
        assert out.exit_code == 2 and out.output.startswith("error: "), out.output
        assert len(out.output.splitlines()) == 1 and "stronger play" not in out.output


def test_the_search_plays_over_each_side_with_the_parameters_it_was_given(tmp_path):
    """A run of builder:threshold=6 is checked by search over builder:threshold=6, not over
    builder's default threshold (reports.stronger.searched, shared by report, compare and
    autobalance)."""
    from reports.stronger import searched
    from sim.core.game import configure_request

    run = api.run(game="peer-to-peer", players=4, games=4, seed=3, out=tmp_path / "b6",
                  progress=False, strategies={"A": "builder:threshold=6"})
    game = resolve_game("peer-to-peer")
    request = searched(game, 4, json.loads((run.run_dir / "manifest.json").read_text()))
    assert request["strategies"] == {"A": "search:base=builder,threshold=6.0",
                                     "B": "search:base=expert"}
    played = configure_request(game, 4, request).manifest()["strategies"]["A"]
    assert played["params"]["threshold"] == 6.0 and played["params"]["base"] == "builder"


def test_the_band_a_change_must_stay_within_is_the_threshold_given(edited, runner):
    """`compare --threshold PP` sets the band of "holds", as a report's --threshold does:
    8 search games leave every change's interval wide, so at ±2 pp none holds, and at
    ±99 pp each one that does not differ holds."""
    root, _ = edited
    said = {}
    for band in ("2", "99"):
        out = runner.invoke(main, ["compare", str(root / "base"), str(root / "edit"),
                                   "--stronger-play-games", "8", "--threshold", band,
                                   "--json"])
        assert out.exit_code == 0, out.output
        found = json.loads(out.stdout)["stronger_play"]
        assert found["threshold_pp"] == float(band)
        said[band] = [r["status"] for r in found["headlines"] + found["balance"]]
    assert "holds" not in said["2"] and "not decided" in said["2"]
    assert "not decided" not in said["99"] and "holds" in said["99"]
    assert [s == "changes" for s in said["2"]] == [s == "changes" for s in said["99"]]
    with pytest.raises(UserError, match="threshold"):
        api.compare(root / "base", root / "edit", stronger_play=0, threshold_pp=0)
