"""The commands that show or serve the inputs: cards, strategies and the workbench."""
from __future__ import annotations

from typing import Any

import click

from sim.cli.common import Count, backend_flags, checked_rules, inherit
from sim.cli.run import main
from sim.core.catalog import DEFAULT_GAME


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

    game = inherit(ctx, {"game": game}, ("game",))["game"]
    click.echo(api.default_cards(game), nl=False)


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

    game = inherit(ctx, {"game": game}, ("game",))["game"]
    found = api.strategies(game)
    if not found:
        click.echo(f"{game} has no registered strategies")
    for item in found:
        params = ", ".join(f"{k}={v:g}" if isinstance(v, (int, float)) else f"{k}={v}"
                           for k, v in item["params"].items()) or "(no parameters)"
        click.echo(f"{item['name']:<10} {item['summary']}\n{'':<10} parameters: {params}"
                   f"\n{'':<10} file: {item['module']}")



# ---------------------------------------------------------------- workbench
@main.command(short_help="A local web page: edit cards and rules, compare live on the same seeds.")
@click.option("--game", default=DEFAULT_GAME, show_default=True, help="Game to open.")
@click.option("--cards", metavar="FILE", default=None,
              help="Baseline card file (default: the game's default cards).")
@click.option("--rules", metavar="FILE", default=None, callback=checked_rules, help="Baseline YAML file of rule options.")
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
@backend_flags
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
