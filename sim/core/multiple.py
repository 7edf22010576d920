"""Multiple-comparison control for the report's families of tests (every card, every seat,
every player count of one question).

The control is **Holm's step-down procedure** (family-wise error rate). Why Holm and not
Benjamini-Hochberg: a called imbalance is something a designer acts on (changes a card's
value, a seat rule), so one false call in a family is the error that costs; the tests of a
family share games (every card's delta is measured on the same games, every ablation on
the same baseline), and Holm is valid under any dependence between them, where BH needs
positive dependence; and with the families here (a few to a few hundred tests) Holm keeps
enough power for the effects a designer cares about (beyond the threshold).

Each test asks whether a quantity lies beyond ``centre ± threshold`` (the report's
decision rule). Its one-sided p-value comes from the test's own 95 % interval (the
half-width on the side facing the threshold as 1.96 standard errors), so a family of one
test calls exactly what the interval rule calls: the whole interval beyond the threshold
(p < 0.025). A family of m tests calls the tests whose Holm-adjusted p-value is below
0.025.
"""
from __future__ import annotations

import math

import numpy as np

Z95 = 1.959964
ALPHA = 0.025         # one-sided: the whole two-sided 95 % interval beyond the threshold
CONTROL = "Holm"
CONTROL_WORDS = ("Holm's step-down correction (family-wise error rate 2.5 % one-sided, "
                 "valid under any dependence between the tests)")


def p_beyond(est: float, lo: float, hi: float, centre: float, threshold: float,
             z: float = Z95) -> float:
    """One-sided p-value of "the quantity lies beyond centre ± threshold" (all fractions),
    from the estimate and its 95 % interval; nan without an interval."""
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (est, lo, hi)):
        return float("nan")
    dev = est - centre
    half = (est - lo) if dev >= 0 else (hi - est)
    distance = abs(dev) - threshold
    if half <= 0:
        return 0.0 if distance > 0 else 1.0
    se = half / z
    return 0.5 * math.erfc(distance / se / math.sqrt(2.0))


def holm(pvalues) -> np.ndarray:
    """Holm-adjusted p-values (nan stays nan and does not count as a test)."""
    p = np.asarray(pvalues, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = ok.size
    if m == 0:
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def family_size(pvalues) -> int:
    """How many tests a family holds (the ones with an interval)."""
    return int(np.count_nonzero(~np.isnan(np.asarray(pvalues, dtype=float))))
