"""The first-run compile notice: is a kernel in numba's cache, and what a cold
start says on stderr. A tiny ``@njit(cache=True)`` function in a temporary module stands
in for a game kernel, with its own cache directory, so nothing here compiles a game."""
from __future__ import annotations

import importlib
import io
import os
import sys

import pytest
from numba.core import config as numba_config

from sim.core import compile_cache

TINY = '''
from numba import njit


@njit(cache=True)
def twice(x):
    return 2 * x


@njit(cache=True)
def thrice(x):
    return 3 * x
'''


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    """A fresh module holding one cached kernel, numba's cache in tmp_path/cache/numba-x
    (the layout sim/__init__.py gives: per-hash directories under a cache root)."""
    cache = tmp_path / "cache" / "numba-x"
    monkeypatch.setattr(numba_config, "CACHE_DIR", str(cache))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))
    (tmp_path / "tiny_kernel_26.py").write_text(TINY)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("tiny_kernel_26", None)
    module = importlib.import_module("tiny_kernel_26")
    yield module
    sys.modules.pop("tiny_kernel_26", None)


def test_a_kernel_is_cached_once_compiled_and_not_after_its_source_is_edited(tiny, tmp_path):
    assert compile_cache.is_cached(tiny.twice) is False
    assert tiny.twice(21) == 42
    assert compile_cache.is_cached(tiny.twice) is True
    assert compile_cache.all_cached([tiny.twice]) is True
    # numba stamps the index with a hash of the source file: an edited source is not
    # served from the cache, and the notice must say so
    (tmp_path / "tiny_kernel_26.py").write_text(TINY.replace("2 * x", "x + x"))
    sys.modules.pop("tiny_kernel_26", None)
    reloaded = importlib.import_module("tiny_kernel_26")
    assert compile_cache.is_cached(reloaded.twice) is False


def test_a_cold_kernel_is_announced_with_an_estimate_then_compiled(tiny, monkeypatch):
    monkeypatch.setattr(compile_cache, "_checked", set())
    err = io.StringIO()
    calls = []
    compiled = compile_cache.ensure_compiled(
        "tiny", "Tiny", [tiny.twice], lambda: calls.append(tiny.twice(1)), 12.0, stream=err)
    assert compiled and calls == [2]
    lines = err.getvalue().splitlines()
    assert lines[0] == "compiling the Tiny kernels, once, about 12 s (later runs load them " \
                       "from the cache)"
    assert lines[1].startswith("compiled the Tiny kernels in ")
    # the measured time is kept beside the per-hash cache directories: the next cold
    # compile (after a kernel edit) estimates from it
    assert compile_cache.estimate_seconds("tiny", 99.0) < 12.0
    assert compile_cache.estimate_seconds("other", 99.0) == 99.0


