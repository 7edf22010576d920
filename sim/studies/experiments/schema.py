"""experiments.yaml: named experiments, read with their YAML line numbers.

Every problem in the file is one ``UserError`` naming the file, the line and the key
(``experiment.section.key``), found from the YAML node marks before any game runs.
See the README section "Experiments" for the schema.
"""
from __future__ import annotations

import itertools
import math
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sim.core.errors import UserError
from sim.core.game import DEFAULT_GAME, hook, resolve_game

DEFAULT_FILE = "experiments.yaml"
EXPERIMENT_KEYS = ("description", "game", "players", "games", "seed", "strategies", "cards",
                   "card_overrides", "rules", "sweep", "baseline", "metrics", "checks",
                   "autobalance", "chunk_size", "retune", "tune")
TUNE_KEYS = ("budget", "games_per_eval", "check_games", "base", "seed")
EXPERT = "expert"   # the shipped expert; with retune: true, tuned at each point (simulate tune)
CONDITION_KEYS = ("metric", "players", "where", "max", "min", "max_abs", "target", "tolerance",
                  "confidence", "name")
AUTOBALANCE_KEYS = ("vary", "targets", "games", "rounds", "confidence", "batches")
TEAMS = ("A", "B")


# ----------------------------------------------------------------------------- located YAML
@dataclass
class Y:
    """A YAML value with where it came from: ``v`` is a dict of str -> Y, a list of Y, or a
    plain scalar; ``line`` is 1-based; ``key`` is the dotted path used in error messages."""
    v: Any
    line: int
    key: str
    file: str

    def error(self, message: str, key: str | None = None) -> UserError:
        return UserError(message, file=self.file, line=self.line, field=key or self.key)

    def plain(self) -> Any:
        if isinstance(self.v, dict):
            return {k: item.plain() for k, item in self.v.items()}
        if isinstance(self.v, list):
            return [item.plain() for item in self.v]
        return self.v

    def mapping(self, what: str = "a mapping") -> dict[str, "Y"]:
        if not isinstance(self.v, dict):
            raise self.error(f"expected {what}, got {_kind(self.v)}")
        return self.v

    def items_list(self, what: str = "a list") -> list["Y"]:
        if not isinstance(self.v, list):
            raise self.error(f"expected {what}, got {_kind(self.v)}")
        return self.v

    def known(self, allowed: tuple[str, ...]) -> dict[str, "Y"]:
        entries = self.mapping()
        for name, item in entries.items():
            if name not in allowed:
                raise item.error(f"unknown key '{name}'; expected one of: {', '.join(allowed)}")
        return entries


