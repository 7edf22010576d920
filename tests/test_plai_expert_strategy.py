"""The shipped PLAI `expert` (issue 23): registered, loads, plays its file's weights in
every seat it is given, and its file says it was tuned on today's default cards and rules.

If the default card file or a rule default changes, the SHA-256 / rules recorded in
strategies/plai/expert.yaml no longer match and these tests fail: re-tune with the command
the file records (its tuned_on.command) and replace the file.
"""
from __future__ import annotations

import fnmatch
import hashlib
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

from sim.cli import main
from sim.core.strategy import parse_spec, registry
from sim.games.plai import features
from sim.games.plai.cards import DEFAULT_CARDS
from sim.games.plai.game import GAME
from sim.games.plai.rules import OPTIONS
from strategies.plai import expert

ROOT = Path(__file__).resolve().parent.parent
DOC = yaml.safe_load(expert.FILE.read_text())


def _str_keys(rules):
    return {k: ({str(n): v for n, v in val.items()} if isinstance(val, dict) else val)
            for k, val in rules.items()}


def test_expert_is_registered_and_listed():
    assert "expert" in registry("plai")
    strategy, params = parse_spec("expert", "plai")
    assert strategy.name == "expert" and params == {}
    result = CliRunner().invoke(main, ["strategies", "--game", "plai"])
    assert result.exit_code == 0 and "\nexpert " in "\n" + result.output


def test_expert_plays_every_weight_of_its_file():
    assert DOC["game"] == "plai"
    assert list(DOC["weights"]) == list(features.FEATURE_NAMES)   # a tuned file sets them all
    config = GAME.configure(players=3, strategies={"seat1": "expert", "all": "weighted"})
    np.testing.assert_array_equal(config.weights[1],
                                  [DOC["weights"][n] for n in features.FEATURE_NAMES])
    np.testing.assert_array_equal(config.weights[0], features.DEFAULT_WEIGHTS)
    assert config.strategies["seat1"][0] == "expert"
    assert not np.array_equal(config.weights[0], config.weights[1])


def test_expert_was_tuned_on_the_default_card_file():
    shipped = hashlib.sha256(Path(DEFAULT_CARDS).read_bytes()).hexdigest()
    assert DOC["tuned_on"]["cards"]["sha256"] == shipped, (
        "the default card file changed since expert was tuned: re-tune with "
        f"{DOC['tuned_on']['command']!r} and replace strategies/plai/expert.yaml")


def test_expert_was_tuned_on_the_default_rules():
    assert DOC["tuned_on"]["rules_file"] is None and DOC["tuned_on"]["rule_overrides"] == []
    assert DOC["tuned_on"]["rules"] == _str_keys(OPTIONS.resolve(None, ())), (
        "a default rule option changed since expert was tuned: re-tune")


def test_expert_file_records_the_command_that_made_it():
    command = DOC["tuned_on"]["command"]
    assert command.startswith("simulate tune ") and "--game plai" in command
    assert f"--players {DOC['players'][0]}" in command and f"--seed {DOC['tuned_on']['seed']}" in command


def test_the_expert_file_is_package_data():
    tomllib = pytest.importorskip("tomllib")
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert any(fnmatch.fnmatch(expert.FILE.name, pattern)
               for pattern in data.get("strategies.plai", ()))
