"""The ``simulate`` command line. It only parses options and calls ``sim.api``.

Imports stay light at module level (click and the standard library) so ``simulate --help``
never loads numba, polars or a game kernel.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from sim import __version__
from sim.core.errors import UserError
from sim.core.catalog import DEFAULT_GAME

_GAME_OPTIONS = ("game", "players", "cards", "rules", "rule", "team_a", "team_b", "seat",
                 "strategy", "debug")
_RUN_ONLY_OPTIONS = ("games", "out", "threads", "chunk_size", "as_json", "resume_dir",
                     "with_report", "until_ci")
_BACKEND_OPTIONS = ("backend", "scheduler", "workers", "write_parts")  # where games play
_RUN_ONLY_OPTIONS += _BACKEND_OPTIONS
_RESUME_CONFLICTS = ("game", "players", "games", "seed", "cards", "rules", "rule", "team_a",
                     "team_b", "seat", "strategy", "out", "chunk_size", "debug", "until_ci")


_RAW_ARGS: list[str] = []  # the arguments of the current invocation, for the manifest


def _command_line(*, drop_resume: bool = False) -> str:
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
    return shlex.join(["simulate", *args, "--resume"])


def _flag(name: str) -> str:
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


def _checked_rules(ctx: click.Context, param: Any, value: Any) -> Any:
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


class _Main(click.Group):
    """Runs the command without click's standalone error handling so every user error is
    ONE line on stderr with exit code 2 (no traceback), and interruptions exit 130/143."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        from sim.core.output import is_no_space, write_failure
        from sim.runs.resumable import ResumeRequired, Stopped
        from sim.runs.runner import RunInterrupted

        global _RAW_ARGS
        _RAW_ARGS = list(sys.argv[1:] if args is None else args)
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
        except Exception as exc:  # a write that no command expected to fail: still one line
            if not is_no_space(exc):
                raise
            _fail(str(write_failure(exc, "the output", getattr(exc, "filename", None))), 2)
        except click.Abort as exc:  # Ctrl-C outside a run (loading, compiling, summarizing)
            interrupted = isinstance(exc.__cause__, KeyboardInterrupt)
            _fail("simulate: interrupted" if interrupted else "simulate: aborted",
                  130 if interrupted else 1)
        sys.exit(rv if isinstance(rv, int) else 0)


def game_options(func):
    """Options that choose and configure the game (shared by the run and ``trace``)."""
    options = [
        click.option("--game", default=DEFAULT_GAME, show_default=True,
                     help="Game to simulate."),
        click.option("--players", type=Count(1000), default=None,
                     help="Number of players (default: the game's usual count)."),
        click.option("--cards", metavar="FILE", default=None,
                     help="Card file (CSV) to use instead of the game's default "
                          "(see 'simulate cards')."),
        click.option("--rules", metavar="FILE", default=None, callback=_checked_rules,
                     help="YAML file of rule options."),
        click.option("--rule", metavar="KEY=VALUE", multiple=True,
                     help="Set one rule option; repeatable; applied after --rules."),
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


def _strategies(opts: dict[str, Any]) -> dict[str, str] | None:
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


def _given(ctx: click.Context, name: str) -> bool:
    from click.core import ParameterSource

    return ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE,
                                             ParameterSource.ENVIRONMENT)


