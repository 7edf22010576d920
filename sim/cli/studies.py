"""The commands about the players: matchups, tune, distill, skill."""
from __future__ import annotations

from typing import Any

import click

from sim.cli.common import (
    SEED, Count, backend_flags, command_line, execution_of, game_request, games_line, inherit,
    input_files, study_flags,
)
from sim.cli.run import main
from sim.core.catalog import DEFAULT_GAME

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
@input_files(rule_help="Set one rule option; repeatable (not first_marker: matchups balance it).")
@click.option("--debug", is_flag=True, help="Check game invariants while playing (slower).")
@click.option("--resume", is_flag=True,
              help="Continue the matchups that were stopped (Ctrl-C, SIGTERM, a full disk) in "
                   "--out; give the same options.")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="Progress bar on stderr (only when stderr is a terminal).")
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

    Every finished block of games is kept (DIR/resume.jsonl, removed at the end): Ctrl-C,
    SIGTERM or a full disk keep the finished work, and the same command with --out DIR
    --resume continues it to the same matrix.
    """
    from sim import api
    from sim.core import compile_cache

    opts = inherit(ctx, opts, ("game", "players", "cards", "rules", "rule", "debug"))
    compiled_before = compile_cache.compile_seconds()
    result = api.matchups(opts["specs"], game_request(opts),
                          execution_of(ctx, opts, command_line=command_line(drop_resume=True)),
                          resume=opts["resume"])
    click.echo(result.table())
    click.echo(f"run dir: {result.run_dir}")
    click.echo(games_line(sum(p["games"] for p in result.pairs), result.wall_seconds, None,
                           compile_cache.compile_seconds() - compiled_before))


# ---------------------------------------------------------------- tune
@main.command(short_help="Tune a strategy's weights by self-play; write a strategy file.")
@click.option("--game", default="peer-to-peer", show_default=True, help="Game to tune for.")
@click.option("--players", type=Count(1000), default=None,
              help="Number of players (default: the game's usual count).")
@input_files(cards_help="Card file (CSV) to tune on.")
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
@click.option("--hold", metavar="NAME[=VALUE][,...]", default=None,
              help="Weights the search leaves alone: at VALUE, or at the base's. A name "
                   "without its phase (commit.high_card) holds it in every phase.")
@click.option("--against", metavar="SPEC[,SPEC...]", default=None,
              help="Instead of self-play: the weights whose worst share of the decided games "
                   "against these strategies is highest (every seat).")
@study_flags
@click.option("--resume", is_flag=True,
              help="Continue the tune that was stopped (Ctrl-C, SIGTERM, a full disk) writing "
                   "--out, from its journal beside it; give the same options.")
@click.pass_context
def tune(ctx: click.Context, **opts: Any) -> None:
    """Find the weights of a parametric strategy that win most, by self-play (CMA-ES).

    Every weight of the game's feature vector is searched (Peer-to-Peer: both phases and the
    phase switch), but those --hold names. Each candidate plays the current champion, a hall
    of fame of earlier champions and the shipped strategies, in every seat, on the same
    games as the rest of its generation; the score is its own win rate over all games. At
    the end the last champions and the search mean play each other on fresh seeds and the
    best of them is re-checked on other fresh seeds against every shipped strategy and the
    previous champion before the file is written. Use the file anywhere a strategy goes:
    --team-a @FILE, --seat 0=@FILE, experiments.yaml, matchups.

    \b
    Examples:
      simulate tune --game peer-to-peer --players 4 --out expert-4p.yaml
      simulate tune --players 3 --cards my_cards.csv --budget 1e7 --out mine-3p.yaml
      simulate --team-a @expert-4p.yaml --team-b greedy --games 1e5
      simulate tune --players 4 --out expert-4p.yaml --backend dask-local --workers 2
      simulate tune --players 4 --out expert-4p.yaml --resume     (after Ctrl-C)
      simulate tune --players 2 --base expert --hold commit.high_card=0 --out fast.yaml

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

    result = api.tune(game_request(opts),
                      execution_of(ctx, opts, command_line=command_line(drop_resume=True)),
                      budget=opts["budget"], base=opts["base"],
                      games_per_eval=opts["games_per_eval"], check_games=opts["check_games"],
                      resume=opts["resume"], against=opts["against"], hold=opts["hold"])
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
@input_files(cards_help="Card file (CSV) to play on.")
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
@click.option("--hold", metavar="NAME[=VALUE][,...]", default=None,
              help="Weights the fit leaves alone: at VALUE from the first policy on, or "
                   "at the base's. A name without its phase (commit.high_card) holds it in "
                   "every phase.")
@click.option("--check-games", default=None, metavar="N",
              help="Plain games per side at the end against the starting base and each "
                   "other shipped strategy, and the base against them (default 10000; "
                   "0: none). With --per-count, a count whose result loses to one the "
                   "base beats keeps the base's weights.")
@click.option("--seed", type=SEED, default=1, show_default=True,
              help="Random seed: the same seed gives the same weights.")
@click.option("--out", metavar="FILE.yaml", required=True, help="Strategy file to write.")
@study_flags
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
      simulate distill --players 2 --hold commit.high_card=0,commit.reach=0 --out fast.yaml

    Every finished iteration is kept (FILE.resume.jsonl and the chunks in FILE.distill/
    beside FILE.yaml, removed at the end): the same command with --resume continues to
    the file an uninterrupted run writes.
    """
    from sim import api

    result = api.distill(game_request(opts),
                         execution_of(ctx, opts, command_line=command_line(drop_resume=True)),
                         base=opts["base"], iterations=opts["iterations"], games=opts["games"],
                         k=opts["k"], n=opts["n"], extra=opts["extra"], l2=opts["l2"],
                         objective=opts["objective"], sharpness=opts["sharpness"],
                         keep_noise=opts["keep_noise"], check_games=opts["check_games"],
                         resume=opts["resume"], per_count=opts["per_count"],
                         opponents=opts["opponents"], hold=opts["hold"])
    click.echo(result.report())


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
@input_files()
@backend_flags
@click.option("--resume", is_flag=True,
              help="Continue the ladder that was stopped (Ctrl-C, SIGTERM, a full disk) in "
                   "--out; give the same options.")
@click.option("--progress/--no-progress", default=True, show_default=True,
              help="A line on stderr as each pairing finishes.")
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
                       progress=progress if opts["progress"] else None,
                       command_line=command_line(drop_resume=True),
                       resume=opts["resume"])
    click.echo(result.table())
    click.echo(f"run dir: {result.run_dir}")
    click.echo(games_line(sum(r["games"] for r in result.pairings), result.wall_seconds, None,
                           compile_cache.compile_seconds() - compiled_before))
