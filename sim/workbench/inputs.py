"""The page's edits as the files the CLI reads, checked by the CLI's own loaders.

A game's card table is its card file: the columns are the file's header, the rows its
records, the comment lines above the header are kept. The rule options are the game's
``OptionSet`` (the ``OPTIONS`` of the module that defines its ``GAME``; a game without
one gets a free YAML text box). Every check is ``Game.configure`` on the written files,
so an error is the CLI's ``UserError``, in the CLI's words, mapped back to its cell.
"""
from __future__ import annotations

import csv
import io
import os
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import yaml

from sim import api
from sim.core.errors import UserError
from sim.core.game import Game, player_count
from sim.core.options import OptionSet

MAX_ROWS = 2000          # card rows a request may carry
MAX_CELL = 500           # characters in one cell or one option value
MAX_NAME = 200           # characters in a file name the designer types
CARDS_NAME = "edited-cards.csv"   # the names validation writes under (shown in errors)
RULES_NAME = "edited-rules.yaml"


class BadInput(ValueError):
    """A malformed request (not a designer's bad value): HTTP 400 with this message."""


# ----------------------------------------------------------------------------- cards
@dataclass
class CardSheet:
    """A card file as a table: comment lines above the header, the header, the rows."""

    comments: list[str]
    columns: list[str]
    rows: list[list[str]]

    def text(self) -> str:
        out = io.StringIO()
        for comment in self.comments:
            out.write(comment.rstrip("\r\n") + "\n")
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(self.columns)
        writer.writerows(self.rows)
        return out.getvalue()

    def row_of_line(self, line: int | None) -> int | None:
        """The row index written on physical ``line`` (None: the header or no line)."""
        if line is None:
            return None
        index = line - len(self.comments) - 2
        return index if 0 <= index < len(self.rows) else None


def parse_card_text(text: str) -> CardSheet:
    """A card file's text as a CardSheet (comments before the header kept; blank and
    comment lines after it dropped, as the loader skips them)."""
    comments, content = [], []
    for line in text.splitlines():
        stripped = line.strip()
        if not content and stripped.startswith("#"):
            comments.append(line)
        elif stripped and not stripped.startswith("#"):
            content.append(line)
    records = [[cell.strip() for cell in record] for record in csv.reader(content)]
    if not records:
        return CardSheet(comments, [], [])
    columns = records[0]
    while columns and not columns[-1]:
        columns = columns[:-1]
    rows = [(r + [""] * len(columns))[:len(columns)] for r in records[1:] if any(r)]
    return CardSheet(comments, columns, rows)


def sheet_from_request(body: Mapping[str, Any], baseline: CardSheet) -> CardSheet:
    """The edited card table of a request: ``cards: {"columns": [...], "rows": [[...]]}``
    (the comments come from the baseline)."""
    cards = body.get("cards")
    if not isinstance(cards, Mapping):
        raise BadInput("'cards' must be an object with 'columns' and 'rows'")
    columns, rows = cards.get("columns"), cards.get("rows")
    if not _strings(columns) or not isinstance(rows, list):
        raise BadInput("'cards.columns' must be a list of strings and 'cards.rows' a list")
    if len(rows) > MAX_ROWS:
        raise BadInput(f"at most {MAX_ROWS} card rows, got {len(rows)}")
    clean = []
    for number, row in enumerate(rows):
        if not _strings(row) or len(row) != len(columns):
            raise BadInput(f"card row {number} must be a list of {len(columns)} strings")
        clean.append([_cell(cell) for cell in row])
    return CardSheet(list(baseline.comments), [_cell(c) for c in columns], clean)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _cell(text: str) -> str:
    if len(text) > MAX_CELL:
        raise BadInput(f"a cell holds at most {MAX_CELL} characters")
    return " ".join(text.splitlines()).strip()  # one physical line per row


# ----------------------------------------------------------------------------- rules
def rule_options(game: Game) -> OptionSet | None:
    """The game's rule options (``Game.options``), or None when it has none."""
    return game.options


