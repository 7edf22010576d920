"""The code examples of README.md and docs/ work as written, so they cannot rot.

- Every ```python block runs, in a temporary working directory (its runs go there). The
  blocks of one page run in order in one namespace, so a later block may use an earlier
  block's names. A block whose first line is ``# not run: <reason>`` is only compiled.
- Every ``simulate ...`` command of a ```bash block is parsed by the command line itself
  (click's parser and the options' types, no command called), so an unknown or renamed
  flag, a missing required option or a malformed value (``--games lots``) fails. Commands
  that play no games (``simulate cards``, ``simulate strategies``) are run too, and their
  ``> FILE`` output written where the page says.
- Every ```yaml block outside the rules documents is valid YAML; a block of experiments
  is loaded and validated by the experiments reader (every point configured, no games),
  any other block must be a valid rules file of some game. ``# not run: <reason>`` as its
  first line: only the YAML syntax is checked.
"""
from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
RULES_DOCS = ROOT / "docs" / "rules"
NOT_RUN = re.compile(r"#\s*not run:\s*\S")
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                   re.S | re.M)
SHELL = ("bash", "sh", "shell", "console")
OPERATORS = {"&&", "||", ";", "|", ">", ">>", "<", "&", "2>", "2>&1"}
RUN_CHEAPLY = {"cards", "strategies"}     # sub-commands that play no games


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def blocks(page: Path, languages: tuple[str, ...]) -> list[tuple[int, str]]:
    """(line number, text) of every fenced block of ``page`` in one of ``languages``."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        if match.group("lang").lower() in languages:
            body = match.group("body")
            indent = match.group("indent")
            if indent:
                body = "\n".join(line[len(indent):] if line.startswith(indent) else line
                                 for line in body.splitlines())
            found.append((text.count("\n", 0, match.start()) + 2, body))
    return found


def simulate_commands(shell: str) -> list[list[str]]:
    """The argument lists of every ``simulate`` command in a shell block (after ``&&``,
    before ``>`` or ``|``; comments and line continuations handled)."""
    commands = []
    for line in shell.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
        segment: list[str] = []
        for token in [*tokens, ";"]:
            if token in OPERATORS or set(token) <= set("&|;<>"):
                if segment and segment[0] == "simulate":
                    redirect = None
                    if token in (">", ">>"):
                        after = tokens[tokens.index(token) + 1:]
                        redirect = after[0] if after else None
                    commands.append((segment[1:], redirect))
                segment = [] if token not in (">", ">>") else ["(redirected)"]
                continue
            segment.append(token)
    return commands


def dry_parse(args: list[str]) -> None:
    """Parse ``simulate ARGS`` as the command line would, without calling any command."""
    from sim.cli import main

    split = next((i for i, a in enumerate(args) if a in main.commands), len(args))
    ctx = main.make_context("simulate", args[:split])
    assert not ctx.args, f"arguments the command line would not accept: {ctx.args}"
    if split < len(args):
        command = main.commands[args[split]]
        command.make_context(args[split], args[split + 1:], parent=ctx)


def run_cheap(args: list[str], redirect: str | None) -> None:
    from click.testing import CliRunner

    from sim.cli import main

    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, f"simulate {shlex.join(args)}: {result.output}"
    if redirect:
        Path(redirect).write_text(result.output, encoding="utf-8")


def pages_with(languages: tuple[str, ...], pages=PAGES) -> list[Path]:
    return [page for page in pages if blocks(page, languages)]


@pytest.mark.parametrize("page", pages_with(("python", "py")), ids=page_id)
def test_python_examples_run(page, tmp_path, monkeypatch):
    examples = blocks(page, ("python", "py"))
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": f"example:{page_id(page)}"}
    done = []   # each block: "ran", or "compiled" (marked as not run)
    for line, code in examples:
        compiled = compile("\n" * (line - 1) + code, str(page), "exec")
        if NOT_RUN.match(code.lstrip().splitlines()[0] if code.strip() else ""):
            done.append("compiled")
            continue
        exec(compiled, namespace)   # a failure points at the page and its line
        done.append("ran")
    assert examples and len(done) == len(examples), page


@pytest.mark.parametrize("page", pages_with(SHELL), ids=page_id)
def test_simulate_commands_parse(page, tmp_path, monkeypatch):
    commands = [(line, args, redirect) for line, shell in blocks(page, SHELL)
                for args, redirect in simulate_commands(shell)]
    monkeypatch.chdir(tmp_path)
    for line, args, redirect in commands:
        for flag, value in zip(args, args[1:]):
            if flag in ("--rules", "--compare-rules") and not Path(value).exists():
                Path(value).write_text("{}\n", encoding="utf-8")   # read as it is parsed
        try:
            dry_parse(args)
        except Exception as exc:   # click's UsageError, BadParameter, ...
            pytest.fail(f"{page_id(page)}, block at line {line}: simulate {shlex.join(args)}: "
                        f"{type(exc).__name__}: {getattr(exc, 'format_message', lambda: exc)()}")
        first = next((a for a in args if not a.startswith("-")), None)
        if first in RUN_CHEAPLY:
            run_cheap(args, redirect)


def is_experiments(data) -> bool:
    from sim.studies.experiments.schema import EXPERIMENT_KEYS

    return (isinstance(data, dict) and bool(data)
            and all(isinstance(v, dict) for k, v in data.items() if not str(k).startswith("_"))
            and any(set(v) & set(EXPERIMENT_KEYS) for v in data.values() if isinstance(v, dict)))


def check_strategy_file(path: Path) -> None:
    """A strategy file: read, and its weights (every count's) built by its game."""
    from sim import api
    from sim.core.strategy_file import read

    strategy = read(str(path))
    api.configure(strategy.game, strategy.players[0] if strategy.players else None,
                  strategies={"A" if strategy.game == "peer-to-peer" else "all": f"@{path}"})


def check_rules_file(path: Path) -> None:
    """``path`` configures some game (the first that accepts it), else the first error."""
    from sim import api
    from sim.core.errors import UserError

    errors = []
    for name in api.game_modules():
        game = api.resolve_game(name)
        try:
            game.configure(players=game.default_players, rules_file=str(path))
            return
        except UserError as exc:
            errors.append(f"{name}: {exc}")
    pytest.fail("not a rules file of any game: " + "; ".join(errors))


@pytest.mark.parametrize("page", pages_with(("yaml", "yml"), [p for p in PAGES
                                                             if RULES_DOCS not in p.parents]),
                         ids=page_id)
def test_yaml_examples_are_valid(page, tmp_path, monkeypatch):
    examples = blocks(page, ("yaml", "yml"))
    from sim.studies.experiments import schema

    monkeypatch.chdir(tmp_path)
    for line, text in examples:
        data = yaml.safe_load(text)
        if NOT_RUN.match(text.lstrip().splitlines()[0]):
            continue
        path = tmp_path / f"{page.stem}-{line}.yaml"
        path.write_text(text, encoding="utf-8")
        if is_experiments(data):
            schema.load(path)       # UserError at the block's own line if anything is wrong
        elif isinstance(data, dict) and "cardsim_strategy" in data:
            check_strategy_file(path)
        else:
            check_rules_file(path)


def test_every_page_with_commands_is_checked():
    """The README's own commands are found (so a change of fence or format that hides the
    examples from this test fails here, not silently)."""
    readme = [command for _, shell in blocks(ROOT / "README.md", SHELL)
              for command in simulate_commands(shell)]
    assert (["--games", "1e6"], None) in readme and (["cards"], "my.csv") in readme
    assert blocks(ROOT / "docs" / "python-api.md", ("python",))


def test_the_parser_of_commands_fails_on_a_renamed_flag():
    """The check above can fail: a flag that does not exist, a bad count, a missing value."""
    dry_parse(["--games", "1e6", "--players", "3"])
    dry_parse(["matchups", "--strategies", "greedy,builder", "--games", "2e5"])
    for bad in (["--gamez", "1e6"], ["--games", "lots"], ["tune", "--budgett", "3"],
                ["trace", "--seed", "1"]):
        with pytest.raises(Exception):
            dry_parse(bad)
    assert simulate_commands("python3 -m venv .venv && pip install . && simulate --games 1e6\n"
                             "simulate cards > my.csv   # then edit it\n") == [
        (["--games", "1e6"], None), (["cards"], "my.csv")]


def test_every_function_of_the_python_api_is_exported_and_documented():
    """``from sim.api import *`` gives every public function of sim/api.py, and
    docs/python-api.md names each."""
    import inspect

    from sim import api

    functions = {name for name, value in vars(api).items()
                 if inspect.isfunction(value) and value.__module__ == api.__name__
                 and not name.startswith("_")}
    assert functions <= set(api.__all__), sorted(functions - set(api.__all__))
    page = (ROOT / "docs" / "python-api.md").read_text(encoding="utf-8")
    assert {name for name in functions if f"{name}(" not in page and f"`{name}`" not in page} \
        == set()
