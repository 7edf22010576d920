"""What keeping a run's search games costs, against playing them. Not run by pytest.

    python benchmarks/kept_search.py                  # Peer-to-Peer, 4 players, 100 chunks
    python benchmarks/kept_search.py --games 200 --chunk 1

A stronger-play check keeps every chunk of search games it plays in the run directory
(sim.runs.kept_search), and a later check reads them back instead of playing them. This
plays ``--games`` search games (``search`` over the default on every side, seed 1) in
chunks of ``--chunk`` through the keeper into an empty folder, ``--rounds`` times, and
reports the medians of: the seconds the games took to play (what a check's budget
counts), the keeper's own seconds on top (writing each chunk as a Parquet part, durably,
indexing it, and merging the parts), and the seconds a fresh keeper takes to read the
same games back. Past KeptSearchGames.MOST_PARTS parts the keeper merges a folder's parts
into one; the same games are also written part by part with no merge (replayed from the
kept table, not played) and read back from there, so both layouts are timed in one run.
Replaces benchmarks/results/kept_search.md.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class Replayed:
    """Stands in for the searched configuration: its games are rows of a kept table."""

    def __init__(self, table) -> None:
        self.table = table

    def run_chunk(self, seed, first, count, threads):
        import polars as pl

        return self.table.filter(pl.col("game_index").is_between(first, first + count - 1))


def read_back(keeper, config, folder: Path, games: int, chunk: int, threads: int) -> float:
    """Seconds ``keeper`` takes to read games 1..games back, chunk by chunk."""
    began = time.perf_counter()
    for first in range(1, games + 1, chunk):
        keeper.games(config, folder, 1, first, min(chunk, games + 1 - first), threads)
    return time.perf_counter() - began


def one_round(config, games: int, chunk: int, threads: int) -> tuple[float, ...]:
    """(play seconds, keeping seconds, read-back seconds, read-back seconds from parts
    never merged) of one round."""
    import polars as pl

    from sim.runs.kept_search import SECONDS_COLUMN, KeptSearchGames

    class Unmerging(KeptSearchGames):
        MOST_PARTS = 10 ** 9

    with tempfile.TemporaryDirectory() as tmp:
        folder, unmerged = Path(tmp) / "stronger-play" / "key", Path(tmp) / "unmerged"
        kept, played, tables = KeptSearchGames(), 0.0, []
        began = time.perf_counter()
        for first in range(1, games + 1, chunk):
            table, _ = kept.games(config, folder, 1, first, min(chunk, games + 1 - first),
                                  threads)
            played += float(table[SECONDS_COLUMN].sum())
            tables.append(table)
        whole = time.perf_counter() - began
        read = read_back(KeptSearchGames(), config, folder, games, chunk, threads)
        replayed = Replayed(pl.concat(tables).drop(SECONDS_COLUMN))
        read_back(Unmerging(), replayed, unmerged, games, chunk, threads)
        read_unmerged = read_back(Unmerging(), replayed, unmerged, games, chunk, threads)
        return played, whole - played, read, read_unmerged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="peer-to-peer")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--chunk", type=int, default=4, help="games a chunk (a check plays "
                        "2 x threads)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from benchmarks.latest import write
    from reports.stronger import searched
    from sim.runs.kept_search import KeptSearchGames
    from sim.core.game import configure_request, game_request, resolve_game

    game = resolve_game(args.game)
    request = searched(game, args.players, {"request": game_request(None, None, (), None,
                                                                      False)})
    config = configure_request(game, args.players, request)
    config.run_chunk(1, 0, 1, 1)     # compiles or loads the search player
    rounds = [one_round(config, args.games, args.chunk, args.threads)
              for _ in range(args.rounds)]
    play, keep, read, read_unmerged = (statistics.median(r[i] for r in rounds)
                                       for i in range(4))
    chunks = -(-args.games // args.chunk)
    strategies = ", ".join(f"{s}={v}" for s, v in request["strategies"].items())
    body = "\n".join([
        f"{args.game}, {args.players} players, {strategies}: {args.games} search games in "
        f"{chunks} chunks of {args.chunk} ({args.threads} threads), medians of "
        f"{args.rounds} rounds.", "",
        "| | seconds | per chunk (ms) | of the play time |",
        "|---|---|---|---|",
        f"| playing the games (a check's budget counts this) | {play:.2f} | "
        f"{1000 * play / chunks:.1f} | 100 % |",
        f"| keeping them (Parquet parts, durable writes, index, merges) | {keep:.2f} | "
        f"{1000 * keep / chunks:.1f} | {100 * keep / play:.1f} % |",
        f"| reading them back (a fresh keeper) | {read:.2f} | {1000 * read / chunks:.1f} | "
        f"{100 * read / play:.1f} % |",
        f"| reading them back from one part a chunk (never merged) | {read_unmerged:.2f} | "
        f"{1000 * read_unmerged / chunks:.1f} | {100 * read_unmerged / play:.1f} % |", "",
        f"The keeper merges a folder's parts into one past {KeptSearchGames.MOST_PARTS} "
        f"parts; the games are the same in both layouts."])
    write("kept_search", "What keeping a run's search games costs", body)


if __name__ == "__main__":
    main()
