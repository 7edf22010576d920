"""Are a game's kernels in numba's on-disk cache?  The first-run compile notice.

numba keeps one index file (``*.nbi``) per cached function in ``NUMBA_CACHE_DIR`` (keyed
on a hash of the kernel sources by ``sim/__init__.py``), stamped with its source file's
modification time and size. A kernel whose entry point has no valid index entry is
compiled on its first call, which takes tens of seconds: ``ensure_compiled`` says so on
stderr, with an estimate, and compiles it with a one-game warm-up before the real work
starts. The estimate is the median of the last few compiles measured on this machine
(kept in ``compile-seconds.json`` beside the per-hash cache directories, so it survives a
kernel edit), or the game's own figure before the first one.

A cold compile also uses a second core (``ensure_compiled(..., plan=...)``): a helper
process (``python -m sim.core.compile_cache``) compiles the kernels the entry point calls
(its leaves, with the argument types the entry point calls them with) into the same
cache while this process compiles the rest. numba compiles a called kernel when it types
the call, and loads it from the cache instead when an entry for those argument types is
there, so work the helper finished is work this process skips. While the helper runs,
both processes compile each project kernel under a lock file of its own
(``compile_locks``): a kernel being compiled by one is waited for by the other, then
loaded, never compiled twice. A lock is held only by the process compiling that kernel
and its callees (a call graph has no cycles, so no deadlock); a lock not released within
``LOCK_TIMEOUT`` seconds is ignored. The locks are taken by a wrapper of numba's public
``Dispatcher.compile``, installed once per process and never removed, that acts only for
a thread inside ``compile_locks`` (the workbench compiles from other threads meanwhile). Off (one process, as before) with
``CARDSIM_COMPILE_HELPER=0``, on one core, when no core is idle (less than 0.8 of a core
idle over a tenth of a second, from the machine's CPU counters; where there are none, the
1-minute load average above cores - 0.8), without ``fcntl``, or when the cache directory cannot be
written; when everything is cached there is nothing to start. numba writes
each cache file to a temporary name and renames it, so a reader never sees half a file.

Before it compiles anything, ``ensure_compiled`` (and the helper) installs the numba
patches that make compiling cheaper (``sim.core.numba_patches``; off with
``CARDSIM_NUMBA_PATCHES=0``).
"""
from __future__ import annotations

import contextlib
import importlib
import json
import os
import pickle
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterable

from sim.core.numba_patches import TESTED_NUMBA, numba_version
from sim.core.numba_patches import install as install_patches

try:
    import fcntl
except ImportError:  # not POSIX: no helper process
    fcntl = None

ESTIMATES_FILE = "compile-seconds.json"
HELPER_ENV = "CARDSIM_COMPILE_HELPER"  # "0": compile in this process only
LOCK_DIR = "compile-locks"
LOCK_TIMEOUT = 300.0  # seconds: a lock held longer than this is not waited for
KEPT_COMPILES = 5  # measured compiles kept per key; the estimate is their median
PROJECT_PREFIX = "sim."

_checked: set[str] = set()  # keys already compiled or found cached in this process
# The last cold compile in this process: wall and CPU seconds, whether a helper ran, and
# how long this process waited for kernels the helper was compiling (benchmarks read it).
last_compile: dict = {}


def compile_seconds() -> float:
    """Wall seconds this process has spent in cold compiles so far (every key): the
    difference over a run is the part of its time that went to compiling."""
    return _compiled_total[0]


_compiled_total = [0.0]
_total_lock = threading.Lock()


def cache_dir() -> Path | None:
    """numba's cache directory for this source tree (None if numba picks its own)."""
    path = os.environ.get("NUMBA_CACHE_DIR")
    return Path(path) if path else None


def is_cached(dispatcher) -> bool | None:
    """Whether numba's cache holds a usable compiled version of ``dispatcher`` (an
    ``@njit(cache=True)`` function): its index file exists, matches its source file's
    stamp and lists at least one signature. None when nobody can tell: numba has no public
    way to ask, so this reads its cache's index through private names, trusted only on the
    numba versions tested (``TESTED_NUMBA``); on another numba, None."""
    if numba_version() not in TESTED_NUMBA:
        return None
    try:
        cache_file = dispatcher._cache._cache_file
        index_path = cache_file._index_path
    except AttributeError:
        return None
    if not os.path.exists(index_path):
        return False
    try:
        return bool(cache_file._load_index())  # {} when the source stamp does not match
    except Exception:  # noqa: BLE001 - a damaged index: numba recompiles, so do we
        return False


