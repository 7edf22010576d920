"""Every default rate at 1e6 games per player count under expert against expert, and how
each differs from the hand-written baseline strategy (Peer-to-Peer greedy, PLAI weighted)
on the same seeds.

    python benchmarks/closing_tables.py                       # 1e6 games, seed 1, 2 threads
    python benchmarks/closing_tables.py --games 2e4 --out /tmp/t.md   # a quick look
    python benchmarks/closing_tables.py --baseline expert-v1 --out benchmarks/results/expert_moves.md
                                      # how each rate moved from the first expert to today's

Peer-to-Peer, 2-6 players: everyone-loses rate, both teams' win rates, team A's share of
the games a team won (team A is the larger team at 3 and 5 players). PLAI, 2-5 players:
each seat's win rate, the maintainers' rate (every startup lost) and the stalemate rate.
Every rate with its Wilson 95 % interval; a move is the difference of two independent
rates (expert minus the old default) with its normal 95 % interval.

Runs one configuration at a time through ``sim.api.run`` (the run directory is deleted
after its summary is taken), writes the markdown table file (default
benchmarks/results/closing_tables.md, with the command that makes every row, machine and
date; each run's own command is in its Runs table) and the raw
summaries next to it (.json; an interrupted run picks up from it, and a new --games or
--seed adds rows beside the old ones, so delete it for a fresh table). Wall and CPU time,
the load and the date are recorded per run. Not run by pytest.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GAMES = {"peer-to-peer": ((2, 3, 4, 5, 6), "expert", "greedy"),
         "plai": ((2, 3, 4, 5), "expert", "weighted")}


def wilson(count: int, n: int) -> tuple[float, float, float]:
    from sim.core.stats import wilson as w

    rate, lo, hi = w(int(count), int(n))
    return float(rate), float(lo), float(hi)


def play(game: str, players: int, strategy: str, games: int, seed: int, threads: int,
         work: Path) -> dict:
    from sim import api

    slots = {"A": strategy, "B": strategy} if game == "peer-to-peer" else \
        {f"seat{s}": strategy for s in range(players)}
    out = work / f"{game}-{players}p-{strategy}"
    load0 = os.getloadavg()[0]
    began, cpu0 = time.perf_counter(), time.process_time()
    result = api.run(game=game, players=players, strategies=slots, games=games, seed=seed,
                     threads=threads, progress=False, out=str(out))
    wall, cpu = time.perf_counter() - began, time.process_time() - cpu0
    summary = dict(result.summary)
    shutil.rmtree(out, ignore_errors=True)
    n = int(summary.get("games", games))
    row = {"game": game, "players": players, "strategy": strategy, "games": n, "seed": seed,
           "threads": threads, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
           "load": [round(load0, 1), round(os.getloadavg()[0], 1)], "counts": {},
           "date": time.strftime("%Y-%m-%d", time.gmtime())}
    row["counts"] = counts_of(game, summary, n)
    row["plays_like"] = summary.get("plays_like_players")
    return row


def counts_of(game: str, summary: dict, n: int) -> dict[str, int]:
    if game == "peer-to-peer":
        return {"A": round(summary["teams"]["A"]["win_rate"] * n),
                "B": round(summary["teams"]["B"]["win_rate"] * n),
                "all_lose": round(summary["all_lose_rate"] * n)}
    return {**{f"seat {s}": round(r["win_rate"] * n) for s, r in summary["seats"].items()},
            "maintainers": round(summary["maintainers_win_rate"] * n),
            "stalemate": round(summary["stalemate_rate"] * n)}


def adopt(game: str, players: int, strategy: str, games: int, seed: int, threads: int,
          directories: list[str], check: int, work: Path) -> dict | None:
    """A finished run of this configuration made earlier (DIR/<strategy>-<P>p
    holding manifest.json, summary.json and games/), taken only after its first ``check``
    games are replayed with today's code and match it column for column."""
    import polars as pl

    from sim import api

    for directory in directories:
        old = Path(directory) / f"{strategy}-{players}p"
        try:
            manifest = json.loads((old / "manifest.json").read_text())
            summary = json.loads((old / "summary.json").read_text())
        except (OSError, ValueError):
            continue
        names = {k: v["name"] for k, v in manifest["strategies"].items()}
        if (manifest["game"], manifest["players"], manifest["games"], manifest["seed"]) != \
                (game, players, games, seed) or set(names.values()) != {strategy} \
                or not manifest.get("complete"):
            continue
        began, cpu0 = time.perf_counter(), time.process_time()
        slots = {"A": strategy, "B": strategy} if game == "peer-to-peer" else \
            {f"seat{s}": strategy for s in range(players)}
        out = work / f"replay-{game}-{players}p-{strategy}"
        api.run(game=game, players=players, strategies=slots, games=check, seed=seed,
                threads=threads, progress=False, out=str(out))
        new = api.load_games(out).sort("game_index").collect()
        then = (api.load_games(old).filter(pl.col("game_index") < check).sort("game_index")
                .select(new.columns).collect())
        shutil.rmtree(out, ignore_errors=True)
        if not new.equals(then):
            print(f"{old}: its first {check:,} games differ from today's; not adopted")
            continue
        return {"game": game, "players": players, "strategy": strategy, "games": games,
                "seed": seed, "threads": manifest.get("threads", "?"),
                "wall_s": round(float(manifest.get("wall_seconds") or 0), 1), "cpu_s": "?",
                "load": ["?", "?"], "counts": counts_of(game, summary, games),
                "plays_like": summary.get("plays_like_players"),
                "adopted": f"{old} (first {check:,} games replayed identically in "
                           f"{time.perf_counter() - began:.0f} s wall, "
                           f"{time.process_time() - cpu0:.0f} s CPU)"}
    return None


