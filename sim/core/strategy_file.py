"""Strategy files: a strategy given as ``@path.yaml`` instead of a registered name.

A strategy file is what ``simulate tune`` writes (and what a designer may write by hand):

    cardsim_strategy: 1
    game: peer-to-peer
    name: expert                 # optional; shown nowhere, the spec '@FILE' is the name
    players: [4]                 # player counts it was tuned for (informational)
    base: weighted               # the strategy the search started from (informational)
    weights:                     # required: weight name -> number
      early.commit.value: 1.3
      switch: 8
    by_players:                  # optional: weights for one player count, over `weights`
      2: {early.commit.value: 0.9}
    tuned_on: {...}              # command, seed, card file sha256, rule options (free form)
    score: {...}                 # measured score against each baseline (free form)

Weights not named keep the game's default weights, so a hand-written file may set a few.
A game at a player count listed under ``by_players`` plays ``weights`` with that count's
entries on top (what the search exploits differs between a duel and a six-player table;
``simulate distill --per-count`` writes such a file).
Weight names are checked when the game builds its weight vector (it alone knows them), at
the line of the name, so every problem is one UserError naming the file, line and field.
The strategy's name, in summaries and manifests, is the spec as given: ``@expert.yaml``.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import yaml

from sim.core.errors import UserError
from sim.core.yaml_lines import compose, excerpt

FORMAT_KEY = "cardsim_strategy"
FORMAT_VERSION = 1
TOP_KEYS = (FORMAT_KEY, "game", "name", "summary", "players", "base", "weights", "by_players",
            "tuned_on", "score")
PREFIX = "@"


def is_file_spec(spec: str) -> bool:
    return spec.strip().startswith(PREFIX)


@dataclass(frozen=True)
class FileStrategy:
    """A strategy read from a file; used where a registered ``Strategy`` is (name,
    summary, params, vector)."""

    name: str                                  # '@' + the path as given
    path: str
    game: str
    sha256: str
    weight_values: Mapping[str, float]
    weight_lines: Mapping[str, int]
    summary: str = ""
    players: tuple[int, ...] = ()
    base: str | None = None
    document: Mapping[str, Any] = field(default_factory=dict, repr=False)
    params: Mapping[str, float] = field(default_factory=dict)   # a file takes no parameters
    text_params: Mapping[str, str] = field(default_factory=dict)
    search: bool = False   # a file holds weights; a search player is asked for by its spec
    # Player count -> weights played at that count over ``weight_values`` (and their lines).
    count_values: Mapping[int, Mapping[str, float]] = field(default_factory=dict)
    count_lines: Mapping[int, Mapping[str, int]] = field(default_factory=dict)

    def weights(self, params: Mapping[str, float] | None = None) -> dict[str, float]:
        return dict(self.weight_values)

    def count_weights(self, params: Mapping[str, float] | None, players: int | None
                      ) -> dict[str, float]:
        return dict(self.count_values.get(players, {})) if players is not None else {}

    def vector(self, feature_names: tuple[str, ...], defaults: np.ndarray,
               params: Mapping[str, float] | None = None,
               expand: Callable[[str], tuple[str, ...]] | None = None,
               players: int | None = None) -> np.ndarray:
        """The game's defaults with the file's weights applied (and, at a player count it
        lists under ``by_players``, that count's on top); an unknown weight name is a
        UserError at its line."""
        out = np.array(defaults, dtype=np.float64).copy()
        index = {n: i for i, n in enumerate(feature_names)}
        layers = [("weights", self.weight_values, self.weight_lines, True)]
        layers += [(f"by_players.{p}", values, self.count_lines.get(p, {}), p == players)
                   for p, values in self.count_values.items()]
        for where, values, lines, played in layers:   # every count's names are checked
            for key, value in values.items():
                names = expand(key) if expand else (key,)
                unknown = [n for n in names if n not in index]
                if unknown:
                    raise UserError(f"unknown weight {excerpt(key, 40)} for {self.game}; valid "
                                    f"names are the game's feature weights, e.g. "
                                    f"{', '.join(feature_names[:3])}, ...", file=self.path,
                                    line=lines.get(key),
                                    field=f"{where}.{excerpt(key, 40, quote=False)}")
                if played:
                    for n in names:
                        out[index[n]] = float(value)
        return out


def _loader():
    return yaml.SafeLoader


def _number(node: Any, path: str, key: str, where: str = "weights") -> float:
    line = node.start_mark.line + 1
    value = None
    if isinstance(node, yaml.ScalarNode):
        if node.tag in ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"):
            value = float(_loader()("").construct_object(node))
        elif node.tag == "tag:yaml.org,2002:str" and node.style is None:
            try:   # YAML 1.1 reads 1e3 (no dot) as text; a designer means the number
                value = float(node.value.replace("_", ""))
            except ValueError:
                value = None
    if value is None:
        shown = node.value if isinstance(node, yaml.ScalarNode) else "a " + type(node).__name__[:-4].lower()
        raise UserError(f"a weight must be a number, got {excerpt(shown)}", file=path,
                        line=line, field=f"{where}.{excerpt(key, 40, quote=False)}")
    if not math.isfinite(value):
        raise UserError(f"a weight must be a finite number, got {excerpt(node.value)}",
                        file=path, line=line, field=f"{where}.{excerpt(key, 40, quote=False)}")
    return value


def read(path: str, game: str | None = None, field_name: str = "strategy") -> FileStrategy:
    """Read and check a strategy file; ``game`` (e.g. 'peer-to-peer' or 'peer_to_peer')
    must match its ``game``. The name is '@' + ``path`` as given."""
    try:
        with open(path, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        raise UserError("strategy file not found", file=path, field=field_name) from None
    except IsADirectoryError:
        raise UserError("is a directory, not a strategy file", file=path, field=field_name) from None
    except OSError as exc:
        raise UserError(f"cannot read the strategy file ({exc.strerror or exc})", file=path,
                        field=field_name) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UserError("strategy file is not UTF-8 text", file=path, field=field_name) from None
    root = compose(text, path, loader=_loader())
    if not isinstance(root, yaml.MappingNode):
        raise UserError("expected a strategy file: a mapping with 'game' and 'weights'",
                        file=path, line=root.start_mark.line + 1 if root is not None else None)
    nodes: dict[str, tuple[Any, int]] = {}
    for key_node, value_node in root.value:
        line = key_node.start_mark.line + 1
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else None
        if key not in TOP_KEYS:
            raise UserError(f"unknown key {excerpt(str(key), 40)}; expected one of: "
                            f"{', '.join(TOP_KEYS)}", file=path, line=line,
                            field=excerpt(str(key), 40, quote=False))
        if key in nodes:
            raise UserError(f"key given twice (first on line {nodes[key][1]})", file=path,
                            line=line, field=key)
        nodes[key] = (value_node, line)
    for required in ("game", "weights"):
        if required not in nodes:
            raise UserError(f"a strategy file needs '{required}'", file=path,
                            line=root.start_mark.line + 1, field=required)
    construct = _loader()("").construct_document
    version_node = nodes.get(FORMAT_KEY)
    if version_node is not None and construct(version_node[0]) != FORMAT_VERSION:
        raise UserError(f"this simulator reads strategy files of format {FORMAT_VERSION}, got "
                        f"{excerpt(getattr(version_node[0], 'value', ''))}", file=path,
                        line=version_node[1], field=FORMAT_KEY)
    game_node, game_line = nodes["game"]
    file_game = construct(game_node)
    if not isinstance(file_game, str):
        raise UserError("expected the game's name, e.g. peer-to-peer or plai", file=path,
                        line=game_line, field="game")
    if game is not None and file_game.replace("_", "-") != game.replace("_", "-"):
        raise UserError(f"this strategy is for {file_game}, not {game.replace('_', '-')}",
                        file=path, line=game_line, field="game")
    values, lines = _weights(nodes["weights"], path, "weights")
    count_values: dict[int, dict[str, float]] = {}
    count_lines: dict[int, dict[str, int]] = {}
    first_line: dict[int, int] = {}
    if "by_players" in nodes:
        counts_node, counts_line = nodes["by_players"]
        if not isinstance(counts_node, yaml.MappingNode):
            raise UserError("expected a mapping of player count -> weights", file=path,
                            line=counts_line, field="by_players")
        for key_node, value_node in counts_node.value:
            line = key_node.start_mark.line + 1
            count = (int(key_node.value) if isinstance(key_node, yaml.ScalarNode)
                     and key_node.value.isdigit() else None)
            if count is None or count < 1:
                raise UserError(f"expected a player count, got {excerpt(str(key_node.value))}",
                                file=path, line=line, field="by_players")
            counts = _player_counts(file_game)
            if counts and count not in counts:   # weights no game would ever play
                raise UserError(f"{file_game} has no {count}-player game (player counts: "
                                f"{', '.join(map(str, counts))})", file=path, line=line,
                                field=f"by_players.{count}")
            if count in count_values:
                raise UserError(f"player count given twice (first on line "
                                f"{first_line[count]})", file=path, line=line,
                                field=f"by_players.{count}")
            count_values[count], count_lines[count] = _weights((value_node, line), path,
                                                               f"by_players.{count}")
            first_line[count] = line
    document = construct(root)
    players = document.get("players") or ()
    players = tuple(players) if isinstance(players, (list, tuple)) else (players,)
    return FileStrategy(name=PREFIX + path, path=path, game=file_game,
                        sha256=hashlib.sha256(raw).hexdigest(), weight_values=values,
                        weight_lines=lines, summary=str(document.get("summary") or ""),
                        players=tuple(p for p in players if isinstance(p, int)),
                        base=document.get("base"), document=document,
                        count_values=count_values, count_lines=count_lines)


def _player_counts(game: str) -> tuple[int, ...]:
    """The player counts of a registered game; () for a game this simulator lacks (its
    strategy file is refused elsewhere, naming the game)."""
    from sim.core.game import resolve_game   # here: sim.core.game reads strategies through this module

    try:
        return tuple(resolve_game(game.replace("_", "-")).player_counts)
    except UserError:
        return ()


def _weights(located: tuple[Any, int], path: str, where: str
             ) -> tuple[dict[str, float], dict[str, int]]:
    """A mapping of weight name -> number (``weights`` or one count's under ``by_players``),
    with each name's line."""
    node, node_line = located
    if not isinstance(node, yaml.MappingNode):
        raise UserError("expected a mapping of weight name -> number", file=path,
                        line=node_line, field=where)
    values: dict[str, float] = {}
    lines: dict[str, int] = {}
    for key_node, value_node in node.value:
        line = key_node.start_mark.line + 1
        if not isinstance(key_node, yaml.ScalarNode) or not key_node.value:
            raise UserError("expected a weight name here", file=path, line=line, field=where)
        key = str(key_node.value)
        if key in values:
            raise UserError(f"weight given twice (first on line {lines[key]})", file=path,
                            line=line, field=f"{where}.{excerpt(key, 40, quote=False)}")
        values[key] = _number(value_node, path, key, where)
        lines[key] = line
    return values, lines


def from_spec(spec: str, game: str, field_name: str = "strategy") -> FileStrategy:
    """``@path`` (parameters are not taken: a file holds every weight it sets)."""
    path = spec.strip()[len(PREFIX):]
    if not path:
        raise UserError("expected @FILE, the path of a strategy file (simulate tune writes one)",
                        field=field_name)
    return read(path, game, field_name)


def dump(document: Mapping[str, Any]) -> str:
    """YAML text of a strategy file (keys in the order given; floats written exactly)."""
    return yaml.safe_dump(dict(document), sort_keys=False, default_flow_style=False,
                          allow_unicode=True, width=100)
