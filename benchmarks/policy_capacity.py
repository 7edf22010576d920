"""Is the default player's gap to the search player in its form or in its features? Not
run by pytest.

    python benchmarks/policy_capacity.py                          # Peer-to-Peer, 4 players
    python benchmarks/policy_capacity.py --players 2 --games 4000 --seed 31

Plays ``--games`` games in which ``search:k=K,n=N`` over ``--base`` decides for each
side in turn and records its decisions (the games ``simulate distill`` fits to), then
fits three policies of the same recorded option features to the first four fifths of
the decisions, by the distillation's value objective (sim/core/policy_fit.py: the
expected value of a softmax choice, sharpness 3), each as the base's score plus a part
of its own:

- linear: a weight per feature (what ``simulate distill`` fits);
- quadratic: a weight per feature and per product of two features;
- mlp: one hidden layer of 16 tanh units.

and reads them on the last fifth (other games): how often each ranks the search's choice
first, and the value its first choice loses against the search's in the search's own
playouts (an option not played out counts as its decision's worst). If a richer function
of the same features followed the search better on games it was not fitted to, the gap
would lie in the policy's form; if none does, in what the features say.
Replaces benchmarks/results/policy_capacity.md.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SHARPNESS = 3.0      # the distillation's default
HIDDEN = 16
STEPS = 1500         # Adam steps per fit
L2 = 1e-7


def record(game: str, players: int, base: str, games: int, seed: int, k: int, n: int,
           threads: int | None):
    """The search's informative decisions over ``games`` games, its side rotated, and the
    base's weight vector."""
    import polars as pl

    from sim import api
    from sim.core.game import configure_request, game_request
    from sim.core.policy_fit import decisions_of, informative, select
    from sim.core.recorded import recordings_of

    game_obj = api.resolve_game(game)
    arena_cls = game_obj.tune_arena
    request = game_request(None, None, (), None, False)
    template = configure_request(game_obj, players, {**request, "strategies": None})
    arena = arena_cls(template, 1)
    base_vector = arena_cls.vector_of(configure_request(
        game_obj, players, {**request, "strategies": arena_cls.strategies_for(base)}))
    search = f"search:k={k},n={n},base={base},record=4"
    recordings = []
    with tempfile.TemporaryDirectory() as tmp:
        for side in range(arena.sides):
            share = games // arena.sides + (side < games % arena.sides)
            result = api.run(game=game, players=players, games=share, seed=seed,
                             strategies=arena_cls.sided_strategies(search, base, side),
                             threads=threads, progress=False, out=Path(tmp) / f"side-{side}")
            for part in sorted((result.run_dir / "games").glob("*.parquet")):
                recordings.append(recordings_of(pl.read_parquet(part), arena.feature_width))
    decisions = decisions_of(recordings)
    return select(decisions, informative(decisions)), base_vector, arena.decision_kinds


