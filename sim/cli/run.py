"""``simulate`` itself: the group whose bare invocation plays a run, and ``warm``."""
from __future__ import annotations

import json
from typing import Any

import click

from sim import __version__
from sim.cli.common import (
    RESUME_CONFLICTS, RUN_ONLY_OPTIONS, SEED, Count, SimulateGroup, execution_of, flag,
    game_options, game_request, games_line, given, say_search_budget,
)


@click.group(cls=SimulateGroup, invoke_without_command=True,
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
        for name in RUN_ONLY_OPTIONS:
            if given(ctx, name):
                raise click.UsageError(f"{flag(name)} belongs to a simulation run, not to "
                                       f"'{ctx.invoked_subcommand}'", ctx=ctx)
        return
    _run(ctx, opts)


def _run(ctx: click.Context, opts: dict[str, Any]) -> None:
    from sim import api
    from sim.core import compile_cache
    from sim.core.game import inputs_line

    compiled_before = compile_cache.compile_seconds()
    _until_ci_games(ctx, opts)
    execution = execution_of(ctx, opts)
    if opts["resume_dir"] is not None:
        clashes = [flag(name) for name in RESUME_CONFLICTS if given(ctx, name)]
        if clashes:
            raise click.UsageError(f"--resume continues a run with the settings in its manifest; "
                                   f"drop {', '.join(clashes)}", ctx=ctx)
        result = api.resume(opts["resume_dir"], execution)
    else:
        result = api.run(game_request(opts), execution)
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
            "cards": {"path": manifest["cards"]["path"], "sha256": manifest["cards"]["sha256"]},
            "rules_file": manifest["request"]["rules_file"],
            "rule_overrides": manifest["request"]["rule_overrides"],
        }
        for key, value in result.summary.items():
            payload.setdefault(key, value)
        if opts["with_report"]:
            payload["report"] = str(_run_report(result.run_dir, opts)["html"])
        click.echo(json.dumps(payload, allow_nan=False))   # strict JSON: no NaN
        return
    click.echo(result.config.format_summary(result.summary))
    if "until_ci" in result.summary:
        from sim.studies.sequential import describe

        click.echo(describe(result.summary["until_ci"]))
    if not opts["with_report"]:
        # a search game costs about a thousand of these: the report's check, not the summary's
        click.echo(STRONGER_PLAY_LINE)
    changed = inputs_line(manifest["request"], manifest["cards"]["sha256"])
    if changed:
        click.echo(f"played with {changed}")
    click.echo(f"run dir: {result.run_dir}")
    click.echo(games_line(manifest["games"], result.wall_seconds, result.games_per_second,
                           compiled))
    if opts["with_report"]:
        written = _run_report(result.run_dir, opts)
        click.echo(f"report: {written['html']}")



# said before a report's search games, which take minutes
REPORT_CHECKS = "the report checks every answer"
STRONGER_PLAY_LINE = ("under stronger play: not checked here; --report checks every answer "
                      "with search on every side")


def _run_report(run_dir: Any, opts: dict[str, Any]) -> dict[str, Any]:
    """A run's --report in RUN_DIR/report (continued when the run was: ``--resume``).
    Stopped, it is continued by 'simulate report', the run being finished."""
    import os
    import shlex

    from sim import api
    from sim.runs.resumable import Stopped

    out = os.path.join(os.fspath(run_dir), "report")
    try:
        return api.report([run_dir], out, resume=opts["resume_dir"] is not None,
                          progress=opts["progress"],
                          announce=lambda: say_search_budget(REPORT_CHECKS, None, None))
    except Stopped as exc:
        from reports.stronger import default_seconds, seconds_text

        # the budget it resolved ($CARDSIM_STRONGER_PLAY), so the line continues anywhere
        exc.continue_with = shlex.join(["simulate", "report", os.fspath(run_dir), "--out",
                                        out, "--stronger-play", seconds_text(default_seconds()),
                                        "--resume"])
        raise



def _until_ci_games(ctx: click.Context, opts: dict[str, Any]) -> None:
    """--until-ci W: without an explicit --games the run may go up to 1e7 games."""
    if opts.get("until_ci") is not None and not given(ctx, "games"):
        from sim.studies.sequential import DEFAULT_MAX_GAMES

        opts["games"] = DEFAULT_MAX_GAMES



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
