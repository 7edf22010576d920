"""``simulate tune``: the weights of a parametric strategy that win most, found by self-play.

The search (``search``) is CMA-ES from the ``cma`` package over every weight of the
game's weight vector, in a normalised space: a point ``x`` plays the weights
``base + scale * x``, where ``scale`` is each base weight's size (at least 1; the
Peer-to-Peer phase switch, counted in cards, 10), so one step of sigma means the same
relative change for a weight of 1000 and one of 0.01.

The search itself (self-play, promotion, restarts, the final and the re-check) is
``sim.studies.tune_search``; this module plays it in a game's arena, on a thread pool or
a Dask backend, and writes the strategy file, the check table and the convergence plot.

The games are played through the engine's usual entry points (``GameConfig.play`` with
weight vectors swapped in) in a thread pool, or as chunk tasks on a Dask backend (each
candidate written as a strategy file the workers read: evaluations are games). The
result depends only on the seed and the inputs: the same weights on every backend.
"""
from __future__ import annotations

import dataclasses
import os
import shlex
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from sim.core.arena import Tally
from sim.core.csvfile import content_sha256_or_none
from sim.core.errors import UserError
from sim.core.output import writing
from sim.studies.held import (held_mask, held_settings, held_text, held_vector,
                              held_weights)
from sim.studies.tune_search import (
    DEFAULT_CHECK_GAMES, DEFAULT_GAMES_PER_EVAL, SearchResult, scales_for, search,
)

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
             rules_file: str | None, backend: str,
             hold: Mapping[str, float | None] | None = None, name: str = "expert"
             ) -> dict[str, Any]:
    """The strategy file's content (sim/core/strategy_file.py reads it back); ``hold``:
    the weights the search left alone, by name (held_settings); ``name``: the file's own
    (its stem), so a candidate does not call itself the shipped expert."""
    import sim

    return {
        "cardsim_strategy": 1,
        "game": game,
        "name": name,
        "summary": f"tuned by simulate tune for {players} players from {base_spec} "
                   + (f"({result.games:,} games against {', '.join(result.settings['against'])}"
                      ", for the best worst share)" if result.settings.get("against")
                      else f"({result.games:,} games of self-play)")
                   + (f"; {held_text(hold, 'the tune')}" if hold else ""),
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
            "settings": {**{k: v for k, v in result.settings.items()
                            if k not in ("seed", "budget")},
                         **({"hold": dict(hold)} if hold else {})},
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
        held = self.document.get("tuned_on", {}).get("settings", {}).get("hold")
        lines = [f"{len(s.generations)} generations, {s.games:,} games "
                 + (f"against {', '.join(against)}" if against else
                    f"of self-play, {s.champions} promotion(s)") + f", {s.seconds:.0f} s"
                 + (f", {s.settings['runs']} CMA runs (restarts when promotions stop)"
                    if s.settings.get("runs", 1) > 1 else ""),
                 *final_lines(s),
                 *([held_text(held, "the tune")] if held else []),
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
        if not against:   # the field leaves the shipped expert out (field_baselines)
            game, players = self.document["game"], self.document["players"][0]
            inputs = tuned_inputs(self.document)   # the comparison plays the tune's inputs
            lines.append(f"not checked against the shipped {SHIPPED_EXPERT} (a tune never "
                         f"plays it); compare them: simulate matchups --game {game} "
                         f"--players {players} " + (f"{shlex.join(inputs)} " if inputs else "")
                         + "--strategies " + shlex.quote(f"{SHIPPED_EXPERT},@{self.out}"))
        lines += [f"strategy file: {self.out}", f"convergence plot: {self.plot}"]
        return "\n".join(lines)


def tuned_inputs(document: Mapping[str, Any]) -> list[str]:
    """The --cards, --rules and --rule a strategy file was tuned on (its ``tuned_on``), as
    command-line arguments: a comparison on other inputs would measure something else."""
    from sim.core.game import resolve_game

    tuned_on = document.get("tuned_on") or {}
    args: list[str] = []
    path = (tuned_on.get("cards") or {}).get("path")
    default = resolve_game(document["game"]).default_cards_path()
    if path and Path(path).resolve() != Path(default).resolve():
        args += ["--cards", str(path)]
    if tuned_on.get("rules_file"):
        args += ["--rules", str(tuned_on["rules_file"])]
    for rule in tuned_on.get("rule_overrides") or ():
        args += ["--rule", str(rule)]
    return args


def tune(configure: Callable[[Mapping[str, str] | None], Any], *, game: str, players: int,
         out: str | os.PathLike, budget: int, seed: int = 1, base: str = "weighted",
         threads: int = 1, submit: Callable[[list[tuple]], Any] | None = None,
         request: Any = None,
         games_per_eval: int = DEFAULT_GAMES_PER_EVAL, check_games: int = DEFAULT_CHECK_GAMES,
         sigma: float | None = None, popsize: int | None = None, progress: bool = True,
         command: str | None = None, cards: str | None = None, rules_file: str | None = None,
         rule_overrides: Sequence[str] = (), backend_name: str = "local",
         resume: bool = False, against: Sequence[str] = (),
         searcher: Callable[..., SearchResult] | None = None, hold: Any = None) -> TuneResult:
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
    ``search_against``) replaces self-play by a search against those fixed opponents.
    ``hold`` (sim/studies/held.py): weights the search leaves at a value or the base's."""
    from sim.core.game import resolve_game
    from sim.core.strategy import registry
    from sim.runs.resumable import Journal, journal_beside, refuse_finished_file, stoppable

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
    refuse_finished_file(out_path, "tune")
    template = configure(None)
    names = arena_cls.weight_names()
    held = held_weights(hold, names)
    base_vector = held_vector(arena_cls.vector_of(configure(arena_cls.strategies_for(base))),
                              held)
    # the weights the search moves (None: every one)
    free = ~held_mask(len(names), held) if held else None
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
                **({"hold": held_settings(held, names)} if held else {}),
                "cards_sha256": manifest["cards"]["sha256"], "rules": manifest["rules"]}
    journal_path = journal_beside(out_path)
    with stoppable("tune", journal_path), Journal.open(
            journal_path, settings, what="tune", resume=resume, out=out_path,
            discard_empty=True) as journal:
        result, names = _search_with(arena_cls(template, threads), submit, request, out_path,
                                     journal, base_vector, baselines, free,
                                     budget=budget, seed=seed,
                                     games_per_eval=games_per_eval, check_games=check_games,
                                     sigma=sigma, popsize=popsize, progress=progress,
                                     searcher=searcher)
        doc = document(result, game=game, players=players, base_spec=base, names=names,
                       command=command, cards={"path": cards or manifest["cards"]["path"],
                                               "sha256": manifest["cards"]["sha256"]},
                       rules=manifest["rules"], rule_overrides=rule_overrides,
                       rules_file=rules_file, backend=backend_name,
                       hold=held_settings(held, names), name=out_path.stem)
        path = write_strategy_file(doc, out_path)
        with writing("the convergence plot", path.with_suffix(".png")):
            plot = plot_convergence(result, path.with_suffix(".png"),
                                    f"simulate tune: {game}, {players} players, seed {seed}; "
                                    f"{result.games:,} games")
        journal.remove()
    return TuneResult(out=path, plot=plot, document=doc, search=result)


