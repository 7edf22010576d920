"""Strategy matchups: every ordered pair of strategies, a win-rate matrix with 95 % intervals.

``run(..., game=G)`` plays the matchup scheme of G's ``Game.matchup_scheme``: "team_pairs"
(this module: games of two teams A and B, outcome codes A, B, draw, all_lose, timeout,
a ``first_marker`` rule option and a ``config.play``), "every_seat" (every strategy in
every seat, for games without teams: sim/studies/matchups_every_seat.py) or None (the game
has no matchups).

    >>> from sim.studies import matchups
    >>> result = matchups.run(["random", "greedy", "builder", "cautious"], players=4, games=10_000)
    >>> print(result.table())

Each ordered pair (X as team A, Y as team B) plays ``games`` games: half with the first
team marker on team A (rule option ``first_marker=A``) and half on team B, so the marker
is balanced. Team A is the larger team at 3 and 5 players, so the pair (X, Y) and its
mirror (Y, X) put each strategy on both the larger and the smaller team.

Win rate. Under the default rules most games end ``all_lose`` (everyone loses to
unhappy customers), so a head-to-head win rate over all games would mostly measure
that. The matrix cell (X, Y) is X's wins / (X's wins + X's losses), counted over the
games with a winner (draws and all_lose excluded), pooling (X, Y) and (Y, X). The 95 %
interval is Wilson's. A diagonal cell (X, X) is team A's rate in self-play (the seat
and team-size bias). ``all_lose`` rates are reported next to it.

Every game of a matchup run is a distinct game of one seed: block b (an ordered pair
and a marker) plays game indices ``b * games .. ``, recorded in pairs.csv, so any game
can be replayed with ``simulate trace``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from sim.core.errors import UserError
from sim.core.game import DEFAULT_GAME, resolve_game
from sim.core.inputs import parse_count
from sim.core.request import Execution, GameRequest
from sim.studies.matchup_files import (common_manifest, inputs_manifest,  # noqa: F401
                                       play_journaled, prepare, split_specs,
                                       write_outputs)

CHUNK = 100_000  # games per kernel call: bounds memory whatever --games is
MARKERS = ("A", "B")

PAIR_COLUMNS = ("team_a", "team_b", "first_marker", "first_game_index", "games", "a_wins",
                "b_wins", "draws", "all_lose", "timeouts", "errors")
MATRIX_COLUMNS = ("strategy", "opponent", "games", "decided", "wins", "losses", "win_rate",
                  "ci_low", "ci_high", "all_lose_rate")


@dataclass
class MatchupResult:
    run_dir: Path
    players: int
    games: int                     # per ordered pair
    strategies: list[str]
    pairs: list[dict[str, Any]]    # one row per (ordered pair, marker), PAIR_COLUMNS
    matrix: list[dict[str, Any]]   # one row per (strategy, opponent), MATRIX_COLUMNS
    wall_seconds: float = 0.0
    manifest: dict[str, Any] = field(default_factory=dict)

    def cell(self, strategy: str, opponent: str) -> dict[str, Any]:
        return next(r for r in self.matrix if r["strategy"] == strategy and r["opponent"] == opponent)

    def table(self) -> str:
        """Win rate of the row strategy against the column strategy, with its 95 % interval."""
        names = self.strategies
        width = max(24, *(len(n) + 2 for n in names))
        lines = [f"{self.players} players, {self.games:,} games per ordered pair; cell = row's "
                 "wins / (wins + losses) among games with a winner, 95 % Wilson interval; "
                 "diagonal = team A in self-play",
                 " " * width + "".join(f"{n:>{width}}" for n in names)]
        for row in names:
            cells = []
            for col in names:
                c = self.cell(row, col)
                if c["decided"] == 0:
                    cells.append(f"{'n/a':>{width}}")
                else:
                    text = (f"{100 * c['win_rate']:.1f} [{100 * c['ci_low']:.1f}-"
                            f"{100 * c['ci_high']:.1f}]")
                    cells.append(f"{text:>{width}}")
            lines.append(f"{row:<{width}}" + "".join(cells))
        lines.append("all_lose (everyone loses) %:")
        for row in names:
            lines.append(f"{row:<{width}}" + "".join(
                f"{100 * self.cell(row, col)['all_lose_rate']:>{width}.1f}" for col in names))
        return "\n".join(lines)


def _count(out: np.ndarray, column: str, codes: dict[str, int]) -> dict[str, int]:
    w = out[column]
    return {"a_wins": int((w == codes["A"]).sum()), "b_wins": int((w == codes["B"]).sum()),
            "draws": int((w == codes["draw"]).sum()),
            "all_lose": int((w == codes["all_lose"]).sum()),
            "timeouts": int((w == codes["timeout"]).sum()),
            "errors": int((out["error"] != 0).sum())}


def matrix_rows(strategies: list[str], pairs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Pool the blocks into one row per (strategy, opponent); see the module docstring."""
    from sim.core.stats import wilson

    rows = []
    for x in strategies:
        for y in strategies:
            wins = losses = games = all_lose = 0
            for p in pairs:
                if (p["team_a"], p["team_b"]) == (x, y):
                    wins, losses = wins + p["a_wins"], losses + p["b_wins"]
                elif x != y and (p["team_a"], p["team_b"]) == (y, x):
                    wins, losses = wins + p["b_wins"], losses + p["a_wins"]
                else:
                    continue
                games += p["games"]
                all_lose += p["all_lose"]
            rate, lo, hi = wilson(wins, wins + losses)
            rows.append({"strategy": x, "opponent": y, "games": games, "decided": wins + losses,
                         "wins": wins, "losses": losses, "win_rate": rate, "ci_low": lo,
                         "ci_high": hi, "all_lose_rate": all_lose / games if games else float("nan")})
    return rows


