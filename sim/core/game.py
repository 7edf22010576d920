"""A game, described once: the contract between a game package and everything above it.

Each game package (``sim.games.<pkg>``) has a module ``game.py`` with a module-level
``GAME = Game(...)``: one frozen, typed description holding what the runner, the CLI,
the studies and the reports need (its name, players, rule options, card file, strategies,
outcome codes, headline rates, matchup scheme, sweep and report metrics, replays, ...).
Commands read its attributes; none looks a game up by name or asks which game it is.
``configure`` builds a ``GameConfig`` (one validated configuration), the only way down to
the game's kernels. Games are imported lazily so a command never loads (or compiles)
kernels it does not use. The architecture page in docs/ shows the layers and every field.
"""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import (TYPE_CHECKING, Any, Callable, Literal, Mapping, Optional, Protocol,
                    Sequence, get_args)

from sim.core.errors import UserError
from sim.core.inputs import parse_count

if TYPE_CHECKING:  # annotations only
    import polars as pl

    from sim.core.arena import TuneArena
    from sim.core.attribution import Measure, Swap
    from sim.core.curves import Curves
    from sim.core.options import OptionSet
    from sim.core.story import Story
    from sim.core.sweep_metric import SweepMetric

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
        rules {option: value}, strategies {team_or_seat: {name, params}}, and
        strategy_weights_sha256 (sim.core.strategy.weights_sha256 of the weights it plays:
        an edited strategy file changes it; optional)."""

    def run_chunk(self, seed: int, start: int, count: int, threads: int = 1) -> pl.DataFrame:
        """Play games start .. start+count-1 and return one row per game (column
        ``game_index`` first). Identical for any thread count or chunking. A game with
        ``Game.curves`` also takes ``curves=`` a sim.core.curves.CurveSink, where it adds
        the chunk's per-round sums."""

    def trace(self, seed: int, game_index: int) -> str:
        """Replay one game and describe it round by round, in words."""

    def summarize(self, games: pl.LazyFrame) -> dict[str, Any]:
        """Headline numbers for the --json summary (game-specific keys)."""

    def format_summary(self, summary: dict[str, Any]) -> str:
        """The human-readable summary printed after a run."""

    # A game with a matchup scheme or a tune arena also has ``play(seed, start, count,
    # threads)``: the raw per-game records of ``run_chunk`` (numpy), without the table.
    # A game whose description has a ``story`` reads it from its configuration.


StrategyKind = Literal["teams", "seats"]
# the matchup schemes sim.studies.matchups knows (a game names its own, or None)
MatchupScheme = Literal["team_pairs", "every_seat"]


class Configure(Protocol):
    def __call__(self, *, players: int, cards: str | None = None, rules_file: str | None = None,
                 rule_overrides: tuple[str, ...] = (),
                 strategies: Mapping[str, str] | None = None, debug: bool = False) -> GameConfig:
        """Load and validate everything; raise sim.core.errors.UserError on bad input."""


class StrategyKey(Protocol):
    def __call__(self, key: str, players: int | None = None) -> str:
        """A user's strategy key in canonical form ("a" -> "A"; "2"/"seat2" -> "seat2";
        "all" for every seat); ValueError naming the valid keys."""


@dataclass(frozen=True)
class LossCause:
    """One cause of a lost game the engine records per game (e.g. why a customer went
    unhappy): the report's "why everyone loses" section splits the losses by them."""

    name: str     # the column stem (WhyLose.column) and answers.json's cause key
    words: str    # what it means, in a designer's words
    advice: str   # what a designer can change for it


@dataclass(frozen=True)
class WhyLose:
    """The report's "why everyone loses" causes, as a game's engine records them in its
    result columns (reports/why_lose.py; no replays)."""

    code: int                      # the outcome code (in Game.outcome_column): "everyone loses"
    causes: tuple[LossCause, ...]  # in their order: the first true statement wins
    # (cause name, team or None) -> the result column counting that cause's losses, for the
    # side that came closest (team None) or for one team ("a", "b")
    column: Callable[[str, Optional[str]], str]
    # the key of the game's answer giving the rate of "everyone loses": its "Why" names the
    # main cause (the causes' own answer has them all)
    rate_key: Optional[str] = None


