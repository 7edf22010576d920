"""A Dask cluster without workers, and a lost scheduler: one line each, never a silent
hang or a traceback; a run stopped by a lost scheduler continues with --resume."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import polars as pl
import pytest

from sim.core.errors import UserError

pytest.importorskip("distributed")
pytestmark = pytest.mark.usefixtures("fake_game_registered")


def _tasks(tmp_path, count=6, size=100):
    from sim.runs.backends import ChunkTask, ConfigRequest

    (tmp_path / "games").mkdir(exist_ok=True)
    request = ConfigRequest.build("fake", 4, {"cards": None, "rules_file": None,
                                              "rule_overrides": [], "strategies": None,
                                              "debug": False})
    return [ChunkTask(request, str(tmp_path), 1, i * size, size) for i in range(count)]


@pytest.fixture
def empty_cluster():
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster, \
            Client(cluster, set_as_default=False) as client:
        yield cluster, client


def test_a_cluster_without_workers_says_so_then_stops_as_asked(tmp_path, empty_cluster):
    from sim.runs.backends.dask import DaskBackend

    _, client = empty_cluster
    said: list[str] = []
    backend = DaskBackend(client=client, check_sources=False, no_worker_warn=0.5,
                          no_worker_timeout=4, on_wait=said.append)
    backend.watch_seconds = 0.2
    began = time.monotonic()
    with pytest.raises(UserError) as caught:
        list(backend.run_tasks(_tasks(tmp_path)))
    assert time.monotonic() - began < 30
    assert "no worker for" in str(caught.value) and "--resume" in str(caught.value)
    assert len(str(caught.value).splitlines()) == 1
    assert said and "waiting for one" in said[0]


def test_without_a_timeout_it_waits_for_a_worker_and_goes_on(tmp_path, empty_cluster):
    from sim.runs.backends.dask import DaskBackend

    cluster, client = empty_cluster
    said: list[str] = []
    backend = DaskBackend(client=client, check_sources=False, no_worker_warn=0.5,
                          on_wait=said.append)
    backend.watch_seconds = 0.2
    threading.Timer(3.0, lambda: cluster.scale(1)).start()
    results = list(backend.run_tasks(_tasks(tmp_path)))
    assert len(results) == 6
    assert "waiting for one" in said[0] and "back" in said[-1]


def _start(args, env, log):
    return subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)


def _scheduler(tmp_path, env, name):
    """A scheduler and one worker in their own processes; (address, [processes])."""
    file = tmp_path / f"{name}.json"
    log = open(tmp_path / f"{name}.log", "w")
    scheduler = _start([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host",
                        "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file",
                        str(file)], env, log)
    deadline = time.monotonic() + 60
    while not file.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    address = json.loads(file.read_text())["address"]
    worker = _start([sys.executable, "-m", "distributed.cli.dask_worker", address,
                     "--nthreads", "1", "--no-dashboard", "--no-nanny"], env, log)
    return address, [scheduler, worker]


def _stop(processes):
    for process in processes:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


def test_a_lost_scheduler_is_one_line_and_resume_finishes_the_run(tmp_path):
    env = {**os.environ, "FAKE_GAME_DELAY": "0.2"}
    address, first = _scheduler(tmp_path, env, "first")
    out = tmp_path / "run"
    args = [sys.executable, "-m", "sim.cli", "--game", "fake", "--games", "4000",
            "--chunk-size", "100", "--seed", "5", "--no-progress", "--out", str(out)]
    try:
        run = subprocess.Popen(args + ["--backend", "dask", "--scheduler", address], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while len(list((out / "games").glob("*.parquet"))) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        os.killpg(first[0].pid, signal.SIGKILL)          # the scheduler dies
        _, stderr = run.communicate(timeout=120)
    finally:
        _stop(first)
    assert run.returncode == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), stderr
    assert "lost the Dask scheduler" in lines[0] or "cancelled" in lines[0], lines[0]
    address, second = _scheduler(tmp_path, env, "second")
    try:
        resumed = subprocess.run([sys.executable, "-m", "sim.cli", "--resume", str(out),
                                  "--no-progress", "--backend", "dask", "--scheduler", address],
                                 env={**env, "FAKE_GAME_DELAY": "0"}, capture_output=True,
                                 text=True, timeout=300)
    finally:
        _stop(second)
    assert resumed.returncode == 0, resumed.stderr
    local = subprocess.run(args[:-1] + [str(tmp_path / "local")],
                           env={**env, "FAKE_GAME_DELAY": "0"}, capture_output=True, timeout=300)
    assert local.returncode == 0
    table = pl.read_parquet(Path(out) / "games" / "*.parquet").sort("game_index")
    assert table.equals(pl.read_parquet(tmp_path / "local" / "games" / "*.parquet")
                        .sort("game_index"))
