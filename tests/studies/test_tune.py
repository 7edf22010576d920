"""simulate tune: the search finds known best weights, is deterministic for a
seed, and writes a strategy file every strategy option reads back."""
from __future__ import annotations

import numpy as np
import pytest
import yaml

from sim.studies import tune as tuner
from sim.studies import tune_search as searcher

from bowl_arena import BEST, BowlArena, assert_the_seed_decides


def _bowl(seed=3, budget=900_000):
    baselines = {"zero": np.zeros(3), "other": np.array([-1.0, 1.0, 0.0])}
    return searcher.search(BowlArena(), np.zeros(3), baselines, budget=budget, seed=seed,
                        games_per_eval=2000, check_games=4000, sigma=0.5)


def test_tune_finds_the_known_best_weights_of_a_test_game():
    result = _bowl()
    assert np.all(np.abs(result.weights - BEST) < 0.3), result.weights
    assert result.champions >= 2
    # the re-check: the tuned weights beat both baselines, on fresh seeds
    assert {r.opponent for r in result.check} == {"zero", "other", "previous champion"}
    assert all(r.beats for r in result.check if r.opponent != "previous champion")
    assert result.beats_every_baseline      # the previous champion is not a baseline
    assert result.generations[-1].champion["win_rate"] > result.generations[0].champion["win_rate"]


def test_same_seed_same_search_other_seed_other_path():
    assert_the_seed_decides(lambda seed: _bowl(seed=seed, budget=200_000))


def test_winners_curse_guard_keeps_the_previous_champion_when_the_last_is_worse():
    """A noisy game where the last promotion is luck: the re-check on fresh seeds finds the
    final champion worse than the one before and writes that one instead."""

    class Rigged(BowlArena):
        def __init__(self):
            self.calls = 0

        def play_blocks(self, vectors, blocks):
            self.calls += 1
            if self.calls == 1:   # the search: the CMA mean (evaluation 4 of 4 + 2) wins all
                return [tuner.Tally(100, 0, 100) if b.candidate == 4 else
                        tuner.Tally(40, 60, 100) for b in blocks]
            if self.calls == 3:   # the re-check of the new champion: it loses on fresh seeds
                return [tuner.Tally(10, 90, 100) for b in blocks]   # (call 2: the final, a tie)
            return [tuner.Tally(50, 50, 100) for b in blocks]

    arena = Rigged()
    result = searcher.search(arena, np.zeros(3), {"zero": np.zeros(3)}, budget=1, seed=1,
                          games_per_eval=400, check_games=200, popsize=4)
    assert result.champions == 1 and result.reverted
    assert np.array_equal(result.weights, np.zeros(3))


def test_the_final_picks_the_strongest_finalist_head_to_head():
    """The final round robin on fresh seeds: of three finalists the one nearest the best
    weights wins, whichever is the champion; a tie keeps the champion."""
    far, near, mid = np.array([-1.0, 1.0, 0.0]), BEST + 0.05, np.zeros(3)
    chosen, table, games = searcher._final(BowlArena(), [far, near, mid], far, seed=9, games=2000)
    assert np.array_equal(chosen, near) and games == 6 * 2000
    assert [row["chosen"] for row in table] == [False, True, False]
    assert table[0]["entry"] == "champion" and table[2]["entry"] == "CMA mean"

    class Even(BowlArena):
        def play_blocks(self, vectors, blocks):
            return [tuner.Tally(50, 50, 100) for _ in blocks]

    chosen, _, _ = searcher._final(Even(), [far, mid, near], mid, seed=9, games=200)
    assert np.array_equal(chosen, mid)


def test_search_takes_the_final_winner_over_an_unpromoted_champion():
    """No promotion during the search (every evaluation ties), but the CMA mean wins the
    final: it is written, and re-checked against the champion it displaced."""

    class Rigged(BowlArena):
        def __init__(self):
            self.calls = 0

        def play_blocks(self, vectors, blocks):
            self.calls += 1
            if self.calls == 2:   # the final: entrant 1 (the CMA mean) wins every game
                return [tuner.Tally(100, 0, 100) if b.candidate == 1 else
                        tuner.Tally(0, 100, 100) for b in blocks]
            return [tuner.Tally(50, 50, 100) for _ in blocks]

    result = searcher.search(Rigged(), np.zeros(3), {"zero": np.zeros(3)}, budget=1, seed=1,
                          games_per_eval=400, check_games=200, popsize=4)
    assert result.champions == 0 and not result.reverted
    assert not np.array_equal(result.weights, np.zeros(3))
    assert [row["entry"] for row in result.final if row["chosen"]] == ["CMA mean"]


