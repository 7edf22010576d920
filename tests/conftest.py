"""Fixtures shared by the test folders (each folder's conftest.py adds its own).

The test folders hold tests by subject (core, peer_to_peer, plai, reports, studies, runs,
workbench, docs); tests/support holds the helper modules they import by name (on sys.path
through pyproject's ``pythonpath``), tests/data the fixtures they read.

- ``fake_game_registered``: the fast test game of tests/support/fake_game.py registered as
  ``--game fake`` (CARDSIM_EXTRA_GAMES) for a whole test module, with tests/support on
  PYTHONPATH so subprocesses and Dask workers find it too. Use it with
  ``pytestmark = pytest.mark.usefixtures("fake_game_registered")``.
- ``runner``: a click CliRunner for ``sim.cli.main``.
- ``rules_text(name)``: the text of one of the project's rules documents in docs/rules/
  (``rules_text("peer-to-peer.md")``). A missing file fails the test: the rules documents
  are the authority the tests cite, so they must not be skipped quietly.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from repo_paths import subprocess_pythonpath

from sim.core import numba_patches
from sim.core.game import EXTRA_GAMES_ENV

# Tests call kernels directly too: they compile with the numba patches a run installs before
# it compiles (none with CARDSIM_NUMBA_PATCHES=0), since the cache directory is named for them.
numba_patches.install()

# Reports check every answer with search players for 300 s per player count by default
# (reports/stronger.py): the suite turns that off, and its own tests ask for it.
os.environ.setdefault("CARDSIM_STRONGER_PLAY", "0")

REPO_ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
RULES_DIR = REPO_ROOT / "docs" / "rules"


@pytest.fixture(scope="module")
def fake_game_registered():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(EXTRA_GAMES_ENV, "fake=fake_game")
        mp.setenv("PYTHONPATH", subprocess_pythonpath())
        yield


@pytest.fixture(scope="module")
def runner():
    from click.testing import CliRunner

    return CliRunner()


@pytest.fixture
def search_games_played(monkeypatch):
    """The search games stronger-play checks play rather than read back
    (sim.runs.kept_search): one (run directory's name, games played) per chunk asked."""
    from sim.runs.kept_search import KeptSearchGames

    played = []
    games = KeptSearchGames.games

    def counted(self, config, folder, seed, first, count, threads):
        table, new = games(self, config, folder, seed, first, count, threads)
        played.append((folder.parent.parent.name, new))
        return table, new
    monkeypatch.setattr(KeptSearchGames, "games", counted)
    return played


def read_rules(name: str) -> str:
    path = RULES_DIR / name
    if not path.is_file():
        pytest.fail(f"rules document {path} is missing: the tests read the rules from "
                    f"docs/rules/{name}", pytrace=False)
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def rules_text():
    """``rules_text("peer-to-peer.md")``: see read_rules."""
    return read_rules
