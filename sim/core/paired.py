"""Two sides that played the same games: a baseline and an edit on the same seed and game
indices (common random numbers), compared game by game.

One module for both comparisons of the project: the workbench's live one
(sim/workbench/compare.py, chunk after chunk as the games land) and ``simulate compare`` of
two finished runs (sim/studies/compare.py). Both read the games with ``GameOutcomes``,
tally them with ``PairedTally`` and give the same intervals and the same changed games.

Reading a table of games (``GameOutcomes``), through the game's description only:

- **headline indicators**: for headline h (a rate of the description's ``headline_counts``)
  and game i, whether game i counts towards h. Each distinct combination of the read
  columns is counted by ``headline_counts`` on one row, and a check makes sure the
  indicators add up to the description's counts of the whole table;
- **the outcome kind** of every game: its name in the game's ``outcome_codes`` (the
  ``outcome_column``), told apart by the headlines it counts towards: "team A win",
  "all-lose", "draw" (Peer-to-Peer), "seat 2 win", "maintainers win", "stalemate" (PLAI);
  an outcome the headline does not name is added in brackets ("team A win (solo_win)").

Paired difference: d_i = [edit game i has h] - [baseline game i has h]. Both sides play
game i from the same random stream, so most games agree and the variance of the mean of d
is far below that of two independent runs. Its interval is mean(d) +- z * sd(d) / sqrt(n)
(the sample sd; d is -1, 0 or 1, so the sum of d and the number of games where the sides
differ, the discordant games, are all it needs).

Balance measures (``PairedRatio``): a ratio of per-game sums such as team A's share of the
games won by a team, on both sides, and its paired difference by the delta method; a
``PairedTally`` given the game's measures tallies them on the games it aligns for its
headlines.

Changed games: the games whose outcome kind differs between the sides, grouped by how they
changed ("team A win -> all-lose"), with their game indices (``PairedTally.changed``,
``PairedTally.changed_indices``).
"""
from __future__ import annotations

import math
import re
from typing import Any, Mapping, Sequence

import numpy as np

from sim.core.stats import wilson

RATE_SUFFIX = " rate"


def _words(text: str) -> list[str]:
    return [word for word in re.split(r"[\s_\-]+", text.lower()) if word]


def kind_label(outcome: str, headlines: Sequence[str]) -> str:
    """The name of an outcome kind: the headlines a game counts towards without " rate"
    ("team A win"), or the outcome's name when it counts towards none ("draw"); the
    outcome's name is added in brackets when the headlines do not say it."""
    if not headlines:
        return outcome
    text = " + ".join(h[:-len(RATE_SUFFIX)] if h.endswith(RATE_SUFFIX) else h for h in headlines)
    return text if set(_words(outcome)) <= set(_words(text)) else f"{text} ({outcome})"


class GameOutcomes:
    """How one game reads a table of its games (one row per game): headline indicators and
    the outcome kind of every row. The game is reached only through its description, all read
    here. ``kinds=False`` reads the headlines only (no outcome fields needed)."""

    def __init__(self, game: Any, players: int, kinds: bool = True):
        self.players = int(players)
        self.count = game.headline_counts
        self.headline_columns = tuple(game.headline_columns)
        self.outcome_column = game.outcome_column if kinds else None
        self.outcome_names = ({int(code): str(name)
                               for name, code in game.outcome_codes.items()}
                              if kinds else {})
        extra = (self.outcome_column,) if kinds else ()
        self.columns = tuple(dict.fromkeys((*self.headline_columns, *extra)))
        self.kinds: list[str] = []           # kind id -> label, in order of first sight
        self._kind_ids: dict[str, int] = {}

    def kind_id(self, label: str) -> int:
        if label not in self._kind_ids:
            self._kind_ids[label] = len(self.kinds)
            self.kinds.append(label)
        return self._kind_ids[label]

    def read(self, games) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """({headline: int8[rows]} whether each row counts towards it, int32[rows] the
        outcome kind ids (``self.kinds``); all -1 when reading headlines only)."""
        table = games.select(self.headline_columns)
        rows = games.height
        kinds = np.full(rows, -1, dtype=np.int32)
        if rows == 0:
            return {name: np.zeros(0, dtype=np.int8)
                    for name in self.count(table, self.players)}, kinds
        values = np.stack([games[c].to_numpy().astype(np.int64) for c in self.columns], axis=1)
        _, first, inverse = np.unique(values, axis=0, return_index=True, return_inverse=True)
        inverse = np.asarray(inverse).reshape(-1)
        hits: dict[str, np.ndarray] = {}
        combo_kind = np.full(len(first), -1, dtype=np.int32)
        for combo, row in enumerate(first):
            counted = self.count(table[int(row):int(row) + 1], self.players)
            for name, hit in counted.items():
                hits.setdefault(name, np.zeros(len(first), dtype=np.int8))[combo] = 1 if hit else 0
            if self.outcome_column is not None:
                code = int(values[row, self.columns.index(self.outcome_column)])
                outcome = self.outcome_names.get(code, f"{self.outcome_column}={code}")
                combo_kind[combo] = self.kind_id(
                    kind_label(outcome, [name for name, hit in counted.items() if hit]))
        indicators = {name: hit[inverse] for name, hit in hits.items()}
        whole = self.count(table, self.players)
        if {name: int(v.sum()) for name, v in indicators.items()} != {
                k: int(v) for k, v in whole.items()}:
            raise RuntimeError("headline_counts does not count game by game; a paired "
                               "comparison needs headline_counts that sums one indicator per game")
        return indicators, combo_kind[inverse]