def test_games_per_evaluation_grow_with_the_budget_spent():
    seen = []

    class Counting(BowlArena):
        def play_blocks(self, vectors, blocks):
            seen.append(sum(b.count for b in blocks))
            return super().play_blocks(vectors, blocks)

    searcher.search(Counting(), np.zeros(3), {"zero": np.zeros(3)}, budget=100_000, seed=2,
                 games_per_eval=400, check_games=200, popsize=4, growth=4.0, finalists=0)
    search_calls = seen[:-1]          # the last call is the re-check
    assert search_calls[-1] > 3 * search_calls[0]
    assert all(b >= a for a, b in zip(search_calls, search_calls[1:]))


class Flat(BowlArena):
    """Every game a tie: no evaluation ever beats the champion, so no promotion."""

    def play_blocks(self, vectors, blocks):
        return [tuner.Tally(b.count // 2, b.count - b.count // 2, b.count) for b in blocks]


def test_restarts_trigger_when_promotions_stop():
    """No promotion for ``patience`` generations: a new CMA run starts from the base (its own
    seed); without patience the one run goes on to the end of the budget."""
    kwargs = dict(budget=60 * 6 * 400, seed=3, games_per_eval=400, check_games=200, popsize=4)
    restarted = searcher.search(Flat(), np.zeros(3), {"zero": np.zeros(3)}, patience=5, **kwargs)
    runs = [g.run for g in restarted.generations]
    assert runs[:11] == [1] * 5 + [2] * 5 + [3], runs
    assert restarted.settings["runs"] == max(runs) > 3
    # the last run is not cut short: a restart needs room for twice its patience
    assert runs.count(runs[-1]) >= 5
    # each run's finalists (its champion, the base here, and its CMA mean) meet in the final
    entries = {row["entry"] for row in restarted.final}
    assert {f"run {r} CMA mean" for r in set(runs)} <= entries, entries
    single = searcher.search(Flat(), np.zeros(3), {"zero": np.zeros(3)}, patience=None, **kwargs)
    assert {g.run for g in single.generations} == {1}
    assert len(single.generations) == len(restarted.generations)


def test_restarted_search_is_deterministic_and_finds_the_best_weights():
    def bowl(seed):
        return searcher.search(BowlArena(), np.zeros(3), {"zero": np.zeros(3)}, budget=600_000,
                            seed=seed, games_per_eval=2000, check_games=4000, sigma=0.5,
                            patience=8)

    first, again = bowl(4), bowl(4)
    assert first.settings["runs"] > 1
    assert np.array_equal(first.weights, again.weights)
    assert [g.run for g in first.generations] == [g.run for g in again.generations]
    assert np.all(np.abs(first.weights - BEST) < 0.3), first.weights


def test_exploration_runs_then_the_best_run_goes_on_to_the_end():
    """explore_runs: that many runs of at most explore_generations, then one run takes the
    rest of the budget (a tie keeps the last), no more restarts."""
    kwargs = dict(budget=40 * 6 * 400, seed=3, games_per_eval=400, check_games=200, popsize=4)
    result = searcher.search(Flat(), np.zeros(3), {"zero": np.zeros(3)}, patience=None,
                          explore_runs=3, explore_generations=4, **kwargs)
    runs = [g.run for g in result.generations]
    assert runs[:12] == [1] * 4 + [2] * 4 + [3] * 4, runs
    assert set(runs[12:]) == {3} and len(runs) > 30     # (the selection's games count)
    assert result.settings["runs"] == 3


def test_the_run_selection_continues_the_run_nearest_the_best_weights():
    import cma

    def run(number, x):
        es = cma.CMAEvolutionStrategy(np.zeros(3), 0.1, {"verbose": -9, "seed": number})
        return searcher._Run(number, es, np.asarray(x, dtype=np.float64))

    near = run(2, BEST + 0.05)
    runs = [(run(1, np.zeros(3)), np.zeros(3) - 0.5), (near, BEST + 0.1),
            (run(3, [-1.0, 1.0, 0.0]), np.array([-1.0, 1.0, 0.5]))]
    chosen, played = searcher._select_run(BowlArena(), runs, lambda x: x, seed=5, games=1000)
    assert chosen is near and played == 6 * 5 * 1000


# ----------------------------------------------------------------------------- real game
@pytest.mark.parametrize("game, players", [("peer-to-peer", 4), ("plai", 4)])
def test_the_field_leaves_out_every_strategy_that_plays_the_shipped_expert(game, players):
    """search's base is expert and the arena plays only weights: in the field it would be
    the shipped expert, which a cold tune must neither meet nor be checked against."""
    from sim.core.game import configure_request, game_request, resolve_game
    from sim.core.strategy import registry

    game_obj = resolve_game(game)
    arena_cls = game_obj.tune_arena
    request = game_request(None, None, (), None, False)

    def configure(strategies):
        return configure_request(game_obj, players, {**request, "strategies": strategies})

    names = registry(game_obj.strategy_package)
    assert {"expert", "search"} <= set(names)
    expert = arena_cls.vector_of(configure(arena_cls.strategies_for("expert")))
    baselines = tuner.field_baselines(arena_cls, configure, names)
    assert "expert" not in baselines and "search" not in baselines
    assert not any(np.array_equal(vector, expert) for vector in baselines.values())
    assert {"cautious", "random"} <= set(baselines)


@pytest.fixture(scope="module")
def p2p_tuned(tmp_path_factory):
    from sim import api

    out = tmp_path_factory.mktemp("tune")
    kwargs = dict(game="peer-to-peer", players=2, budget=24_000, seed=11, games_per_eval=400,
                  check_games=400, threads=1, progress=False, command_line="simulate tune test")
    first = api.tune(out=out / "a.yaml", **kwargs)
    second = api.tune(out=out / "b.yaml", **kwargs)
    return first, second


def test_real_game_tune_is_deterministic_for_a_seed(p2p_tuned):
    first, second = p2p_tuned
    a = yaml.safe_load(first.out.read_text())["weights"]
    b = yaml.safe_load(second.out.read_text())["weights"]
    assert a == b
    from sim.games.peer_to_peer.features import WEIGHT_NAMES

    assert list(a) == list(WEIGHT_NAMES)       # every weight, both phases and the switch


def test_strategy_file_records_how_it_was_made(p2p_tuned):
    first, _ = p2p_tuned
    doc = yaml.safe_load(first.out.read_text())
    assert doc["game"] == "peer-to-peer" and doc["players"] == [2] and doc["base"] == "weighted"
    assert doc["name"] == "a"   # its own name, not the shipped expert's
    made = doc["tuned_on"]
    assert made["command"] == "simulate tune test" and made["seed"] == 11
    assert len(made["cards"]["sha256"]) == 64 and "odd_team_compensation" in made["rules"]
    against = doc["score"]["against"]
    assert {"builder", "cautious", "greedy", "random", "previous champion"} <= set(against)
    for row in against.values():
        assert row["wins"] + row["rival_wins"] <= row["games"]
        if row["wins"] + row["rival_wins"]:   # else no game was won (nan share)
            assert row["share_low"] <= row["share"] <= row["share_high"]
    assert first.plot.exists() and first.plot.suffix == ".png"


def test_the_written_file_plays_as_its_weights(p2p_tuned):
    from sim import api
    from sim.games.peer_to_peer.features import WEIGHT_NAMES

    first, _ = p2p_tuned
    config = api.configure("peer-to-peer", 2, strategies={"A": f"@{first.out}"})
    weights = yaml.safe_load(first.out.read_text())["weights"]
    assert np.array_equal(config.weights["A"], np.array([weights[n] for n in WEIGHT_NAMES]))
    assert config.manifest()["strategies"]["A"]["name"] == f"@{first.out}"


def test_dask_backend_tunes_the_same_weights_as_local(tmp_path):
    pytest.importorskip("distributed")
    from sim import api

    kwargs = dict(game="peer-to-peer", players=2, budget=8_000, seed=4, games_per_eval=400,
                  check_games=400, progress=False)
    local = api.tune(out=tmp_path / "local.yaml", threads=1, **kwargs)
    dask = api.tune(out=tmp_path / "dask.yaml", backend="dask-local",
                    backend_options={"workers": 1}, **kwargs)
    a, b = (yaml.safe_load(r.out.read_text()) for r in (local, dask))
    assert a["weights"] == b["weights"] and a["score"] == b["score"]
    assert b["tuned_on"]["backend"] == "dask-local"
    assert not list(tmp_path.glob("cardsim-tune-*"))     # scratch files removed


def test_experiment_retune_tunes_expert_at_every_point(tmp_path):
    import json

    from sim.studies import experiments

    path = tmp_path / "experiments.yaml"
    path.write_text("tuned:\n  players: 2\n  games: 200\n  retune: true\n"
                    "  tune: {budget: 6000, games_per_eval: 300, check_games: 200,\n"
                    "         hold: commit.high_card=0}\n"
                    "  strategies: {A: expert, B: greedy}\n"
                    "  sweep:\n    rules.hand_size: [4, 5]\n")
    exp = experiments.get("tuned", str(path))
    result = experiments.run_experiment(exp, out=tmp_path / "out", progress=False,
                                        report=False, threads=1)
    made = []
    for point in result.points:
        expert = tmp_path / "out" / point["name"] / "expert.yaml"
        doc = yaml.safe_load(expert.read_text())
        made.append(doc["tuned_on"]["rules"]["hand_size"])
        assert doc["weights"]["early.commit.high_card"] == 0.0     # tune: {hold: ...}
        manifest = json.loads((tmp_path / "out" / point["name"] / "run" / "manifest.json")
                              .read_text())
        assert manifest["strategies"]["A"]["name"] == f"@{expert}"
        assert manifest["strategies"]["B"]["name"] == "greedy"
    assert made == [4, 5]      # each point's expert is tuned on that point's rules


@pytest.mark.parametrize("body, words", [
    # both real games ship an expert now; the test game of tests/support/fake_game.py does not
    ("  game: fake\n  strategies: {A: expert}\n", "fake has no shipped 'expert'"),
    ("  retune: true\n  strategies: {A: greedy}\n", "tunes the strategies named 'expert'"),
    ("  retune: yes please\n  strategies: {A: expert}\n", "expected true or false"),
    ("  retune: true\n  tune: {budgett: 5}\n  strategies: {A: expert}\n", "unknown key"),
    ("  retune: true\n  tune: {hold: 5}\n  strategies: {A: expert}\n", "as simulate tune --hold"),
    ("  retune: true\n  tune: {base: nosuch}\n  strategies: {A: expert}\n",
     "yaml:4, field 'bad.tune.base': unknown strategy 'nosuch'"),
    # a name the game's strategies do not have, at its line before any point tunes
    ("  retune: true\n  tune: {budget: 5,\n    hold: commit.high_crad=0}\n  strategies: {A: expert}\n",
     "yaml:5, field 'bad.tune.hold': 'commit.high_crad' is not a weight of this game's"),
])
def test_experiment_retune_errors_name_the_line(tmp_path, body, words, fake_game_registered):
    from sim.studies import experiments
    from sim.core.errors import UserError

    path = tmp_path / "experiments.yaml"
    path.write_text("bad:\n  players: 2\n" + body)
    with pytest.raises(UserError) as caught:
        experiments.get("bad", str(path))
    assert words in str(caught.value) and f"{path}:" in str(caught.value)


@pytest.mark.parametrize("game, slots, first", [("peer-to-peer", "{A: expert, B: greedy}", "A")])
def test_experiment_plays_the_shipped_expert_without_retune(tmp_path, game, slots, first):
    from sim.studies import experiments

    path = tmp_path / "experiments.yaml"
    path.write_text(f"shipped:\n  game: {game}\n  players: 2\n  strategies: {slots}\n")
    exp = experiments.get("shipped", str(path))
    assert not exp.retune and exp.strategies[first][0] == "expert"


def test_beating_every_baseline_does_not_require_beating_the_previous_champion():
    def row(name, low):
        return searcher.CheckRow(name, 100, 60, 40, 0.6, 0.6, low, 0.7, 0.5)

    result = searcher.SearchResult(np.zeros(3), np.zeros(3), 1, [], [row("greedy", 0.55),
                                   row(searcher.PREVIOUS, 0.45)], 0, 0)
    assert result.beats_every_baseline
    result.check[0] = row("greedy", 0.45)
    assert not result.beats_every_baseline


def test_held_weights_stay_where_they_are_held_and_the_rest_is_searched():
    """``free``: the search moves only the weights it marks; a held weight keeps its
    base value exactly, and the others still find their best. Without ``free`` a point
    plays base + scale * x, as before the option existed."""
    base = np.array([0.0, 0.25, 0.0])
    result = searcher.search(BowlArena(), base, {"zero": np.zeros(3)}, budget=900_000, seed=3,
                             games_per_eval=2000, check_games=4000, sigma=0.5,
                             free=np.array([True, False, True]))
    assert result.weights[1] == 0.25
    assert abs(result.weights[0] - BEST[0]) < 0.3 and abs(result.weights[2] - BEST[2]) < 0.3
    assert result.settings["dimensions"] == 2
    dimension, weights_of = searcher.search_space(base, np.array([2.0, 3.0, 4.0]))
    x = np.array([0.1, -0.2, 0.3])
    assert dimension == 3
    assert np.array_equal(weights_of(x), base + np.array([2.0, 3.0, 4.0]) * x)


@pytest.fixture(scope="module")
def p2p_held(tmp_path_factory):
    from sim import api

    out = tmp_path_factory.mktemp("tune-held")
    return api.tune(out=out / "held.yaml", game="peer-to-peer", players=2, budget=8_000,
                    seed=11, games_per_eval=400, check_games=400, threads=1, progress=False,
                    base="expert", hold="commit.high_card=0,dest.score",
                    command_line="simulate tune test")


def test_a_tune_leaves_the_held_weights_and_says_so(p2p_held):
    from sim import api
    from sim.games.peer_to_peer.arena import PeerToPeerArena
    from sim.games.peer_to_peer.features import WEIGHT_NAMES

    doc = yaml.safe_load(p2p_held.out.read_text())
    base = PeerToPeerArena.vector_of(api.configure("peer-to-peer", 2,
                                            strategies={"A": "expert", "B": "expert"}))
    weights = doc["weights"]
    for phase in ("early", "late"):
        assert weights[f"{phase}.commit.high_card"] == 0.0
        assert weights[f"{phase}.dest.score"] == base[WEIGHT_NAMES.index(f"{phase}.dest.score")]
    # the file holds searched weights, not the base's (a tune that kept its base would
    # say nothing about the hold)
    moved = [n for i, n in enumerate(WEIGHT_NAMES) if weights[n] != base[i]]
    assert set(moved) - {"early.commit.high_card", "late.commit.high_card"}
    held = {"early.commit.high_card": 0.0, "early.dest.score": None,
            "late.commit.high_card": 0.0, "late.dest.score": None}
    assert doc["tuned_on"]["settings"]["hold"] == held
    words = ("held out of the tune: early.commit.high_card=0, early.dest.score, "
             "late.commit.high_card=0, late.dest.score")
    assert doc["summary"].endswith(words)
    assert words in p2p_held.report()


def test_a_self_play_tune_says_how_to_compare_it_with_the_shipped_expert(p2p_held):
    """The field and the re-check leave the shipped expert out, so the report says so and
    gives the command that compares the two."""
    assert "simulate matchups --game peer-to-peer --players 2 --strategies expert,@" in \
        p2p_held.report()


def test_the_comparison_command_plays_the_cards_and_rules_the_tune_played(tmp_path):
    """A tune on other cards and rules: the printed comparison with the shipped expert
    plays those, not the defaults."""
    from sim.studies.tune import tuned_inputs
    from sim.games.peer_to_peer.cards import default_cards_path

    document = {"game": "peer-to-peer", "tuned_on": {
        "cards": {"path": "/x/my cards.csv"}, "rules_file": None,
        "rule_overrides": ["customer_patience=3"]}}
    assert tuned_inputs(document) == ["--cards", "/x/my cards.csv", "--rule",
                                      "customer_patience=3"]
    document["tuned_on"]["cards"]["path"] = str(default_cards_path())
    document["tuned_on"]["rule_overrides"] = []
    assert tuned_inputs(document) == []


def test_a_held_name_the_game_does_not_have_is_refused_before_any_game(tmp_path):
    from sim import api
    from sim.core.errors import UserError

    with pytest.raises(UserError, match="did you mean"):
        api.tune(out=tmp_path / "x.yaml", game="peer-to-peer", players=2, budget=8_000,
                 hold="commit.high_crad", progress=False)
    assert not list(tmp_path.iterdir())
