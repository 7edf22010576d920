"""`simulate tune` runs its search with the settings of the game's arena (the attributes
of sim.core.arena.ThreadedArena, which a game's arena overrides), read as attributes, not
looked up by name with a fallback. Nothing is played: the search is stopped at its start."""
from __future__ import annotations

import pytest

from sim.core import arena
from sim.core.game import configure_request, game_request, resolve_game
from sim.studies import tune as tuner

SETTINGS = ("sigma", "popsize", "growth", "patience", "restart_popsize", "explore_runs",
            "explore_generations")
ATTRIBUTES = ("tune_sigma", "tune_popsize", "eval_growth", "restart_patience",
              "restart_popsize", "explore_runs", "explore_generations")


class Stop(Exception):
    pass


def search_settings(monkeypatch, tmp_path, game: str) -> dict:
    seen = {}

    def search(*args, **kwargs):
        seen.update(kwargs)
        raise Stop

    monkeypatch.setattr(tuner, "search", search)
    game_obj = resolve_game(game)
    request = game_request()

    def configure(strategies):
        return configure_request(game_obj, 3, {**request, "strategies": strategies})

    with pytest.raises(Stop):
        tuner.tune(configure, game=game, players=3, out=tmp_path / "t.yaml", budget=1000,
                   progress=False)
    return {name: seen[name] for name in SETTINGS}


@pytest.mark.parametrize("game", ["peer-to-peer", "plai"])
def test_the_search_runs_with_the_games_arena_settings(monkeypatch, tmp_path, game):
    arena_cls = resolve_game(game).tune_arena
    got = search_settings(monkeypatch, tmp_path, game)
    assert got == {name: getattr(arena_cls, attribute)
                   for name, attribute in zip(SETTINGS, ATTRIBUTES)}


def test_peer_to_peers_arena_overrides_the_defaults_and_plais_keeps_them(monkeypatch,
                                                                         tmp_path):
    p2p = search_settings(monkeypatch, tmp_path, "peer-to-peer")
    assert (p2p["sigma"], p2p["popsize"], p2p["patience"], p2p["explore_runs"]) == (0.5, 32, 30, 5)
    plai = search_settings(monkeypatch, tmp_path, "plai")
    assert plai == {"sigma": arena.DEFAULT_SIGMA, "popsize": None,
                    "growth": arena.DEFAULT_GROWTH, "patience": arena.DEFAULT_PATIENCE,
                    "restart_popsize": arena.DEFAULT_RESTART_POPSIZE, "explore_runs": None,
                    "explore_generations": None}


@pytest.mark.parametrize("game, slots", [("peer-to-peer", "{A: expert, B: greedy}"),
                                         ("plai", "{all: expert}")])
def test_the_weight_names_are_read_without_building_an_arena(monkeypatch, tmp_path, game,
                                                            slots):
    """tune's checks and the experiments file's check name the weights from the arena
    class (``weight_names``): the names an arena plays, and no arena (nor its thread pool)
    is built to learn them; tune builds only the one that plays."""
    from sim.core.game import configure
    from sim.studies import experiments

    arena_cls = resolve_game(game).tune_arena
    names = arena_cls.weight_names()
    assert names == arena_cls(configure(game=game, players=3), 1).names and len(names) > 10
    built = []
    build = arena_cls.__init__

    def counted(self, *args, **kwargs):
        built.append(args)
        build(self, *args, **kwargs)

    monkeypatch.setattr(arena_cls, "__init__", counted)
    path = tmp_path / "experiments.yaml"
    path.write_text(f"held:\n  game: {game}\n  players: 3\n  retune: true\n"
                    f"  tune: {{hold: '{names[0]}'}}\n  strategies: {slots}\n")
    assert experiments.get("held", str(path)).tune["hold"] == names[0]
    assert built == []
    search_settings(monkeypatch, tmp_path, game)
    assert len(built) == 1
