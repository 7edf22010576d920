"""Are a game's kernels in numba's on-disk cache?  The first-run compile notice.

numba keeps one index file (``*.nbi``) per cached function in ``NUMBA_CACHE_DIR`` (keyed
on a hash of the kernel sources by ``sim/__init__.py``), stamped with its source file's
modification time and size. A kernel whose entry point has no valid index entry is
compiled on its first call, which takes tens of seconds: ``ensure_compiled`` says so on
stderr, with an estimate, and compiles it with a one-game warm-up before the real work
starts. The estimate is the last compile measured on this machine (kept in
``compile-seconds.json`` beside the per-hash cache directories, so it survives a kernel
edit), or the game's own figure before the first one.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Callable, Iterable

ESTIMATES_FILE = "compile-seconds.json"

_checked: set[str] = set()  # keys already compiled or found cached in this process


def cache_dir() -> Path | None:
    """numba's cache directory for this source tree (None if numba picks its own)."""
    path = os.environ.get("NUMBA_CACHE_DIR")
    return Path(path) if path else None


def is_cached(dispatcher) -> bool | None:
    """Whether numba's cache holds a usable compiled version of ``dispatcher`` (an
    ``@njit(cache=True)`` function): its index file exists, matches its source file's
    stamp and lists at least one signature. None when this numba keeps its cache some
    other way (then nobody can tell)."""
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


def estimate_seconds(key: str, default: float) -> float:
    """The last measured compile of ``key`` on this machine, else ``default``."""
    path = _estimates_path()
    try:
        return float(json.loads(path.read_text())[key])
    except (AttributeError, OSError, ValueError, KeyError, TypeError):
        return default


def record_seconds(key: str, seconds: float) -> None:
    path = _estimates_path()
    if path is None:
        return
    try:
        known = json.loads(path.read_text()) if path.exists() else {}
        known[key] = round(seconds, 1)
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
                    default_seconds: float, stream=None) -> bool:
    """Compile ``dispatchers`` now if the cache lacks one of them, saying so on ``stream``
    (stderr): ``warm_up()`` must call them on a tiny input (results are thrown away).
    Returns True when it compiled. Checks once per process and key."""
    if key in _checked:
        return False
    _checked.add(key)
    if all_cached(list(dispatchers)) is not False:
        return False
    stream = sys.stderr if stream is None else stream
    print(notice(title, estimate_seconds(key, default_seconds)), file=stream, flush=True)
    start = time.perf_counter()
    warm_up()
    seconds = time.perf_counter() - start
    record_seconds(key, seconds)
    print(f"compiled the {title} kernels in {seconds:.0f} s", file=stream, flush=True)
    return True
