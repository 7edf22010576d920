"""The game contract (in the spirit of pgx's api_test): every registered game, Peer-to-Peer,
PLAI and the test game of tests/support/fake_game.py (CARDSIM_EXTRA_GAMES), is described by one
well-formed ``sim.core.game.Game`` and goes through every command on a few games: run
(--json), trace, report, balance-report, matchups, an experiment sweep, check,
autobalance, --until-ci, and the local and Dask backends. Outputs are checked against the
game's own description (outcome codes, headline counts, strategy slots, metrics), so a new
game passes when its description is right, with no edit outside its own package.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner

from sim import api, cli
from sim.core.errors import UserError
from sim.core.game import Game, check_description, resolve_game

pytestmark = pytest.mark.usefixtures("fake_game_registered")

GAMES = ("peer-to-peer", "plai", "fake")
FEW = 300  # games per run: the contract is about shapes and consistency, not rates


def invoke(*args: str):
    return CliRunner().invoke(cli.main, list(args), catch_exceptions=False)


def table(run_dir) -> pl.DataFrame:
    return pl.read_parquet(Path(run_dir) / "games" / "*.parquet").sort("game_index")


def other_strategy(game) -> str:
    """A second strategy of the game (for sweeps and matchups)."""
    names = sorted(s["name"] for s in api.strategies(game.name)) or ["random", "greedy"]
    return next(n for n in names if n != game.default_strategy)


@pytest.fixture(scope="module", params=GAMES)
def game(request, fake_game_registered):
    return resolve_game(request.param)


@pytest.fixture(scope="module")
def json_run(game, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "r"
    result = invoke("--game", game.name, "--games", str(FEW), "--seed", "3", "--out", str(out),
                    "--json", "--no-progress")
    assert result.exit_code == 0, result.output
    return out, json.loads(result.stdout)   # stdout only: a cold run says "compiling ..." on stderr


# ----------------------------------------------------------------------------- description
def test_the_description_is_well_formed(game):
    assert isinstance(game, Game) and check_description(game) == []
    assert game.strategy_kind in ("teams", "seats")
    players = game.default_players
    slots = game.strategy_slots(players)
    assert slots and all(game.strategy_key(slot, players) == slot for slot in slots)
    with pytest.raises(ValueError):
        game.strategy_key("no such slot", players)
    codes = game.outcome_codes
    assert all(isinstance(k, str) for k in codes) and len(set(codes.values())) == len(codes)
    assert game.matchup_scheme in ("team_pairs", "every_seat", None)
    variants = [v for p in game.player_counts for v in game.balance_variants(p)]
    assert all(variant == () or all("=" in o for o in variant) for variant in variants)
    # the balance report merges its runs: the rules it varies are compared on purpose
    assert {o.split("=")[0] for v in variants for o in v} <= set(game.compared_rules)
    names = {m.name for m in game.sweep_metrics}
    assert set(game.default_sweep_metrics(tuple(game.player_counts))) <= names
    from reports.registry import game_metrics

    assert game.report_metrics is None or game_metrics(game.name)  # a package with metrics
    config = api.configure(game.name)
    assert set(config.manifest()["strategies"]) == set(slots)
    for kernel in game.kernels():   # compiled entry points: imported, not compiled here
        assert hasattr(kernel, "py_func"), kernel


def test_the_sweep_metrics_read_columns_the_game_writes(game, json_run):
    out, _ = json_run
    columns = set(table(out).columns)
    for metric in game.sweep_metrics:
        assert set(metric.columns) - {"players"} <= columns, metric.name


def test_a_description_missing_a_field_or_with_a_bad_value_fails_when_built():
    """A new game fails when its description is built, naming the field, instead of
    falling back to another game's meaning."""
    from fake_game import DESCRIPTION

    without = {k: v for k, v in DESCRIPTION.items() if k != "headline_counts"}
    with pytest.raises(TypeError, match="headline_counts"):
        Game(**without)
    with pytest.raises(TypeError, match="game 'fake': strategy_kind must be one of"):
        Game(**{**DESCRIPTION, "strategy_kind": "pairs"})
    with pytest.raises(TypeError, match="headline_counts must be callable"):
        Game(**{**DESCRIPTION, "headline_counts": {"team A win rate": 0}})
    with pytest.raises(TypeError, match="default_players 5 is not in player_counts"):
        Game(**{**DESCRIPTION, "default_players": 5})


