"""Holm's control for the report's families of tests (sim/core/multiple.py), worked by hand."""
import math

import polars as pl
import pytest

from sim.core.multiple import ALPHA, family_size, holm, p_beyond
from sim.core.report_metric import Context, with_family
from sim.core.wording import ABOVE, UNDECIDED, judge


def test_holm_adjusts_step_down_by_hand():
    # sorted p: 0.01 (x3 = 0.03), 0.02 (x2 = 0.04), 0.04 (x1 = 0.04, kept monotone)
    got = holm([0.04, 0.01, float("nan"), 0.02])
    assert got[1] == pytest.approx(0.03) and got[3] == pytest.approx(0.04)
    assert got[0] == pytest.approx(0.04) and math.isnan(got[2])
    assert family_size([0.04, 0.01, float("nan"), 0.02]) == 3


def test_one_test_calls_exactly_what_the_interval_calls():
    # interval [3 %, 7 %] around 5 % with a 2 pp threshold: lower end 1 pp beyond it
    p = p_beyond(0.05, 0.03, 0.07, 0.0, 0.02)
    assert p < ALPHA
    # lower end exactly at the threshold: p = 0.025 (z = 1.96), not called
    assert p_beyond(0.05, 0.03, 0.07, 0.0, 0.03) == pytest.approx(ALPHA, rel=1e-5)
    assert p_beyond(0.01, -0.01, 0.03, 0.0, 0.02) > 0.5


def test_a_family_demotes_an_interval_beyond_the_threshold_on_its_own():
    """20 cards, one of them just beyond the threshold: on its own it would be called; in
    a family of 20 the correction does not call it, and the sentence says 20 were tested."""
    ctx = Context(game="x", threshold_pp=2.0)
    rows = [{"delta_diff": 0.0, "delta_lo": -0.01, "delta_hi": 0.01}] * 19
    rows.append({"delta_diff": 0.04, "delta_lo": 0.021, "delta_hi": 0.06})
    t = with_family(pl.DataFrame(rows), "delta", 0.0, ctx)
    assert t["tested"][0] == 20 and not t["called"].any()
    last = t.row(19, named=True)
    code, text = judge("card X", "delta", 0.04, 0.021, 0.06, 100, centre=0.0, centre_words="0",
                       threshold_pp=2.0, method="Newcombe", above_words="up", below_words="down",
                       estimate_is_diff=True, tested=20, p_holm=last["p_holm"])
    assert code == UNDECIDED and "20 tests" in text
    code, _ = judge("card X", "delta", 0.04, 0.021, 0.06, 100, centre=0.0, centre_words="0",
                    threshold_pp=2.0, method="Newcombe", above_words="up", below_words="down",
                    estimate_is_diff=True)
    assert code == ABOVE       # the same interval alone is called
    # far beyond the threshold: called in the family too
    rows[19] = {"delta_diff": 0.10, "delta_lo": 0.08, "delta_hi": 0.12}
    t = with_family(pl.DataFrame(rows), "delta", 0.0, ctx)
    assert t["called"].to_list() == [False] * 19 + [True]
