"""``simulate autobalance EXPERIMENT``: search the card changes an experiment allows for the
set that brings its target metrics into their bands.

* **Search space**: ``autobalance.vary`` lists card fields (``TE12.value``,
  ``Service-10.effect``; PLAI ``Daily Standups.strength``, ``"9.copies"``) and the values
  each may take (a ``{min, max}`` range or a list). Refs and fields are those of
  ``sim.studies.experiments.cardfile``: a name printed on several rows (a PLAI card under several
  numerals) writes each candidate value to every one of its rows, and starts from its
  first row's value (a candidate equal to that value leaves the rows as printed).
* **Targets** are any sweep metric of the game (``reports.sweep``): for PLAI e.g.
  ``first_player_advantage`` (0 is fair), ``last_player_advantage``, ``seatN_win_rate``,
  ``maintainers_win_rate``, ``stalemate_rate``, ``mean_turns``.
* **Objective**: the loss of a card set is the sum, over targets and the points each
  selects, of how far the metric's estimate lies outside its band (0 inside), in the
  metric's units (percentage points for rates). Ties go to the set with fewer changes.
* **Search**: steepest descent from the starting file. Each round evaluates every
  neighbour of the current set (each varied field moved one or two steps through its
  allowed values) and moves to the best neighbour if it lowers the loss; it stops when no
  neighbour does, when the best set's targets are met with their whole intervals, or after
  ``rounds`` rounds.
* **Stopping rule** (racing): a candidate plays its games in ``batches`` batches; after
  each batch its loss interval is computed (the loss over the targets' intervals at
  ``confidence``). Once the candidate's smallest possible loss within its intervals
  exceeds the current best's largest, it cannot beat the best, and it is dropped without
  playing the remaining batches.
* Every candidate plays the same seed and game indices (common random numbers), so
  the search is deterministic for a seed and candidates differ by card changes, not by
  luck.
* **Confirmation**: the best set was picked on the search's games, so its estimates
  there lean its way (winner's curse). It is played once more on game indices
  games..2*games-1, which no candidate played, and that interval is the answer.
"""
from __future__ import annotations

import csv
import dataclasses
import math
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reports.tables import text_table
from sim.core.errors import UserError
from sim.core.inputs import parse_count, parse_threads
from sim.core.output import writing
from sim.studies.experiments.cardfile import CardCsv, diff
from sim.studies.experiments.check import refuse_conditions_that_never_apply, smallest_players
from sim.studies.experiments.schema import CardChange, Experiment, Point, apply_card_changes


@dataclass
class Evaluation:
    changes: tuple                   # ((ref, field, value), ...) differing from the start
    games: int                       # games per point played
    complete: bool                   # False: dropped by the stopping rule
    loss: float
    loss_lo: float
    loss_hi: float
    metrics: list = field(default_factory=list)   # (target text, point, est, lo, hi, status)


