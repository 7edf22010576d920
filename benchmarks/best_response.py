"""How much a strategy's weights gain when re-tuned to beat one fixed opponent: whether a
shortfall against it lies in how the weights were learned or in what the features hold.

    python benchmarks/best_response.py --players 2 --base @p2p-2p.yaml --against expert-v1
    python benchmarks/best_response.py --game plai --players 3 --base expert --against expert-v1

It is ``simulate tune --against`` with one opponent (sim/studies/tune_against.py's
``search_against``, CMA-ES in tune's normalised space), the noise draws' weights held at
the base's: the objective is a candidate's share of the decided games against the
opponent, in every seat (``--games`` per seat). Each generation plays fresh seeds, and on
them, besides the population, the search mean and the base (common random numbers): the
mean's gain over the base on those games is what the search found. A re-tune that gains
nothing from a good start leaves the base at a local best response within the features:
more learning of the same weights cannot close the gap, a new feature or a stronger
policy can.

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


def main() -> None:
    from sim.core.game import configure_request, game_request, resolve_game
    from sim.studies.tune_search import scales_for
    from sim.studies.tune_against import search_against

    a = arguments().parse_args()
    game = resolve_game(a.game)
    arena_cls = game.tune_arena
    request = game_request(None, None, (), None, False)

    def configure(strategies):
        return configure_request(game, a.players, {**request, "strategies": strategies})

    arena = arena_cls(configure(None), a.threads)
    base = arena_cls.vector_of(configure(arena_cls.strategies_for(a.base)))
    opponent = arena_cls.vector_of(configure(arena_cls.strategies_for(a.against)))
    # the noise draws' weights stay the base's: a scale of 0 keeps them where they are
    scales = np.where(arena.noise, 0.0, scales_for(arena.names, base, arena.scales_floor))
    per_vector = a.games * arena.sides
    began = time.perf_counter()
    result = search_against(arena, base, {a.against: opponent},
                            budget=a.generations * (a.popsize + 2) * per_vector, seed=a.seed,
                            scales=scales, games_per_eval=per_vector,
                            check_games=a.check_games * arena.sides, sigma=a.sigma,
                            popsize=a.popsize)
    gains = [g.mean["win_rate"] - g.champion["win_rate"] for g in result.generations]
    late = gains[len(gains) // 2:]
    gain = statistics.fmean(late)
    half = 1.96 * statistics.stdev(late) / len(late) ** 0.5 if len(late) > 1 else float("nan")
    shares = {row["entry"].split(" against ")[0]: [row["share"], row["share_low"],
                                                   row["share_high"]] for row in result.final}
    row = {"game": a.game, "players": a.players, "base": a.base, "against": a.against,
           "generations": len(result.generations), "games": a.games, "popsize": a.popsize,
           "sigma": a.sigma, "seed": a.seed, "gain": gain, "gain_half": half,
           "final": shares["tuned"], "base_share": shares["base"],
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
                       "mean's win rate over the base's on each generation's games, averaged "
                       "over the later half of the generations (± its 95 % half-width).")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
