"""Line-numbered YAML reading: every file a designer writes (rules files, experiments,
strategy files) is composed, not just loaded, so each error can name its line.

``StrictBoolLoader`` reads YAML where only true/false are booleans; ``compose`` parses a
text into nodes (a syntax error is one UserError with its line); ``located`` turns nodes
into ``Located`` values that remember their line and dotted key (``exp.sweep.rule.x``).

Limits, checked on the parser's events before anything is built or expanded (so a small
file cannot make a large value): at most ``MAX_YAML_BYTES`` of text, ``MAX_DEPTH`` levels
of nesting, ``MAX_ALIASES`` aliases (``*name``), ``MAX_VALUES`` values once the aliases
are expanded, ``MAX_SCALAR`` characters in one value and ``MAX_NUMBER`` in one number;
only plain YAML tags (no ``!!python/...``). Each is one UserError at its line.
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


MAX_YAML_BYTES = 1_000_000     # a rules, experiments or strategy file
MAX_DEPTH = 32                 # nested lists / mappings
MAX_ALIASES = 200              # *name references (merge keys in experiments use a few)
MAX_VALUES = 50_000            # values once every alias is expanded
MAX_SCALAR = 10_000            # characters in one value
MAX_NUMBER = 40                # characters in one number
_PLAIN_TAGS = {f"tag:yaml.org,2002:{name}" for name in
               ("str", "int", "float", "bool", "null", "seq", "map", "merge")}
_NUMBER_TAGS = {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}


def yaml_problem(exc: yaml.YAMLError) -> str:
    """The parser's complaint on one line (shortened)."""
    return excerpt(" ".join(str(getattr(exc, "problem", None) or exc).split()), 120,
                   quote=False)


def excerpt(value: Any, limit: int = 60, quote: bool = True) -> str:
    """A value as an error message shows it: at most ``limit`` characters, cut with '...'
    (so a message never carries a file's contents or a huge value)."""
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[:limit - 3] + "..."
    return f"'{text}'" if quote else text


def _shown_tag(tag: str) -> str:
    return excerpt(tag.replace("tag:yaml.org,2002:", "!!"), 40)


def check_limits(text: str, path: str, loader: type = StrictBoolLoader) -> None:
    """Refuse a text beyond the module's limits, reading only the parser's events (no
    value is built, no alias expanded). One UserError at the offending line."""
    if len(text) > MAX_YAML_BYTES:
        raise UserError(f"is larger than {MAX_YAML_BYTES:,} characters; YAML files here are "
                        "small", file=path)
    depth = aliases = 0
    for event in yaml.parse(text, Loader=loader):
        line = event.start_mark.line + 1 if event.start_mark else None
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise UserError(f"nested more than {MAX_DEPTH} levels deep", file=path,
                                line=line)
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1
        elif isinstance(event, yaml.AliasEvent):
            aliases += 1
            if aliases > MAX_ALIASES:
                raise UserError(f"more than {MAX_ALIASES} aliases (*name); write the values "
                                "out", file=path, line=line)
        elif isinstance(event, yaml.ScalarEvent) and len(event.value) > MAX_SCALAR:
            raise UserError(f"a value of {len(event.value):,} characters (at most "
                            f"{MAX_SCALAR:,})", file=path, line=line)
        tag = getattr(event, "tag", None)
        if tag is not None and tag != "!" and _full_tag(tag) not in _PLAIN_TAGS:
            raise UserError(f"the YAML tag {_shown_tag(tag)} is not allowed; write a plain "
                            "value", file=path, line=line)


def _full_tag(tag: str) -> str:
    return "tag:yaml.org,2002:" + tag[2:] if tag.startswith("!!") else tag


def _check_nodes(root, path: str) -> None:
    """After composing: values once aliases are expanded (counted, never built), numbers'
    widths, and a value that contains itself."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()

    def size(node) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in open_nodes:
            raise UserError("a value contains itself (a recursive alias)", file=path,
                            line=node.start_mark.line + 1)
        open_nodes.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(item) for item in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(k) + size(v) for k, v in node.value)
        elif node.tag in _NUMBER_TAGS and len(node.value) > MAX_NUMBER:
            raise UserError(f"a number of {len(node.value):,} characters (at most "
                            f"{MAX_NUMBER}): {excerpt(node.value, 24)}", file=path,
                            line=node.start_mark.line + 1)
        if total > MAX_VALUES:
            raise UserError(f"expands to more than {MAX_VALUES:,} values (through aliases); "
                            "write the values out", file=path, line=node.start_mark.line + 1)
        open_nodes.discard(key)
        sizes[key] = total
        return total

    if root is not None:
        size(root)


def compose(text: str, path: str, loader: type = StrictBoolLoader):
    """The root node of ``text`` (None for an empty document), within the module's
    limits; a syntax error or a limit is one UserError naming ``path`` and the line."""
    try:
        check_limits(text, path, loader)
        root = yaml.compose(text, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise UserError(f"not valid YAML ({yaml_problem(exc)})", file=path,
                        line=mark.line + 1 if mark else None) from None
    _check_nodes(root, path)
    return root


def load_value(text: str, where: str, loader: type = StrictBoolLoader) -> Any:
    """One YAML value typed on a command line (``--rule key=VALUE``), within the limits."""
    root = compose(text, where, loader)
    return None if root is None else loader("").construct_document(root)


def kind_of(value: Any) -> str:
    """How an error message names a value that has the wrong kind."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "nothing"
    return excerpt(str(value))


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
