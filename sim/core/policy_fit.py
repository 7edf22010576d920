"""Fitting a strategy's weight vector to a search player's recorded choices.

A strategy scores each option of a decision as ``weights . features`` and takes the best.
Read as a probability model -- the option is chosen with probability
``softmax(weights . features)`` over the decision's options -- the weights that make the
search's choices most likely (its cross-entropy) are a strategy that plays like the
search wherever its features can say why. The fit maximises that likelihood with an L2
penalty toward the base weights (the search's own base, in units of each weight's size,
as ``simulate tune`` measures steps):

    loss(w) = - sum over decisions d of log p_d(chosen_d)
              + l2 / 2 * sum over learned i of ((w_i - base_i) / scale_i) ** 2

with ``scale_i = max(1, |base_i|)``. It is convex in ``w``; Newton's method with a
backtracking line search solves it to a tight gradient, in NumPy, with no randomness:
the same records give the same weights bit for bit on one machine.

Why the choice and not the search's values: a decision's option values are win rates
over a few samples of the hidden cards (``n``), noisy and only comparable within the
decision (they move with the state's overall prospects); what the search settles is
which option it takes, and the strategy is a rule for taking one. So the target is
the choice (cross-entropy); the values decide which decisions carry a preference: a
decision whose played-out options all came out equal (the search took the base's first
option on a tie) says nothing the base does not, and is left out (``informative``).

Options the search listed but did not play out (``extra`` in the recording) stay in
their decision's softmax as options not chosen: the base ranked them below the ones
kept, and the fit keeps that unless the features say otherwise.

Only the weights of features the search decides are fitted (``learned``); the noise
draws, the other decisions' weights and Peer-to-Peer's phase switch stay the base's.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.core.search_kernel import (
    REC_BLOCK, REC_CHOSEN, REC_COUNT, REC_FIRST, N_DECISIONS, N_ROWS, Recording,
)

DEFAULT_L2 = 1.0
MAX_ITERATIONS = 100
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
    loss: float              # per decision, penalty included
    base_loss: float         # the base weights' loss on the same decisions
    agreement: float         # share of decisions whose chosen option the weights rank first
    base_agreement: float


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


def _segment_softmax(s, starts):
    heads = starts[:-1]
    counts = np.diff(starts)
    top = np.maximum.reduceat(s, heads)
    e = np.exp(s - np.repeat(top, counts))
    total = np.add.reduceat(e, heads)
    p = e / np.repeat(total, counts)
    log_total = np.log(total) + top
    return p, log_total


def fit_policy(decisions: Decisions, base: np.ndarray, learned: np.ndarray,
               l2: float = DEFAULT_L2) -> Fit:
    """The weights (module docstring) for ``decisions`` from ``base``, fitting the
    weights where ``learned`` is true."""
    base = np.asarray(base, dtype=np.float64)
    columns = np.flatnonzero(learned)
    n = decisions.count
    if n == 0 or len(columns) == 0:
        return Fit(base.copy(), n, 0, 0.0, 0.0, float("nan"), float("nan"))
    full_z = _design(decisions, len(base))
    base_scores = full_z @ base
    scale = np.maximum(1.0, np.abs(base[columns]))
    z = full_z[:, columns] * scale   # scores move by z @ theta, theta = (w - base) / scale
    starts = decisions.starts
    heads = starts[:-1]
    y = np.zeros(len(decisions.values))
    y[decisions.chosen] = 1.0

    def loss_of(theta):
        s = base_scores + z @ theta
        _, log_total = _segment_softmax(s, starts)
        nll = float((log_total - s[decisions.chosen]).sum())
        return nll + 0.5 * l2 * float(theta @ theta), s

    theta = np.zeros(len(columns))
    current, s = loss_of(theta)
    start_loss = current
    iterations = 0
    for iterations in range(1, MAX_ITERATIONS + 1):
        p, _ = _segment_softmax(s, starts)
        grad = z.T @ (p - y) + l2 * theta
        if np.abs(grad).max() <= GRADIENT_TOLERANCE * n:
            break
        u = np.add.reduceat(z * p[:, None], heads, axis=0)   # per decision: E_p[z]
        hess = (z * p[:, None]).T @ z - u.T @ u + l2 * np.eye(len(columns))
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while True:
            candidate, s_new = loss_of(theta - t * step)
            if candidate <= current - 1e-4 * t * float(grad @ step) or t < 1e-10:
                break
            t *= 0.5
        if candidate > current:
            break
        theta = theta - t * step
        improved = current - candidate
        current, s = candidate, s_new
        if improved <= 1e-12 * max(1.0, abs(current)):
            break
    weights = base.copy()
    weights[columns] = base[columns] + scale * theta
    return Fit(weights, n, iterations, current / n, start_loss / n,
               _agreement(full_z @ weights, decisions), _agreement(base_scores, decisions))


def _agreement(scores: np.ndarray, decisions: Decisions) -> float:
    """Share of decisions where the chosen option scores highest (the first of equals,
    as the strategies take it)."""
    starts = decisions.starts
    hits = 0
    for d in range(decisions.count):
        seg = scores[starts[d]:starts[d + 1]]
        hits += int(np.argmax(seg)) + starts[d] == decisions.chosen[d]
    return hits / decisions.count if decisions.count else float("nan")
