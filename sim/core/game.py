"""The contract between a game sub-package and the runner / CLI / reports.

Each game package (``sim.games.<pkg>``) has a module ``game.py`` with a module-level
``GAME`` object that satisfies ``Game``. Games are imported lazily so a command never
loads (or compiles) kernels it does not use.
"""
from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any, Mapping, Protocol

from sim.core.errors import UserError
from sim.core.inputs import parse_count

if TYPE_CHECKING:  # annotations only
    import polars as pl

# GAME_MODULES (name -> module holding GAME) and DEFAULT_GAME: sim/core/catalog.py
from sim.core.catalog import DEFAULT_GAME, GAME_MODULES  # noqa: F401 - part of this API

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

    def story(self, seed: int, game_index: int):
        """Replay one game as a sim.core.story.Story: its rounds (or turns) with the table
        at each one's start, what happened and every decision's options; ``trace`` is its
        text and the game viewer (reports/viewer.py) draws it. Optional: a game without it
        has no viewer."""

    def summarize(self, games: pl.LazyFrame) -> dict[str, Any]:
        """Headline numbers for the --json summary (game-specific keys)."""

    def format_summary(self, summary: dict[str, Any]) -> str:
        """The human-readable summary printed after a run."""


class Game(Protocol):
    """A game's GAME object. Besides configure, every command reads the game through the
    hooks below (see HOOKS and ``hook``): nothing outside ``sim/games/<g>/`` names a game."""

    name: str
    player_counts: tuple[int, ...]
    default_players: int

    def default_cards_path(self): ...

    title: str                      # the game's printed name ("Peer-to-Peer", "PLAI")

    # -- strategies (CLI flags, experiments, matchups, reports)
    strategy_kind: str              # "teams" (--team-a/--team-b) or "seats" (--seat/--strategy)
    default_strategy: str           # the strategy of a slot nobody chose
    strategy_package: str | None    # strategies/<package>/ (None: the game has no strategy files)

    def strategy_slots(self, players: int) -> tuple[str, ...]:
        """The strategy keys of a configured game: ("A", "B") or ("seat0", ...)."""

    def strategy_key(self, key: str, players: int | None = None) -> str:
        """A user's strategy key in canonical form ("a" -> "A"; "2"/"seat2" -> "seat2";
        "all" for every seat); ValueError naming the valid keys."""

    def pairing(self, manifest: Mapping[str, Any]) -> str:
        """A short label of a run's strategies for reports ("greedy vs random")."""

    # -- outcomes (defined once per game, in its package)
    outcome_column: str             # the per-game column holding the outcome code
    outcome_codes: Mapping[str, int]  # outcome name -> code in that column

    def headline_counts(self, games: pl.DataFrame, players: int) -> dict[str, int]:
        """Numerators of the headline rates (their denominator is every game), keyed by a
        label such as "team A win rate"; --until-ci stops when all are narrow enough."""

    headline_columns: tuple[str, ...]  # the columns headline_counts reads

    # -- studies and reports
    matchup_scheme: str | None      # "team_pairs", "every_seat" or None (no matchups)
    skill_budgets: tuple[str, str]  # simulate skill's two search budgets ("k=4,n=4", ...)

    def balance_variants(self, players: int) -> tuple[tuple[str, ...], ...]:
        """The rule-override sets balance-report runs at this player count (usually ((),))."""

    sweep_metrics: tuple[str, ...]  # reports.sweep metric names this game's table supports

    def default_sweep_metrics(self, players: tuple[int, ...]) -> tuple[str, ...]:
        """The sweep report's metrics when an experiment names none."""

    report_metrics: str | None      # the package of its report metric modules
                                    # (sim/games/<g>/report_metrics/), or None
    compared_rules: tuple[str, ...]  # rule options reports compare on purpose across runs

    def report_group(self, players: int, rules: Mapping[str, Any]) -> str:
        """The value of the reports' third group key (``variant``) for one run: the
        rule variant a report compares (Peer-to-Peer: the odd_team_compensation mode),
        "n/a" where the game has none."""

    report_card_fights: bool        # reports replay games for per-card fight counts
    card_ref_example: str           # an experiment card key, for error messages
    card_fields: tuple[str, ...] | None  # card fields experiments may change (None: the
                                         # card file's own columns other than id)
    why_lose: Any                   # the report's "why everyone loses" causes (.code: the
                                    # outcome code, .causes: name, words, advice, .column(
                                    # cause, team) -> the result column), or None
    swaps: tuple                    # sim.core.attribution.Swap: the counterfactual replays
                                    # that explain an answer's edge (the report, the summary)
    answer_examples: Mapping[str, Any]  # answer key -> f(answer, manifest, games) giving a
                                    # sim.core.examples.ExampleQuery: an example game of it
    ablation_fields: tuple[str, str | None]  # card-file columns `simulate ablate` changes:
                                    # (the value, the effect or None)
    tune_arena: Any                 # `simulate tune`'s arena class (sim.core.arena), or None
                                    # for a game without a parametric strategy

    def configure(self, *, players: int, cards: str | None = None, rules_file: str | None = None,
                  rule_overrides: tuple[str, ...] = (), strategies: dict[str, str] | None = None,
                  debug: bool = False) -> GameConfig:
        """Load and validate everything; raise sim.core.errors.UserError on bad input."""


# Every hook a command reads (see Game); tests/core/test_game_contract.py checks each game has
# them.
HOOKS = ("title", "strategy_kind", "default_strategy", "strategy_package", "strategy_slots",
         "strategy_key", "pairing", "outcome_column", "outcome_codes", "headline_counts",
         "headline_columns", "matchup_scheme", "balance_variants", "sweep_metrics",
         "default_sweep_metrics", "report_metrics", "compared_rules", "report_group",
         "report_card_fights", "card_ref_example", "card_fields", "tune_arena",
         "ablation_fields", "why_lose", "skill_budgets", "swaps", "answer_examples")


class MissingHook(UserError):
    """A game lacks a hook a command needs (a UserError: the CLI prints one line, exit 2)."""


def hook(game: Game, name: str) -> Any:
    """``game``'s hook ``name``; a MissingHook naming the game and the hook when it has none,
    so a new game fails loudly instead of falling back to another game's meaning."""
    if name not in HOOKS:
        raise ValueError(f"'{name}' is not a game hook; hooks: {', '.join(HOOKS)}")
    try:
        return getattr(game, name)
    except AttributeError:
        raise MissingHook(f"game '{getattr(game, 'name', game)}' has no hook '{name}' "
                          "(see sim/core/game.py Game)", field="--game") from None


def game_hook(game_name: str, name: str) -> Any:
    """``hook(resolve_game(game_name), name)``."""
    return hook(resolve_game(game_name), name)


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
