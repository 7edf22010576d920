"""Building and playing run directories for experiments and ``--until-ci``.

Uses the same steps as ``sim.api.run`` (configure, manifest, RunDir, runner, summary), so
a point's run directory is an ordinary run: ``simulate report`` and ``--resume`` work on it.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Mapping


class ChunkHook:
    """A GameConfig that calls ``after(table, start, count)`` after each chunk it plays
    (everything else is the wrapped config's). Used for progress over many runs."""

    def __init__(self, config: Any, after: Callable[[Any, int, int], None]):
        self._config = config
        self._after = after

    def run_chunk(self, seed: int, start: int, count: int, threads: int = 1):
        table = self._config.run_chunk(seed, start, count, threads)
        self._after(table, start, count)
        return table

    def __getattr__(self, name: str) -> Any:
        return getattr(self._config, name)


def new_run(*, game: str, players: int | None, games: int, seed: int, cards: str | None,
            rules_file: str | None, rule_overrides: tuple[str, ...],
            strategies: Mapping[str, str] | None, out: str | Path | None,
            chunk_size: int | None, debug: bool, command_line: str | None,
            extra: Mapping[str, Any] | None = None):
    """(config, RunDir (locked; close it), manifest) of a new run; nothing played yet."""
    from sim import api, rundir

    games = api.parse_count(games, field="--games")
    seed = api._seed(seed)
    chunk = (rundir.default_chunk_size(games) if chunk_size is None
             else min(api.parse_count(chunk_size, "--chunk-size"), games))
    game_obj = api.resolve_game(game)
    players = api._players(game_obj, players)
    request = api._request(cards, rules_file, rule_overrides, strategies, debug)
    config = api._configure(game_obj, players, request)
    command_line = command_line if command_line is not None else api._command_line()
    manifest = api._new_manifest(game, players, games, seed, chunk, config, request, command_line)
    manifest.update(extra or {})
    out_path = Path(out) if out is not None else api._default_out(game, players, seed)
    run = rundir.RunDir.create(out_path, manifest)
    return config, run, manifest


def play(config: Any, run: Any, manifest: dict, *, threads: int | None,
         command_line: str | None, after: Callable[[Any, int, int], None] | None = None):
    """Play the run's missing chunks (no progress bar of its own) and summarize it."""
    from sim import api, runner

    threads = api.default_threads() if threads is None else threads
    played = ChunkHook(config, after) if after is not None else config
    manifest = runner.run_chunks(played, run, manifest, threads=threads, progress=False,
                                 command_line=command_line)
    return api._finish(config, run, manifest)
