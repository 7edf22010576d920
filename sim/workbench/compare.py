"""One comparison of the workbench: the baseline and the edit played on the same seed and
game indices (common random numbers), chunk after chunk, with the paired difference of
every headline and a verdict by the ``--until-ci`` rule.

Paired difference: for headline h (a rate of the game's ``Game.headline_counts``) and
game i, d_i = [edit game i has h] - [baseline game i has h]. Both sides play game i from
the same random stream, so most games agree and the variance of the mean of d is far
below that of two independent runs. Its interval is mean(d) +- z * sd(d) / sqrt(n).

Stopping (``sim.studies.sequential``, the rule of ``simulate --until-ci W``): one look per
chunk, K looks planned (the cap over the chunk size), every look's intervals at
z = Phi^-1(1 - 0.05 / 2K) (Bonferroni over the looks, so the intervals at the stopping
look keep 95 % coverage); the comparison stops once every difference interval of every
player count is narrower than W percentage points, or at the cap.

The per-game headline indicators come from ``headline_counts`` itself: each distinct combination of
the ``headline_columns`` values in a chunk is counted by ``headline_counts`` on one row
(a check makes sure the indicators add up to its counts of the whole chunk).
"""
from __future__ import annotations

import contextlib
import math
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from sim.core.request import GameRequest
from sim.core.errors import UserError
from sim.core.game import resolve_game
from sim.core.stats import wilson
from sim.studies.sequential import ALPHA, default_chunk, z_for_looks


def headline_indicators(game: Any, games, players: int) -> dict[str, np.ndarray]:
    """{headline: int8[rows]} whether each game (row of ``games``, a polars DataFrame with
    the headline columns) counts towards that headline."""
    count = game.headline_counts
    columns = list(game.headline_columns)
    table = games.select(columns)
    values = np.stack([table[c].to_numpy().astype(np.int64) for c in columns], axis=1)
    _, first, inverse = np.unique(values, axis=0, return_index=True, return_inverse=True)
    inverse = np.asarray(inverse).reshape(-1)
    out: dict[str, np.ndarray] = {}
    for combo, row in enumerate(first):
        for name, hit in count(table[int(row):int(row) + 1], players).items():
            out.setdefault(name, np.zeros(len(values), dtype=np.int8))
            if hit:
                out[name][inverse == combo] = 1
    whole = count(table, players)
    if {name: int(v.sum()) for name, v in out.items()} != {k: int(v) for k, v in whole.items()}:
        raise RuntimeError("headline_counts does not count game by game; the workbench "
                           "needs one that sums one indicator per game")
    return out


class PairedTally:
    """Counts of both sides and the paired sums of one player count."""

    def __init__(self) -> None:
        self.n = 0
        self.base: dict[str, int] = {}
        self.edit: dict[str, int] = {}
        self.sum_d: dict[str, int] = {}
        self.discordant: dict[str, int] = {}   # sum of d^2: games where the sides differ

    def add(self, base: Mapping[str, np.ndarray], edit: Mapping[str, np.ndarray]) -> None:
        size = len(next(iter(base.values()))) if base else 0
        self.n += size
        for name in base:
            b = base[name].astype(np.int64)
            e = edit[name].astype(np.int64)
            d = e - b
            self.base[name] = self.base.get(name, 0) + int(b.sum())
            self.edit[name] = self.edit.get(name, 0) + int(e.sum())
            self.sum_d[name] = self.sum_d.get(name, 0) + int(d.sum())
            self.discordant[name] = self.discordant.get(name, 0) + int((d != 0).sum())

    def rows(self, z: float) -> list[dict[str, Any]]:
        out = []
        for name in self.base:
            out.append({"headline": name, "baseline": _rate(self.base[name], self.n, z),
                        "edit": _rate(self.edit[name], self.n, z),
                        "difference": paired_interval(self.sum_d[name], self.discordant[name],
                                                      self.n, z),
                        "discordant": self.discordant[name]})
        return out


