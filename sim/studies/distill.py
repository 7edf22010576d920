"""``simulate distill``: a weight vector that plays like the search player over it.

The search player (``search:k=K,n=N,base=B``) is a policy-improvement operator: at each
decision it plays the ``k`` best options of its base out ``n`` times and takes the one
that wins most, so its choices are better than its base's. Distillation (expert
iteration) learns them back into an ordinary strategy file:

1. Play: ``games`` games in which one side (a team, or a seat, every side in turn) is the
   search player over the current policy and the other sides play the policy itself
   (with ``opponents``, each of them in an equal share of the games, beside the policy),
   with ``record=extra`` (sim/core/recorded.py): each game's table carries every
   decision the search made -- its options as the searching side sees them (the game's
   features), the mean result of each option it played out, its choice.
2. Fit: the policy's weights to those decisions (sim/core/policy_fit.py; by default
   the expected value of the policy's own choice under the search's option values, L2
   toward the current policy in units of each weight's size; only the weights of the
   decisions the search makes are fitted, less those ``hold`` names).
3. The fitted policy becomes the search's base, and the next iteration plays with it.

The policy starts as the base without its noise draws (their weights 0, unless
``keep_noise``): a strategy that decides by its features alone, which the value fit
assumes, and the stronger start -- ``expert-v1`` without its noise won 52.9 % [52.2-53.6]
of the decided games against itself with it (Peer-to-Peer, 4 players, 20,000 games).

Each iteration reports how often the search side won against the policy (its share of
the games someone won; the fair share is the game's): as the policy learns what the
search finds, the search gains less on top of it. At the end the result plays the
starting base on fresh seeds, every side, plain games (``check_games`` per side), and on
the same deals each of the game's other shipped strategies (``field_strategies``): a policy learned
in self-play can beat its base and lose to a player it never met (PLAI at 2 players: a
distilled policy won 80 % of the decided games against ``expert-v1`` and 7 % against
``bluffer``). A count where a field strategy or the base beats the result beyond its
interval is reported; with ``keep_base_if_beaten`` (``--per-count``) that count keeps the
base's weights, and so does a count where the result wins less than ``KEEP_SHARE`` (55 %)
of the decided games against the base, unless it dominates the base there: beats it beyond
the interval and does no worse than it against any field strategy (its interval's top
not below the base's bottom). A default made per count clears the bar a new default must
(docs/strategies.md), is better than its base by every measure, or is its base there
(the rule: sim/studies/distill_verdict.py).

The games are ordinary chunk tasks: any backend plays them (``run_tasks``), each chunk's
part is written into a work directory beside the output (``NAME.distill/``). Every
finished iteration's fit is kept in ``NAME.resume.jsonl`` (sim.runs.resumable); after a
stop, ``resume`` replays the finished iterations from the journal, plays only the chunks
of the unfinished one not yet on disk, and ends with exactly the file an uninterrupted
run writes. Both are removed once the file is written. Deterministic for a seed: the
games depend only on (seed, game index, configuration), the fit only on the records.
"""
from __future__ import annotations

import hashlib
import shutil
import time
from contextlib import ExitStack, closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from sim.core.csvfile import content_sha256_or_none
from sim.core.errors import UserError
from sim.studies.distill_verdict import KEEP_SHARE, beaten_by, loses, tally_shares, why_kept
from sim.studies.held import (held_mask, held_settings, held_text, held_vector,
                              held_weights as parse_held)

DEFAULT_ITERATIONS = 3
DEFAULT_GAMES = 2_000          # games with search per iteration, over every side
DEFAULT_K, DEFAULT_N = 8, 16   # the search player's options kept and samples
DEFAULT_EXTRA = 4              # options not played out recorded per decision
DEFAULT_CHECK_GAMES = 10_000   # plain games per side against the base and each field strategy
CHUNK_GAMES = 25               # games per chunk task (search games are slow)