def _inherit(ctx: click.Context, opts: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    """Let ``simulate --players 3 trace ...`` mean ``simulate trace --players 3 ...``."""
    parent = ctx.parent
    merged = dict(opts)
    if parent is None:
        return merged
    for name in names:
        if name in parent.params and name in opts and _given(parent, name) and not _given(ctx, name):
            merged[name] = parent.params[name]
    return merged


@click.group(cls=_Main, invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@game_options
@click.option("--games", type=Count(), default="1000", show_default=True,
              help="How many games to play: 1000000, 1_000_000 or 1e6.")
@click.option("--seed", type=SEED, default=1, show_default=True,
              help="Random seed; game i of seed s is the same in every run.")
@click.option("--out", metavar="DIR", default=None,
              help="New run directory (default: runs/<game>-<players>p-seed<seed>-<time>).")
@click.option("--threads", type=Count(4096), default=None,
              help="Worker threads (default: every CPU this process may use).")
@click.option("--chunk-size", type=Count(), default=None,
              help="Games per chunk/Parquet part (default 100,000; less for small runs).")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON object with the headline numbers on stdout.")
@click.option("--resume", "resume_dir", metavar="RUN_DIR", default=None,
              help="Finish an interrupted run (settings come from its manifest).")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress bar on stderr (only when stderr is a terminal).")
@click.option("--report", "with_report", is_flag=True,
              help="Also write the balance report into RUN_DIR/report/.")
@click.option("--until-ci", "until_ci", metavar="W", default=None,
              help="Stop once every headline interval (team win rates, all-lose rate; PLAI: "
                   "seat and maintainers' win rates) is "
                   "narrower than W percentage points, checked after each chunk with a "
                   "Bonferroni correction over the looks; --games is then the maximum "
                   "(default 1e7). Example: --until-ci 1")
@click.option("--backend", type=click.Choice(["local", "dask", "dask-local"]), default="local",
              show_default=True,
              help="Where chunks play: this process; an existing Dask cluster (--scheduler); "
                   "or a Dask LocalCluster on 127.0.0.1 (--workers). Same table on every one.")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="Dask scheduler for --backend dask, e.g. tcp://HOST:8786.")
@click.option("--workers", type=Count(1024), default=None,
              help="Worker processes for --backend dask-local (default: one per CPU).")
@click.option("--write-parts", type=click.Choice(["auto", "worker", "client"]), default="auto",
              show_default=True,
              help="Dask: who writes the Parquet parts: worker (shared run directory), client "
                   "(parts come back over the network), auto (workers that see RUN_DIR write).")
@click.version_option(version=__version__, prog_name="simulate",
                      message="%(prog)s %(version)s")
@click.pass_context
def main(ctx: click.Context, **opts: Any) -> None:
    """Monte Carlo balance simulator for tabletop card games.

    Without a sub-command, plays --games games of --game and prints a summary. Every game
    is written to a run directory (manifest.json + games/part-*.parquet); an interrupted
    run (Ctrl-C) keeps its finished chunks and continues with --resume.

    \b
    Examples:
      simulate --games 1e6
      simulate --games 1e6 --players 3 --seed 7 --json
      simulate --games 5e5 --team-a builder:threshold=12 --rule hand_size=6
      simulate --game plai --players 3 --games 1e6 --seat 0=bluffer:rate=0.3
      simulate --resume runs/peer-to-peer-4p-seed1-20250101-120000
      simulate --games 1e8 --backend dask --scheduler tcp://10.0.0.5:8786
      simulate trace --seed 1 --game-index 42
      simulate cards --game peer-to-peer > my_cards.csv
    """
    if ctx.invoked_subcommand is not None:
        for name in _RUN_ONLY_OPTIONS:
            if _given(ctx, name):
                raise click.UsageError(f"{_flag(name)} belongs to a simulation run, not to "
                                       f"'{ctx.invoked_subcommand}'", ctx=ctx)
        return
    _run(ctx, opts)


def _backend_options(ctx: click.Context, opts: dict[str, Any]) -> dict[str, Any]:
    """Backend options, refusing the ones that belong to another backend."""
    backend = opts["backend"]
    allowed = {"local": (), "dask": ("scheduler", "write_parts"),
               "dask-local": ("workers", "write_parts")}[backend]
    allowed = tuple(name for name in allowed if name in opts)   # the flags this command has
    for name in _BACKEND_OPTIONS[1:]:
        if name in opts and name not in allowed and _given(ctx, name):
            wants = "dask" if name == "scheduler" else "dask-local" if name == "workers" else \
                "dask or dask-local"
            raise click.UsageError(f"{_flag(name)} belongs to --backend {wants}, not "
                                   f"--backend {backend}", ctx=ctx)
    if backend == "local":
        return {}
    return {**{name: opts[name] for name in allowed if opts[name] is not None},
            "announce": opts.get("progress", True)}


def backend_flags(func):
    """--backend/--scheduler/--workers for a command that plays games (the same flags and
    the same numbers on every backend; ``_execution`` reads them)."""
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


def _game_request(opts: dict[str, Any], **changes: Any):
    """The GameRequest of the game options (``game_options``) in ``opts``."""
    from sim.core.request import GameRequest

    request = GameRequest(game=opts.get("game") or DEFAULT_GAME, players=opts.get("players"),
                          cards=opts.get("cards"), rules_file=opts.get("rules"),
                          rule_overrides=tuple(opts.get("rule") or ()),
                          strategies=_strategies(opts), debug=bool(opts.get("debug")))
    return request.replace(**changes) if changes else request


def _execution(ctx: click.Context, opts: dict[str, Any], **fields: Any):
    """The Execution of a command's options: games, seed, threads, chunk size, progress,
    out, --until-ci and the backend flags (those the command has), plus ``fields``."""
    from sim.core.request import EXECUTION_FIELDS, Execution

    values = {name: opts[name] for name in EXECUTION_FIELDS if name in opts}
    if "backend" in opts:
        values["backend_options"] = _backend_options(ctx, opts) or None
    values["command_line"] = _command_line()
    values.update(fields)
    return Execution(**values)


def _run(ctx: click.Context, opts: dict[str, Any]) -> None:
    from sim import api
    from sim.core import compile_cache

    compiled_before = compile_cache.compile_seconds()
    _until_ci_games(ctx, opts)
    execution = _execution(ctx, opts)
    if opts["resume_dir"] is not None:
        clashes = [_flag(name) for name in _RESUME_CONFLICTS if _given(ctx, name)]
        if clashes:
            raise click.UsageError(f"--resume continues a run with the settings in its manifest; "
                                   f"drop {', '.join(clashes)}", ctx=ctx)
        result = api.resume(opts["resume_dir"], execution)
    else:
        result = api.run(_game_request(opts), execution)
    # a cold cache compiled the kernels inside the run (in this process): keep it apart
    compiled = compile_cache.compile_seconds() - compiled_before
    api.explain(result)   # a balance edge: its main cause, from replays of the first games
    manifest = result.manifest
    if opts["as_json"]:
        payload: dict[str, Any] = {
            "game": manifest["game"], "players": manifest["players"],
            "games": manifest["games"], "seed": manifest["seed"],
            "wall_seconds": round(result.wall_seconds, 6),
            "games_per_second": round(result.games_per_second, 3),
            "run_dir": str(result.run_dir),
        }
        for key, value in result.summary.items():
            payload.setdefault(key, value)
        if opts["with_report"]:
            payload["report"] = str(_run_report(result.run_dir, opts)["html"])
        click.echo(json.dumps(payload))
        return
    click.echo(result.config.format_summary(result.summary))
    if "until_ci" in result.summary:
        from sim.studies.sequential import describe

        click.echo(describe(result.summary["until_ci"]))
    click.echo(f"run dir: {result.run_dir}")
    click.echo(_games_line(manifest["games"], result.wall_seconds, result.games_per_second,
                           compiled))
    if opts["with_report"]:
        written = _run_report(result.run_dir, opts)
        click.echo(f"report: {written['html']}")


def _games_line(games: int, wall: float, rate: float | None, compile_seconds: float) -> str:
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


def _run_report(run_dir: Any, opts: dict[str, Any]) -> dict[str, Any]:
    """A run's --report in RUN_DIR/report (continued when the run was: ``--resume``).
    Stopped, it is continued by 'simulate report', the run being finished."""
    import os
    import shlex

    from sim import api
    from sim.runs.resumable import Stopped

    out = os.path.join(os.fspath(run_dir), "report")
    try:
        return api.report([run_dir], out, resume=opts["resume_dir"] is not None)
    except Stopped as exc:
        exc.continue_with = shlex.join(["simulate", "report", os.fspath(run_dir), "--out",
                                        out, "--resume"])
        raise


@main.command()
@click.option("--seed", type=SEED, default=1, show_default=True, help="Seed of the run.")
@click.option("--game-index", type=GameIndex(), required=True,
              help="Which game of that seed to replay (0-based).")
@game_options
@click.option("--html", "html_file", metavar="FILE", default=None,
              help="Write the game viewer instead: one self-contained HTML page that steps "
                   "through the game with the table, every decision's options and scores.")
@click.option("--compare-cards", metavar="FILE", default=None,
              help="Replay the same game with this card file too and show both side by "
                   "side from their first difference (with --html; else say where they "
                   "first differ).")
@click.option("--compare-rules", metavar="FILE", default=None, callback=_checked_rules,
              help="The same with this rules file (YAML) for the edited game; may be "
                   "combined with --compare-cards.")
@click.pass_context
def trace(ctx: click.Context, **opts: Any) -> None:
    """Replay one game and describe it round by round (PLAI: turn by turn).

    Game i of seed s is the same game in every run, whatever the chunking or thread count,
    so any row of a run's games table can be replayed here. With --compare-cards or
    --compare-rules the same game is replayed under the edit: common random numbers make
    the two games identical until the edit changes something.

    \b
    Examples:
      simulate trace --seed 1 --game-index 42
      simulate trace --seed 7 --game-index 0 --players 3 --team-a builder
      simulate trace --game plai --players 2 --game-index 5 --strategy aggressive
      simulate trace --seed 1 --game-index 42 --html game42.html
      simulate trace --seed 1 --game-index 42 --compare-cards edited.csv --html diff.html
    """
    from sim import api

    opts = _inherit(ctx, opts, _GAME_OPTIONS + ("seed",))
    request = _game_request(opts)
    where = {"seed": opts["seed"], "game_index": opts["game_index"]}
    edit = {key: opts[name] for key, name in (("cards", "compare_cards"),
                                              ("rules_file", "compare_rules")) if opts[name]}
    if opts["html_file"]:
        from sim.core.output import writing

        page = api.viewer(request, compare=edit or None, **where)
        with writing("the viewer page", opts["html_file"], field="--html"):
            Path(opts["html_file"]).write_text(page, encoding="utf-8")
        click.echo(f"viewer: {opts['html_file']}")
    if edit:
        found = api.compare_games(request, compare=edit, **where)
        click.echo("the two games are the same, step for step" if found is None else
                   f"first difference, {found.where}: the baseline's '{found.base_text}', "
                   f"the edited game's '{found.edit_text}'")
    elif not opts["html_file"]:
        click.echo(api.trace(request, **where))


@main.command(short_help="Print the game's default card file (CSV).")
@click.option("--game", default=DEFAULT_GAME, show_default=True, help="Which game's cards.")
@click.pass_context
def cards(ctx: click.Context, game: str) -> None:
    """Print the game's default card file (CSV), a starting point for --cards.

    \b
    Example:
      simulate cards --game peer-to-peer > my_cards.csv
      simulate --cards my_cards.csv --games 1e5
      simulate cards --game plai > plai_cards.csv
    """
    from sim import api

    game = _inherit(ctx, {"game": game}, ("game",))["game"]
    click.echo(api.default_cards(game), nl=False)


def answer_options(func):
    """How a report explains and checks its answers (reports.attribution, reports.stronger)."""
    for option in reversed([
        click.option("--replay-games", type=click.IntRange(min=0), default=None, metavar="N",
                     help="Games each swap replays to explain an edge (default: the runs' "
                          "own time in all; 0: no replays)."),
        click.option("--stronger-play", type=click.FloatRange(min=0), default=None,
                     metavar="SECONDS",
                     help="Seconds per player count for checking every answer with search "
                          "on every side (default 300, or $CARDSIM_STRONGER_PLAY; 0: off)."),
        click.option("--stronger-play-games", type=Count(), default=None,
                     help="Check under stronger play on this many games per run instead of "
                          "a time budget."),
    ]):
        func = option(func)
    return func


def _print_report(written: dict[str, Any], shown: int = 8) -> None:
    called = [f["text"] for f in written.get("findings", []) if f.get("level") == "imbalance"]
    click.echo(f"{len(called)} imbalance(s) called at ±{written.get('threshold_pp', 2):g} pp"
               + (":" if called else "."))
    for text in called[:shown]:
        click.echo(f"- {text}")
    if len(called) > shown:
        click.echo(f"- ... and {len(called) - shown} more in the report")
    if written.get("strategies"):
        click.echo(f"strategies: {'; '.join(written['strategies'])}")
    click.echo(f"report: {written['html']}")
    click.echo(f"markdown: {written['markdown']}")
    if written.get("answers_json"):
        click.echo(f"answers: {written['answers_json']}")


@main.command(short_help="Write the balance report for one or more runs.")
@click.argument("run_dirs", nargs=-1, required=True, metavar="RUN_DIR...")
@click.option("--out", metavar="DIR", required=True, help="Directory for report.html, "
              "report.md and the CSV tables.")
@click.option("--threshold", type=Threshold(), default=2.0, show_default=True,
              help="Imbalance threshold in percentage points: an imbalance is called only "
                   "when its 95 % interval lies wholly beyond it.")
@click.option("--allow-mixed", is_flag=True,
              help="Merge runs with different card files or rule options (the report says so).")
@click.option("--ablation", metavar="DIR", default=None,
              help="Add the card ablation of 'simulate ablate' (its --out directory).")
@click.option("--skill", metavar="DIR", default=None,
              help="Add 'How much does skill matter' from a 'simulate skill' run (its --out directory).")
@answer_options
@click.option("--resume", is_flag=True,
              help="Continue the report that was stopped (Ctrl-C, SIGTERM, a full disk) in "
                   "--out: its finished replays and stronger-play games are kept; give the "
                   "same runs and options.")
def report(run_dirs: tuple[str, ...], out: str, threshold: float, allow_mixed: bool,
           ablation: str | None, skill: str | None, replay_games: int | None,
           stronger_play: float | None, stronger_play_games: int | None,
           resume: bool) -> None:
    """Write report.html (self-contained), report.md and CSV tables for RUN_DIRs.

    \b
    Examples:
      simulate report runs/peer-to-peer-3p-seed1-* --out reports/3p
      simulate report runs/a runs/b --out out --threshold 1 --allow-mixed
      simulate report runs/3p runs/5p --out out --ablation runs/ablation-3p
      simulate report runs/plai-3p --out out --skill runs/skill-plai
      simulate report runs/plai-3p --out out --resume     (after Ctrl-C)

    The counterfactual replays and stronger-play games are kept as they finish
    (OUT/resume.jsonl, removed once the report is written): a stopped report continued
    with --resume plays only what is missing and ends with the same answers (under a
    --stronger-play time budget, the search plays on for the time left).
    """
    from sim import api

    extra = {k: v for k, v in (("ablation", ablation), ("skill", skill)) if v} or None
    _print_report(api.report(list(run_dirs), out, threshold_pp=threshold,
                             allow_mixed=allow_mixed, extra=extra, replay_games=replay_games,
                             stronger_play=stronger_play,
                             stronger_play_games=stronger_play_games, resume=resume))


@main.command(short_help="What an edit changed: two runs of the same seed, game by game.")
@click.argument("base_run", metavar="BASE_RUN")
@click.argument("edit_run", metavar="EDIT_RUN")
@click.option("--json", "as_json", is_flag=True,
              help="Print everything as JSON, with every changed game's index.")
@click.option("--shown", type=Count(10_000), default=8, show_default=True,
              help="Game indices listed per kind of change in the text.")
def compare(base_run: str, edit_run: str, as_json: bool, shown: int) -> None:
    """Compare two runs of the same game, player count and seed game by game: what differs
    between their configurations, every headline's paired difference with its 95 %
    interval, and the games whose outcome changed, grouped by how they changed, with their
    game indices (replay any with 'simulate trace'). Runs of different sizes are compared
    on the games both hold; runs that are not paired are refused.

    \b
    Examples:
      simulate --players 3 --games 1e5 --seed 7 --out runs/base
      simulate --players 3 --games 1e5 --seed 7 --cards mine.csv --out runs/edit
      simulate compare runs/base runs/edit
      simulate compare runs/base runs/edit --json > changed.json
    """
    from sim import api

    result = api.compare(base_run, edit_run)
    if as_json:
        click.echo(json.dumps(result.to_dict(), allow_nan=False))
    else:
        click.echo(result.to_text(shown=shown))


@main.command(short_help="Card ablation: what each card is worth, on common random numbers.")
@click.option("--games", type=Count(), default="1e4", show_default=True,
              help="Games per configuration (the baseline and every card change).")
@click.option("--seed", type=SEED, default=1, show_default=True, help="Random seed.")
@click.option("--card", "only", metavar="REF", multiple=True,
              help="Ablate only this card (id or name); repeatable. Default: every card.")
@click.option("--change", "changes", multiple=True,
              type=click.Choice(["value-1", "value+1", "no_effect"]),
              help="Which changes to play; repeatable. Default: all three.")
@click.option("--out", metavar="DIR", default=None,
              help="Output directory (default runs/ablation-<game>-<time>).")
@click.option("--threads", type=Count(4096), default=None, help="Worker threads.")
@click.option("--threshold", type=Threshold(), default=2.0, show_default=True,
              help="A card is called when its effect differs from the typical card's by "
                   "more than this many percentage points (Holm-controlled).")
@click.option("--backend", "ablate_backend", type=click.Choice(["local", "dask", "dask-local"]),
              default="local", show_default=True, help="Where the games are played.")
@click.option("--scheduler", "ablate_scheduler", metavar="ADDRESS", default=None,
              help="--backend dask: the scheduler address, e.g. tcp://10.0.0.5:8786.")
@click.option("--workers", "ablate_workers", type=Count(1024), default=None,
              help="--backend dask-local: number of local workers.")
@click.option("--progress/--no-progress", default=False, show_default=True,
              help="Progress bar on stderr.")
@click.option("--resume", is_flag=True,
              help="Continue the ablation that was stopped (Ctrl-C, SIGTERM, a full disk) in "
                   "--out; give the same options.")
@game_options
def ablate(**opts: Any) -> None:
    """Replay the same seed and games with each card's value -1 and +1 and its effect
    removed; print and write (ablation.csv) the paired change of every outcome rate with
    its 95 % interval. Add it to a report with 'simulate report ... --ablation DIR'.

    \b
    Examples:
      simulate ablate --players 3 --games 2e4 --out runs/ablation-3p
      simulate ablate --card TE12 --card "Service 10" --games 1e5
      simulate ablate --game plai --players 4 --change no_effect --backend dask-local
      simulate ablate --players 3 --games 2e4 --out runs/ablation-3p --resume  (after Ctrl-C)
    """
    from sim import api

    options: dict[str, Any] = {}
    if opts["ablate_scheduler"]:
        options["scheduler"] = opts["ablate_scheduler"]
    if opts["ablate_workers"]:
        options["workers"] = opts["ablate_workers"]
    result = api.ablate(
        game=opts["game"], players=opts["players"], games=opts["games"], seed=opts["seed"],
        cards=opts["cards"], rules_file=opts["rules"], rule_overrides=tuple(opts["rule"]),
        strategies=_strategies(opts), only=tuple(opts["only"]),
        changes=tuple(opts["changes"]) or None, out=opts["out"], threads=opts["threads"],
        threshold_pp=opts["threshold"], backend=opts["ablate_backend"],
        backend_options=options or None, progress=opts["progress"], resume=opts["resume"])
    click.echo(result.to_text())


@main.command("balance-report", short_help="Run every player count, then write the report.")
@click.option("--games", type=Count(), default="1e6", show_default=True,
              help="Games per player count (and per compensation mode at 3 and 5 players).")
@click.option("--seed", type=SEED, default=1, show_default=True, help="Random seed.")
@click.option("--out", metavar="DIR", default=None,
              help="Output directory (default runs/balance-<game>-seed<seed>-<time>).")
@click.option("--threads", type=Count(4096), default=None, help="Worker threads.")
@click.option("--threshold", type=Threshold(), default=2.0, show_default=True,
              help="Imbalance threshold in percentage points.")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress bar on stderr.")
@answer_options
@click.option("--resume", is_flag=True,
              help="Continue the one that was stopped (Ctrl-C, SIGTERM, a full disk) in --out; "
                   "give the same options.")
@backend_flags
@game_options
@click.pass_context
def balance_report(ctx: click.Context, **opts: Any) -> None:
    """The designer's one-shot: every player count (1-6 for Peer-to-Peer, with all three
    odd_team_compensation modes at 3 and 5 players), then report.html in --out.

    \b
    Examples:
      simulate balance-report --games 1e6
      simulate balance-report --games 2e5 --cards my_cards.csv --out balance/
      simulate balance-report --games 1e5 --team-a cautious --team-b cautious
      simulate balance-report --games 1e6 --backend dask --scheduler tcp://HOST:8786
    """
    from sim import api

    if opts["players"] is not None:
        raise click.UsageError("balance-report plays every player count; drop --players")
    written = api.balance_report(_game_request(opts), _execution(ctx, opts),
                                 threshold_pp=opts["threshold"], resume=opts["resume"],
                                 replay_games=opts["replay_games"],
                                 stronger_play=opts["stronger_play"],
                                 stronger_play_games=opts["stronger_play_games"])
    _print_report(written)


@main.command(short_help="List the registered strategies and their parameters.")
@click.option("--game", default=DEFAULT_GAME, show_default=True, help="Whose strategies.")
@click.pass_context
def strategies(ctx: click.Context, game: str) -> None:
    """List every registered strategy: name, summary, parameters with their defaults.

    A strategy is one file, strategies/<game>/<name>.py; set parameters with NAME:k=v.

    \b
    Examples:
      simulate strategies
      simulate --team-a builder:threshold=12 --team-b cautious:urgency=5
    """
    from sim import api

    game = _inherit(ctx, {"game": game}, ("game",))["game"]
    found = api.strategies(game)
    if not found:
        click.echo(f"{game} has no registered strategies")
    for item in found:
        params = ", ".join(f"{k}={v:g}" if isinstance(v, (int, float)) else f"{k}={v}"
                           for k, v in item["params"].items()) or "(no parameters)"
        click.echo(f"{item['name']:<10} {item['summary']}\n{'':<10} parameters: {params}"
                   f"\n{'':<10} file: {item['module']}")


@main.command(short_help="Play every ordered pair of strategies; win-rate matrix.")
@click.option("--game", default=DEFAULT_GAME, show_default=True,
              help="Game; its matchup scheme decides the matchups (Peer-to-Peer: ordered pairs of "
                   "teams; PLAI: every strategy in every seat).")
@click.option("--strategies", "specs", required=True, metavar="NAME[:k=v],...",
              help="Comma-separated strategies, e.g. random,greedy,builder (one alone plays itself).")
@click.option("--players", type=Count(1000), default=4, show_default=True,
              help="Number of players (2-6; PLAI 2-5).")
@click.option("--games", type=Count(), default="10000", show_default=True,
              help="Games per ordered pair (half with each team holding the first marker); "
                   "PLAI: per cell, split evenly over the seats.")
@click.option("--seed", type=SEED, default=1, show_default=True, help="Random seed.")
@click.option("--out", metavar="DIR", default=None,
              help="New run directory (default: runs/matchups-<game>-<players>p-seed<seed>-<time>).")
@click.option("--threads", type=Count(4096), default=None,
              help="Worker threads (default: every CPU this process may use).")
@click.option("--cards", metavar="FILE", default=None, help="Card file (CSV).")
@click.option("--rules", metavar="FILE", default=None, callback=_checked_rules, help="YAML file of rule options.")
@click.option("--rule", metavar="KEY=VALUE", multiple=True,
              help="Set one rule option; repeatable (not first_marker: matchups balance it).")
@click.option("--debug", is_flag=True, help="Check game invariants while playing (slower).")
@backend_flags
@click.pass_context
def matchups(ctx: click.Context, **opts: Any) -> None:
    """Play every ordered pair of strategies and print a win-rate matrix with 95 % intervals.

    Cell (row, column) = the row strategy's wins / (wins + losses) over games with a
    winner (games where everyone loses to unhappy customers do not count), pooled over
    both seatings; half of each pair's games start with the marker on each team. Writes
    matrix.csv, pairs.csv, matrix.txt and manifest.json into the run directory.

    PLAI (--game plai): cell (row, column) = the row strategy's win rate over all games
    with it in one seat and the column strategy in every other seat; it takes each seat in
    turn, so the first player's advantage is balanced. The 'field' column puts the other
    strategies in the other seats.

    \b
    Examples:
      simulate matchups --strategies random,greedy,builder,cautious --players 4 --games 2e5
      simulate matchups --game plai --strategies weighted,aggressive,cautious --players 3
      simulate matchups --strategies greedy,builder --games 1e6 --backend dask-local --workers 2
    """
    from sim import api
    from sim.core import compile_cache

    opts = _inherit(ctx, opts, ("game", "players", "cards", "rules", "rule", "debug"))
    compiled_before = compile_cache.compile_seconds()
    result = api.matchups(opts["specs"], _game_request(opts), _execution(ctx, opts))
    click.echo(result.table())
    click.echo(f"run dir: {result.run_dir}")
    click.echo(_games_line(sum(p["games"] for p in result.pairs), result.wall_seconds, None,
                           compile_cache.compile_seconds() - compiled_before))


# ---------------------------------------------------------------- tune
@main.command(short_help="Tune a strategy's weights by self-play; write a strategy file.")
@click.option("--game", default="peer-to-peer", show_default=True, help="Game to tune for.")
@click.option("--players", type=Count(1000), default=None,
              help="Number of players (default: the game's usual count).")
@click.option("--cards", metavar="FILE", default=None, help="Card file (CSV) to tune on.")
@click.option("--rules", metavar="FILE", default=None, callback=_checked_rules, help="YAML file of rule options.")
@click.option("--rule", metavar="KEY=VALUE", multiple=True,
              help="Set one rule option; repeatable; applied after --rules.")
@click.option("--base", metavar="SPEC", default="weighted", show_default=True,
              help="Strategy to start from: a name[:k=v,...] or @FILE.")
@click.option("--budget", type=Count(), default=None,
              help="Games the search may play (default: the game's; Peer-to-Peer 1.4e7, "
                   "PLAI 1.2e7); the final and the re-check play --check-games more per "
                   "opponent.")
@click.option("--seed", type=SEED, default=1, show_default=True,
              help="Random seed: the same seed gives the same weights.")
@click.option("--out", metavar="FILE.yaml", required=True,
              help="Strategy file to write (a convergence plot FILE.png goes next to it).")
@click.option("--games-per-eval", type=Count(), default=None,
              help="Games per candidate per generation, spread over the field (default 1000).")
@click.option("--check-games", type=Count(), default=None,
              help="Games per opponent in the final re-check (default 20000).")
@click.option("--against", metavar="SPEC[,SPEC...]", default=None,
              help="Instead of self-play: the weights whose worst share of the decided games "
                   "against these strategies is highest (every seat).")
@click.option("--threads", type=Count(4096), default=None,
              help="Threads (default: every CPU this process may use).")
@backend_flags
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress bar on stderr (only when stderr is a terminal).")
@click.option("--resume", is_flag=True,
              help="Continue the tune that was stopped (Ctrl-C, SIGTERM, a full disk) writing "
                   "--out, from its journal beside it; give the same options.")
@click.pass_context
def tune(ctx: click.Context, **opts: Any) -> None:
    """Find the weights of a parametric strategy that win most, by self-play (CMA-ES).

    Every weight of the game's feature vector is searched (Peer-to-Peer: both phases and
    the phase switch). Each candidate plays the current champion, a hall of fame of earlier
    champions and the shipped strategies, in every seat, on the same games as the rest of
    its generation; the score is its own win rate over all games. At the end the last
    champions and the search mean play each other on fresh seeds and the best of them is
    re-checked on other fresh seeds against every shipped strategy and the previous
    champion before the file is written. Use the file anywhere a strategy goes: --team-a @FILE,
    --seat 0=@FILE, experiments.yaml, matchups.

    \b
    Examples:
      simulate tune --game peer-to-peer --players 4 --out expert-4p.yaml
      simulate tune --players 3 --cards my_cards.csv --budget 1e7 --out mine-3p.yaml
      simulate --team-a @expert-4p.yaml --team-b greedy --games 1e5
      simulate tune --players 4 --out expert-4p.yaml --backend dask-local --workers 2
      simulate tune --players 4 --out expert-4p.yaml --resume     (after Ctrl-C)

    With --against the field is those strategies alone and the score a candidate's worst
    share of the decided games against any of them, so the result holds against all of
    them at once (where strength goes in a cycle, self-play lands on one side of it):

    \b
      simulate tune --game plai --players 2 --base expert-v1 \\
          --against expert-v1,bluffer,weighted,aggressive,random --out plai-2p.yaml

    Every generation is kept as it finishes (FILE.resume.jsonl beside FILE.yaml, removed at
    the end): Ctrl-C, SIGTERM or a full disk keep the finished work, and the same command
    with --resume continues it to the same weights an uninterrupted tune finds.
    """
    from sim import api

    result = api.tune(_game_request(opts),
                      _execution(ctx, opts, command_line=_command_line(drop_resume=True)),
                      budget=opts["budget"], base=opts["base"],
                      games_per_eval=opts["games_per_eval"], check_games=opts["check_games"],
                      resume=opts["resume"], against=opts["against"])
    click.echo(result.report())


# ---------------------------------------------------------------- distill
@main.command(short_help="Learn a strategy from the search player; write a strategy file.")
@click.option("--game", default="peer-to-peer", show_default=True, help="Game to learn for.")
@click.option("--players", metavar="N[,N...]", default=None,
              help="Player count, or several (2,4,6: each iteration's games shared among "
                   "them, or with --per-count one distillation each; default: the game's "
                   "usual count).")
@click.option("--per-count", is_flag=True,
              help="With several --players counts: distil each count on its own and write "
                   "one file with each count's weights (by_players). With --resume a "
                   "count's FILE.<P>p.yaml that another command made (a tune, say) is "
                   "checked as a distilled result is, then kept or replaced by the base's "
                   "weights by the same rule.")
@click.option("--cards", metavar="FILE", default=None, help="Card file (CSV) to play on.")
@click.option("--rules", metavar="FILE", default=None, callback=_checked_rules, help="YAML file of rule options.")
@click.option("--rule", metavar="KEY=VALUE", multiple=True,
              help="Set one rule option; repeatable; applied after --rules.")
@click.option("--base", metavar="SPEC", default=None,
              help="The policy to start from: a name or @FILE (default: the game's default "
                   "strategy).")
@click.option("--iterations", type=Count(), default=None,
              help="Rounds of play with search, then fit (default 3).")
@click.option("--games", type=Count(), default=None,
              help="Games with search per iteration, over every side (default 2000).")
@click.option("--k", "k", type=Count(4096), default=None,
              help="The search player's options kept per decision (default 8).")
@click.option("--n", "n", type=Count(100_000), default=None,
              help="The search player's samples of the hidden cards (default 16).")
@click.option("--extra", type=click.IntRange(min=0), default=None,
              help="Options the search did not play out, recorded per decision (default 4).")
@click.option("--objective", type=click.Choice(["value", "choice"]), default=None,
              help="What the fit follows: the search's option values (default) or its "
                   "choices (cross-entropy).")
@click.option("--sharpness", type=float, default=None,
              help="How closely the value fit's softmax follows the argmax (default 3).")
@click.option("--l2", type=float, default=None,
              help="Pull toward the policy each fit starts from (default 1).")
@click.option("--keep-noise", is_flag=True,
              help="Keep the base's noise weights (default: the policy starts without them).")
@click.option("--opponents", metavar="SPEC[,SPEC...]", default=None,
              help="Strategies the other sides play in an equal share of each iteration's "
                   "games, beside the policy itself (default: the policy only), so the "
                   "search also decides against play unlike its own.")
@click.option("--check-games", default=None, metavar="N",
              help="Plain games per side at the end against the starting base and each "
                   "other shipped strategy, and the base against them (default 10000; "
                   "0: none). With --per-count, a count whose result loses to one the "
                   "base beats keeps the base's weights.")
@click.option("--seed", type=SEED, default=1, show_default=True,
              help="Random seed: the same seed gives the same weights.")
@click.option("--out", metavar="FILE.yaml", required=True, help="Strategy file to write.")
@click.option("--threads", type=Count(4096), default=None,
              help="Threads (default: every CPU this process may use).")
@backend_flags
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress bar on stderr (only when stderr is a terminal).")
@click.option("--resume", is_flag=True,
              help="Continue the distillation that was stopped (Ctrl-C, SIGTERM, a full "
                   "disk) writing --out; give the same options.")
@click.pass_context
def distill(ctx: click.Context, **opts: Any) -> None:
    """Learn a strategy from the search player (expert iteration).

    Each iteration plays games in which the search player over the current policy
    decides for one side (every side in turn) and records every decision it makes: its
    options as that side sees them and its choice. The policy's weights are then fitted
    to those choices and the fitted policy becomes the search's base for the next
    iteration. The result is an ordinary strategy file: use it as --team-a @FILE,
    --seat 0=@FILE, in experiments and matchups. The report says, per decision kind,
    where the last policy chose otherwise than the search and the value that cost it:
    where a new feature would pay.

    \b
    Examples:
      simulate distill --game plai --players 3 --out distilled-3p.yaml
      simulate distill --players 2,4,6 --base expert-v1 --iterations 4 --out new-expert.yaml
      simulate distill --players 2,4,6 --per-count --base expert-v1 --out new-expert.yaml
      simulate distill --game plai --players 2 --opponents random,bluffer --out duel.yaml
      simulate distill --players 4 --out new-expert.yaml --backend dask-local --workers 2
      simulate distill --players 4 --out new-expert.yaml --resume     (after Ctrl-C)

    Every finished iteration is kept (FILE.resume.jsonl and the chunks in FILE.distill/
    beside FILE.yaml, removed at the end): the same command with --resume continues to
    the file an uninterrupted run writes.
    """
    from sim import api

    result = api.distill(_game_request(opts),
                         _execution(ctx, opts, command_line=_command_line(drop_resume=True)),
                         base=opts["base"], iterations=opts["iterations"], games=opts["games"],
                         k=opts["k"], n=opts["n"], extra=opts["extra"], l2=opts["l2"],
                         objective=opts["objective"], sharpness=opts["sharpness"],
                         keep_noise=opts["keep_noise"], check_games=opts["check_games"],
                         resume=opts["resume"], per_count=opts["per_count"],
                         opponents=opts["opponents"])
    click.echo(result.report())


# ---------------------------------------------------------------- workbench
@main.command(short_help="A local web page: edit cards and rules, compare live on the same seeds.")
@click.option("--game", default=DEFAULT_GAME, show_default=True, help="Game to open.")
@click.option("--cards", metavar="FILE", default=None,
              help="Baseline card file (default: the game's default cards).")
@click.option("--rules", metavar="FILE", default=None, callback=_checked_rules, help="Baseline YAML file of rule options.")
@click.option("--players", type=Count(1000), default=None,
              help="Player count ticked at first (default: the game's usual count).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on (another address exposes the page to that network).")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port (0: any free port).")
@click.option("--max-games", type=Count(), default="1e6", show_default=True,
              help="Cap on a comparison's games per side and player count.")
@click.option("--temp-limit", type=Count(10**7), default="1000", show_default=True,
              metavar="MB",
              help="Cap on the temporary data (the comparisons' games), in MB: older finished "
                   "comparisons are dropped first, then a running one is stopped.")
@click.option("--threads", type=Count(4096), default=None,
              help="Worker threads (default: every CPU this process may use).")
@click.option("--backend", type=click.Choice(["local", "dask", "dask-local"]), default="local",
              show_default=True, help="Where chunks play (as for a simulation run).")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="Dask scheduler for --backend dask, e.g. tcp://HOST:8786.")
