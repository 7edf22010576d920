"""cardsim: a Monte Carlo balance simulator for tabletop card games.

Importing this package points numba's on-disk cache at a directory keyed on a hash
of every Python source under ``sim/``, where all kernels live (``*_kernel.py``; they
import only other kernel modules and the ``constants``/``features`` modules beside
them). numba only notices edits to the file that holds a cached kernel, not to the
modules it calls, so a stale cache could otherwise serve old rules after an edit
(see shared engineering notes). Strategies and reports are plain Python.
"""
from __future__ import annotations

import hashlib
import os
from pathlib import Path

__version__ = "0.1.0"

_KERNEL_PACKAGES = ("sim",)


def source_hash() -> str:
    """SHA-256 (first 16 hex digits) over the Python sources that kernels can depend on."""
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for package in _KERNEL_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _configure_numba_cache() -> None:
    if "NUMBA_CACHE_DIR" in os.environ and not os.environ.get("CARDSIM_CACHE_ROOT"):
        return  # the user chose a cache directory explicitly
    base = os.environ.get("CARDSIM_CACHE_ROOT") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "cardsim"
    )
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(base, f"numba-{source_hash()}")


_configure_numba_cache()