def _rate(count: int, n: int, z: float) -> dict[str, float]:
    p, lo, hi = wilson(count, n, z)
    return {"rate": float(p), "lo": float(lo), "hi": float(hi)}


def paired_interval(sum_d: int, sum_d2: int, n: int, z: float) -> dict[str, float]:
    """Mean of d in [-1, 1] with its interval (sample variance, normal approximation);
    pp = percentage points."""
    if n < 2:
        return {"mean": math.nan, "lo": math.nan, "hi": math.nan, "width_pp": math.inf}
    mean = sum_d / n
    variance = max(0.0, (sum_d2 - n * mean * mean) / (n - 1))
    half = z * math.sqrt(variance / n)
    return {"mean": mean, "lo": mean - half, "hi": mean + half, "width_pp": 200 * half}


def verdict_line(row: Mapping[str, Any], width_pp: float) -> str:
    d = row["difference"]
    mean, lo, hi = 100 * d["mean"], 100 * d["lo"], 100 * d["hi"]
    name = row["headline"]
    if row["discordant"] == 0:
        return f"{name}: the edit changed no game's outcome for this rate"
    if lo > 0:
        return f"{name}: the edit raises it by {mean:.2f} pp [{lo:.2f}, {hi:.2f}]"
    if hi < 0:
        return f"{name}: the edit lowers it by {-mean:.2f} pp [{lo:.2f}, {hi:.2f}]"
    return (f"{name}: no change detected; the difference lies within [{lo:.2f}, {hi:.2f}] pp "
            f"(narrower than {width_pp:g} pp)") if hi - lo < width_pp else (
        f"{name}: undecided, the difference lies within [{lo:.2f}, {hi:.2f}] pp")


@dataclass
class Side:
    """What configures one side of a comparison (``sim.api.run``'s arguments)."""

    cards: str | None
    rules_file: str | None


@dataclass
class Plan:
    game: str
    players: list[int]
    seed: int
    max_games: int
    width_pp: float
    chunk: int
    baseline: Side
    edit: Side
    strategies: dict[int, dict[str, str]]
    threads: int | None = None


class BalanceTally:
    """One side's balance answer as the games come in: per measure of the game's
    ``balance_measures`` (the summary's and the report's), its summed numerator and
    denominator; shown as the measure furthest from its even point, in the words of
    sim.core.wording.edge_answer."""

    def __init__(self) -> None:
        self.measures: list = []
        self.sums: list[list[float]] = []

    def add(self, config: Any, games) -> None:
        from sim.core.game import resolve_game

        measures = resolve_game(config.game).balance_measures(config.players)
        if not self.measures:
            self.measures = measures
            self.sums = [[0.0, 0.0] for _ in measures]
        for measure, sums in zip(self.measures, self.sums):
            num, den = measure.arrays(games)
            sums[0] += float(num.sum())
            sums[1] += float(den.sum())

    def answer(self) -> dict[str, Any] | None:
        from sim.core.wording import DEFAULT_THRESHOLD_PP, edge_answer

        rows = [(m, n, d) for m, (n, d) in zip(self.measures, self.sums) if d > 0]
        if not rows:
            return None
        measure, num, den = max(rows, key=lambda r: abs(r[1] / r[2] - r[0].even))
        value, lo, hi = wilson(int(num), int(den))
        code, words = edge_answer(value, lo, hi, measure.even, DEFAULT_THRESHOLD_PP,
                                  measure.above, measure.below)
        return {"question": measure.key, "value": float(value), "lo": float(lo),
                "hi": float(hi), "even": measure.even, "verdict": code, "words": words}


