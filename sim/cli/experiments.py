"""The commands over experiments.yaml: experiment, check, autobalance."""
from __future__ import annotations

import sys
from typing import Any

import click

from sim.cli.common import Count, backend_flags, execution_of, say_search_budget
from sim.cli.run import main


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
@click.option("--stronger-play", type=click.FloatRange(min=0), default=0.0, metavar="SECONDS",
              help="Seconds of search games per point for checking its changes against its "
                   "baseline under stronger play in the report (default 0: not checked).")
@click.option("--stronger-play-games", type=Count(), default=None,
              help="Check under stronger play on this many game indices per point instead.")
@click.pass_context
def experiment(ctx: click.Context, name: str, path: str, with_report: bool, resume: bool,
               stronger_play: float, stronger_play_games: int | None, **opts: Any) -> None:
    """Run every point of EXPERIMENT (player counts x sweep values) into one directory, one
    sub-directory per point, and write the sweep report (OUT/report/sweep.html). Every
    point plays the same games (same seed and game indices), so the differences against
    the baseline point are paired.

    \b
    Examples:
      simulate experiment card_value_sweep
      simulate experiment three_vs_five --games 2000 --out runs/quick
      simulate experiment all_lose_pressure --backend dask --scheduler tcp://HOST:8786
      simulate experiment card_value_sweep --stronger-play 120
    """
    from sim import api

    result = api.experiment(name, path, execution_of(ctx, opts), report=with_report,
                            stronger_play=stronger_play,
                            stronger_play_games=stronger_play_games)
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
    Prints a table; exits 0 when every check holds wherever its metric applies (n/a: seat 2
    at 2 players), 1 when any fails or is undecided.

    \b
    Examples:
      simulate check three_vs_five
      simulate check three_vs_five --games 20000
      simulate check three_vs_five --backend dask --scheduler tcp://HOST:8786
    """
    from sim import api

    result = api.check(name, path, execution_of(ctx, opts))
    click.echo(result.table())
    sys.exit(0 if result.passed else 1)


@main.command(short_help="Search the allowed card changes for a set that meets the targets.")
@_experiment_options
@click.option("--out", metavar="FILE", default=None,
              help="Where to write the best card file (default autobalance-<name>.csv).")
@click.option("--resume", is_flag=True,
              help="Continue the search that was stopped (Ctrl-C, SIGTERM, a full disk), from "
                   "its journal beside the card file; give the same options.")
@click.option("--stronger-play", type=click.FloatRange(min=0), default=0.0, metavar="SECONDS",
              help="Seconds of search games, shared by the points, for checking that the best "
                   "set still meets the targets under stronger play (default 0: not checked).")
@click.option("--stronger-play-games", type=Count(), default=None,
              help="Check under stronger play on this many games per point instead.")
@click.pass_context
def autobalance(ctx: click.Context, name: str, path: str, resume: bool,
                stronger_play: float, stronger_play_games: int | None, **opts: Any) -> None:
    """Search the card changes EXPERIMENT's 'autobalance' section allows (cards, fields,
    ranges) for the set that brings its target metrics into their bands. Deterministic for
    the experiment's seed. Prints the best set as a diff against the starting card file,
    writes that file, and prints its metrics with intervals.

    \b
    Examples:
      simulate autobalance three_player_balance
      simulate autobalance three_player_balance --games 5000 --out balanced.csv
      simulate autobalance three_player_balance --backend dask-local --workers 2
      simulate autobalance three_player_balance --stronger-play 300
    """
    from sim import api

    execution = execution_of(ctx, opts)
    say_search_budget("checking the best set", stronger_play, stronger_play_games,
                      " shared by the points", each="point")
    result = api.autobalance(name, path, execution.replace(
        progress=execution.progress and sys.stderr.isatty()), resume=resume,
        stronger_play=stronger_play, stronger_play_games=stronger_play_games)
    click.echo(result.report())
