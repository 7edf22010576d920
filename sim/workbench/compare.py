"""One comparison of the workbench: the baseline and the edit played on the same seed and
game indices (common random numbers), chunk after chunk, with the paired difference of
every headline, the games whose outcome changed, and a verdict by the ``--until-ci`` rule.

The games are read and tallied by ``sim.core.paired`` (``GameOutcomes``, ``PairedTally``),
the same code as ``simulate compare`` of two finished runs: per-game headline indicators
from the description's ``headline_counts``, the paired difference mean(d) +- z * sd(d) /
sqrt(n), and the changed games grouped by how their outcome changed.

Stopping (``sim.studies.sequential``, the rule of ``simulate --until-ci W``): one look per
chunk, K looks planned (the cap over the chunk size), every look's intervals at
z = Phi^-1(1 - 0.05 / 2K) (Bonferroni over the looks, so the intervals at the stopping
look keep 95 % coverage); the comparison stops once every difference interval of every
player count, the headlines' and the balance measures', is narrower than W percentage
points, or at the cap.
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

from sim.core.request import GameRequest
from sim.core.errors import UserError
from sim.core.game import resolve_game
from sim.core.loss_causes import PairedLossCauses
from sim.core.paired import GameOutcomes, PairedTally, verdict_line
from sim.core.stats import Z95
from sim.studies.sequential import ALPHA, default_chunk, z_for_looks


SHOWN_INDICES = 10   # game indices per kind of change in a snapshot (the page polls it)


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


def balance_answer(tally: PairedTally, side: str) -> dict[str, Any] | None:
    """One side's balance answer so far: of the game's ``balance_measures`` (the summary's
    and the report's, tallied by ``tally``), the one furthest from its even point, in the
    words of sim.core.wording.edge_answer, judged as the furthest of them."""
    from sim.core.wording import DEFAULT_THRESHOLD_PP, edge_answer

    shares = [(ratio, num / den) for ratio in tally.ratios
              for num, den in [ratio.side(side)] if den > 0]
    if not shares:
        return None
    ratio, _ = max(shares, key=lambda r: abs(r[1] - r[0].measure.even))
    measure, found = ratio.measure, ratio.side_value(side, Z95)
    value, lo, hi = found["rate"], found["lo"], found["hi"]
    num, den = ratio.side(side)
    code, words = edge_answer(value, lo, hi, measure.even, DEFAULT_THRESHOLD_PP,
                              measure.above, measure.below,
                              (num, den, measure.even, len(shares)))
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
        game = resolve_game(plan.game)
        # players -> the headlines' and the balance measures' paired tallies (as simulate
        # compare's)
        # with the all-lose causes' tally, for a game whose engine records them
        self.tallies = {p: PairedTally(GameOutcomes(game, p), game.balance_measures(p),
                                      also=[c for c in [PairedLossCauses.of(game)] if c])
                        for p in plan.players}
        self.run_dirs: dict[int, dict[str, str]] = {}
        # players -> side -> the player count its games play exactly like (the manifest's
        # plays_like_players), so the page can say why two counts' numbers repeat
        self.plays_like: dict[int, dict[str, int | None]] = {}
        self.looks = 0
        self.state = "starting"          # starting, running, decided, capped, stopped, error
        self.reason = ""
        self.error: str | None = None
        self.widths: list[float] = []    # the widest difference interval after each look
        self.pace: dict[int, Any] = {}     # players -> both sides' curves (workbench/pace.py)
        self.history: list[dict[str, Any]] = []   # every look's difference intervals
        self.examples: dict[tuple, Any] = {}  # (side, question, players, variant) -> Example
        self.started = time.monotonic()
        self.first_verdict_seconds: float | None = None
        self.last_seen = time.monotonic()
        self.stop_event = threading.Event()
        self.lock = threading.Lock()
        self.report_lock = threading.Lock()   # one balance report written at a time
        self.stronger_lock = threading.Lock()   # one stronger-play check at a time
        self.stronger: list[dict[str, Any]] | None = None   # its answer, per player count
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
                    self.plays_like.setdefault(players, {})[side_name] = manifest.get(
                        "plays_like_players")
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
                        drawn[side_name] = part
                    with self.lock:
                        self.tallies[players].add(drawn["baseline"], drawn["edit"])
                self._read_pace()
                with self.lock:
                    self.looks = look
                    width = self.widest()
                    self.widths.append(width)
                    self.history.append(self._look())
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

    def _read_pace(self) -> None:
        """Both sides' per-round curves after a look (sim/workbench/pace.py)."""
        from sim.workbench.pace import pace

        game = resolve_game(self.plan.game)
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

    def _look(self) -> dict[str, Any]:
        """One look's difference intervals: {"look", "games", "intervals": {players:
        {headline: [mean, lo, hi]}}} (fractions, at the comparison's z)."""
        intervals = {}
        for players, tally in self.tallies.items():
            intervals[str(players)] = {
                row["headline"]: [row["difference"][k] for k in ("mean", "lo", "hi")]
                for row in tally.rows(self.z)}
        games = min((t.n for t in self.tallies.values()), default=0)
        return {"look": self.looks, "games": games, "intervals": intervals}

    def widest(self) -> float:
        """The widest difference interval of every player count: each headline's and each
        balance measure's (the balance answer's change is a verdict of its own)."""
        widths = [row["difference"]["width_pp"] for tally in self.tallies.values()
                  for row in [*tally.rows(self.z), *tally.balance_rows(self.z)]]
        return max(widths) if widths else math.inf

    def _plays_like(self, players: int) -> int | None:
        """The player count both sides' games at ``players`` play exactly like, if any."""
        sides = set(self.plays_like.get(players, {}).values())
        return sides.pop() if len(sides) == 1 else None

    # -- what the page sees
    def _verdict_line(self, row: Mapping[str, Any]) -> str:
        """One headline's verdict, its interval labelled with its level: the stopping
        rule's z, as the table's intervals are (a line without an interval says none)."""
        words = verdict_line(row, self.plan.width_pp)
        if row["discordant"] == 0:
            return words
        return f"{words} (interval at the stopping rule's z = {self.z:.2f})"

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            points = []
            for players, tally in self.tallies.items():
                rows = tally.rows(self.z)
                points.append({"players": players, "games": tally.n, "rows": rows,
                               "changed_games": tally.changed_count(),
                               "changed": tally.changed(shown=SHOWN_INDICES),
                               "balance": {side: balance_answer(tally, side)
                                           for side in ("baseline", "edit")},
                               "balance_change": tally.balance_rows(self.z),
                               "all_lose_causes": _causes_answer(tally, self.z),
                               "plays_like": self._plays_like(players)})
            played = sum(t.n for t in self.tallies.values())
            done = self.state in ("decided", "capped")
            verdict = None
            if done:
                verdict = {"reason": self.reason, "lines": [
                    f"{p['players']} players: " + self._verdict_line(row)
                    for p in points for row in p["rows"]]}
            return {"id": self.id, "state": self.state, "reason": self.reason,
                    "error": self.error, "looks": self.looks,
                    "looks_planned": self.looks_planned, "z": self.z, "alpha": ALPHA,
                    "width_pp": self.plan.width_pp, "games_per_side": played // max(1, len(points)),
                    "max_games": self.plan.max_games,
                    "progress": played / (self.plan.max_games * len(points)),
                    "points": points, "widths": list(self.widths), "verdict": verdict,
                    "history": list(self.history),
                    "seconds": round(time.monotonic() - self.started, 3),
                    "first_verdict_seconds": self.first_verdict_seconds,
                    "seed": self.plan.seed, "stronger": self.stronger,
                    "pace": {str(p): found for p, found in self.pace.items() if found}}

    def changed_games(self, players: int, before: str, after: str) -> list[int]:
        """Every game index at ``players`` whose outcome went from kind ``before`` to
        ``after`` (the kinds of the snapshot's ``changed`` list), in order."""
        with self.lock:
            tally = self.tallies.get(players)
            found = tally.changed_indices().get((before, after)) if tally else None
        return [] if found is None else found.tolist()

    def played(self, players: int) -> int:
        """Games played per side at ``players`` so far (game indices 0 .. played-1)."""
        with self.lock:
            tally = self.tallies.get(players)
            return tally.n if tally else 0

    def check_stronger(self, seconds: float | None, games: int | None) -> list[dict[str, Any]]:
        """Whether the finished comparison's changes hold under stronger play, per player
        count: both sides' run directories compared as ``simulate compare`` compares two
        runs, and their lowest game indices replayed with search on every side
        (sim.studies.compare_stronger; ``seconds`` of search games per player count, or
        ``games``). The answer is kept for the snapshot; one check at a time. The search
        games are kept in the run directories: checking again reads them back."""
        from sim.studies.compare import compare_runs
        from sim.studies.compare_stronger import check_change

        with self.stronger_lock:
            found = []
            for players in self.plan.players:
                dirs = self.run_dirs[players]
                runs = compare_runs(dirs["baseline"], dirs["edit"])
                found.append({"players": players, **check_change(
                    runs, seconds, games, self.plan.threads)})
            with self.lock:
                self.stronger = found
            return found

    def remove(self) -> None:
        """Drop the comparison's folder (an older comparison of the page)."""
        shutil.rmtree(self.home, ignore_errors=True)


def _causes_answer(tally: PairedTally, z: float) -> dict[str, Any] | None:
    """The snapshot's all-lose causes at the table's z: per cause and "all", both sides'
    unhappy customers of all-lose games per game and the paired change; ``lead`` names
    the cause the change comes from (None without a clear change)."""
    return tally.also[0].answer(z) if tally.also and tally.n else None


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
