"""The Dask backends: same table as the local backend, a SIGTERM'd run resumed,
a worker killed mid-task, the backend API for experiments, and one-line CLI errors.

One LocalCluster per module (2 worker processes, 1 thread each, 127.0.0.1 only).
"""
from __future__ import annotations

import importlib.util
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
from click.testing import CliRunner

pytest.importorskip("distributed")

import fake_game  # noqa: E402
from repo_paths import REPO_ROOT, subprocess_pythonpath  # noqa: E402
from sim import api, cli  # noqa: E402
from sim.core.game import game_request  # noqa: E402
from sim.runs import backends, setup  # noqa: E402
from sim.core.game import GAME_MODULES  # noqa: E402

ROOT = REPO_ROOT


pytestmark = pytest.mark.usefixtures("fake_game_registered")


@pytest.fixture(scope="module")
def cluster(dask_cluster):
    return dask_cluster          # (address, client): tests/runs/conftest.py


def _dask(address):
    return {"backend": "dask", "backend_options": {"scheduler": address}}


def _table(run_dir) -> pl.DataFrame:
    return pl.read_parquet(f"{run_dir}/games/*.parquet")


def _set_worker_delay(client, seconds: float) -> None:
    def set_delay(value=str(seconds)):
        os.environ["FAKE_GAME_DELAY"] = value

    client.run(set_delay)


def _games_available():
    """Built-in games whose module exists yet (PLAI's game.py is being written)."""
    found = []
    for name, module in GAME_MODULES.items():
        try:
            if importlib.util.find_spec(module) is not None:
                found.append(name)
        except ModuleNotFoundError:
            pass
    return found


# --------------------------------------------------------------------------- equality
@pytest.mark.parametrize("write_parts", ["auto", "client"])
def test_fake_game_same_table_as_local(tmp_path, cluster, write_parts):
    address, _ = cluster
    local = api.run(game="fake", games=20_000, seed=4, chunk_size=7777, out=tmp_path / "local",
                    progress=False)
    dask = api.run(game="fake", games=20_000, seed=4, chunk_size=1500, out=tmp_path / "dask",
                   progress=False, backend="dask",
                   backend_options={"scheduler": address, "write_parts": write_parts})
    assert _table(dask.run_dir).equals(_table(local.run_dir))
    assert dask.summary == local.summary
    session = dask.manifest["sessions"][-1]
    assert session["backend"]["name"] == "dask" and session["backend"]["workers"] == 2
    assert session["threads"] == 1 and session["status"] == "complete"
    assert "backend" not in local.manifest["sessions"][-1]  # local manifests are unchanged
    assert sorted(p.name for p in (dask.run_dir / "games").iterdir()) == \
        [f"part-4-{start:012d}.parquet" for start in range(0, 20_000, 1500)]


@pytest.mark.parametrize("game", _games_available())
def test_real_game_same_table_as_local(tmp_path, cluster, game):
    address, _ = cluster
    local = api.run(game=game, games=12_000, seed=11, out=tmp_path / "local", threads=2,
                    progress=False)
    dask = api.run(game=game, games=12_000, seed=11, chunk_size=5000, out=tmp_path / "dask",
                   progress=False, **_dask(address))
    assert _table(dask.run_dir).equals(_table(local.run_dir))
    assert dask.summary == local.summary


def test_until_ci_plays_on_the_dask_backend(tmp_path, cluster):
    """api.run(until_ci=..., backend="dask") plays every look on the cluster (it used to
    return before the backend was resolved and play locally), with the same games and the
    same stop as a local --until-ci run."""
    address, _ = cluster
    args = dict(game="fake", games=50_000, seed=9, chunk_size=5000, until_ci="3pp",
                progress=False)
    local = api.run(out=tmp_path / "local", **args)
    dask = api.run(out=tmp_path / "dask", **args, **_dask(address))
    state = dask.manifest["until_ci"]
    assert state["looks"] >= 2 and state["stopped"].startswith("every headline interval")
    assert state == local.manifest["until_ci"]
    sessions = dask.manifest["sessions"]
    assert len(sessions) == state["looks"]
    assert [s.get("backend", {}).get("name") for s in sessions] == ["dask"] * len(sessions)
    assert all(s["backend"]["workers"] == 2 for s in sessions)
    assert "backend" not in local.manifest["sessions"][-1]
    assert _table(dask.run_dir).equals(_table(local.run_dir))


