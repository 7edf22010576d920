"""The commands that answer from games and runs: trace, report, compare, ablate,
balance-report."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from sim.cli.common import (
    GAME_OPTIONS, SEED, Count, GameIndex, Threshold, backend_flags, checked_rules,
    chosen_strategies, execution_of, game_options, game_request, inherit, resume_keeps,
    say_search_budget,
)
from sim.cli.run import REPORT_CHECKS, main

PER_REPORT = " per player count"
PROGRESS = click.option("--progress/--no-progress", default=True, show_default=True,
                        help="Progress bar on stderr while the search games play.")
REPORT_PROGRESS = click.option("--progress/--no-progress", default=True, show_default=True,
                               help="Progress bar on stderr while the replays and the "
                                    "search games play.")


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
@click.option("--compare-rules", metavar="FILE", default=None, callback=checked_rules,
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

    opts = inherit(ctx, opts, GAME_OPTIONS + ("seed",))
    request = game_request(opts)
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
    # what is counted: findings, not distinct facts (one edge, e.g. a seat's at 2 players,
    # is called by each section and row that measures it)
    click.echo(f"{len(called)} imbalance finding(s) called at ±{written.get('threshold_pp', 2):g} "
               "pp (one per section and row: an edge measured in several sections counts in "
               "each; rows that repeat another's games count once)" + (":" if called else "."))
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
@click.option("--out", metavar="DIR", default=None, help="Directory for report.html, "
              "report.md and the CSV tables (default for one run: RUN_DIR/report, where "
              "--report writes it; several runs need it).")
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
@REPORT_PROGRESS
def report(run_dirs: tuple[str, ...], out: str | None, threshold: float, allow_mixed: bool,
           ablation: str | None, skill: str | None, replay_games: int | None,
           stronger_play: float | None, stronger_play_games: int | None,
           resume: bool, progress: bool) -> None:
    """Write report.html (self-contained), report.md and CSV tables for RUN_DIRs.

    \b
    Examples:
      simulate report runs/peer-to-peer-3p-seed1-20250101-120000
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
    out = out if out is not None else _report_beside(run_dirs)
    _keep_stronger_play(stronger_play)
    _print_report(api.report(list(run_dirs), out, threshold_pp=threshold,
                             allow_mixed=allow_mixed, extra=extra, replay_games=replay_games,
                             stronger_play=stronger_play,
                             stronger_play_games=stronger_play_games, resume=resume,
                             progress=progress, announce=lambda: say_search_budget(
                                 REPORT_CHECKS, stronger_play, stronger_play_games,
                                 PER_REPORT)))


def _report_beside(run_dirs: tuple[str, ...]) -> str:
    """One run's report goes where `simulate ... --report` puts it; for several runs no
    one directory is theirs, so the designer names it."""
    import os

    if len(run_dirs) > 1:
        raise click.UsageError(f"{len(run_dirs)} runs make one report: say where it goes "
                               "with --out DIR")
    return os.path.join(run_dirs[0], "report")


def _keep_stronger_play(seconds: float | None) -> None:
    """Without seconds on the command line the report records $CARDSIM_STRONGER_PLAY's (or
    the default), also beside --stronger-play-games: the continue line names them, so it
    continues where the variable is unset."""
    if seconds is None:
        from reports.stronger import default_seconds, seconds_text

        resume_keeps("--stronger-play", seconds_text(default_seconds()))


@main.command(short_help="What an edit changed: two runs of the same seed, game by game.")
@click.argument("base_run", metavar="BASE_RUN")
@click.argument("edit_run", metavar="EDIT_RUN")
@click.option("--json", "as_json", is_flag=True,
              help="Print everything as JSON, with every changed game's index.")
@click.option("--shown", type=Count(10_000), default=8, show_default=True,
              help="Game indices listed per kind of change in the text.")
@click.option("--stronger-play", type=click.FloatRange(min=0), default=None,
              metavar="SECONDS",
              help="Seconds of search games for checking the changes under stronger play "
                   "(default 300, or $CARDSIM_STRONGER_PLAY; 0: off).")
@click.option("--stronger-play-games", type=Count(), default=None,
              help="Check under stronger play on this many game indices instead of a time "
                   "budget.")
@click.option("--threshold", type=Threshold(), default=2.0, show_default=True,
              help="A change holds under stronger play when search moves it by less than "
                   "this many percentage points (a report's --threshold).")
@PROGRESS
def compare(base_run: str, edit_run: str, as_json: bool, shown: int,
            stronger_play: float | None, stronger_play_games: int | None,
            threshold: float, progress: bool) -> None:
    """Compare two runs of the same game, player count and seed game by game: what differs
    between their configurations, every headline's and balance measure's paired difference
    with its 95 % interval, whether each change holds under stronger play (both
    runs' lowest common game indices replayed with search on every side), and the games
    whose outcome changed, grouped by how they changed, with their game indices (replay
    any with 'simulate trace'). Runs of different sizes are compared on the games both
    hold; runs that are not paired are refused.

    \b
    Examples:
      simulate --players 3 --games 1e5 --seed 7 --out runs/base
      simulate --players 3 --games 1e5 --seed 7 --cards mine.csv --out runs/edit
      simulate compare runs/base runs/edit
      simulate compare runs/base runs/edit --json > changed.json
      simulate compare runs/base runs/edit --stronger-play 0      (no search games)
    """
    from sim import api

    result = api.compare(base_run, edit_run, stronger_play=stronger_play,
                         stronger_play_games=stronger_play_games, progress=progress,
                         threshold_pp=threshold,
                         announce=lambda: say_search_budget(
                             "checking the changes", stronger_play, stronger_play_games))
    if as_json:
        click.echo(json.dumps(result.to_dict(), allow_nan=False))
    else:
        click.echo(result.to_text(shown=shown))


@main.command(short_help="Card ablation: what each card is worth, on common random numbers.")
@click.option("--games", type=Count(), default="1e4", show_default=True,
              help="Games per configuration (the baseline and every card change).")
@click.option("--seed", type=SEED, default=1, show_default=True, help="Random seed.")
@click.option("--card", "only", metavar="REF", multiple=True,
              help="Ablate only this card (an id, or a name: every card of that name); "
                   "repeatable. The calls then compare the named cards with each other. "
                   "Default: every card.")
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
    removed; print and write (ablation.csv) the paired change of every headline rate with
    its 95 % interval (the game's outcomes: each team's or seat's win rate, ...). Add it
    to a report with 'simulate report ... --ablation DIR'.

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
        strategies=chosen_strategies(opts), only=tuple(opts["only"]),
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
@game_options(players_hidden=True)
@click.pass_context
def balance_report(ctx: click.Context, **opts: Any) -> None:
    """The designer's one-shot: every player count (1-6 for Peer-to-Peer, with all three
    odd_team_compensation modes at 3 and 5 players; 2-5 for PLAI), then report.html in --out.

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
    _keep_stronger_play(opts["stronger_play"])
    say_search_budget(REPORT_CHECKS, opts["stronger_play"], opts["stronger_play_games"],
                      PER_REPORT, len({players for players, _ in
                                       api.balance_points(opts["game"])}))
    written = api.balance_report(game_request(opts), execution_of(ctx, opts),
                                 threshold_pp=opts["threshold"], resume=opts["resume"],
                                 replay_games=opts["replay_games"],
                                 stronger_play=opts["stronger_play"],
                                 stronger_play_games=opts["stronger_play_games"])
    _print_report(written)