@click.option("--workers", type=Count(1024), default=None,
              help="Worker processes for --backend dask-local.")
def workbench(**opts: Any) -> None:
    """Serve the designer's workbench on http://127.0.0.1:8765/ and print its address.

    The page shows the card file as an editable table and the rule options as a form,
    checks every edit with the loaders of this command line, and compares the edit with
    the baseline (--cards/--rules, or the defaults) on the same seeds and game indices,
    chunk by chunk, until every paired difference interval is narrower than the width
    (the --until-ci rule) or the cap. Files are read (strategy files named on the page)
    and saved under the current directory only; the comparisons' temporary data stays
    under --temp-limit.

    \b
    Examples:
      simulate workbench
      simulate workbench --game plai --players 3
      simulate workbench --cards my-cards.csv --rules my-rules.yaml --port 9000
    """
    from sim.workbench.server import serve

    if (opts["scheduler"] and opts["backend"] != "dask") or (
            opts["workers"] and opts["backend"] != "dask-local"):
        raise click.UsageError("--scheduler goes with --backend dask, --workers with "
                               "--backend dask-local")
    options = {k: opts[k] for k in ("scheduler", "workers") if opts[k] is not None}
    flags = ["--backend", opts["backend"]] if opts["backend"] != "local" else []
    for name in ("scheduler", "workers"):
        if opts[name] is not None:
            flags += [f"--{name}", str(opts[name])]
    serve(game=opts["game"], cards=opts["cards"], rules=opts["rules"], players=opts["players"],
          host=opts["host"], port=opts["port"], backend=opts["backend"],
          backend_options=options, backend_flags=tuple(flags), threads=opts["threads"],
          max_games=opts["max_games"], max_temp_bytes=opts["temp_limit"] * 1_000_000,
          announce=click.echo)