class Comparison:
    """A comparison running in a background thread; ``snapshot`` is what the page polls."""

    def __init__(self, ident: str, plan: Plan, home: Path, backend: Any,
                 idle_seconds: float = 15.0, on_end: Callable[["Comparison"], None] | None = None,
                 on_look: Callable[["Comparison"], None] | None = None):
        self.id, self.plan, self.backend = ident, plan, backend
        self.on_look = on_look           # after each look (the workbench's temp-data cap)
        self.home = home                 # the comparison's folder: its files, runs, report
        self.folder = home / "runs"
        self.idle_seconds = idle_seconds
        self.on_end = on_end
        self.looks_planned = len(range(0, plan.max_games, plan.chunk))
        self.z = z_for_looks(self.looks_planned)
        self.tallies = {p: PairedTally() for p in plan.players}
        self.balance = {p: {"baseline": BalanceTally(), "edit": BalanceTally()}
                        for p in plan.players}
        self.run_dirs: dict[int, dict[str, str]] = {}
        self.looks = 0
        self.state = "starting"          # starting, running, decided, capped, stopped, error
        self.reason = ""
        self.error: str | None = None
        self.widths: list[float] = []    # the widest difference interval after each look
        self.pace: dict[int, Any] = {}     # players -> both sides' curves (workbench/pace.py)
        self.started = time.monotonic()
        self.first_verdict_seconds: float | None = None
        self.last_seen = time.monotonic()
        self.stop_event = threading.Event()
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._main, name=f"workbench-{ident}", daemon=True)

    # -- control
    def start(self) -> None:
        self.thread.start()

    def stop(self, reason: str = "stopped on the page; the finished chunks are kept") -> None:
        with self.lock:
            if not self.reason:
                self.reason = reason
        self.stop_event.set()

    def seen(self) -> None:
        self.last_seen = time.monotonic()

    @property
    def running(self) -> bool:
        return self.state in ("starting", "running")

    # -- the work
    def _main(self) -> None:
        try:
            self._play()
        except UserError as exc:
            self._end("error", str(exc))
        except Exception as exc:  # noqa: BLE001 - the page shows it; the server keeps serving
            self._end("error", f"error: {type(exc).__name__}: {exc}")
        finally:
            if self.on_end is not None:
                self.on_end(self)

    def _end(self, state: str, reason: str) -> None:
        with self.lock:
            self.state = state
            if state == "error":
                self.error = reason
            if not self.reason or state in ("decided", "capped", "error"):
                self.reason = reason

    def _play(self) -> None:
        import polars as pl

        from sim.runs import rundir
        from sim.runs.setup import new_run, play

        plan = self.plan
        layout = rundir.chunk_layout(plan.max_games, plan.chunk)
        game = resolve_game(plan.game)
        with contextlib.ExitStack() as stack:
            runs = {}
            for players in plan.players:
                for side_name, side in (("baseline", plan.baseline), ("edit", plan.edit)):
                    out = self.folder / f"{players}p" / side_name
                    request = GameRequest(
                        game=plan.game, players=players, cards=side.cards,
                        rules_file=side.rules_file, rule_overrides=(),
                        strategies=plan.strategies.get(players) or (), debug=False)
                    config, run, manifest = new_run(
                        request, games=layout[0][1], seed=plan.seed, out=out,
                        chunk_size=plan.chunk,
                        command_line=f"simulate workbench ({side_name} side)",
                        extra={"workbench": {"comparison": self.id, "side": side_name}})
                    stack.enter_context(run)
                    runs[(players, side_name)] = [config, run, manifest]
                    self.run_dirs.setdefault(players, {})[side_name] = str(out)
            with self.lock:
                self.state = "running"
            for look, (start, count) in enumerate(layout, 1):
                if self._should_stop():
                    self._end("stopped", self.reason or "stopped")
                    return
                for players in plan.players:
                    drawn = {}
                    for side_name in ("baseline", "edit"):
                        config, run, manifest = runs[(players, side_name)]
                        if look > 1:
                            manifest["games"] = start + count
                            manifest["chunks"].update(count=look, last_count=count)
                        result = play(config, run, manifest, threads=plan.threads,
                                      command_line=manifest["command_line"],
                                      backend=self.backend)
                        runs[(players, side_name)][2] = result.manifest
                        part = pl.read_parquet(run.part_path(result.manifest["seed"], start))
                        drawn[side_name] = headline_indicators(game, part.sort("game_index"),
                                                               players)
                        with self.lock:
                            self.balance[players][side_name].add(config, part)
                    with self.lock:
                        self.tallies[players].add(drawn["baseline"], drawn["edit"])
                self._read_pace(game)
                with self.lock:
                    self.looks = look
                    width = self.widest()
                    self.widths.append(width)
                if self.on_look is not None:
                    self.on_look(self)
                if width < plan.width_pp:
                    self.first_verdict_seconds = time.monotonic() - self.started
                    self._end("decided", f"every difference interval is narrower than "
                                         f"{plan.width_pp:g} pp")
                    return
            self.first_verdict_seconds = time.monotonic() - self.started
            self._end("capped", f"reached the cap of {plan.max_games:,} games before every "
                                f"difference interval was narrower than {plan.width_pp:g} pp")

    def _read_pace(self, game: Any) -> None:
        """Both sides' per-round curves after a look (sim/workbench/pace.py)."""
        from sim.workbench.pace import pace

        found = {players: pace(game, players, self.run_dirs[players])
                 for players in self.plan.players}
        with self.lock:
            self.pace = found

    def _should_stop(self) -> bool:
        if time.monotonic() - self.last_seen > self.idle_seconds:
            with self.lock:
                if not self.reason:
                    self.reason = (f"the page stopped asking for {self.idle_seconds:g} s "
                                   "(closed?); the finished chunks are kept")
            return True
        return self.stop_event.is_set()

    def widest(self) -> float:
        widths = [row["difference"]["width_pp"] for tally in self.tallies.values()
                  for row in tally.rows(self.z)]
        return max(widths) if widths else math.inf

    # -- what the page sees
    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            points = []
            for players, tally in self.tallies.items():
                rows = tally.rows(self.z)
                points.append({"players": players, "games": tally.n, "rows": rows,
                               "balance": {side: b.answer() for side, b in
                                           self.balance[players].items()}})
            played = sum(t.n for t in self.tallies.values())
            done = self.state in ("decided", "capped")
            verdict = None
            if done:
                verdict = {"reason": self.reason, "lines": [
                    f"{p['players']} players: " + verdict_line(row, self.plan.width_pp)
                    for p in points for row in p["rows"]]}
            return {"id": self.id, "state": self.state, "reason": self.reason,
                    "error": self.error, "looks": self.looks,
                    "looks_planned": self.looks_planned, "z": self.z, "alpha": ALPHA,
                    "width_pp": self.plan.width_pp, "games_per_side": played // max(1, len(points)),
                    "max_games": self.plan.max_games,
                    "progress": played / (self.plan.max_games * len(points)),
                    "points": points, "widths": list(self.widths), "verdict": verdict,
                    "seconds": round(time.monotonic() - self.started, 3),
                    "first_verdict_seconds": self.first_verdict_seconds,
                    "seed": self.plan.seed,
                    "pace": {str(p): found for p, found in self.pace.items() if found}}

    def remove(self) -> None:
        """Drop the comparison's folder (an older comparison of the page)."""
        shutil.rmtree(self.home, ignore_errors=True)


def chunk_for(max_games: int, chunk: int | None = None) -> int:
    """The chunk (one look) of a comparison: the ``--until-ci`` default unless given."""
    return max(1, min(max_games, chunk)) if chunk else default_chunk(max_games)


def plan_from(game: str, players: Sequence[int], seed: int, max_games: int, width_pp: float,
              chunk: int | None, baseline: Side, edit: Side,
              strategies: Mapping[int, Mapping[str, str]], threads: int | None) -> Plan:
    return Plan(game=game, players=list(players), seed=seed, max_games=max_games,
                width_pp=width_pp, chunk=chunk_for(max_games, chunk), baseline=baseline,
                edit=edit, strategies={p: dict(s) for p, s in strategies.items()},
                threads=threads)
