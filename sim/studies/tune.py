"""``simulate tune``: the weights of a parametric strategy that win most, found by self-play.

The search (``search``) is CMA-ES from the ``cma`` package over every weight of the
game's weight vector, in a normalised space: a point ``x`` plays the weights
``base + scale * x``, where ``scale`` is each base weight's size (at least 1; the
Peer-to-Peer phase switch, counted in cards, 10), so one step of sigma means the same
relative change for a weight of 1000 and one of 0.01.

Self-play. Each generation, every candidate (and, on the same games, the current
champion and the CMA mean) plays the *field*: the champion, the hall of fame (the last
``hall_size`` earlier champions) and the shipped baselines, in every seat: both teams
for Peer-to-Peer (so also the larger team at 3 and 5 players), every seat position for
PLAI, the other seats filled by the opponent. All of a generation's evaluations play
the same seeds and game indices (common random numbers); each generation takes fresh
indices. The objective is the candidate's own win rate over all its games: games
everyone loses, draws and stalemates count as not won.

Promotion. After a generation the CMA mean becomes the champion (the old one joins the
hall of fame) when its score against the field beats the champion's by more than one
standard error on the same games.

Restarts. A CMA-ES run settles on a plateau and which one depends on its seed, so with
``patience`` (an arena's ``restart_patience``; off by default) a run that has gone that
many generations without a promotion ends and a new one starts from the base with its
own seed (population times ``restart_popsize``: 2 is IPOP), while the budget leaves room
for twice its patience. Each run keeps its own champion and hall of fame; earlier runs'
champions join every later run's field. Run 1 plays exactly as a search without restarts.

Games per evaluation grow with the budget spent (``growth``, an arena's
``eval_growth``): ``games_per_eval`` at the start, ``growth`` times that at the end, so
the late generations, whose candidates differ by less, are compared on more games.

The final. The last ``FINALISTS`` champions (the current one and the hall of fame's
latest) and the final CMA mean play each other on fresh seeds (half the re-check's
games per ordered pair, every seat: 10,000 by default; with restarts, each run's latest
champions, the finalists shared out, and its final mean, on fewer games per pair so the
final costs no more); the one with the highest share of the games someone won becomes the final champion (a tie keeps the current champion). Promotions are decided on
one generation's games; the final compares the candidates head to head on many more.

Winner's curse guard. The final champion is re-checked on fresh seeds against every
baseline and the previous champion (Wilson 95 % intervals of its share of the games
someone won; a fair share is 1/2 for Peer-to-Peer, 1/P for PLAI). If it is significantly
worse than the previous champion, the previous one is taken (and re-checked) instead.

The games are played through the engine's usual entry points (``GameConfig.play`` with
weight vectors swapped in) in a thread pool, or as chunk tasks on a Dask backend (each
candidate written as a strategy file the workers read: evaluations are games). The
result depends only on the seed and the inputs: the same weights on every backend.
"""
from __future__ import annotations

import dataclasses
import math
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from sim.core.arena import (DEFAULT_GROWTH, DEFAULT_PATIENCE, DEFAULT_RESTART_POPSIZE,
                            DEFAULT_SIGMA, Arena, Block, Tally)
from sim.core.csvfile import content_sha256_or_none
from sim.core.errors import UserError
from sim.core.output import writing

DEFAULT_GAMES_PER_EVAL = 1_000      # games per candidate per generation, over the field
DEFAULT_CHECK_GAMES = 20_000        # games per opponent in the final re-check
HALL_SIZE = 4                       # earlier champions kept in the field
FINALISTS = 6                       # the last champions (and the CMA mean) in the final
FINAL_SHARE = 0.5                   # games per ordered pair of finalists / re-check games
PROMOTE_Z = 1.0                     # standard errors the mean must beat the champion by
PREVIOUS = "previous champion"      # the re-check's row for the champion before the last


class DaskArena:
    """Plays a game arena's blocks as chunk tasks on a backend (``sim.runs.backends``): each
    vector is written as a strategy file the workers read, each block is one task in its
    own scratch run directory, and the tally comes from the chunk's ``winner`` counts.
    ``submit(tasks)`` plays tuples (ConfigRequest, run_dir, seed, start, count, tag) and
    yields results with ``.tag`` and ``.aggregates`` (the caller owns the backend)."""

    def __init__(self, inner: Any, submit: Callable[[list[tuple]], Any], request: Any,
                 scratch: str | os.PathLike):
        self.inner, self.submit, self.request = inner, submit, request
        self.scratch = Path(scratch)
        self.game, self.players, self.names = inner.game, inner.players, inner.names
        self.sides, self.fair_share = inner.sides, inner.fair_share
        self._round = 0

    def play_blocks(self, vectors, blocks):
        import shutil

        from sim.core.strategy_file import dump

        self._round += 1
        where = self.scratch / f"round-{self._round:06d}"
        (where / "runs").mkdir(parents=True, exist_ok=True)
        specs, pairs = [], {}
        for i, vector in enumerate(vectors):
            path = where / f"w{i}.yaml"
            path.write_text(dump({"cardsim_strategy": 1, "game": self.game,
                                  "weights": dict(zip(self.names, map(float, vector)))}),
                            encoding="utf-8")
            specs.append("@" + str(path))
        tasks = []
        for n, block in enumerate(blocks):
            key = (block.candidate, block.opponent, block.side)
            if key not in pairs:
                pairs[key] = self._request(specs[block.candidate], specs[block.opponent],
                                           block.side)
            run_dir = where / "runs" / f"b{n}"
            (run_dir / "games").mkdir(parents=True, exist_ok=True)
            tasks.append((pairs[key], str(run_dir), block.seed, block.start, block.count, n))
        tallies: list[Tally | None] = [None] * len(blocks)
        for result in self.submit(tasks):
            block = blocks[result.tag]
            counts = np.zeros(256, dtype=np.int64)
            for value, count in result.aggregates["counts"]["winner"].items():
                counts[int(value) + 128] = count
            tallies[result.tag] = self.inner.tally_counts(counts, block.side, block.count)
        shutil.rmtree(where, ignore_errors=True)
        return tallies

    def _request(self, candidate: str, opponent: str, side: int):
        slots = self.inner.sided_strategies(candidate, opponent, side)
        return dataclasses.replace(self.request, strategies=tuple(sorted(slots.items())))

    def close(self) -> None:
        self.inner.close()


