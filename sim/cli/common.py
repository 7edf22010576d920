"""What every ``simulate`` command shares: its option types and option groups, the
one-line errors, and this invocation's command line (for manifests and resume hints)."""
from __future__ import annotations

import sys
from typing import Any

import click

from sim.core.catalog import DEFAULT_GAME
from sim.core.errors import UserError

GAME_OPTIONS = ("game", "players", "cards", "rules", "rule", "team_a", "team_b", "seat",
                "strategy", "debug")
RUN_ONLY_OPTIONS = ("games", "out", "threads", "chunk_size", "as_json", "resume_dir",
                    "with_report", "until_ci")
_BACKEND_OPTIONS = ("backend", "scheduler", "workers", "write_parts")  # where games play
RUN_ONLY_OPTIONS += _BACKEND_OPTIONS
RESUME_CONFLICTS = ("game", "players", "games", "seed", "cards", "rules", "rule", "team_a",
                    "team_b", "seat", "strategy", "out", "chunk_size", "debug", "until_ci")


_RAW_ARGS: list[str] = []  # the arguments of the current invocation, for the manifest
_RESUME_ARGS: list[str] = []  # options the continue line adds (see resume_keeps)


def command_line(*, drop_resume: bool = False) -> str:
    """This invocation as one line (``drop_resume``: without a ``--resume`` flag, i.e. the
    command that makes the same result from scratch)."""
    import shlex

    args = [a for a in _RAW_ARGS if not (drop_resume and a == "--resume")]
    return shlex.join(["simulate", *args])


def _resume_command(out: Any = None) -> str:
    """Exactly what to type to continue this command: the same command line with
    ``--resume`` (and ``--out OUT`` when the command chose its output itself)."""
    import os
    import shlex

    args = [a for a in _RAW_ARGS if a != "--resume"]
    if out is not None and not any(a == "--out" or a.startswith("--out=") for a in args):
        args += ["--out", os.fspath(out)]
    return shlex.join(["simulate", *args, *_RESUME_ARGS, "--resume"])


def resume_keeps(*args: str) -> None:
    """Options the printed continue line adds to this invocation's: a setting the command
    resolved from the environment, which a continuation in another shell would resolve
    differently (and so be refused as another command)."""
    _RESUME_ARGS.extend(args)


def flag(name: str) -> str:
    return {"as_json": "--json", "resume_dir": "--resume"}.get(name, "--" + name.replace("_", "-"))


class Count(click.ParamType):
    """A positive whole number: 1000000, 1_000_000 or 1e6."""

    name = "N"

    def __init__(self, maximum: int | None = None):
        self.maximum = maximum

    def convert(self, value: Any, param: Any, ctx: Any) -> int:
        from sim.api import MAX_GAMES, parse_count

        try:
            return parse_count(value, field=param.opts[0] if param else "value",
                               maximum=self.maximum or MAX_GAMES)
        except UserError as exc:
            self.fail(exc.message, param, ctx)


class Threshold(click.ParamType):
    """Percentage points above 0 and below 100."""

    name = "PP"

    def convert(self, value: Any, param: Any, ctx: Any) -> float:
        import math

        try:
            number = float(str(value).strip()) if len(str(value)) <= 40 else math.nan
        except ValueError:
            number = math.nan
        if not 0 < number < 100:
            self.fail(f"expected percentage points above 0 and below 100, such as 2 or 0.5, "
                      f"got '{str(value)[:24]}'", param, ctx)
        return number


class GameIndex(click.ParamType):
    """A game index: a whole number 0 .. 2**63-1."""

    name = "N"

    def convert(self, value: Any, param: Any, ctx: Any) -> int:
        text = str(value).strip().replace("_", "")
        if not text.isdigit() or len(text) > 19 or int(text) >= 2**63:
            self.fail(f"must be a whole number 0 .. 2**63-1, got '{str(value)[:24]}'",
                      param, ctx)
        return int(text)