class Fits:
    """The recorded decisions in the layout the fits need (policy_fit.Decisions')."""

    def __init__(self, decisions, base_vector):
        from sim.core.policy_fit import option_scores, played_out_values

        d = decisions
        self.starts, self.heads, self.counts = d.starts, d.starts[:-1], np.diff(d.starts)
        self.base = option_scores(d, base_vector)
        self.values = played_out_values(d)
        centred = np.add.reduceat(self.values, self.heads) / self.counts
        self.centred = self.values - np.repeat(centred, self.counts)
        self.chosen, self.kinds = d.chosen, d.kinds
        self.test = np.arange(d.count) >= int(0.8 * d.count)   # the last fifth of the games
        x = d.features[:, d.features.std(axis=0) > 0]
        self.inputs = (x - x.mean(0)) / x.std(0)

    def lost(self, scores):
        """Per decision: (the first choice is the search's, the value it loses)."""
        from sim.core.policy_fit import first_choices

        first = first_choices(scores, self.starts)
        return first == self.chosen, self.values[self.chosen] - self.values[first]

    def read(self, scores, mask):
        """(decisions, share ranking the search's choice first, value lost a decision)."""
        same, lost = self.lost(scores)
        return int(mask.sum()), float(same[mask].mean()), float(lost[mask].mean())

    def gain(self, scores, mask):
        """The value a decision ``scores`` saves against the base's choice, with its 95 %
        interval (paired over the decisions in ``mask``)."""
        saved = (self.lost(self.base)[1] - self.lost(scores)[1])[mask]
        half = 1.96 * saved.std(ddof=1) / np.sqrt(len(saved))
        return f"{saved.mean():+.4f} [{saved.mean() - half:+.4f}, {saved.mean() + half:+.4f}]"

    def fit(self, model, params):
        """Adam on the value objective over the training decisions; the fitted scores."""
        from sim.core.policy_fit import segment_softmax

        train_rows = np.repeat(~self.test, self.counts).astype(float) / (~self.test).sum()
        moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
        for t in range(1, STEPS + 1):
            out, back = model(params)
            p, _ = segment_softmax(SHARPNESS * (self.base + out), self.starts)
            expected = np.repeat(np.add.reduceat(p * self.centred, self.heads), self.counts)
            grads = back(-SHARPNESS * p * (self.centred - expected) * train_rows)
            for i, (g, w) in enumerate(zip(grads, params)):
                g = g + L2 * w
                m, v = moments[i]
                m[:] = 0.9 * m + 0.1 * g
                v[:] = 0.999 * v + 0.001 * g * g
                w -= 0.02 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
        return self.base + model(params)[0]


def linear(x):
    def model(params):
        return x @ params[0], lambda d: [x.T @ d]
    return model, [np.zeros(x.shape[1])]


def quadratic(x):
    i, j = np.triu_indices(x.shape[1])
    return linear(np.concatenate([x, x[:, i] * x[:, j]], axis=1))


def mlp(x, rng):
    def model(params):
        w1, b1, w2 = params
        a = np.tanh(x @ w1 + b1)

        def back(d):
            da = np.outer(d, w2) * (1 - a * a)
            return [x.T @ da, da.sum(0), a.T @ d]
        return a @ w2, back
    return model, [rng.normal(0, 0.3, (x.shape[1], HIDDEN)), np.zeros(HIDDEN), np.zeros(HIDDEN)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="peer-to-peer")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--base", default="expert")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--n", type=int, default=16)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args()
    began = time.perf_counter()
    decisions, base_vector, kind_names = record(args.game, args.players, args.base, args.games,
                                                args.seed, args.k, args.n, args.threads)
    fits = Fits(decisions, base_vector)
    recorded = time.perf_counter() - began
    rng = np.random.default_rng(args.seed)
    policies = {"the base itself": fits.base,
                "linear": fits.fit(*linear(fits.inputs)),
                "quadratic": fits.fit(*quadratic(fits.inputs)),
                f"mlp ({HIDDEN} tanh units)": fits.fit(*mlp(fits.inputs, rng))}
    kinds = [int(k) for k in np.unique(fits.kinds)]
    header = ["policy", "fitted on: first choice = search's", "value lost",
              "held out: first choice = search's", "value lost",
              "held out: value saved against the base [95 %]"]
    header += [f"held out, {kind_names[k]}: value lost" for k in kinds]
    lines = [f"`search:k={args.k},n={args.n}` over `{args.base}`, {args.game}, "
             f"{args.players} players, {args.games:,} games (seed {args.seed}): "
             f"{decisions.count:,} informative decisions, the last fifth held out; "
             f"{recorded:.0f} s to record.", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for name, scores in policies.items():
        _, agree_fit, lost_fit = fits.read(scores, ~fits.test)
        held, agree, lost = fits.read(scores, fits.test)
        cells = [name, f"{agree_fit:.1%}", f"{lost_fit:.4f}", f"{agree:.1%}", f"{lost:.4f}",
                 fits.gain(scores, fits.test)]
        cells += [f"{fits.read(scores, fits.test & (fits.kinds == k))[2]:.4f}" for k in kinds]
        lines.append("| " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    lines += ["", f"{held:,} decisions held out; {time.perf_counter() - began:.0f} s in all."]
    print("\n".join(lines))
    from benchmarks.latest import write

    write("policy_capacity", "A richer policy of the same features against the search's "
          "choices", "\n".join(lines))


if __name__ == "__main__":
    main()