@dataclass(frozen=True)
class CardFightReplay:
    """Per-card fight counts (columns ``<field>_<card index>``) for runs whose table lacks
    them: the report replays a sample of their games (reports/card_fights.py)."""

    fields: tuple[str, ...]   # the count columns' stems, e.g. "card_att" -> card_att_<k>
    check_column: str         # a stored column the replay must reproduce ("replay_<name>")
    # (config, seed, game indices) -> game_index, replay_<check_column>, the count columns
    replay: Callable[[GameConfig, int, Sequence[int]], pl.DataFrame]


def one_variant(players: int) -> tuple[tuple[str, ...], ...]:
    """``balance_variants`` of a game whose balance report runs each player count once."""
    return ((),)


def no_variant(players: int, rules: Mapping[str, Any]) -> str:
    """``report_group`` of a game whose reports compare no rule variant."""
    return "n/a"


def no_measures(players: int) -> list[Measure]:
    """``balance_measures`` of a game without a balance answer."""
    return []


def no_measure(players: int, summary: Mapping[str, Any]) -> Optional[Measure]:
    """``balance_measure`` of a game without a balance answer."""
    return None


def no_kernels() -> tuple[Any, ...]:
    """``kernels`` of a game without compiled code."""
    return ()


@dataclass(frozen=True, kw_only=True, eq=False)
class Game:
    """Everything a command needs to know about one game (see the module docstring and
    the architecture page in docs/). Fields with a default are capabilities a game may
    lack; the rest every game states. A new field is one line here with its comment (and,
    if a game must state it, one line in each game's ``GAME``)."""

    # -- identity
    name: str                         # the name on the command line and in manifests
    title: str                        # the printed name ("Peer-to-Peer", "PLAI")
    player_counts: tuple[int, ...]    # the player counts it is played by
    default_players: int              # --players when none is given

    # -- inputs: rule options, cards, configuration (the way down to the kernels)
    options: Optional[OptionSet]      # its rule options (defaults, rules YAML, --rule);
                                      # the workbench's rule form lists them (None: none)
    default_cards_path: Callable[[], Path]   # its default card file (a labelled reconstruction)
    card_fields: Optional[tuple[str, ...]]   # card fields experiments may change (None: the
                                             # card file's own columns other than id)
    card_ref_example: str             # an experiment card key, for error messages
    configure: Configure              # inputs -> a validated GameConfig (UserError if bad)
    # () -> the compiled entry points a run calls (numba dispatchers, imported when it is
    # called, never compiled by it): simulate warm asks numba's cache whether they are there
    kernels: Callable[[], tuple[Any, ...]] = no_kernels

    # -- strategies (CLI flags, experiments, matchups, reports)
    strategy_kind: StrategyKind       # "teams" (--team-a/--team-b) or "seats" (--seat/--strategy)
    default_strategy: str             # the strategy of a slot nobody chose
    strategy_package: Optional[str]   # strategies/<package>/ (None: no strategy files)
    strategy_slots: Callable[[int], tuple[str, ...]]  # players -> ("A", "B") or ("seat0", ...)
    strategy_key: StrategyKey         # a user's key -> its canonical slot
    pairing: Callable[[Mapping[str, Any]], str]   # manifest -> "greedy vs random" (reports)

    # -- outcomes and headline rates (defined once, in the game's package)
    outcome_column: str               # the per-game column holding the outcome code
    outcome_codes: Mapping[str, int]  # outcome name -> code in that column
    headline_columns: tuple[str, ...]  # the columns headline_counts reads
    # (games, players) -> numerators of the headline rates (denominator: every game), keyed
    # by a label such as "team A win rate"; --until-ci stops when all are narrow enough
    headline_counts: Callable[[pl.DataFrame, int], dict[str, int]]

    # -- studies
    ablation_fields: tuple[str, Optional[str]]   # card columns `simulate ablate` changes:
                                                 # (the value, the effect or None)
    # (games, players) -> (each game's headline code, {headline name: code}): what `simulate
    # ablate` counts game by game, read from the headline_columns (PLAI: the winning seat,
    # the maintainers, a stalemate); None: the outcome_column with its outcome_codes
    ablation_outcomes: Optional[Callable[[pl.DataFrame, int],
                                         tuple[Any, Mapping[str, int]]]] = None
    # config -> the card ids its games can deal (PLAI: the deck of the player count's
    # numerals, PLAI-C2); None: every card of the file. `simulate ablate` changes only these.
    cards_in_play: Optional[Callable[[GameConfig], frozenset]] = None
    # (a card file's row {column: text}, players) -> what the card is beyond its name, said
    # beside it wherever a card's change is reported (Peer-to-Peer: "in team A's starting
    # deck", which is why such a card moves one team's rate); None: nothing to say
    card_role: Optional[Callable[[Mapping[str, str], int], Optional[str]]] = None
    matchup_scheme: Optional[MatchupScheme] = None   # how matchups and the skill ladder
                                      # seat two strategies (sim.studies.matchups); None: none
    skill_budgets: tuple[str, ...] = ()   # `simulate skill`'s search rungs ("k=4,n=4", ...)
    # players -> the rule-override sets the balance report runs at that count
    balance_variants: Callable[[int], tuple[tuple[str, ...], ...]] = one_variant
    tune_arena: Optional[TuneArena] = None   # `simulate tune`'s arena class (sim.core.arena);
                                      # None: no parametric strategy to tune

    # -- reports
    sweep_metrics: tuple[SweepMetric, ...]   # the experiment sweep's metrics it supports
    # the player counts of an experiment -> its sweep's metrics when it names none
    default_sweep_metrics: Callable[[tuple[int, ...]], tuple[str, ...]]
    report_metrics: Optional[str] = None   # the package of its report metric modules
                                      # (sim/games/<g>/report_metrics/); None: no metrics
    compared_rules: tuple[str, ...] = ()   # rule options reports compare across runs on purpose
    # (players, rules) -> the reports' third group key (``variant``): the rule variant a
    # report compares (Peer-to-Peer: odd_team_compensation at 3 and 5 players), else "n/a"
    report_group: Callable[[int, Mapping[str, Any]], str] = no_variant
    why_lose: Optional[WhyLose] = None   # the report's "why everyone loses" causes
    card_fights: Optional[CardFightReplay] = None  # per-card fight counts for old runs
    # the game's pace: the per-round (or per-turn) sums its engine records in every chunk
    # (sim.core.curves); the report's curves section and the workbench draw them
    curves: Optional[Curves] = None

    # -- answers and their reasons (sim.core.attribution, reports/attribution.py)
    # the counterfactual replays that may explain an answer's edge (the report, the summary)
    swaps: tuple[Swap, ...] = ()
    # players -> the measures a balance answer picks from (the workbench shows the same)
    balance_measures: Callable[[int], list[Measure]] = no_measures
    # (players, a run's summary) -> the measure of the summary's balance line, which the
    # command line explains by replays (sim.runs.explain); None: nothing to explain
    balance_measure: Callable[[int, Mapping[str, Any]], Optional[Measure]] = no_measure
    # answer key (answers.json's question) -> f(answer, manifest, games) giving a
    # sim.core.examples.ExampleQuery: which of a run's games shows it (sim.studies.examples)
    answer_examples: Mapping[str, Callable[..., Any]] = field(default_factory=dict)

    # -- the game viewer (reports/viewer.py)
    # (config, seed, game index) -> a sim.core.story.Story: one game replayed, its rounds or
    # turns with the table at each start, what happened and every decision's options (the
    # text trace is its text); None: the game has no viewer
    story: Optional[Callable[[GameConfig, int, int], Story]] = None

    def __post_init__(self):
        object.__setattr__(self, "outcome_codes", dict(self.outcome_codes))
        object.__setattr__(self, "answer_examples", MappingProxyType(dict(self.answer_examples)))
        problems = check_description(self)
        if problems:
            raise TypeError(f"game '{self.name}': " + "; ".join(problems)
                            + " (see sim.core.game.Game)")


