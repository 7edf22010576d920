"""The skill ladder: how much does skill decide the game?

    >>> from sim.studies import skill
    >>> result = skill.run(game="plai", players=[3], games=20_000, search_games=2_000)
    >>> print(result.table())

A ladder of players, weakest first: ``random``, each baseline (every other registered
strategy of the game but expert and search), ``expert`` (the game's default strategy
while the game has no expert), then ``search`` at two budgets over expert. The baselines
are ordered by their share against expert, measured here; a baseline with the weights of
expert or of another baseline at that player count plays exactly as it and is left out
(the summary's ``alike`` and sentence name it). Each rung plays the rung below it and
expert.

A pairing (X, Y) follows the game's ``Game.matchup_scheme``: "every_seat" (X in one seat,
Y in every other, X in each seat in turn) or "team_pairs" (X as team A and as team B,
each with each first marker). Every block of every pairing plays the same game indices
``0 .. per_block - 1``, so each deal is played with the stronger side in every seat, and
every pairing sees the same deals: common random numbers (a strategy against itself splits
its decided games exactly evenly).

X's share of decided games. Decided games are those some side won (PLAI: a startup;
Peer-to-Peer: a team). With X in one seat and Y in m seats (m = players - 1 for
"every_seat", 1 for "team_pairs") a share of 50 % means X wins as often per seat as Y:
share = p / (p + (1 - p) / m) for p = X's wins / decided games, and its 95 % interval is
Wilson's interval for p mapped the same way (a monotone map, so it keeps its coverage).
The stronger side "beats" the weaker one beyond the interval when the interval's low end
is above 50 %. The luck share is the weaker side's share in the top pairing: the top
rung (the larger search budget) against expert.

Runs on any backend (sim.runs.backends): each block is a chunk task whose aggregates (the
counts of ``winner`` and of the outcome column) are all the ladder needs.
"""
from __future__ import annotations

import csv
import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from sim.core.errors import UserError
from sim.core.game import DEFAULT_GAME, resolve_game
from sim.core.output import writing
from sim.core.inputs import parse_count, parse_seed
from sim.core.strategy import registry
from sim.studies.matchup_files import common_manifest

DEFAULT_GAMES = 20_000         # per pairing without a search player
DEFAULT_SEARCH_GAMES = 2_000   # per pairing with one (see benchmarks/skill_ladder.py)
DEFAULT_BUDGETS = ("k=4,n=4", "k=8,n=16")   # PLAI's; each game's are its Game.skill_budgets
CHUNK = 100_000
PAIRING_COLUMNS = ("players", "pairing", "kind", "stronger", "weaker", "games", "decided",
                   "stronger_wins", "weaker_wins", "share", "ci_low", "ci_high", "beats",
                   "seconds")


@dataclass
class SkillResult:
    run_dir: Path
    game: str
    title: str
    players: list[int]
    ladders: dict[int, list[str]]                  # rungs, weakest first, by player count
    pairings: list[dict[str, Any]]                  # PAIRING_COLUMNS
    summary: dict[int, dict[str, Any]]              # by player count
    wall_seconds: float = 0.0
    manifest: dict[str, Any] = field(default_factory=dict)

    def table(self) -> str:
        lines = []
        for p in self.players:
            s = self.summary[p]
            # a rung against the one below ("below"), or any rung against expert, which
            # may be the stronger side ("expert")
            lines.append(f"{self.title}, {p} players: the rung's per-seat share of the "
                         "decided games against the other side (50 % = as strong per seat), "
                         "95 % interval")
            lines.append(f"  {'rung':<34}{'against':<34}{'kind':<10}{'games':>8}"
                         f"{'decided':>9}  share [95 % CI]")
            for r in (r for r in self.pairings if r["players"] == p):
                mark = "  beats" if r["beats"] else ""
                lines.append(f"  {r['stronger']:<34}{r['weaker']:<34}{r['kind']:<10}"
                             f"{r['games']:>8,}{r['decided']:>9,}  {100 * r['share']:5.1f} "
                             f"[{100 * r['ci_low']:.1f}-{100 * r['ci_high']:.1f}]{mark}")
            lines.append(f"  rungs beating the rung below beyond the interval: "
                         f"{s['rungs_beaten']} of {s['steps']}")
            lines.append(f"  luck share: {100 * s['luck_share']:.1f} % "
                         f"[{100 * s['luck_low']:.1f}-{100 * s['luck_high']:.1f}]  "
                         f"({s['top_pairing']})")
            lines.append("  " + s["sentence"])
        return "\n".join(lines)