def headline_indicators(game: Any, games, players: int) -> dict[str, np.ndarray]:
    """{headline: int8[rows]} whether each game (row of ``games``, a polars DataFrame with
    the headline columns) counts towards that headline."""
    return GameOutcomes(game, players, kinds=False).read(games)[0]


def paired_interval(sum_d: int, sum_d2: int, n: int, z: float) -> dict[str, float]:
    """Mean of d in [-1, 1] with its interval (sample variance, normal approximation);
    pp = percentage points."""
    if n < 2:
        return {"mean": math.nan, "lo": math.nan, "hi": math.nan, "width_pp": math.inf}
    mean = sum_d / n
    variance = max(0.0, (sum_d2 - n * mean * mean) / (n - 1))
    half = z * math.sqrt(variance / n)
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "width_pp": 200 * half}


def _rate(count: int, n: int, z: float) -> dict[str, float]:
    p, lo, hi = wilson(count, n, z)
    return {"rate": float(p), "lo": float(lo), "hi": float(hi)}


class PairedTally:
    """The paired tallies of one player count: both sides' headline counts, the sums of
    the paired differences, both sides' outcome kinds and the games that changed kind.
    Memory: a few numbers per headline and kind, plus the indices of the changed games."""

    def __init__(self, outcomes: GameOutcomes, measures: Sequence[Any] = (),
                 also: Sequence[Any] = ()):
        self.outcomes = outcomes
        # the balance measures, tallied on the same aligned games (``balance_rows``)
        self.ratios = [PairedRatio(measure) for measure in measures]
        # more paired tallies of the same games, each with ``columns`` and
        # ``add_aligned(base, edit)`` (sim.core.loss_causes.PairedLossCauses)
        self.also = list(also)
        self.columns = tuple(dict.fromkeys(
            (*outcomes.columns, *(c for ratio in self.ratios for c in ratio.columns),
             *(c for tally in self.also for c in tally.columns))))
        self.n = 0
        self.base: dict[str, int] = {}
        self.edit: dict[str, int] = {}
        self.sum_d: dict[str, int] = {}
        self.discordant: dict[str, int] = {}   # sum of d^2: games where the sides differ
        self.kind_counts: dict[str, dict[int, int]] = {"baseline": {}, "edit": {}}
        self._changed: dict[tuple[int, int], list[np.ndarray]] = {}

    def add(self, base, edit) -> int:
        """Tally the games of ``base`` and ``edit`` (polars tables with ``game_index`` and
        the game's outcome columns, in any order); a game on one side only is left out.
        Returns the number of games paired."""
        b, e = _aligned(base.select("game_index", *self.columns),
                        edit.select("game_index", *self.columns))
        for ratio in (*self.ratios, *self.also):
            ratio.add_aligned(b, e)
        base_hits, base_kinds = self.outcomes.read(b)
        edit_hits, edit_kinds = self.outcomes.read(e)
        self.n += b.height
        for name in base_hits:
            bh = base_hits[name].astype(np.int64)
            eh = edit_hits[name].astype(np.int64)
            d = eh - bh
            self.base[name] = self.base.get(name, 0) + int(bh.sum())
            self.edit[name] = self.edit.get(name, 0) + int(eh.sum())
            self.sum_d[name] = self.sum_d.get(name, 0) + int(d.sum())
            self.discordant[name] = self.discordant.get(name, 0) + int((d != 0).sum())
        for side, kinds in (("baseline", base_kinds), ("edit", edit_kinds)):
            found, counts = np.unique(kinds, return_counts=True)
            for kind, count in zip(found.tolist(), counts.tolist()):
                self.kind_counts[side][kind] = self.kind_counts[side].get(kind, 0) + count
        moved = base_kinds != edit_kinds
        if moved.any():
            index = b["game_index"].to_numpy()[moved]
            pairs = base_kinds[moved].astype(np.int64) << 32 | edit_kinds[moved].astype(np.int64)
            for pair in np.unique(pairs).tolist():
                key = (pair >> 32, pair & 0xFFFFFFFF)
                self._changed.setdefault(key, []).append(index[pairs == pair])
        return b.height

    # -- what a page, a command or a viewer shows
    def rows(self, z: float) -> list[dict[str, Any]]:
        """Per headline: both sides' rates and the paired difference with intervals at
        ``z``, and the number of games where the sides differ for it."""
        return [{"headline": name, "baseline": _rate(self.base[name], self.n, z),
                 "edit": _rate(self.edit[name], self.n, z),
                 "difference": paired_interval(self.sum_d[name], self.discordant[name],
                                               self.n, z),
                 "discordant": self.discordant[name]} for name in self.base]

    def balance_rows(self, z: float) -> list[dict[str, Any]]:
        """Per balance measure: both sides' values and the paired difference at ``z``
        (``PairedRatio.row``)."""
        return [ratio.row(z) for ratio in self.ratios]

    def changed_indices(self) -> dict[tuple[str, str], np.ndarray]:
        """{(baseline kind, edit kind): the sorted game indices that changed so}, most
        games first: what a list of changed games or a game viewer opens."""
        labels = self.outcomes.kinds
        found = {(labels[a], labels[b]): np.sort(np.concatenate(parts))
                 for (a, b), parts in self._changed.items()}
        return dict(sorted(found.items(), key=lambda item: (-len(item[1]), item[0])))

    def changed(self, shown: int | None = None) -> list[dict[str, Any]]:
        """The changed games by kind: [{"from", "to", "count", "games": the first
        ``shown`` indices (all when None)}], most games first."""
        return [{"from": a, "to": b, "count": int(len(games)),
                 "games": games[:shown].tolist() if shown is not None else games.tolist()}
                for (a, b), games in self.changed_indices().items()]

    def changed_count(self) -> int:
        return int(sum(len(part) for parts in self._changed.values() for part in parts))

    def outcome_counts(self) -> dict[str, dict[str, int]]:
        """{"baseline": {kind: games}, "edit": {kind: games}}, kinds in order of first sight."""
        labels = self.outcomes.kinds
        return {side: {labels[k]: counts[k] for k in sorted(counts)}
                for side, counts in self.kind_counts.items()}