def check_description(game: Game) -> list[str]:
    """What is wrong with a description (empty when nothing): values out of range and
    fields that should be callable but are not."""
    problems = []
    for spec in fields(game):
        value = getattr(game, spec.name)
        kind = str(spec.type)
        if kind.startswith("Optional[Callable") and value is None:
            continue
        if kind.startswith(("Callable", "Optional[Callable")) or kind in ("Configure",
                                                                         "StrategyKey"):
            if not callable(value):
                problems.append(f"{spec.name} must be callable, got {value!r}")
        if kind.startswith("Mapping[str, Callable"):
            problems += [f"{spec.name}[{key!r}] must be callable, got {item!r}"
                         for key, item in value.items() if not callable(item)]
    if game.strategy_kind not in get_args(StrategyKind):
        problems.append(f"strategy_kind must be one of {get_args(StrategyKind)}")
    if game.matchup_scheme is not None and game.matchup_scheme not in get_args(MatchupScheme):
        problems.append(f"matchup_scheme must be one of {get_args(MatchupScheme)} or None")
    if game.default_players not in game.player_counts:
        problems.append(f"default_players {game.default_players} is not in player_counts")
    names = [m.name for m in game.sweep_metrics]
    if len(set(names)) != len(names):
        problems.append("two sweep metrics share a name")
    if len(set(game.outcome_codes.values())) != len(game.outcome_codes):
        problems.append("two outcomes share a code")
    return problems


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
    if not isinstance(game, Game):
        raise UserError(f"{module_name}.GAME is not a sim.core.game.Game description",
                        field="--game")
    return game


