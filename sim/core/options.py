"""Rule options: readings of a rules text that a designer may change.

A game declares its options once (an ``OptionSet``). Values come from the defaults,
then a rules YAML file (``option: value``), then ``--rule key=value`` overrides, in that
order. Every value is validated, and every error names the file and line (for the YAML
file) or the override, the option, and what was expected.

Per-player options hold one value per player count. They can be given as one value
(all counts), as a mapping ``{1: 4, 2-4: 3}`` (only the counts named change), or one
count at a time with ``key.N=value``.
"""
from __future__ import annotations

import copy
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import yaml

from sim.core.csvfile import read_text
from sim.core.errors import UserError
from sim.core.yaml_lines import (StrictBoolLoader, compose, excerpt, load_value,  # noqa: F401
                                 yaml_problem)  # (public here too)

KINDS = ("int", "bool", "choice", "list")
_BOOL_WORDS = {"yes": True, "on": True, "y": True, "no": False, "off": False, "n": False}


@dataclass(frozen=True)
class Option:
    key: str
    default: Any
    kind: str            # one of KINDS
    doc: str
    rule_id: str
    choices: tuple = ()  # choice: the allowed values; list: the allowed items
    lo: int | None = None
    hi: int | None = None
    per_players: bool = False   # default is {player_count: value}
    players: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
    permutation: bool = False   # list: must hold every choice exactly once


class _BadValue(Exception):
    """A value failed validation; the caller adds where it came from."""


class OptionSet:
    def __init__(self, options: Sequence[Option]):
        self.options: dict[str, Option] = {}
        for option in options:
            if option.kind not in KINDS:
                raise ValueError(f"option {option.key}: kind must be one of {KINDS}")
            if option.key in self.options:
                raise ValueError(f"option {option.key} declared twice")
            self.options[option.key] = option
        self._defaults = {}
        for option in options:  # a bad default is a programming error, not a user error
            try:
                self._defaults[option.key] = _check_full(option, option.default)
            except _BadValue as exc:
                raise ValueError(f"option {option.key}: bad default: {exc}") from None

    def defaults(self) -> dict[str, Any]:
        return copy.deepcopy(self._defaults)

    # -- resolving -------------------------------------------------------------------

    def resolve(self, rules_file: str | None, overrides: Sequence[str] = ()) -> dict[str, Any]:
        """Defaults, then the rules file, then ``key=value`` / ``key.N=value`` overrides."""
        resolved = self.defaults()
        if rules_file is not None:
            for key, value, line in _read_rules_yaml(str(rules_file)):
                where = {"file": str(rules_file), "line": line,
                         "field": excerpt(key, 40, quote=False)}
                option = self._lookup(key, where)
                resolved[key] = self._apply(option, resolved[key], value, where)
        for text in overrides:
            self._apply_override(resolved, text)
        return resolved

    def _apply_override(self, resolved: dict[str, Any], text: str) -> None:
        name, eq, raw = text.partition("=")
        name = name.strip()
        if not eq or not name:
            raise UserError(f"expected key=value or key.N=value, got '{text}'", field="--rule")
        key, dot, count = name.partition(".")
        where = {"field": name}
        option = self._lookup(key, where)
        try:
            value = load_value(raw, "--rule") if raw.strip() else None
        except UserError as exc:
            raise UserError(f"--rule {excerpt(text, 60, quote=False)}: cannot parse the value "
                            f"({exc.message})", **where) from None
        if dot:
            if not option.per_players:
                raise UserError(f"--rule {text}: '{key}' is the same for every player count; "
                                f"set it with {key}=VALUE", **where)
            if not re.fullmatch(r"\d+", count) or int(count) not in option.players:
                raise UserError(f"--rule {text}: expected a player count "
                                f"({_join(option.players)}) after '{key}.'", **where)
            value = {int(count): value}
        resolved[key] = self._apply(option, resolved[key], value, where, prefix=f"--rule {text}: ")

    def _lookup(self, key: str, where: dict) -> Option:
        if key not in self.options:
            raise UserError(f"unknown rule option {excerpt(key, 40)}; valid options: "
                            f"{', '.join(self.options)}", **where)
        return self.options[key]

    @staticmethod
    def _apply(option: Option, current: Any, value: Any, where: dict, prefix: str = "") -> Any:
        try:
            if option.per_players:
                return _merge_per_players(option, current, value)
            return _check_scalar(option, value)
        except _BadValue as exc:
            raise UserError(f"{prefix}{exc}", **where) from None

    # -- reading ---------------------------------------------------------------------

    def value_for(self, resolved: Mapping[str, Any], key: str, players: int) -> Any:
        """The value of ``key`` for a game with ``players`` players."""
        option = self.options[key]
        if not option.per_players:
            return resolved[key]
        if players not in resolved[key]:
            raise UserError(f"no value for {players} players; player counts: "
                            f"{_join(option.players)}", field=key)
        return resolved[key][players]

    def describe_markdown(self) -> str:
        lines = ["| option | default | rule | meaning |", "|---|---|---|---|"]
        for option in self.options.values():
            shown = _format_value(option, self._defaults[option.key])
            lines.append(f"| `{option.key}` | {shown} | {option.rule_id} | "
                         f"{option.doc}{_format_allowed(option)} |")
        return "\n".join(lines) + "\n"


