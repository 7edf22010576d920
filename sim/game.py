"""The contract between a game sub-package and the runner / CLI / reports.

Each game package (``sim.games.<pkg>``) has a module ``game.py`` with a module-level
``GAME`` object that satisfies ``Game``. Games are imported lazily so a command never
loads (or compiles) kernels it does not use.
"""
from __future__ import annotations

import importlib
from typing import Any, Protocol

import polars as pl

# name on the command line -> module holding GAME. Explicit on purpose: read it to see
# every game the simulator knows.
GAME_MODULES = {
    "peer-to-peer": "sim.games.peer_to_peer.game",
    "plai": "sim.games.plai.game",
}


class GameConfig(Protocol):
    """A fully validated configuration: cards, resolved rule options, strategies, players."""

    game: str
    players: int

    def manifest(self) -> dict[str, Any]:
        """JSON-able description: game, players, cards {path, sha256, ids, names},
        rules {option: value}, strategies {team_or_seat: {name, params}}."""

    def run_chunk(self, seed: int, start: int, count: int, threads: int = 1) -> pl.DataFrame:
        """Play games start .. start+count-1 and return one row per game (column
        ``game_index`` first). Identical for any thread count or chunking."""

    def trace(self, seed: int, game_index: int) -> str:
        """Replay one game and describe it round by round, in words."""

    def summarize(self, games: pl.LazyFrame) -> dict[str, Any]:
        """Headline numbers for the --json summary (game-specific keys)."""

    def format_summary(self, summary: dict[str, Any]) -> str:
        """The human-readable summary printed after a run."""


class Game(Protocol):
    name: str
    player_counts: tuple[int, ...]
    default_players: int

    def default_cards_path(self): ...

    def configure(self, *, players: int, cards: str | None = None, rules_file: str | None = None,
                  rule_overrides: tuple[str, ...] = (), strategies: dict[str, str] | None = None,
                  debug: bool = False) -> GameConfig:
        """Load and validate everything; raise sim.errors.UserError on bad input."""


def get_game(name: str) -> Game:
    from sim.errors import UserError

    if name not in GAME_MODULES:
        raise UserError(f"unknown game '{name}'; choose one of: {', '.join(GAME_MODULES)}",
                        field="--game")
    return importlib.import_module(GAME_MODULES[name]).GAME
