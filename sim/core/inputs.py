"""User inputs every command shares: game counts (``1e6``), seeds and thread counts."""
from __future__ import annotations

import os
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from sim.core.errors import UserError

MAX_GAMES = 10**12
MAX_THREADS = 4096

_COUNT_RE = re.compile(r"[0-9](_?[0-9])*(\.([0-9](_?[0-9])*)?)?([eE]\+?[0-9]{1,3})?")


def parse_count(value: Any, field: str = "--games", maximum: int = MAX_GAMES) -> int:
    """A positive whole number written as ``1000000``, ``1_000_000`` or ``1e6``."""
    if isinstance(value, bool):
        raise UserError(f"must be a positive whole number, got {value!r}", field=field)
    if isinstance(value, int):
        number = value
    elif isinstance(value, float):
        if not value.is_integer():
            raise UserError(f"must be a whole number, got {value!r}", field=field)
        number = int(value)
    else:
        text = str(value).strip()
        if not _COUNT_RE.fullmatch(text):
            raise UserError(f"must be a positive whole number such as 1000, 1_000_000 or 1e6, "
                            f"got '{value}'", field=field)
        try:
            exact = Decimal(text.replace("_", ""))
        except InvalidOperation:  # pragma: no cover - the regex already rules this out
            raise UserError(f"must be a positive whole number, got '{value}'", field=field) from None
        if exact != exact.to_integral_value():
            raise UserError(f"must be a whole number, got '{value}'", field=field)
        number = int(exact)
    if number < 1:
        raise UserError(f"must be at least 1, got {number}", field=field)
    if number > maximum:
        raise UserError(f"must be at most {maximum:.0e}, got {number:.3e}", field=field)
    return number


def parse_seed(seed: Any) -> int:
    """A seed: a whole number 0 .. 2**63-1 (``1_000`` allowed)."""
    try:
        value = int(str(seed).replace("_", "")) if not isinstance(seed, int) else seed
    except ValueError:
        raise UserError(f"must be a whole number, got '{seed}'", field="--seed") from None
    if isinstance(seed, bool) or not 0 <= value < 2**63:
        raise UserError(f"must be between 0 and 2**63-1, got {seed}", field="--seed")
    return value


def default_threads() -> int:
    """What numba would use: the CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def parse_threads(threads: Any, default: int | None = None) -> int:
    """``--threads``: ``default`` (else default_threads()) when None, else a count."""
    if threads is None:
        return default_threads() if default is None else default
    return parse_count(threads, "--threads", MAX_THREADS)
