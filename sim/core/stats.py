"""Interval statistics for balance reports.

Every rate in a report carries a 95 % interval:

* proportions: the Wilson score interval (:func:`wilson`), which behaves at 0 and 1
  (a Wald interval collapses to a point there);
* means: the Student t interval (:func:`mean_ci`, :func:`t_interval`);
* a difference of two independent proportions: **Newcombe's hybrid score interval**
  (Newcombe 1998, method 10), built from the two Wilson intervals (:func:`diff_ci`);
* a ratio of sums over games (a share of customers pooled over many games):
  a delta-method (linearised) interval that treats the game as the sampling unit
  (:func:`ratio_ci`), because customers within one game are not independent; it is never
  narrower than the Wilson interval of the pooled counts.

Everything is vectorised over numpy arrays; scalars in give Python floats out.
``n == 0`` gives ``nan`` for the estimate and both bounds. No SciPy: the t quantile is
computed here from the regularised incomplete beta function.

Polars helpers (:func:`with_wilson`, :func:`with_diff`, :func:`with_t_interval`) add the
interval columns to a table that already holds the counts.
"""
from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import polars as pl

Z95 = 1.959964  # two-sided 95 % normal quantile

__all__ = ["Z95", "wilson", "mean_ci", "diff_ci", "ratio_ci", "t_interval", "t_ppf",
           "with_wilson", "with_diff", "with_t_interval"]


def _out(*arrays, scalar: bool):
    if scalar:
        return tuple(float(a) for a in arrays)
    return tuple(np.asarray(a, dtype=np.float64) for a in arrays)


def _is_scalar(*xs) -> bool:
    return all(np.ndim(x) == 0 for x in xs)


# --------------------------------------------------------------------------- proportions
def wilson(successes, n, z: float = Z95):
    """Wilson score interval for ``successes`` out of ``n``.

    Returns ``(p, lo, hi)``; works elementwise on numpy arrays (or polars Series).
    ``n == 0`` gives ``(nan, nan, nan)``. Bounds are clipped to [0, 1], so a rate of 0
    has ``lo == 0`` and a rate of 1 has ``hi == 1`` exactly.
    """
    scalar = _is_scalar(successes, n)
    s = np.asarray(successes, dtype=np.float64)
    m = np.asarray(n, dtype=np.float64)
    if np.any(s < 0) or np.any(s > m):
        raise ValueError("wilson: need 0 <= successes <= n")
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(m > 0, s / m, np.nan)
        z2 = z * z
        denom = 1.0 + z2 / m
        centre = (p + z2 / (2.0 * m)) / denom
        half = z * np.sqrt(p * (1.0 - p) / m + z2 / (4.0 * m * m)) / denom
        lo = np.where(m > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        hi = np.where(m > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
        # exact ends: 0 successes -> lo = 0, n successes -> hi = 1
        lo = np.where((m > 0) & (s == 0), 0.0, lo)
        hi = np.where((m > 0) & (s == m), 1.0, hi)
    return _out(p, lo, hi, scalar=scalar)


def z_of_many(intervals: int, level: float = 0.95) -> float:
    """The two-sided normal quantile at which ``intervals`` intervals all hold their true
    values with probability at least ``level`` (Bonferroni): the interval of the one picked
    as the furthest of them needs it, since picking the furthest favours chance."""
    return NormalDist().inv_cdf(1.0 - (1.0 - level) / (2.0 * max(1, intervals)))


def diff_ci(s1, n1, s2, n2, z: float = Z95):
    """Difference of two independent proportions ``s1/n1 - s2/n2``.

    Method: **Newcombe's hybrid score interval** (Newcombe 1998, "Interval estimation
    for the difference between independent proportions", method 10): with Wilson
    intervals (l1, u1) and (l2, u2),
    ``lo = d - sqrt((p1 - l1)^2 + (u2 - p2)^2)``, ``hi = d + sqrt((u1 - p1)^2 + (p2 - l2)^2)``.
    Returns ``(d, lo, hi)``; nan when either n is 0.
    """
    scalar = _is_scalar(s1, n1, s2, n2)
    p1, l1, u1 = wilson(np.asarray(s1), np.asarray(n1), z)
    p2, l2, u2 = wilson(np.asarray(s2), np.asarray(n2), z)
    d = p1 - p2
    lo = d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return _out(d, lo, hi, scalar=scalar)


# --------------------------------------------------------------------------- t quantile
def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction for the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbt) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbt) * _betacf(b, a, 1.0 - x) / b