def test_a_game_module_without_a_description_is_refused(monkeypatch, tmp_path):
    (tmp_path / "loose_game.py").write_text("class Loose:\n    name = 'loose'\n\n"
                                           "GAME = Loose()\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("CARDSIM_EXTRA_GAMES", "loose=loose_game")
    with pytest.raises(UserError, match="loose_game.GAME is not a sim.core.game.Game"):
        resolve_game("loose")
    result = invoke("--game", "loose", "--games", "20", "--no-progress")
    assert result.exit_code == 2 and "is not a sim.core.game.Game" in result.output


# ----------------------------------------------------------------------------- run, trace
def test_run_json_outcomes_are_the_games_codes(game, json_run):
    out, payload = json_run
    games = table(out)
    assert games.height == FEW and games["game_index"].to_list() == list(range(FEW))
    assert set(games[game.outcome_column].unique().to_list()) <= set(game.outcome_codes.values())
    assert set(game.headline_columns) <= set(games.columns)
    manifest = json.loads((out / "manifest.json").read_text())
    if game.ablation_outcomes is not None:   # simulate ablate's headlines: one code a game
        codes, names = game.ablation_outcomes(games.select(game.headline_columns),
                                              manifest["players"])
        assert len(codes) == games.height and set(codes.tolist()) <= set(names.values())
    assert manifest["game"] == game.name
    assert set(manifest["strategies"]) == set(game.strategy_slots(manifest["players"]))
    assert (payload["game"], payload["games"], payload["run_dir"]) == (game.name, FEW, str(out))


def test_trace_replays_a_game(game):
    result = invoke("trace", "--game", game.name, "--seed", "3", "--game-index", "2")
    assert result.exit_code == 0, result.output
    assert result.output.strip()


def test_until_ci_intervals_are_the_headline_counts(game, tmp_path):
    result = api.run(game=game.name, games=2 * FEW, seed=4, until_ci=99, chunk_size=FEW,
                     out=tmp_path / "u", progress=False)
    state = result.summary["until_ci"]
    games = table(result.run_dir)
    counts = game.headline_counts(games, result.manifest["players"])
    assert list(state["intervals"]) == list(counts)
    for name, count in counts.items():
        assert state["intervals"][name]["rate"] == pytest.approx(count / games.height)


# ----------------------------------------------------------------------------- reports
def test_report_runs_the_games_report_metrics(game, json_run, tmp_path):
    out, _ = json_run
    written = api.report([out], tmp_path / "report")
    assert Path(written["html"]).is_file()
    from reports.load import load_runs
    from reports.registry import game_metrics, select_metrics

    rs = load_runs([str(out)])
    ran, _ = select_metrics(game.name, rs.columns)
    assert {m.name for m in ran} <= {m.name for m in game_metrics(game.name)}
    assert set(rs.collect()["pairing"].unique().to_list()) == {game.pairing(rs.runs[0].manifest)}


def test_balance_report_plays_the_games_balance_points(game, tmp_path):
    points = api.balance_points(game.name)
    assert points == [(p, tuple(v)) for p in game.player_counts for v in game.balance_variants(p)]
    written = api.balance_report(games=100, seed=2, out=tmp_path / "b", game=game.name,
                                 progress=False)
    assert Path(written["html"]).is_file()
    assert len(list((tmp_path / "b" / "runs").iterdir())) == len(points)


# ----------------------------------------------------------------------------- studies
def test_matchups_follow_the_games_scheme(game, tmp_path):
    from sim.studies import matchups

    names = [game.default_strategy, other_strategy(game)]
    players = min(p for p in game.player_counts if p >= 2)
    if game.matchup_scheme is None:
        with pytest.raises(UserError, match="has no matchups"):
            matchups.run(",".join(names), game=game.name, players=players, games=20)
        return
    result = matchups.run(",".join(names), game=game.name, players=players, games=2 * players,
                          seed=3, out=tmp_path / "m", threads=1)
    cells = {(r["strategy"], r["opponent"]) for r in result.matrix}
    assert {(x, y) for x in names for y in names} <= cells
    assert (tmp_path / "m" / "matrix.csv").is_file()


def _numeric_card_field(game) -> tuple[str, str, int]:
    """(card id, field, value) of the first integer field of the default card file."""
    path = Path(game.default_cards_path())
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines()
             if ln.strip() and not ln.lstrip().startswith("#")]
    row = next(csv.DictReader(lines))
    fields = game.card_fields or [c for c in row if c != "id"]
    for name in fields:
        if str(row.get(name, "")).strip().isdigit():
            return row["id"], name, int(row[name])
    pytest.fail(f"{game.name}: no integer card field in {path}")


def _experiments_file(game, tmp_path) -> Path:
    slot = game.strategy_slots(game.default_players)[0]
    metric = game.default_sweep_metrics((game.default_players,))[0]
    card, field, value = _numeric_card_field(game)
    text = f"""
contract:
  game: {game.name}
  players: [{game.default_players}]
  games: {FEW}
  seed: 5
  sweep:
    strategy.{slot}: [{game.default_strategy}, {other_strategy(game)}]
  checks:
    - metric: {metric}
      min: -1000
      max: 1000
contract_balance:
  game: {game.name}
  players: [{game.default_players}]
  games: {FEW}
  autobalance:
    vary:
      {card}.{field}: {{min: {value}, max: {value + 1}}}
    targets:
      - metric: {metric}
        min: -1000
        max: 1000
    rounds: 1
    batches: 1
"""
    path = tmp_path / "experiments.yaml"
    path.write_text(text)
    return path


