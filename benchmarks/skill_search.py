"""The search player's strength and cost. Not run by pytest.

    nice -n 10 python benchmarks/skill_search.py --game plai --players 3 --games 5000
    nice -n 10 python benchmarks/skill_search.py --game plai --players 3 --curve 600
    nice -n 10 python benchmarks/skill_search.py --game peer-to-peer --players 4 --games 5000 \
        --budget k=8,n=8

Strength: the search player in one seat against its base strategy in every other seat,
each seat in turn on the same deals, as ``simulate skill`` plays a pairing (its share of
decided games, 50 % = as strong per seat). Cost: decisions/s and games/s in CPU time of
one thread (time.process_time, so other work on the shared machine does not count). The
curve: the share at growing budgets, to see where it stops gaining.

Each measured budget is one row of benchmarks/results/skill_search.md (game, players,
search, opponent and games make a row: a new measurement replaces it), with its date and
load; the rows are kept in skill_search.json beside it.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def pairing(game, players, spec, base, games, seed=1, threads=1):
    """(share, low, high, games, decided, decisions, cpu seconds) of ``spec`` vs ``base``."""
    from sim.core.game import resolve_game
    from sim.studies.skill import _blocks, wilson_share

    game_obj = resolve_game(game)
    scheme = game_obj.matchup_scheme
    codes = game_obj.outcome_codes
    column = game_obj.outcome_column
    blocks = _blocks(scheme, players, spec, base)
    per_block = max(1, games // len(blocks))
    won = lost = decisions = 0
    cpu = 0.0
    for b, (strategies, overrides, slot) in enumerate(blocks):
        config = game_obj.configure(players=players, strategies=strategies,
                                    rule_overrides=overrides)
        if b == 0:   # the compile (a cold cache) is not the search's cost
            config.play(seed, 0, 1, threads)
            config.decisions = 0
        t0 = time.process_time()
        out = config.play(seed, 0, per_block, threads)   # every seat on the same deals
        out = out[0] if isinstance(out, tuple) else out
        cpu += time.process_time() - t0
        decisions += config.decisions   # the search decisions ``play`` made
        if scheme == "every_seat":
            w = out["winner"]
            won += int((w == slot).sum())
            lost += int(((w >= 0) & (w != slot)).sum())
        else:
            o = out[column]
            won += int((o == codes[slot]).sum())
            lost += int((o == codes["B" if slot == "A" else "A"]).sum())
    m = players - 1 if scheme == "every_seat" else 1
    share, lo, hi = wilson_share(won, lost, m)
    return share, lo, hi, per_block * len(blocks), won + lost, decisions, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--game", default="plai")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--base", default=None)
    parser.add_argument("--budget", default="k=8,n=32")
    parser.add_argument("--games", type=int, default=5000)
    parser.add_argument("--curve", type=int, default=0, help="games per budget of the curve")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--curve-budgets", default=None,
                        help="the curve's budgets, ';'-separated (default: PLAI's seven, up "
                             "to k=16,n=64; Peer-to-Peer's decisions cost more, e.g. "
                             "'k=2,n=2;k=4,n=4;k=8,n=8;k=8,n=16;k=8,n=32')")
    args = parser.parse_args()
    from sim.core.game import resolve_game
    from sim.core.strategy import registry

    game_obj = resolve_game(args.game)
    known = registry(game_obj.strategy_package)
    base = args.base or ("expert" if "expert" in known else game_obj.default_strategy)
    print(f"load average: {os.getloadavg()}", flush=True)
    rows = []
    curve = (args.curve_budgets.split(";") if args.curve_budgets else
             ["k=2,n=2", "k=4,n=4", "k=4,n=8", "k=8,n=16", "k=8,n=32", "k=8,n=64", "k=16,n=64"])
    budgets = [args.budget] if not args.curve else curve
    for budget in budgets:
        games = args.curve or args.games
        spec = f"search:{budget},base={base}"
        share, lo, hi, n, decided, decisions, cpu = pairing(args.game, args.players, spec,
                                                            base, games,
                                                            threads=args.threads)
        row = {"game": args.game, "players": args.players, "search": spec, "vs": base,
               "games": n, "decided": decided,
               "share": f"{100 * share:.1f} [{100 * lo:.1f}-{100 * hi:.1f}]",
               "decisions_per_s": decisions / cpu, "games_per_s": n / cpu, "cpu_s": cpu,
               "threads": args.threads}
        rows.append(row)
        print(row, flush=True)
    from benchmarks.latest import update_rows

    for row in rows:
        stored = update_rows("skill_search", ("game", "players", "search", "vs", "games"), row)
    write_table(stored)


def write_table(stored: list[dict]) -> None:
    from benchmarks.latest import write

    header = ("| game | players | search | vs | games | decided | share % [95 % CI] | "
              "decisions/s (1 thread CPU) | games/s | CPU s | threads | date | load |\n"
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    lines = [header] + [
        f"| {r['game']} | {r['players']} | {r['search']} | {r['vs']} | {r['games']:,} | "
        f"{r['decided']:,} | {r['share']} | {r['decisions_per_s']:,.0f} | "
        f"{r['games_per_s']:,.2f} | {r['cpu_s']:.0f} | {r.get('threads', 1)} | {r['date']} | "
        f"{r['load']} |" for r in sorted(stored, key=lambda r: (r["game"], r["players"],
                                                                r["games_per_s"] * -1))]
    write("skill_search", "The search player: strength and cost", "\n".join(lines) + "\n",
          command="python benchmarks/skill_search.py ...",
          notes="Each row's own command is in skill_search.json. The search player in one seat (Peer-to-Peer: one team) against its base "
                "strategy everywhere else, every seat in turn on the same deals: its share of "
                "the decided games (50 % = as strong). Decisions/s and games/s per CPU second, "
                "the first game's compile not counted.")


if __name__ == "__main__":
    main()