class JournaledArena:
    """An arena whose answers are kept in a ``sim.runs.resumable.Journal``: each
    ``play_blocks`` call (a generation, the final, a re-check) is recorded when played and
    answered from the journal when a resumed search asks it again, so ``tune --resume``
    replays the search up to where it stopped (CMA-ES is told the recorded scores and asks
    exactly what it asked before) and plays on from there."""

    def __init__(self, inner: Any, journal: Any):
        self.inner, self.journal = inner, journal

    def play_blocks(self, vectors, blocks):
        asked = ("play_blocks", [np.asarray(v, dtype=np.float64) for v in vectors],
                 [dataclasses.astuple(b) for b in blocks])
        return self.journal.step(asked, lambda: self.inner.play_blocks(vectors, blocks),
                                 encode=_flat_tallies, decode=_tallies)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def _flat_tallies(tallies: Sequence[Tally]) -> list[int]:
    return [int(x) for t in tallies for x in (t.wins, t.rival_wins, t.games)]


def _tallies(flat: Sequence[int]) -> list[Tally]:
    return [Tally(int(flat[i]), int(flat[i + 1]), int(flat[i + 2]))
            for i in range(0, len(flat), 3)]


# ----------------------------------------------------------------------------- the search
@dataclass
class Generation:
    number: int
    games: int                         # games played by this generation (all evaluations)
    champion: dict[str, float]         # champion vs field: win_rate, ci_low, ci_high
    mean: dict[str, float]             # CMA mean vs field
    best: float                        # best candidate's win rate
    promoted: bool
    sigma: float
    run: int = 1                       # the CMA run (restarts count up)


@dataclass
class CheckRow:
    opponent: str
    games: int
    wins: int
    rival_wins: int
    win_rate: float
    share: float
    share_low: float
    share_high: float
    fair_share: float

    @property
    def beats(self) -> bool:
        return self.share_low > self.fair_share

    def as_dict(self) -> dict[str, Any]:
        row = dataclasses.asdict(self)
        row["beats"] = self.beats
        return row


@dataclass
class SearchResult:
    weights: np.ndarray
    base: np.ndarray
    champions: int                       # promotions during the search
    generations: list[Generation]
    check: list[CheckRow]
    games: int                           # games played by the search
    check_games: int                     # games played by the re-check
    reverted: bool = False               # the winner's-curse guard took the previous champion
    seconds: float = 0.0
    final: list[dict[str, Any]] = field(default_factory=list)   # the final's table, by entry
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def beats_every_baseline(self) -> bool:
        """The shipped strategies, that is; the previous champion need only not be better."""
        return all(row.beats for row in self.check if row.opponent != PREVIOUS)


def derived_seeds(seed: int, count: int) -> list[int]:
    """Independent 63-bit game seeds from the tune seed (search, check, CMA)."""
    state = np.random.SeedSequence(int(seed)).generate_state(count * 2, dtype=np.uint32)
    return [int((int(state[2 * i]) << 31) ^ int(state[2 * i + 1])) & (2**63 - 1)
            for i in range(count)]


def scales_for(names: Sequence[str], base: np.ndarray, floors: Mapping[str, float]) -> np.ndarray:
    """Each weight's scale: its base size, at least 1 (or its floor, e.g. the switch)."""
    return np.array([max(abs(float(w)), float(floors.get(n, 1.0))) for n, w in zip(names, base)])


def _wilson(successes: int, n: int) -> tuple[float, float, float]:
    from sim.core.stats import wilson

    rate, lo, hi = wilson(int(successes), int(n))
    return float(rate), float(lo), float(hi)


def rate_of(t: Tally) -> dict[str, float]:
    rate, lo, hi = _wilson(t.wins, t.games)
    return {"win_rate": rate, "ci_low": lo, "ci_high": hi, "games": t.games}


class Progress:
    """A click progress bar on stderr over the search's games (only on a terminal)."""

    def __init__(self, enabled: bool, total: int, label: str):
        self.bar = None
        if enabled and sys.stderr.isatty():
            import click

            self.bar = click.progressbar(length=total, label=label, file=sys.stderr,
                                         show_eta=True, show_percent=True, width=30)
            self.bar.__enter__()

    def update(self, games: int, text: str | None = None) -> None:
        if self.bar is not None:
            if text:
                self.bar.label = text
            self.bar.update(games)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


def _field(champion: np.ndarray, hall: list[np.ndarray], baselines: Mapping[str, np.ndarray],
           hall_size: int) -> list[np.ndarray]:
    """Champion, recent hall of fame, baselines; a vector equal to one already in is dropped."""
    out: list[np.ndarray] = []
    for vector in [champion, *hall[::-1][:hall_size], *baselines.values()]:
        if not any(np.array_equal(vector, v) for v in out):
            out.append(vector)
    return out


