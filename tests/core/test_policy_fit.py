"""Fitting a weight vector to recorded decisions (sim/core/policy_fit.py).

- By choice: from synthetic decisions whose choices are drawn from softmax(w . features)
  with a known ``w`` (two phase blocks, as Peer-to-Peer's), the fit recovers ``w``;
  weights not learned stay the base's exactly.
- By value: from synthetic decisions whose options' values follow a known ``w``, a fit
  from a base that ranks them wrongly comes to rank them as ``w`` does (its argmax takes
  the best option where the base's did not), and its expected value rises.
- The L2 term pulls toward the base: a strong one leaves the base nearly unchanged.
- Decisions where the search preferred nothing (every played-out option equal) are not
  informative; the fit of the same records is the same, bit for bit.
- Recordings travel through a games table and back unchanged (sim/core/recorded.py).
"""
from __future__ import annotations

import numpy as np
import pytest

from sim.core.policy_fit import (
    Decisions, decisions_of, first_choices, fit_choices, fit_policy, fit_values, informative,
    select, shortfall,
)
from sim.core.recorded import recording_columns, recordings_of
from sim.core.search_kernel import (
    N_DECISIONS, N_ROWS, REC_CHOSEN, REC_COUNT, REC_FIRST, REC_GAME, new_recording,
    open_decision,
)

TRUE = np.array([1.5, -2.0, 0.5, 0.8, 3.0, -0.4, 7.0])   # two blocks of 3, then a switch
LEARNED = np.array([1, 1, 1, 1, 1, 1, 0], bool)


def _synthetic(decisions=6000, options=4, seed=1) -> Decisions:
    rng = np.random.default_rng(seed)
    feats = rng.normal(size=(decisions * options, 3))
    blocks = rng.integers(0, 2, decisions) * 3
    starts = np.arange(0, decisions * options + 1, options)
    chosen = np.zeros(decisions, np.int64)
    for d in range(decisions):
        s = feats[starts[d]:starts[d + 1]] @ TRUE[blocks[d]:blocks[d] + 3]
        p = np.exp(s - s.max())
        chosen[d] = starts[d] + rng.choice(options, p=p / p.sum())
    values = np.where(np.isin(np.arange(len(feats)), chosen), 1.0, 0.0)
    return Decisions(feats, values, starts, blocks, chosen, np.zeros(decisions, np.int64))


def test_the_fit_recovers_a_known_weight_vector():
    base = np.zeros(7)
    base[6] = 5.0                       # not learned: kept as it is
    fit = fit_choices(_synthetic(), base, LEARNED, l2=1e-3)
    assert np.abs(fit.weights[:6] - TRUE[:6]).max() < 0.15, fit.weights
    assert fit.weights[6] == 5.0
    assert fit.agreement > fit.base_agreement and fit.loss < fit.base_loss


def test_the_value_fit_learns_to_take_the_best_options():
    rng = np.random.default_rng(3)
    decisions, options = 3000, 4
    feats = rng.normal(size=(decisions * options, 3))
    starts = np.arange(0, decisions * options + 1, options)
    truth = np.array([2.0, -1.0, 0.5])
    values = 1 / (1 + np.exp(-feats @ truth))        # win rates that follow ``truth``
    chosen = np.array([starts[d] + np.argmax(values[starts[d]:starts[d + 1]])
                       for d in range(decisions)])
    data = Decisions(feats, values, starts, np.zeros(decisions, np.int64), chosen,
                     np.zeros(decisions, np.int64))
    base = np.array([0.5, 1.0, 0.0])                   # ranks by the wrong sign of f1
    fit = fit_values(data, base, np.ones(3, bool), l2=1e-3, sharpness=3.0)
    assert fit.loss < fit.base_loss                   # minus the expected value: higher
    assert fit.base_agreement < 0.6 and fit.agreement > 0.9
    assert fit.weights[1] < 0 < fit.weights[0]
    assert np.array_equal(fit_policy(data, base, np.ones(3, bool), l2=1e-3).weights,
                          fit.weights)               # the default objective, sharpness 3


def test_a_strong_l2_keeps_the_base_and_the_fit_is_deterministic():
    data = _synthetic(decisions=1500, seed=2)
    base = np.array([1.0, -1.0, 0.0, 0.0, 2.0, 0.0, 7.0])
    weak = fit_choices(data, base, LEARNED, l2=1e-3)
    strong = fit_choices(data, base, LEARNED, l2=1e6)
    assert np.abs(strong.weights - base).max() < 0.01
    assert np.abs(weak.weights - base).max() > 0.3
    again = fit_choices(data, base, LEARNED, l2=1e-3)
    assert np.array_equal(again.weights, weak.weights)