def run(strategies: str | Sequence[str], players: int = 4, games: int | str = 10_000,
        seed: int = 1, out: str | Path | None = None, threads: int | None = None,
        cards: str | None = None, rules_file: str | None = None,
        rule_overrides: Sequence[str] = (), debug: bool = False,
        command_line: str | None = None, game: str = DEFAULT_GAME, backend: Any = None,
        backend_options: Any = None):
    """``play`` in keyword form (``sim.api.matchups`` takes the values)."""
    request = GameRequest(game=game, players=players, cards=cards, rules_file=rules_file,
                          rule_overrides=tuple(rule_overrides), debug=debug)
    execution = Execution(games=games, seed=seed, out=out, threads=threads,
                          command_line=command_line, backend=backend,
                          backend_options=backend_options)
    return play(strategies, request, execution)


def play(strategies: str | Sequence[str], request: GameRequest, execution: Execution,
         resume: bool = False):
    """The matchups of ``request.game``'s scheme (its ``Game.matchup_scheme``; see the module).

    "team_pairs": play every ordered pair of ``strategies`` (``execution.games`` games each,
    default 10,000, marker balanced) and write manifest.json, pairs.csv, matrix.csv and
    matrix.txt into a new run directory. "every_seat": every strategy in every seat
    (sim/studies/matchups_every_seat.py). The games play on ``execution.backend`` (the same
    counts on every backend). Every finished block is kept in the run directory's
    resume.jsonl: after Ctrl-C, SIGTERM or a full disk, ``resume=True`` with that directory
    as ``execution.out`` plays only the blocks left, to the same counts."""
    game = request.game
    game_obj = resolve_game(game)
    scheme = game_obj.matchup_scheme
    if scheme not in ("team_pairs", "every_seat"):
        if scheme is None:
            raise UserError(f"game '{game}' has no matchups (its matchup_scheme is None)",
                            field="--game")
        raise UserError(f"game '{game}' names an unknown matchup scheme '{scheme}'; schemes: "
                        "team_pairs, every_seat", field="--game")
    if execution.games is None:
        execution = execution.replace(games=10_000)
    if request.players is None:
        request = request.replace(players=game_obj.default_players)
    from sim.runs import backends

    chosen, owned = backends.resolve(execution.backend, execution.backend_options)
    try:
        if scheme == "team_pairs":
            return _run_team_pairs(game_obj, strategies, request, execution, chosen, resume)
        from sim.studies import matchups_every_seat

        return matchups_every_seat.play(game_obj, strategies, request, execution, chosen,
                                        resume)
    finally:
        if owned:
            chosen.close()


def _run_team_pairs(game_obj: Any, strategies: str | Sequence[str], request: GameRequest,
                    execution: Execution, backend: Any, resume: bool) -> MatchupResult:
    """The "team_pairs" scheme (see the module)."""
    games = parse_count(execution.games, field="--games")
    if games < 2:
        raise UserError("must be at least 2 so both markers get games", field="--games")
    players = parse_count(request.players, field="--players",
                          maximum=max(game_obj.player_counts))
    if players < 2:
        raise UserError("matchups need two teams: at least 2 players", field="--players")
    rule_overrides = request.rule_overrides
    if any(o.split("=")[0].strip() == "first_marker" for o in rule_overrides):
        raise UserError("matchups balance the first marker themselves; drop first_marker",
                        field="--rule")
    request = request.replace(players=players)
    default = game_obj.default_strategy
    names, seed, threads, run_dir, fingerprints = prepare(game_obj, strategies, request, execution, players,
                                            f"random,{default}", resume)
    column, codes = game_obj.outcome_column, game_obj.outcome_codes

    halves = {"A": games // 2, "B": games - games // 2}
    pairs, blocks = [], []
    for team_a in names:
        for team_b in names:
            for marker in MARKERS:
                start = len(blocks) * games
                blocks.append(({"A": team_a, "B": team_b}, (f"first_marker={marker}",),
                               start, halves[marker]))
                pairs.append({"team_a": team_a, "team_b": team_b, "first_marker": marker,
                              "first_game_index": start, "games": halves[marker]})
    def finish(wall: float):
        result = MatchupResult(run_dir=run_dir, players=players, games=games, strategies=names,
                               pairs=pairs, matrix=matrix_rows(names, pairs), wall_seconds=wall)
        result.manifest = {
            **inputs_manifest(game_obj, request, names, seed, threads), "games_per_pair": games,
            "win_rate": "wins / (wins + losses) among games with a winner; Wilson 95 % interval",
            "marker": "first_marker=A for the first half of each ordered pair's games, B for "
                      "the rest",
            **common_manifest(wall=wall, command_line=execution.command_line),
        }
        write_outputs(result, PAIR_COLUMNS, MATRIX_COLUMNS)
        return result

    return play_journaled(game_obj, request, blocks, pairs, run_dir, fingerprints, games,
                          resume, finish, seed=seed, threads=threads, backend=backend,
                          progress=bool(execution.progress),
                          play=lambda config, *chunk: config.play(*chunk)[0],
                          count=lambda out, _: _count(out, column, codes), chunk=CHUNK)