# ---------------------------------------------------------------- experiments
def _until_ci_games(ctx: click.Context, opts: dict[str, Any]) -> None:
    """--until-ci W: without an explicit --games the run may go up to 1e7 games."""
    if opts.get("until_ci") is not None and not _given(ctx, "games"):
        from sim.studies.sequential import DEFAULT_MAX_GAMES

        opts["games"] = DEFAULT_MAX_GAMES


def _experiment_options(func):
    options = [
        click.argument("name", metavar="EXPERIMENT"),
        click.option("--file", "path", metavar="FILE", default="experiments.yaml",
                     show_default=True, help="The experiments file."),
        click.option("--games", type=Count(), default=None,
                     help="Games per point (overrides the file), e.g. 2000 for a quick look."),
        click.option("--threads", type=Count(4096), default=None, help="Worker threads."),
        click.option("--progress/--no-progress", default=True, show_default=True,
                     help="Progress on stderr (only when stderr is a terminal)."),
    ]
    for option in reversed(options):
        func = option(func)
    return backend_flags(func)


@main.command(short_help="Run a named experiment from experiments.yaml (every sweep point).")
@_experiment_options
@click.option("--out", metavar="DIR", default=None,
              help="Output directory (default runs/experiment-<name>-<time>); an unfinished "
                   "one is continued.")