def pct(count: int, n: int) -> str:
    rate, lo, hi = wilson(count, n)
    d = 3 if hi < 0.01 else 2          # rare outcomes (maintainers, stalemates) get a digit more
    return f"{100 * rate:.{d}f} [{100 * lo:.{d}f}-{100 * hi:.{d}f}]"


def move(new: tuple[int, int], old: tuple[int, int]) -> str:
    (a, n), (b, m) = new, old
    p, q = a / n, b / m
    se = math.sqrt(p * (1 - p) / n + q * (1 - q) / m)
    d = p - q
    k = 3 if max(p, q) < 0.01 else 2
    return f"{100 * d:+.{k}f} [{100 * (d - 1.96 * se):+.{k}f}, {100 * (d + 1.96 * se):+.{k}f}]"


def columns(row: dict) -> dict[str, tuple[int, int]]:
    """Each headline's (count, n): rates over all games; team A's share over won games."""
    c, n = row["counts"], row["games"]
    out = {k: (v, n) for k, v in c.items()}
    if row["game"] == "peer-to-peer":
        out = {"everyone loses": (c["all_lose"], n), "team A wins": (c["A"], n),
               "team B wins": (c["B"], n), "team A's share of won games": (c["A"], c["A"] + c["B"])}
    return out


def tables(rows: list[dict]) -> str:
    lines = ["Every rate in %, Wilson 95 % interval; a move is expert minus the baseline "
             "strategy in percentage points with its 95 % interval (independent runs on the "
             "same seed and game indices). Team A is the larger team at 3 and 5 players.", ""]
    for game, (counts, new, old) in GAMES.items():
        by = {(r["players"], r["strategy"]): r for r in rows if r["game"] == game}
        if not by:
            continue
        alike = sorted({(r["players"], r["plays_like"]) for r in by.values()
                        if r.get("plays_like") and r["plays_like"] != r["players"]})
        if alike:
            lines += [" ".join(f"{p} players play exactly like {q} under the default rules "
                               f"(the run's plays_like_players: the same seats once the "
                               f"per-player-count options are resolved), so the {p}-player "
                               f"row repeats the {q}-player row." for p, q in alike), ""]
        heads = list(dict.fromkeys(h for p in counts for s in (new, old) if (p, s) in by
                                   for h in columns(by[(p, s)])))
        heads.sort(key=lambda h: (0, int(h.split()[1])) if h.startswith("seat ") else (1, 0))
        for strategy in (new, old):
            lines += [f"### {game}: {strategy} v {strategy}", "",
                      "| players | games | " + " | ".join(heads) + " |",
                      "|---|---:|" + "---|" * len(heads)]
            for p in counts:
                r = by.get((p, strategy))
                if r is None:
                    continue
                cols = columns(r)
                cells = [pct(*cols[h]) if h in cols else "" for h in heads]
                lines.append(f"| {p} | {r['games']:,} | " + " | ".join(cells) + " |")
            lines.append("")
        lines += [f"### {game}: move from {old} to {new} (pp)", "",
                  "| players | " + " | ".join(heads) + " |", "|---|" + "---|" * len(heads)]
        for p in counts:
            a, b = by.get((p, new)), by.get((p, old))
            if a is None or b is None:
                continue
            ca, cb = columns(a), columns(b)
            lines.append(f"| {p} | " + " | ".join(move(ca[h], cb[h]) if h in ca and h in cb
                                                  else "" for h in heads) + " |")
        lines.append("")
    lines += ["### Runs", "", "| game | players | strategy | games | seed | threads | wall s | "
              "CPU s | load (start, end) | date | played by | command |",
              "|---|---|---|---:|---|---|---:|---:|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['game']} | {r['players']} | {r['strategy']} | {r['games']:,} | "
                     f"{r['seed']} | {r['threads']} | {r['wall_s']} | {r['cpu_s']} | "
                     f"{r['load'][0]}, {r['load'][1]} | {r.get('date', '?')} | "
                     f"{('adopted: ' + r['adopted']) if r.get('adopted') else 'this script'} | "
                     f"{('`' + r['command'] + '`') if r.get('command') else '?'} |")
    return "\n".join(lines) + "\n"