def _search_with(local: Any, submit: Callable[[list[tuple]], Any] | None, request: Any,
                 out_path: Path, journal: Any, base_vector: np.ndarray,
                 baselines: Mapping[str, np.ndarray], free: np.ndarray | None, *,
                 budget: int, seed: int,
                 games_per_eval: int, check_games: int, sigma: float | None,
                 popsize: int | None, progress: bool,
                 searcher: Callable[..., SearchResult] | None = None
                 ) -> tuple[SearchResult, tuple[str, ...]]:
    """``search`` (or ``searcher``, against ``baselines`` alone) on the game's arena
    (``local``, or its games as chunk tasks through ``submit``) over the weights ``free``
    marks (None: every one), every answer kept in ``journal``; (result, the weight
    names)."""
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
                            budget=budget, seed=seed, scales=scales, free=free,
                            games_per_eval=games_per_eval, check_games=check_games,
                            sigma=sigma if sigma is not None else float(local.tune_sigma),
                            popsize=popsize, progress=progress), tuple(arena.names)
        result = search(JournaledArena(arena, journal), base_vector, baselines, budget=budget,
                        seed=seed, scales=scales, free=free,
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
                  searcher: Callable[..., SearchResult] | None = None,
                  hold: Any = None) -> "TuneResult":
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
    held_weights(hold, arena_cls.weight_names())   # before a backend starts
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
                    against=opponents, searcher=searcher, hold=hold)
    finally:
        if owned:
            chosen.close()