@click.option("--report/--no-report", "with_report", default=True, show_default=True,
              help="Write the sweep report (plots) after the runs.")
@click.option("--resume", is_flag=True,
              help="Continue the experiment that was stopped in --out (an unfinished --out is "
                   "continued with or without this flag).")
@click.pass_context
def experiment(ctx: click.Context, name: str, path: str, with_report: bool, resume: bool,
               **opts: Any) -> None:
    """Run every point of EXPERIMENT (player counts x sweep values) into one directory, one
    sub-directory per point, and write the sweep report (OUT/report/sweep.html). Every
    point plays the same games (same seed and game indices), so the differences against
    the baseline point are paired.

    \b
    Examples:
      simulate experiment card_value_sweep
      simulate experiment three_vs_five --games 2000 --out runs/quick
      simulate experiment all_lose_pressure --backend dask --scheduler tcp://HOST:8786
    """
    from sim import api

    result = api.experiment(name, path, _execution(ctx, opts), report=with_report)
    click.echo(result.table_text())
    click.echo(f"experiment dir: {result.out}")
    if with_report:
        click.echo(f"report: {result.report['html']}")


@main.command(short_help="Balance gate: exit 0 if the experiment's checks hold, 1 if not.")
@_experiment_options
@click.option("--out", metavar="DIR", default=None,
              help="Keep the runs here (default: a temporary directory, removed after).")