def arguments() -> argparse.ArgumentParser:
    # no abbreviations: whole_file_command finds --game and --tables-only by their names
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--games", default="1e6")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--game", choices=list(GAMES), action="append",
                        help="only this game (repeatable; default both)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "closing_tables.md"))
    parser.add_argument("--work", default=None, help="scratch directory for the runs")
    parser.add_argument("--adopt", action="append", default=[], metavar="DIR",
                        help="take finished runs DIR/<strategy>-<P>p made earlier "
                             "whose first --check-games games replay identically")
    parser.add_argument("--check-games", type=int, default=20_000)
    parser.add_argument("--baseline", default=None, metavar="STRATEGY",
                        help="compare expert with this strategy in both games (e.g. "
                             "expert-v1; default: the hand-written baselines)")
    parser.add_argument("--tables-only", action="store_true",
                        help="rewrite the markdown from the .json of earlier runs; play nothing")
    return parser


def main() -> int:
    args = arguments().parse_args()
    if args.baseline:
        for game, (counts, new, _) in list(GAMES.items()):
            GAMES[game] = (counts, new, args.baseline)
    games = int(float(args.games))
    out = Path(args.out)
    raw = out.with_suffix(".json")
    rows = json.loads(raw.read_text()) if raw.exists() else []
    done = {(r["game"], r["players"], r["strategy"], r["games"], r["seed"]) for r in rows}
    if args.tables_only:
        save(out, rows)
        print(f"tables: {out}")
        return 0
    from benchmarks.latest import command_line

    work = Path(args.work or tempfile.mkdtemp(prefix="cardsim-closing-"))
    work.mkdir(parents=True, exist_ok=True)
    for game in args.game or list(GAMES):
        counts, new, old = GAMES[game]
        for p in counts:
            for strategy in (new, old):
                if (game, p, strategy, games, args.seed) in done:
                    continue          # a rerun picks up where an interrupted one stopped
                row = adopt(game, p, strategy, games, args.seed, args.threads, args.adopt,
                            args.check_games, work) if args.adopt else None
                row = row or play(game, p, strategy, games, args.seed, args.threads, work)
                rows.append({**row, "command": command_line()})
                raw.write_text(json.dumps(rows, indent=1))
                save(out, rows)
                print(f"{game} {p}p {strategy}: {row['wall_s']} s wall, {row['cpu_s']} s CPU",
                      flush=True)
    save(out, rows)
    print(f"tables: {out}")
    return 0


def whole_file_command(argv: list[str], games: set[str]) -> str:
    """The command that makes every row of the file (of ``games``): ``argv`` without
    ``--tables-only``, and without ``--game`` where the file also holds rows of a game it
    leaves out (a rerun without it plays both games and picks those rows up from the
    .json). Each run's own command is in the Runs table."""
    asked = {a.split("=", 1)[1] for a in argv if a.startswith("--game=")} | {
        b for a, b in zip(argv, argv[1:]) if a == "--game"}
    drop = bool(asked) and not games <= asked
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == "--game" and drop:
            skip = True
        elif not ((drop and arg.startswith("--game=")) or arg == "--tables-only"):
            kept.append(arg)
    return shlex.join(kept)


def save(out: Path, rows: list[dict]) -> None:
    from benchmarks.latest import command_line, write

    command = whole_file_command(shlex.split(command_line()), {r["game"] for r in rows})
    write(out.stem, "Default rates: expert v expert, and the strategies it is compared with",
          tables(rows), out=out, command=command)


if __name__ == "__main__":
    sys.exit(main())