def yaml_text(value: Any) -> str:
    """One option value as a line of YAML (flow style)."""
    return yaml.safe_dump(value, default_flow_style=True, sort_keys=False).strip().removesuffix(
        "\n...").removesuffix("...").strip()


def option_text(option: Any, value: Any) -> str:
    """A value as the form shows it: a choice as the choice itself (the page's select
    offers ``choices``; YAML would quote a choice such as '0'), anything else as YAML."""
    if option.kind == "choice" and str(value) in [str(c) for c in option.choices]:
        return str(value)
    return yaml_text(value)


def describe_options(game: Any, baseline_rules: str | None) -> list[dict[str, Any]] | None:
    """The rule form: every option with its default, the baseline's value (from the
    rules file the workbench started with), kind, choices, rule id and meaning."""
    options = rule_options(game)
    if options is None:
        return None
    defaults = options.defaults()
    baseline = options.resolve(baseline_rules) if baseline_rules else defaults
    return [{"key": key, "default": option_text(option, defaults[key]),
             "value": option_text(option, baseline[key]),
             "kind": option.kind, "choices": [str(c) for c in option.choices],
             "per_players": option.per_players, "rule_id": option.rule_id, "doc": option.doc}
            for key, option in options.options.items()]


@dataclass
class RulesEdit:
    """The edited rules as YAML text; ``lines`` maps a line number to its option."""

    text: str
    lines: dict[int, str] = field(default_factory=dict)

    def file_text(self) -> str:
        """The rule file as Save writes and Download gives it: the edited options, or a
        comment saying every option is at its default when none is edited."""
        return self.text or "# every rule option at its default\n"


def rules_from_request(body: Mapping[str, Any], game: Any) -> RulesEdit:
    """``rules: {option: YAML value text}`` (options equal to their default are left out)
    or ``rules_text`` for a game without an OptionSet."""
    options = rule_options(game)
    if options is None or "rules_text" in body:
        text = body.get("rules_text", "")
        if not isinstance(text, str) or len(text) > MAX_CELL * 20:
            raise BadInput("'rules_text' must be a string of YAML")
        return RulesEdit(text)
    rules = body.get("rules", {})
    if not isinstance(rules, Mapping) or not all(isinstance(v, str) for v in rules.values()):
        raise BadInput("'rules' must map option names to value text")
    defaults = options.defaults()
    edit = RulesEdit("")
    lines = []
    for key, raw in rules.items():
        value = _cell(raw)
        if key in defaults and value in (yaml_text(defaults[key]),
                                         option_text(options.options[key], defaults[key])):
            continue
        lines.append(f"{key}: {value}" if value else f"{key}:")
        edit.lines[len(lines)] = str(key)
    edit.text = "".join(line + "\n" for line in lines)
    return edit


# ----------------------------------------------------------------------------- strategies
def strategies_from_request(body: Mapping[str, Any], game: Any, players: int,
                            start_dir: Path | None = None) -> dict[str, str]:
    """``strategies: {slot: spec}`` for the slots of this player count (an empty spec is
    the game's default strategy). A strategy file (``@FILE``) must lie under
    ``start_dir`` (the workbench's directory) and end in .yaml or .yml; it is given to the
    loaders by its full path there."""
    given = body.get("strategies") or {}
    if not isinstance(given, Mapping) or not all(isinstance(v, str) for v in given.values()):
        raise BadInput("'strategies' must map team or seat names to strategy specs")
    slots = game.strategy_slots(players)
    chosen = {slot: _cell(given[slot]) for slot in slots if _cell(given.get(slot, "") or "")}
    if start_dir is not None:
        chosen = {slot: confined_strategy(start_dir, spec) for slot, spec in chosen.items()}
    return chosen


