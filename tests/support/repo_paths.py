"""Where things are, for tests in any folder: the repository, tests/data, tests/support,
and the PYTHONPATH a subprocess or Dask worker needs to import the project and the support
modules (``fake_game`` for ``CARDSIM_EXTRA_GAMES=fake=fake_game``)."""
from __future__ import annotations

import os
from pathlib import Path

SUPPORT = Path(__file__).resolve().parent
TESTS = SUPPORT.parent
DATA = TESTS / "data"
REPO_ROOT = TESTS.parent


def subprocess_pythonpath() -> str:
    """PYTHONPATH for a child process: the repository and tests/support."""
    return os.pathsep.join([str(REPO_ROOT), str(SUPPORT)])
