"""Experiments submit points x chunks to a Dask backend and get the local tables."""
import polars as pl
import pytest

pytest.importorskip("distributed")

from sim.runs import backends  # noqa: E402
from sim.studies import experiments  # noqa: E402

YAML = """
sweep_on_cluster:
  game: peer-to-peer
  players: [2, 4]
  games: 3000
  chunk_size: 1000
  seed: 5
  strategies: {A: greedy, B: builder}
  sweep:
    rule.customer_patience: [2, 3]
  metrics: [all_lose_rate]
"""


@pytest.fixture(scope="module")
def experiment(tmp_path_factory):
    path = tmp_path_factory.mktemp("exp") / "experiments.yaml"
    path.write_text(YAML)
    return experiments.get("sweep_on_cluster", str(path))


def _tables(result):
    return {p["name"]: pl.read_parquet(f"{p['run_dir']}/games/*.parquet").sort("game_index")
            for p in result.points}


def test_points_times_chunks_on_dask_match_local(experiment, tmp_path):
    local = experiments.run_experiment(experiment, out=tmp_path / "local", progress=False,
                                       report=False)
    submitted = []
    with backends.create("dask-local", workers=2) as backend:
        original = backend.run_tasks

        def spy(tasks, **kwargs):
            tasks = list(tasks)
            submitted.append(tasks)
            return original(tasks, **kwargs)

        backend.run_tasks = spy
        on_dask = experiments.run_experiment(experiment, out=tmp_path / "dask", progress=False,
                                             report=False, backend=backend)
    # one submission holding every point's chunks: 4 points x 3 chunks
    assert len(submitted) == 1 and len(submitted[0]) == 12
    assert {t.tag for t in submitted[0]} == {0, 1, 2, 3}
    local_tables, dask_tables = _tables(local), _tables(on_dask)
    assert set(local_tables) == set(dask_tables) and len(local_tables) == 4
    for name, table in local_tables.items():
        assert table.equals(dask_tables[name]), name
