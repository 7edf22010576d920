"""Attribution by counterfactual replays on common random numbers.

A game declares its *swaps* (``Game.swaps``, a tuple of :class:`Swap`): changes of a
configuration that exchange what one side has for what another side has and leave the
rules alone, keeping the random numbers, so game ``i`` of a seed deals the same cards
(Peer-to-Peer: the teams' starting cards; who gets the first marker. PLAI: who moves
first). A swap's *orbit* is the configuration and its variants (``Swap.variants``): for
an exchange of two sides, the configuration and the swapped one; for a rotation of n
seats, all n rotations.

An answer is a :class:`Measure`, a ratio of per-game sums R = sum(num) / sum(den) with an
even point (team A's share of the games won by a team, 50 %). Its edge is E = R - even.
If everything the swap moves explains the edge, the orbit's mean of R is the even point;
so the swap *accounts for* A = R - mean(R over the orbit) of it: (E - E_swapped) / 2 for
an exchange of two sides. A swap that explains nothing leaves R unchanged over its orbit
(A = 0); one that explains everything turns E into -E (A = E).

Intervals: every configuration plays the same games (the same seed and game indices), so
A is estimated game by game, paired: the delta method with the game as the unit, the
influence of a ratio R_k on game i being (num_ki - R_k den_ki) / mean(den_k), summed over
the orbit with A's coefficients; the share A / E likewise (:func:`contrast`). A swap
whose variants play the very same games (a card file whose two starting decks are copies)
gives A = 0 with an interval of zero width.

A ``compare`` swap (Peer-to-Peer's odd_team_compensation at 3 and 5 players) is not an
exchange: it shows the answer under each alternative, with the paired difference.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

from sim.core.stats import Z95

EXCHANGE, COMPARE = "exchange", "compare"


@dataclass(frozen=True)
class Measure:
    """A ratio of per-game sums: ``num`` and ``den`` are polars expressions over a run's
    games table (one value per game); ``even`` is the balanced value. ``key`` is the
    answer's stable key (answers.json: team_balance, seat_balance, ...); ``above`` and
    ``below`` name whom an edge favours ("to team A", "against seat 0")."""

    key: str
    num: Any
    den: Any
    even: float
    above: str = ""
    below: str = ""
    label: str = ""      # what it measures, in words ("team A's share of ...")

    def arrays(self, games) -> tuple[np.ndarray, np.ndarray]:
        """(num, den) per game of a polars DataFrame, in its row order."""
        t = games.select(self.num.cast(float).alias("n"), self.den.cast(float).alias("d"))
        return t["n"].to_numpy(), t["d"].to_numpy()


@dataclass(frozen=True)
class Swap:
    """One counterfactual a game declares (module docstring).

    ``variants(config)`` -> [(label, config)]: the other members of the orbit (empty when
    the swap does not apply to this configuration). ``explains``: the answer keys whose
    edge it is a candidate cause of. ``advice``: what a designer can change about it."""

    cause: str                    # stable key: start_cards, first_marker, turn_order ...
    words: str                    # "the starting cards"
    explains: tuple[str, ...]
    variants: Callable[[Any], list[tuple[str, Any]]]
    kind: str = EXCHANGE
    advice: str = ""


@dataclass
class Cause:
    """What one swap says about one answer (answers.json's ``causes`` entries)."""

    cause: str
    words: str
    kind: str
    share: float            # exchange: the points of the edge it accounts for, counted in
    lo: float               # the edge's direction (negative: it works against the edge);
    hi: float               # compare: the answer's change under the variant
    fraction: float = float("nan")      # exchange: share / edge
    fraction_lo: float = float("nan")
    fraction_hi: float = float("nan")
    value: float = float("nan")         # compare: the answer under the variant
    variant: str = ""
    edge: float = float("nan")          # the edge on the replayed games (its size)
    edge_lo: float = float("nan")       # its 95 % interval, in the edge's direction
    edge_hi: float = float("nan")
    games: int = 0                      # games replayed (all variants)
    seconds: float = 0.0
    advice: str = ""
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        out = {"cause": self.cause, "share": self.share, "lo": self.lo, "hi": self.hi,
               "words": self.sentence(), "label": self.words, "kind": self.kind,
               "games": self.games,
               "seconds": round(self.seconds, 3)}
        if self.kind == EXCHANGE:
            out.update(fraction=self.fraction, fraction_lo=self.fraction_lo,
                       fraction_hi=self.fraction_hi, edge=abs(self.edge),
                       edge_lo=self.edge_lo, edge_hi=self.edge_hi)
        else:
            out.update(value=self.value, variant=self.variant)
        if self.advice:
            out["advice"] = self.advice
        return out

    def sentence(self) -> str:
        if self.kind == COMPARE:
            # the replayed games are a sample of the run's: the rate under another mode
            # and the run's own on them can differ from the pooled rows by sampling alone
            return (f"under {self.variant}: {100 * self.value:.1f} % on the {self.games:,} "
                    f"replayed games (a change of {100 * self.share:+.1f} points "
                    f"[{100 * self.lo:+.1f}, {100 * self.hi:+.1f}] against the same games "
                    "as played)")
        frac = fraction_text(self.fraction, self.fraction_lo, self.fraction_hi,
                             self.edge_lo, self.edge_hi)
        frac = f" ({frac})" if frac else ""
        return (f"{self.words}: {100 * self.share:.1f} points [{100 * self.lo:.1f}, "
                f"{100 * self.hi:.1f}] of the {100 * abs(self.edge):.1f}-point edge of the "
                f"replayed games{frac}")


def fraction_text(fraction: float, lo: float, hi: float, edge_lo: float = float("nan"),
                  edge_hi: float = float("nan")) -> str:
    """An exchange's fraction of the edge, "84 % [61, 107]"; "" when unknown. When the
    exchange evens the sides in every replayed game (the interval has no width: e.g. the
    turn order rotated through every seat when every seat plays the same strategy), it is
    the only difference between them, which the words say instead of "100 % [100, 100]".
    When the replayed games' edge (``edge_lo`` .. ``edge_hi``) is within noise, a share of
    it is a ratio over almost nothing ("159 % [-129, 447]"): the words say so instead. An
    exchange worth clearly more than the whole edge ("1282 % [181, 2382]") means other
    differences pull the other way: the words say that, with how many times the edge."""
    if not np.isfinite(fraction):
        return ""
    if edge_lo <= 0 <= edge_hi:
        return ("no share: the edge of the replayed games is within noise "
                f"[{100 * edge_lo:.1f}, {100 * edge_hi:.1f}] points")
    if hi - lo < 1e-9 and abs(fraction - 1) < 1e-9:
        return ("all of it in every game: exchanging it evens the sides game by game, so it "
                "is the only difference between them here")
    if lo > 1:
        return (f"more than the whole edge ({fraction:.1f} times it, [{lo:.1f}, {hi:.1f}]): "
                "other differences between the sides pull the other way")
    return f"{100 * fraction:.0f} % [{100 * lo:.0f}, {100 * hi:.0f}]"


# ----------------------------------------------------------------------------- statistics
def ratio_influence(num: np.ndarray, den: np.ndarray) -> tuple[float, np.ndarray]:
    """R = sum(num) / sum(den) and each game's influence on it (num - R den) / mean(den)."""
    total = den.sum()
    if total <= 0:
        return float("nan"), np.zeros_like(num)
    r = float(num.sum() / total)
    return r, (num - r * den) / den.mean()


def contrast(parts: Sequence[tuple[np.ndarray, np.ndarray]], coefs: Sequence[float],
             even: float | None = None, z: float = Z95) -> dict[str, float]:
    """sum_k coefs[k] R_k over ratios measured on the same games (paired), with its
    delta-method interval; with ``even``, also its fraction of the first ratio's edge
    (R_0 - even), with an interval. Keys: est, lo, hi (and fraction, fraction_lo/_hi)."""
    ratios, influences = zip(*(ratio_influence(n, d) for n, d in parts))
    n = len(influences[0])
    est = float(sum(c * r for c, r in zip(coefs, ratios)))
    psi = sum(c * f for c, f in zip(coefs, influences))
    se = float(np.std(psi, ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    out = {"est": est, "lo": est - z * se, "hi": est + z * se}
    if even is not None:
        edge = ratios[0] - even
        se_e = float(np.std(influences[0], ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
        out.update(edge_lo=edge - z * se_e, edge_hi=edge + z * se_e)
        if edge != 0 and np.isfinite(edge):
            frac = est / edge
            psi_f = (psi - frac * influences[0]) / edge
            se_f = float(np.std(psi_f, ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
            out.update(fraction=frac, fraction_lo=frac - z * se_f, fraction_hi=frac + z * se_f)
    return out


# ----------------------------------------------------------------------------- replays
def replay(config, seed: int, count: int, threads: int):
    """Games 0 .. count-1 of ``seed`` under ``config`` (polars DataFrame, by game index)."""
    return config.run_chunk(seed, 0, count, threads)


def applicable(swaps: Sequence[Swap], key: str, config) -> list[tuple[Swap, list]]:
    """(swap, its variants) of the swaps that explain answer ``key`` for ``config``."""
    out = []
    for swap in swaps:
        if key in swap.explains:
            variants = swap.variants(config)
            if variants:
                out.append((swap, variants))
    return out


Replayed = Callable[[Swap, str, Any, int], tuple[np.ndarray, np.ndarray, float]]


@dataclass(frozen=True)
class Source:
    """One run's games to replay: ``original`` holds games 0 .. len(original)-1 of
    ``config`` from ``seed`` (a polars DataFrame by game index, e.g. read from the run);
    ``play(swap, label, variant, count)`` -> (num, den, seconds) of the measure on games
    0 .. count-1 of the variant and the seconds they took (None: replayed here at once; a
    report plays them in blocks it can keep when stopped)."""

    config: Any
    seed: int
    original: Any
    play: Replayed | None = None


def variant_labels(swaps: Sequence[Swap], key: str, config) -> tuple:
    """The swaps and variant labels explaining ``key`` for ``config``: sources whose
    labels are equal can be pooled."""
    return _orbit_labels(applicable(swaps, key, config))


def _orbit_labels(orbit: list) -> tuple:
    """(cause, variant labels) of each (swap, variants) of ``orbit`` (``applicable``)."""
    return tuple((swap.cause, tuple(label for label, _ in variants))
                 for swap, variants in orbit)


def explain(config, seed: int, original, measure: Measure, swaps: Sequence[Swap],
            threads: int = 1, z: float = Z95, play: Replayed | None = None) -> list[Cause]:
    """What each applicable swap says about ``measure`` on games 0 .. len(original)-1 of
    ``seed`` (one Source: see there). Every variant replays the same games."""
    return explain_pooled([Source(config, seed, original, play)], measure, swaps, threads, z)


def explain_pooled(sources: Sequence[Source], measure: Measure, swaps: Sequence[Swap],
                   threads: int = 1, z: float = Z95) -> list[Cause]:
    """What each applicable swap says about ``measure`` on the games of every source, as
    one sample (an answer pooled from several runs: other seeds, or other card files
    merged on purpose): each source's games are replayed under its own variants of the
    swap, paired game by game with its own games, and the pairs of all sources are
    pooled, the game the unit. The sources must have equal ``variant_labels``."""
    # per source: the swaps that apply and their variants, built once
    orbits = [applicable(swaps, measure.key, s.config) for s in sources]
    labels = {_orbit_labels(orbit) for orbit in orbits}
    if len(labels) != 1:
        raise ValueError(f"sources with different swap variants cannot be pooled: {labels}")

    def replayed_here(seed):
        def replayed(swap, label, variant, n):
            started = time.perf_counter()
            num, den = measure.arrays(replay(variant, seed, n, threads))
            return num, den, time.perf_counter() - started
        return replayed

    def joined(parts):
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    plays = [s.play or replayed_here(s.seed) for s in sources]
    count = sum(s.original.height for s in sources)
    base = joined([measure.arrays(s.original) for s in sources])
    causes = []
    for i, (swap, variants) in enumerate(orbits[0]):
        tables = []
        for k, (label, _) in enumerate(variants):
            # variant k of swap i, each source's own, on that source's games
            played = [play(swap, label, orbit[i][1][k][1], s.original.height)
                      for s, play, orbit in zip(sources, plays, orbits)]
            tables.append((label, (*joined(played), sum(p[2] for p in played))))
        seconds = sum(played[2] for _, played in tables)
        parts = [played[:2] for _, played in tables]
        games = count * len(tables)
        if swap.kind == EXCHANGE:
            k = len(parts) + 1
            c = contrast([base, *parts], [1 - 1 / k] + [-1 / k] * len(parts), measure.even, z)
            edge = ratio_influence(*base)[0] - measure.even
            if edge < 0:   # points counted in the edge's direction
                c.update(est=-c["est"], lo=-c["hi"], hi=-c["lo"],
                         edge_lo=-c["edge_hi"], edge_hi=-c["edge_lo"])
            causes.append(Cause(swap.cause, swap.words, EXCHANGE, c["est"], c["lo"], c["hi"],
                                c.get("fraction", float("nan")),
                                c.get("fraction_lo", float("nan")),
                                c.get("fraction_hi", float("nan")), edge=edge,
                                edge_lo=c["edge_lo"], edge_hi=c["edge_hi"],
                                games=games, seconds=seconds, advice=swap.advice))
        else:
            for (label, _), part in zip(tables, parts):
                c = contrast([part, base], [1.0, -1.0], None, z)
                value = ratio_influence(*part)[0]
                causes.append(Cause(swap.cause, swap.words, COMPARE, c["est"], c["lo"],
                                    c["hi"], value=value, variant=label, games=count,
                                    seconds=seconds / len(tables), advice=swap.advice))
    return causes


def variant_count(swaps: Sequence[Swap], key: str, config) -> int:
    """How many replays of each game explaining ``key`` takes (0: nothing to replay)."""
    return sum(len(variants) for _, variants in applicable(swaps, key, config))


def main_cause(causes: Sequence[Cause]) -> Cause | None:
    """The exchange that accounts for the most of the edge, when its interval lies above 0."""
    found = [c for c in causes if c.kind == EXCHANGE and c.lo > 0]
    return max(found, key=lambda c: c.share, default=None)


def sample_size(games: int, replays: int, fraction: float = 1.0, floor: int = 2000) -> int:
    """How many games each of ``replays`` variants replays so that all of them together
    take about ``fraction`` of the run's own time (the run played ``games``; a replay plays
    as fast on the same machine and threads): games * fraction / replays, at least
    ``floor`` (a second or so), at most the run's games."""
    if replays <= 0 or games <= 0:
        return 0
    return int(min(games, max(floor, games * fraction / replays)))


def explain_run(config, seed: int, games, measure: Measure, swaps: Sequence[Swap], *,
                fraction: float = 1.0, threads: int = 1,
                count: int | None = None) -> tuple[list[Cause], int]:
    """The causes of ``measure``'s edge in a run of ``config`` (``games``: its table, a
    polars LazyFrame or DataFrame with ``game_index``), replaying its lowest game indices
    within ``fraction`` of its time (or ``count`` games). Returns (causes, games replayed
    per variant); ([], 0) when no swap applies or the run lacks those games."""
    import polars as pl

    replays = variant_count(swaps, measure.key, config)
    total = games.select(pl.len()).collect().item() if isinstance(games, pl.LazyFrame) \
        else games.height
    m = count if count is not None else sample_size(total, replays, fraction)
    m = min(m, total)
    if not replays or m < 2:
        return [], 0
    frame = games.lazy() if isinstance(games, pl.DataFrame) else games
    original = frame.filter(pl.col("game_index") < m).sort("game_index").collect()
    if original.height != m:   # a resumed or partial run without games 0 .. m-1
        return [], 0
    return explain(config, seed, original, measure, swaps, threads), m
