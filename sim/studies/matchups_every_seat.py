"""The "every_seat" matchup scheme: every strategy in every seat, for games without teams.

A game names this scheme in its description (``Game.matchup_scheme = "every_seat"``, PLAI
does) when it has seats ``seat0..`` as its strategy slots (``strategy_kind`` "seats"), a
``config.play`` whose records hold the ``winner`` seat and its outcome column, and an
outcome code named ``seat`` (the seat in ``winner`` won). Its other outcome codes are the
ways no seat wins (PLAI: ``maintainers``, ``stalemate``): each is counted per cell, in a
column of its name (pairs.csv) and a rate ``<name>_rate`` (matrix.csv).

    >>> from sim.studies import matchups
    >>> result = matchups.run("weighted,aggressive,cautious", game="plai", players=4, games=20_000)
    >>> print(result.table())

A matchup puts one strategy X in one seat and fills the others:

* cell (X, Y): X in one seat, Y in every other seat;
* cell (X, field): X in one seat, the other strategies in the other seats (in the order
  given, repeated as needed; X alone plays itself).

Each cell plays ``games`` games, split evenly over the P seats X can hold (block s puts X
in seat s), so the first player's advantage (seat 0 moves first unless
``first_seat=random``) is balanced: every strategy moves first in 1/P of its games. The
cell's win rate is X's wins over all games (games no seat won count as losses), with a
Wilson 95 % interval; a strategy no better than its opponents wins 1/P of the games some
seat won. The diagonal (X, X) is self-play, a check: it should be about (1 - the rate of
games no seat won) / P.

Head to head (X v Y), fair at 50 %: cells (X, Y) and (Y, X) pooled, i.e. X alone against
P-1 Ys and Y alone against P-1 Xs, every seat in turn. X's share = games won by a seat X
holds / games some seat won (games no seat won are not decided), Wilson
95 % interval. Swapping X and Y maps the design onto itself, so two equal strategies
share the decided games 50/50 at any P; X "beats" Y when the interval's lower end is
above 50 %. At 2 players it is the plain rotated duel. Written to head_to_head.csv.

Block b (a cell and a seat) plays game indices ``b * ceil(games / P) ..``, recorded in
pairs.csv, so any game can be replayed with ``simulate trace --game G --seat ...``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from sim.core.errors import UserError
from sim.core.game import Game
from sim.core.inputs import parse_count
from sim.studies.matchup_files import (common_manifest, inputs_manifest, play_journaled,
                                       prepare, write_csv, write_outputs)

CHUNK = 100_000
FIELD = "field"
SEAT_WON = "seat"   # the outcome code of a game some seat won (the seat in ``winner``)

# and, for every other outcome code <name> of the game, <name> (PAIR) and <name>_rate (MATRIX)
PAIR_COLUMNS = ("strategy", "opponent", "seat", "seats", "first_game_index", "games", "wins",
                "field_wins", "errors")
MATRIX_COLUMNS = ("strategy", "opponent", "games", "wins", "win_rate", "ci_low", "ci_high",
                  "seat_wins", "share", "share_low", "share_high", "fair_share")
HEAD_TO_HEAD_COLUMNS = ("strategy", "opponent", "games", "decided", "wins", "share",
                        "share_low", "share_high", "beats")


def seating(strategy: str, opponent: str, seat: int, players: int,
            names: Sequence[str]) -> list[str]:
    """The spec of every seat when ``strategy`` sits in ``seat`` against ``opponent`` (a
    strategy, or FIELD: the other strategies in the order given, repeated)."""
    others = [n for n in names if n != strategy] or [strategy]
    specs, j = [], 0
    for s in range(players):
        if s == seat:
            specs.append(strategy)
        elif opponent == FIELD:
            specs.append(others[j % len(others)])
            j += 1
        else:
            specs.append(opponent)
    return specs


def no_seat_outcomes(codes: Mapping[str, int]) -> list[str]:
    """The outcome names of games no seat won (every code but ``seat``), in the game's order."""
    if SEAT_WON not in codes:
        raise UserError(f"the every_seat matchup scheme needs an outcome code '{SEAT_WON}' "
                        f"(the game's are {', '.join(codes)})", field="--game")
    return [name for name in codes if name != SEAT_WON]