def test_decisions_without_a_preference_are_left_out():
    data = _synthetic(decisions=4, options=3)
    values = data.values.copy()
    values[0:3] = [0.5, 0.5, np.nan]       # played out alike: no preference
    values[3:6] = [0.5, np.nan, np.nan]    # one played out: no comparison
    values[6:9] = [0.25, 0.75, np.nan]     # a preference
    values[9:12] = [1.0, 0.0, 0.0]
    data = Decisions(data.features, values, data.starts, data.blocks, data.chosen, data.kinds)
    keep = informative(data)
    assert keep.tolist() == [False, False, True, True]
    kept = select(data, keep)
    assert kept.count == 2 and kept.starts.tolist() == [0, 3, 6]
    assert (kept.features == data.features[6:]).all()
    assert (kept.chosen == data.chosen[2:] - 6).all()


def test_recordings_go_through_a_games_table_unchanged():
    rec = new_recording(10, 40, 3, 0)
    layout = [(20, 2, 1), (20, 3, 2), (22, 2, 0)]   # (game, options, chosen)
    for game, count, chosen in layout:
        first = open_decision(rec, game, 0, 1, 0, 4, count, chosen)
        rec.features[first:first + count] = np.arange(count * 3).reshape(count, 3) + game
        rec.values[first] = 0.5
    columns = recording_columns([rec], 20, 3)      # games 20, 21 (none), 22
    import polars as pl

    back = recordings_of(pl.DataFrame(columns), 3)
    assert back.n[N_DECISIONS] == 3 and back.n[N_ROWS] == 7
    assert (back.decisions[:, REC_GAME] == [20, 20, 22]).all()
    assert (back.decisions[:, REC_FIRST] == [0, 2, 5]).all()
    assert (back.decisions[:, REC_COUNT] == [2, 3, 2]).all()
    assert (back.decisions[:, REC_CHOSEN] == [1, 2, 0]).all()
    assert np.array_equal(back.features, rec.features[:7])
    assert np.array_equal(back.values, rec.values[:7], equal_nan=True)
    flat = decisions_of([back])
    assert flat.starts.tolist() == [0, 2, 5, 7] and flat.chosen.tolist() == [1, 4, 5]


def test_shortfall_counts_where_the_policy_chose_otherwise_and_what_it_lost():
    # weights [w0, w1] for block 0 and [w2, w3] for block 2: the policy scores f . w
    weights = np.array([1.0, 0.0, 0.0, 1.0])
    feats = np.array([
        [1.0, 0.0], [2.0, 0.0], [2.0, 5.0],     # kind 0, block 0: ties at 2, the first wins
        [0.0, 3.0], [0.0, 1.0],                 # kind 1, block 2: the policy takes row 3
        [0.0, 1.0], [0.0, 2.0], [0.0, 0.0],     # kind 1, block 2: the policy takes row 6
    ])
    values = np.array([0.9, 0.4, 0.1,
                       0.2, 0.7,
                       0.8, np.nan, 0.3])       # not played out: the worst played-out, 0.3
    starts = np.array([0, 3, 5, 8])
    data = Decisions(feats, values, starts, np.array([0, 2, 2]), np.array([0, 4, 5]),
                     np.array([0, 1, 1]))
    got = shortfall(data, weights)
    assert got[0] == (1, 1, pytest.approx(0.5))       # chose row 1 (0.4) over row 0 (0.9)
    assert got[1] == (2, 2, pytest.approx(0.5 + 0.5))  # 0.7 - 0.2, 0.8 - 0.3
    data = Decisions(feats, values, starts, np.array([0, 2, 2]), np.array([1, 3, 6]),
                     np.array([0, 1, 1]))
    assert shortfall(data, weights) == {0: (1, 0, 0.0), 1: (2, 0, 0.0)}
    weights[1] = np.inf   # inf * 0 is not a number, and such a score never wins: row 2 does
    assert shortfall(data, weights)[0] == (1, 1, pytest.approx(0.3))


def test_a_score_that_is_not_a_number_never_ranks_first():
    scores = np.array([np.nan, 1.0, 3.0, 3.0,    # the first of the two highest: row 2
                       np.nan, np.nan,           # nothing is a number: the first row
                       2.0, np.nan])             # row 6
    starts = np.array([0, 4, 6, 8])
    assert first_choices(scores, starts).tolist() == [2, 4, 6]
