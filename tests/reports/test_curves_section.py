"""The report's pace section (reports/curves.py): curves.csv beside the report, one row per
player count and round with each curve's mean and interval, read from the runs' per-round
sums (never the games); the section and its figure in report.html; runs without sums are
named and left out."""
from __future__ import annotations

import shutil

import numpy as np
import polars as pl
import pytest

from reports.curves import build, group_sums
from reports.load import load_runs
from sim import api

pytestmark = pytest.mark.usefixtures("fake_game_registered")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("curve-runs")
    return [api.run(game="fake", players=players, games=3000, chunk_size=1000, seed=players,
                    out=base / f"p{players}", progress=False).run_dir for players in (3, 4)]


@pytest.fixture(scope="module")
def report(runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("curve-report")
    return out, api.report([str(r) for r in runs], out)


def test_curves_csv_is_written_beside_the_report_with_the_games_means(report, runs):
    out, result = report
    assert result["tables"]["curves"] == str(out / "curves.csv")
    table = pl.read_csv(out / "curves.csv")
    assert table.columns == ["players", "variant", "pairing", "round", "games", "progress",
                             "progress_lo", "progress_hi"]
    for players, run in zip((3, 4), runs):
        rows = table.filter(pl.col("players") == players).sort("round")
        rounds = pl.read_parquet(run / "games" / "*.parquet")["rounds"].to_numpy()
        assert rows["games"].to_list() == [int((rounds >= r).sum())
                                           for r in range(rounds.max() + 1)]
        assert rows["progress"].to_list() == pytest.approx(list(range(rounds.max() + 1)))


def test_the_section_and_its_figure_are_in_the_report(report):
    out, result = report
    html = (out / "report.html").read_text(encoding="utf-8")
    assert '<section id="curves"><h2>The game&#x27;s pace, round by round</h2>' in html \
        or '<section id="curves"><h2>The game\'s pace, round by round</h2>' in html
    assert (out / "plots" / "curves.png").stat().st_size > 10_000
    assert "## The game's pace, round by round" in (out / "report.md").read_text()


def test_runs_without_sums_are_named_and_left_out(runs, tmp_path):
    bare = tmp_path / "bare"
    shutil.copytree(runs[0], bare)
    shutil.rmtree(bare / "curves")
    (bare / "curves.npz").unlink()
    rs = load_runs([str(bare), str(runs[1])])
    groups, missing = group_sums(rs)
    assert missing == [str(bare)] and [key[0] for key in groups] == [4]
    section = build(None, rs, None)
    assert str(bare) in section.description and section.table["players"].unique().to_list() == [4]
    alone = build(None, load_runs([str(bare)]), None)
    assert alone.table is None and "hold no per-round sums" in alone.description


def test_runs_of_one_group_add_up(runs, tmp_path):
    again = api.run(game="fake", players=3, games=1000, seed=9, out=tmp_path / "again",
                    progress=False).run_dir
    groups, _ = group_sums(load_runs([str(runs[0]), str(again)]))
    (key, sums), = groups.items()
    assert sums[0, 0] == 4000
    with np.load(again / "curves.npz") as data:
        assert data["games"] == 1000


def test_the_games_curve_series_need_no_compiled_code():
    """What the pace section and the workbench read of a game's curves (its description's
    series) loads no numba: a Peer-to-Peer report without replays stays light (the
    compiler is some 60 MiB and a second)."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from sim.games.peer_to_peer.description import curve_series as p2p\n"
            "from sim.games.plai.description import curve_series as plai\n"
            "assert p2p(4) and plai(5)\n"
            "print('numba' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"


def test_the_figure_ticks_whole_rounds(runs):
    """Rounds are whole numbers: no tick at 2.5 or 7.5."""
    from reports.curves import figure
    from sim.core.game import resolve_game

    rs = load_runs([str(r) for r in runs])
    groups, _ = group_sums(rs)
    fig = figure(resolve_game(rs.game).curves, groups)
    fig.canvas.draw()
    for ax in fig.axes:
        ticks = [t for t in ax.get_xticks() if ax.get_xlim()[0] <= t <= ax.get_xlim()[1]]
        assert ticks and all(float(t).is_integer() for t in ticks), ticks