@dataclass
class EverySeatResult:
    run_dir: Path
    players: int
    games: int                     # per cell
    strategies: list[str]
    pairs: list[dict[str, Any]]    # one row per (cell, seat), PAIR_COLUMNS
    matrix: list[dict[str, Any]]   # one row per cell, MATRIX_COLUMNS
    wall_seconds: float = 0.0
    manifest: dict[str, Any] = field(default_factory=dict)
    game: str = ""                 # the game's name (set by run)
    title: str = ""                # its printed name (Game.title)
    head_to_head: list[dict[str, Any]] = field(default_factory=list)  # HEAD_TO_HEAD_COLUMNS
    no_seat: list[str] = field(default_factory=list)   # outcomes no seat won (no_seat_outcomes)

    def cell(self, strategy: str, opponent: str) -> dict[str, Any]:
        return next(r for r in self.matrix
                    if r["strategy"] == strategy and r["opponent"] == opponent)

    def table(self) -> str:
        """The row strategy's win rate (one seat, rotated) against the column strategy in
        every other seat, and against the field of the others."""
        cols = [*self.strategies, FIELD]
        width = max(22, *(len(n) + 2 for n in cols))
        lines = [f"{self.title or self.game}, {self.players} players, {self.games:,} games per cell, the row strategy "
                 f"in each seat in turn; cell = row's win rate over all games, 95 % Wilson "
                 f"interval; fair = {100 / self.players:.1f} % of the games some seat won",
                 " " * width + "".join(f"{n:>{width}}" for n in cols)]
        for row in self.strategies:
            cells = []
            for col in cols:
                c = self.cell(row, col)
                text = (f"{100 * c['win_rate']:.1f} [{100 * c['ci_low']:.1f}-"
                        f"{100 * c['ci_high']:.1f}]")
                cells.append(f"{text:>{width}}")
            lines.append(f"{row:<{width}}" + "".join(cells))
        if self.no_seat:
            lines.append(" / ".join(self.no_seat) + " %:")
            for row in self.strategies:
                cells = []
                for col in cols:
                    rates = [100 * self.cell(row, col)[name + "_rate"] for name in self.no_seat]
                    cells.append(f"{' / '.join(f'{r:.1f}' for r in rates):>{width}}")
                lines.append(f"{row:<{width}}" + "".join(cells))
        if self.head_to_head:
            lines.append("head to head (row alone v column in the other seats, pooled with "
                         "column alone v row): row's share of the decided games, 95 % Wilson "
                         "interval; fair = 50 %")
            lines.append(f"{'strategy':<{width}}{'opponent':<{width}}{'games':>10}{'decided':>10}"
                         f"{'share % [95 % CI]':>24}  beats")
            for h in self.head_to_head:
                ci = (f"{100 * h['share']:.2f} [{100 * h['share_low']:.2f}-"
                      f"{100 * h['share_high']:.2f}]")
                lines.append(f"{h['strategy']:<{width}}{h['opponent']:<{width}}{h['games']:>10,}"
                             f"{h['decided']:>10,}{ci:>24}  {'yes' if h['beats'] else 'no'}")
        return "\n".join(lines)


def _count(out, seat: int, column: str, codes: Mapping[str, int]) -> dict[str, int]:
    outcome = out[column]
    won = outcome == codes[SEAT_WON]
    mine = int((won & (out["winner"] == seat)).sum())
    return {"wins": mine, "field_wins": int(won.sum()) - mine,
            **{name: int((outcome == codes[name]).sum()) for name in no_seat_outcomes(codes)},
            "errors": int((out["error"] != 0).sum())}


def matrix_rows(strategies: list[str], pairs: list[dict[str, Any]],
                players: int, no_seat: Sequence[str] = ()) -> list[dict[str, Any]]:
    """Pool the seats of every cell; see the module docstring."""
    from sim.core.stats import wilson

    rows = []
    for x in strategies:
        for y in [*strategies, FIELD]:
            blocks = [p for p in pairs if p["strategy"] == x and p["opponent"] == y]
            games = sum(p["games"] for p in blocks)
            wins = sum(p["wins"] for p in blocks)
            seat_wins = wins + sum(p["field_wins"] for p in blocks)
            rate, lo, hi = wilson(wins, games)
            share, slo, shi = wilson(wins, seat_wins)
            rows.append({"strategy": x, "opponent": y, "games": games, "wins": wins,
                         "win_rate": rate, "ci_low": lo, "ci_high": hi, "seat_wins": seat_wins,
                         "share": share, "share_low": slo, "share_high": shi,
                         "fair_share": 1.0 / players,
                         **{f"{name}_rate": sum(p[name] for p in blocks) / games
                            if games else float("nan") for name in no_seat}})
    return rows