def test_in_process_local_cluster_backend(tmp_path):
    reference = fake_game.GAME.configure(players=3).run_chunk(2, 0, 6000)
    backend = backends.create("dask-local", workers=2, processes=False, dashboard_address=None)
    result = api.run(game="fake", players=3, games=6000, seed=2, chunk_size=1000,
                     out=tmp_path / "run", progress=False, backend=backend)
    assert backend._client is not None  # the caller's backend is not closed by run()
    backend.close()
    assert _table(result.run_dir).equals(reference)
    assert result.manifest["sessions"][-1]["backend"]["name"] == "dask-local"


# --------------------------------------------------------------------------- API for sweeps
def test_run_tasks_points_times_chunks(tmp_path, cluster):
    address, client = cluster
    points = {bonus: backends.ConfigRequest.build("fake", 2, game_request(
        None, None, (f"bonus={bonus}",), None, False)) for bonus in (0, 3)}
    for bonus in points:
        (tmp_path / str(bonus) / "games").mkdir(parents=True)
    tasks = [backends.ChunkTask(request, str(tmp_path / str(bonus)), 5, start, 1000, tag=bonus)
             for bonus, request in points.items() for start in range(0, 4000, 1000)]
    with backends.create("dask", client=client) as backend:
        results = list(backend.run_tasks(tasks))
    assert sorted((r.tag, r.start) for r in results) == sorted((t.tag, t.start) for t in tasks)
    for bonus, request in points.items():
        expected = request.configure().run_chunk(5, 0, 4000)
        assert _table(tmp_path / str(bonus)).equals(expected)
        mine = [r.aggregates for r in results if r.tag == bonus]
        assert sum(a["rows"] for a in mine) == 4000
        assert sum(a["sums"]["rounds"] for a in mine) == expected["rounds"].sum()
        wins = sum(a["counts"]["winner"].get(0, 0) for a in mine)
        assert wins == (expected["winner"] == 0).sum()
        assert all(r.worker.startswith("tcp://127.0.0.1:") for r in results)


def test_runner_on_chunk_hook_with_a_dask_backend(tmp_path, cluster):
    """How experiments hook in: their own RunDir + manifest, runner.run_chunks(backend=...,
    on_chunk=...); the aggregates of the chunks add up to the table."""
    from sim.runs import rundir, runner

    _, client = cluster
    game = api.resolve_game("fake")
    request = game_request(None, None, ("bonus=2",), None, False)
    config = setup.configure_request(game, 2, request)
    manifest = setup.new_manifest("fake", 2, 5000, 6, 1000, config, request, None)
    seen = []
    with rundir.RunDir.create(tmp_path / "run", manifest) as run, \
            backends.create("dask", client=client) as backend:
        manifest = runner.run_chunks(config, run, manifest, threads=1, progress=False,
                                     backend=backend, on_chunk=seen.append)
    table = _table(tmp_path / "run")
    assert table.equals(config.run_chunk(6, 0, 5000)) and manifest["complete"] is True
    assert sorted(r.start for r in seen) == list(range(0, 5000, 1000))
    assert sum(r.aggregates["sums"]["score"] for r in seen) == pytest.approx(table["score"].sum())


def test_worker_refuses_another_configuration(tmp_path, cluster):
    """A worker that builds a different configuration (e.g. its card file differs) stops
    the run with one clear line instead of writing other games."""
    from sim.runs.backends.dask import run_task

    _, client = cluster
    request = backends.ConfigRequest.build("fake", 2, game_request(None, None, (), None, False))
    task = backends.ChunkTask(request, str(tmp_path), 1, 0, 10)
    future = client.submit(run_task, task, "client", False, None, "not-this-digest", pure=False)
    with pytest.raises(Exception, match="another configuration"):
        future.result()
    future = client.submit(run_task, task, "client", False, "0" * 16, None, pure=False)
    with pytest.raises(Exception, match="other simulator sources"):
        future.result()


# --------------------------------------------------------------------------- interruption
SUB_GAMES, SUB_CHUNK = 40_000, 2_000