def all_cached(dispatchers: Iterable) -> bool | None:
    """True when every dispatcher is cached, False when one is not, None if unknown."""
    states = [is_cached(d) for d in dispatchers]
    if any(state is False for state in states):
        return False
    return None if any(state is None for state in states) else True


def _estimates_path() -> Path | None:
    directory = cache_dir()
    return directory.parent / ESTIMATES_FILE if directory else None


def _measured(known: dict, key: str) -> list[float]:
    """The compiles of ``key`` kept in the estimates file, oldest first (one number: a
    file written before it kept several)."""
    seen = known[key]
    return [float(x) for x in (seen if isinstance(seen, list) else [seen])]


def estimate_seconds(key: str, default: float) -> float:
    """The median of the last KEPT_COMPILES compiles of ``key`` measured on this machine,
    else ``default``: one compile on a busy machine or under a profiler does not set it."""
    path = _estimates_path()
    try:
        seen = _measured(json.loads(path.read_text()), key)
    except (AttributeError, OSError, ValueError, KeyError, TypeError):
        return default
    return statistics.median(seen) if seen else default


def record_seconds(key: str, seconds: float) -> None:
    path = _estimates_path()
    if path is None:
        return
    try:
        known = json.loads(path.read_text()) if path.exists() else {}
        try:
            seen = _measured(known, key)
        except (KeyError, ValueError, TypeError):
            seen = []
        known[key] = (seen + [round(seconds, 1)])[-KEPT_COMPILES:]
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(known, indent=1, sort_keys=True))
        os.replace(tmp, path)
    except (OSError, ValueError):
        pass  # an estimate is a courtesy; never fail a run over it


def notice(title: str, seconds: float) -> str:
    """The line printed before a cold compile."""
    return (f"compiling the {title} kernels, once, about {max(1, round(seconds))} s "
            f"(later runs load them from the cache)")


def ensure_compiled(key: str, title: str, dispatchers: Iterable, warm_up: Callable[[], object],
                    default_seconds: float, stream=None,
                    plan: Callable[[], list] | None = None) -> bool:
    """Compile ``dispatchers`` now if the cache lacks one of them, saying so on ``stream``
    (stderr): ``warm_up()`` must call them on a tiny input (results are thrown away).
    ``plan()``, if given, lists ``(dispatcher, argument types)`` for a helper process to
    compile meanwhile (see the module docstring). Returns True when it compiled. Checks
    once per process and key."""
    install_patches()   # before anything of this process compiles (sim/core/numba_patches.py)
    if key in _checked:
        return False
    _checked.add(key)
    dispatchers = list(dispatchers)
    if all_cached(dispatchers) is not False:
        return False
    states = [is_cached(d) for d in dispatchers]
    # Only a compile of every kernel measures the next cold start: one edited kernel
    # compiles in a fraction of it, and its time would announce "about 1 s" before 25.
    whole = all(state is False for state in states)
    stream = sys.stderr if stream is None else stream
    print(notice(title, estimate_seconds(key, default_seconds)), file=stream, flush=True)
    start, cpu = time.perf_counter(), time.process_time()
    locks = lock_directory() if plan is not None and helper_enabled() else None
    helper = start_helper(_plan_or_none(plan), locks) if locks is not None else None
    _waited[0] = 0.0
    try:
        with compile_locks(locks) if helper is not None else contextlib.nullcontext():
            warm_up()
    finally:
        stop_helper(helper)
    seconds = time.perf_counter() - start
    last_compile.update(key=key, seconds=seconds, cpu=time.process_time() - cpu,
                        helper=helper is not None, waited=_waited[0])
    with _total_lock:   # chunks on several threads may each compile a key
        _compiled_total[0] += seconds
    if whole:
        record_seconds(key, seconds)
    print(f"compiled the {title} kernels in {seconds:.0f} s", file=stream, flush=True)
    return True


# ---------------------------------------------------------------- the helper process