class PairedRatio:
    """A balance measure (sim.core.attribution.Measure: R = sum(num) / sum(den), e.g. team
    A's share of the games won by a team) on both sides of the same games, and its paired
    difference R_edit - R_baseline with a delta-method interval, the game as the unit, as
    attribution's ``contrast`` gives it: game i's influence psi_i = (num_e,i - R_e den_e,i)
    / mean(den_e) - (num_b,i - R_b den_b,i) / mean(den_b), a fixed combination of the
    game's four values, so the sums of those values and of their pairwise products are all
    it needs (memory flat in games)."""

    def __init__(self, measure: Any):
        self.measure = measure
        roots = [*measure.num.meta.root_names(), *measure.den.meta.root_names()]
        self.columns = tuple(dict.fromkeys(roots))
        self.n = 0
        self.sums = np.zeros(4)            # num_b, den_b, num_e, den_e
        self.products = np.zeros((4, 4))   # their pairwise products, summed

    def add(self, base, edit) -> None:
        """Tally the games both tables hold (polars, ``game_index`` and ``columns``, in
        any order)."""
        self.add_aligned(*_aligned(base.select("game_index", *self.columns),
                                   edit.select("game_index", *self.columns)))

    def add_aligned(self, base, edit) -> None:
        """Tally two tables that hold the same games in the same order (``PairedTally``
        aligns them once for all its measures)."""
        x = np.stack([*self.measure.arrays(base), *self.measure.arrays(edit)])
        self.n += x.shape[1]
        self.sums += x.sum(axis=1)
        self.products += x @ x.T

    SIDE_AT = {"baseline": 0, "edit": 2}   # a side's numerator in sums and products

    def side(self, name: str) -> tuple[float, float]:
        """(summed numerator, summed denominator) of side "baseline" or "edit"."""
        at = self.SIDE_AT[name]
        return float(self.sums[at]), float(self.sums[at + 1])

    def side_value(self, name: str, z: float) -> dict[str, float]:
        """One side's value with its interval at ``z``: Wilson's, as the run's summary
        gives it, when the measure counts games (whole sums); else the delta method on the
        game's two values (a measure that counts a draw as half a game, say)."""
        num, den = self.side(name)
        if num.is_integer() and den.is_integer():
            return _rate(int(num), int(den), z)
        nan = {"rate": math.nan, "lo": math.nan, "hi": math.nan}
        if self.n < 2 or den <= 0:
            return nan
        at = self.SIDE_AT[name]
        r, m = num / den, den / self.n
        psi = np.array([1 / m, -r / m])        # game i's influence on R: psi . (num_i, den_i)
        block = self.products[at:at + 2, at:at + 2]
        half = z * math.sqrt(max(0.0, float(psi @ block @ psi)) / (self.n - 1) / self.n)
        return {"rate": r, "lo": r - half, "hi": r + half}

    def row(self, z: float) -> dict[str, Any]:
        """Both sides' values (``side_value``) and the paired difference with its
        interval at ``z``."""
        num_b, den_b, num_e, den_e = self.sums
        out = {"measure": self.measure.key, "label": self.measure.label or self.measure.key,
               "even": self.measure.even,
               "baseline": self.side_value("baseline", z), "edit": self.side_value("edit", z),
               "difference": {"mean": math.nan, "lo": math.nan, "hi": math.nan,
                              "width_pp": math.inf}}
        if self.n < 2 or den_b <= 0 or den_e <= 0:
            return out
        r_b, r_e = num_b / den_b, num_e / den_e
        m_b, m_e = den_b / self.n, den_e / self.n
        psi = np.array([-1 / m_b, r_b / m_b, 1 / m_e, -r_e / m_e])   # psi_i = psi . x_i
        variance = max(0.0, float(psi @ self.products @ psi)) / (self.n - 1)
        half = z * math.sqrt(variance / self.n)
        out["difference"] = {"mean": r_e - r_b, "lo": r_e - r_b - half, "hi": r_e - r_b + half,
                             "width_pp": 200 * half}
        return out