def _kind(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    return f"'{value}'"


def _loader_class():
    from sim.core.options import StrictBoolLoader  # YAML where only true/false are booleans

    return StrictBoolLoader


def read_yaml(path: str | Path) -> Y:
    path = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError("experiments file not found (give one with --file)", file=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read the experiments file ({exc})", file=path) from None
    loader_cls = _loader_class()
    try:
        root = yaml.compose(text, Loader=loader_cls)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
        raise UserError(f"not valid YAML ({problem})", file=path,
                        line=mark.line + 1 if mark else None) from None
    if root is None:
        return Y({}, 1, "", path)
    constructor = loader_cls("")
    return _convert(root, "", path, constructor)


def _convert(node, key: str, path: str, constructor) -> Y:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        constructor.flatten_mapping(node)  # YAML merge keys (<<: *defaults)
        out: dict[str, Y] = {}
        seen: dict[str, int] = {}
        for key_node, value_node in node.value:
            key_line = key_node.start_mark.line + 1
            if not isinstance(key_node, yaml.ScalarNode):
                raise UserError("expected a plain key here", file=path, line=key_line, field=key)
            name = key_node.value
            child_key = f"{key}.{name}" if key else name
            if name in seen:
                raise UserError(f"key given twice (first on line {seen[name]})", file=path,
                                line=key_line, field=child_key)
            seen[name] = key_line
            child = _convert(value_node, child_key, path, constructor)
            child.line = key_line  # errors point at the key, where the designer looks
            out[name] = child
        return Y(out, line, key, path)
    if isinstance(node, yaml.SequenceNode):
        return Y([_convert(item, f"{key}[{i}]", path, constructor)
                  for i, item in enumerate(node.value)], line, key, path)
    return Y(constructor.construct_object(node, deep=True), line, key, path)


# ----------------------------------------------------------------------------- the model
@dataclass(frozen=True)
class CardChange:
    ref: str          # as written: TE12, Technology-12, 5, Daily Standups (cardfile.CardCsv.find_all)
    field: str        # one of the game's editable fields: value, effect, ... / strength, copies, ...
    value: Any
    loc: Y = field(compare=False, repr=False)


@dataclass(frozen=True)
class Axis:
    key: str                 # as written, e.g. rule.odd_team_compensation
    kind: str                # rule | card | strategy
    target: tuple            # rule: (option, count|None); card: (ref, field); strategy: (team, param|None)
    values: tuple
    loc: Y = field(compare=False, repr=False)

    @property
    def short(self) -> str:
        if self.kind == "rule":
            option, count = self.target
            return option + (f".{count}" if count is not None else "")
        if self.kind == "card":
            return f"{self.target[0]}.{self.target[1]}"
        team, param = self.target
        label = f"team_{team}" if team in TEAMS else team
        return f"{team}.{param}" if param else label


@dataclass(frozen=True)
class Condition:
    """A check (simulate check) or a target (simulate autobalance): the metric's interval
    at ``confidence`` must lie within [lo, hi] at every point it selects."""
    metric: str
    lo: float
    hi: float
    players: tuple[int, ...] | None
    where: tuple[tuple[str, Any], ...]
    confidence: float
    text: str
    loc: Y = field(compare=False, repr=False)

    def selects(self, point: "Point") -> bool:
        if self.players is not None and point.players not in self.players:
            return False
        return all(_same(point.values.get(key), value) for key, value in self.where)


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return str(a) == str(b)


@dataclass(frozen=True)
class Vary:
    ref: str
    field: str
    choices: tuple
    loc: Y = field(compare=False, repr=False)


@dataclass(frozen=True)
class AutobalanceSpec:
    vary: tuple[Vary, ...]
    targets: tuple[Condition, ...]
    games: int | None
    rounds: int
    batches: int
    confidence: float


@dataclass(frozen=True)
class Point:
    """One configuration of an experiment: a player count and one value of every axis."""
    name: str
    players: int
    values: dict           # axis key -> value
    rule_overrides: tuple[str, ...]
    strategies: dict       # team -> spec string
    card_changes: tuple[CardChange, ...]
    is_baseline: bool = False


@dataclass
class Experiment:
    name: str
    file: str
    loc: Y
    description: str = ""
    game: str = DEFAULT_GAME
    players: tuple[int, ...] = (4,)
    games: int = 10_000
    seed: int = 1
    chunk_size: int | None = None
    strategies: dict = field(default_factory=dict)   # team -> (name, {param: value})
    cards: str | None = None
    card_overrides: tuple[CardChange, ...] = ()
    rules: tuple[tuple[str, Y], ...] = ()             # (override text, where)
    axes: tuple[Axis, ...] = ()
    baseline: dict = field(default_factory=dict)
    metrics: tuple[str, ...] = ()
    checks: tuple[Condition, ...] = ()
    autobalance: AutobalanceSpec | None = None
    retune: bool = False                             # tune 'expert' at every point
    tune: dict = field(default_factory=dict)         # api.tune settings (TUNE_KEYS)

    # -- points
    def points(self) -> list[Point]:
        out = []
        grids = list(itertools.product(*[axis.values for axis in self.axes]))
        for players in self.players:
            for combo in grids:
                values = {axis.key: value for axis, value in zip(self.axes, combo)}
                out.append(self.point(players, values))
        return out

    def point(self, players: int, values: dict) -> Point:
        rules = [text for text, _ in self.rules]
        teams = {team: (name, dict(params)) for team, (name, params) in self.strategies.items()}
        cards = list(self.card_overrides)
        for axis in self.axes:
            value = values[axis.key]
            if axis.kind == "rule":
                option, count = axis.target
                rules.append(rule_override(option, count, value))
            elif axis.kind == "card":
                cards.append(CardChange(axis.target[0], axis.target[1], value, axis.loc))
            else:
                team, param = axis.target
                if param is None:
                    teams[team] = split_spec(str(value))
                else:
                    default = hook(resolve_game(self.game), "default_strategy")
                    name, params = teams.get(team, teams.get("all", (default, {})))
                    teams[team] = (name, {**params, param: float(value)})
        baseline = all(_same(values[a.key], self.baseline.get(a.key, a.values[0]))
                       for a in self.axes)
        name = f"{players}p" + "".join(f"-{_slug(a.short)}={_slug(values[a.key])}"
                                       for a in self.axes)
        return Point(name=name, players=players, values=values, rule_overrides=tuple(rules),
                     strategies={t: join_spec(n, p) for t, (n, p) in teams.items()},
                     card_changes=tuple(cards), is_baseline=baseline)

    def baseline_of(self, point: Point) -> Point:
        return self.point(point.players, {a.key: self.baseline.get(a.key, a.values[0])
                                          for a in self.axes})

    def base_cards_path(self) -> str:
        if self.cards is not None:
            return self.cards
        from sim.core.game import resolve_game

        return str(resolve_game(self.game).default_cards_path())


def _slug(value: Any) -> str:
    text = _fmt(value)
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", text).strip("_") or "empty"


def _fmt(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def rule_override(option: str, count: int | None, value: Any) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, width=10_000).strip()
    if text.endswith("\n...") or text.endswith("..."):
        text = text.rsplit("...", 1)[0].strip()
    return f"{option}{'.' + str(count) if count is not None else ''}={text}"


def split_spec(spec: str) -> tuple[str, dict[str, float]]:
    name, _, rest = spec.strip().partition(":")
    params = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, _, value = item.partition("=")
        try:
            params[key.strip()] = float(value)
        except ValueError:
            params[key.strip()] = value  # parse_spec reports it with a proper message
    return name.strip(), params


def join_spec(name: str, params: dict) -> str:
    if not params:
        return name
    return name + ":" + ",".join(f"{k}={_fmt(v)}" for k, v in params.items())


# ----------------------------------------------------------------------------- parsing
def load(path: str | Path = DEFAULT_FILE, *, validate: bool = True) -> dict[str, Experiment]:
    """Every experiment in the file, by name (keys starting with '_' or '.' are templates
    for YAML anchors and are skipped)."""
    root = read_yaml(path)
    entries = root.mapping("a mapping of experiment names to experiments")
    experiments = {}
    for name, node in entries.items():
        if name.startswith(("_", ".")):
            continue
        experiments[name] = _experiment(name, node, Path(path))
    if validate:
        for experiment in experiments.values():
            validate_experiment(experiment)
    return experiments


def get(name: str, path: str | Path = DEFAULT_FILE) -> Experiment:
    """One experiment by name (only that one is validated)."""
    experiments = load(path, validate=False)
    if name not in experiments:
        known = ", ".join(experiments) or "(none)"
        raise UserError(f"no experiment '{name}'; experiments in the file: {known}",
                        file=str(path), field="EXPERIMENT")
    experiment = experiments[name]
    validate_experiment(experiment)
    return experiment


def _int(node: Y, lo: int | None = None, hi: int | None = None) -> int:
    value = node.v
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value.strip()):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise node.error(f"expected a whole number, got {_kind(node.v)}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        bounds = f"at least {lo}" if hi is None else f"from {lo} to {hi}"
        raise node.error(f"expected a whole number {bounds}, got {value}")
    return value


def _number(node: Y) -> float:
    value = node.v
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise node.error(f"expected a number, got {_kind(value)}")
    if not math.isfinite(float(value)):
        raise node.error("expected a finite number")
    return float(value)


def _count(node: Y, field_name: str) -> int:
    from sim.core.inputs import parse_count

    try:
        return parse_count(node.v, field=node.key)
    except UserError as exc:
        raise node.error(exc.message) from None


def _experiment(name: str, node: Y, path: Path) -> Experiment:
    entries = node.known(EXPERIMENT_KEYS)
    exp = Experiment(name=name, file=str(path), loc=node)
    if "description" in entries:
        exp.description = str(entries["description"].v or "")
    if "game" in entries:
        from sim.core.game import game_modules

        game = entries["game"]
        if not isinstance(game.v, str) or game.v not in game_modules():
            raise game.error(f"unknown game '{game.v}'; choose one of: {', '.join(game_modules())}")
        exp.game = game.v
    if "players" in entries:
        p = entries["players"]
        items = p.v if isinstance(p.v, list) else [p]
        if not items:
            raise p.error("expected at least one player count")
        counts = [_int(item, 1, 1000) for item in items]
        if len(set(counts)) != len(counts):
            raise p.error("a player count is listed twice")
        exp.players = tuple(counts)
    if "games" in entries:
        exp.games = _count(entries["games"], "games")
    if "chunk_size" in entries:
        exp.chunk_size = _count(entries["chunk_size"], "chunk_size")
    if "seed" in entries:
        exp.seed = _int(entries["seed"], 0, 2**63 - 1)
    if "strategies" in entries:
        teams = {}
        for team, spec in entries["strategies"].mapping().items():
            teams[_strategy_key(team, exp.game, spec)] = _strategy(spec)
        exp.strategies = teams
    if "cards" in entries:
        cards = entries["cards"]
        if not isinstance(cards.v, str) or not cards.v.strip():
            raise cards.error("expected the path of a card file (CSV)")
        resolved = (path.parent / cards.v).resolve() if not Path(cards.v).is_absolute() else Path(cards.v)
        if not resolved.is_file():
            raise cards.error(f"card file not found: {resolved}")
        exp.cards = str(resolved)
    if "card_overrides" in entries:
        changes = []
        for key, value in entries["card_overrides"].mapping().items():
            ref, field_name = _card_key(key, value, exp.game)
            changes.append(CardChange(ref, field_name, value.v, value))
        exp.card_overrides = tuple(changes)
    if "rules" in entries:
        rules = []
        for key, value in entries["rules"].mapping().items():
            option, _, count = key.partition(".")
            count_value = None
            if count:
                if not count.isdigit():
                    raise value.error(f"expected OPTION or OPTION.N (a player count), got '{key}'")
                count_value = int(count)
            rules.append((rule_override(option, count_value, value.plain()), value))
        exp.rules = tuple(rules)
    if "sweep" in entries:
        exp.axes = tuple(_axis(key, value, exp.game)
                         for key, value in entries["sweep"].mapping().items())
    if "baseline" in entries:
        baseline = {}
        axes = {axis.key: axis for axis in exp.axes}
        for key, value in entries["baseline"].mapping().items():
            if key not in axes:
                raise value.error(f"'{key}' is not a sweep axis of this experiment; axes: "
                                  f"{', '.join(axes) or '(none)'}")
            if not any(_same(value.v, v) for v in axes[key].values):
                raise value.error(f"{value.v!r} is not one of the swept values "
                                  f"{list(axes[key].values)}")
            baseline[key] = value.v
        exp.baseline = baseline
    if "metrics" in entries:
        exp.metrics = tuple(_metric_name(item, exp.game) for item in entries["metrics"].items_list())
    if "checks" in entries:
        exp.checks = tuple(_condition(item, exp) for item in entries["checks"].items_list())
    if "autobalance" in entries:
        exp.autobalance = _autobalance(entries["autobalance"], exp)
    _retune(entries, exp)
    if not exp.metrics:
        from reports.sweep import default_metrics

        exp.metrics = default_metrics(exp.game, exp.players)
    return exp


def _retune(entries: dict, exp: Experiment) -> None:
    """``retune: true`` (and its ``tune:`` settings): every strategy named 'expert' is tuned
    for each point's configuration before the point plays (slow: one simulate tune each)."""
    if "retune" in entries:
        if not isinstance(entries["retune"].v, bool):
            raise entries["retune"].error("expected true or false")
        exp.retune = entries["retune"].v
    if "tune" in entries:
        settings = entries["tune"].known(TUNE_KEYS)
        for key, node in settings.items():
            if key == "base":
                if not isinstance(node.v, str) or not node.v.strip():
                    raise node.error("expected a strategy spec")
                exp.tune[key] = node.v.strip()
            elif key == "seed":
                exp.tune[key] = _int(node, 0, 2**63 - 1)
            else:
                exp.tune[key] = _count(node, key)
    named = [team for team, (name, _) in exp.strategies.items() if name == EXPERT]
    where = entries.get("retune") or entries.get("strategies") or exp.loc
    if exp.retune and not named:
        raise where.error("retune: true tunes the strategies named 'expert'; give one, e.g. "
                          "strategies: {A: expert, B: expert}")
    if named and not exp.retune and not _expert_is_shipped(exp.game):
        raise (entries.get("strategies") or exp.loc).error(
            f"{exp.game} has no shipped 'expert'; it is tuned at every point only with "
            "retune: true (slow); or give a strategy file, e.g. A: '@expert.yaml'")


def _expert_is_shipped(game: str) -> bool:
    """A game whose strategies/ registers 'expert' plays it without retune."""
    from sim.core.strategy import registry

    package = hook(resolve_game(game), "strategy_package")
    return package is not None and EXPERT in registry(package)


def _strategy_key(key: str, game: str, node: Y) -> str:
    """A strategies key in the game's canonical form (its ``strategy_key`` hook: team A or
    B; seatN, N or all)."""
    try:
        return hook(resolve_game(game), "strategy_key")(str(key))
    except ValueError as exc:
        raise node.error(str(exc)) from None


def _strategy(node: Y) -> tuple[str, dict]:
    if isinstance(node.v, str):
        if node.v.strip().startswith("@"):  # a strategy file, relative to this file
            import os

            given = node.v.strip()[1:]
            path = given if os.path.isabs(given) else os.path.relpath(
                os.path.join(os.path.dirname(os.path.abspath(node.file)), given))
            return "@" + path, {}
        return split_spec(node.v)
    entries = node.mapping("a strategy: 'name:param=value' or a mapping with 'name'")
    if "name" not in entries:
        raise node.error("a strategy mapping needs 'name' (its other keys are parameters)")
    params = {key: _number(value) for key, value in entries.items() if key != "name"}
    return str(entries["name"].v), params


def _card_key(key: str, node: Y, game: str = DEFAULT_GAME) -> tuple[str, str]:
    """REF.FIELD of a card change: the field is what follows the last dot (so a ref may be
    a name with spaces, or a numeric PLAI id: ``5.strength``), and must be one of the
    game's editable fields (sim.studies.experiments.cardfile)."""
    from sim.studies.experiments.cardfile import editable_fields

    ref, dot, field_name = str(key).rpartition(".")
    ref = ref.strip()
    if not dot or not ref:
        example = hook(resolve_game(game), "card_ref_example")
        raise node.error(f"expected CARD.FIELD (e.g. {example}), got '{key}'")
    fields = editable_fields(game)
    if fields is not None and field_name not in fields:
        raise node.error(f"unknown card field '{field_name}'; editable fields for {game}: "
                         f"{', '.join(fields)}")
    return ref, field_name


def _values(node: Y) -> tuple:
    """A list of values, or a range {from, to, step}."""
    if isinstance(node.v, dict):
        entries = node.known(("from", "to", "step"))
        for needed in ("from", "to"):
            if needed not in entries:
                raise node.error(f"a range needs '{needed}' (and optionally 'step')")
        start, stop = _number(entries["from"]), _number(entries["to"])
        step = _number(entries["step"]) if "step" in entries else 1.0
        if step <= 0:
            raise entries["step"].error("step must be positive")
        count = int(math.floor((stop - start) / step + 1e-9)) + 1
        if count < 1 or count > 10_000:
            raise node.error(f"the range gives {count} values; expected 1 to 10000")
        whole = all(float(x).is_integer() for x in (start, stop, step))
        values = [start + i * step for i in range(count)]
        return tuple(int(v) if whole else round(v, 10) for v in values)
    items = node.items_list("a list of values or a range {from, to, step}")
    if not items:
        raise node.error("expected at least one value")
    values = tuple(item.plain() for item in items)
    for i, value in enumerate(values):
        if value in values[:i]:
            raise items[i].error(f"value {value!r} is listed twice")
    return values


def _axis(key: str, node: Y, game: str = DEFAULT_GAME) -> Axis:
    values = _values(node)
    head, _, rest = key.partition(".")
    if head in ("rule", "rules") and rest:
        option, _, count = rest.partition(".")
        if count and not count.isdigit():
            raise node.error(f"expected rule.OPTION or rule.OPTION.N, got '{key}'")
        return Axis(key, "rule", (option, int(count) if count else None), values, node)
    if head in ("card", "cards") and rest:
        ref, field_name = _card_key(rest, node, game)
        return Axis(key, "card", (ref, field_name), values, node)
    if head in ("strategy", "strategies") and rest:
        team, _, param = rest.partition(".")
        game_obj = resolve_game(game)
        try:
            team = hook(game_obj, "strategy_key")(team)
        except ValueError:
            if hook(game_obj, "strategy_kind") == "seats":
                raise node.error(f"expected strategy.all, strategy.seatN or strategy.seatN.PARAM, "
                                 f"got '{key}'") from None
            slots = hook(game_obj, "strategy_slots")(max(game_obj.player_counts))
            raise node.error(f"expected {', '.join(f'strategy.{t}' for t in slots)} or "
                             f"strategy.{slots[0]}.PARAM, got '{key}'") from None
        if param:
            for i, value in enumerate(values):
                if isinstance(value, bool) or not isinstance(value, (int, float)):
                    raise node.v[i].error(f"a strategy parameter takes numbers, got {value!r}") \
                        if isinstance(node.v, list) else node.error("expected numbers")
        return Axis(key, "strategy", (team, param or None), values, node)
    raise node.error(f"unknown sweep axis '{key}'; expected rule.OPTION[.N], card.CARD.FIELD, "
                     "strategy.TEAM or strategy.TEAM.PARAM")


def _metric_name(node: Y, game: str = DEFAULT_GAME) -> str:
    from reports.sweep import METRICS, metrics_for

    valid = metrics_for(game)
    if node.v not in METRICS:
        raise node.error(f"unknown metric '{node.v}'; metrics: {', '.join(valid)}")
    if node.v not in valid:
        raise node.error(f"metric '{node.v}' does not apply to {game}; metrics: {', '.join(valid)}")
    return node.v


def _condition(node: Y, exp: Experiment, *, target: bool = False) -> Condition:
    entries = node.known(CONDITION_KEYS)
    if "metric" not in entries:
        raise node.error("needs 'metric'")
    metric = _metric_name(entries["metric"], exp.game)
    players = None
    if "players" in entries:
        p = entries["players"]
        items = p.v if isinstance(p.v, list) else [p]
        players = tuple(_int(item, 1, 1000) for item in items)
        for count, item in zip(players, items):
            if count not in exp.players:
                raise item.error(f"the experiment does not play {count} players "
                                 f"(players: {list(exp.players)})")
    where = []
    if "where" in entries:
        axes = {axis.key: axis for axis in exp.axes}
        for key, value in entries["where"].mapping().items():
            if key not in axes:
                raise value.error(f"'{key}' is not a sweep axis; axes: {', '.join(axes) or '(none)'}")
            where.append((key, value.v))
    bounds = [name for name in ("max", "min", "max_abs", "target") if name in entries]
    if not bounds:
        raise node.error("needs a bound: max, min, max_abs, or target with tolerance")
    lo, hi = -math.inf, math.inf
    words = []
    if "target" in entries:
        if len(bounds) > 1:
            raise entries["target"].error("use target (with tolerance) alone, not with max/min")
        centre = _number(entries["target"])
        if "tolerance" not in entries:
            raise entries["target"].error("target needs 'tolerance' (e.g. target: 50, tolerance: 1)")
        tol = _number(entries["tolerance"])
        if tol < 0:
            raise entries["tolerance"].error("tolerance must be >= 0")
        lo, hi = centre - tol, centre + tol
        words.append(f"{_fmt(centre)} ± {_fmt(tol)}")
    else:
        if "tolerance" in entries:
            raise entries["tolerance"].error("tolerance goes with target")
        if "max_abs" in entries:
            a = _number(entries["max_abs"])
            if a < 0:
                raise entries["max_abs"].error("max_abs must be >= 0")
            lo, hi = -a, a
            words.append(f"|x| ≤ {_fmt(a)}")
        if "min" in entries:
            lo = max(lo, _number(entries["min"]))
            words.append(f"≥ {_fmt(entries['min'].v)}")
        if "max" in entries:
            hi = min(hi, _number(entries["max"]))
            words.append(f"≤ {_fmt(entries['max'].v)}")
        if lo > hi:
            raise node.error("the bounds leave no allowed value (min above max)")
    confidence = 0.95
    if "confidence" in entries:
        confidence = _number(entries["confidence"])
        if not 0.5 <= confidence < 1:
            raise entries["confidence"].error("expected a confidence from 0.5 to below 1 (e.g. 0.95)")
    scope = f" at {'/'.join(map(str, players))}p" if players else ""
    scope += "".join(f", {k}={_fmt(v)}" for k, v in where)
    label = str(entries["name"].v) if "name" in entries else f"{metric}{scope} {' and '.join(words)}"
    return Condition(metric, lo, hi, players, tuple(where), confidence, label, node)


def _autobalance(node: Y, exp: Experiment) -> AutobalanceSpec:
    entries = node.known(AUTOBALANCE_KEYS)
    if "vary" not in entries or "targets" not in entries:
        raise node.error("autobalance needs 'vary' (the card changes allowed) and 'targets'")
    vary = []
    for key, value in entries["vary"].mapping().items():
        ref, field_name = _card_key(key, value, exp.game)
        if isinstance(value.v, dict):
            bounds = value.known(("min", "max", "step"))
            if "min" not in bounds or "max" not in bounds:
                raise value.error("a range needs min and max, e.g. {min: 9, max: 13}")
            lo, hi = _int(bounds["min"]), _int(bounds["max"])
            step = _int(bounds["step"], 1) if "step" in bounds else 1
            if lo > hi:
                raise value.error("min is above max")
            choices = tuple(range(lo, hi + 1, step))
        else:
            choices = _values(value)
        vary.append(Vary(ref, field_name, choices, value))
    targets = tuple(_condition(item, exp) for item in entries["targets"].items_list())
    if not targets:
        raise entries["targets"].error("expected at least one target")
    games = _count(entries["games"], "games") if "games" in entries else None
    rounds = _int(entries["rounds"], 1, 1000) if "rounds" in entries else 10
    batches = _int(entries["batches"], 1, 100) if "batches" in entries else 4
    confidence = 0.95
    if "confidence" in entries:
        confidence = _number(entries["confidence"])
        if not 0.5 <= confidence < 1:
            raise entries["confidence"].error("expected a confidence from 0.5 to below 1")
    return AutobalanceSpec(tuple(vary), targets, games, rounds, batches, confidence)


# ----------------------------------------------------------------------------- validation
def _relocate(exc: UserError, node: Y, renamed: dict | None = None) -> UserError:
    """``exc`` (from configuring a point) at ``node``'s line of the YAML file, with where
    the game's loader found it; a changed card file written for the check is named as
    the card file it was made from (its lines are the same)."""
    file = exc.file
    changed = ""
    if renamed and file in renamed:
        file, changed = renamed[file], " after the change"
    where = ""
    if file and file != node.file:
        where = f" (in {file}" + (f":{exc.line}" if exc.line else "") + (
            f", field '{exc.field}'" if exc.field and changed else "") + changed + ")"
    return node.error(exc.message + where)


def apply_card_changes(base_path: str, changes, *, game: str | None = DEFAULT_GAME,
                       strict: bool = True):
    """The base card file with ``changes`` applied, as a CardCsv; bad refs raise UserError
    at the change's YAML line. A ref that names several rows (a PLAI card printed under
    several numerals) changes every one of them (sim.studies.experiments.cardfile)."""
    from sim.studies.experiments.cardfile import CardCsv

    table = CardCsv(base_path, game)
    for change in changes:
        try:
            table.set_all(table.find_all(change.ref), change.field, change.value)
        except KeyError as exc:
            raise change.loc.error(str(exc.args[0])) from None
    return table


def validate_experiment(exp: Experiment) -> None:
    """Configure every point once (no games): a bad rule value, strategy, card reference
    or card value is reported at its line in the YAML file."""
    from sim.core.game import configure

    base = exp.base_cards_path()
    renamed: dict[str, str] = {}   # written card file -> the file it was made from
    with tempfile.TemporaryDirectory(prefix="cardsim-exp-") as tmp:
        def cards_for(changes) -> str | None:
            if not changes:
                return exp.cards
            table = apply_card_changes(base, changes, game=exp.game)
            path = str(table.write(Path(tmp) / f"cards-{abs(hash(tuple((c.ref, c.field, str(c.value)) for c in changes)))}.csv"))
            renamed[path] = base
            return path

        def attempt(node: Y, **kwargs) -> None:
            if exp.retune and kwargs.get("strategies"):   # 'expert' does not exist yet
                base = exp.tune.get("base", "weighted")
                kwargs["strategies"] = {team: base if spec == EXPERT else spec
                                        for team, spec in kwargs["strategies"].items()}
            try:
                configure(game=exp.game, players=kwargs.pop("players", exp.players[0]),
                          cards=kwargs.pop("cards", exp.cards), **kwargs)
            except UserError as exc:
                raise _relocate(exc, node, renamed) from None

        for count in exp.players:
            attempt(exp.loc, players=count)
        for text, node in exp.rules:
            attempt(node, rule_overrides=(text,))
        for team, (name, params) in exp.strategies.items():
            attempt(exp.loc.v["strategies"].v.get(team) or exp.loc.v["strategies"].v.get(team.lower())
                    or exp.loc, strategies={team: join_spec(name, params)})
        for change in exp.card_overrides:
            attempt(change.loc, cards=cards_for([change]))
        for axis in exp.axes:
            for value in axis.values:
                point = exp.point(exp.players[0], {a.key: (value if a is axis else a.values[0])
                                                  for a in exp.axes})
                changes = [c for c in point.card_changes if c.loc is axis.loc]
                attempt(axis.loc, rule_overrides=point.rule_overrides,
                        strategies=point.strategies, cards=cards_for(changes) if changes else exp.cards)
        for point in exp.points():
            attempt(exp.loc, players=point.players, rule_overrides=point.rule_overrides,
                    strategies=point.strategies, cards=cards_for(point.card_changes))
        if exp.autobalance is not None:
            for vary in exp.autobalance.vary:
                for value in vary.choices:
                    change = CardChange(vary.ref, vary.field, value, vary.loc)
                    attempt(vary.loc, cards=cards_for(list(exp.card_overrides) + [change]))
