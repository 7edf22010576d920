"""Fitting a strategy's weight vector to a search player's recorded decisions.

A strategy scores each option of a decision as ``weights . features`` and takes the best.
A recorded decision (sim/core/recorded.py) holds its options' features, the mean result
of each option the search played out (its *value*: the share of the samples its side won
with it) and the search's choice. Two fits read them; ``simulate distill`` uses the
first by default:

- **By value** (``fit_values``): the weights that maximise the expected value of the
  strategy's own choice, read as ``softmax(sharpness * w . f)`` over each decision's
  options, summed over the decisions -- the strategy is taught to take the options
  that won in the search's playouts, and how much it gains or loses by a choice counts,
  not only which option was best. An option listed but not played out counts as the
  worst one played out (the base ranked it below all of those). The objective is smooth
  but not convex; L-BFGS climbs it from the base. ``sharpness`` sets how closely the
  softmax follows the argmax the strategy plays (measured on Peer-to-Peer, 4 players:
  3 gave the strongest strategy of 0.3, 1, 3, 10 and 30).
- **By choice** (``fit_choices``): the softmax cross-entropy of the search's choice,
  ``softmax(t * w . f)`` with a temperature ``t`` fitted alongside. It imitates which
  option the search took, whatever the margin. Measured on the same records (Peer-to-
  Peer, 4 players, 1,000 games of ``search:k=8,n=8`` over ``expert-v1``), its strategy
  was no stronger than its base (without the base's noise: 51.2 % of the decided games
  against ``expert-v1``, the base itself 52.9 %); the value fit's won 55.9 %. The
  choices carry less than the values: a choice made on a near tie weighs as much as a
  clear one, and what the features cannot explain flattens every weight.

Both keep the weights near the base with an L2 term in units of each weight's size (as
``simulate tune`` measures steps), ``l2 / 2 * sum ((w_i - base_i) / max(1, |base_i|))**2``,
fit only the weights of the decisions the search makes (``learned``; the noise draws,
the other decisions' weights and Peer-to-Peer's phase switch stay the base's), and use
NumPy only, with no randomness: the same records give the same weights bit for bit on
one machine. A decision whose played-out options all came out equal says nothing the
base does not (the search took the base's first option on a tie) and is left out
(``informative``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.core.search_kernel import (
    REC_BLOCK, REC_CHOSEN, REC_COUNT, REC_FIRST, N_DECISIONS, N_ROWS, Recording,
)

DEFAULT_L2 = 1.0
DEFAULT_SHARPNESS = 3.0
OBJECTIVES = ("value", "choice")


def fit_policy(decisions: "Decisions", base: np.ndarray, learned: np.ndarray, *,
               objective: str = "value", l2: float = DEFAULT_L2,
               sharpness: float = DEFAULT_SHARPNESS) -> "Fit":
    """``fit_values`` (objective "value") or ``fit_choices`` ("choice")."""
    if objective == "value":
        return fit_values(decisions, base, learned, l2, sharpness)
    if objective == "choice":
        return fit_choices(decisions, base, learned, l2)
    raise ValueError(f"unknown objective {objective!r}; expected one of {OBJECTIVES}")
MAX_ITERATIONS = 100         # Newton steps of one fit of the weights
MAX_ROUNDS = 20              # weights, then temperature, until the temperature settles
GRADIENT_TOLERANCE = 1e-8   # the largest gradient entry, per decision, at the optimum


@dataclass(frozen=True)
class Decisions:
    """Recorded decisions in one flat layout: option rows of decision ``d`` are
    ``starts[d] .. starts[d + 1] - 1`` of ``features`` (and ``values``), its block's
    first weight ``blocks[d]``, the chosen option's row ``chosen[d]``."""

    features: np.ndarray   # float64[rows, width]
    values: np.ndarray     # float64[rows]
    starts: np.ndarray     # int64[decisions + 1]
    blocks: np.ndarray     # int64[decisions]
    chosen: np.ndarray     # int64[decisions], a row index
    kinds: np.ndarray      # int64[decisions], the game's own decision kinds

    @property
    def count(self) -> int:
        return len(self.blocks)


