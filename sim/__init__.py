"""cardsim: a Monte Carlo balance simulator for tabletop card games.

Importing this package points numba's on-disk cache at a directory keyed on a hash of
the sources kernels are compiled from: every ``*_kernel.py`` module under ``sim/`` and
the ``constants.py`` / ``features.py`` / ``noalias.py`` (a compiler pipeline) modules they
import (tests/docs/test_kernel_modules.py checks that kernels import nothing else from the
project), and ``numba_patches.py`` (the compile-time patches, whose on/off state also
names the directory). numba only notices edits to the file that holds a cached kernel, not to the
modules it calls, so without this a stale cache could serve old rules after an edit (see
shared engineering notes). Editing non-kernel code (the CLI, reports, the reference
engine) keeps the cache warm.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

__version__ = "0.1.0"

KERNEL_SOURCE_NAMES = ("constants.py", "features.py", "noalias.py", "numba_patches.py")


def kernel_sources(package: Path | None = None) -> list[Path]:
    """The files whose edits must invalidate the compiled-kernel cache."""
    package = package or Path(__file__).resolve().parent
    return sorted(p for p in package.rglob("*.py")
                  if p.name.endswith("_kernel.py") or p.name in KERNEL_SOURCE_NAMES)


def source_hash(package: Path | None = None) -> str:
    """SHA-256 (first 16 hex digits) over the kernel sources (see kernel_sources)."""
    package = package or Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in kernel_sources(package):
        digest.update(str(path.relative_to(package)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _configure_numba_cache() -> None:
    if "NUMBA_CACHE_DIR" in os.environ and not os.environ.get("CARDSIM_CACHE_ROOT"):
        return  # the user chose a cache directory explicitly
    base = os.environ.get("CARDSIM_CACHE_ROOT") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "cardsim"
    )
    # keyed on the numba patches that are on too: a compile without them never loads code
    # compiled with them (sim/core/numba_patches.py)
    from sim.core.numba_patches import cache_label

    os.environ["NUMBA_CACHE_DIR"] = os.path.join(base, f"numba-{source_hash()}{cache_label()}")


# LLVM's -O2 instead of numba's default -O3: a cold Peer-to-Peer compile takes about a fifth
# less CPU (35 s to 28 s, one process) and PLAI's a tenth, and the games run as fast
# (engine CPU per game, O2 against O3, medians of 12 alternating bursts: Peer-to-Peer
# 0.94-0.98, PLAI 1.00; docs/performance.md). Set before any kernel compiles (numba reads it
# when it first compiles); a user's own NUMBA_OPT wins.
OPTIMIZATION_LEVEL = "2"


def _configure_numba_optimization() -> None:
    os.environ.setdefault("NUMBA_OPT", OPTIMIZATION_LEVEL)


_configure_numba_cache()
_configure_numba_optimization()