def _plan_or_none(plan: Callable[[], list]) -> list:
    try:
        return list(plan())
    except Exception:  # noqa: BLE001 - no help then, the same compile in this process
        return []


IDLE_SAMPLE_SECONDS = 0.1   # how long idle_cores watches the CPU counters
IDLE_NEEDED = 0.8           # idle cores a helper needs (about one nobody else uses)


def cpu_times() -> tuple[float, float] | None:
    """(idle, total) CPU time counters of the whole machine, in ticks (Linux's /proc/stat);
    None where there is no such file."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = [float(x) for x in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    if len(fields) < 4:
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)   # idle + iowait
    return idle, sum(fields[:8])   # guest time is already counted in user time


def idle_cores(cores: int) -> float:
    """How many cores nobody uses right now: the machine's idle share over
    IDLE_SAMPLE_SECONDS times the cores; without /proc/stat, cores minus the 1-minute load
    average. (The load average lags by a minute: a cold run right after another one saw
    a load of 2 on an idle machine and compiled alone, 27 s instead of 18.)"""
    before = cpu_times()
    if before is not None:
        time.sleep(IDLE_SAMPLE_SECONDS)
        after = cpu_times()
        if after is not None and after[1] > before[1]:
            share = (after[0] - before[0]) / (after[1] - before[1])
            return max(0.0, min(1.0, share)) * cores
    try:
        return cores - os.getloadavg()[0]
    except (AttributeError, OSError):
        return float(cores)


def helper_enabled() -> bool:
    """Whether a cold compile may start a helper process (see the module docstring)."""
    if fcntl is None or os.environ.get(HELPER_ENV, "1").strip() == "0":
        return False
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    # a helper only helps on a core nobody else uses: on a busy machine (load 4.5 of 2
    # cores) it made a cold Peer-to-Peer run slower (49 s against 43.6 s alone)
    return cores >= 2 and idle_cores(cores) >= IDLE_NEEDED


def lock_directory() -> Path | None:
    """The lock files' directory (created), or None when the cache cannot be written."""
    directory = cache_dir()
    if directory is None:
        return None
    locks = directory / LOCK_DIR
    try:
        locks.mkdir(parents=True, exist_ok=True)
        probe = locks / f".probe-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError:
        return None
    return locks


def _is_project(dispatcher) -> bool:
    return (getattr(dispatcher.py_func, "__module__", "") or "").startswith(PROJECT_PREFIX)


def _lock_name(dispatcher) -> str:
    return f"{dispatcher.py_func.__module__}.{dispatcher.py_func.__qualname__}.lock"


# The lock files of compile_locks, per thread: a thread's compiles take locks only while
# that thread is inside compile_locks (other threads, say the workbench's, compile as usual).
_locking = threading.local()
_hook_lock = threading.Lock()
_hooked: list = []   # numba's Dispatcher.compile, once the hook below is installed


def _install_compile_hook() -> None:
    """Wrap numba's ``Dispatcher.compile`` (its public compile-one-signature method) once
    per process, for good: a compile takes the kernel's lock file when the calling thread
    is inside :func:`compile_locks`, and is numba's own otherwise. Installed once under a
    lock and never swapped back, so threads entering and leaving ``compile_locks`` at the
    same time cannot leave another thread's wrapper behind."""
    with _hook_lock:
        if _hooked:
            return
        from numba.core.dispatcher import Dispatcher

        original = Dispatcher.compile

        def compile(self, sig):
            state = getattr(_locking, "state", None)
            if state is None or not _is_project(self):
                return original(self, sig)
            return _compile_locked(original, self, sig, *state)

        compile.__doc__ = original.__doc__
        Dispatcher.compile = compile
        _hooked.append(original)


def _compile_locked(original, dispatcher, sig, directory: Path, held: dict):
    from numba.core import sigutils

    try:
        args = tuple(sigutils.normalize_signature(sig)[0])
    except Exception:  # noqa: BLE001 - let numba report it
        return original(dispatcher, sig)
    if args in dispatcher.overloads:
        return original(dispatcher, sig)
    name = _lock_name(dispatcher)
    entry = held.get(name)
    if entry is None:
        entry = held[name] = [_acquire(directory / name), 0]
    entry[1] += 1
    try:
        return original(dispatcher, sig)
    finally:
        entry[1] -= 1
        if entry[1] == 0 and held.pop(name, None) is entry:
            _release(entry[0])


