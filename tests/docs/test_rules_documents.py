"""The rules documents (docs/rules/) hold together with the code that cites them: every
rule id cited in the code, tests and docs is a heading or a list item of its game's
document; every declared rule option is documented with its rule id, values and default;
no tracked file points at the input folder beside the repository; and every line
of a traced game that applies a rule cites ids of its game's document, so a designer
stepping through a game can look each step up."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from sim import api
from sim.games.peer_to_peer.rules import OPTIONS as P2P_OPTIONS
from sim.games.plai.rules import OPTIONS as PLAI_OPTIONS

# The repository root: the nearest folder above this file that holds pyproject.toml (so
# the test does not depend on how deep tests/ nests it).
REPO_ROOT = next(folder for folder in Path(__file__).resolve().parents
                 if (folder / "pyproject.toml").is_file())
RULES_DIR = REPO_ROOT / "docs" / "rules"

DOCUMENTS = {"P2P": "peer-to-peer.md", "PLAI": "plai.md"}
OPTIONS = {"peer-to-peer.md": P2P_OPTIONS, "plai.md": PLAI_OPTIONS}
# A rule id: game prefix, rule group, optional number and letter (P2P-R, P2P-R2, P2P-R2c).
RULE_ID = re.compile(r"(?<![A-Za-z0-9])(P2P|PLAI)-[A-Z]+[0-9]*[a-z]?(?![A-Za-z0-9])")
CITING = ("sim", "reports", "strategies", "tests", "docs")
CITING_FILES = ("README.md", "experiments.yaml")
TEXT_SUFFIXES = {".py", ".md", ".yaml", ".yml", ".csv", ".txt", ".json", ".js", ".html", ".css"}


def citing_files() -> list[Path]:
    """The files whose rule ids must resolve: code, strategies, reports, tests and docs
    (the rules documents themselves aside), README.md and experiments.yaml."""
    files = [REPO_ROOT / name for name in CITING_FILES if (REPO_ROOT / name).is_file()]
    for folder in CITING:
        for path in sorted((REPO_ROOT / folder).rglob("*")):
            if (path.is_file() and path.suffix in TEXT_SUFFIXES
                    and "__pycache__" not in path.parts and RULES_DIR not in path.parents):
                files.append(path)
    return files


def cited_ids() -> dict[str, set[str]]:
    """Rule id -> the files (relative to the repository) that cite it."""
    cited: dict[str, set[str]] = {}
    for path in citing_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for found in RULE_ID.finditer(text):
            cited.setdefault(found.group(0), set()).add(str(path.relative_to(REPO_ROOT)))
    return cited


def anchored_ids(text: str) -> list[str]:
    """Rule ids that a heading starts with (``### P2P-R2c Contest``) or that a list item
    starts with in bold (``- **P2P-D1** ...``), in document order."""
    heading = re.findall(r"^#{2,4} ((?:P2P|PLAI)-[A-Z]+[0-9]*[a-z]?)(?: |$)", text, flags=re.M)
    item = re.findall(r"^- \*\*((?:P2P|PLAI)-[A-Z]+[0-9]*[a-z]?)\*\*", text, flags=re.M)
    return heading + item


def test_every_cited_rule_id_is_anchored_in_its_games_rules_document(rules_text):
    anchored = {prefix: set(anchored_ids(rules_text(name))) for prefix, name in DOCUMENTS.items()}
    cited = cited_ids()
    assert len(cited) > 50, "the scan found almost no rule ids: is it looking in the right place?"
    missing = {rule: sorted(files)[:3] for rule, files in sorted(cited.items())
               if rule not in anchored[rule.split("-")[0]]}
    assert not missing, (f"rule ids cited but not a heading or list item of "
                         f"docs/rules/ (id: first citing files): {missing}")


@pytest.mark.parametrize("name", sorted(DOCUMENTS.values()))
def test_rule_ids_are_anchored_once(rules_text, name):
    ids = anchored_ids(rules_text(name))
    prefix = "P2P" if name == "peer-to-peer.md" else "PLAI"
    assert ids and all(rule.startswith(prefix + "-") for rule in ids)
    assert len(ids) == len(set(ids)), sorted({rule for rule in ids if ids.count(rule) > 1})


def option_entries(text: str) -> dict[str, str]:
    """Option name -> its entry (the lines under ``### `name```) in "Rule options"."""
    section = text.split("\n## Rule options\n")[1].split("\n## ")[0]
    parts = re.split(r"^### `(\w+)`$", section, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def entry_field(entry: str, label: str) -> str:
    """The text of ``- **Label:** text`` (continuation lines joined), or ''."""
    found = re.search(rf"^- \*\*{label}:\*\* (.+?)(?=^- \*\*|\Z)", entry, flags=re.M | re.S)
    return " ".join(found.group(1).split()) if found else ""


def declared_defaults(options) -> dict[str, tuple[str, str]]:
    """Option name -> (default as documented, rule id), from the OptionSet's own table."""
    rows = {}
    for line in options.describe_markdown().splitlines()[2:]:
        cells = [cell.strip() for cell in line.strip().strip("|").split(" | ")]
        rows[cells[0].strip("`")] = (cells[1], cells[2])
    return rows


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_every_declared_option_is_documented_with_its_rule_values_and_default(rules_text, name):
    text = rules_text(name)
    options = OPTIONS[name]
    entries = option_entries(text)
    assert list(entries) == list(options.options), "one entry per option, in declaration order"
    table = text.split("\n## Rule options\n")[1].split("\n### ")[0]
    for key, (default, rule_id) in declared_defaults(options).items():
        entry = entries[key]
        assert entry_field(entry, "Rule") == rule_id, key
        assert entry_field(entry, "Default") == default, key
        assert f"| `{key}` | {default} | {rule_id} |" in table, key
        assert entry_field(entry, "Why"), f"{key}: say why the default is the default"
        values = entry_field(entry, "Values")
        assert values, key
        option = options.options[key]
        for choice in option.choices:  # a choice's values in backticks, a list's items named
            shown = f"`{choice}`" if option.kind == "choice" else choice
            assert shown in values, f"{key}: value {shown} is not documented"


@pytest.mark.parametrize("name", sorted(DOCUMENTS.values()))
def test_rules_document_names_its_source_and_its_gaps(rules_text, name):
    text = rules_text(name)
    source = text.split("\n## Source\n")[1].split("\n## ")[0]
    assert "**Edition**" in source
    assert re.search(r"^## Where the (page|sheet) leaves gaps$", text, flags=re.M)


# ---------------------------------------------------------------- traces cite their rules

TRACE_CITATION = re.compile(r"\(((?:P2P|PLAI)-[A-Z]+[0-9]*[a-z]?(?:, [^()]+)?)\)")
# Lines that tell what a team or seat holds, or what a search weighed: no rule applies
UNCITED = ("'s hand before it commits",)

GAMES = [("peer-to-peer", players, index) for players in (1, 2, 3, 4, 6) for index in (0, 7, 13)]
GAMES += [("plai", players, index) for players in (2, 3, 5) for index in (0, 1, 4)]


def cited(text: str) -> list[str] | None:
    """The rule ids of a line's citations (a short id takes the first id's prefix, option
    settings such as ``unchosen_ventures=aside`` are left out), or None without one."""
    found = TRACE_CITATION.findall(text)
    if not found:
        return None
    ids = []
    for group in found:
        first, *rest = group.split(", ")
        prefix = first.split("-")[0]
        ids.append(first)
        ids += [f"{prefix}-{part}" for part in rest if re.fullmatch(r"[A-Z]+[0-9]*[a-z]?", part)]
    return ids


@pytest.mark.parametrize("game, players, index", GAMES)
def test_every_rule_line_of_a_trace_cites_ids_of_its_rules_document(rules_text, game, players,
                                                                   index):
    prefix = "P2P" if game == "peer-to-peer" else "PLAI"
    anchored = set(anchored_ids(rules_text(DOCUMENTS[prefix])))
    story = api.story(game=game, players=players, seed=3, game_index=index)
    lines = [line for step in story.steps for line in step.lines
             if line.kind != "search" and not any(part in line.text for part in UNCITED)]
    assert len(lines) > 20
    uncited = [line.text for line in lines if cited(line.text) is None]
    assert not uncited, uncited[:5]
    unknown = {rule for line in lines for rule in cited(line.text) if rule not in anchored}
    assert not unknown, sorted(unknown)