def confined_strategy(start_dir: Path, spec: str) -> str:
    """``spec`` itself, or for ``@FILE`` the file's full path under ``start_dir``: a file
    elsewhere (``@../../etc/passwd``, an absolute path, a link out) is refused before it
    is opened, without a word of its contents."""
    from sim.core.strategy_file import PREFIX, is_file_spec

    if not is_file_spec(spec):
        return spec
    name = spec.strip()[len(PREFIX):].strip()
    root = start_dir.resolve()
    shown = name if len(name) <= 80 else name[:77] + "..."
    if not name or "\x00" in name:
        raise BadInput("a strategy file is '@NAME.yaml', a file under the workbench's directory")
    target = (root / name).resolve() if not os.path.isabs(name) else Path(name).resolve()
    if target != root and root not in target.parents:
        raise BadInput(f"strategy file '{shown}' is outside the workbench's directory; put it "
                       "under the directory the workbench was started in")
    if target.suffix.lower() not in (".yaml", ".yml"):
        raise BadInput(f"strategy file '{shown}' must end with .yaml or .yml")
    return PREFIX + str(target)


def players_from_request(body: Mapping[str, Any], game: Any) -> list[int]:
    counts = body.get("players")
    if not isinstance(counts, list) or not counts or len(counts) > 16 or not all(
            isinstance(c, int) and not isinstance(c, bool) for c in counts):
        raise BadInput("'players' must be a non-empty list of player counts (whole numbers)")
    return sorted({player_count(game, count) for count in counts})


# ----------------------------------------------------------------------------- checking
@dataclass
class Problem:
    """One error, located for the page: part is cards / rules / strategies / players."""

    part: str
    message: str
    cli: str
    row: int | None = None
    field: str | None = None
    players: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {"part": self.part, "message": self.message, "cli": self.cli, "row": self.row,
                "field": self.field, "players": self.players}


@dataclass
class Checked:
    """Written, validated files of an edit (``problem`` None when they load)."""

    cards_path: Path
    rules_path: Path | None
    problem: Problem | None


def write_edit(folder: Path, sheet: CardSheet, rules: RulesEdit) -> tuple[Path, Path | None]:
    folder.mkdir(parents=True, exist_ok=True)
    cards_path = folder / CARDS_NAME
    cards_path.write_text(sheet.text(), encoding="utf-8")
    rules_path = None
    if rules.text.strip():
        rules_path = folder / RULES_NAME
        rules_path.write_text(rules.text, encoding="utf-8")
    return cards_path, rules_path


def check_edit(game_name: str, players: Sequence[int], folder: Path, sheet: CardSheet,
               rules: RulesEdit, strategies: Mapping[int, Mapping[str, str]]) -> Checked:
    """Write the edit into ``folder`` and configure it at every player count with the
    CLI's loaders; the first error, located."""
    cards_path, rules_path = write_edit(folder, sheet, rules)
    for count in players:
        try:
            api.configure(game_name, count, str(cards_path),
                          str(rules_path) if rules_path else None, (),
                          dict(strategies.get(count) or {}) or None)
        except UserError as exc:
            return Checked(cards_path, rules_path, locate(exc, count, cards_path, rules_path,
                                                          sheet, rules,
                                                          strategies.get(count) or {}))
    return Checked(cards_path, rules_path, None)


def locate(exc: UserError, players: int, cards_path: Path, rules_path: Path | None,
           sheet: CardSheet, rules: RulesEdit,
           strategies: Mapping[str, str] | None = None) -> Problem:
    """Which part of the page an error of configure points at, with the CLI's line for it
    (the file named as the page names it)."""
    file = str(exc.file) if exc.file else None
    for slot, spec in (strategies or {}).items():   # a strategy file's own error
        if file and spec.startswith("@") and os.path.abspath(spec[1:]) == os.path.abspath(file):
            return Problem("strategies", exc.message, str(exc), None, slot, players)
    if file and os.path.abspath(file) == os.path.abspath(cards_path):
        shown = UserError(exc.message, file=CARDS_NAME, line=exc.line, field=exc.field)
        return Problem("cards", exc.message, str(shown), sheet.row_of_line(exc.line),
                       exc.field, players)
    if file and rules_path is not None and os.path.abspath(file) == os.path.abspath(rules_path):
        shown = UserError(exc.message, file=RULES_NAME, line=exc.line, field=exc.field)
        key = exc.field or rules.lines.get(exc.line or 0)
        return Problem("rules", exc.message, str(shown), None, key, players)
    slot = re.fullmatch(r"(?:strategy of )?(seat\d+|all)", exc.field or "")  # PLAI's words
    if exc.field and (exc.field.startswith("--team") or exc.field.startswith("--seat")
                      or exc.field.startswith("--strategy") or exc.field in ("A", "B") or slot):
        return Problem("strategies", exc.message, str(exc), None,
                       slot.group(1) if slot else exc.field, players)
    if file is None and exc.field and "=" not in exc.field and rules.lines and \
            exc.field.split(".")[0] in rules.lines.values():
        return Problem("rules", exc.message, str(exc), None, exc.field.split(".")[0], players)
    return Problem("players" if exc.field == "--players" else "other", exc.message, str(exc),
                   None, exc.field, players)