@dataclass
class AutobalanceResult:
    start: Evaluation
    best: Evaluation
    start_text: str
    best_text: str
    diff: str
    card_file: Path | None
    evaluated: int
    dropped: int
    rounds: int
    games: int
    confirmed: Evaluation | None = None   # the best set on games the search did not play
    played: str = ""   # 'played with strategies ...; cards: ...' (experiments.run.played_line)
    start_file: str = ""   # the card file the search started from
    log: list = field(default_factory=list)
    stronger: Evaluation | None = None   # the best set with search on every side
    stronger_seconds: float = 0.0        # its search games' seconds (first games not counted)
    stronger_note: str = ""              # why it was asked for and not played

    def report(self) -> str:
        lines = []
        lines.append(f"{self.evaluated} card sets evaluated in {self.rounds} rounds "
                     f"({self.dropped} dropped early by the stopping rule), "
                     f"{self.games:,} games per point")
        if self.played:
            lines.append(self.played)
        lines.append(f"start loss {_loss_text(self.start)}, best loss {_loss_text(self.best)} "
                     "(on the search's games)")
        if self.confirmed is not None:
            lines.append(f"confirmation: the best set replayed on {self.games:,} other games "
                         f"per point (game indices {self.games:,} to {2 * self.games - 1:,}, "
                         f"none played in the search): loss {_loss_text(self.confirmed)}")
            lines.append(self.verdict())
        lines.append(self.stronger_verdict())
        lines.append("")
        if self.diff:
            lines.append(self.diff.rstrip())
        elif self.card_file is None:
            lines.append("the starting card file is already best: no card file written "
                         f"(the answer is {self.start_file})")
        else:
            lines.append("the starting card file is already best")
        lines.append("")
        # the search picked the best on its own games, so its estimates lean its way
        # (winner's curse): the confirmation on other games is the answer
        head = ["target", "point", "start [interval]", "best, search [interval]"]
        if self.confirmed is not None:
            head.append("best, confirmed [interval]")
        stronger = {(m[0], m[1]): m for m in (self.stronger.metrics
                                               if self.stronger is not None else [])}
        if self.stronger is not None:
            head.append("best, stronger play [interval]")
        head.append("result")
        start = {(m[0], m[1]): m for m in self.start.metrics}
        confirmed = {(m[0], m[1]): m for m in (self.confirmed.metrics
                                                if self.confirmed is not None else [])}
        rows = []
        for m in self.best.metrics:
            s, c = start.get((m[0], m[1])), confirmed.get((m[0], m[1]))
            row = [m[0], m[1], _metric_text(s) if s else "", _metric_text(m)]
            if self.confirmed is not None:
                row.append(_metric_text(c) if c else "")
            if self.stronger is not None:
                t = stronger.get((m[0], m[1]))
                row.append(f"{_metric_text(t)} {t[5]}" if t else "")
            rows.append(row + [(c or m)[5]])
        lines.append(text_table(head, rows))
        if self.card_file is not None:
            lines.append(f"card file: {self.card_file}")
        return "\n".join(lines)

    def stronger_verdict(self) -> str:
        """Whether the best set still meets the targets when every side plays the search
        player over its strategy."""
        if self.stronger_note:
            return f"under stronger play: not checked ({self.stronger_note})"
        if self.stronger is None:
            return ("under stronger play: not checked here; --stronger-play SECONDS plays the "
                    "best set with search on every side")
        statuses = [m[5] for m in self.stronger.metrics]
        missed, undecided = statuses.count("missed"), statuses.count("undecided")
        played = (f"the best set with search on every side, at least "
                  f"{self.stronger.games:,} games per point, {self.stronger_seconds:.0f} s")
        if not missed and not undecided:
            found = "every target's interval lies within its band"
        elif missed:
            found = f"it misses {missed} of {len(statuses)} targets"
        else:
            found = (f"{undecided} of {len(statuses)} intervals cross their band (more "
                     "search games may settle them)")
        return f"under stronger play ({played}): {found}"

    def verdict(self) -> str:
        """Whether the confirmation games show the best set balanced within the targets."""
        if self.confirmed is None:
            return ("not confirmed: the best set was not replayed on other games, so its "
                    "estimates lean its way")
        statuses = [m[5] for m in self.confirmed.metrics]
        missed, undecided = statuses.count("missed"), statuses.count("undecided")
        if not missed and not undecided:
            return ("balanced within the tolerance: every target's confirmation interval "
                    "lies within its band")
        if missed:
            return (f"not balanced within the tolerance: the confirmation misses {missed} of "
                    f"{len(statuses)} targets")
        return (f"not shown balanced within the tolerance: {undecided} of {len(statuses)} "
                "confirmation intervals cross their band (more --games may settle them)")


def _loss_text(evaluation: Evaluation) -> str:
    return f"{evaluation.loss:.3f} [{evaluation.loss_lo:.3f}, {evaluation.loss_hi:.3f}]"


def _metric_text(metric: tuple) -> str:
    """A target's estimate at a point with its interval ((text, point, est, lo, hi, ...))."""
    return f"{metric[2]:.2f} [{metric[3]:.2f}, {metric[4]:.2f}]"


