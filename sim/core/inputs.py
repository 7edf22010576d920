"""User inputs every command shares: game counts (``1e6``), seeds and thread counts."""
from __future__ import annotations

import math
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
        exact = Decimal(value) if abs(value) < 10**30 else Decimal(1 if value > 0 else -1) * \
            Decimal(10) ** 30   # a huge int is "too large"; never formatted whole
        shown = _short(value)
    elif isinstance(value, float):
        if not math.isfinite(value) or not value.is_integer():
            raise UserError(f"must be a whole number, got {value!r}", field=field)
        exact, shown = Decimal(value), _short(value)
    else:
        text = str(value).strip()
        shown = _short(text)
        if not _COUNT_RE.fullmatch(text):
            raise UserError(f"must be a positive whole number such as 1000, 1_000_000 or 1e6, "
                            f"got '{shown}'", field=field)
        try:
            exact = Decimal(text.replace("_", ""))
        except InvalidOperation:  # pragma: no cover - the regex already rules this out
            raise UserError(f"must be a positive whole number, got '{shown}'",
                            field=field) from None
    # compare as a Decimal first: 1e999 is refused without making a 1000-digit int
    if exact < 1:
        raise UserError(f"must be at least 1, got {shown}", field=field)
    if exact > maximum:
        # exact below a million (4,096 threads), a power of ten above (1e+12 games)
        limit = f"{maximum:,}" if maximum < 1_000_000 else f"{maximum:.0e}"
        raise UserError(f"must be at most {limit}, got {shown}", field=field)
    if exact != exact.to_integral_value():
        raise UserError(f"must be a whole number, got '{shown}'", field=field)
    return int(exact)


def _short(value: Any, limit: int = 24) -> str:
    """A value as an error shows it: short (a huge int is never converted to text)."""
    if isinstance(value, int) and abs(value) >= 10**limit:
        return f"a number of about {int(value.bit_length() * 0.30103) + 1:,} digits"
    text = str(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def parse_seed(seed: Any) -> int:
    """A seed: a whole number 0 .. 2**63-1 (``1_000`` allowed)."""
    if isinstance(seed, bool):
        raise UserError(f"must be a whole number 0 .. 2**63-1, got {seed}", field="--seed")
    if isinstance(seed, int):
        value = seed
    else:
        text = str(seed).strip().replace("_", "")
        if not re.fullmatch(r"[+-]?[0-9]{1,40}", text):   # no 5000-digit conversions
            raise UserError(f"must be a whole number 0 .. 2**63-1, got '{_short(seed)}'",
                            field="--seed")
        value = int(text)
    if not 0 <= value < 2**63:
        raise UserError(f"must be between 0 and 2**63-1, got {_short(value)}", field="--seed")
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