def wilson_share(wins: int, losses: int, seats: int) -> tuple[float, float, float]:
    """(share, low, high): the per-seat share of decided games of one seat against
    ``seats`` seats (module docstring); nan for no decided game."""
    from sim.core.stats import wilson

    p, lo, hi = wilson(wins, wins + losses)

    def per_seat(x: float) -> float:
        return x / (x + (1.0 - x) / seats) if x == x and (x + (1.0 - x) / seats) > 0 else x

    return per_seat(p), per_seat(lo), per_seat(hi)


def ladder_rungs(game_obj: Any, budgets: Sequence[str]) -> tuple[list[str], list[str], str]:
    """(baselines, search rungs, expert): the ladder's strategies (baselines unordered)."""
    known = registry(game_obj.strategy_package)
    expert = "expert" if "expert" in known else game_obj.default_strategy
    baselines = [n for n, s in sorted(known.items())
                 if n not in ("random", expert) and not s.search]
    # A game without a search player yet has a ladder up to expert.
    searches = [f"search:{b},base={expert}" for b in budgets] if "search" in known else []
    return baselines, searches, expert


def _blocks(scheme: str, players: int, stronger: str, weaker: str
            ) -> list[tuple[dict[str, str], tuple[str, ...], Any]]:
    """(strategies, rule overrides, the stronger side's slot) of each block of a pairing."""
    if scheme == "every_seat":
        return [({"all": weaker, f"seat{s}": stronger}, (), s) for s in range(players)]
    if scheme == "team_pairs":
        return [({"A": stronger, "B": weaker} if team == "A" else {"A": weaker, "B": stronger},
                 (f"first_marker={marker}",), team)
                for team in ("A", "B") for marker in ("A", "B")]
    raise UserError(f"the skill ladder needs a matchup scheme every_seat or team_pairs, not "
                    f"'{scheme}'", field="--game")


def _wins(scheme: str, codes: dict[str, int], outcome_column: str, slot: Any,
          counts: dict[str, dict[int, int]]) -> tuple[int, int]:
    """(stronger side's wins, weaker side's wins) of one block from its value counts."""
    if scheme == "every_seat":
        winners = counts.get("winner", {})
        mine = int(winners.get(slot, 0))
        return mine, int(sum(v for k, v in winners.items() if k >= 0 and k != slot))
    outcomes = counts.get(outcome_column, {})
    other = "B" if slot == "A" else "A"
    return int(outcomes.get(codes[slot], 0)), int(outcomes.get(codes[other], 0))


