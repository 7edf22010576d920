"""sim.core.stats: interval arithmetic checked against published values."""
import math

import numpy as np
import polars as pl
import pytest

from sim.core.stats import (diff_ci, mean_ci, ratio_ci, t_interval, t_ppf, wilson, with_diff,
                           with_t_interval, with_wilson)


def test_wilson_known_values():
    # Newcombe (1998) / Brown-Cai-DasGupta: 5/10 -> 0.2366..0.7634
    p, lo, hi = wilson(5, 10)
    assert p == 0.5
    assert lo == pytest.approx(0.23659, abs=1e-5)
    assert hi == pytest.approx(0.76341, abs=1e-5)
    assert isinstance(p, float)


def test_wilson_rate_zero_and_one():
    p, lo, hi = wilson(0, 10)
    assert (p, lo) == (0.0, 0.0)
    assert hi == pytest.approx(3.841459 / 13.841459, rel=1e-5)  # z^2 / (n + z^2)
    p, lo, hi = wilson(10, 10)
    assert (p, hi) == (1.0, 1.0)
    assert lo == pytest.approx(10 / 13.841459, rel=1e-5)


def test_wilson_n_zero_is_nan_and_vectorised():
    assert all(math.isnan(v) for v in wilson(0, 0))
    p, lo, hi = wilson(np.array([0, 5, 0]), np.array([10, 10, 0]))
    assert p.shape == (3,)
    assert lo[1] == pytest.approx(0.23659, abs=1e-5)
    assert math.isnan(p[2]) and math.isnan(lo[2]) and math.isnan(hi[2])


def test_wilson_rejects_impossible_counts():
    with pytest.raises(ValueError):
        wilson(11, 10)


def test_diff_ci_newcombe_published_examples():
    # Newcombe 1998, Table II, method 10
    d, lo, hi = diff_ci(56, 70, 48, 80)
    assert d == pytest.approx(0.2)
    assert (lo, hi) == (pytest.approx(0.0524, abs=1e-4), pytest.approx(0.3339, abs=1e-4))
    d, lo, hi = diff_ci(9, 10, 3, 10)
    assert (lo, hi) == (pytest.approx(0.1705, abs=1e-4), pytest.approx(0.8090, abs=1e-4))
    assert all(math.isnan(v) for v in diff_ci(1, 2, 0, 0))


@pytest.mark.parametrize("df,expected", [(1, 12.706205), (2, 4.302653), (4, 2.776445),
                                         (10, 2.228139), (30, 2.042272), (1000, 1.962339)])
def test_t_quantile_table(df, expected):
    assert t_ppf(0.975, df) == pytest.approx(expected, abs=1e-5)


def test_mean_ci_t_interval():
    m, lo, hi = mean_ci([1, 2, 3, 4, 5])  # se = 0.70711, t(4) = 2.776445
    assert m == 3.0
    assert lo == pytest.approx(3 - 1.963243, abs=1e-5)
    assert hi == pytest.approx(3 + 1.963243, abs=1e-5)
    m, lo, hi = mean_ci([7])
    assert m == 7.0 and math.isnan(lo) and math.isnan(hi)
    assert all(math.isnan(v) for v in mean_ci([]))
    m, lo, hi = mean_ci(pl.Series([2, 2, 2]))
    assert (m, lo, hi) == (2.0, 2.0, 2.0)


def test_t_interval_vectorised_matches_mean_ci():
    _, lo, hi = t_interval(np.array([3.0, 1.0]), np.array([math.sqrt(2.5), 0.0]), np.array([5, 0]))
    assert lo[0] == pytest.approx(1.036757, abs=1e-5)
    assert math.isnan(lo[1])


def test_ratio_ci_delta_method():
    x = np.array([1, 2, 0, 3.0])
    y = np.array([2, 2, 1, 4.0])
    r, lo, hi = ratio_ci(x.sum(), (x * x).sum(), (x * y).sum(), y.sum(), (y * y).sum(), 4,
                         wilson_floor=False)
    assert r == pytest.approx(6 / 9)
    # residuals e = x - r y = [-1/3, 2/3, -2/3, 1/3]; var = (10/9)/3; se = sqrt(var/4)/2.25
    se = math.sqrt((10 / 9) / 3 / 4) / 2.25
    assert lo == pytest.approx(6 / 9 - 1.959964 * se)
    assert hi == pytest.approx(6 / 9 + 1.959964 * se)


def test_ratio_ci_never_narrower_than_wilson_of_the_pooled_counts():
    # one fight, won, in one game of 1,000: the delta method's residuals are all 0, so
    # alone it would give a zero-width interval at 100 %
    x = np.zeros(1000)
    y = np.zeros(1000)
    x[7] = y[7] = 1.0
    sums = (x.sum(), (x * x).sum(), (x * y).sum(), y.sum(), (y * y).sum(), 1000)
    r, lo, hi = ratio_ci(*sums, wilson_floor=False)
    assert (r, lo, hi) == (1.0, 1.0, 1.0)
    r, lo, hi = ratio_ci(*sums)
    _, wlo, whi = wilson(1, 1)
    assert (r, lo, hi) == (1.0, pytest.approx(wlo), whi) and lo < 0.25
    # the worked example above: Wilson (6 of 9) reaches lower than the delta method
    x = np.array([1, 2, 0, 3.0])
    y = np.array([2, 2, 1, 4.0])
    sums = (x.sum(), (x * x).sum(), (x * y).sum(), y.sum(), (y * y).sum(), 4)
    _, dlo, dhi = ratio_ci(*sums, wilson_floor=False)
    _, lo, hi = ratio_ci(*sums)
    _, wlo, whi = wilson(6, 9)
    assert wlo < dlo and lo == pytest.approx(wlo) and hi == pytest.approx(max(dhi, whi))


def test_polars_helpers():
    df = pl.DataFrame({"s": [5, 0], "n": [10, 0], "s2": [0, 0], "n2": [10, 4],
                       "m": [3.0, 1.0], "sd": [math.sqrt(2.5), None]})
    out = with_wilson(df, "s", "n", prefix="a_")
    assert out["a_rate"][0] == 0.5 and math.isnan(out["a_rate"][1])
    out = with_diff(df, "s", "n", "s2", "n2")
    assert out["diff_rate"][0] == pytest.approx(0.5)
    out = with_t_interval(df.with_columns(pl.Series("k", [5, 1])), "m", "sd", "k")
    assert out["mean_lo"][0] == pytest.approx(1.036757, abs=1e-5)
    assert math.isnan(out["mean_hi"][1])
