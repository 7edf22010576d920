"""An example game of an answer, picked from a run's games table: the game a designer
opens in the game viewer beside "show an example" (the workbench).

The game says which games show an answer (its description's ``answer_examples``, an
``ExampleQuery`` per answer key; sim/core/examples.py); this module runs the query on the
run's games, a lazy scan of its Parquet parts (only the best rows are collected, so memory
does not grow with the run), and, for a query that names a swap, replays the best
candidates under the swap (``CANDIDATES`` at most, about 2 ms a game) and keeps the first
whose outcome changes: the game the first marker decided, not only one it may have.
Every candidate is first replayed as stored (all its columns must match), so the game the
viewer shows is the game the table holds.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping

from sim.core.errors import UserError
from sim.core.game import resolve_game

CANDIDATES = 200      # games replayed under a swap at most, best first


@dataclass
class Example:
    """One answer's example game in one run: ``game_index`` None when no game shows it."""

    question: str
    shows: str                     # what the example shows ("a game everyone lost")
    game_index: int | None
    words: str                     # the game in words, or why there is none
    players: int
    seed: int
    games: int                     # the run's games searched
    replayed: int = 0              # candidates replayed under the swap

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def example_questions(game: Any) -> tuple[str, ...]:
    """The answer keys that have an example game in this game."""
    return tuple(game.answer_examples)


def find_example(run_dir: str | Path, answer: Mapping[str, Any]) -> Example | None:
    """The example game of ``answer`` (an answers.json record: question, value, even,
    causes...) in the run ``run_dir``; None when the game declares no example for the
    question, or the answer has none in this run (e.g. no main cause)."""
    from sim.runs.rundir import MANIFEST
    from sim.runs.setup import load_games

    path = Path(run_dir)
    try:
        manifest = json.loads((path / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UserError(f"cannot read the run's manifest ({exc})", file=str(path)) from None
    game = resolve_game(manifest["game"])
    build = game.answer_examples.get(str(answer.get("question")))
    if build is None:
        return None
    games = load_games(path)
    query = build(answer, manifest, games)
    if query is None:
        return None
    seed, players = int(manifest["seed"]), int(manifest["players"])
    total = int(games.select("game_index").count().collect().item())
    found = candidates(games, query, CANDIDATES if query.swap else 1)
    example = Example(question=str(answer["question"]), shows=query.shows, game_index=None,
                      words=f"none of the run's {total:,} games is {query.shows}",
                      players=players, seed=seed, games=total)
    if found.height == 0:
        return example
    if query.swap is None:
        row = found.row(0, named=True)
        example.game_index = int(row["game_index"])
        example.words = f"game {example.game_index}: {query.describe(row, None)}"
        return example
    return _decided(example, query, found, manifest, game)


def candidates(games, query, limit: int):
    """The best ``limit`` games of ``games`` (a polars LazyFrame or DataFrame) that show
    ``query``, best first (its order, then the lowest game index), every column."""
    by = [expr for expr, _ in query.order] + ["game_index"]
    descending = [desc for _, desc in query.order] + [False]
    return (games.lazy().filter(query.where).sort(by, descending=descending).head(limit)
            .collect())


def _decided(example: Example, query, found, manifest: Mapping[str, Any], game) -> Example:
    """The first candidate of ``found`` whose replay under the query's swap ends with
    another outcome (its outcome and headline columns)."""
    from sim.runs.setup import configure_from_manifest

    swap = next((s for s in game.swaps if s.cause == query.swap), None)
    config = configure_from_manifest(manifest)
    variants = swap.variants(config) if swap is not None else []
    if not variants:
        example.words = f"the game has no '{query.swap}' replay for this run"
        return example
    label, swapped_config = variants[0]
    columns = tuple(dict.fromkeys((game.outcome_column,
                                   *game.headline_columns)))
    seed = example.seed
    for row in found.iter_rows(named=True):
        index = int(row["game_index"])
        example.replayed += 1
        stored = config.run_chunk(seed, index, 1).row(0, named=True)
        if any(stored[c] != row[c] for c in stored if c in row):   # every column
            example.words = (f"game {index} no longer plays as stored (the simulator changed "
                             "since the run); no example")
            return example
        swapped = swapped_config.run_chunk(seed, index, 1).row(0, named=True)
        if any(swapped[c] != row[c] for c in columns):
            example.game_index = index
            example.words = f"game {index}: {query.describe(row, swapped)}"
            return example
    example.words = (f"none of the {example.replayed} best candidates of the run's "
                     f"{example.games:,} games ends differently with {label}; no game shows "
                     f"{query.shows}")
    return example