# -- the rules YAML file -----------------------------------------------------------------

def _read_rules_yaml(path: str) -> list[tuple[str, Any, int]]:
    """(key, value, line of the key) for each top-level entry. Composing (not just
    loading) keeps the node marks, so every error can name its line."""
    root = compose(read_text(path, what="rules file", kind="YAML"), path)
    if root is None:
        return []  # an empty file changes nothing
    if not isinstance(root, yaml.MappingNode):
        raise UserError("expected a mapping of 'option: value' lines", file=path,
                        line=root.start_mark.line + 1)
    entries, seen = [], {}
    for key_node, value_node in root.value:
        line = key_node.start_mark.line + 1
        if not isinstance(key_node, yaml.ScalarNode):
            raise UserError("expected an option name here", file=path, line=line)
        key = key_node.value
        if key in seen:
            raise UserError(f"option given twice (first on line {seen[key]})", file=path,
                            line=line, field=key)
        seen[key] = line
        value = StrictBoolLoader("").construct_document(value_node)
        entries.append((key, value, line))
    return entries


# -- validation --------------------------------------------------------------------------

def _check_full(option: Option, value: Any) -> Any:
    """A complete value (a default): per-player options need every player count."""
    if not option.per_players:
        return _check_scalar(option, value)
    if not isinstance(value, Mapping) or set(value) != set(option.players):
        raise _BadValue(f"expected a value for each player count {_join(option.players)}")
    return {count: _check_scalar(option, value[count]) for count in option.players}


def _merge_per_players(option: Option, current: Mapping[int, Any], value: Any) -> dict[int, Any]:
    """One value for every count, or a mapping of counts (``5`` or ``2-4``) to values."""
    merged = dict(current)
    if not isinstance(value, Mapping):
        checked = _check_scalar(option, value)
        return {count: checked for count in option.players}
    for count_key, count_value in value.items():
        counts = _player_counts(option, count_key)
        checked = _check_scalar(option, count_value)
        for count in counts:
            merged[count] = checked
    return merged


def _player_counts(option: Option, key: Any) -> list[int]:
    text = str(key).strip()
    match = re.fullmatch(r"(\d+)(?:\s*-\s*(\d+))?", text)
    counts = []
    if match:
        first = int(match.group(1))
        last = int(match.group(2) or first)
        counts = list(range(first, last + 1))
    if not counts or any(count not in option.players for count in counts):
        raise _BadValue(f"'{text}' is not a player count; expected one of "
                        f"{_join(option.players)} or a range like 2-4")
    return counts


def _check_scalar(option: Option, value: Any) -> Any:
    if option.kind == "int":
        return _to_int(option, value)
    if option.kind == "bool":
        return _to_bool(option, value)
    if option.kind == "choice":
        return _to_choice(option.choices, value, f"'{option.key}'")
    return _to_list(option, value)