@click.option("--resume", is_flag=True,
              help="Continue the runs that were stopped in --out (an unfinished --out is "
                   "continued with or without this flag).")
@click.pass_context
def check(ctx: click.Context, name: str, path: str, resume: bool, **opts: Any) -> None:
    """Run the points EXPERIMENT's checks select and judge every check: it holds when the
    metric's whole interval (95 % unless the check says otherwise) lies within its bounds.
    Prints a table; exits 0 when every check holds, 1 when any fails or is undecided.

    \b
    Examples:
      simulate check three_vs_five
      simulate check three_vs_five --games 20000
      simulate check three_vs_five --backend dask --scheduler tcp://HOST:8786
    """
    from sim import api

    result = api.check(name, path, _execution(ctx, opts))
    click.echo(result.table())
    sys.exit(0 if result.passed else 1)


@main.command(short_help="Search the allowed card changes for a set that meets the targets.")
@_experiment_options
@click.option("--out", metavar="FILE", default=None,
              help="Where to write the best card file (default autobalance-<name>.csv).")
@click.option("--resume", is_flag=True,
              help="Continue the search that was stopped (Ctrl-C, SIGTERM, a full disk), from "
                   "its journal beside the card file; give the same options.")
@click.pass_context
def autobalance(ctx: click.Context, name: str, path: str, resume: bool, **opts: Any) -> None:
    """Search the card changes EXPERIMENT's 'autobalance' section allows (cards, fields,
    ranges) for the set that brings its target metrics into their bands. Deterministic for
    the experiment's seed. Prints the best set as a diff against the starting card file,
    writes that file, and prints its metrics with intervals.

    \b
    Examples:
      simulate autobalance three_player_balance
      simulate autobalance three_player_balance --games 5000 --out balanced.csv
      simulate autobalance three_player_balance --backend dask-local --workers 2
    """
    from sim import api

    execution = _execution(ctx, opts)
    result = api.autobalance(name, path, execution.replace(
        progress=execution.progress and sys.stderr.isatty()), resume=resume)
    click.echo(result.report())


