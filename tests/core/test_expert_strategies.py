"""Each game's shipped `expert`: registered, loads, plays its file's weights, and
its file says it was tuned on the default cards and rules of today (one test per game).

If the default card file or a rule default changes, the SHA-256 / rules recorded in
strategies/<game>/expert.yaml no longer match and these tests fail: re-tune with the
command the file records (its tuned_on.command) and replace the file.
"""
from __future__ import annotations

import fnmatch
import hashlib
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pytest
import yaml
from click.testing import CliRunner
from repo_paths import REPO_ROOT

from sim.cli import main
from sim.core.strategy import parse_spec, registry

ROOT = REPO_ROOT


@dataclass(frozen=True)
class Case:
    game: str                  # the game's name on the command line
    package: str               # its package (sim/games/<package>, strategies/<package>)
    cards: Callable[[], Path]  # the default card file
    weight_names: Callable[[], tuple]
    # (configured game, file weights) -> (expert's vector, another seat's vector), after
    # checking what the game adds (PLAI: the other seat keeps the default weights)
    seats: Callable
    players: int               # the count ``seats`` plays (a file may give it its own weights)

    def module(self, name: str):
        return importlib.import_module(f"sim.games.{self.package}.{name}")

    @property
    def expert(self):
        return importlib.import_module(f"strategies.{self.package}.expert")

    @property
    def doc(self) -> dict:
        return yaml.safe_load(self.expert.FILE.read_text())


def _p2p_cards():
    from sim.games.peer_to_peer.cards import default_cards_path
    return default_cards_path()


def _plai_cards():
    from sim.games.plai.cards import DEFAULT_CARDS
    return Path(DEFAULT_CARDS)


def _p2p_seats(case):
    config = case.module("game").GAME.configure(players=4, strategies={"A": "expert", "B": "greedy"})
    assert config.strategies["A"][0] == "expert"
    return config.weights["A"], config.weights["B"]


def _plai_seats(case):
    config = case.module("game").GAME.configure(players=3, strategies={"seat1": "expert",
                                                                      "all": "weighted"})
    np.testing.assert_array_equal(config.weights[0], case.module("features").DEFAULT_WEIGHTS)
    assert config.strategies["seat1"][0] == "expert"
    return config.weights[1], config.weights[0]


CASES = [Case("peer-to-peer", "peer_to_peer", _p2p_cards,
              lambda: importlib.import_module("sim.games.peer_to_peer.features").WEIGHT_NAMES,
              _p2p_seats, 4),
         Case("plai", "plai", _plai_cards,
              lambda: importlib.import_module("sim.games.plai.features").FEATURE_NAMES,
              _plai_seats, 3)]


@pytest.fixture(params=CASES, ids=[c.game for c in CASES])
def case(request) -> Case:
    return request.param


def _str_keys(rules):
    return {k: ({str(n): v for n, v in val.items()} if isinstance(val, dict) else val)
            for k, val in rules.items()}


def test_expert_is_registered_and_listed(case):
    assert "expert" in registry(case.package)
    strategy, params = parse_spec("expert", case.package)
    assert strategy.name == "expert" and params == {}
    result = CliRunner().invoke(main, ["strategies", "--game", case.game])
    assert result.exit_code == 0 and "\nexpert " in "\n" + result.output


def test_expert_plays_every_weight_of_its_file(case):
    doc = case.doc
    names = case.weight_names()
    assert doc["game"] == case.game
    assert list(doc["weights"]) == list(names)   # a tuned file sets them all
    played = {**doc["weights"], **(doc.get("by_players") or {}).get(case.players, {})}
    expert, other = case.seats(case)
    np.testing.assert_array_equal(expert, [played[n] for n in names])
    assert not np.array_equal(expert, other)


def test_expert_was_tuned_on_the_default_card_file(case):
    """The cards expert was tuned on are the shipped ones: the file's bytes, or (a file whose
    comments changed since) its lines without the comments (content_sha256)."""
    from sim.core.csvfile import content_sha256

    doc = case.doc
    tuned = doc["tuned_on"]["cards"]
    if "content_sha256" in tuned:
        key, shipped = "content_sha256", content_sha256(case.cards())
    else:
        key, shipped = "sha256", hashlib.sha256(case.cards().read_bytes()).hexdigest()
    assert tuned[key] == shipped, (
        "the default card file changed since expert was tuned: re-tune with "
        f"{doc['tuned_on']['command']!r} and replace strategies/{case.package}/expert.yaml")