def decisions_of(recordings: list[Recording]) -> Decisions:
    """The decisions of several recordings (in order), as one ``Decisions``."""
    from sim.core.search_kernel import REC_KIND

    feats, values, starts, blocks, chosen, kinds = [], [], [], [], [], []
    offset = 0
    for rec in recordings:
        d, rows = int(rec.n[N_DECISIONS]), int(rec.n[N_ROWS])
        table = rec.decisions[:d]
        feats.append(rec.features[:rows])
        values.append(rec.values[:rows])
        starts.append(table[:, REC_FIRST] + offset)
        blocks.append(table[:, REC_BLOCK])
        chosen.append(table[:, REC_FIRST] + table[:, REC_CHOSEN] + offset)
        kinds.append(table[:, REC_KIND])
        if d and not (table[:, REC_FIRST][1:] == (table[:, REC_FIRST] + table[:, REC_COUNT])[:-1]).all():
            raise ValueError("a recording's decisions must be contiguous")
        offset += rows
    width = recordings[0].features.shape[1] if recordings else 0
    cat = np.concatenate
    return Decisions(cat(feats) if feats else np.zeros((0, width)),
                     cat(values) if values else np.zeros(0),
                     np.append(cat(starts) if starts else np.zeros(0, np.int64), offset)
                     .astype(np.int64),
                     cat(blocks).astype(np.int64) if blocks else np.zeros(0, np.int64),
                     cat(chosen).astype(np.int64) if chosen else np.zeros(0, np.int64),
                     cat(kinds).astype(np.int64) if kinds else np.zeros(0, np.int64))


def informative(decisions: Decisions) -> np.ndarray:
    """Per decision: did the search prefer something? At least two options were played
    out and their values are not all equal."""
    v = decisions.values
    starts = decisions.starts
    keep = np.zeros(decisions.count, dtype=bool)
    for d in range(decisions.count):
        seen = v[starts[d]:starts[d + 1]]
        seen = seen[np.isfinite(seen)]
        keep[d] = len(seen) >= 2 and seen.max() > seen.min()
    return keep


def select(decisions: Decisions, keep: np.ndarray) -> Decisions:
    """The decisions where ``keep`` is true, in order."""
    idx = np.flatnonzero(keep)
    starts = decisions.starts
    counts = starts[idx + 1] - starts[idx]
    rows = (np.concatenate([np.arange(starts[d], starts[d + 1]) for d in idx])
            if len(idx) else np.zeros(0, np.int64))
    new_starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    return Decisions(decisions.features[rows], decisions.values[rows], new_starts,
                     decisions.blocks[idx], new_starts[:-1] + decisions.chosen[idx] - starts[idx],
                     decisions.kinds[idx])


@dataclass(frozen=True)
class Fit:
    weights: np.ndarray      # the fitted weight vector (the base's where not learned)
    decisions: int           # decisions fitted
    iterations: int
    loss: float              # per decision, penalty included (by value: minus the value)
    base_loss: float         # the base weights' loss on the same decisions
    agreement: float         # share of decisions whose chosen option the weights rank first
    base_agreement: float
    temperature: float = 1.0   # scores are read as t * w . f (by value: the sharpness)


def _design(decisions: Decisions, n_weights: int) -> np.ndarray:
    """Per option row, its features placed at the weights its decision's block scores
    them with: float64[rows, n_weights]."""
    width = decisions.features.shape[1]
    rows = len(decisions.values)
    counts = np.diff(decisions.starts)
    block_of_row = np.repeat(decisions.blocks, counts)
    full = np.zeros((rows, n_weights))
    for f in range(width):
        full[np.arange(rows), block_of_row + f] = decisions.features[:, f]
    return full