def _distance(value: float, lo: float, hi: float) -> float:
    if math.isnan(value):
        return math.inf
    return max(lo - value, 0.0, value - hi)


class _Evaluator:
    def __init__(self, exp: Experiment, points: list[Point], games: int, batches: int,
                 threads: int, workdir: Path, backend: Any, journal: Any = None):
        self.exp, self.points, self.games = exp, points, games
        self.threads, self.workdir, self.backend = threads, workdir, backend
        self.journal = journal
        size = -(-games // batches)
        self.batches = [(s, min(size, games - s)) for s in range(0, games, size)]
        self.spec = exp.autobalance
        self.count = 0

    def _config(self, point: Point, changes: tuple):
        """(ConfigRequest, GameConfig) of a point with the candidate's card changes."""
        from sim.core.request import GameRequest
        from sim.runs.backends import ConfigRequest

        all_changes = list(point.card_changes) + [CardChange(r, f, v, self.spec.vary[0].loc)
                                                  for r, f, v in changes]
        cards = self.exp.cards
        if all_changes:
            self.count += 1
            path = self.workdir / f"cards-{self.count}.csv"
            apply_card_changes(self.exp.base_cards_path(), all_changes,
                               game=self.exp.game).write(path)
            cards = str(path)
        request = ConfigRequest.of(GameRequest(game=self.exp.game, players=point.players,
                                               cards=cards, rule_overrides=point.rule_overrides,
                                               strategies=point.strategies or None))
        return request, request.configure()

    def evaluate(self, changes: tuple, best: Evaluation | None) -> Evaluation:
        """The candidate's evaluation (kept in the journal: a resumed search reads the
        candidates it finished instead of playing them again)."""
        if self.journal is None:
            return self._evaluate(changes, best)
        asked = ("evaluate", changes, None if best is None else best.loss_hi, self.games,
                 self.batches)
        return self.journal.step(asked, lambda: self._evaluate(changes, best),
                                 encode=dataclasses.asdict, decode=_evaluation)

    def confirm(self, changes: tuple) -> Evaluation:
        """The set played on game indices games..2*games-1, which no candidate played:
        its estimates are free of the search's choice (kept in the journal too)."""
        if self.journal is None:
            return self._evaluate(changes, None, first=self.games)
        asked = ("confirm", changes, self.games, self.batches)
        return self.journal.step(asked, lambda: self._evaluate(changes, None, first=self.games),
                                 encode=dataclasses.asdict, decode=_evaluation)

    def under_search(self, changes: tuple, seconds: float,
                     games: int | None) -> tuple[Evaluation, float]:
        """The set played with the search player on every side over the point's strategy
        (reports.stronger.searched), on game indices 0.. of every point: ``games`` each, or
        chunk after chunk until ``seconds`` shared by the points are spent (the first game
        of a point compiles the search player and is not counted). Returns the evaluation
        (its ``games``: the fewest any point played) and the seconds (kept in the journal)."""
        if self.journal is None:
            return self._under_search(changes, seconds, games)
        asked = ("under search", changes, seconds, games)
        return self.journal.step(
            asked, lambda: self._under_search(changes, seconds, games),
            encode=lambda found: [dataclasses.asdict(found[0]), found[1]],
            decode=lambda data: (_evaluation(data[0]), data[1]))

    def _under_search(self, changes: tuple, seconds: float,
                      games: int | None) -> tuple[Evaluation, float]:
        import time

        import polars as pl

        from reports.stronger import search_in_blocks, searched
        from reports.sweep import concat_games, frame_games, metric_columns
        from sim.core.game import configure_request, resolve_game
        from sim.runs.kept_search import SECONDS_COLUMN

        game = resolve_game(self.exp.game)
        columns = metric_columns(self.exp.game)
        budget = None if games else seconds / len(self.points)
        frames, played, spent = [], [], 0.0
        for point in self.points:
            request, config = self._config(point, changes)
            manifest = {**config.manifest(), "request": request.as_request()}
            search = configure_request(game, point.players,
                                       searched(game, point.players, manifest))

            def play(first, count, search=search):
                began = time.perf_counter()
                table = search.run_chunk(self.exp.seed, first, count, self.threads)
                return table.with_columns(pl.lit(
                    (time.perf_counter() - began) / table.height).alias(SECONDS_COLUMN))
            first = play(0, 1)   # compiles the search player: not counted
            tables, n, used = search_in_blocks(play, None, self.exp.seed, games or self.games,
                                               budget, self.threads)
            frames.append(concat_games([frame_games(t, columns) for t in (first, *tables)]))
            played.append(n)
            spent += used
        return self._score(changes, frames, min(played), True), spent

    def _evaluate(self, changes: tuple, best: Evaluation | None, first: int = 0) -> Evaluation:
        from reports.sweep import concat_games, frame_games, metric_columns

        from sim.runs.tables import chunk_tables

        configs = dict(self._config(p, changes) for p in self.points)
        requests = list(configs)
        parts: list[list] = [[] for _ in self.points]
        evaluation = None
        columns = metric_columns(self.exp.game)
        for b, (start, count) in enumerate(self.batches):
            # one batch of every point; a point's tables are kept in batch order
            items = [(request, self.exp.seed, first + start, count, i)
                     for i, request in enumerate(requests)]
            threads = self.threads if self.backend.in_process else None
            for i, table in chunk_tables(self.backend, items, scratch=self.workdir,
                                         threads=threads, configs=configs):
                parts[i].append(frame_games(table, columns))
            games = [concat_games(p) for p in parts]
            evaluation = self._score(changes, games, start + count, b == len(self.batches) - 1)
            if best is not None and not evaluation.complete and cannot_beat(evaluation, best):
                return evaluation  # its interval shows it cannot beat the best: drop it
        return evaluation

    def _score(self, changes, games, played, complete) -> Evaluation:
        from reports.sweep import estimate, z_for

        loss = loss_lo = loss_hi = 0.0
        metrics = []
        for target in self.spec.targets:
            z = z_for(self.spec.confidence)
            smallest = smallest_players(target.metric, self.exp.game)
            for point, g in zip(self.points, games):
                # below the metric's smallest player count no game counts toward it: n/a
                if not target.selects(point) or point.players < smallest:
                    continue
                e = estimate(target.metric, g, z, game=self.exp.game)
                d = _distance(e["est"], target.lo, target.hi)
                d_lo = 0.0 if e["hi"] >= target.lo and e["lo"] <= target.hi else min(
                    _distance(e["lo"], target.lo, target.hi), _distance(e["hi"], target.lo, target.hi))
                d_hi = max(_distance(e["lo"], target.lo, target.hi),
                           _distance(e["hi"], target.lo, target.hi))
                loss, loss_lo, loss_hi = loss + d, loss_lo + d_lo, loss_hi + d_hi
                status = "met" if d_hi == 0 else ("missed" if d_lo > 0 else "undecided")
                metrics.append((target.text, point.name, e["est"], e["lo"], e["hi"], status))
        return Evaluation(changes, played, complete, loss, loss_lo, loss_hi, metrics)


def _evaluation(data: dict) -> Evaluation:
    """An Evaluation read back from the journal (JSON lists back to tuples)."""
    return Evaluation(changes=tuple(tuple(c) for c in data["changes"]), games=data["games"],
                      complete=data["complete"], loss=data["loss"], loss_lo=data["loss_lo"],
                      loss_hi=data["loss_hi"], metrics=[tuple(m) for m in data["metrics"]])


def cannot_beat(candidate: Evaluation, best: Evaluation) -> bool:
    """The stopping rule: the smallest loss the candidate's intervals allow is above the
    largest loss the best's intervals allow."""
    return candidate.loss_lo > best.loss_hi


def _better(a: Evaluation, b: Evaluation) -> bool:
    """a beats b: lower loss (by more than rounding), then fewer changes."""
    if a.loss < b.loss - 1e-9:
        return True
    return abs(a.loss - b.loss) <= 1e-9 and len(a.changes) < len(b.changes)


def autobalance(exp: Experiment, *, games: Any = None, out: Any = None, threads: Any = None,
                progress: bool = True, backend: Any = None,
                backend_options: Any = None, resume: bool = False,
                stronger_play: float = 0.0,
                stronger_play_games: int | None = None) -> AutobalanceResult:
    """The search (see the module); every candidate's games play on ``backend`` (a name
    with ``backend_options``, or a Backend object; the same search on every backend).

    ``stronger_play`` seconds (shared by the points; 0: not checked) or
    ``stronger_play_games`` per point: the best set is played once more with the search
    player on every side, in this process, and the result says whether it still meets the
    targets (``_Evaluator.under_search``).

    Every evaluated card set is kept in ``NAME.resume.jsonl`` beside the card file as it
    finishes; after Ctrl-C, SIGTERM or a full disk the same call with ``resume=True``
    replays the search to where it stopped and goes on, to the same card set."""
    from sim.runs import backends
    from sim.runs.resumable import journal_beside, refuse_finished_file, stoppable

    if exp.retune:
        raise (exp.loc.v.get("retune") or exp.loc).error(
            "autobalance plays the experiment's strategies as given; retune is for "
            "experiment and check")
    card_path = Path(out) if out is not None else Path(f"autobalance-{exp.name}.csv")
    _refuse_unwritable_out(card_path, exp)
    refuse_finished_file(card_path, "autobalance",
                         is_result=lambda path: _is_card_file_like_start(path, exp))
    journal_path = journal_beside(card_path)
    with stoppable("autobalance", journal_path), _journal(exp, games, journal_path, resume,
                                                          card_path) as journal:
        chosen, owned = backends.resolve(backend, backend_options)
        try:
            result = _autobalance(exp, games=games, out=out, threads=threads,
                                  progress=progress, backend=chosen, journal=journal,
                                  stronger_play=stronger_play,
                                  stronger_play_games=stronger_play_games)
        finally:
            if owned:
                chosen.close()
        journal.remove()
    return result


def _is_card_file_like_start(path: Path, exp: Experiment) -> bool:
    """``path`` is a card file with the starting card file's columns (what autobalance
    writes)."""
    try:
        return CardCsv(path, exp.game).header == CardCsv(exp.base_cards_path(), exp.game).header
    except (UserError, ValueError, csv.Error):   # not text, or not a card file
        return False


def _refuse_unwritable_out(card_path: Path, exp: Experiment) -> None:
    """--out names the card file to write: not a directory, and not the card file the
    search starts from (it is read by every candidate and never overwritten)."""
    if card_path.is_dir():
        raise UserError("is a directory; --out names the card file to write, e.g. "
                        f"{card_path / f'autobalance-{exp.name}.csv'}", file=str(card_path),
                        field="--out")
    if card_path.exists() and card_path.resolve() == Path(exp.base_cards_path()).resolve():
        raise UserError("is the card file the search starts from; choose another --out "
                        "(the starting file is never overwritten)", file=str(card_path),
                        field="--out")


def _journal(exp: Experiment, games: Any, path: Path, resume: bool, out: Path):
    """The search's journal; its settings are what decides the search's result."""
    from sim.runs.resumable import Journal
    from sim.studies.experiments.run import strategy_files

    spec = exp.autobalance
    if spec is None:
        raise UserError("the experiment has no 'autobalance' section (vary + targets)",
                        file=exp.file, line=exp.loc.line, field=exp.name)
    games = parse_count(games, field="--games") if games is not None else (spec.games or exp.games)
    # in words: a refused resume names what was edited ("the autobalance section differs")
    settings = {"experiment": exp.name, "games": games, "seed": exp.seed,
                **_points_in_words(exp),
                "the autobalance section (vary, targets, rounds, batches)": _sha256(repr(spec)),
                "the card changes": _sha256(repr(exp.card_overrides)),
                "the starting card file": exp.base_cards_path(),
                "the starting card file's contents":
                    _sha256(Path(exp.base_cards_path()).read_bytes()),
                "the strategy files' contents": strategy_files(exp.points())}
    return Journal.open(path, settings, what="autobalance", resume=resume, out=out,
                        discard_empty=True)


def _points_in_words(exp: Experiment) -> dict[str, str]:
    """What decides the points the search plays, one setting a key, so a refused resume
    names the one edited ("rule unhappy_limit.5 '2' there, '3' now")."""
    from sim.studies.experiments.model import join_spec
    from sim.studies.experiments.run import absolute_spec

    words = {"the game": exp.game, "the player counts": ", ".join(map(str, exp.players))}
    for axis in exp.axes:
        words[f"sweep {axis.key}"] = ", ".join(
            absolute_spec(str(v)) if axis.kind == "strategy" else str(v) for v in axis.values)
    for team, (name, params) in exp.strategies.items():
        words[f"strategy {team}"] = absolute_spec(join_spec(name, params))
    for text, _ in exp.rules:
        option, _, value = text.partition("=")
        words[f"rule {option}"] = value
    return words


def _sha256(data: str | bytes) -> str:
    import hashlib

    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def _autobalance(exp: Experiment, *, games: Any, out: Any, threads: Any, progress: bool,
                 backend: Any, journal: Any = None, stronger_play: float = 0.0,
                 stronger_play_games: int | None = None) -> AutobalanceResult:

    spec = exp.autobalance
    if spec is None:
        raise UserError("the experiment has no 'autobalance' section (vary + targets)",
                        file=exp.file, line=exp.loc.line, field=exp.name)
    games = parse_count(games, field="--games") if games is not None else (spec.games or exp.games)
    threads = parse_threads(threads)
    points = [p for p in exp.points() if any(t.selects(p) for t in spec.targets)]
    if not points:
        raise UserError("no point of the experiment matches any target (players / where)",
                        file=exp.file, line=exp.loc.line, field=f"{exp.name}.autobalance.targets")
    refuse_conditions_that_never_apply(exp, spec.targets, kind="target")
    log = (lambda text: print(text, file=sys.stderr, flush=True)) if progress else (lambda text: None)

    start_table = apply_card_changes(exp.base_cards_path(), exp.card_overrides, game=exp.game)
    start_values = {}
    for v in spec.vary:
        try:
            # a ref naming several rows (a PLAI card under several numerals) starts from
            # its first row's value; a candidate value is written to every row
            rows = start_table.find_all(v.ref)
            start_values[(v.ref, v.field)] = _typed(start_table.get(rows[0], v.field), v.choices)
        except KeyError as exc:
            raise v.loc.error(str(exc.args[0])) from None

    with tempfile.TemporaryDirectory(prefix="cardsim-autobalance-") as tmp:
        evaluator = _Evaluator(exp, points, games, spec.batches, threads, Path(tmp), backend,
                               journal)
        current: dict = dict(start_values)

        def changes_of(values: dict) -> tuple:
            return tuple((ref, fld, values[(ref, fld)]) for (ref, fld) in start_values
                         if str(values[(ref, fld)]) != str(start_values[(ref, fld)]))

        start = evaluator.evaluate((), None)
        best = start
        evaluated, dropped, rounds = 1, 0, 0
        seen = {changes_of(current)}
        log(f"autobalance {exp.name}: start loss {start.loss:.3f} [{start.loss_lo:.3f}, "
            f"{start.loss_hi:.3f}] ({games:,} games per point, {len(points)} point(s))")
        for rounds in range(1, spec.rounds + 1):
            if best.loss_hi == 0:
                break  # every target met with its whole interval
            round_best = best
            for v in spec.vary:
                for candidate_value in _neighbours(current[(v.ref, v.field)], v.choices):
                    values = dict(current)
                    values[(v.ref, v.field)] = candidate_value
                    changes = changes_of(values)
                    if changes in seen:
                        continue
                    seen.add(changes)
                    evaluation = evaluator.evaluate(changes, round_best)
                    evaluated += 1
                    if not evaluation.complete:
                        dropped += 1
                    elif _better(evaluation, round_best):
                        round_best = evaluation
            if round_best is best:
                log(f"round {rounds}: no neighbour lowers the loss; stopping")
                break
            best = round_best
            current = dict(start_values)
            current.update({(r, f): val for r, f, val in best.changes})
            log(f"round {rounds}: loss {best.loss:.3f} [{best.loss_lo:.3f}, {best.loss_hi:.3f}] "
                f"with {_describe(best.changes) or 'no changes'}")
        confirmed = evaluator.confirm(best.changes)
        log(f"confirmation on games {games:,} to {2 * games - 1:,}: loss "
            f"{_loss_text(confirmed)}")
        stronger, stronger_seconds, stronger_note = None, 0.0, ""
        if stronger_play or stronger_play_games:
            log("the best set under stronger play: search on every side")
            try:
                stronger, stronger_seconds = evaluator.under_search(
                    best.changes, float(stronger_play or 0.0), stronger_play_games)
            except (UserError, KeyError) as exc:   # no search player for these strategies
                stronger_note = f"the search player cannot play these points: {exc}"

    final = start_table.copy()
    for ref, fld, value in best.changes:
        final.set_all(final.find_all(ref), fld, value)
    start_text, best_text = start_table.text(), final.text()
    card_file = None
    # the start with card_overrides is a file of its own: written even when it is best;
    # a best start without them is the starting file itself, and nothing is written
    if best.changes or exp.card_overrides:
        card_file = Path(out) if out is not None else Path(f"autobalance-{exp.name}.csv")
        with writing("the card file", card_file):
            card_file.parent.mkdir(parents=True, exist_ok=True)
            card_file.write_text(best_text, encoding="utf-8")
    return AutobalanceResult(start, best, start_text, best_text,
                             diff(start_text, best_text, f"a/{Path(exp.base_cards_path()).name}",
                                  f"b/{card_file.name if card_file else 'cards.csv'}"),
                             card_file, evaluated, dropped, rounds, games, confirmed,
                             _played(exp, points), exp.base_cards_path(),
                             stronger=stronger, stronger_seconds=stronger_seconds,
                             stronger_note=stronger_note)


def _played(exp: Experiment, points: list[Point]) -> str:
    """The strategies (by player count), card file and rules the search played."""
    from sim.core.game import configure, resolve_game
    from sim.studies.experiments.run import played_line, strategies_line

    label = resolve_game(exp.game).pairing
    pairings = [] if label is None else [
        {"players": p.players,
         "strategies": label(configure(exp.game, p.players, cards=exp.cards,
                                       rule_overrides=p.rule_overrides,
                                       strategies=p.strategies or None).manifest())}
        for p in points]
    return played_line(exp, strategies_line(pairings))


def _typed(text: str, choices: tuple) -> Any:
    if choices and all(isinstance(c, int) for c in choices):
        try:
            return int(text)
        except ValueError:
            return text
    return text


def _neighbours(value: Any, choices: tuple) -> list:
    """Values one and two steps away through the allowed values (the nearest allowed
    values when the current one is not among them)."""
    keys = [str(c) for c in choices]
    if str(value) in keys:
        i = keys.index(str(value))
        order = [i - 1, i + 1, i - 2, i + 2]
    elif all(isinstance(c, (int, float)) for c in choices) and isinstance(value, (int, float)):
        below = [j for j, c in enumerate(choices) if c < value]
        above = [j for j, c in enumerate(choices) if c > value]
        order = ([below[-1]] if below else []) + ([above[0]] if above else [])
    else:
        order = list(range(len(choices)))
    return [choices[j] for j in order if 0 <= j < len(choices)]


def _describe(changes) -> str:
    return ", ".join(f"{ref}.{fld}={value}" for ref, fld, value in changes)
