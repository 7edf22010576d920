"""What keeping a run's search games costs, against playing them. Not run by pytest.

    python benchmarks/kept_search.py                  # Peer-to-Peer, 4 players
    python benchmarks/kept_search.py --games 400 --chunk 4

A stronger-play check keeps every chunk of search games it plays in the run directory
(sim.runs.kept_search), and a later check reads them back instead of playing them. This
plays ``--games`` search games (``search`` over the default on every side, seed 1) in
chunks of ``--chunk`` through the keeper into an empty folder, ``--rounds`` times, and
reports the medians of: the seconds the games took to play (what a check's budget
counts), the keeper's own seconds on top (writing each chunk as a Parquet part, durably,
and indexing it), and the seconds a fresh keeper takes to read the same games back.
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


def one_round(config, games: int, chunk: int, threads: int) -> tuple[float, float, float]:
    """(play seconds, keeping seconds, read-back seconds) of one round."""
    from sim.runs.kept_search import SECONDS_COLUMN, KeptSearchGames

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "stronger-play" / "key"
        kept, played = KeptSearchGames(), 0.0
        began = time.perf_counter()
        for first in range(1, games + 1, chunk):
            table, _ = kept.games(config, folder, 1, first, min(chunk, games + 1 - first),
                                  threads)
            played += float(table[SECONDS_COLUMN].sum())
        whole = time.perf_counter() - began
        again = KeptSearchGames()
        began = time.perf_counter()
        for first in range(1, games + 1, chunk):
            again.games(config, folder, 1, first, min(chunk, games + 1 - first), threads)
        return played, whole - played, time.perf_counter() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="peer-to-peer")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--chunk", type=int, default=4, help="games a chunk (a check plays "
                        "2 x threads)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    from benchmarks.latest import write
    from reports.stronger import searched
    from sim.core.game import configure_request, game_request, resolve_game

    game = resolve_game(args.game)
    request = searched(game, args.players, {"request": game_request(None, None, (), None,
                                                                      False)})
    config = configure_request(game, args.players, request)
    config.run_chunk(1, 0, 1, 1)     # compiles or loads the search player
    rounds = [one_round(config, args.games, args.chunk, args.threads)
              for _ in range(args.rounds)]
    play, keep, read = (statistics.median(r[i] for r in rounds) for i in range(3))
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
        f"| keeping them (Parquet part, durable write, index) | {keep:.2f} | "
        f"{1000 * keep / chunks:.1f} | {100 * keep / play:.1f} % |",
        f"| reading them back (a fresh keeper) | {read:.2f} | {1000 * read / chunks:.1f} | "
        f"{100 * read / play:.1f} % |"])
    write("kept_search", "What keeping a run's search games costs", body)


if __name__ == "__main__":
    main()
