"""The compile helper's lock files (sim.core.compile_cache.compile_locks) from several
threads, as the workbench compiles: a thread takes lock files only while it is inside
compile_locks, and threads entering and leaving at the same time leave nothing behind.
A tiny kernel in a temporary module stands in for a game kernel."""
from __future__ import annotations

import importlib
import sys
import threading

import pytest
from numba import int64
from numba.core import config as numba_config

from sim.core import compile_cache

TINY = '''
from numba import njit


@njit(cache=True)
def twice(x):
    return 2 * x
'''


@pytest.fixture
def tiny(tmp_path, monkeypatch):
    cache = tmp_path / "cache" / "numba-x"
    monkeypatch.setattr(numba_config, "CACHE_DIR", str(cache))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache))
    (tmp_path / "tiny_kernel_threads.py").write_text(TINY)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(compile_cache, "PROJECT_PREFIX", "tiny_kernel")
    sys.modules.pop("tiny_kernel_threads", None)
    yield importlib.import_module("tiny_kernel_threads")
    sys.modules.pop("tiny_kernel_threads", None)


def test_overlapping_compile_locks_in_two_threads_leave_no_locking_behind(tiny, tmp_path):
    """Seen failing with the class-wide swap it replaces: this thread leaves first, the
    other thread then put back *this* thread's wrapper, and this thread's next compile
    took a lock file in a directory whose compile_locks had ended."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    entered, leave = threading.Event(), threading.Event()

    def other():
        with compile_cache.compile_locks(second):
            entered.set()
            leave.wait(30)

    thread = threading.Thread(target=other)
    with compile_cache.compile_locks(first):
        thread.start()
        assert entered.wait(30)
    leave.set()
    thread.join()
    assert tiny.twice(4) == 8        # compiles now, outside every compile_locks
    assert list(first.iterdir()) == [] and list(second.iterdir()) == []


def test_a_thread_outside_compile_locks_compiles_without_lock_files(tiny, tmp_path):
    locks = tmp_path / "locks"
    locks.mkdir()
    inside, done = threading.Event(), threading.Event()

    def holder():
        with compile_cache.compile_locks(locks):
            inside.set()
            done.wait(30)

    thread = threading.Thread(target=holder)
    thread.start()
    assert inside.wait(30)
    try:
        tiny.twice.compile((int64,))   # another thread is inside compile_locks; this is not
    finally:
        done.set()
        thread.join()
    assert list(locks.iterdir()) == []
