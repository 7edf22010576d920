"""``simulate tune --against``: the weights whose worst share against fixed opponents is
highest (maximin), by CMA-ES.

Self-play (``tune.search``) learns what beats the field it grows. Where strength goes in a
cycle it lands on one side of it: at PLAI's 2 players, weights that beat ``expert-v1``
lose to ``bluffer``, which ``expert-v1`` beats. Against named opponents the objective is a
candidate's *worst* share of the decided games over them (its side's wins over the games
someone won, every seat), so a candidate gains only by doing better against the opponent
it does worst against: the result holds against all of them at once.

The search runs in tune's normalised space (``base + scale * x``, every weight of the
game's vector) and plays through the same arena, so on every backend and resumed from
the same journal. Each generation plays fresh game indices of the search seed: every
candidate, the CMA mean and the base on the same games (common random numbers),
``games_per_eval`` games per candidate spread over the opponents and seats, until the
budget is spent.

The result is the last CMA mean, re-checked on fresh seeds against each opponent
(``check_games`` each, every seat) beside the base on the same deals. If its worst share
there is not above the base's, the base is written instead (the winner's-curse guard:
``reverted``).
"""
from __future__ import annotations

import time
from typing import Mapping

import numpy as np

from sim.core.arena import Arena, Block, Tally
from sim.core.stats import wilson
from sim.studies.tune_search import (CheckRow, Generation, Progress, SearchResult,
                                     derived_seeds, rate_of, search_space, seeded_cma)


def _play(arena: Arena, vectors: list[np.ndarray], opponents: list[np.ndarray], seed: int,
          start: int, per_block: int) -> list[list[Tally]]:
    """Each vector's tally against each opponent (every seat, the same games for all)."""
    n = len(vectors)
    blocks = [Block(c, n + o, side, seed, start + (o * arena.sides + side) * per_block,
                    per_block)
              for c in range(n) for o in range(len(opponents)) for side in range(arena.sides)]
    tallies = [[Tally() for _ in opponents] for _ in vectors]
    for block, tally in zip(blocks, arena.play_blocks([*vectors, *opponents], blocks)):
        tallies[block.candidate][block.opponent - n].add(tally)
    return tallies


def _share(t: Tally) -> float:
    decided = t.wins + t.rival_wins
    return t.wins / decided if decided else 0.0


def worst(tallies: list[Tally]) -> tuple[float, int]:
    """(the lowest share of the decided games, the opponent it is against); the first
    opponent on a tie."""
    shares = [_share(t) for t in tallies]
    k = int(np.argmin(shares))
    return shares[k], k


def search_against(arena: Arena, base: np.ndarray, opponents: Mapping[str, np.ndarray], *,
                   budget: int, seed: int = 1, scales: np.ndarray | None = None,
                   free: np.ndarray | None = None, games_per_eval: int = 12_000,
                   check_games: int = 20_000,
                   sigma: float = 0.15, popsize: int | None = None,
                   progress: bool = False) -> SearchResult:
    """Maximise the worst share against ``opponents`` (name -> weights) from ``base``;
    ``budget`` games for the search, ``check_games`` per opponent for the re-check;
    ``free``: the weights searched (default every one). See the module docstring."""
    began = time.perf_counter()
    base = np.asarray(base, dtype=np.float64)
    dimension, weights_of = search_space(base, scales, free)
    names = list(opponents)
    rivals = [np.asarray(v, dtype=np.float64) for v in opponents.values()]
    search_seed, check_seed, cma_seed = derived_seeds(seed, 3)
    es = seeded_cma(dimension, sigma, cma_seed & (2**32 - 1), popsize)
    per_block = max(1, int(games_per_eval) // (len(rivals) * arena.sides))
    per_vector = per_block * len(rivals) * arena.sides
    history: list[Generation] = []
    games_done, next_index = 0, 0
    bar = Progress(progress, budget, f"tune {arena.game} {arena.players}p against")
    try:
        while True:
            xs = es.ask()
            vectors = [weights_of(x) for x in xs]
            vectors += [weights_of(es.mean), base]
            cost = len(vectors) * per_vector
            if history and games_done + cost > budget:
                break
            tallies = _play(arena, vectors, rivals, search_seed, next_index, per_block)
            next_index += len(rivals) * arena.sides * per_block
            games_done += cost
            scores = [worst(t)[0] for t in tallies]
            es.tell(xs, [-s for s in scores[:len(xs)]])
            (_, k_mean), (_, k_base) = worst(tallies[-2]), worst(tallies[-1])
            history.append(Generation(len(history) + 1, cost, rate_of(tallies[-1][k_base]),
                                      rate_of(tallies[-2][k_mean]), max(scores[:len(xs)]),
                                      False, float(es.sigma)))
            bar.update(cost, f"tune {arena.game} {arena.players}p gen {len(history)} worst "
                             f"{100 * scores[-2]:.1f} %")
    finally:
        bar.close()
    final = weights_of(es.mean)
    per_check = max(1, int(check_games) // arena.sides)
    checked = _play(arena, [final, base], rivals, check_seed, 0, per_check)
    reverted = worst(checked[0])[0] <= worst(checked[1])[0]
    chosen = base if reverted else final
    rows, table = [], []
    for who, tallies in (("tuned", checked[0]), ("base", checked[1])):
        for name, t in zip(names, tallies):
            share, lo, hi = (float(v) for v in wilson(t.wins, t.wins + t.rival_wins))
            table.append({"entry": f"{who} against {name}", "games": t.games, "wins": t.wins,
                          "rival_wins": t.rival_wins, "share": share, "share_low": lo,
                          "share_high": hi, "chosen": (who == "base") == reverted})
            if (who == "base") == reverted:
                rows.append(CheckRow(name, t.games, t.wins, t.rival_wins, t.wins / t.games,
                                     share, lo, hi, arena.fair_share))
    return SearchResult(weights=chosen, base=base, champions=0, generations=history,
                        check=rows, games=games_done,
                        check_games=2 * per_check * arena.sides * len(rivals),
                        reverted=bool(reverted), seconds=time.perf_counter() - began,
                        final=table,
                        settings={"seed": int(seed), "budget": int(budget),
                                  "objective": "worst share against", "against": names,
                                  "games_per_eval": int(games_per_eval),
                                  "check_games": int(check_games), "sigma": float(sigma),
                                  "popsize": int(es.popsize)})