def seeded_cma(dimension: int, sigma: float, rng_seed: int, popsize: int | None = None) -> Any:
    """A silent CMA-ES from the origin whose samples come from NumPy's generator seeded
    ``rng_seed`` (not cma's own seeding), so a search depends only on its seed."""
    import cma

    rng = np.random.default_rng(rng_seed)
    options = {"seed": np.nan, "randn": lambda lam, n: rng.standard_normal((lam, n)),
               "verbose": -9, "verb_log": 0, "verb_disp": 0}
    if popsize:
        options["popsize"] = int(popsize)
    return cma.CMAEvolutionStrategy(np.zeros(dimension), float(sigma), options)


def _run_seed(cma_seed: int, run: int) -> int:
    """Run 0 keeps the tune's CMA seed (a search without restarts is unchanged); each
    restart draws its own."""
    return cma_seed if run == 0 else derived_seeds(cma_seed ^ run, 1)[0]


@dataclass
class _Run:
    """One CMA-ES run of the search: its own champion lineage (``hall``, oldest first)."""
    number: int
    es: Any
    champion_x: np.ndarray
    hall: list[np.ndarray] = field(default_factory=list)
    generations: int = 0
    last_promotion: int = 0


def search(arena: Arena, base: np.ndarray, baselines: Mapping[str, np.ndarray], *,
           budget: int, seed: int = 1, scales: np.ndarray | None = None,
           games_per_eval: int = DEFAULT_GAMES_PER_EVAL, check_games: int = DEFAULT_CHECK_GAMES,
           sigma: float = DEFAULT_SIGMA, popsize: int | None = None, hall_size: int = HALL_SIZE,
           growth: float = DEFAULT_GROWTH, finalists: int = FINALISTS,
           final_games: int | None = None, patience: int | None = DEFAULT_PATIENCE,
           restart_popsize: float = DEFAULT_RESTART_POPSIZE,
           explore_runs: int | None = None, explore_generations: int | None = None,
           progress: bool = False, on_generation: Callable[[Generation], None] | None = None
           ) -> SearchResult:
    """Tune ``base`` (the starting weights) by self-play against ``baselines`` (name ->
    weights); ``budget`` games for the search, ``check_games`` per opponent for the final
    re-check. ``patience``: generations without a promotion after which the CMA run
    restarts from ``base`` (population times ``restart_popsize``), None = never.
    ``explore_runs``: that many runs (each at most ``explore_generations``), then the best
    of them, by a round robin on fresh seeds, goes on to the end of the budget. See the
    module docstring."""
    began = time.perf_counter()
    base = np.asarray(base, dtype=np.float64)
    d = len(base)
    scales = np.ones(d) if scales is None else np.asarray(scales, dtype=np.float64)
    search_seed, check_seed, cma_seed, final_seed = derived_seeds(seed, 4)
    if final_games is None:
        final_games = max(1, int(check_games * FINAL_SHARE))

    def new_run(number: int, size: int | None) -> _Run:
        return _Run(number + 1, seeded_cma(d, sigma, _run_seed(cma_seed, number), size),
                    np.zeros(d))

    def weights_of(x: np.ndarray) -> np.ndarray:
        return base + scales * np.asarray(x, dtype=np.float64)

    run = new_run(0, popsize)
    exploring = bool(patience) or bool(explore_runs and explore_runs > 1)
    select_seed = derived_seeds(final_seed ^ 0x5E1EC7, 1)[0]
    select_games = max(arena.sides, final_games // 5)
    finished: list[tuple[_Run, np.ndarray]] = []     # earlier runs and their final means
    history: list[Generation] = []
    games_done, next_index, promotions = 0, 0, 0
    bar = Progress(progress, budget, f"tune {arena.game} {arena.players}p")
    try:
        while True:
            champion = weights_of(run.champion_x)
            # the field: this run's champion and hall, earlier runs' champions, the baselines
            elders = [weights_of(r.champion_x) for r, _ in finished][::-1][:hall_size]
            field_vectors = _field(champion, [*elders[::-1], *run.hall], baselines,
                                   hall_size + len(elders))
            per_eval = games_per_eval * (1.0 + (growth - 1.0) * min(1.0, games_done / budget))
            per_block = max(1, int(per_eval) // (len(field_vectors) * arena.sides))
            per_generation = per_block * len(field_vectors) * arena.sides
            stalled = bool(patience) and run.generations - run.last_promotion >= patience
            capped = bool(explore_generations) and run.generations >= explore_generations
            if exploring and (stalled or (explore_runs and capped)):
                size = max(2, int(round(run.es.popsize * restart_popsize)))
                # a restart needs room for twice its patience (exploring: its generations)
                room = (explore_generations if explore_runs else 2 * patience) or 0
                fits = games_done + room * (size + 2) * per_generation <= budget
                if explore_runs and (len(finished) + 1 >= explore_runs or not fits):
                    # exploration over: the runs meet on fresh seeds, the best goes on
                    finished.append((run, np.array(run.es.mean, dtype=np.float64)))
                    run, played = _select_run(arena, finished, weights_of, select_seed,
                                              select_games)
                    games_done += played
                    finished = [(r, m) for r, m in finished if r is not run]
                    exploring = False
                    continue
                if fits:
                    finished.append((run, np.array(run.es.mean, dtype=np.float64)))
                    run = new_run(len(finished), size)
                    continue
            es = run.es
            xs = es.ask()
            mean_x = np.array(es.mean, dtype=np.float64)   # the mean these were drawn around
            evaluated = [weights_of(x) for x in xs] + [weights_of(mean_x), champion]
            cost = len(evaluated) * per_generation
            if games_done + cost > budget and history:
                break
            vectors = evaluated + field_vectors
            blocks, n = [], len(evaluated)
            for c in range(n):
                for o in range(len(field_vectors)):
                    for side in range(arena.sides):   # the same games for every candidate
                        start = next_index + (o * arena.sides + side) * per_block
                        blocks.append(Block(c, n + o, side, search_seed, start, per_block))
            next_index += len(field_vectors) * arena.sides * per_block
            tallies = [Tally() for _ in range(n)]
            for block, tally in zip(blocks, arena.play_blocks(vectors, blocks)):
                tallies[block.candidate].add(tally)
            games_done += cost
            rates = [t.wins / t.games for t in tallies]
            es.tell(xs, [-r for r in rates[:len(xs)]])
            mean_t, champ_t = tallies[-2], tallies[-1]
            p_m, p_c = mean_t.wins / mean_t.games, champ_t.wins / champ_t.games
            se = math.sqrt((p_m * (1 - p_m) + p_c * (1 - p_c)) / champ_t.games)
            promoted = p_m - p_c > PROMOTE_Z * max(se, 1e-12)
            run.generations += 1
            generation = Generation(len(history) + 1, cost, rate_of(champ_t), rate_of(mean_t),
                                    max(rates[:len(xs)]), promoted, float(es.sigma),
                                    run=run.number)
            history.append(generation)
            if promoted:
                run.hall.append(champion)
                run.champion_x = mean_x
                run.last_promotion = run.generations
                promotions += 1
            if on_generation is not None:
                on_generation(generation)
            bar.update(cost, f"tune {arena.game} {arena.players}p gen {generation.number} "
                             f"champion {100 * p_c:.1f} %")
    finally:
        bar.close()

    runs = sorted([*finished, (run, np.array(run.es.mean, dtype=np.float64))],
                  key=lambda entry: entry[0].number)
    champion = weights_of(run.champion_x)
    # the final: each run's last champions (the finalists shared out) and its final mean
    per_run = max(1, (finalists - 1) // len(runs)) if finalists > 2 else 0
    contenders, labels, lineages = [], [], []
    for r, mean in runs:
        tag = "" if len(runs) == 1 else f"run {r.number} "
        own = weights_of(r.champion_x)
        for i, vector in enumerate([*r.hall, own][-per_run:] if per_run else []):
            last = vector is own
            contenders.append(vector)
            labels.append(f"{tag}champion" if last else f"{tag}earlier champion")
        if per_run:
            contenders.append(weights_of(mean))
            labels.append(f"{tag}CMA mean")
        lineages.append((own, r.hall))
    # the final costs what a one-run final does: fewer games per pair when more entrants
    entrants = len({v.tobytes() for v in contenders})
    pair_games = final_games if entrants <= finalists else max(
        arena.sides, final_games * finalists * (finalists - 1) // (entrants * (entrants - 1)))
    final, final_table, final_played = _final(arena, contenders, champion, final_seed,
                                              pair_games,
                                              labels=labels if len(runs) > 1 else None)
    # the winner's lineage: the run it came from (the last run on a tie)
    own, hall = champion, run.hall
    for (r, mean), (r_own, r_hall) in zip(runs, lineages):
        if any(np.array_equal(final, v) for v in [*r_hall, r_own, weights_of(mean)]):
            own, hall = r_own, r_hall
    hall = [v for v in hall if not np.array_equal(v, final)] if not np.array_equal(final, own) \
        else hall
    lineage = [base, *hall] if not hall or not np.array_equal(hall[0], base) else list(hall)
    if np.array_equal(final, own):
        previous, older = lineage[-1], (lineage[-2] if len(lineage) > 1 else base)
    else:   # the final displaced the run's champion: check the winner against it
        previous, older = own, lineage[-1]
    check, check_played = _recheck(arena, final, previous, baselines, check_seed, check_games)
    check_played += final_played
    reverted = False
    against_previous = next(r for r in check if r.opponent == PREVIOUS)
    displaced = not np.array_equal(final, own)
    if (hall or displaced) and against_previous.share_high < arena.fair_share:
        # The winner's curse: the last promotion was luck. Keep the one before it.
        reverted = True
        final = previous
        check, more = _recheck(arena, final, older, baselines, check_seed, check_games)
        check_played += more
    return SearchResult(weights=final, base=base, champions=promotions, generations=history,
                        check=check, games=games_done, check_games=check_played,
                        reverted=reverted, seconds=time.perf_counter() - began,
                        final=final_table,
                        settings={"budget": budget, "seed": seed, "games_per_eval": games_per_eval,
                                  "growth": growth, "finalists": finalists,
                                  "final_games": final_games,
                                  "check_games": check_games, "sigma": sigma,
                                  "popsize": int(runs[0][0].es.popsize), "hall_size": hall_size,
                                  "patience": patience, "restart_popsize": restart_popsize,
                                  "runs": len(runs), "explore_runs": explore_runs,
                                  "explore_generations": explore_generations,
                                  "dimensions": d})


def _select_run(arena: Arena, runs: list[tuple[_Run, np.ndarray]],
                weights_of: Callable[[np.ndarray], np.ndarray], seed: int, games: int
                ) -> tuple[_Run, int]:
    """The run whose champion or CMA mean does best in a round robin of every run's
    champion and mean (the last run on a tie), and the games played."""
    contenders, owners = [], []
    for r, mean in runs:
        for x in (r.champion_x, mean):
            contenders.append(weights_of(x))
            owners.append(r)
    chosen, _, played = _final(arena, contenders, contenders[-2], seed, games)
    return next(o for v, o in zip(contenders[::-1], owners[::-1])
                if np.array_equal(v, chosen)), played


def _final(arena: Arena, contenders: list[np.ndarray], champion: np.ndarray, seed: int,
           games: int, labels: Sequence[str] | None = None
           ) -> tuple[np.ndarray, list[dict[str, Any]], int]:
    """Round robin of ``contenders`` (duplicates dropped) on ``seed``: every ordered pair,
    every seat, ``games`` games per pair. Returns the one with the highest share of the
    games someone won (the champion on a tie), its table and the games played."""
    entrants: list[np.ndarray] = []
    names: list[str | None] = []
    for k, vector in enumerate(contenders):
        if not any(np.array_equal(vector, v) for v in entrants):
            entrants.append(vector)
            names.append(labels[k] if labels is not None else None)
    if len(entrants) < 2:
        return champion, [], 0
    per_block = max(1, games // arena.sides)
    blocks = [Block(i, j, side, seed, (j * arena.sides + side) * per_block, per_block)
              for i in range(len(entrants)) for j in range(len(entrants)) if i != j
              for side in range(arena.sides)]
    totals = [Tally() for _ in entrants]
    for block, tally in zip(blocks, arena.play_blocks(entrants, blocks)):
        totals[block.candidate].add(tally)
    table = []
    for i, (vector, t) in enumerate(zip(entrants, totals)):
        share, lo, hi = _wilson(t.wins, t.wins + t.rival_wins)
        role = names[i] or ("champion" if np.array_equal(vector, champion) else
                            "CMA mean" if i == len(entrants) - 1 else f"earlier champion {i + 1}")
        table.append({"entry": role, "games": t.games, "wins": t.wins,
                      "rival_wins": t.rival_wins, "share": share, "share_low": lo,
                      "share_high": hi})
    scores = [row["share"] for row in table]
    best = max(range(len(entrants)),
               key=lambda i: (scores[i], bool(np.array_equal(entrants[i], champion))))
    for i, row in enumerate(table):
        row["chosen"] = i == best
    return entrants[best], table, sum(t.games for t in totals)


def _recheck(arena: Arena, final: np.ndarray, previous: np.ndarray,
             baselines: Mapping[str, np.ndarray], seed: int, games: int
             ) -> tuple[list[CheckRow], int]:
    """``final`` against every baseline and ``previous`` on the check seed, every seat."""
    opponents = {**baselines, PREVIOUS: previous}
    per_block = max(1, games // arena.sides)
    vectors = [final, *opponents.values()]
    blocks = [Block(0, 1 + o, side, seed, (o * arena.sides + side) * per_block, per_block)
              for o in range(len(opponents)) for side in range(arena.sides)]
    totals = [Tally() for _ in opponents]
    for block, tally in zip(blocks, arena.play_blocks(vectors, blocks)):
        totals[block.opponent - 1].add(tally)
    rows = []
    for name, t in zip(opponents, totals):
        share, lo, hi = _wilson(t.wins, t.wins + t.rival_wins)
        rows.append(CheckRow(name, t.games, t.wins, t.rival_wins, t.wins / t.games, share, lo,
                             hi, arena.fair_share))
    return rows, sum(t.games for t in totals)


# ----------------------------------------------------------------------------- output
def plot_convergence(result: SearchResult, path: str | os.PathLike, title: str) -> Path:
    """PNG: the champion's and the CMA mean's win rate against the field per generation,
    with 95 % intervals; promotions marked. A tune against fixed opponents: the base's
    and the mean's win rate against the opponent each does worst against."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gens = [g.number for g in result.generations]
    against = bool(result.settings.get("against"))
    versus = "vs its worst opponent" if against else "vs field"
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    for key, label, colour in (("champion", "base" if against else "champion", "tab:blue"),
                               ("mean", "CMA mean", "tab:orange")):
        rate = np.array([100 * getattr(g, key)["win_rate"] for g in result.generations])
        lo = np.array([100 * getattr(g, key)["ci_low"] for g in result.generations])
        hi = np.array([100 * getattr(g, key)["ci_high"] for g in result.generations])
        ax.plot(gens, rate, color=colour, label=f"{label} {versus}", lw=1.2)
        ax.fill_between(gens, lo, hi, color=colour, alpha=0.2, lw=0)
    promoted = [g.number for g in result.generations if g.promoted]
    if promoted:
        ax.vlines(promoted, *ax.get_ylim(), colors="grey", lw=0.5, alpha=0.5,
                  label="new champion")
    restarts = [g.number for g, before in zip(result.generations[1:], result.generations)
                if g.run != before.run]
    if restarts:
        ax.vlines(restarts, *ax.get_ylim(), colors="black", lw=1.0, linestyles="dashed",
                  label="run change (a restart, or the best run resumed)")
    ax.set_xlabel("generation")
    ax.set_ylabel(f"win rate {'against the worst opponent' if against else 'against the field'}"
                  ", % (95 % interval)")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    out = Path(path)
    fig.savefig(out)
    plt.close(fig)
    return out


def check_table(result: SearchResult) -> str:
    lines = [f"{'opponent':<28}{'games':>9}{'win rate':>10}{'share of won games [95 % CI]':>32}"
             f"{'fair':>7}  verdict"]
    for r in result.check:
        verdict = "beats" if r.beats else ("worse" if r.share_high < r.fair_share else "no diff.")
        if r.wins + r.rival_wins == 0:
            lines.append(f"{r.opponent:<28}{r.games:>9,}{100 * r.win_rate:>9.2f}%"
                         f"{'no game won by anyone':>32}{100 * r.fair_share:>8.1f}%  no diff.")
            continue
        lines.append(f"{r.opponent:<28}{r.games:>9,}{100 * r.win_rate:>9.2f}%"
                     f"{100 * r.share:>14.2f}% [{100 * r.share_low:.2f}-{100 * r.share_high:.2f}]"
                     f"{100 * r.fair_share:>8.1f}%  {verdict}")
    return "\n".join(lines)


def final_lines(result: SearchResult) -> list[str]:
    """The final's table: each finalist's share of the won games against the others."""
    if not result.final:
        return []
    lines = ["final on fresh seeds (each finalist against the others, every seat):"
             if not result.settings.get("against") else
             "on fresh seeds, the tuned weights and the base on the same deals (every seat):"]
    for row in result.final:
        mark = "  <- chosen" if row["chosen"] else ""
        lines.append(f"  {row['entry']:<26}{row['games']:>9,} games {100 * row['share']:>8.2f}% "
                     f"[{100 * row['share_low']:.2f}-{100 * row['share_high']:.2f}]{mark}")
    return lines


def document(result: SearchResult, *, game: str, players: int, base_spec: str,
             names: Sequence[str], command: str | None, cards: Mapping[str, Any],
             rules: Mapping[str, Any], rule_overrides: Sequence[str],
             rules_file: str | None, backend: str) -> dict[str, Any]:
    """The strategy file's content (sim/core/strategy_file.py reads it back)."""
    import sim

    return {
        "cardsim_strategy": 1,
        "game": game,
        "name": "expert",
        "summary": f"tuned by simulate tune for {players} players from {base_spec} "
                   + (f"({result.games:,} games against {', '.join(result.settings['against'])}"
                      ", for the best worst share)" if result.settings.get("against")
                      else f"({result.games:,} games of self-play)"),
        "players": [int(players)],
        "base": base_spec,
        "weights": {name: float(w) for name, w in zip(names, result.weights)},
        "tuned_on": {
            "command": command,
            "cards": {"path": str(cards.get("path")), "sha256": cards.get("sha256"),
                      "content_sha256": content_sha256_or_none(cards.get("path"))},
            "rules_file": rules_file,
            "rule_overrides": list(rule_overrides),
            "rules": {k: ({str(n): v for n, v in val.items()} if isinstance(val, dict) else val)
                      for k, val in rules.items()},
            "seed": int(result.settings["seed"]),
            "budget": int(result.settings["budget"]),
            "games": int(result.games),
            "generations": len(result.generations),
            "promotions": int(result.champions),
            "final": [{k: (round(v, 6) if isinstance(v, float) else v) for k, v in row.items()}
                      for row in result.final],
            "settings": {k: v for k, v in result.settings.items()
                         if k not in ("seed", "budget")},
            "backend": backend,
            "package_version": sim.__version__,
            "source_hash": sim.source_hash(),
            "seconds": round(result.seconds, 1),
        },
        "score": {
            "method": "re-check on fresh seeds, every seat; share = wins / games someone "
                      "won, Wilson 95 % interval; beats = interval above the fair share",
            "reverted_to_previous_champion": bool(result.reverted),
            "beats_every_baseline": bool(result.beats_every_baseline),
            "against": {r.opponent: {k: (round(v, 6) if isinstance(v, float) else v)
                                     for k, v in r.as_dict().items() if k != "opponent"}
                        for r in result.check},
        },
    }


def write_strategy_file(doc: Mapping[str, Any], out: str | os.PathLike,
                        by: str = "simulate tune") -> Path:
    """Write the file atomically (a temporary name, then rename); ``by``: the command
    named in its first comment line."""
    from sim.core.strategy_file import dump

    path = Path(out)
    text = (f"# A strategy file written by {by}. Use it as --team-a @FILE, "
            "--seat N=@FILE,\n# or '@FILE' in experiments.yaml and matchups.\n" + dump(doc))
    tmp = None
    try:
        with writing("the strategy file", path):
            path.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=f".{path.name}.",
                                             suffix=".tmp", delete=False,
                                             encoding="utf-8") as handle:
                tmp = handle.name
                handle.write(text)
            os.replace(tmp, path)
            tmp = None
    finally:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
    return path


# ----------------------------------------------------------------------------- the command
# A game's shipped tuned strategy is no baseline: the field is the hand-written strategies,
# as when it was tuned, so its file's command gives the same weights again.
SHIPPED_EXPERT = "expert"


def field_baselines(arena_cls: Any, configure: Callable[[Mapping[str, str] | None], Any],
                    names: Sequence[str]) -> dict[str, np.ndarray]:
    """The shipped strategies a tune plays against (name -> the weights the arena plays),
    one per distinct vector. Left out: the shipped expert and any strategy that plays its
    weights in the arena (search's base is expert, and the arena plays only weights), so a
    cold tune neither meets the expert it is checked against nor depends on it."""
    def vector_of(name: str) -> np.ndarray:
        return arena_cls.vector_of(configure(arena_cls.strategies_for(name)))

    expert = vector_of(SHIPPED_EXPERT) if SHIPPED_EXPERT in names else None
    baselines: dict[str, np.ndarray] = {}
    for name in sorted(names):
        if name == SHIPPED_EXPERT:
            continue
        vector = vector_of(name)
        if expert is not None and np.array_equal(vector, expert):
            continue
        if not any(np.array_equal(vector, v) for v in baselines.values()):
            baselines[name] = vector    # e.g. weighted with no parameters plays as greedy
    return baselines


@dataclass
class TuneResult:
    out: Path
    plot: Path
    document: dict[str, Any]
    search: SearchResult

    def report(self) -> str:
        s = self.search
        against = s.settings.get("against")
        lines = [f"{len(s.generations)} generations, {s.games:,} games "
                 + (f"against {', '.join(against)}" if against else
                    f"of self-play, {s.champions} promotion(s)") + f", {s.seconds:.0f} s"
                 + (f", {s.settings['runs']} CMA runs (restarts when promotions stop)"
                    if s.settings.get("runs", 1) > 1 else ""),
                 *final_lines(s),
                 f"re-check on fresh seeds ({s.check_games:,} games, with the final's):",
                 check_table(s)]
        if s.reverted:
            lines.append("the tuned weights' worst share was no better than the base's on "
                         "fresh seeds (winner's curse): the base was written" if against else
                         "the last champion lost to the one before it on fresh seeds "
                         "(winner's curse): the earlier champion was written")
        if not s.beats_every_baseline:
            lines.append("warning: the tuned strategy does not beat every baseline; more "
                         "--budget may help")
        lines += [f"strategy file: {self.out}", f"convergence plot: {self.plot}"]
        return "\n".join(lines)


def tune(configure: Callable[[Mapping[str, str] | None], Any], *, game: str, players: int,
         out: str | os.PathLike, budget: int, seed: int = 1, base: str = "weighted",
         threads: int = 1, submit: Callable[[list[tuple]], Any] | None = None,
         request: Any = None,
         games_per_eval: int = DEFAULT_GAMES_PER_EVAL, check_games: int = DEFAULT_CHECK_GAMES,
         sigma: float | None = None, popsize: int | None = None, progress: bool = True,
         command: str | None = None, cards: str | None = None, rules_file: str | None = None,
         rule_overrides: Sequence[str] = (), backend_name: str = "local",
         resume: bool = False, against: Sequence[str] = (),
         searcher: Callable[..., SearchResult] | None = None) -> TuneResult:
    """Tune ``base`` for ``game`` at ``players`` and write the strategy file ``out`` (with
    a convergence plot next to it, same name, .png). ``configure(strategies)`` builds a
    validated GameConfig on the chosen cards and rules. The games play in this process's
    threads, or, with ``submit`` (see DaskArena) and ``request`` (the ConfigRequest of the
    same configuration), as chunk tasks on a backend.

    Every generation's games are kept in ``NAME.resume.jsonl`` beside ``out`` as they
    finish (``sim.runs.resumable``); after Ctrl-C, SIGTERM or a full disk, the same call
    with ``resume=True`` replays the search to where it stopped and goes on, to the
    result an uninterrupted tune has. The journal is removed once the file is written.

    ``against`` (strategy specs) with ``searcher`` (sim/studies/tune_against.py's
    ``search_against``) replaces self-play by a search against those fixed opponents."""
    from sim.core.game import resolve_game
    from sim.core.strategy import registry
    from sim.runs.resumable import Journal, journal_beside, stoppable

    game_obj = resolve_game(game)
    arena_cls = game_obj.tune_arena
    if arena_cls is None:
        raise UserError(f"game '{game}' has no parametric strategy to tune", field="--game")
    if players < 2:
        raise UserError("tune plays strategies against each other: at least 2 players",
                        field="--players")
    out_path = Path(out)
    if out_path.suffix.lower() not in (".yaml", ".yml"):
        raise UserError("the strategy file must end in .yaml or .yml", file=str(out_path),
                        field="--out")
    template = configure(None)
    base_vector = arena_cls.vector_of(configure(arena_cls.strategies_for(base)))
    if against:
        baselines = {spec: arena_cls.vector_of(configure(arena_cls.strategies_for(spec)))
                     for spec in against}
    else:
        baselines = field_baselines(arena_cls, configure,
                                    registry(game_obj.strategy_package))
    manifest = template.manifest()
    settings = {"game": game, "players": int(players), "base": base,
                "base_weights": base_vector, "field": baselines, "budget": int(budget),
                "seed": int(seed), "games_per_eval": int(games_per_eval),
                "check_games": int(check_games), "sigma": sigma, "popsize": popsize,
                "against": list(against),
                "cards_sha256": manifest["cards"]["sha256"], "rules": manifest["rules"]}
    journal_path = journal_beside(out_path)
    with stoppable("tune", journal_path), Journal.open(
            journal_path, settings, what="tune", resume=resume, out=out_path,
            discard_empty=True) as journal:
        result, names = _search_with(arena_cls(template, threads), submit, request, out_path,
                                     journal, base_vector, baselines, budget=budget, seed=seed,
                                     games_per_eval=games_per_eval, check_games=check_games,
                                     sigma=sigma, popsize=popsize, progress=progress,
                                     searcher=searcher)
        doc = document(result, game=game, players=players, base_spec=base, names=names,
                       command=command, cards={"path": cards or manifest["cards"]["path"],
                                               "sha256": manifest["cards"]["sha256"]},
                       rules=manifest["rules"], rule_overrides=rule_overrides,
                       rules_file=rules_file, backend=backend_name)
        path = write_strategy_file(doc, out_path)
        with writing("the convergence plot", path.with_suffix(".png")):
            plot = plot_convergence(result, path.with_suffix(".png"),
                                    f"simulate tune: {game}, {players} players, seed {seed}; "
                                    f"{result.games:,} games")
        journal.remove()
    return TuneResult(out=path, plot=plot, document=doc, search=result)


def _search_with(local: Any, submit: Callable[[list[tuple]], Any] | None, request: Any,
                 out_path: Path, journal: Any, base_vector: np.ndarray,
                 baselines: Mapping[str, np.ndarray], *, budget: int, seed: int,
                 games_per_eval: int, check_games: int, sigma: float | None,
                 popsize: int | None, progress: bool,
                 searcher: Callable[..., SearchResult] | None = None
                 ) -> tuple[SearchResult, tuple[str, ...]]:
    """``search`` (or ``searcher``, against ``baselines`` alone) on the game's arena
    (``local``, or its games as chunk tasks through ``submit``), every answer kept in
    ``journal``; (result, the weight names)."""
    arena: Any = local
    scratch = None
    if submit is not None:
        scratch = tempfile.TemporaryDirectory(prefix="cardsim-tune-",
                                              dir=out_path.parent if out_path.parent.exists() else None)
        arena = DaskArena(local, submit, request, scratch.name)
    try:
        scales = scales_for(arena.names, base_vector, local.scales_floor)
        if searcher is not None:
            return searcher(JournaledArena(arena, journal), base_vector, baselines,
                            budget=budget, seed=seed, scales=scales,
                            games_per_eval=games_per_eval, check_games=check_games,
                            sigma=sigma if sigma is not None else float(local.tune_sigma),
                            popsize=popsize, progress=progress), tuple(arena.names)
        result = search(JournaledArena(arena, journal), base_vector, baselines, budget=budget,
                        seed=seed, scales=scales,
                        games_per_eval=games_per_eval, check_games=check_games,
                        sigma=sigma if sigma is not None else float(local.tune_sigma),
                        popsize=popsize or local.tune_popsize,
                        growth=float(local.eval_growth),
                        patience=local.restart_patience,
                        restart_popsize=float(local.restart_popsize),
                        explore_runs=local.explore_runs,
                        explore_generations=local.explore_generations,
                        progress=progress)
    finally:
        arena.close()
        if scratch is not None:
            scratch.cleanup()
    return result, tuple(arena.names)


# ----------------------------------------------------------------------------- the command
def tune_strategy(*, game: str, players: Any = None, out: str | os.PathLike = "expert.yaml",
                  budget: Any = None, seed: Any = 1, base: str = "weighted",
                  cards: str | None = None, rules_file: str | None = None,
                  rule_overrides: tuple[str, ...] = (), threads: Any = None,
                  backend: Any = None, backend_options: Mapping[str, Any] | None = None,
                  games_per_eval: Any = None, check_games: Any = None,
                  progress: bool = True, command_line: str | None = None,
                  resume: bool = False, against: str | None = None,
                  searcher: Callable[..., SearchResult] | None = None) -> "TuneResult":
    """``simulate tune`` / ``api.tune``: check every input, pick the backend, then tune
    (``resume``: continue the tune that stopped writing ``out``; see ``tune``)."""
    from sim.core.game import (configure_request, game_request, player_count,
                               resolve_game)
    from sim.core.inputs import parse_count, parse_seed
    from sim.core.strategy import parse_spec
    from sim.runs.backends import ChunkTask, ConfigRequest, resolve
    from sim.runs.setup import own_command_line
    from sim.studies.matchup_files import split_specs

    game_obj = resolve_game(game)
    players = player_count(game_obj, players)
    seed = parse_seed(seed)
    arena_cls = game_obj.tune_arena
    if arena_cls is None:
        raise UserError(f"game '{game}' has no parametric strategy to tune", field="--game")
    budget = parse_count(budget if budget is not None else arena_cls.default_budget,
                         field="--budget")
    per_eval = parse_count(games_per_eval or DEFAULT_GAMES_PER_EVAL, field="--games-per-eval")
    check = parse_count(check_games or DEFAULT_CHECK_GAMES, field="--check-games")
    request = game_request(cards, rules_file, rule_overrides, None, False)

    def configure_with(strategies):
        return configure_request(game_obj, players, {**request, "strategies": strategies})

    configure_with(None)                       # every input checked before the first game
    parse_spec(base, game_obj.strategy_package, field_name="--base")
    opponents = split_specs(against) if against else []
    if against and not opponents:
        raise UserError("--against needs at least one strategy", field="--against")
    if opponents and searcher is None:   # api.tune passes tune_against.search_against
        raise ValueError("against= needs a searcher")
    for spec in opponents:
        parse_spec(spec, game_obj.strategy_package, field_name="--against")
    chosen, owned = resolve(backend, backend_options)
    threads = (chosen.default_threads() if threads is None
               else parse_count(threads, "--threads", 4096))

    def submit(items):   # evaluations as chunk tasks: (request, run_dir, seed, start, count, tag)
        tasks = [ChunkTask(req, run_dir, s, start, count, threads, tag=tag)
                 for req, run_dir, s, start, count, tag in items]
        return chosen.run_tasks(tasks, aggregate=True)

    try:
        return tune(configure_with, game=game, players=players, out=out, budget=budget,
                    seed=seed, base=base, threads=threads,
                    submit=None if chosen.in_process else submit,
                    request=ConfigRequest.build(game, players, request),
                    backend_name=chosen.name,
                    games_per_eval=per_eval, check_games=check, progress=progress,
                    command=command_line if command_line is not None else own_command_line(),
                    cards=request["cards"], rules_file=request["rules_file"],
                    rule_overrides=request["rule_overrides"], resume=resume,
                    against=opponents, searcher=searcher)
    finally:
        if owned:
            chosen.close()
