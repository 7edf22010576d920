"""A strategy parameter is a finite number within the range its strategy declares
(``Strategy.param_bounds``); a value out of range is refused where it is given."""
from __future__ import annotations

import numpy as np
import pytest

from sim.core.errors import UserError
from sim.core.strategy import parse_spec


@pytest.mark.parametrize("spec, words", [
    ("bluffer:rate=2", "parameter 'rate' of strategy 'bluffer' must be between 0 and 1, got 2"),
    ("bluffer:rate=-1", "must be between 0 and 1, got -1"),
    ("bluffer:rate=nan", "parameter 'rate' of strategy 'bluffer' must be a finite number"),
])
def test_a_parameter_out_of_its_range_is_refused(spec, words):
    with pytest.raises(UserError) as caught:
        parse_spec(spec, "plai", field_name="--seat")
    assert words in str(caught.value) and "--seat" in str(caught.value)


def test_parameters_within_their_range_are_kept():
    assert parse_spec("bluffer:rate=1", "plai")[1] == {"rate": 1.0}
    assert parse_spec("bluffer:rate=0", "plai")[1] == {"rate": 0.0}
    # a weight has no range, only finiteness
    assert parse_spec("builder:threshold=-3", "peer_to_peer")[1] == {"threshold": -3.0}
    with pytest.raises(UserError, match="finite"):
        parse_spec("builder:threshold=inf", "peer_to_peer")


@pytest.mark.parametrize("game_pkg", ["peer_to_peer", "plai"])
def test_every_declared_range_is_of_a_parameter_and_holds_its_default(game_pkg):
    from sim.core.strategy import registry

    for strategy in registry(game_pkg).values():
        for key, (lo, hi) in strategy.param_bounds.items():
            assert key in strategy.params, (strategy.name, key)
            assert lo <= strategy.params[key] <= hi, (strategy.name, key)


def _vector(game: str, strategy, params) -> np.ndarray:
    """The weights a game plays for a strategy and its spec's parameters (game.py's call)."""
    if game == "plai":
        from sim.games.plai import features
        return strategy.vector(features.FEATURE_NAMES, features.DEFAULT_WEIGHTS, params,
                               players=3)
    from sim.games.peer_to_peer import features
    return strategy.vector(features.WEIGHT_NAMES, features.DEFAULT_WEIGHTS, params,
                           expand=features.expand_weight_key, players=4)


@pytest.mark.parametrize("game, base, given", [
    ("peer_to_peer", "builder", {"threshold": 6.0}),
    ("plai", "bluffer", {"rate": 0.3}),
])
def test_a_search_players_other_parameters_are_its_bases(game, base, given):
    """search:base=builder,threshold=6 searches over builder:threshold=6: the weights it
    plays are that spec's, not builder's defaults; a number the base does not take, or out
    of its range, is refused when the weights are built."""
    text = ",".join(f"{key}={value}" for key, value in given.items())
    search, params = parse_spec(f"search:base={base},{text}", game)
    plain, plain_params = parse_spec(f"{base}:{text}", game)
    assert params == {"base": base, **given}
    searched = _vector(game, search, params)
    assert np.array_equal(searched, _vector(game, plain, plain_params))
    assert not np.array_equal(searched, _vector(game, plain, {}))
    strange, strange_params = parse_spec(f"search:base={base},nonsense=1", game)
    with pytest.raises(UserError, match=f"has no parameter 'nonsense', nor has its base "
                                        f"'{base}'"):
        _vector(game, strange, strange_params)
    key = next(iter(given))
    if key in plain.param_bounds:
        far, far_params = parse_spec(f"search:base={base},{key}=1e9", game)
        with pytest.raises(UserError, match=f"parameter '{key}' of strategy '{base}' must be"):
            _vector(game, far, far_params)
