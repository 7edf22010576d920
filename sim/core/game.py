"""The contract between a game sub-package and the runner / CLI / reports.

Each game package (``sim.games.<pkg>``) has a module ``game.py`` with a module-level
``GAME`` object that satisfies ``Game``. Games are imported lazily so a command never
loads (or compiles) kernels it does not use.
"""
from __future__ import annotations

import importlib
import os
from typing import Any, Mapping, Protocol

import polars as pl

from sim.core.errors import UserError
from sim.core.inputs import parse_count

# name on the command line -> module holding GAME. Explicit on purpose: read it to see
# every game the simulator knows.
GAME_MODULES = {
    "peer-to-peer": "sim.games.peer_to_peer.game",
    "plai": "sim.games.plai.game",
}

# Extra games for tests and out-of-tree games, e.g. CARDSIM_EXTRA_GAMES="fake=fake_game"
# or "a=pkg.mod_a,b=pkg.mod_b". Each module must define GAME (see Game below).
EXTRA_GAMES_ENV = "CARDSIM_EXTRA_GAMES"


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
        """Load and validate everything; raise sim.core.errors.UserError on bad input."""


def get_game(name: str) -> Game:
    """A built-in game's GAME object (see resolve_game for extra games)."""
    if name not in GAME_MODULES:
        raise UserError(f"unknown game '{name}'; choose one of: {', '.join(GAME_MODULES)}",
                        field="--game")
    return importlib.import_module(GAME_MODULES[name]).GAME


def extra_games() -> dict[str, str]:
    """Games registered through the CARDSIM_EXTRA_GAMES environment variable."""
    raw = os.environ.get(EXTRA_GAMES_ENV, "").strip()
    found: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in raw.split(","))):
        name, eq, module = (piece.strip() for piece in item.partition("="))
        if not eq or not name or not module:
            raise UserError(f"entries must look like name=module.path, got '{item}'",
                            field=EXTRA_GAMES_ENV)
        found[name] = module
    return found


def game_modules() -> dict[str, str]:
    """Every game name the CLI accepts -> module holding GAME."""
    modules = dict(GAME_MODULES)
    for name, module in extra_games().items():
        modules.setdefault(name, module)  # built-in names cannot be shadowed
    return modules


def resolve_game(name: str) -> Game:
    """The ``GAME`` object for a game name (built-in or from CARDSIM_EXTRA_GAMES)."""
    modules = game_modules()
    if name not in modules:
        raise UserError(f"unknown game '{name}'; choose one of: {', '.join(modules)}",
                        field="--game")
    module_name = modules[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(exc.name + ".")):
            raise UserError(f"game '{name}' is not available (module {module_name} not found)",
                            field="--game") from None
        raise
    game = getattr(module, "GAME", None)
    if game is None:
        raise UserError(f"module {module_name} defines no GAME", field="--game")
    return game


def player_count(game: Game, players: Any) -> int:
    """``--players`` for ``game``: its default when None, else one of its player counts."""
    if players is None:
        return int(game.default_players)
    count = parse_count(players, field="--players", maximum=1000)
    valid = tuple(getattr(game, "player_counts", ()) or ())
    if valid and count not in valid:
        raise UserError(f"{game.name} is played by {', '.join(map(str, valid))} players, "
                        f"not {count}", field="--players")
    return count


def _abspath(path: str | os.PathLike | None) -> str | None:
    return None if path is None else os.path.abspath(os.fspath(path))


def game_request(cards: Any = None, rules_file: Any = None, rule_overrides: Any = (),
                 strategies: Any = None, debug: bool = False) -> dict[str, Any]:
    """What the user asked for, in the form ``Game.configure`` takes; stored in a run's
    manifest (``request``) so ``resume`` and workers can rebuild the same configuration."""
    if isinstance(rule_overrides, str):
        rule_overrides = (rule_overrides,)
    return {"cards": _abspath(cards), "rules_file": _abspath(rules_file),
            "rule_overrides": [str(rule) for rule in (rule_overrides or ())],
            "strategies": dict(strategies) if strategies else None, "debug": bool(debug)}


def configure_request(game: Game, players: int, request: Mapping[str, Any]) -> GameConfig:
    """``game.configure`` for a ``game_request`` dict (raises UserError on bad input)."""
    return game.configure(players=players, cards=request["cards"],
                          rules_file=request["rules_file"],
                          rule_overrides=tuple(request["rule_overrides"]),
                          strategies=dict(request["strategies"]) if request["strategies"] else None,
                          debug=request["debug"])


def configure(game: str, players: Any = None, cards: str | None = None,
              rules_file: str | None = None, rule_overrides: tuple[str, ...] = (),
              strategies: Mapping[str, str] | None = None, debug: bool = False) -> GameConfig:
    """A validated GameConfig for a game name and these inputs (raises UserError)."""
    game_obj = resolve_game(game)
    request = game_request(cards, rules_file, rule_overrides, strategies, debug)
    return configure_request(game_obj, player_count(game_obj, players), request)