def head_to_head_rows(strategies: list[str], pairs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """X v Y for every ordered pair X != Y: cells (X, Y) and (Y, X) pooled; see the module."""
    from sim.core.stats import wilson

    rows = []
    for x in strategies:
        for y in strategies:
            if x == y:
                continue
            alone = [p for p in pairs if (p["strategy"], p["opponent"]) == (x, y)]
            among = [p for p in pairs if (p["strategy"], p["opponent"]) == (y, x)]
            wins = sum(p["wins"] for p in alone) + sum(p["field_wins"] for p in among)
            decided = sum(p["wins"] + p["field_wins"] for p in alone + among)
            share, lo, hi = wilson(wins, decided)
            rows.append({"strategy": x, "opponent": y,
                         "games": sum(p["games"] for p in alone + among), "decided": decided,
                         "wins": wins, "share": share, "share_low": lo, "share_high": hi,
                         "beats": bool(lo > 0.5)})
    return rows


def play(game_obj: Game, strategies: str | Sequence[str], request: Any, execution: Any,
         backend: Any, resume: bool = False) -> EverySeatResult:
    """Play every cell (strategy x opponent, and strategy x field), every seat in turn, on
    ``backend``; write manifest.json, pairs.csv, matrix.csv and matrix.txt into a new run
    directory (``sim.studies.matchups.play`` checks the scheme and owns the backend)."""
    game = game_obj.name
    games = parse_count(execution.games, field="--games")
    players = parse_count(request.players, field="--players", maximum=1000)
    if players not in tuple(game_obj.player_counts):  # the game's own message
        game_obj.configure(players=players, cards=request.cards, rules_file=request.rules_file,
                           rule_overrides=request.rule_overrides, debug=request.debug)
        raise UserError(f"{game} is not played by {players} players", field="--players")
    if games < players:
        raise UserError(f"must be at least {players} so every seat gets games", field="--games")
    request = request.replace(players=players)
    default = game_obj.default_strategy
    names, seed, threads, run_dir, fingerprints = prepare(game_obj, strategies, request, execution, players,
                                            f"{default},...", resume)
    column, codes = game_obj.outcome_column, game_obj.outcome_codes
    no_seat = no_seat_outcomes(codes)

    per_seat = [games // players + (1 if s < games % players else 0) for s in range(players)]
    stride = -(-games // players)
    pairs, blocks = [], []
    for x in names:
        for y in [*names, FIELD]:
            for seat in range(players):
                specs = seating(x, y, seat, players, names)
                start = len(blocks) * stride
                blocks.append(({f"seat{s}": spec for s, spec in enumerate(specs)}, (), start,
                               per_seat[seat]))
                pairs.append({"strategy": x, "opponent": y, "seat": seat,
                              "seats": " | ".join(specs), "first_game_index": start,
                              "games": per_seat[seat]})
    def finish(wall: float):
        result = EverySeatResult(run_dir=run_dir, players=players, games=games, strategies=names,
                                 pairs=pairs, matrix=matrix_rows(names, pairs, players, no_seat),
                                 wall_seconds=wall, game=game, title=game_obj.title,
                                 head_to_head=head_to_head_rows(names, pairs), no_seat=no_seat)
        result.manifest = {
            **inputs_manifest(game_obj, request, names, seed, threads), "games_per_cell": games,
            "win_rate": "the row strategy's wins / all games of the cell; Wilson 95 % interval",
            "seats": "the row strategy sits in each seat for an equal share of the cell's games; "
                     "the opponent (or the field of the other strategies) fills the other seats",
            "head_to_head": "cells (X, Y) and (Y, X) pooled: X's seats' wins / games some seat won; "
                            "Wilson 95 % interval; fair 50 %; beats = lower end above 50 %",
            **common_manifest(wall=wall, command_line=execution.command_line),
        }
        write_outputs(result, (*PAIR_COLUMNS[:-1], *no_seat, PAIR_COLUMNS[-1]),
                      (*MATRIX_COLUMNS, *(f"{name}_rate" for name in no_seat)))
        write_csv(run_dir / "head_to_head.csv", HEAD_TO_HEAD_COLUMNS, result.head_to_head)
        return result

    return play_journaled(game_obj, request, blocks, pairs, run_dir, fingerprints, games,
                          resume, finish, seed=seed, threads=threads, backend=backend,
                          progress=bool(execution.progress),
                          play=lambda config, *chunk: config.play(*chunk),
                          count=lambda out, i: _count(out, pairs[i]["seat"], column, codes),
                          chunk=CHUNK)