def segment_softmax(s, starts):
    """Per decision (rows ``starts[d] .. starts[d + 1] - 1``), the softmax of the scores
    ``s`` and the log of its normaliser: (probabilities per row, log-sum-exp per decision)."""
    heads = starts[:-1]
    counts = np.diff(starts)
    top = np.maximum.reduceat(s, heads)
    e = np.exp(s - np.repeat(top, counts))
    total = np.add.reduceat(e, heads)
    p = e / np.repeat(total, counts)
    log_total = np.log(total) + top
    return p, log_total


def fit_choices(decisions: Decisions, base: np.ndarray, learned: np.ndarray,
                l2: float = DEFAULT_L2) -> Fit:
    """The weights (module docstring) for ``decisions`` from ``base``, fitting the
    weights where ``learned`` is true, and the temperature ``t`` the choices are read
    with: the model is softmax(t * w . f), alternately fitted in ``w`` (convex: Newton)
    and in ``t`` (one number: Newton on log t) until ``t`` settles. The L2 term keeps
    ``w`` at the base's scale, so ``t`` takes up how sharply the search's choices
    follow the scores, and the strategy's noise keeps its weight relative to the rest."""
    base = np.asarray(base, dtype=np.float64)
    columns = np.flatnonzero(learned)
    n = decisions.count
    if n == 0 or len(columns) == 0:
        return Fit(base.copy(), n, 0, 0.0, 0.0, float("nan"), float("nan"), 1.0)
    full_z = _design(decisions, len(base))
    starts, chosen = decisions.starts, decisions.chosen
    scale = np.maximum(1.0, np.abs(base[columns]))
    theta = np.zeros(len(columns))
    temperature = 1.0
    start_loss = _penalised(full_z @ base, starts, chosen, theta, l2)
    iterations = 0
    for _ in range(MAX_ROUNDS):
        theta, steps = _fit_weights(temperature * full_z, base, columns, scale, starts,
                                    chosen, l2, theta)
        iterations += steps
        weights = base.copy()
        weights[columns] = base[columns] + scale * theta
        settled = base_temperature(full_z @ weights, starts, chosen)
        if abs(settled - temperature) <= 1e-6 * temperature:
            break
        temperature = settled
    weights = base.copy()
    weights[columns] = base[columns] + scale * theta
    loss = _penalised(temperature * (full_z @ weights), starts, chosen, theta, l2)
    return Fit(weights, n, iterations, loss / n, start_loss / n,
               _agreement(full_z @ weights, decisions), _agreement(full_z @ base, decisions),
               temperature)


def _penalised(scores, starts, chosen, theta, l2) -> float:
    _, log_total = segment_softmax(scores, starts)
    return float((log_total - scores[chosen]).sum()) + 0.5 * l2 * float(theta @ theta)


def _fit_weights(full_z, base, columns, scale, starts, chosen, l2, theta):
    """Newton's method with a backtracking line search on the penalised cross-entropy
    in theta = (w - base) / scale over the learned columns, from ``theta``; returns
    (theta, steps)."""
    n = len(starts) - 1
    base_scores = full_z @ base
    z = full_z[:, columns] * scale   # scores move by z @ theta
    heads = starts[:-1]
    y = np.zeros(full_z.shape[0])
    y[chosen] = 1.0
    s = base_scores + z @ theta
    current = _penalised(s, starts, chosen, theta, l2)
    steps = 0
    for steps in range(1, MAX_ITERATIONS + 1):
        p, _ = segment_softmax(s, starts)
        grad = z.T @ (p - y) + l2 * theta
        if np.abs(grad).max() <= GRADIENT_TOLERANCE * n:
            break
        u = np.add.reduceat(z * p[:, None], heads, axis=0)   # per decision: E_p[z]
        hess = (z * p[:, None]).T @ z - u.T @ u + l2 * np.eye(len(columns))
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while True:
            candidate_theta = theta - t * step
            s_new = base_scores + z @ candidate_theta
            candidate = _penalised(s_new, starts, chosen, candidate_theta, l2)
            if candidate <= current - 1e-4 * t * float(grad @ step) or t < 1e-10:
                break
            t *= 0.5
        if candidate > current:
            break
        improved = current - candidate
        theta, current, s = candidate_theta, candidate, s_new
        if improved <= 1e-12 * max(1.0, abs(current)):
            break
    return theta, steps