# ----------------------------------------------------------------------------- paths
def safe_path(start_dir: Path, name: Any, suffixes: Sequence[str]) -> Path:
    """``name`` (typed by the designer) as a path under ``start_dir``; BadInput for an
    absolute path, '..', a link out of the directory or a wrong suffix."""
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise BadInput("a file name is a non-empty string of at most "
                       f"{MAX_NAME} characters")
    name = name.strip()
    if "\x00" in name or os.path.isabs(name) or name.startswith("~") or \
            any(part == ".." for part in re.split(r"[\\/]", name)):
        raise BadInput(f"'{name}' is outside the workbench's directory {start_dir}; give a "
                       "name relative to it, without '..'")
    if not name.lower().endswith(tuple(suffixes)):
        raise BadInput(f"'{name}' must end with {' or '.join(suffixes)}")
    root = start_dir.resolve()
    target = (root / name).resolve()
    if target != root and root not in target.parents:
        raise BadInput(f"'{name}' is outside the workbench's directory {start_dir}")
    return target


# ----------------------------------------------------------------------------- commands
def command_lines(game_name: str, game: Any, players: Sequence[int], seed: int, games: int,
                  width: float, strategies: Mapping[int, Mapping[str, str]],
                  edit_cards: str | None, edit_rules: str | None, base_cards: str | None,
                  base_rules: str | None, backend: Sequence[str] = (),
                  chunk: int | None = None,
                  games_played: Mapping[int, int] | None = None) -> dict[str, str]:
    """The ``simulate`` runs equivalent to the two sides of a comparison (one per side and
    player count, each with that count's ``strategies``). ``chunk``: the chunk size the page
    set. ``games_played`` (per player count), once the comparison has ended: each line
    plays exactly those games (``--games N``, no ``--until-ci``), so it prints the page's
    numbers. Without it the lines show the cap with ``--until-ci``, which stops on each
    side's own rates, not on the paired difference the page decides on, so they need not
    stop where the page does."""
    kind = game.strategy_kind

    def strategy_flags(count: int) -> list[str]:
        flags: list[str] = []
        for slot, spec in (strategies.get(count) or {}).items():
            if kind == "teams":
                flags += [f"--team-{slot.lower()}", spec]
            else:
                flags += ["--seat", f"{''.join(ch for ch in slot if ch.isdigit())}={spec}"]
        return flags

    def line(cards: str | None, rules: str | None, count: int) -> str:
        words = ["simulate", "--game", game_name, "--players", str(count)]
        words += ["--cards", cards] if cards else []
        words += ["--rules", rules] if rules else []
        if games_played is None:
            words += strategy_flags(count) + ["--games", str(games), "--seed", str(seed),
                                              "--until-ci", f"{width:g}"]
        else:
            words += strategy_flags(count) + ["--games", str(games_played[count]),
                                              "--seed", str(seed)]
        words += ["--chunk-size", str(chunk)] if chunk else []
        return shlex.join(words + list(backend))

    return {"edit": "\n".join(line(edit_cards, edit_rules, p) for p in players),
            "baseline": "\n".join(line(base_cards, base_rules, p) for p in players)}