def test_experiment_sweep_check_and_autobalance(game, tmp_path):
    path = _experiments_file(game, tmp_path)
    result = invoke("experiment", "contract", "--file", str(path), "--out", str(tmp_path / "e"),
                    "--no-progress")
    assert result.exit_code == 0, result.output
    sweep = pl.read_csv(next((tmp_path / "e").rglob("sweep.csv")))
    assert sweep.height == 2
    checked = invoke("check", "contract", "--file", str(path), "--no-progress")
    assert checked.exit_code == 0, checked.output
    balanced = invoke("autobalance", "contract_balance", "--file", str(path), "--out",
                      str(tmp_path / "cards.csv"), "--no-progress")
    assert balanced.exit_code == 0, balanced.output


# ----------------------------------------------------------------------------- backends
@pytest.fixture(scope="module")
def cluster(fake_game_registered):
    from distributed import LocalCluster

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as local:
        yield local.scheduler_address


def test_dask_backend_plays_the_same_table(game, json_run, cluster, tmp_path):
    out, payload = json_run
    dask = api.run(game=game.name, games=FEW, seed=3, chunk_size=FEW // 3, out=tmp_path / "d",
                   progress=False, backend="dask", backend_options={"scheduler": cluster})
    assert table(dask.run_dir).equals(table(out))
    same = [key for key in dask.summary if key in payload
            and key not in ("wall_seconds", "games_per_second", "run_dir")]
    assert same and all(_unexplained(dask.summary[key]) == _unexplained(payload[key])
                        for key in same)


def _unexplained(answer):
    """A summary entry without the causes the command adds to an edge after the run
    (sim.runs.explain: replays, with their timings)."""
    if not isinstance(answer, dict):
        return answer
    return {k: v for k, v in answer.items() if k not in ("causes", "replayed", "main_cause")}


# ----------------------------------------------------------------------------- no game branches
def _game_name_uses(root: Path) -> list[str]:
    """Comparisons with a game's name (``game == "plai"``, ``game in ("plai",)``) and
    parameters defaulting to one, in sim/ and reports/ outside the game packages and the
    catalog that names the games."""
    import ast

    from sim.core.catalog import GAME_MODULES

    names = set(GAME_MODULES)

    def named(node) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in names
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(named(e) for e in node.elts)
        return False

    found = []
    files = [p for folder in ("sim", "reports") for p in sorted((root / folder).rglob("*.py"))]
    for path in files:
        rel = path.relative_to(root).as_posix()
        if rel.startswith("sim/games/") or rel == "sim/core/catalog.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and any(named(n) for n in [node.left, *node.comparators]):
                found.append(f"{rel}:{node.lineno} compares with a game name")
            elif isinstance(node, ast.arguments):
                found += [f"{rel}:{d.lineno} defaults a parameter to a game name"
                          for d in [*node.defaults, *node.kw_defaults] if d is not None and named(d)]
            elif isinstance(node, ast.Dict) and any(named(k) for k in node.keys if k is not None):
                found.append(f"{rel}:{node.lineno} keys a table by game name")
    return found


def test_no_game_name_branches_outside_the_game_packages():
    from repo_paths import REPO_ROOT

    assert _game_name_uses(REPO_ROOT) == []


def test_the_game_name_scan_finds_a_planted_branch(tmp_path):
    (tmp_path / "sim" / "studies").mkdir(parents=True)
    (tmp_path / "reports").mkdir()
    (tmp_path / "sim" / "studies" / "x.py").write_text(
        'def f(game="plai"):\n    return game == "peer-to-peer"\n')
    (tmp_path / "reports" / "y.py").write_text('EXAMPLES = {"plai": 1}\n')
    assert sorted(_game_name_uses(tmp_path)) == [
        "reports/y.py:1 keys a table by game name",
        "sim/studies/x.py:1 defaults a parameter to a game name",
        "sim/studies/x.py:2 compares with a game name"]


def _game_package_imports(root: Path) -> list[str]:
    """Imports of a game's package (``sim.games.<game>...``) in sim/ and reports/ outside
    the game packages: a layer above the games reaches a game only through its description."""
    import ast

    found = []
    files = [p for folder in ("sim", "reports") for p in sorted((root / folder).rglob("*.py"))]
    for path in files:
        rel = path.relative_to(root).as_posix()
        if rel.startswith("sim/games/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            found += [f"{rel}:{node.lineno} imports {name}" for name in names
                      if name.startswith("sim.games.")]
    return found


def test_no_layer_above_the_games_imports_a_game_package():
    from repo_paths import REPO_ROOT

    assert _game_package_imports(REPO_ROOT) == []


def test_the_import_scan_finds_a_planted_import(tmp_path):
    (tmp_path / "sim" / "games" / "x").mkdir(parents=True)
    (tmp_path / "reports").mkdir()
    (tmp_path / "sim" / "games" / "x" / "own.py").write_text("import sim.games.x.rules\n")
    (tmp_path / "reports" / "y.py").write_text(
        "def f():\n    from sim.games.plai.constants import OUT_SEAT\n    return OUT_SEAT\n")
    assert _game_package_imports(tmp_path) == [
        "reports/y.py:2 imports sim.games.plai.constants"]