def checked_rules(ctx: click.Context, param: Any, value: Any) -> Any:
    """--rules FILE is read within the YAML limits (sim.core.yaml_lines) as soon as it is
    parsed, before the game and its libraries load: a hostile file costs nothing."""
    if value is not None:
        from sim.core.csvfile import read_text
        from sim.core.yaml_lines import compose

        compose(read_text(value, what="rules file", kind="YAML"), value)
    return value


class Seed(click.ParamType):
    """A seed: a whole number 0 .. 2**63-1 (``1_000`` allowed)."""

    name = "SEED"

    def convert(self, value: Any, param: Any, ctx: Any) -> int:
        from sim.core.inputs import parse_seed

        try:
            return parse_seed(value)
        except UserError as exc:
            self.fail(exc.message, param, ctx)


SEED = Seed()


MAX_LINE = 1000   # an error line never echoes a huge value whole


def _one_line(text: str) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= MAX_LINE else line[:MAX_LINE - 3] + "..."


def _fail(message: str, code: int = 2) -> None:
    click.echo(_one_line(message), err=True)
    sys.exit(code)


class SimulateGroup(click.Group):
    """Runs the command without click's standalone error handling so every user error is
    ONE line on stderr with exit code 2 (no traceback), and interruptions exit 130/143."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        from sim.core.output import is_no_space, write_failure
        from sim.runs.resumable import ResumeRequired, Stopped
        from sim.runs.runner import RunInterrupted

        global _RAW_ARGS
        _RAW_ARGS = list(sys.argv[1:] if args is None else args)
        _RESUME_ARGS.clear()
        try:
            rv = super().main(args, prog_name or "simulate", complete_var,
                              standalone_mode=False, **extra)
        except click.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            _fail(f"error: {exc.format_message()}{hint}", exc.exit_code)
        except click.ClickException as exc:
            _fail(f"error: {exc.format_message()}", exc.exit_code)
        except Stopped as exc:   # a long command: its finished work is kept
            text = exc.message(exc.continue_with or _resume_command(exc.out_option))
            _fail(text if text.startswith("error:") else f"simulate: {text}", exc.exit_code)
        except ResumeRequired as exc:
            _fail(exc.with_command(_resume_command(exc.out)), exc.exit_code)
        except UserError as exc:
            _fail(str(exc), exc.exit_code)
        except RunInterrupted as exc:
            _fail(f"simulate: {exc}", exc.exit_code)
        except click.Abort as exc:  # Ctrl-C outside a run (loading, compiling, summarizing)
            interrupted = isinstance(exc.__cause__, KeyboardInterrupt)
            _fail("simulate: interrupted" if interrupted else "simulate: aborted",
                  130 if interrupted else 1)
        except Exception as exc:  # a write that no command expected to fail: still one line
            # (after click.Abort, which is an Exception too)
            if not is_no_space(exc):
                raise
            _fail(str(write_failure(exc, "the output", getattr(exc, "filename", None))), 2)
        sys.exit(rv if isinstance(rv, int) else 0)


def _input_file_options(cards_help: str = "Card file (CSV).",
                        rule_help: str = "Set one rule option; repeatable; applied after "
                                         "--rules.") -> list:
    return [
        click.option("--cards", metavar="FILE", default=None, help=cards_help),
        click.option("--rules", metavar="FILE", default=None, callback=checked_rules,
                     help="YAML file of rule options."),
        click.option("--rule", metavar="KEY=VALUE", multiple=True, help=rule_help),
    ]


def input_files(**helps: str):
    """--cards, --rules and --rule for a command that plays on a designer's inputs
    (``helps``: ``cards_help``, ``rule_help`` for this command's wording)."""
    def add(func):
        for option in reversed(_input_file_options(**helps)):
            func = option(func)
        return func
    return add


def game_options(func=None, *, players_hidden: bool = False):
    """Options that choose and configure the game (shared by the run and ``trace``);
    ``players_hidden`` for a command that plays every player count: --players is left out
    of its help (the command refuses it with the reason)."""
    if func is None:
        return lambda f: game_options(f, players_hidden=players_hidden)
    options = [
        click.option("--game", default=DEFAULT_GAME, show_default=True,
                     help="Game to simulate."),
        click.option("--players", type=Count(1000), default=None, hidden=players_hidden,
                     help="Number of players (default: the game's usual count)."),
        *_input_file_options(cards_help="Card file (CSV) to use instead of the game's default "
                                        "(see 'simulate cards')."),
        click.option("--team-a", metavar="NAME[:k=v,...]", default=None,
                     help="Strategy of team A, with optional parameters."),
        click.option("--team-b", metavar="NAME[:k=v,...]", default=None,
                     help="Strategy of team B, with optional parameters."),
        click.option("--seat", metavar="N=NAME[:k=v,...]", multiple=True,
                     help="PLAI: strategy of seat N (0-based); repeatable, e.g. "
                          "--seat 0=bluffer:rate=0.3 --seat 2=cautious."),
        click.option("--strategy", metavar="NAME[:k=v,...]", default=None,
                     help="PLAI: strategy of every seat not given by --seat."),
        click.option("--debug", is_flag=True,
                     help="Check game invariants while playing (slower)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def chosen_strategies(opts: dict[str, Any]) -> dict[str, str] | None:
    """The strategies of --team-a/--team-b or --seat/--strategy, checked against the game's
    ``Game.strategy_kind`` ("teams" or "seats")."""
    from sim.core.game import resolve_game
    from sim.core.strategy import seat_number

    game = opts.get("game") or DEFAULT_GAME
    chosen = {team: opts[key] for team, key in (("A", "team_a"), ("B", "team_b")) if opts.get(key)}
    seats: dict[str, str] = {}
    for item in opts.get("seat") or ():
        key, eq, spec = (part.strip() for part in str(item).partition("="))
        seat = seat_number(key) if key.isdigit() else None
        if not eq or seat is None or not spec:
            raise UserError(f"expected N=NAME[:k=v,...] such as 0=bluffer:rate=0.3, got '{item}'",
                            field="--seat")
        if f"seat{seat}" in seats:
            raise UserError(f"seat {seat} is given twice", field="--seat")
        seats[f"seat{seat}"] = spec
    if opts.get("strategy"):
        seats["all"] = opts["strategy"]
    kind = resolve_game(game).strategy_kind if seats or chosen else None
    if seats and kind == "teams":
        raise UserError(f"--seat and --strategy choose seats; {game} has teams: use "
                        "--team-a/--team-b", field="--seat" if opts.get("seat") else "--strategy")
    if chosen and kind == "seats":
        raise UserError(f"--team-a/--team-b choose teams; {game} has seats: use "
                        "--seat N=SPEC (repeatable) or --strategy SPEC (every seat)",
                        field="--team-a" if opts.get("team_a") else "--team-b")
    if kind not in (None, "teams", "seats"):
        raise UserError(f"game '{game}' has strategy_kind '{kind}'; expected teams or seats",
                        field="--game")
    if seats and chosen:
        raise UserError("give teams (--team-a/--team-b) or seats (--seat/--strategy), not both",
                        field="--seat")
    return {**chosen, **seats} or None


def given(ctx: click.Context, name: str) -> bool:
    from click.core import ParameterSource

    return ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE,
                                             ParameterSource.ENVIRONMENT)


def inherit(ctx: click.Context, opts: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """Let ``simulate --players 3 trace ...`` mean ``simulate trace --players 3 ...``."""
    parent = ctx.parent
    merged = dict(opts)
    if parent is None:
        return merged
    for name in names:
        if name in parent.params and name in opts and given(parent, name) and not given(ctx, name):
            merged[name] = parent.params[name]
    return merged




def _backend_options(ctx: click.Context, opts: dict[str, Any]) -> dict[str, Any]:
    """Backend options, refusing the ones that belong to another backend."""
    backend = opts["backend"]
    allowed = {"local": (), "dask": ("scheduler", "write_parts"),
               "dask-local": ("workers", "write_parts")}[backend]
    allowed = tuple(name for name in allowed if name in opts)   # the flags this command has
    for name in _BACKEND_OPTIONS[1:]:
        if name in opts and name not in allowed and given(ctx, name):
            wants = "dask" if name == "scheduler" else "dask-local" if name == "workers" else \
                "dask or dask-local"
            raise click.UsageError(f"{flag(name)} belongs to --backend {wants}, not "
                                   f"--backend {backend}", ctx=ctx)
    if backend == "local":
        return {}
    return {**{name: opts[name] for name in allowed if opts[name] is not None},
            "announce": opts.get("progress", True)}


def backend_flags(func):
    """--backend/--scheduler/--workers for a command that plays games (the same flags and
    the same numbers on every backend; ``execution_of`` reads them)."""
    options = [
        click.option("--backend", type=click.Choice(["local", "dask", "dask-local"]),
                     default="local", show_default=True,
                     help="Where the games play: this process; an existing Dask cluster "
                          "(--scheduler); or a Dask LocalCluster on 127.0.0.1 (--workers). "
                          "Same numbers on every one."),
        click.option("--scheduler", metavar="ADDRESS", default=None,
                     help="Dask scheduler for --backend dask, e.g. tcp://HOST:8786."),
        click.option("--workers", type=Count(1024), default=None,
                     help="Worker processes for --backend dask-local (default: one per CPU)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def study_flags(func):
    """--threads, the backend flags and --progress for a long command that plays games
    (tune, distill)."""
    func = click.option("--progress/--no-progress", default=True, show_default=True,
                        help="Progress bar on stderr (only when stderr is a terminal).")(func)
    func = backend_flags(func)
    return click.option("--threads", type=Count(4096), default=None,
                        help="Threads (default: every CPU this process may use).")(func)


def game_request(opts: dict[str, Any], **changes: Any):
    """The GameRequest of the game options (``game_options``) in ``opts``."""
    from sim.core.request import GameRequest

    request = GameRequest(game=opts.get("game") or DEFAULT_GAME, players=opts.get("players"),
                          cards=opts.get("cards"), rules_file=opts.get("rules"),
                          rule_overrides=tuple(opts.get("rule") or ()),
                          strategies=chosen_strategies(opts), debug=bool(opts.get("debug")))
    return request.replace(**changes) if changes else request


def execution_of(ctx: click.Context, opts: dict[str, Any], **fields: Any):
    """The Execution of a command's options: games, seed, threads, chunk size, progress,
    out, --until-ci and the backend flags (those the command has), plus ``fields``."""
    from sim.core.request import EXECUTION_FIELDS, Execution

    values = {name: opts[name] for name in EXECUTION_FIELDS if name in opts}
    if "backend" in opts:
        values["backend_options"] = _backend_options(ctx, opts) or None
    values["command_line"] = command_line()
    values.update(fields)
    return Execution(**values)



def games_line(games: int, wall: float, rate: float | None, compile_seconds: float) -> str:
    """How long the games took, and their speed (``rate``; None: not shown); a one-time
    compile inside the command is named and left out of the speed."""
    if not 0 < compile_seconds < wall:
        return f"{games:,} games in {wall:.2f} s" + (
            f" ({rate:,.0f} games/s)" if rate is not None else "")
    line = (f"{games:,} games in {wall:.2f} s ({compile_seconds:.1f} s of it compiling the "
            f"kernels, once")
    if rate is None:
        return line + ")"
    return line + f"; {games / (wall - compile_seconds):,.0f} games/s without it)"


def say_search_budget(what: str, seconds: float | None, games: int | None,
                      per: str = "", counts: int = 1, each: str = "run") -> None:
    """Say on stderr, before it starts, what a command's stronger-play check will play:
    minutes of search games that nothing else on the screen announces (``counts``: the
    player counts a budget ``per`` player count is spent on, when known)."""
    from reports.stronger import default_seconds

    budget = default_seconds() if seconds is None else seconds
    if games:
        amount = f"the lowest {games:,} game indices of each {each}, played by search"
    elif budget:
        amount = f"about {budget:g} s of search games{per}"
        if counts > 1:
            total = counts * budget
            amount += f", {counts} player counts: about " + (
                f"{total / 60:.0f} min" if total >= 120 else f"{total:g} s")
    else:
        return
    click.echo(f"{what} under stronger play: {amount} (--stronger-play 0 turns it off)",
               err=True)
