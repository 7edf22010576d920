"""Every registered Peer-to-Peer strategy, at every player count, keeps every engine
invariant (sim/games/peer_to_peer/conformance.py). Strategies are found through the registry, so a new file
in strategies/peer_to_peer/ is tested here just by existing."""
from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import strategies.peer_to_peer as p2p_strategies
from sim.games.peer_to_peer.conformance import check_results, check_strategy
from sim.core.errors import UserError
from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer import features
from sim.games.peer_to_peer.game import GAME
from sim.core.strategy import parse_spec, registry

REGISTERED = sorted(registry("peer_to_peer"))
GAMES_PER_CASE = 600  # x 5 strategies x 6 player counts = 18,000 debug games


@pytest.mark.parametrize("players", range(1, 7))
@pytest.mark.parametrize("name", REGISTERED)
def test_registered_strategy_keeps_every_invariant(name, players):
    # the search player plays ~47 searched decisions a game: a small budget, fewer games
    spec, games = ("search:k=2,n=2", GAMES_PER_CASE // 6) if name == "search" else (
        name, GAMES_PER_CASE)
    report = check_strategy(spec, players, games=games, seed=11)
    assert report.games >= games - 2
    assert report.ok, str(report)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(1, 6),
       params=st.fixed_dictionaries({key: st.floats(-5, 5, allow_nan=False)
                                     for key in registry("peer_to_peer")["weighted"].params}))
def test_any_weight_vector_keeps_every_invariant(players, params):
    spec = "weighted:" + ",".join(f"{key}={value!r}" for key, value in params.items())
    report = check_strategy(spec, players, games=240, seed=3)
    assert report.ok, str(report)


def test_the_check_catches_broken_results():
    config = GAME.configure(players=4, strategies={"A": "greedy", "B": "random"}, debug=True)
    out, fates = config.play(5, 0, 200, threads=1)
    assert check_results(config, out, fates) == {}
    out["score_a"][3] += 1
    out["error"][7] = k.ERR_EFFECT_TWICE
    out["sent_deck_b"][9] += 1
    out["winner"][11] = k.TIMEOUT
    bad = check_results(config, out, fates)
    assert np.flatnonzero(bad["score_a equals its score-pile fates"]).tolist() == [3]
    assert np.flatnonzero(bad["engine: an effect was used twice in a round"]).tolist() == [7]
    assert bad["sent_* of team B add up to its assists"][9]
    assert bad["no timeout"][11]


@pytest.mark.parametrize("name", REGISTERED)
def test_registry_contract(name):
    strategy = registry("peer_to_peer")[name]
    module = sys.modules[strategy.weights.__module__]
    # one file, named as the strategy (a "-" in the name is "_" in the module: expert-v1)
    assert module.__name__ == f"strategies.peer_to_peer.{name.replace('-', '_')}"
    assert strategy.summary.strip()
    assert all(isinstance(v, float) for v in strategy.params.values())
    vector = strategy.vector(features.WEIGHT_NAMES, features.DEFAULT_WEIGHTS,
                             expand=features.expand_weight_key)
    assert vector.shape == (features.N_WEIGHTS,) and np.isfinite(vector).all()


def test_unknown_names_and_parameters_list_the_valid_ones():
    with pytest.raises(UserError, match="valid: builder, cautious, expert, expert-v1, greedy, random, search, weighted"):
        parse_spec("bulider", "peer_to_peer")
    with pytest.raises(UserError, match="no parameter 'treshold'; valid: threshold"):
        parse_spec("builder:treshold=3", "peer_to_peer")
    with pytest.raises(UserError, match="must be a number"):
        parse_spec("builder:threshold=soon", "peer_to_peer")


def test_a_new_strategy_file_is_registered_and_checked_by_existing(tmp_path, monkeypatch):
    (tmp_path / "zz_eager.py").write_text(textwrap.dedent('''
        from sim.core.strategy import Strategy
        STRATEGY = Strategy(name="zz_eager", summary="greedy, plus a bonus for urgent customers",
                            weights=lambda p: {"commit.urgent": p["eager"]},
                            params={"eager": 1.0})
    '''))
    monkeypatch.setattr(p2p_strategies, "__path__", [*p2p_strategies.__path__, str(tmp_path)])
    monkeypatch.delitem(sys.modules, "strategies.peer_to_peer.zz_eager", raising=False)
    try:
        assert "zz_eager" in registry("peer_to_peer")
        assert check_strategy("zz_eager:eager=2", 3, games=150).ok
    finally:
        sys.modules.pop("strategies.peer_to_peer.zz_eager", None)