def test_expert_was_tuned_on_the_default_rules(case):
    doc = case.doc
    assert doc["tuned_on"]["rules_file"] is None and doc["tuned_on"]["rule_overrides"] == []
    assert doc["tuned_on"]["rules"] == _str_keys(case.module("rules").OPTIONS.resolve(None, ())), (
        "a default rule option changed since expert was tuned: re-tune")


def test_expert_file_records_the_command_that_made_it(case):
    doc = case.doc
    command = doc["tuned_on"]["command"]
    # a default is tuned by self-play or learned from the search player (docs/strategies.md)
    assert command.startswith(("simulate tune ", "simulate distill "))
    assert f"--game {case.game}" in command
    assert f"--players {doc['players'][0]}" in command and f"--seed {doc['tuned_on']['seed']}" in command


def test_the_expert_file_is_package_data(case):
    tomllib = pytest.importorskip("tomllib")
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert any(fnmatch.fnmatch(case.expert.FILE.name, pattern)
               for pattern in data.get(f"strategies.{case.package}", ()))


def test_a_shipped_file_read_wrong_names_the_file(tmp_path):
    """sim.core.strategy.shipped: a missing file's field is strategies/<g>/<file>."""
    from sim.core.errors import UserError
    from sim.core.strategy import shipped

    target = tmp_path / "strategies" / "plai" / "expert.yaml"
    with pytest.raises(UserError, match="field 'strategies/plai/expert.yaml'"):
        shipped(target, game="plai")


# ---------------------------------------------------------------- expert-v1
V1_FIXTURE = ROOT / "tests" / "data" / "expert_v1_games.json"
V1_SEED, V1_GAMES = 3838, 2000
# The first shipped expert's games, pinned when it was the default (its spec here was
# "expert"): expert-v1 must play them exactly, whatever expert is today.
V1_CASES = [("peer-to-peer", 4, {"A": "expert-v1", "B": "expert-v1"}),
            ("peer-to-peer", 3, {"A": "expert-v1", "B": "greedy"}),
            ("plai", 3, {"all": "expert-v1"}),
            ("plai", 5, {"seat0": "expert-v1", "all": "weighted"})]


def _v1_key(game, players, strategies) -> str:
    return f"{game} {players}p " + " ".join(f"{k}={v}" for k, v in strategies.items())


def _v1_checksum(game, players, strategies) -> str:
    from sim.core.game import configure

    table = configure(game, players, strategies=strategies).run_chunk(V1_SEED, 0, V1_GAMES)
    digest = hashlib.sha256()
    for name in table.columns:
        digest.update(name.encode())
        digest.update(np.ascontiguousarray(table[name].to_numpy()).tobytes())
    return digest.hexdigest()[:24]


@pytest.mark.parametrize("case", V1_CASES, ids=[_v1_key(*c) for c in V1_CASES])
def test_expert_v1_plays_the_first_experts_games(case):
    import json

    assert _v1_checksum(*case) == json.loads(V1_FIXTURE.read_text())[_v1_key(*case)]


def test_expert_v1_is_the_first_experts_file(case):
    v1 = yaml.safe_load((case.expert.FILE.parent / "expert-v1.yaml").read_text())
    assert v1["name"] == "expert-v1" and v1["tuned_on"]["command"].startswith("simulate tune ")
    strategy, _ = parse_spec("expert-v1", case.package)
    assert strategy.name == "expert-v1"


def test_the_summary_names_the_counts_a_tune_made_in_a_distilled_file():
    """PLAI's 2-player weights and Peer-to-Peer's 5- and 6-player ones come from simulate
    tune --against inside a file the per-count distillation wrote: `simulate strategies`
    says so (docs/strategies.md)."""
    from sim.core.strategy import registry

    plai = registry("plai")["expert"].summary
    assert plai.startswith("weights learned from the search player by simulate distill")
    assert plai.endswith("; at 2 players tuned by simulate tune)")
    assert registry("peer_to_peer")["expert"].summary.endswith(
        "; at 5/6 players tuned by simulate tune)")


def test_the_summary_names_the_counts_that_play_the_base():
    """A per-count file plays its base's weights at a count it was not made for
    (Peer-to-Peer solo): `simulate strategies` names that count with the base, not among
    the counts with weights of their own."""
    from sim.core.strategy import registry

    summary = registry("peer_to_peer")["expert"].summary
    assert "; weights of their own at 2/5/6; at 1 player expert-v1's;" in summary
