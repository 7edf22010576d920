"""How much a strategy's weights gain when re-tuned to beat one fixed opponent: whether a
shortfall against it lies in how the weights were learned or in what the features hold.

    python benchmarks/best_response.py --players 2 --base @p2p-2p.yaml --against expert-v1
    python benchmarks/best_response.py --game plai --players 3 --base expert --against expert-v1

CMA-ES (the ``cma`` package, as ``simulate tune``) searches every weight of the game's
vector but the noise draws', in tune's normalised space (``base + scale * x``, the scale
each base weight's size, at least 1). The objective is a candidate's share of the decided
games (its side's wins over the games someone won) against the opponent, in every seat
(``--games`` per seat). Each generation plays fresh seeds, and on them, besides the
population, the search mean and the base (common random numbers): the mean's gain over
the base on those games is what the search found. A re-tune that gains nothing from a
good start leaves the base at a local best response within the features: more learning
of the same weights cannot close the gap, a new feature or a stronger policy can.

At the end the final mean and the base play the opponent on fresh seeds (``--check-games``
per seat, the same deals for both). The row (one per game, players, base, opponent and
first step) goes to benchmarks/results/best_response.json, the table to best_response.md.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import latest  # noqa: E402

NAME = "best_response"
KEY = ("game", "players", "base", "against", "sigma")


def arguments() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    p.add_argument("--game", default="peer-to-peer")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--base", default="expert", help="strategy spec the search starts from")
    p.add_argument("--against", default="expert-v1", help="the fixed opponent's spec")
    p.add_argument("--generations", type=int, default=40)
    p.add_argument("--games", type=int, default=5000, help="games per seat and candidate")
    p.add_argument("--popsize", type=int, default=16)
    p.add_argument("--sigma", type=float, default=0.08, help="CMA's first step, in scales")
    p.add_argument("--check-games", type=int, default=20_000, help="games per seat")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    return p


def _share(tallies) -> tuple[int, int]:
    wins = sum(t.wins for t in tallies)
    return wins, wins + sum(t.rival_wins for t in tallies)


def main() -> None:
    import cma

    from sim.core.arena import Block
    from sim.core.game import configure_request, game_request, resolve_game
    from sim.core.stats import wilson
    from sim.studies.tune import derived_seeds, scales_for

    a = arguments().parse_args()
    game = resolve_game(a.game)
    arena_cls = game.tune_arena
    request = game_request(None, None, (), None, False)

    def configure(strategies):
        return configure_request(game, a.players, {**request, "strategies": strategies})

    arena = arena_cls(configure(None), a.threads)
    base = arena_cls.vector_of(configure(arena_cls.strategies_for(a.base)))
    opponent = arena_cls.vector_of(configure(arena_cls.strategies_for(a.against)))
    scales = scales_for(arena.names, base, arena.scales_floor)
    searched = np.flatnonzero(~arena.noise)
    rng = np.random.default_rng(a.seed)
    es = cma.CMAEvolutionStrategy(
        np.zeros(len(searched)), a.sigma,
        {"seed": np.nan, "randn": lambda lam, n: rng.standard_normal((lam, n)),
         "verbose": -9, "verb_log": 0, "verb_disp": 0, "popsize": a.popsize})
    seeds = derived_seeds(a.seed, a.generations + 1)

    def weights_of(x) -> np.ndarray:
        w = base.copy()
        w[searched] += scales[searched] * np.asarray(x, dtype=np.float64)
        return w

    def play(vectors, seed, games):
        """Each vector's (wins, decided) against the opponent, every seat, same games."""
        n = len(vectors)
        blocks = [Block(c, n, side, seed, 0, games) for c in range(n)
                  for side in range(arena.sides)]
        tallies = arena.play_blocks([*vectors, opponent], blocks)
        return [_share(tallies[c * arena.sides:(c + 1) * arena.sides]) for c in range(n)]

    began = time.perf_counter()
    gains = []
    for generation in range(a.generations):
        xs = es.ask()
        results = play([weights_of(x) for x in xs] + [weights_of(es.mean), base],
                       seeds[generation], a.games)
        shares = [w / max(1, d) for w, d in results]
        es.tell(xs, [-s for s in shares[:-2]])
        gains.append(shares[-2] - shares[-1])
        print(f"generation {generation + 1}: mean {shares[-2]:.2%}, base {shares[-1]:.2%} "
              f"({time.perf_counter() - began:.0f} s)", flush=True)
    late = gains[len(gains) // 2:]
    gain = statistics.fmean(late)
    half = 1.96 * statistics.stdev(late) / len(late) ** 0.5 if len(late) > 1 else float("nan")
    final = weights_of(es.mean)
    (fw, fd), (bw, bd) = play([final, base], seeds[-1], a.check_games)
    f_rate, f_lo, f_hi = wilson(fw, fd)
    b_rate, b_lo, b_hi = wilson(bw, bd)
    row = {"game": a.game, "players": a.players, "base": a.base, "against": a.against,
           "generations": a.generations, "games": a.games, "popsize": a.popsize,
           "sigma": a.sigma, "seed": a.seed, "gain": gain, "gain_half": half,
           "final": [f_rate, f_lo, f_hi], "base_share": [b_rate, b_lo, b_hi],
           "check_games": a.check_games, "seconds": round(time.perf_counter() - began)}
    rows = latest.update_rows(NAME, KEY, row)
    lines = ["| game | players | base | against | generations x games a seat | mean's gain "
             "over the base (later half) | re-tuned, fresh seeds | base, same deals |",
             "|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: tuple(str(r[k]) for k in KEY)):
        lines.append(
            f"| {r['game']} | {r['players']} | `{r['base']}` | `{r['against']}` | "
            f"{r['generations']} x {r['games']:,} (sigma {r['sigma']}) | "
            f"{r['gain']:+.2%} ± {r['gain_half']:.2%} | "
            f"{r['final'][0]:.1%} [{r['final'][1]:.1%}-{r['final'][2]:.1%}] | "
            f"{r['base_share'][0]:.1%} [{r['base_share'][1]:.1%}-{r['base_share'][2]:.1%}] |")
    latest.write(NAME, "A strategy re-tuned against one fixed opponent", "\n".join(lines) + "\n",
                 command="python benchmarks/best_response.py (one row per game, players, "
                         "base, opponent and sigma; each row's own command in "
                         "best_response.json)",
                 notes="Shares are of the decided games, every seat; the gain is the CMA "
                       "mean's over the base on each generation's games, averaged over the "
                       "later half of the generations (± its 95 % half-width).")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