def _t_sf(t: float, df: float) -> float:
    """P(T > t) for t >= 0."""
    return 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))


def t_ppf(q: float, df: float) -> float:
    """Quantile of Student's t with ``df`` degrees of freedom (``0.5 < q < 1``), by bisection."""
    if not 0.0 < q < 1.0:
        raise ValueError("t_ppf: q must be in (0, 1)")
    if df <= 0 or math.isnan(df):
        return math.nan
    if q < 0.5:
        return -t_ppf(1.0 - q, df)
    if q == 0.5:
        return 0.0
    if df > 1e7:
        return NormalDist().inv_cdf(q)
    target = 1.0 - q
    lo, hi = 0.0, 1.0
    while _t_sf(hi, df) > target:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _t_sf(mid, df) > target:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


_T_CACHE: dict[tuple[float, int], float] = {}


def _t_crit(level: float, df: int) -> float:
    key = (level, int(df))
    if key not in _T_CACHE:
        _T_CACHE[key] = t_ppf(0.5 + level / 2.0, df) if df >= 1 else math.nan
    return _T_CACHE[key]


# --------------------------------------------------------------------------- means
def t_interval(mean, sd, n, level: float = 0.95):
    """t interval from summary moments (sample sd with ddof=1). Vectorised.

    Returns ``(mean, lo, hi)``. ``n == 0`` -> all nan; ``n == 1`` -> mean, nan, nan.
    """
    scalar = _is_scalar(mean, sd, n)
    mu = np.asarray(mean, dtype=np.float64)
    s = np.asarray(sd, dtype=np.float64)
    m = np.asarray(n, dtype=np.int64)
    mu_b, s_b, m_b = np.broadcast_arrays(mu, s, m)
    crit = np.array([_t_crit(level, k - 1) if k >= 2 else math.nan for k in m_b.ravel()],
                    dtype=np.float64).reshape(m_b.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        half = crit * s_b / np.sqrt(m_b)
    mu_b = np.where(m_b > 0, mu_b, np.nan)
    return _out(mu_b, mu_b - half, mu_b + half, scalar=scalar)


def mean_ci(values, level: float = 0.95):
    """Mean of ``values`` with its Student t interval: ``(mean, lo, hi)``.

    Empty input -> nan, nan, nan; a single value -> (value, nan, nan).
    """
    x = np.asarray(values.to_numpy() if isinstance(values, pl.Series) else values,
                   dtype=np.float64).ravel()
    n = x.size
    if n == 0:
        return (math.nan, math.nan, math.nan)
    sd = float(np.std(x, ddof=1)) if n > 1 else math.nan
    return t_interval(float(np.mean(x)), sd, n, level)


def ratio_ci(num_sum, num_sq, cross, den_sum, den_sq, n, z: float = Z95,
             wilson_floor: bool = True, clip: tuple[float, float] = (0.0, 1.0)):
    """Ratio ``R = sum(x) / sum(y)`` over ``n`` games with a delta-method interval.

    Needs per-group sums: ``num_sum = sum(x)``, ``num_sq = sum(x^2)``,
    ``cross = sum(x*y)``, ``den_sum = sum(y)``, ``den_sq = sum(y^2)``.
    Variance of the linearised residual ``x - R y`` over games, divided by
    ``n * ybar^2``. Games are the sampling unit. Bounds are clipped to ``clip``, [0, 1] for
    a share; a difference of two shares of one denominator (x the per-game difference of
    their counts) takes (-1, 1) and no Wilson floor. Returns ``(R, lo, hi)``; nan when
    n < 2 or sum(y) == 0.

    With ``wilson_floor`` (the default) the interval is widened to contain the Wilson
    interval of ``sum(x)`` out of ``sum(y)``: the delta method estimates its variance from
    the games, and when a few games hold all the events it collapses (one fight in one
    game of thousands gives zero width). Wilson's interval treats every event as
    independent, the least uncertainty the data can have; both assume x <= y counts.
    """
    scalar = _is_scalar(num_sum, den_sum, n)
    sx, sxx, sxy = (np.asarray(a, dtype=np.float64) for a in (num_sum, num_sq, cross))
    sy, syy = (np.asarray(a, dtype=np.float64) for a in (den_sum, den_sq))
    m = np.asarray(n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(sy > 0, sx / sy, np.nan)
        # sum of (x - r y)^2 = sxx - 2 r sxy + r^2 syy ; residual mean is 0 by construction
        ss = np.maximum(sxx - 2 * r * sxy + r * r * syy, 0.0)
        var_e = ss / (m - 1.0)
        ybar = sy / m
        se = np.sqrt(var_e / m) / ybar
        ok = (m >= 2) & (sy > 0)
        lo = np.where(ok, np.clip(r - z * se, *clip), np.nan)
        hi = np.where(ok, np.clip(r + z * se, *clip), np.nan)
    if wilson_floor:
        _, wlo, whi = wilson(np.minimum(sx, sy), sy, z)
        lo, hi = np.fmin(lo, np.where(ok, wlo, np.nan)), np.fmax(hi, np.where(ok, whi, np.nan))
    return _out(r, lo, hi, scalar=scalar)


# --------------------------------------------------------------------------- polars helpers
def with_wilson(df: pl.DataFrame, successes: str, n: str, prefix: str = "",
                z: float = Z95) -> pl.DataFrame:
    """Add ``{prefix}rate``, ``{prefix}lo``, ``{prefix}hi`` (Wilson) from two count columns."""
    p, lo, hi = wilson(df[successes].to_numpy(), df[n].to_numpy(), z)
    return df.with_columns(pl.Series(f"{prefix}rate", np.atleast_1d(p)),
                           pl.Series(f"{prefix}lo", np.atleast_1d(lo)),
                           pl.Series(f"{prefix}hi", np.atleast_1d(hi)))


def with_diff(df: pl.DataFrame, s1: str, n1: str, s2: str, n2: str, prefix: str = "diff_",
              z: float = Z95) -> pl.DataFrame:
    """Add ``{prefix}rate``, ``{prefix}lo``, ``{prefix}hi``: s1/n1 - s2/n2 (Newcombe)."""
    d, lo, hi = diff_ci(df[s1].to_numpy(), df[n1].to_numpy(), df[s2].to_numpy(),
                        df[n2].to_numpy(), z)
    return df.with_columns(pl.Series(f"{prefix}rate", np.atleast_1d(d)),
                           pl.Series(f"{prefix}lo", np.atleast_1d(lo)),
                           pl.Series(f"{prefix}hi", np.atleast_1d(hi)))


def with_t_interval(df: pl.DataFrame, mean: str, sd: str, n: str, prefix: str = "mean_",
                    level: float = 0.95) -> pl.DataFrame:
    """Add ``{prefix}lo`` and ``{prefix}hi`` (t interval) next to an existing mean column."""
    _, lo, hi = t_interval(df[mean].to_numpy(), df[sd].fill_null(np.nan).to_numpy(),
                           df[n].to_numpy(), level)
    return df.with_columns(pl.Series(f"{prefix}lo", np.atleast_1d(lo)),
                           pl.Series(f"{prefix}hi", np.atleast_1d(hi)))


def win_rate_ci(successes, n, z: float = Z95) -> dict:
    """``{"win_rate", "ci_low", "ci_high"}`` with a Wilson interval: the shape of every
    rate in the --json summaries."""
    p, lo, hi = wilson(successes, n, z)
    return {"win_rate": p, "ci_low": lo, "ci_high": hi}