def test_sigterm_then_resume_gives_the_uninterrupted_table(tmp_path, cluster):
    address, client = cluster
    uninterrupted = fake_game.GAME.configure(players=4).run_chunk(3, 0, SUB_GAMES)
    out = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": subprocess_pythonpath(),
           api.EXTRA_GAMES_ENV: "fake=fake_game"}
    _set_worker_delay(client, 0.15)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "sim.cli", "--game", "fake", "--games", str(SUB_GAMES),
             "--chunk-size", str(SUB_CHUNK), "--seed", "3", "--out", str(out), "--json",
             "--no-progress", "--backend", "dask", "--scheduler", address],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while len(list((out / "games").glob("part-*.parquet"))) < 3:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "run never produced 3 parts"
            time.sleep(0.02)
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 143, stderr
        assert stdout == ""
        lines = stderr.strip().splitlines()
        assert len(lines) == 1 and f"simulate --resume {out}" in lines[0], stderr
        manifest = json.loads((out / "manifest.json").read_text())
        assert (manifest["complete"], manifest["status"]) == (False, "interrupted")
        kept = sorted((out / "games").glob("part-*.parquet"))
        assert 3 <= len(kept) < SUB_GAMES // SUB_CHUNK
        for part in kept:  # every part on disk is whole (temporary names, then rename)
            assert pl.read_parquet(part).height == SUB_CHUNK
    finally:
        _set_worker_delay(client, 0)
    result = api.resume(out, progress=False, **_dask(address))
    assert _table(out).equals(uninterrupted)
    assert result.manifest["complete"] is True
    sessions = result.manifest["sessions"]
    assert [s["status"] for s in sessions] == ["interrupted", "complete"]
    # only missing chunks were submitted (workers may have finished a few cancelled ones)
    assert 0 < sessions[1]["games_played"] <= SUB_GAMES - len(kept) * SUB_CHUNK
    assert sessions[1]["games_played"] % SUB_CHUNK == 0
    assert not [p for p in (out / "games").iterdir() if p.name.startswith(".")]


def test_worker_killed_mid_task_is_retried(tmp_path, cluster):
    address, client = cluster
    reference = fake_game.GAME.configure(players=4).run_chunk(8, 0, 30_000)
    out = tmp_path / "run"
    killed: list[str] = []

    def kill_a_busy_worker():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not killed:
            if len(list((out / "games").glob("part-*.parquet"))) >= 2:
                busy = [addr for addr, keys in client.processing().items() if keys]
                if busy:
                    pids = client.run(os.getpid, workers=busy[:1])
                    os.kill(pids[busy[0]], signal.SIGKILL)
                    killed.append(busy[0])
            time.sleep(0.05)

    _set_worker_delay(client, 0.3)
    killer = threading.Thread(target=kill_a_busy_worker, daemon=True)
    try:
        killer.start()
        result = api.run(game="fake", games=30_000, seed=8, chunk_size=1000, out=out,
                         progress=False, **_dask(address))
    finally:
        killer.join(timeout=60)
        _set_worker_delay(client, 0)
        client.wait_for_workers(2, timeout=60)  # the nanny restarts the killed worker
    assert killed, "no worker was killed"
    assert result.manifest["complete"] is True
    assert _table(out).equals(reference)
    assert not [p for p in (out / "games").iterdir() if p.name.startswith(".")]


# --------------------------------------------------------------------------- CLI errors
def _one_line_error(result, *needles):
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]


def test_dask_not_installed_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    result = CliRunner().invoke(cli.main, ["--game", "fake", "--games", "10", "--backend", "dask",
                                           "--scheduler", "tcp://127.0.0.1:1",
                                           "--out", str(tmp_path / "r")])
    _one_line_error(result, "needs Dask", "pip install")
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("args,needles", [
    (["--workers", "2"], ["--workers belongs to --backend dask-local"]),
    (["--backend", "dask-local", "--scheduler", "tcp://127.0.0.1:1"], ["--scheduler belongs"]),
    (["--write-parts", "client"], ["--write-parts belongs"]),
    (["--backend", "dask"], ["needs --scheduler"]),
    (["--backend", "dask", "--scheduler", "tcp://127.0.0.1:9"], ["cannot reach the Dask"]),
    (["--backend", "ray"], ["--backend"]),
])
def test_backend_option_errors(tmp_path, args, needles, monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    monkeypatch.setattr("sim.runs.backends.dask.CONNECT_TIMEOUT", "1s")
    result = CliRunner().invoke(cli.main, ["--game", "fake", "--games", "10",
                                           "--out", str(tmp_path / "r"), *args])
    _one_line_error(result, *needles)
    assert not (tmp_path / "r").exists()