def _to_int(option: Option, value: Any) -> int:
    ok = isinstance(value, int) and not isinstance(value, bool)
    if ok and (option.lo is None or value >= option.lo) and (option.hi is None or value <= option.hi):
        return value
    if option.lo is not None and option.hi is not None:
        wanted = f"an integer from {option.lo} to {option.hi}"
    elif option.lo is not None:
        wanted = f"an integer >= {option.lo}"
    elif option.hi is not None:
        wanted = f"an integer <= {option.hi}"
    else:
        wanted = "an integer"
    raise _BadValue(f"'{option.key}' expects {wanted}, got {_show(value)}")


def _to_bool(option: Option, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in _BOOL_WORDS:
        return _BOOL_WORDS[value.lower()]
    raise _BadValue(f"'{option.key}' expects true or false, got {_show(value)}")


def _to_choice(choices: Sequence[str], value: Any, what: str) -> str:
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        for choice in choices:
            if str(value).lower() == str(choice).lower():
                return choice
    raise _BadValue(f"{what} expects one of {', '.join(map(str, choices))}; got {_show(value)}")


def _to_list(option: Option, value: Any) -> list:
    if isinstance(value, str):  # "a, b, c" is handy on a command line
        value = [item.strip() for item in value.split(",") if item.strip()]
    if not isinstance(value, (list, tuple)):
        raise _BadValue(f"'{option.key}' expects a list like [{', '.join(map(str, option.choices))}],"
                        f" got {_show(value)}")
    items = list(value)
    if option.choices:
        items = [_to_choice(option.choices, item, f"each item of '{option.key}'") for item in items]
    if option.permutation and sorted(map(str, items)) != sorted(map(str, option.choices)):
        raise _BadValue(f"'{option.key}' expects each of {', '.join(map(str, option.choices))} "
                        f"exactly once, in any order; got {_show(value)}")
    return items


def _show(value: Any) -> str:
    """A value in an error message: short, whatever the value (see ``excerpt``)."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (dict, list, tuple)):
        return excerpt(_flat_repr(value), quote=False)
    return excerpt(value, quote=isinstance(value, str))


def _flat_repr(value: Any, budget: int = 80) -> str:
    """repr of a nested value, stopped after about ``budget`` characters (never the whole
    of a value that aliases made large)."""
    out: list[str] = []
    used = 0

    def walk(item: Any) -> None:
        nonlocal used
        if used > budget:
            return
        if isinstance(item, dict):
            pieces, opener, closer = list(item.items()), "{", "}"
        elif isinstance(item, (list, tuple)):
            pieces, opener, closer = list(item), "[", "]"
        else:
            text = repr(item)[:budget]
            out.append(text)
            used += len(text)
            return
        out.append(opener)
        for n, piece in enumerate(pieces):
            if used > budget:
                break
            if n:
                out.append(", ")
            if isinstance(item, dict):
                walk(piece[0])
                out.append(": ")
                walk(piece[1])
            else:
                walk(piece)
        out.append(closer)

    walk(value)
    return "".join(out)


def _join(counts: Sequence[int]) -> str:
    return ", ".join(map(str, counts))


# -- documentation -----------------------------------------------------------------------

def _format_value(option: Option, value: Any) -> str:
    if option.per_players:
        groups: list[list] = []  # runs of consecutive player counts with equal values
        for count in option.players:
            if groups and groups[-1][2] == value[count] and groups[-1][1] == count - 1:
                groups[-1][1] = count
            else:
                groups.append([count, count, value[count]])
        return ", ".join(f"{a}: {_format_scalar(v)}" if a == b else f"{a}-{b}: {_format_scalar(v)}"
                         for a, b, v in groups)
    return _format_scalar(value)


def _format_scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(str, value)) + "]"
    return f"`{value}`" if isinstance(value, str) else str(value)


def _format_allowed(option: Option) -> str:
    if option.kind == "choice":
        return " (" + " \\| ".join(f"`{c}`" for c in option.choices) + ")"
    if option.per_players:
        return " (per player count; set one with `" + option.key + ".N=value`)"
    return ""