class _Player:
    """Plays the blocks of pairings on one backend and tallies them."""

    def __init__(self, game_obj, players, seed, threads, backend, root, configure_args,
                 journal=None):
        from sim.runs.backends.base import ConfigRequest

        self.game, self.players, self.seed, self.threads = game_obj, players, seed, threads
        self.backend, self.root, self.args = backend, root, configure_args
        self.journal = journal
        self.scheme = game_obj.matchup_scheme
        self.codes = game_obj.outcome_codes
        self.outcome_column = game_obj.outcome_column
        self.request_type = ConfigRequest
        self.block_id = 0

    def pairing(self, stronger: str, weaker: str, games: int) -> tuple[int, int, int, float]:
        """(games, stronger wins, weaker wins, seconds) of one pairing."""
        blocks = _blocks(self.scheme, self.players, stronger, weaker)
        per_block = max(1, games // len(blocks))
        tasks, slots = [], {}
        for b, (strategies, overrides, slot) in enumerate(blocks):
            request = self.request_type.build(self.game.name, self.players, {
                "cards": self.args["cards"], "rules_file": self.args["rules_file"],
                "rule_overrides": [*self.args["rule_overrides"], *overrides],
                "strategies": strategies, "debug": False})
            run_dir = self.root / "blocks" / f"{self.players}p-{self.block_id:03d}"
            self.block_id += 1
            (run_dir / "games").mkdir(parents=True, exist_ok=True)
            for lo in range(0, per_block, CHUNK):   # the same indices in every pairing (CRN)
                task = self._task(request, run_dir, lo, min(CHUNK, per_block - lo))
                tasks.append(task)
                slots[(str(run_dir), task.start)] = slot

        def play() -> tuple[int, int, int, float]:
            from sim.runs.resumable import split_finished

            began = time.perf_counter()
            won = lost = 0
            done, todo = split_finished(tasks)   # chunks a stopped ladder finished
            for result in [*done, *self.backend.run_tasks(todo)]:
                a, b = _wins(self.scheme, self.codes, self.outcome_column,
                             slots[(result.run_dir, result.start)], result.aggregates["counts"])
                won, lost = won + a, lost + b
            return per_block * len(blocks), won, lost, time.perf_counter() - began

        if self.journal is None:
            return play()
        return tuple(self.journal.step(("pairing", self.players, stronger, weaker, games), play,
                                       encode=list, decode=tuple))

    def plays_alike(self, names: Sequence[str]) -> dict[str, str]:
        """{name: the earlier name it plays exactly as}: strategies whose weights at this
        player count are the same (``weighted`` at its defaults is ``greedy``), so the
        ladder keeps one rung of them. Earlier: ``names``' first, then fewer parameters."""
        import numpy as np

        arena = self.game.tune_arena
        if arena is None:   # no weight vector to compare: every rung stays
            return {}
        known = registry(self.game.strategy_package)
        first = names[0]
        ordered = [first, *sorted(names[1:], key=lambda n: (
            len(known[n.split(":")[0]].params), n))]
        kept: list[tuple[str, Any]] = []
        alike = {}
        for name in ordered:
            config = self.game.configure(
                players=self.players, cards=self.args["cards"],
                rules_file=self.args["rules_file"],
                rule_overrides=tuple(self.args["rule_overrides"]),
                strategies=arena.strategies_for(name))
            vector = arena.vector_of(config)
            same = next((k for k, v in kept if np.array_equal(v, vector)), None)
            if same is None:
                kept.append((name, vector))
            else:
                alike[name] = same
        return alike

    def _task(self, request, run_dir, start, count):
        from sim.runs.backends.base import ChunkTask

        return ChunkTask(request, str(run_dir), self.seed, int(start), int(count), self.threads)


def run(game: str = DEFAULT_GAME, players: int | Sequence[int] | str | None = None,
        games: int | str = DEFAULT_GAMES, search_games: int | str = DEFAULT_SEARCH_GAMES,
        budgets: Sequence[str] | None = None, seed: int = 1,
        out: str | Path | None = None, threads: int | None = None, cards: str | None = None,
        rules_file: str | None = None, rule_overrides: Sequence[str] = (),
        backend: Any = None, backend_options: Any = None,
        command_line: str | None = None, progress: Any = None,
        resume: bool = False) -> SkillResult:
    """The skill ladder of ``game`` at each player count of ``players`` (default: every
    count the game has from 2 up); writes pairings.csv, ladder.txt, skill.json, a plot per
    player count (ladder-<P>p.png) and manifest.json into a new run directory.

    Each finished pairing is kept in the directory's ``resume.jsonl`` and its chunks in
    ``blocks/``; after Ctrl-C, SIGTERM or a full disk, the same call with ``resume=True``
    (and that directory as ``out``) plays only what is missing, to the same ladder."""
    from sim.runs import backends as backends_pkg
    from sim.runs.resumable import JOURNAL_NAME, Journal, file_identity, output_dir, stoppable
    from sim.runs.rundir import stamped_path

    game_obj = resolve_game(game)
    counts = _player_counts(game_obj, players)
    games = parse_count(games, field="--games")
    search_games = parse_count(search_games, field="--search-games")
    seed = parse_seed(seed)
    budgets = tuple(budgets) if budgets else tuple(game_obj.skill_budgets)
    if len(budgets) != 2:
        raise UserError("give two search budgets, e.g. 'k=4,n=4;k=8,n=16'", field="--budgets")
    baselines, searches, expert = ladder_rungs(game_obj, budgets)
    from sim.core.strategy import parse_spec

    for spec in searches:   # a bad budget fails before the first game
        parse_spec(spec, game_obj.strategy_package, field_name="--budgets")
    run_dir = output_dir(Path(out) if out is not None else stamped_path(
        f"skill-{game_obj.name}-seed{seed}"), what="skill ladder", resume=resume,
        finished="skill.json")
    settings = {"game": game_obj.name, "players": counts, "games": games,
                "search_games": search_games, "budgets": list(budgets), "seed": seed,
                "cards": file_identity(cards), "rules_file": file_identity(rules_file),
                "rule_overrides": list(rule_overrides)}
    began = time.perf_counter()
    configure_args = {"cards": cards, "rules_file": rules_file,
                      "rule_overrides": tuple(rule_overrides)}
    pairings: list[dict[str, Any]] = []
    ladders: dict[int, list[str]] = {}
    summary: dict[int, dict[str, Any]] = {}
    with stoppable("skill ladder", run_dir, out_option=run_dir), Journal.open(
            run_dir / JOURNAL_NAME, settings, what="skill ladder", resume=resume,
            out=run_dir) as journal:
        chosen, owned = backends_pkg.resolve(backend, backend_options)
        try:
            for p in counts:
                player = _Player(game_obj, p, seed, threads, chosen, run_dir, configure_args,
                                 journal)
                rows, ladder, alike = _ladder(player, p, baselines, searches, expert, games,
                                              search_games, progress)
                pairings.extend(rows)
                ladders[p] = ladder
                summary[p] = _summary(rows, ladder, expert, game_obj.title, p, alike)
        finally:
            if owned:
                chosen.close()
        result = _result(run_dir, game_obj, counts, ladders, pairings, summary, began, seed,
                         games, search_games, budgets, expert, chosen, threads, rule_overrides,
                         cards, rules_file, command_line)
        with writing("the skill ladder's files", run_dir):
            _write(result)
    return result


def _result(run_dir, game_obj, counts, ladders, pairings, summary, began, seed, games,
            search_games, budgets, expert, chosen, threads, rule_overrides, cards, rules_file,
            command_line) -> SkillResult:
    wall = time.perf_counter() - began
    result = SkillResult(run_dir=run_dir, game=game_obj.name, title=game_obj.title,
                         players=counts, ladders=ladders, pairings=pairings, summary=summary,
                         wall_seconds=wall)
    result.manifest = {
        "kind": "skill", "game": game_obj.name, "players": counts, "seed": seed,
        "games_per_pairing": games, "search_games_per_pairing": search_games,
        "budgets": list(budgets), "expert": expert, "backend": chosen.describe(),
        "threads": threads, "rule_overrides": list(rule_overrides), "cards": cards,
        "rules_file": rules_file,
        "share": "the stronger side's per-seat share of decided games; Wilson 95 % "
                 "interval mapped (see sim/studies/skill.py)",
        "luck_share": "the weaker side's share in the top rung's pairing with expert",
        **common_manifest(wall=wall, command_line=command_line),
    }
    return result


def _player_counts(game_obj: Any, players: Any) -> list[int]:
    valid = [p for p in game_obj.player_counts if p >= 2]
    if players is None or players == "all":
        return valid
    if isinstance(players, str):
        items = [x for x in players.replace(" ", "").split(",") if x]
    elif isinstance(players, int):
        items = [players]
    else:
        items = list(players)
    out = []
    for item in items:
        p = parse_count(item, field="--players")
        if p not in valid:
            raise UserError(f"{game_obj.name} skill ladders need 2+ players of "
                            f"{', '.join(map(str, valid))}, got {p}", field="--players")
        out.append(p)
    return sorted(set(out))


def _ladder(player: _Player, p: int, baselines, searches, expert, games, search_games,
            progress) -> tuple[list[dict[str, Any]], list[str]]:
    played: dict[tuple[str, str], dict[str, Any]] = {}

    def play(stronger: str, weaker: str, kind: str) -> dict[str, Any]:
        key = (stronger, weaker)
        if key not in played:
            n = search_games if any(s.startswith("search") for s in key) else games
            total, won, lost, seconds = player.pairing(stronger, weaker, n)
            m = p - 1 if player.scheme == "every_seat" else 1
            share, lo, hi = wilson_share(won, lost, m)
            played[key] = {"players": p, "pairing": f"{stronger} vs {weaker}", "kind": kind,
                           "stronger": stronger, "weaker": weaker, "games": total,
                           "decided": won + lost, "stronger_wins": won, "weaker_wins": lost,
                           "share": share, "ci_low": lo, "ci_high": hi,
                           "beats": bool(lo > 0.5), "seconds": round(seconds, 3)}
            if callable(progress):
                progress(played[key])
        elif kind not in played[key]["kind"]:
            played[key]["kind"] += "+" + kind
        return played[key]

    # a baseline that plays exactly as expert or another baseline is no step up the ladder
    alike = player.plays_alike([expert, *baselines])
    baselines = [b for b in baselines if b not in alike]
    # baselines ordered by their share against expert (weakest first)
    vs_expert = {name: play(name, expert, "expert") for name in ["random", *baselines]}
    ordered = sorted(baselines, key=lambda n: vs_expert[n]["share"])
    ladder = ["random", *ordered, expert, *searches]
    for s in searches:
        play(s, expert, "expert")
    for below, above in zip(ladder, ladder[1:]):
        play(above, below, "below")
    order = {name: i for i, name in enumerate(ladder)}
    rows = sorted(played.values(), key=lambda r: (order[r["stronger"]], r["kind"] != "below"))
    return rows, ladder, alike


def _summary(rows, ladder, expert, title, p, alike=None) -> dict[str, Any]:
    steps = [r for r in rows if "below" in r["kind"]]
    # the top pairing: the top rung against expert (expert against the rung below when
    # the game has no search player)
    top_rung = ladder[-1] if ladder[-1] != expert else expert
    weaker = expert if top_rung != expert else ladder[-2]
    top = next(r for r in rows if r["stronger"] == top_rung and r["weaker"] == weaker)
    beaten = sum(1 for r in steps if r["beats"])
    luck, luck_lo, luck_hi = 1 - top["share"], 1 - top["ci_high"], 1 - top["ci_low"]
    sentence = (f"At {p} players, {beaten} of the {len(steps)} steps up the {title} ladder "
                f"win beyond their 95 % interval; against the best player here "
                f"({ladder[-1]}), {weaker} still has a per-seat share of {100 * luck:.0f} % "
                "of the decided games (50 %: as strong seat for seat).")
    if alike:
        sentence += " Left out: " + "; ".join(
            f"{name}, which plays exactly as {same} here (the same weights)"
            for name, same in alike.items()) + "."
    return {"rungs": ladder, "steps": len(steps), "rungs_beaten": beaten,
            "luck_share": luck, "luck_low": luck_lo, "luck_high": luck_hi,
            "top_pairing": top["pairing"], "alike": dict(alike or {}), "sentence": sentence}


def _write(result: SkillResult) -> None:
    from reports.skill_section import ladder_png

    path = result.run_dir
    path.mkdir(parents=True, exist_ok=True)
    with open(path / "pairings.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=PAIRING_COLUMNS)
        writer.writeheader()
        for row in result.pairings:
            writer.writerow({k: row[k] for k in PAIRING_COLUMNS})
    (path / "ladder.txt").write_text(result.table() + "\n")
    data = {"game": result.game, "title": result.title, "players": result.players,
            "ladders": {str(k): v for k, v in result.ladders.items()},
            "summary": {str(k): v for k, v in result.summary.items()},
            "pairings": result.pairings}
    (path / "skill.json").write_text(json.dumps(data, indent=1))
    for p in result.players:
        rows = [r for r in result.pairings if r["players"] == p]
        (path / f"ladder-{p}p.png").write_bytes(
            ladder_png(rows, result.ladders[p], f"{result.title}, {p} players"))
    (path / "manifest.json").write_text(json.dumps(result.manifest, indent=1, default=str))
