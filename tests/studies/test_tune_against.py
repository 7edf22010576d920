"""simulate tune --against: the search maximises the worst share against fixed opponents,
is deterministic for a seed, keeps the base when the result is no better on fresh seeds,
and writes a strategy file that says how it was made."""
from __future__ import annotations

import numpy as np
import pytest
import yaml

from sim.core.errors import UserError
from sim.studies import tune as tuner
from sim.studies.tune_against import search_against, worst

from bowl_arena import assert_the_seed_decides, uniform_draw

MAXIMIN = np.array([0.0, 1.0])
OPPONENTS = {"left": np.array([1.0, 0.0]), "right": np.array([-1.0, 0.0])}


class CycleArena:
    """A two-player test game where the best answer depends on the opponent: against an
    opponent whose first weight is t, a candidate's edge is 1.5 - (w0 - t)^2 - (w1 - 1)^2.
    Against "left" (t = 1) the best is w0 = 1, against "right" (t = -1) w0 = -1; the best
    worst share over both is at MAXIMIN. Game i of a seed is one uniform draw."""

    game, players, sides, fair_share = "cycle", 2, 2, 0.5
    names = ("a", "b")

    def play_blocks(self, vectors, blocks):
        out = []
        for block in blocks:
            cand, opp = vectors[block.candidate], vectors[block.opponent]
            edge = 1.5 - (cand[0] - opp[0]) ** 2 - (cand[1] - 1.0) ** 2
            p_win = 1.0 / (1.0 + np.exp(-3.0 * edge))
            u = uniform_draw(block.seed + block.side,
                             np.arange(block.start, block.start + block.count))
            wins = int((u < p_win).sum())
            out.append(tuner.Tally(wins, block.count - wins, block.count))
        return out


def _search(seed=2, budget=600_000, arena=None):
    return search_against(arena or CycleArena(), np.array([1.0, 0.0]), OPPONENTS,
                          budget=budget, seed=seed, games_per_eval=4000, check_games=8000,
                          sigma=0.5)


def test_worst_is_the_lowest_share_of_the_decided_games():
    tallies = [tuner.Tally(60, 40, 100), tuner.Tally(30, 20, 100), tuner.Tally(55, 45, 100)]
    assert worst(tallies) == (pytest.approx(0.55), 2)       # 30 / 50 = 0.6 is not the lowest
    assert worst([tuner.Tally(0, 0, 10), tuner.Tally(1, 0, 1)]) == (0.0, 0)


def test_the_search_finds_the_best_worst_share_not_the_best_against_one():
    result = _search()
    assert np.all(np.abs(result.weights - MAXIMIN) < 0.3), result.weights
    assert not result.reverted
    assert {r.opponent for r in result.check} == set(OPPONENTS)
    assert result.beats_every_baseline      # the base (1, 0) loses to "right" by far
    shares = {row["entry"]: row["share"] for row in result.final}
    assert min(shares["tuned against left"], shares["tuned against right"]) > \
        min(shares["base against left"], shares["base against right"]) + 0.2


def test_same_seed_same_weights_other_seed_other_path():
    assert_the_seed_decides(lambda seed: _search(seed=seed, budget=150_000))


def test_the_base_is_kept_when_the_result_is_no_better_on_fresh_seeds():
    class Flat(CycleArena):
        def play_blocks(self, vectors, blocks):
            return [tuner.Tally(50, 50, 100) for _ in blocks]

    result = _search(budget=50_000, arena=Flat())
    assert result.reverted
    assert np.array_equal(result.weights, np.array([1.0, 0.0]))
    assert all(row["chosen"] == row["entry"].startswith("base") for row in result.final)


def test_tune_against_writes_a_file_that_names_its_opponents(tmp_path):
    from sim import api

    out = tmp_path / "plai-2p.yaml"
    result = api.tune("plai", players=2, base="expert-v1", against="bluffer,weighted:act.family=2",
                      budget=40_000, games_per_eval=4000, check_games=2000, out=str(out),
                      progress=False)
    doc = yaml.safe_load(out.read_text())
    assert "against bluffer, weighted:act.family=2" in doc["summary"]
    assert doc["tuned_on"]["settings"]["against"] == ["bluffer", "weighted:act.family=2"]
    assert set(doc["score"]["against"]) == {"bluffer", "weighted:act.family=2"}
    assert "games against bluffer, weighted:act.family=2" in result.report()


def test_tune_against_checks_its_opponents_before_the_first_game(tmp_path):
    from sim import api

    with pytest.raises(UserError, match="--against"):
        api.tune("plai", players=2, against="bluffer,nobody", budget=1000,
                 out=str(tmp_path / "x.yaml"), progress=False)


def test_dask_backend_tunes_against_opponents_as_local_does(tmp_path):
    """The search against fixed opponents plays through tune's arena on any backend: the
    same seed gives the same weights and score on Dask as on local threads."""
    pytest.importorskip("distributed")
    from sim import api

    kwargs = dict(game="plai", players=2, base="expert-v1", against="bluffer,weighted",
                  budget=24_000, seed=3, games_per_eval=2000, check_games=1000, progress=False)
    local = api.tune(out=str(tmp_path / "local.yaml"), threads=1, **kwargs)
    dask = api.tune(out=str(tmp_path / "dask.yaml"), backend="dask-local",
                    backend_options={"workers": 1}, **kwargs)
    a, b = (yaml.safe_load(r.out.read_text()) for r in (local, dask))
    assert a["weights"] == b["weights"] and a["score"] == b["score"]
    assert b["tuned_on"]["backend"] == "dask-local"


def test_a_held_weight_stays_at_its_base_value():
    """``free``: only the first weight is searched; the second keeps the base's 0, where
    the best worst share lies at a first weight of 0 too."""
    result = search_against(CycleArena(), np.array([1.0, 0.0]), OPPONENTS, budget=600_000,
                            seed=2, games_per_eval=4000, check_games=8000, sigma=0.5,
                            free=np.array([True, False]))
    assert result.weights[1] == 0.0
    assert abs(result.weights[0]) < 0.3 and not result.reverted