@dataclass
class Iteration:
    number: int
    games: int
    search_wins: int            # games the search side won
    policy_wins: int            # games another side won
    decisions: int              # decisions recorded
    informative: int            # ... where the search preferred one option (fitted)
    agreement: float            # share of those the fitted policy ranks as the search did
    base_agreement: float       # the same for the policy the iteration started from
    loss: float
    base_loss: float
    weights: list[float] = field(default_factory=list)
    # per decision kind, where the policy that played chose otherwise than the search:
    # [decisions fitted, chosen otherwise, value lost in all] (policy_fit.shortfall)
    shortfall: dict[str, list] = field(default_factory=dict)

    def search_share(self) -> float:
        decided = self.search_wins + self.policy_wins
        return self.search_wins / decided if decided else float("nan")

    def as_dict(self) -> dict[str, Any]:
        return {"number": self.number, "games": self.games, "search_wins": self.search_wins,
                "policy_wins": self.policy_wins, "decisions": self.decisions,
                "informative": self.informative, "agreement": self.agreement,
                "base_agreement": self.base_agreement, "loss": self.loss,
                "base_loss": self.base_loss, "weights": list(self.weights),
                "shortfall": {kind: list(row) for kind, row in self.shortfall.items()}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Iteration":
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


@dataclass
class DistillResult:
    out: Path
    document: dict[str, Any]
    iterations: list[Iteration]
    check: dict[str, Any]
    seconds: float
    parts: dict[int, "DistillResult"] | None = None   # --per-count: each count's run

    def report(self) -> str:
        if self.parts:
            blocks = [f"{p} players:\n{part.report()}" for p, part in self.parts.items()]
            own = ', '.join(map(str, self.document["by_players"]))
            return "\n".join(blocks + [f"strategy file: {self.out} ("
                                        + (f"weights of their own at {own} players; " if own
                                           else "the same weights at every count; ")
                                        + f"{self.seconds:.0f} s)"])
        lines = ["iteration  games  search side's wins (of the decided)  decisions fitted  "
                 "policy ranks the search's choice first (before)"] if self.iterations else [
            "weights made by another command (tuned_on.command), checked"]
        for it in self.iterations:
            lines.append(f"{it.number:>9}  {it.games:>5}  {it.search_wins:>6} "
                         f"({100 * it.search_share():5.1f} %)"
                         f"  {it.informative:>8,} of {it.decisions:,}  "
                         f"{100 * it.agreement:5.1f} % ({100 * it.base_agreement:5.1f} %)")
        lines += shortfall_lines(self.iterations[-1] if self.iterations else None)
        held = self.document.get("tuned_on", {}).get("settings", {}).get("hold")
        if held:
            lines.append(held_text(held))
        c = self.check
        opponents = ([(c["opponent"], c)] if c.get("players") else []) + list(
            (c.get("field") or {}).items())
        for name, result in opponents:
            for players, row in result["players"].items():
                lines.append(f"{players} players, against {name}, {row['games']:,} plain "
                             f"games (every side): {100 * row['share']:.2f} % of the decided "
                             f"games [95 % CI {100 * row['share_low']:.2f} - "
                             f"{100 * row['share_high']:.2f}; fair "
                             f"{100 * row['fair_share']:.1f} %]"
                             + ("  beaten" if loses(row) else ""))
        score = self.document.get("score", {})
        beaten = {int(p): names for p, names in (score.get("beaten_by") or {}).items()}
        if beaten:
            lines.append(why_kept(beaten, self.document.get("base"), score.get("min_share"))
                         + (": the file keeps the base's weights" if score.get("kept_base") else ""))
        lines.append(f"strategy file: {self.out} ({self.seconds:.0f} s)")
        return "\n".join(lines)


def _digest(vector: np.ndarray) -> str:
    return hashlib.sha256(np.asarray(vector, dtype=np.float64).tobytes()).hexdigest()[:12]


def _strategy_doc(game: str, names: Sequence[str], vector: np.ndarray) -> dict[str, Any]:
    """A strategy file holding ``vector`` (the policy the chunk tasks read)."""
    return {"cardsim_strategy": 1, "game": game,
            "weights": {n: float(w) for n, w in zip(names, vector)}}


@dataclass
class Distiller:
    """One distillation (module docstring): ``arena`` is the game's tune arena (its
    sides, weight names, learned weights and tallies), ``request`` the
    ``sim.core.game.game_request`` of the cards and rules, ``run_tasks(tasks)`` plays
    ChunkTasks on a backend and yields their results."""

    game: str
    players: tuple[int, ...]     # the player counts it plays at, games shared equally
    out: Path
    base: str
    base_vector: np.ndarray
    arenas: Mapping[int, Any]    # the game's tune arena at each player count
    request: Mapping[str, Any]
    run_tasks: Callable[[list[Any]], Iterable[Any]]
    iterations: int = DEFAULT_ITERATIONS
    games: int = DEFAULT_GAMES
    k: int = DEFAULT_K
    n: int = DEFAULT_N
    extra: int = DEFAULT_EXTRA
    l2: float = 1.0
    objective: str = "value"
    sharpness: float = 3.0
    keep_noise: bool = False
    check_games: int = DEFAULT_CHECK_GAMES
    seed: int = 1
    threads: int = 1
    field_strategies: tuple[str, ...] = ()   # the other shipped strategies it is checked against
    keep_base_if_beaten: bool = False
    opponents: tuple[str, ...] = ()   # strategies the other sides play in a share of the games
    given: np.ndarray | None = None   # weights made elsewhere: checked only, not distilled
    hold: tuple[tuple[int, float | None], ...] = ()   # (weight, value or None) the fit leaves
    chunk_games: int = CHUNK_GAMES
    bar: Any = None

    @property
    def min_share(self) -> float | None:
        """The share of the decided games against the base a result must win to be kept
        (``KEEP_SHARE`` with keep_base_if_beaten, else None: only a beaten result is)."""
        return KEEP_SHARE if self.keep_base_if_beaten else None

    @property
    def arena(self) -> Any:
        """The arena of the first player count (names, features: the same at every count)."""
        return self.arenas[self.players[0]]

    @property
    def learned(self) -> np.ndarray:
        """The weights the fit changes: the arena's, less the held ones (``hold``)."""
        return np.array(self.arena.learned, dtype=bool) & ~held_mask(len(self.arena.names),
                                                                     self.hold)

    @property
    def work(self) -> Path:
        """The chunks' directory beside the output (removed at the end)."""
        return self.out.with_name(self.out.stem + ".distill")

    def settings(self) -> dict[str, Any]:
        """What decides the result (the journal's header)."""
        return {"game": self.game, "players": [int(p) for p in self.players], "base": self.base,
                "base_weights": [float(x) for x in self.base_vector],
                "iterations": int(self.iterations), "games": int(self.games), "k": int(self.k),
                "n": int(self.n), "extra": int(self.extra), "l2": float(self.l2),
                "objective": self.objective, "sharpness": float(self.sharpness),
                "keep_noise": bool(self.keep_noise),
                "seed": int(self.seed), "check_games": int(self.check_games),
                "field": list(self.field_strategies), "keep_base_if_beaten": bool(self.keep_base_if_beaten),
                "chunk_games": int(self.chunk_games), "request": dict(self.request),
                # only when given: journals of runs without them stay valid
                **({"opponents": list(self.opponents)} if self.opponents else {}),
                **({"hold": self.hold_settings()} if self.hold else {}),
                **({"given": [float(x) for x in self.given]} if self.given is not None
                   else {})}

    def hold_settings(self) -> dict[str, float | None]:
        """The held weights by name, each with the value it is held at (None: the base's)."""
        return held_settings(self.hold, self.arena.names)

    # -- playing
    def _policy_file(self, where: Path, vector: np.ndarray) -> str:
        from sim.core.strategy_file import dump

        where.mkdir(parents=True, exist_ok=True)
        path = where / "policy.yaml"
        path.write_text(dump(_strategy_doc(self.game, self.arena.names, vector)),
                        encoding="utf-8")
        return str(path.resolve())

    def _chunks(self, first: int, count: int) -> list[tuple[int, int]]:
        return [(start, min(self.chunk_games, first + count - start))
                for start in range(first, first + count, self.chunk_games)]

    def _play(self, where: Path, jobs: list[tuple[Any, int, int]], columns: Sequence[str]
              ) -> list[list[Any]]:
        """Play every (request, first game, games) of ``jobs`` as chunks under ``where``
        (job j in ``where/job-j``; chunks already on disk are not played again) and
        return each job's parts, read back in game order (``columns``)."""
        import polars as pl

        from sim.runs.backends import ChunkTask
        from sim.runs.rundir import RunDir

        tasks, parts = [], []
        for number, (request, first, count) in enumerate(jobs):
            run_dir = where / f"job-{number}"
            (run_dir / "games").mkdir(parents=True, exist_ok=True)
            run = RunDir(run_dir)
            mine = []
            for start, size in self._chunks(first, count):
                mine.append(run.part_path(self.seed, start))
                if run.part_done(self.seed, start, size):
                    if self.bar is not None:
                        self.bar.update(size)
                    continue
                tasks.append(ChunkTask(request, str(run_dir), self.seed, start, size,
                                       self.threads, tag=number))
            parts.append(mine)
        for result in self.run_tasks(tasks):
            if self.bar is not None:
                self.bar.update(result.count)
        return [[pl.read_parquet(path, columns=list(columns)) for path in mine]
                for mine in parts]

    @staticmethod
    def _tally(tables: list[Any], arena: Any, side: int):
        from sim.core.arena import Tally

        tally = Tally()
        for table in tables:
            codes = table["winner"].to_numpy().astype(np.int64)
            counts = np.bincount(codes + 128, minlength=256)
            tally.add(arena.tally_counts(counts, side, len(codes)))
        return tally

    def _seatings(self) -> list[tuple[int, int]]:
        """Every (player count, side) in turn: the order the games are shared in."""
        return [(p, side) for p in self.players for side in range(self.arenas[p].sides)]

    def _jobs(self, candidate: str, opponent: str, first: int, games: int
              ) -> list[tuple[Any, int, int]]:
        """(request, first game, games) per seating: ``candidate`` on the side, the
        ``opponent`` everywhere else, ``games`` shared out, game indices from ``first``."""
        from sim.runs.backends import ConfigRequest

        seatings = self._seatings()
        share = [games // len(seatings) + (i < games % len(seatings))
                 for i in range(len(seatings))]
        jobs = []
        for i, (players, side) in enumerate(seatings):
            strategies = self.arenas[players].sided_strategies(candidate, opponent, side)
            request = ConfigRequest.build(self.game, players,
                                          {**self.request, "strategies": strategies})
            jobs.append((request, first + sum(share[:i]), share[i]))
        return jobs

    def iteration(self, number: int, vector: np.ndarray) -> Iteration:
        """Play the iteration's games with search over ``vector``, fit, return the result."""
        from sim.core.policy_fit import decisions_of, fit_policy, informative, select, shortfall
        from sim.core.recorded import RECORD_COLUMNS, recordings_of

        where = self.work / f"iteration-{number}-{_digest(vector)}"
        policy = "@" + self._policy_file(where, vector)
        search = f"search:k={self.k},n={self.n},base={policy},record={self.extra}"
        # the other sides play the policy, or each of ``opponents`` in an equal share
        rivals = (policy, *self.opponents)
        jobs, first = [], (number - 1) * self.games
        for i, rival in enumerate(rivals):
            games = self.games // len(rivals) + (i < self.games % len(rivals))
            jobs += self._jobs(search, rival, first, games)
            first += games
        tables = self._play(where, jobs, ("winner", *RECORD_COLUMNS))
        search_wins = policy_wins = 0
        recordings = []
        for (players, side), side_tables in zip(self._seatings() * len(rivals), tables):
            tally = self._tally(side_tables, self.arenas[players], side)
            search_wins += tally.wins
            policy_wins += tally.rival_wins
            recordings += [recordings_of(t, self.arena.feature_width) for t in side_tables]
        decisions = decisions_of(recordings)
        keep = informative(decisions)
        fitted = select(decisions, keep)
        fit = fit_policy(fitted, vector, self.learned,
                         objective=self.objective, l2=self.l2, sharpness=self.sharpness)
        kinds = self.arena.decision_kinds
        short = {kinds[kind]: [n, other, round(lost, 6)]
                 for kind, (n, other, lost) in shortfall(fitted, vector).items()}
        return Iteration(number, self.games, search_wins, policy_wins, decisions.count,
                         int(keep.sum()), float(fit.agreement), float(fit.base_agreement),
                         float(fit.loss), float(fit.base_loss),
                         [float(x) for x in fit.weights], short)

    def check(self, vector: np.ndarray) -> dict[str, Any]:
        """``vector`` against the starting base, then against each ``field`` strategy:
        plain games, every side in turn, on game indices after every iteration's (the
        same deals for every opponent)."""
        if self.check_games <= 0:
            return {"games": 0}
        where = self.work / f"check-{_digest(vector)}"
        mine = "@" + self._policy_file(where, vector)
        base = "@" + self._policy_file(where / "base", self.base_vector)
        result = {"opponent": self.base, **self._against(where, mine, base)}
        result["field"] = {name: self._against(where / f"field-{number}", mine, name)
                           for number, name in enumerate(self.field_strategies)}
        result["base_field"] = {name: self._against(where / f"base-field-{number}", base, name)
                                for number, name in enumerate(self.field_strategies)}
        return result

    def _against(self, where: Path, mine: str, opponent: str) -> dict[str, Any]:
        from sim.core.arena import Tally

        seatings = self._seatings()
        jobs = self._jobs(mine, opponent, self.iterations * self.games,
                          self.check_games * len(seatings))
        saved, self.chunk_games = self.chunk_games, max(self.chunk_games, 5_000)
        try:
            tables = self._play(where, jobs, ("winner",))
        finally:
            self.chunk_games = saved
        by_players = {p: Tally() for p in self.players}
        for (players, side), side_tables in zip(seatings, tables):
            by_players[players].add(self._tally(side_tables, self.arenas[players], side))
        total = Tally()
        for tally in by_players.values():
            total.add(tally)
        return {**tally_shares(total, self.arenas[self.players[0]].fair_share),
                "players": {str(p): tally_shares(t, self.arenas[p].fair_share)
                            for p, t in by_players.items()}}

    def start_vector(self) -> np.ndarray:
        """The first policy: the base, without its noise draws unless ``keep_noise``, each
        weight held at a value (``hold``) set to it."""
        vector = np.array(self.base_vector, dtype=np.float64)
        if not self.keep_noise:
            vector[self.arena.noise] = 0.0
        return held_vector(vector, self.hold)

    # -- the whole command
    def run(self, *, progress: bool = True, resume: bool = False,
            document_extra: Mapping[str, Any] | None = None) -> DistillResult:
        from sim.core.progress import bar_context, progress_bar
        from sim.runs.resumable import Journal, journal_beside, stoppable
        from sim.studies.tune import write_strategy_file

        journal_path = journal_beside(self.out)
        started = time.perf_counter()
        done: list[Iteration] = []
        with stoppable("distill", journal_path), Journal.open(
                journal_path, self.settings(), what="distill", resume=resume,
                out=self.out) as journal:
            # given weights: no iterations, only the check, on the deals a distillation's
            # check plays
            iterations = self.iterations if self.given is None else 0
            total = (iterations * self.games
                     + self.check_games * len(self._seatings()) * (1 + 2 * len(self.field_strategies)))
            self.bar = progress_bar(progress, total, "distill")
            with bar_context(self.bar):
                vector = (self.start_vector() if self.given is None
                          else np.array(self.given, dtype=np.float64))
                for number in range(1, iterations + 1):
                    key = ("iteration", number, _digest(vector))
                    if self.bar is not None and step_done(journal, key):
                        self.bar.update(self.games)
                    answer = journal.step(key, lambda: self.iteration(number, vector).as_dict())
                    done.append(Iteration.from_dict(answer))
                    vector = np.asarray(done[-1].weights, dtype=np.float64)
                check = journal.step(("check", _digest(vector)), lambda: self.check(vector))
            self.bar = None
            seconds = time.perf_counter() - started
            beaten = beaten_by(check, self.min_share)
            if self.keep_base_if_beaten and beaten:
                vector = np.array(self.base_vector, dtype=np.float64)
            doc = self.document(vector, done, check, beaten, document_extra or {}, seconds)
            path = write_strategy_file(doc, self.out, by="simulate distill")
            journal.remove()
        shutil.rmtree(self.work, ignore_errors=True)
        return DistillResult(path, doc, done, check, seconds)

    def document(self, vector: np.ndarray, done: list[Iteration], check: Mapping[str, Any],
                 beaten: Mapping[int, list[str]], extra: Mapping[str, Any],
                 seconds: float) -> dict[str, Any]:
        """The strategy file's content (sim/core/strategy_file.py reads it back);
        ``beaten``: beaten_by(check)."""
        import sim

        searched = sum(it.games for it in done)
        held = f"; {held_text(self.hold_settings())}" if self.hold else ""
        kept = (f"; {why_kept(beaten, self.base, self.min_share)}, so it keeps the base's weights"
                if self.keep_base_if_beaten and beaten else "")
        return {
            "cardsim_strategy": 1,
            "game": self.game,
            "name": self.out.stem,
            "summary": f"distilled by simulate distill for {'/'.join(map(str, self.players))} "
                       f"players from "
                       f"{self.base} (search:k={self.k},n={self.n}; {len(done)} iterations, "
                       f"{searched:,} games with search){held}{kept}",
            "players": [int(p) for p in self.players],
            "base": self.base,
            "weights": {name: float(w) for name, w in zip(self.arena.names, vector)},
            "tuned_on": {
                **dict(extra),
                "method": "expert iteration: the search player over the policy decides for "
                          "one side, every side in turn; the policy's weights are fitted to "
                          "its decisions (sim/core/policy_fit.py), L2 toward the policy",
                "seed": int(self.seed),
                "settings": {"iterations": int(self.iterations), "games": int(self.games),
                             "k": int(self.k), "n": int(self.n), "extra": int(self.extra),
                             "objective": self.objective, "sharpness": float(self.sharpness),
                             "l2": float(self.l2), "keep_noise": bool(self.keep_noise),
                             "check_games": int(self.check_games),
                             **({"opponents": list(self.opponents)} if self.opponents else {}),
                             **({"hold": self.hold_settings()} if self.hold else {})},
                "iterations": [{key: (round(v, 6) if isinstance(v, float) else v)
                                for key, v in it.as_dict().items() if key != "weights"}
                               for it in done],
                "package_version": sim.__version__,
                "source_hash": sim.source_hash(),
                "seconds": round(seconds, 1),
            },
            "score": {
                "method": "plain games against the starting base on fresh seeds, every "
                          "side; share = wins / games someone won, Wilson 95 % interval",
                "against": {key: (round(v, 6) if isinstance(v, float) else v)
                            for key, v in check.items()},
                "beaten_by": {str(p): names for p, names in beaten.items()},
                "min_share": self.min_share,
                "kept_base": bool(self.keep_base_if_beaten and beaten),
            },
        }


def shortfall_lines(it: Iteration | None) -> list[str]:
    """Where the last iteration's policy chose otherwise than the search, per decision
    kind: what the fit has left to learn, and where a new feature would pay."""
    if it is None or not it.shortfall:
        return []
    total = sum(lost for _, _, lost in it.shortfall.values())
    lines = [f"where iteration {it.number}'s policy chose otherwise than the search (value: "
             "the search's mean playout result, a win 1):"]
    for kind, (n, other, lost) in it.shortfall.items():
        lines.append(f"  {kind}: {n:,} decisions, {100 * other / n:.1f} % chosen otherwise, "
                     f"{lost / n:.4f} value lost a decision, "
                     f"{100 * lost / total if total else 0:.0f} % of the loss")
    return lines


def step_done(journal: Any, key_parts: Any) -> bool:
    """Is the step asked ``key_parts`` in the journal (answered without playing)?"""
    from sim.runs.resumable import step_key

    return step_key(key_parts) in journal


# ----------------------------------------------------------------------------- the command
def distill_strategy(*, game: str, players: Any = None, out: str | Path,
                     base: str | None = None, iterations: Any = None, games: Any = None,
                     k: Any = None, n: Any = None, extra: Any = None, l2: Any = None,
                     objective: str | None = None, sharpness: Any = None,
                     keep_noise: bool = False,
                     check_games: Any = None, seed: Any = 1, cards: str | None = None,
                     rules_file: str | None = None, rule_overrides: tuple[str, ...] = (),
                     threads: Any = None, backend: Any = None,
                     backend_options: Mapping[str, Any] | None = None, progress: bool = True,
                     command_line: str | None = None, resume: bool = False,
                     per_count: bool = False, keep_base_if_beaten: bool = False,
                     opponents: Any = None, given: str | None = None,
                     hold: Any = None) -> DistillResult:
    """``simulate distill`` / ``api.distill``: check every input, pick the backend, then
    distil (module docstring) and write the strategy file ``out``. ``per_count``: one
    distillation per player count, combined into one file (sim/studies/distill_counts.py),
    each count keeping the base's weights where its result falls short (beaten_by with
    KEEP_SHARE), the counts not distilled playing the base's. ``given``: a strategy whose
    weights are checked as a result would be, instead of distilling (--per-count checks
    so each count's file that another command made beforehand). ``hold``: weights the fit
    leaves alone (held_weights)."""
    from sim.core.game import configure_request, game_request, resolve_game
    from sim.core.inputs import parse_count, parse_seed
    from sim.core.policy_fit import DEFAULT_L2, DEFAULT_SHARPNESS, OBJECTIVES
    from sim.core.strategy import parse_spec, registry
    from sim.runs.backends import resolve
    from sim.runs.setup import own_command_line
    from sim.studies.tune import field_baselines

    game_obj = resolve_game(game)
    counts = _player_counts(game_obj, players)
    seed = parse_seed(seed)
    arena_cls = game_obj.tune_arena
    if arena_cls is None:
        raise UserError(f"game '{game}' has no parametric strategy to distil", field="--game")
    if min(counts) < 2:
        raise UserError("distill plays a search player against its policy: at least 2 "
                        "players", field="--players")
    out_path = Path(out)
    if out_path.suffix.lower() not in (".yaml", ".yml"):
        raise UserError("the strategy file must end in .yaml or .yml", file=str(out_path),
                        field="--out")
    from sim.runs.resumable import refuse_finished_file

    refuse_finished_file(out_path, "distillation")
    base = base or game_obj.default_strategy
    request = game_request(cards, rules_file, rule_overrides, None, False)

    def configure_with(players, strategies):
        return configure_request(game_obj, players, {**request, "strategies": strategies})

    def weights_of(spec, players):
        """The weight vector strategy ``spec`` plays at ``players``."""
        return arena_cls.vector_of(configure_with(players, arena_cls.strategies_for(spec)))

    if per_count and len(counts) > 1:
        from sim.studies.distill_counts import distill_each_count

        # every count's file records this command, which tells them from files other
        # commands made (distill_counts)
        command_line = command_line if command_line is not None else own_command_line()
        same = dict(game=game, base=base, iterations=iterations, games=games, k=k, n=n,
                    extra=extra, l2=l2, objective=objective, sharpness=sharpness,
                    keep_noise=keep_noise, check_games=check_games, seed=seed, cards=cards,
                    rules_file=rules_file, rule_overrides=rule_overrides, threads=threads,
                    backend=backend, backend_options=backend_options, progress=progress,
                    command_line=command_line, keep_base_if_beaten=True,
                    opponents=opponents, hold=hold)
        main = game_obj.default_players if game_obj.default_players in counts else counts[0]
        base_at = {p: weights_of(base, p) for p in game_obj.player_counts if p not in counts}
        path, document, parts, seconds = distill_each_count(
            counts, main, out_path, resume, command_line,
            lambda **each: distill_strategy(**same, **each),
            lambda part, doc: DistillResult(part, doc, [], {}, 0.0), base_at)
        return DistillResult(path, document, [], {}, seconds, parts=parts)
    iterations = parse_count(iterations if iterations is not None else DEFAULT_ITERATIONS,
                             field="--iterations")
    games = parse_count(games if games is not None else DEFAULT_GAMES, field="--games")
    k = parse_count(k if k is not None else DEFAULT_K, "--k", 4096)
    n = parse_count(n if n is not None else DEFAULT_N, "--n", 100_000)
    extra = int(extra) if extra is not None else DEFAULT_EXTRA
    if extra < 0:
        raise UserError("--extra must be 0 or more", field="--extra")
    l2 = float(l2) if l2 is not None else DEFAULT_L2
    if not l2 > 0:
        raise UserError("--l2 must be above 0", field="--l2")
    objective = objective or OBJECTIVES[0]
    if objective not in OBJECTIVES:
        raise UserError(f"--objective must be one of {', '.join(OBJECTIVES)}",
                        field="--objective")
    sharpness = float(sharpness) if sharpness is not None else DEFAULT_SHARPNESS
    if not sharpness > 0:
        raise UserError("--sharpness must be above 0", field="--sharpness")
    check = DEFAULT_CHECK_GAMES
    if check_games is not None:
        check = 0 if str(check_games).strip() == "0" else parse_count(check_games,
                                                                      field="--check-games")
    templates = {p: configure_with(p, None) for p in counts}   # every input checked first
    strategy, _ = parse_spec(base, game_obj.strategy_package, field_name="--base")
    if strategy.search:
        raise UserError("the base is the policy the search plays over: give a strategy "
                        "that is not a search player", field="--base")
    rivals = opponent_specs(opponents, game_obj.strategy_package)
    base_vector = weights_of(base, counts[0])
    given_vector = None if given is None else weights_of(given, counts[0])
    field = tuple(name for name, vector in field_baselines(
        arena_cls, lambda strategies: configure_with(counts[0], strategies),
        registry(game_obj.strategy_package)).items() if not np.array_equal(vector, base_vector))
    # The arenas (and an owned backend) close however this ends, an input they check
    # refused included.
    with ExitStack() as opened:
        arenas = {}
        for p in counts:
            arenas[p] = opened.enter_context(closing(arena_cls(templates[p], 1)))
        held = held_weights(hold, arenas[counts[0]])
        template = templates[counts[0]]
        chosen, owned = resolve(backend, backend_options)
        if owned:
            opened.enter_context(closing(chosen))
        threads = (chosen.default_threads() if threads is None
                   else parse_count(threads, "--threads", 4096))
        manifest = template.manifest()
        distiller = Distiller(
            game=game_obj.name, players=counts, out=out_path, base=base,
            base_vector=base_vector, arenas=arenas, request=request,
            run_tasks=lambda tasks: chosen.run_tasks(tasks, aggregate=False),
            iterations=iterations, games=games, k=k, n=n, extra=extra, l2=l2,
            objective=objective, sharpness=sharpness, keep_noise=keep_noise,
            check_games=check, seed=seed, threads=threads, field_strategies=field,
            keep_base_if_beaten=keep_base_if_beaten, opponents=rivals, given=given_vector,
            hold=held)
        extra_doc = {
            "command": command_line if command_line is not None else own_command_line(),
            "cards": {"path": str(request["cards"] or manifest["cards"]["path"]),
                      "sha256": manifest["cards"]["sha256"],
                      "content_sha256": content_sha256_or_none(
                          request["cards"] or manifest["cards"]["path"])},
            "rules_file": request["rules_file"],
            "rule_overrides": list(request["rule_overrides"]),
            "rules": {key: ({str(p): v for p, v in val.items()} if isinstance(val, dict)
                            else val) for key, val in manifest["rules"].items()},
            "backend": chosen.name,
        }
        return distiller.run(progress=progress, resume=resume, document_extra=extra_doc)


def opponent_specs(opponents: Any, package: str) -> tuple[str, ...]:
    """``--opponents``: strategies (``random,bluffer`` or a list, read as --strategies is:
    sim.studies.matchup_files.split_specs) the other sides play in a share of each
    iteration's games, each checked; none by default."""
    from sim.core.strategy import parse_spec
    from sim.studies.matchup_files import split_specs

    if opponents is None:
        return ()
    names = split_specs(opponents)
    for name in names:
        strategy, _ = parse_spec(name, package, field_name="--opponents")
        if strategy.search:
            raise UserError("an opponent plays plain games: give a strategy that is not a "
                            "search player", field="--opponents")
    return tuple(names)


def held_weights(hold: Any, arena: Any) -> tuple[tuple[int, float | None], ...]:
    """``--hold`` (sim/studies/held.py) on ``arena``'s weights: only weights the fit
    would change can be held; the others stay the base's anyway."""
    held = parse_held(hold, arena.names)
    fixed = [arena.names[i] for i, _ in held if not arena.learned[i]]
    if fixed:
        raise UserError(f"{', '.join(fixed)}: not fitted by distill (only the "
                        "weights of the decisions the search makes are)", field="--hold")
    return held


def _player_counts(game_obj: Any, players: Any) -> tuple[int, ...]:
    """``--players``: one count (``4``), several (``2,4,6``, or a list), or None (the
    game's usual count); each checked against the game's counts."""
    from sim.core.game import player_count

    if players is None or isinstance(players, int):
        return (player_count(game_obj, players),)
    items = (str(players).split(",") if isinstance(players, str) else list(players))
    try:
        counts = tuple(sorted({int(str(item).strip()) for item in items if str(item).strip()}))
    except ValueError:
        raise UserError(f"--players takes player counts such as 4 or 2,4,6; got '{players}'",
                        field="--players") from None
    if not counts:
        raise UserError("--players: give at least one player count", field="--players")
    return tuple(player_count(game_obj, p) for p in counts)