@contextlib.contextmanager
def compile_locks(directory: Path | None):
    """While active, this thread compiles each project kernel holding its lock file in
    ``directory`` (re-entrant; a kernel already compiled in memory takes no lock)."""
    if directory is None or fcntl is None or getattr(_locking, "state", None) is not None:
        yield
        return
    _install_compile_hook()
    held: dict[str, list] = {}
    _locking.state = (directory, held)
    try:
        yield
    finally:
        _locking.state = None
        for fd, _ in held.values():
            _release(fd)
        held.clear()


def _acquire(path: Path):
    """An exclusive lock on ``path`` (a file descriptor), waiting at most LOCK_TIMEOUT;
    None when it could not be had (then compile without it)."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        return None
    start = time.monotonic()
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except OSError:
                if time.monotonic() > start + LOCK_TIMEOUT:
                    os.close(fd)
                    return None
                time.sleep(0.02)
    finally:
        _waited[0] += time.monotonic() - start


_waited = [0.0]  # seconds spent in _acquire, this compile


def _release(fd) -> None:
    if fd is None:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    except OSError:
        pass


def plan_by_names(dispatchers: Iterable, examples: dict) -> list:
    """A helper's plan: each dispatcher with the numba types of ``examples[name]`` for its
    parameters, by name (a kernel's ``st`` is the state's ``st``, and so on: pass what the
    entry point passes it). A dispatcher with a parameter not in ``examples`` is left out
    (the main process compiles it, as without a helper)."""
    import inspect

    from numba import typeof

    plan = []
    for dispatcher in dispatchers:
        params = list(inspect.signature(dispatcher.py_func).parameters)
        if all(p in examples for p in params):
            plan.append((dispatcher, tuple(typeof(examples[p]) for p in params)))
    return plan


def start_helper(plan: list, locks: Path) -> subprocess.Popen | None:
    """Start ``python -m sim.core.compile_cache`` on ``plan`` ((dispatcher, argument
    types) pairs); None if there is nothing to do or it cannot start."""
    entries = [(d.py_func.__module__, d.py_func.__name__, tuple(types)) for d, types in plan
               if not is_cached(d)]
    if not entries:
        return None
    root = str(Path(__file__).resolve().parents[2])  # this source tree first on the path
    env = {**os.environ, HELPER_ENV: "0", "NUMBA_CACHE_DIR": str(cache_dir()),
           "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    env.pop("CARDSIM_CACHE_ROOT", None)  # the same numba cache directory as this process
    try:
        helper = subprocess.Popen([sys.executable, "-m", "sim.core.compile_cache", str(locks)],
                                  stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, env=env, cwd=root)
        helper.stdin.write(pickle.dumps(entries))
        helper.stdin.close()
    except (OSError, pickle.PicklingError, ValueError):
        return None
    return helper


def stop_helper(helper: subprocess.Popen | None) -> None:
    """End the helper: everything this process needed is compiled by now, so what it
    still compiles is not needed (a cache file is written whole or not at all)."""
    if helper is None:
        return
    if helper.poll() is None:
        helper.terminate()
    try:
        helper.wait(timeout=10)
    except subprocess.TimeoutExpired:
        helper.kill()
        helper.wait()


def _locked_elsewhere(path: Path) -> bool:
    """Is ``path`` locked by another process right now (it is compiling that kernel)?"""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


def _helper_main(locks: str) -> None:
    """Compile the plan read from stdin, skipping what the main process is compiling."""
    entries = pickle.loads(sys.stdin.buffer.read())
    install_patches()   # the same compile as the main process's
    parent = os.getppid()
    with compile_locks(Path(locks)):
        for module, name, types in entries:
            if os.getppid() != parent:
                return  # the run that wanted these is gone
            try:
                dispatcher = getattr(importlib.import_module(module), name)
                if _locked_elsewhere(Path(locks) / _lock_name(dispatcher)):
                    continue  # the main process has it (do not sit waiting for it)
                dispatcher.compile(types)
            except Exception:  # noqa: BLE001 - the main process compiles what failed here
                pass


if __name__ == "__main__":
    _helper_main(sys.argv[1])
