"""Every command that plays games plays on Dask with the same numbers as locally:
``--until-ci``, balance-report, matchups (both schemes), check, autobalance, ablate and skill,
through the API and through the CLI's --backend/--scheduler flags. (``simulate`` runs,
--resume, experiments, tune and workbench have their own Dask tests:
tests/runs/test_dask_backend.py, tests/runs/test_dask_experiments.py,
tests/studies/test_tune.py, tests/workbench/test_api.py.)

One LocalCluster for the module (2 worker processes, 1 thread each, 127.0.0.1 only); each
test spies on the backend so a command that silently played locally fails.
"""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

pytest.importorskip("distributed")

from sim import api, cli  # noqa: E402
from sim.runs import backends  # noqa: E402

pytestmark = pytest.mark.usefixtures("fake_game_registered")


@pytest.fixture(scope="module")
def cluster(dask_cluster):
    return dask_cluster[0]       # the scheduler's address (tests/runs/conftest.py)


class Spied:
    """A Dask backend on the module's cluster that counts the chunk tasks it plays."""

    def __init__(self, address: str):
        self.backend = backends.create("dask", scheduler=address)
        self.tasks = 0
        original = self.backend.run_tasks

        def run_tasks(tasks, **kwargs):
            def counted():
                for task in tasks:
                    self.tasks += 1
                    yield task
            return original(counted(), **kwargs)

        self.backend.run_tasks = run_tasks

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.backend.close()


def _table(run_dir) -> pl.DataFrame:
    return pl.read_parquet(f"{run_dir}/games/*.parquet").sort("game_index")