def base_temperature(scores: np.ndarray, starts: np.ndarray, chosen: np.ndarray) -> float:
    """The ``t`` that makes softmax(t * scores) fit the choices best (the base's scores;
    a 1-D convex problem, Newton's method on log t)."""
    log_t = 0.0
    for _ in range(MAX_ITERATIONS):
        t = math.exp(log_t)
        p, _ = segment_softmax(t * scores, starts)
        mean = np.add.reduceat(p * scores, starts[:-1])
        var = np.add.reduceat(p * scores * scores, starts[:-1]) - mean * mean
        grad_t = float((mean - scores[chosen]).sum())          # d NLL / d t
        curv_t = float(np.maximum(var, 0.0).sum())
        grad = grad_t * t                                       # d NLL / d log t
        curv = curv_t * t * t + grad_t * t
        if abs(grad) <= GRADIENT_TOLERANCE * len(chosen):
            break
        step = grad / curv if curv > 0 else math.copysign(1.0, grad)
        log_t -= max(-2.0, min(2.0, step))
    return math.exp(log_t)


def _agreement(scores: np.ndarray, decisions: Decisions) -> float:
    """Share of decisions where the chosen option scores highest (the first of equals, a
    score that is not a number never winning, as the strategies take it)."""
    if decisions.count == 0:
        return float("nan")
    return float(np.mean(first_choices(scores, decisions.starts) == decisions.chosen))


def played_out_values(decisions: Decisions) -> np.ndarray:
    """Each option's value, one the search did not play out counting as its decision's
    worst played-out one."""
    v = decisions.values
    worst = np.fmin.reduceat(np.where(np.isfinite(v), v, np.inf), decisions.starts[:-1])
    return np.where(np.isfinite(v), v, np.repeat(worst, np.diff(decisions.starts)))


def option_scores(decisions: Decisions, weights: np.ndarray) -> np.ndarray:
    """Each option's score under ``weights`` (its features at its decision's block); a
    score that is not a number is -inf, so it never wins (as in the strategies)."""
    width = decisions.features.shape[1]
    at = np.repeat(decisions.blocks, np.diff(decisions.starts))[:, None] + np.arange(width)
    scores = np.einsum("rf,rf->r", decisions.features, np.asarray(weights)[at])
    return np.where(np.isnan(scores), -np.inf, scores)


