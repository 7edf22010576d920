"""The tune's search: CMA-ES (the ``cma`` package) over a game's weight vector, by
self-play, with restarts, a final and a re-check (``simulate tune``, ``sim.studies.tune``).

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
"""
from __future__ import annotations

import dataclasses
import math
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from sim.core.arena import (DEFAULT_GROWTH, DEFAULT_PATIENCE, DEFAULT_RESTART_POPSIZE,
                            DEFAULT_SIGMA, Arena, Block, Tally)

DEFAULT_GAMES_PER_EVAL = 1_000      # games per candidate per generation, over the field
DEFAULT_CHECK_GAMES = 20_000        # games per opponent in the final re-check
HALL_SIZE = 4                       # earlier champions kept in the field
FINALISTS = 6                       # the last champions (and the CMA mean) in the final
FINAL_SHARE = 0.5                   # games per ordered pair of finalists / re-check games
PROMOTE_Z = 1.0                     # standard errors the mean must beat the champion by
PREVIOUS = "previous champion"      # the re-check's row for the champion before the last


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


def search_space(base: np.ndarray, scales: np.ndarray | None, free: np.ndarray | None = None
                 ) -> tuple[int, Callable[[np.ndarray], np.ndarray]]:
    """(dimension, weights_of): the normalised space a point ``x`` of CMA-ES lives in, the
    weights ``base + scale * x`` over the weights ``free`` marks (every weight without it);
    the others (held, ``--hold``) stay the base's."""
    base = np.asarray(base, dtype=np.float64)
    scales = np.ones(len(base)) if scales is None else np.asarray(scales, dtype=np.float64)
    index = np.arange(len(base)) if free is None else np.flatnonzero(free)

    def weights_of(x: np.ndarray) -> np.ndarray:
        weights = base.copy()
        weights[index] += scales[index] * np.asarray(x, dtype=np.float64)
        return weights

    return len(index), weights_of


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
           free: np.ndarray | None = None,
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
    re-check. ``free``: the weights searched (default every one; search_space).
    ``patience``: generations without a promotion after which the CMA run
    restarts from ``base`` (population times ``restart_popsize``), None = never.
    ``explore_runs``: that many runs (each at most ``explore_generations``), then the best
    of them, by a round robin on fresh seeds, goes on to the end of the budget. See the
    module docstring."""
    began = time.perf_counter()
    base = np.asarray(base, dtype=np.float64)
    d, weights_of = search_space(base, scales, free)
    search_seed, check_seed, cma_seed, final_seed = derived_seeds(seed, 4)
    if final_games is None:
        final_games = max(1, int(check_games * FINAL_SHARE))

    def new_run(number: int, size: int | None) -> _Run:
        return _Run(number + 1, seeded_cma(d, sigma, _run_seed(cma_seed, number), size),
                    np.zeros(d))

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