def _csv(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# ----------------------------------------------------------------------------- --until-ci
def test_until_ci_from_the_cli_plays_on_dask(cluster, tmp_path):
    args = ["--game", "fake", "--games", "40000", "--chunk-size", "4000", "--seed", "3",
            "--until-ci", "3", "--json", "--no-progress"]
    runner = CliRunner()
    local = runner.invoke(cli.main, [*args, "--out", str(tmp_path / "local")])
    dask = runner.invoke(cli.main, [*args, "--out", str(tmp_path / "dask"), "--backend", "dask",
                                    "--scheduler", cluster])
    assert local.exit_code == 0 and dask.exit_code == 0, (local.output, dask.output)
    a, b = json.loads(local.output), json.loads(dask.output)
    assert a["until_ci"] == b["until_ci"] and a["until_ci"]["looks"] >= 2
    manifest = json.loads((tmp_path / "dask" / "manifest.json").read_text())
    assert {s["backend"]["name"] for s in manifest["sessions"]} == {"dask"}
    assert _table(tmp_path / "dask").equals(_table(tmp_path / "local"))


# ----------------------------------------------------------------------------- balance-report
def test_balance_report_on_dask_matches_local(cluster, tmp_path):
    args = dict(game="fake", games=3000, seed=2, chunk_size=1000, progress=False)
    local = api.balance_report(out=tmp_path / "local", **args)
    with Spied(cluster) as spied:
        dask = api.balance_report(out=tmp_path / "dask", backend=spied.backend, **args)
    points = api.balance_points("fake")
    assert spied.tasks == 3 * len(points)            # three chunks per player count
    runs = sorted(p.name for p in (tmp_path / "local" / "runs").iterdir())
    assert len(runs) == len(points)
    for name in runs:
        assert _table(tmp_path / "dask" / "runs" / name).equals(
            _table(tmp_path / "local" / "runs" / name)), name
    for name in ["report.md", *sorted(p.name for p in (tmp_path / "local").glob("*.csv"))]:
        assert _csv(tmp_path / "dask" / name).replace(str(tmp_path / "dask"), "OUT") == \
            _csv(tmp_path / "local" / name).replace(str(tmp_path / "local"), "OUT"), name
    assert [f["text"] for f in dask["findings"]] == [f["text"] for f in local["findings"]]


def test_balance_report_cli_takes_the_backend_flags(cluster, tmp_path):
    result = CliRunner().invoke(cli.main, [
        "balance-report", "--game", "fake", "--games", "500", "--out", str(tmp_path / "b"),
        "--no-progress", "--backend", "dask", "--scheduler", cluster])
    assert result.exit_code == 0, result.output
    manifests = [json.loads(p.read_text())
                 for p in sorted((tmp_path / "b" / "runs").glob("*/manifest.json"))]
    assert manifests and all(m["sessions"][-1]["backend"]["name"] == "dask" for m in manifests)


# ----------------------------------------------------------------------------- matchups
@pytest.mark.parametrize("game, strategies, players", [
    ("peer-to-peer", "random,greedy", 2),
    ("plai", "weighted,cautious", 2),
])
def test_matchups_on_dask_match_local(cluster, tmp_path, game, strategies, players):
    args = dict(game=game, players=players, games=300, seed=4)
    local = api.matchups(strategies, out=tmp_path / "local", **args)
    with Spied(cluster) as spied:
        dask = api.matchups(strategies, out=tmp_path / "dask", backend=spied.backend, **args)
    assert spied.tasks == len(local.pairs)           # one chunk per block
    assert dask.pairs == local.pairs and dask.matrix == local.matrix
    assert dask.table() == local.table()
    for name in ("pairs.csv", "matrix.csv", "matrix.txt"):
        assert _csv(dask.run_dir / name) == _csv(local.run_dir / name), name


def test_matchups_cli_takes_the_backend_flags(cluster, tmp_path):
    base = ["matchups", "--strategies", "random,greedy", "--players", "2", "--games", "200"]
    runner = CliRunner()
    local = runner.invoke(cli.main, [*base, "--out", str(tmp_path / "l")])
    dask = runner.invoke(cli.main, [*base, "--out", str(tmp_path / "d"), "--backend", "dask",
                                    "--scheduler", cluster])
    assert local.exit_code == 0 and dask.exit_code == 0, (local.output, dask.output)
    assert _csv(tmp_path / "d" / "matrix.txt") == _csv(tmp_path / "l" / "matrix.txt")
    wrong = runner.invoke(cli.main, [*base, "--workers", "2"])
    assert wrong.exit_code == 2 and "--workers belongs to --backend dask-local" in wrong.output


# ----------------------------------------------------------------------------- check
GATE = """
gate:
  game: peer-to-peer
  players: [2]
  games: 600
  chunk_size: 300
  seed: 3
  strategies: {A: greedy, B: greedy}
  sweep:
    rule.hand_size: [4, 5]
  checks:
    - {metric: all_lose_rate, players: 2, max: 100, min: 0}
    - {metric: mean_rounds, players: 2, target: 5, tolerance: 0}
"""


def test_check_on_dask_matches_local(cluster, tmp_path):
    path = tmp_path / "gate.yaml"
    path.write_text(textwrap.dedent(GATE))
    local = api.check("gate", path, progress=False, out=tmp_path / "local")
    with Spied(cluster) as spied:
        dask = api.check("gate", path, progress=False, out=tmp_path / "dask",
                         backend=spied.backend)
    assert spied.tasks == 4                           # 2 points x 2 chunks
    assert dask.table() == local.table() and dask.passed == local.passed is False
    result = CliRunner().invoke(cli.main, ["check", "gate", "--file", str(path),
                                           "--no-progress", "--backend", "dask",
                                           "--scheduler", cluster])
    assert result.exit_code == 1 and result.output.strip() == local.table().strip()


# ----------------------------------------------------------------------------- autobalance
SEARCH = """
ab:
  game: peer-to-peer
  players: [2]
  games: 600
  seed: 5
  strategies: {A: cautious, B: cautious}
  card_overrides: {OPA.value: 0}
  autobalance:
    vary:
      OPA.value: [0, 5]
    targets:
      - {metric: a_share, players: 2, target: 50, tolerance: 8}
    batches: 2
    rounds: 2
"""


def test_autobalance_on_dask_matches_local(cluster, tmp_path):
    path = tmp_path / "ab.yaml"
    path.write_text(textwrap.dedent(SEARCH))
    local = api.autobalance("ab", path, progress=False, out=tmp_path / "local.csv")
    with Spied(cluster) as spied:
        dask = api.autobalance("ab", path, progress=False, out=tmp_path / "dask.csv",
                               backend=spied.backend)
    assert spied.tasks >= 2                           # at least the start's two batches
    assert dask.report().replace("dask.csv", "local.csv") == local.report()
    assert (dask.start, dask.best, dask.evaluated, dask.dropped) == \
        (local.start, local.best, local.evaluated, local.dropped)
    assert _csv(tmp_path / "dask.csv") == _csv(tmp_path / "local.csv")
    result = CliRunner().invoke(cli.main, ["autobalance", "ab", "--file", str(path),
                                           "--out", str(tmp_path / "cli.csv"), "--no-progress",
                                           "--backend", "dask", "--scheduler", cluster])
    assert result.exit_code == 0, result.output
    assert _csv(tmp_path / "cli.csv") == _csv(tmp_path / "local.csv")


# ----------------------------------------------------------------------------- the values
def test_game_request_and_execution_values_are_the_keyword_form(tmp_path):
    """api.run(GameRequest, Execution) plays what api.run(**fields) plays; keywords win."""
    request = api.GameRequest(game="fake", players=3, rule_overrides=("bonus=2",))
    execution = api.Execution(games=900, seed=6, chunk_size=300, progress=False)
    by_values = api.run(request, execution.replace(out=tmp_path / "v"))
    by_keywords = api.run(game="fake", players=3, rule_overrides=("bonus=2",), games=900,
                          seed=6, chunk_size=300, progress=False, out=tmp_path / "k")
    assert _table(by_values.run_dir).equals(_table(by_keywords.run_dir))
    assert by_values.manifest["request"] == by_keywords.manifest["request"]
    mixed = api.run(request, execution, players=2, out=tmp_path / "m")
    assert mixed.manifest["players"] == 2 and mixed.manifest["games"] == 900
    with pytest.raises(TypeError, match="unexpected keyword argument 'gmes'"):
        api.run(request, gmes=10)
    with pytest.raises(TypeError, match="unexpected keyword argument 'until_ci'"):
        api.balance_report(request, until_ci=1)


# ----------------------------------------------------------------------------- ablate
def test_ablate_on_dask_matches_local(cluster, tmp_path):
    """Card ablation (baseline + each change of one card) plays every configuration's
    chunks on the cluster and writes the same ablation table as locally."""
    args = dict(game="peer-to-peer", players=2, games=400, seed=5, only=("SV2",),
                changes=("value-1", "value+1"), strategies={"A": "greedy", "B": "greedy"})
    local = api.ablate(out=tmp_path / "local", threads=1, **args)
    with Spied(cluster) as spied:
        dask = api.ablate(out=tmp_path / "dask", backend=spied.backend, **args)
    assert spied.tasks >= 3                          # the baseline and two variants
    assert _csv(dask.out / "ablation.csv") == _csv(local.out / "ablation.csv")


# ----------------------------------------------------------------------------- skill
def test_skill_on_dask_matches_local(cluster, tmp_path):
    """The skill ladder plays every block of every pairing on the cluster and writes the
    same pairings table and ladder as locally. A tiny ladder (one player count, 24 games a
    plain pairing, 8 with a search player, the smallest budgets): the local run compiles
    the search kernels into the shared cache first, so the workers load them."""
    args = dict(game="plai", players="2", games=24, search_games=8,
                budgets=("k=2,n=1", "k=2,n=2"), seed=6)
    local = api.skill(out=tmp_path / "local", threads=1, **args)
    with Spied(cluster) as spied:
        dask = api.skill(out=tmp_path / "dask", backend=spied.backend, **args)
    pairings = len(local.pairings)
    assert pairings >= 5 and spied.tasks >= pairings    # every block of every pairing
    assert dask.ladders == local.ladders
    assert dask.table() == local.table()
    strip = [c for c in pl.read_csv(local.run_dir / "pairings.csv").columns if c != "seconds"]
    assert pl.read_csv(dask.run_dir / "pairings.csv").select(strip).equals(
        pl.read_csv(local.run_dir / "pairings.csv").select(strip))
    ladder = (local.run_dir / "ladder.txt").read_text(encoding="utf-8")
    assert (dask.run_dir / "ladder.txt").read_text(encoding="utf-8") == ladder
