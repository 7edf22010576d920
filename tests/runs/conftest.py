"""Fixtures for the run tests.

- ``dask_cluster``: a Dask LocalCluster of 2 worker processes (1 thread each, 127.0.0.1
  only, the fake game registered) for a whole test module: (scheduler address, client).
"""
import pytest


@pytest.fixture(scope="module")
def dask_cluster(fake_game_registered):
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as local, \
            Client(local, set_as_default=False) as client:
        client.wait_for_workers(2)
        yield local.scheduler_address, client
