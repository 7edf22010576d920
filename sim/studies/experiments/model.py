"""The experiments file's data model: an ``Experiment`` (its axes, checks, autobalance
section) and the ``Point``s it expands to, with the small spelling helpers points need
(rule overrides, strategy specs, point names). Every part keeps the ``Located`` YAML node
it came from, so later errors can name its line. Parsing is ``parse.py``, checking
``validate.py``."""
from __future__ import annotations

import itertools
import os
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from sim.core.game import DEFAULT_GAME, resolve_game
from sim.core.yaml_lines import Located

TEAMS = ("A", "B")
EXPERT = "expert"   # the shipped expert; with retune: true, tuned at each point (simulate tune)

@dataclass(frozen=True)
class CardChange:
    ref: str          # as written: TE12, Technology-12, 5, Daily Standups (cardfile.CardCsv.find_all)
    field: str        # one of the game's editable fields: value, effect, ... / strength, copies, ...
    value: Any
    loc: Located = field(compare=False, repr=False)


@dataclass(frozen=True)
class Axis:
    key: str                 # as written, e.g. rule.odd_team_compensation
    kind: str                # rule | card | strategy
    target: tuple            # rule: (option, count|None); card: (ref, field); strategy: (team, param|None)
    values: tuple
    loc: Located = field(compare=False, repr=False)

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
    loc: Located = field(compare=False, repr=False)

    def selects(self, point: "Point") -> bool:
        if self.players is not None and point.players not in self.players:
            return False
        return all(same_value(point.values.get(key), value) for key, value in self.where)


def same_value(a: Any, b: Any) -> bool:
    """Two YAML values name the same sweep value (1 and 1.0 do)."""
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return str(a) == str(b)


@dataclass(frozen=True)
class Vary:
    ref: str
    field: str
    choices: tuple
    loc: Located = field(compare=False, repr=False)


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
    loc: Located
    description: str = ""
    game: str = DEFAULT_GAME
    players: tuple[int, ...] = (4,)
    games: int = 10_000
    seed: int = 1
    chunk_size: int | None = None
    strategies: dict = field(default_factory=dict)   # team -> (name, {param: value})
    cards: str | None = None
    card_overrides: tuple[CardChange, ...] = ()
    rules: tuple[tuple[str, Located], ...] = ()           # (override text, where)
    axes: tuple[Axis, ...] = ()
    baseline: dict = field(default_factory=dict)
    metrics: tuple[str, ...] = ()
    checks: tuple[Condition, ...] = ()
    autobalance: AutobalanceSpec | None = None
    retune: bool = False                             # tune 'expert' at every point
    tune: dict = field(default_factory=dict)         # api.tune settings (TUNE_KEYS)
    tune_lines: dict = field(default_factory=dict, compare=False, repr=False)  # key -> Located

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
                if param is None:   # a file in it is next to the experiments file
                    teams[team] = split_spec(spec_files_next_to(str(value), axis.loc.file))
                else:
                    default = resolve_game(self.game).default_strategy
                    name, params = teams.get(team, teams.get("all", (default, {})))
                    teams[team] = (name, {**params, param: float(value)})
        baseline = all(same_value(values[a.key], self.baseline.get(a.key, a.values[0]))
                       for a in self.axes)
        name = f"{players}p" + "".join(f"-{slug(a.short)}={slug(values[a.key])}"
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
        return str(resolve_game(self.game).default_cards_path())


def slug(value: Any) -> str:
    """A value as a piece of a point's directory name."""
    text = fmt_value(value)
    return re.sub(r"[^A-Za-z0-9_.+-]+", "_", text).strip("_") or "empty"


def fmt_value(value: Any) -> str:
    """A value as written in names and labels (5.0 as 5)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def rule_override(option: str, count: int | None, value: Any) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, width=10_000).strip()
    if text.endswith("\n...") or text.endswith("..."):
        text = text.rsplit("...", 1)[0].strip()
    return f"{option}{'.' + str(count) if count is not None else ''}={text}"


def _file_next_to(given: str, experiments_file: str) -> str:
    """A strategy file path as written in the experiments file: a relative one is relative
    to that file's folder (absolute paths stay)."""
    given = given.strip()
    if os.path.isabs(given):
        return given
    return os.path.relpath(os.path.join(os.path.dirname(os.path.abspath(experiments_file)),
                                        given))


def with_spec_files(spec: str, place) -> str:
    """``spec`` with every strategy file in it ('@path', also as a parameter such as
    'search:base=@policy.yaml') replaced by ``place(path)``."""
    text = spec.strip()
    if text.startswith("@"):
        return "@" + place(text[1:])
    name, colon, rest = text.partition(":")
    if not colon:
        return spec
    items = []
    for item in rest.split(","):
        key, eq, value = item.partition("=")
        if eq and value.strip().startswith("@"):
            item = f"{key}=@{place(value.strip()[1:])}"
        items.append(item)
    return f"{name}:{','.join(items)}"


def spec_files_next_to(spec: str, experiments_file: str) -> str:
    """A strategy spec with every strategy file in it found relative to the experiments
    file."""
    return with_spec_files(spec, lambda path: _file_next_to(path, experiments_file))


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
    return name + ":" + ",".join(f"{k}={fmt_value(v)}" for k, v in params.items())
