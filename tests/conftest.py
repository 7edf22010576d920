"""Fixtures shared by the test files.

- ``fake_game_registered``: the fast test game of tests/fake_game.py registered as
  ``--game fake`` (CARDSIM_EXTRA_GAMES) for a whole test module, with tests/ on PYTHONPATH
  so subprocesses and Dask workers find it too. Use it with
  ``pytestmark = pytest.mark.usefixtures("fake_game_registered")``.
- ``dask_cluster``: a Dask LocalCluster of 2 worker processes (1 thread each, 127.0.0.1
  only, the fake game registered) for a whole test module: (scheduler address, client).
- ``rules_text(name)``: the text of a rules file of ../shared/rules/ (beside the
  repository, where CI copies shared/). A missing file fails the test: the rules files are
  the authority the tests cite, so they must not be skipped quietly.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from sim.core.game import EXTRA_GAMES_ENV

# Reports check every answer with search players for 300 s per player count by default
# (reports/stronger.py): the suite turns that off, and its own tests ask for it.
os.environ.setdefault("CARDSIM_STRONGER_PLAY", "0")

REPO_ROOT = Path(__file__).resolve().parent.parent
TESTS = Path(__file__).resolve().parent
RULES_DIR = REPO_ROOT.parent / "shared" / "rules"


@pytest.fixture(scope="module")
def fake_game_registered():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(EXTRA_GAMES_ENV, "fake=fake_game")
        mp.setenv("PYTHONPATH", os.pathsep.join([str(REPO_ROOT), str(TESTS)]))
        yield


@pytest.fixture(scope="module")
def dask_cluster(fake_game_registered):
    pytest.importorskip("distributed")
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as local, \
            Client(local, set_as_default=False) as client:
        client.wait_for_workers(2)
        yield local.scheduler_address, client


def read_rules(name: str) -> str:
    path = RULES_DIR / name
    if not path.is_file():
        pytest.fail(f"rules file {path} is missing: the tests read ../shared/rules/{name} "
                    "beside the repository (copy shared/ there)", pytrace=False)
    return path.read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def rules_text():
    """``rules_text("peer-to-peer.md")``: see read_rules."""
    return read_rules
