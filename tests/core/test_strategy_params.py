"""A strategy parameter is a finite number within the range its strategy declares
(``Strategy.param_bounds``); a value out of range is refused where it is given."""
from __future__ import annotations

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