def test_the_estimate_is_the_median_of_the_last_compiles(tmp_path, monkeypatch):
    """One slow compile (a busy machine, a profiler) does not set the next notice."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache" / "numba-x"))
    path = tmp_path / "cache" / compile_cache.ESTIMATES_FILE
    path.parent.mkdir()
    path.write_text('{"game": 20.0}')   # a file that kept one number per key
    assert compile_cache.estimate_seconds("game", 99.0) == 20.0
    for seconds in (18.0, 74.0):
        compile_cache.record_seconds("game", seconds)
    assert compile_cache.estimate_seconds("game", 99.0) == 20.0
    for seconds in (19.0, 21.0, 22.0, 23.0):
        compile_cache.record_seconds("game", seconds)
    assert compile_cache.estimate_seconds("game", 99.0) == 22.0   # of 74, 19, 21, 22, 23
    compile_cache.record_seconds("game", 24.0)   # 74 is dropped
    assert compile_cache.estimate_seconds("game", 99.0) == 22.0
    compile_cache.record_seconds("other", 30.0)
    assert compile_cache.estimate_seconds("other", 99.0) == 30.0
    compile_cache.record_seconds("other", 40.0)
    assert compile_cache.estimate_seconds("other", 99.0) == 35.0


def test_a_partial_compile_does_not_become_the_estimate(tiny, monkeypatch):
    """One kernel of two missing from the cache compiles in a fraction of a cold start:
    its time is not what the next cold start is announced with."""
    tiny.twice(1)
    monkeypatch.setattr(compile_cache, "_checked", set())
    assert compile_cache.ensure_compiled("tiny", "Tiny", [tiny.twice, tiny.thrice],
                                         lambda: tiny.thrice(1), 12.0, stream=io.StringIO())
    assert compile_cache.estimate_seconds("tiny", 99.0) == 99.0


def test_a_cached_kernel_is_not_announced(tiny, monkeypatch):
    tiny.twice(1)
    monkeypatch.setattr(compile_cache, "_checked", set())
    err = io.StringIO()
    calls = []
    assert not compile_cache.ensure_compiled("tiny", "Tiny", [tiny.twice],
                                             lambda: calls.append(1), 12.0, stream=err)
    assert err.getvalue() == "" and calls == []


@pytest.mark.parametrize("game", ["peer-to-peer", "plai"])
def test_a_run_on_a_cold_cache_says_it_is_compiling_on_stderr(game, monkeypatch, tmp_path):
    """The wiring: a run whose kernels are not cached prints the notice on stderr before
    playing (the cache is reported cold here; the kernels themselves load warm, so this
    compiles nothing new), and keeps stdout clean for --json."""
    import json

    from click.testing import CliRunner

    from sim import cli
    from sim.core.game import resolve_game

    monkeypatch.setattr(compile_cache, "_checked", set())
    monkeypatch.setattr(compile_cache, "all_cached", lambda dispatchers: False)
    result = CliRunner().invoke(cli.main, ["--game", game, "--games", "50", "--json",
                                           "--no-progress", "--out", str(tmp_path / "r")],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    title = resolve_game(game).title
    assert f"compiling the {title} kernels, once, about " in result.stderr
    assert json.loads(result.stdout)["games"] == 50


# ------------------------------------------------------------------ simulate warm
@pytest.mark.usefixtures("fake_game_registered")
def test_warm_plays_each_game_in_its_own_process_and_reports_it():
    from click.testing import CliRunner

    from sim import api, cli
    from sim.core.errors import UserError

    # in this process (one game) and in two child processes (jobs=2), in the given order
    assert [r["game"] for r in api.warm(["fake"], jobs=1)] == ["fake"]
    results = api.warm(["fake", "fake"], jobs=2)
    assert [r["game"] for r in results] == ["fake", "fake"]
    assert all(r["seconds"] >= 0 and r["cpu_seconds"] >= 0 for r in results)
    with pytest.raises(UserError, match="unknown game 'nope'"):
        api.warm(["nope"])
    result = CliRunner().invoke(cli.main, ["warm", "--game", "fake", "--jobs", "1"],
                                catch_exceptions=False)
    assert result.exit_code == 0 and result.stdout.startswith("fake: ready in ")


def test_warm_in_parallel_processes_starts_no_compile_helper(monkeypatch):
    """warm --jobs N already compiles N games on N processes: a compile helper in each
    would put twice as many processes on the cores (it slowed a cold run at load 4.5)."""
    import subprocess

    from sim.core.compile_cache import HELPER_ENV
    from sim.runs import warm as warm_module

    seen = []

    def fake_run(args, **kwargs):
        seen.append(kwargs["env"])
        return subprocess.CompletedProcess(args, 0, stdout='{"game": "x"}\n')

    monkeypatch.setattr(warm_module.subprocess, "run", fake_run)
    monkeypatch.setattr(warm_module, "kernels_cached", lambda game: False)
    monkeypatch.setenv(HELPER_ENV, "1")
    assert warm_module.warm(["peer-to-peer", "plai"], jobs=2) == [{"game": "x",
                                                                   "cached": False}] * 2
    assert [env[HELPER_ENV] for env in seen] == ["0", "0"]


def test_warm_starts_nothing_for_a_game_whose_kernels_are_cached(monkeypatch):
    """The game's description names its compiled entry points (Game.kernels): when all
    are in the cache, warm says so instead of starting a process to load them."""
    from sim.runs import warm as warm_module

    import sim.core.compile_cache as cc

    checked = []
    monkeypatch.setattr(cc, "all_cached", lambda dispatchers: checked.append(
        [d.py_func.__name__ for d in dispatchers]) or True)
    monkeypatch.setattr(warm_module, "warm_game", lambda game, trace: pytest.fail("started"))
    assert warm_module.warm(["plai"], jobs=1) == [
        {"game": "plai", "seconds": 0.0, "cpu_seconds": 0.0, "cached": True}]
    assert checked == [["play_games"]]


@pytest.mark.slow
def test_warm_fills_an_empty_cache_for_every_game(tmp_path):
    """From an empty cache (a real cold compile of both games, minutes under load):
    afterwards a run of each game finds its kernels cached."""
    import subprocess

    env = {**os.environ, "CARDSIM_CACHE_ROOT": str(tmp_path / "cache")}
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-m", "sim.cli", "warm"], env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "compiling the Peer-to-Peer kernels, once" in done.stderr
    assert "compiling the PLAI kernels, once" in done.stderr
    check = ("import sim; from sim.core.compile_cache import all_cached; "
             "from sim.games.peer_to_peer.engine_kernel import run_games; "
             "from sim.games.plai.engine_kernel import play_games; "
             "print(all_cached([run_games, play_games]))")
    out = subprocess.run([sys.executable, "-c", check], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "True", out.stderr


# ------------------------------------------------------------------ the helper process
# (a cold compile uses a second core; sim.core.compile_cache's docstring)

def test_a_kernel_locked_by_the_other_process_is_waited_for_then_loaded(tiny, tmp_path,
                                                                       monkeypatch):
    """While the helper compiles a kernel (holds its lock), this process does not compile
    it too: it waits for the lock, then finds it in the cache."""
    import fcntl
    import threading
    import time

    from numba import int64

    monkeypatch.setattr(compile_cache, "PROJECT_PREFIX", "tiny_kernel")
    locks = tmp_path / "locks"
    locks.mkdir()
    held = os.open(locks / compile_cache._lock_name(tiny.twice), os.O_RDWR | os.O_CREAT)
    fcntl.flock(held, fcntl.LOCK_EX)  # the "other process", until it is done
    done = []

    def other_process_finishes():
        time.sleep(1.5)  # longer than compiling twice takes
        done.append(time.monotonic())
        fcntl.flock(held, fcntl.LOCK_UN)

    thread = threading.Thread(target=other_process_finishes)
    thread.start()
    with compile_cache.compile_locks(locks):
        tiny.twice.compile((int64,))
    compiled = time.monotonic()
    thread.join()
    assert done and compiled >= done[0]  # it waited for the other process's lock
    # and released its own: the lock can be taken again at once
    fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.close(held)
    assert compile_cache.is_cached(tiny.twice) is True


def test_the_helper_compiles_its_plan_into_the_shared_cache(tiny, tmp_path, monkeypatch):
    from numba import int64

    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # where the helper finds tiny_kernel_26
    assert compile_cache.is_cached(tiny.twice) is False
    locks = compile_cache.lock_directory()
    assert locks is not None and locks.is_dir()
    helper = compile_cache.start_helper([(tiny.twice, (int64,))], locks)
    assert helper is not None
    assert helper.wait(timeout=120) == 0
    assert compile_cache.is_cached(tiny.twice) is True  # written by the other process
    # nothing left to do: no process is started
    assert compile_cache.start_helper([(tiny.twice, (int64,))], locks) is None


def test_a_cold_compile_with_a_plan_starts_the_helper_and_still_compiles(tiny, monkeypatch,
                                                                         tmp_path):
    from numba import int64

    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setattr(compile_cache, "_checked", set())
    monkeypatch.setattr(compile_cache, "helper_enabled", lambda: True)
    started = []
    real_start = compile_cache.start_helper
    monkeypatch.setattr(compile_cache, "start_helper",
                        lambda plan, locks: started.append(plan) or real_start(plan, locks))
    calls = []
    assert compile_cache.ensure_compiled(
        "tiny", "Tiny", [tiny.twice], lambda: calls.append(tiny.twice(4)), 3.0,
        stream=io.StringIO(), plan=lambda: [(tiny.twice, (int64,))])
    assert calls == [8] and started == [[(tiny.twice, (int64,))]]


def test_the_helper_needs_an_idle_core_now_not_a_low_load_average(monkeypatch):
    """The CPU counters decide (the 1-minute load average lags behind a run that just
    ended): half of two cores idle over the sample is enough, a fifth of them is not."""
    monkeypatch.setattr(os, "getloadavg", lambda: (2.5, 2.5, 2.5))   # just after a run
    monkeypatch.setattr(compile_cache, "IDLE_SAMPLE_SECONDS", 0.0)
    for idle_ticks, enough in ((150, True), (100, True), (40, False)):
        samples = iter([(1000.0, 5000.0), (1000.0 + idle_ticks, 5200.0)])
        monkeypatch.setattr(compile_cache, "cpu_times", lambda: next(samples))
        assert compile_cache.idle_cores(2) == pytest.approx(2 * idle_ticks / 200)
        samples = iter([(1000.0, 5000.0), (1000.0 + idle_ticks, 5200.0)])
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
        assert compile_cache.helper_enabled() is enough


def test_the_helper_is_off_when_asked_or_when_the_cache_cannot_be_written(tiny, monkeypatch,
                                                                          tmp_path):
    monkeypatch.setattr(compile_cache, "cpu_times", lambda: None)   # no CPU counters:
    monkeypatch.setattr(os, "getloadavg", lambda: (0.2, 0.2, 0.2))  # an idle machine
    monkeypatch.setenv(compile_cache.HELPER_ENV, "0")
    assert compile_cache.helper_enabled() is False
    monkeypatch.delenv(compile_cache.HELPER_ENV)
    cores = len(os.sched_getaffinity(0))
    assert compile_cache.helper_enabled() is (cores >= 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (cores + 1.0,) * 3)  # no idle core
    assert compile_cache.helper_enabled() is False
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(blocker / "numba-x"))
    assert compile_cache.lock_directory() is None
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    assert compile_cache.lock_directory() is None  # numba picks its own: no helper


def _numba_opt_after_importing_sim(env) -> int:
    import subprocess
    code = ("import sim; from numba.core import config; config.reload_config(); "
            "print(int(config.OPT))")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True)
    return int(done.stdout.strip())


def test_kernels_compile_at_llvm_o2_unless_the_user_sets_numba_opt():
    """-O2 compiles about a fifth faster than numba's -O3 and plays as fast (sim/__init__)."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_OPT"}
    assert _numba_opt_after_importing_sim(env) == 2
    assert _numba_opt_after_importing_sim({**env, "NUMBA_OPT": "3"}) == 3