def player_count(game: Game, players: Any) -> int:
    """``--players`` for ``game``: its default when None, else one of its player counts."""
    if players is None:
        return int(game.default_players)
    count = parse_count(players, field="--players", maximum=1000)
    valid = game.player_counts
    if count not in valid:
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


def card_words(row: Mapping[str, Any]) -> str:
    """A card of an ablation table's row as reports print it: "Service 1 (SV1)", with its
    role when the game gives one (``Game.card_role``; a table written before roles has
    none): "Service 1 (SV1, in team A's starting deck)"."""
    role = row.get("card_role")
    return f"{row['card_name']} ({row['card_id']}{', ' + role if role else ''})"


def cards_words(path: str | os.PathLike, sha256: str, default_path: str | os.PathLike) -> str:
    """A card file in words for a summary or a trace header: the default file by name (a
    labelled reconstruction), any other by its path and the start of its SHA-256, so that
    a baseline's output and an edit's never look alike."""
    if Path(path).resolve() == Path(default_path).resolve():
        return f"the default card file ({Path(path).name}, a reconstruction)"
    return f"{os.fspath(path)} (sha256 {sha256[:12]}…)"


def inputs_line(request: Mapping[str, Any], sha256: str) -> str:
    """The card and rule inputs a ``game_request`` changed from the defaults, as one line
    ("cards: my.csv (sha256 …); rules: my-rules.yaml; --rule customer_patience=3"), or ""
    when it changed none."""
    parts = []
    if request.get("cards"):
        parts.append(f"cards: {request['cards']} (sha256 {sha256[:12]}…)")
    if request.get("rules_file"):
        parts.append(f"rules: {request['rules_file']}")
    parts += [f"--rule {rule}" for rule in request.get("rule_overrides") or ()]
    return "; ".join(parts)


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