@main.command(short_help="Compile the games' kernels into the cache now (after install).")
@click.option("--game", "games", multiple=True, metavar="GAME",
              help="A game to compile (repeatable; default: every game).")
@click.option("--jobs", type=Count(64), default=None,
              help="Games compiled at once, each in its own process (default: one per CPU).")
@click.option("--trace", "with_trace", is_flag=True, help="Compile the trace kernels too.")
def warm(games: tuple[str, ...], jobs: int | None, with_trace: bool) -> None:
    """Compile every kernel a run needs into numba's on-disk cache, so the first
    `simulate` of each game starts at once instead of compiling for a minute. Run it once
    after installing (or after editing a kernel); the games compile in parallel processes.

    \b
    Examples:
      simulate warm
      simulate warm --game plai --trace
    """
    from sim import api

    for done in api.warm(list(games) or None, jobs=jobs, trace=with_trace):
        click.echo(f"{done['game']}: already compiled" if done.get("cached") else
                   f"{done['game']}: ready in {done['seconds']:.1f} s "
                   f"({done['cpu_seconds']:.1f} s CPU)")


# ---------------------------------------------------------------- skill
@main.command(short_help="The skill ladder: how much does skill decide the game?")
@click.option("--game", default=DEFAULT_GAME, show_default=True, help="Game.")
@click.option("--players", metavar="P[,P...]", default=None,
              help="Player count(s), e.g. 3 or 2,3,4 (default: every count from 2).")
