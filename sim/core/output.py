"""Writing output files: what a failed write means, on one line.

Writers do not agree on how they fail. Python's ``open``/``write`` raise ``OSError`` with
an ``errno``; polars raises ``ComputeError`` for a Parquet part and an ``OSError`` without
an ``errno`` for a CSV, both saying "No space left on device (os error 28)" in the text;
matplotlib's ``savefig`` raises ``OSError``. ``os_error_of`` turns any of them into an
``OSError`` with its ``errno`` (None for an exception that is no write failure), and
``writing`` maps a failed write to one ``UserError`` line naming the file and what to do.
"""
from __future__ import annotations

import contextlib
import errno
import os
import re
from typing import Iterator

from sim.core.errors import UserError

NO_SPACE_ERRNOS = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})
_OS_ERROR_TEXT = re.compile(r"\(os error (\d+)\)")


def os_error_of(exc: BaseException) -> OSError | None:
    """The OSError behind a failed write: ``exc`` itself when it is one with an errno, one
    rebuilt from polars' "(os error N)" text, else None (not a failed write)."""
    if isinstance(exc, OSError) and exc.errno is not None:
        return exc
    match = _OS_ERROR_TEXT.search(str(exc))
    if match and (isinstance(exc, OSError) or _is_polars_error(exc)):
        code = int(match.group(1))
        return OSError(code, os.strerror(code))
    return exc if isinstance(exc, OSError) else None


def _is_polars_error(exc: BaseException) -> bool:
    return any(cls.__module__.startswith("polars") for cls in type(exc).__mro__)


def is_no_space(exc: BaseException) -> bool:
    error = os_error_of(exc)
    return error is not None and error.errno in NO_SPACE_ERRNOS


class OutOfSpace(UserError):
    """The disk (or quota) is full; what was finished is kept."""


def write_failure(exc: BaseException, what: str, file: str | os.PathLike | None = None,
                  then: str = "", field: str | None = "--out") -> UserError:
    """The one-line error for a failed write of ``what``; ``then`` says how to go on once
    there is space again (e.g. "continue with: simulate --resume DIR")."""
    error = os_error_of(exc)
    shown = None if file is None else os.fspath(file)
    if error is not None and error.errno in NO_SPACE_ERRNOS:
        tail = f"; {then}" if then else "; free some space and run the command again"
        return OutOfSpace(f"no space left on device while writing {what}{tail}", file=shown,
                          field=field)
    reason = (error.strerror if error is not None and error.strerror else None) or \
        " ".join(str(exc).split())[:120] or type(exc).__name__
    return UserError(f"cannot write {what} ({reason})", file=shown, field=field)


@contextlib.contextmanager
def writing(what: str, file: str | os.PathLike | None = None, then: str = "",
            field: str | None = "--out") -> Iterator[None]:
    """Turn a failed write inside the block into ``write_failure``'s one line; any other
    exception passes unchanged."""
    try:
        yield
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001 - only write failures are translated
        if os_error_of(exc) is None:
            raise
        raise write_failure(exc, what, file, then, field) from None