def first_choices(scores: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per decision, the row of its first highest-scoring option, a score that is not a
    number never winning (as the strategies take it)."""
    scores = np.where(np.isnan(scores), -np.inf, scores)
    heads, counts = starts[:-1], np.diff(starts)
    rows = np.arange(len(scores))
    best = np.repeat(np.maximum.reduceat(scores, heads), counts)
    return np.minimum.reduceat(np.where(scores == best, rows, len(rows)), heads)


def shortfall(decisions: Decisions, weights: np.ndarray) -> dict[int, tuple[int, int, float]]:
    """Where a policy's choices fall short of the search's, per decision kind: (decisions,
    those where the policy's first choice is not the search's, the value they lose in
    all: the mean result of the search's choice less that of the policy's). An option the
    search did not play out counts as its worst played-out one (as in the fit); a score
    that is not a number never wins (as in the strategies)."""
    if decisions.count == 0:
        return {}
    first = first_choices(option_scores(decisions, weights), decisions.starts)
    v = played_out_values(decisions)
    lost = v[decisions.chosen] - v[first]
    out = {}
    for kind in np.unique(decisions.kinds):
        mine = decisions.kinds == kind
        out[int(kind)] = (int(mine.sum()), int((first[mine] != decisions.chosen[mine]).sum()),
                          float(lost[mine].sum()))
    return out


# ----------------------------------------------------------------------------- by value
def fit_values(decisions: Decisions, base: np.ndarray, learned: np.ndarray,
               l2: float = DEFAULT_L2, sharpness: float = DEFAULT_SHARPNESS,
               sharpness_of: np.ndarray | None = None) -> Fit:
    """The weights that maximise the expected value of the policy's choice: per decision
    sum_i p_i v_i with p = softmax(sharpness * w . f) over its options, ``v`` the
    option's mean result (an option the search did not play out counts as its worst
    played-out one), minus the L2 term toward the base. ``sharpness_of``: per decision,
    instead of one ``sharpness``. L-BFGS from the base (the objective is smooth, not
    convex: the fit finds the improvement nearest the base)."""
    base = np.asarray(base, dtype=np.float64)
    columns = np.flatnonzero(learned)
    n = decisions.count
    if n == 0 or len(columns) == 0:
        return Fit(base.copy(), n, 0, 0.0, 0.0, float("nan"), float("nan"), 1.0)
    full_z = _design(decisions, len(base))
    starts = decisions.starts
    heads, counts = starts[:-1], np.diff(starts)
    beta = np.repeat(np.full(n, sharpness) if sharpness_of is None else sharpness_of, counts)
    v = played_out_values(decisions)
    v = v - np.repeat(np.add.reduceat(v, heads) / counts, counts)   # per decision: centred
    scale = np.maximum(1.0, np.abs(base[columns]))
    z = full_z[:, columns] * scale
    base_scores = full_z @ base

    def value_and_grad(theta):
        s = beta * (base_scores + z @ theta)
        p, _ = segment_softmax(s, starts)
        ev = np.add.reduceat(p * v, heads)
        gap = v - np.repeat(ev, counts)
        grad = -(z * (beta * p * gap)[:, None]).sum(axis=0) + l2 * theta
        return -float(ev.sum()) + 0.5 * l2 * float(theta @ theta), grad

    theta, steps = _lbfgs(value_and_grad, np.zeros(len(columns)))
    weights = base.copy()
    weights[columns] = base[columns] + scale * theta
    loss, _ = value_and_grad(theta)
    start, _ = value_and_grad(np.zeros(len(columns)))
    return Fit(weights, n, steps, loss / n, start / n, _agreement(full_z @ weights, decisions),
               _agreement(base_scores, decisions), sharpness)


def _lbfgs(f, x, memory: int = 10, iterations: int = 500):
    """Minimise ``f`` (returning (value, gradient)) from ``x``: L-BFGS with a
    backtracking line search; returns (x, steps)."""
    fx, g = f(x)
    ss, ys = [], []
    steps = 0
    for steps in range(1, iterations + 1):
        if np.abs(g).max() <= 1e-9 * max(1.0, abs(fx)):
            break
        q = g.copy()
        alphas = []
        for s_, y_ in reversed(list(zip(ss, ys))):
            a = float(s_ @ q) / float(y_ @ s_)
            alphas.append(a)
            q -= a * y_
        if ss:
            q *= float(ss[-1] @ ys[-1]) / float(ys[-1] @ ys[-1])
        for (s_, y_), a in zip(zip(ss, ys), reversed(alphas)):
            b = float(y_ @ q) / float(y_ @ s_)
            q += s_ * (a - b)
        d = -q
        if float(d @ g) >= 0:
            d = -g
        t = 1.0
        while True:
            x_new = x + t * d
            f_new, g_new = f(x_new)
            if f_new <= fx + 1e-4 * t * float(g @ d) or t < 1e-12:
                break
            t *= 0.5
        if f_new > fx:
            break
        s_, y_ = x_new - x, g_new - g
        if float(s_ @ y_) > 1e-12:
            ss.append(s_)
            ys.append(y_)
            if len(ss) > memory:
                ss.pop(0)
                ys.pop(0)
        improved = fx - f_new
        x, fx, g = x_new, f_new, g_new
        if improved <= 1e-12 * max(1.0, abs(fx)):
            break
    return x, steps