@click.option("--games", type=Count(), default=None,
              help="Games per pairing without a search player (default 20000).")
@click.option("--search-games", type=Count(), default=None,
              help="Games per pairing with a search player (default 2000).")
@click.option("--budgets", metavar="K=..,N=..;K=..,N=..", default=None,
              help="The two search budgets, smaller first (default: the game's, PLAI "
                   "'k=4,n=4;k=8,n=16', Peer-to-Peer 'k=2,n=2;k=4,n=2').")
@click.option("--seed", type=SEED, default=1, show_default=True, help="Random seed.")
@click.option("--out", metavar="DIR", default=None,
              help="New run directory (default: runs/skill-<game>-seed<seed>-<time>).")
@click.option("--threads", type=Count(4096), default=None,
              help="Kernel threads per chunk (default: every CPU this process may use).")
@click.option("--cards", metavar="FILE", default=None, help="Card file (CSV).")
@click.option("--rules", metavar="FILE", default=None, callback=_checked_rules, help="YAML file of rule options.")
@click.option("--rule", metavar="KEY=VALUE", multiple=True,
              help="Set one rule option; repeatable.")
@click.option("--backend", type=click.Choice(["local", "dask", "dask-local"]), default="local",
              show_default=True, help="Where the pairings' chunks play (as for a run).")
@click.option("--scheduler", metavar="ADDRESS", default=None,
              help="Dask scheduler for --backend dask, e.g. tcp://HOST:8786.")
@click.option("--workers", type=Count(1024), default=None,
              help="Worker processes for --backend dask-local.")
@click.option("--resume", is_flag=True,
              help="Continue the ladder that was stopped (Ctrl-C, SIGTERM, a full disk) in "
                   "--out; give the same options.")
def skill(**opts: Any) -> None:
    """Play the skill ladder and print each pairing's share of decided games.

    Rungs, weakest first: random, each baseline strategy (ordered by its share against
    expert), expert, and search at two budgets. Each rung plays the rung below and expert,
    in every seat in turn, on the same deals (common random numbers). A share of 50 %
    means as strong per seat; 95 % Wilson intervals. Also prints how many rungs beat the
    one below beyond the interval, and the luck share: the weaker side's share in the
    top pairing (the larger search budget against expert). Writes pairings.csv,
    ladder.txt, skill.json, ladder-<P>p.png and manifest.json.

    \b
    Examples:
      simulate skill --game plai --players 3
      simulate skill --game peer-to-peer --players 2,4 --search-games 1000
      simulate skill --game plai --players 3 --out runs/skill-3p --resume   (after Ctrl-C)
    """
    from sim import api
    from sim.core import compile_cache

    if (opts["scheduler"] and opts["backend"] != "dask") or (
            opts["workers"] and opts["backend"] != "dask-local"):
        raise click.UsageError("--scheduler goes with --backend dask, --workers with "
                               "--backend dask-local")
    options = {k: opts[k] for k in ("scheduler", "workers") if opts[k] is not None}
    budgets = tuple(b.strip() for b in opts["budgets"].split(";")) if opts["budgets"] else None

    def progress(row: dict[str, Any]) -> None:
        click.echo(f"  {row['players']}p {row['pairing']}: {100 * row['share']:.1f} % of "
                   f"{row['decided']:,} decided ({row['seconds']:.0f} s)", err=True)

    compiled_before = compile_cache.compile_seconds()
    result = api.skill(game=opts["game"], players=opts["players"], games=opts["games"],
                       search_games=opts["search_games"], budgets=budgets, seed=opts["seed"],
                       out=opts["out"], threads=opts["threads"], cards=opts["cards"],
                       rules_file=opts["rules"], rule_overrides=tuple(opts["rule"]),
                       backend=opts["backend"], backend_options=options or None,
                       progress=progress, command_line=_command_line(drop_resume=True),
                       resume=opts["resume"])
    click.echo(result.table())
    click.echo(f"run dir: {result.run_dir}")
    click.echo(_games_line(sum(r["games"] for r in result.pairings), result.wall_seconds, None,
                           compile_cache.compile_seconds() - compiled_before))


if __name__ == "__main__":   # last: every command above is registered by then
    main()