def _aligned(base, edit):
    """Both tables restricted to the games both hold, in game-index order."""
    if base.height == edit.height and base["game_index"].equals(edit["game_index"]):
        return base, edit
    import polars as pl

    left = base.sort("game_index")
    joined = left.join(edit, on="game_index", how="inner", suffix="__edit").sort("game_index")
    columns = [c for c in base.columns if c != "game_index"]
    return (joined.select("game_index", *columns),
            joined.select("game_index", *[pl.col(f"{c}__edit").alias(c) for c in columns]))


def verdict_line(row: Mapping[str, Any], width_pp: float | None = None) -> str:
    """One headline's verdict in words; ``width_pp``: the stopping width of a sequential
    comparison (the workbench's), which lets "no change" say how narrow it was checked."""
    d = row["difference"]
    mean, lo, hi = 100 * d["mean"], 100 * d["lo"], 100 * d["hi"]
    name = row["headline"]
    if row["discordant"] == 0:
        return f"{name}: the edit changed no game's outcome for this rate"
    if lo > 0:
        return f"{name}: the edit raises it by {mean:.2f} pp [{lo:.2f}, {hi:.2f}]"
    if hi < 0:
        return f"{name}: the edit lowers it by {-mean:.2f} pp [{-hi:.2f}, {-lo:.2f}]"
    if width_pp is None:
        return f"{name}: no change detected; the difference lies within [{lo:.2f}, {hi:.2f}] pp"
    return (f"{name}: no change detected; the difference lies within [{lo:.2f}, {hi:.2f}] pp "
            f"(narrower than {width_pp:g} pp)") if hi - lo < width_pp else (
        f"{name}: undecided, the difference lies within [{lo:.2f}, {hi:.2f}] pp")
