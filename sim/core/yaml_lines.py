"""Line-numbered YAML reading: every file a designer writes (rules files, experiments,
strategy files) is composed, not just loaded, so each error can name its line.

``StrictBoolLoader`` reads YAML where only true/false are booleans; ``compose`` parses a
text into nodes (a syntax error is one UserError with its line); ``located`` turns nodes
into ``Located`` values that remember their line and dotted key (``exp.sweep.rule.x``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from sim.core.errors import UserError

_BOOL_TAG = "tag:yaml.org,2002:bool"


class StrictBoolLoader(yaml.SafeLoader):
    """safe_load, except that only true/false are booleans at parse time.

    YAML 1.1 turns yes/no/on/off into booleans, which would corrupt a choice such as
    ``no``; bool options still accept those words (see ``sim.core.options``), so for them
    the result equals yaml.safe_load's.
    """


StrictBoolLoader.yaml_implicit_resolvers = {
    first: [(tag, regex) for tag, regex in resolvers if tag != _BOOL_TAG]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
StrictBoolLoader.add_implicit_resolver(_BOOL_TAG, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"),
                              list("tTfF"))


def yaml_problem(exc: yaml.YAMLError) -> str:
    """The parser's complaint on one line."""
    return " ".join(str(getattr(exc, "problem", None) or exc).split())


def compose(text: str, path: str, loader: type = StrictBoolLoader):
    """The root node of ``text`` (None for an empty document); a syntax error is one
    UserError naming ``path`` and the line."""
    try:
        return yaml.compose(text, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise UserError(f"not valid YAML ({yaml_problem(exc)})", file=path,
                        line=mark.line + 1 if mark else None) from None


def kind_of(value: Any) -> str:
    """How an error message names a value that has the wrong kind."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    return f"'{value}'"


@dataclass
class Located:
    """A YAML value with where it came from: ``v`` is a dict of str -> Located, a list of
    Located, or a plain scalar; ``line`` is 1-based; ``key`` is the dotted path used in
    error messages."""
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

    def mapping(self, what: str = "a mapping") -> dict[str, "Located"]:
        if not isinstance(self.v, dict):
            raise self.error(f"expected {what}, got {kind_of(self.v)}")
        return self.v

    def items_list(self, what: str = "a list") -> list["Located"]:
        if not isinstance(self.v, list):
            raise self.error(f"expected {what}, got {kind_of(self.v)}")
        return self.v

    def known(self, allowed: tuple[str, ...]) -> dict[str, "Located"]:
        entries = self.mapping()
        for name, item in entries.items():
            if name not in allowed:
                raise item.error(f"unknown key '{name}'; expected one of: {', '.join(allowed)}")
        return entries


def located(root, path: str, loader: type = StrictBoolLoader) -> Located:
    """``root`` (from ``compose``; None: an empty mapping) as Located values. Merge keys
    (``<<: *defaults``) are applied; a key given twice or a key that is not plain text is
    a UserError at its line. A mapping entry's line is its key's, where a designer looks."""
    if root is None:
        return Located({}, 1, "", path)
    return _convert(root, "", path, loader(""))


def _convert(node, key: str, path: str, constructor) -> Located:
    line = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        constructor.flatten_mapping(node)  # YAML merge keys (<<: *defaults)
        out: dict[str, Located] = {}
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
        return Located(out, line, key, path)
    if isinstance(node, yaml.SequenceNode):
        return Located([_convert(item, f"{key}[{i}]", path, constructor)
                        for i, item in enumerate(node.value)], line, key, path)
    return Located(constructor.construct_object(node, deep=True), line, key, path)
