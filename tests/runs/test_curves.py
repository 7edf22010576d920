"""A run's per-round curves (sim.core.curves, sim.runs.curve_files) on the fast test game:
one file per chunk written with its part, summed into curves.npz when the run is complete;
the same sums for any chunking, thread count and backend, after a resume too, and equal
to what the games' rows imply (the test game's curve is the round number in every round a
game reaches)."""
from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from sim import api
from sim.core.curves import RUNNING, CurveSink, curve_rows
from sim.runs import curve_files

pytestmark = pytest.mark.usefixtures("fake_game_registered")

GAMES = 5000


def _sums(run_dir) -> np.ndarray:
    with np.load(run_dir / "curves.npz") as data:
        assert int(data["games"]) == int(data["sums"][0, RUNNING])
        return data["sums"]


def _implied(run_dir) -> np.ndarray:
    """The sums the rows imply: per round t, the games with rounds >= t, and t summed and
    squared over them."""
    rounds = pl.read_parquet(f"{run_dir}/games/*.parquet")["rounds"].to_numpy()
    t = np.arange(41)
    running = np.array([(rounds >= r).sum() for r in t])
    return np.stack([running, running * t, running * t * t], axis=1)


def test_the_sums_equal_what_the_rows_imply_for_any_chunking_and_threads(tmp_path):
    one = api.run(game="fake", games=GAMES, chunk_size=GAMES, out=tmp_path / "one",
                  progress=False)
    many = api.run(game="fake", games=GAMES, chunk_size=700, threads=2,
                   out=tmp_path / "many", progress=False)
    assert np.array_equal(_sums(one.run_dir), _implied(one.run_dir))
    assert np.array_equal(_sums(many.run_dir), _sums(one.run_dir))
    assert _sums(one.run_dir)[0, RUNNING] == GAMES    # every game is at round 0
    chunks = sorted(p.name for p in (many.run_dir / "curves").iterdir())
    assert len(chunks) == 8 and chunks[0] == "part-1-000000000000.npy"


def test_a_resumed_run_has_the_same_sums(tmp_path):
    whole = api.run(game="fake", games=GAMES, chunk_size=1000, out=tmp_path / "whole",
                    progress=False)
    run = tmp_path / "cut"
    api.run(game="fake", games=GAMES, chunk_size=1000, out=run, progress=False)
    (run / "games" / "part-1-000000002000.parquet").unlink()
    (run / "curves.npz").unlink()
    # a chunk's sums whose part is missing do not count until it is played again
    assert curve_files.chunk_sums(run)[0, RUNNING] == GAMES - 1000
    api.resume(run, progress=False)
    assert np.array_equal(_sums(run), _sums(whole.run_dir))


def test_the_sums_travel_with_the_chunk_aggregates():
    from sim.core.game import configure

    config = configure("fake", 3)
    sink = CurveSink()
    config.run_chunk(4, 0, 300, curves=sink)
    config.run_chunk(4, 300, 200, curves=sink)
    whole = CurveSink()
    config.run_chunk(4, 0, 500, curves=whole)
    assert np.array_equal(sink.array, whole.array)
    rows = curve_rows(config_game("fake").curves, 3, whole.array)
    assert rows[0] == {"round": 0, "games": 500, "progress": 0.0, "progress_lo": 0.0,
                       "progress_hi": 0.0}
    assert rows[-1]["games"] >= 1 and rows[10]["progress"] == 10.0


def config_game(name):
    from sim.core.game import resolve_game

    return resolve_game(name)


@pytest.mark.parametrize("write_parts", ["worker", "client"])
def test_dask_gives_the_same_sums(tmp_path, dask_cluster, write_parts):
    address, _ = dask_cluster
    local = api.run(game="fake", games=GAMES, chunk_size=900, out=tmp_path / "local",
                    progress=False)
    remote = api.run(game="fake", games=GAMES, chunk_size=1300, out=tmp_path / "dask",
                     progress=False, backend="dask",
                     backend_options={"scheduler": address, "write_parts": write_parts})
    assert np.array_equal(_sums(remote.run_dir), _sums(local.run_dir))
    assert len(list((remote.run_dir / "curves").iterdir())) == 4
