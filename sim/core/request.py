"""The two values every command that plays games is given (``sim.api``, the studies, the
CLI): a ``GameRequest`` (which game, how it is set up) and an ``Execution`` (how many games,
which seed, where and how they play).

    >>> from sim.core.request import Execution, GameRequest
    >>> request = GameRequest(game="plai", players=3, strategies={"all": "cautious"})
    >>> execution = Execution(games=20_000, seed=7, backend="dask-local",
    ...                       backend_options={"workers": 2})

``split(fields)`` sorts keyword arguments into the two (the keyword form of ``sim.api``:
``api.run(game="plai", players=3, games=20_000)``).
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any, Mapping

from sim.core.catalog import DEFAULT_GAME


@dataclass(frozen=True)
class GameRequest:
    """What the user asked to play: the game, its player count (None: the game's usual
    count), card file, rules file, rule overrides (``KEY=VALUE``), strategies (slot ->
    spec, e.g. ``{"A": "greedy"}`` or ``{"seat0": "bluffer", "all": "cautious"}``) and the
    invariant checks. Immutable and hashable; the strategies are kept as (slot, spec) pairs
    in the order given."""

    game: str = DEFAULT_GAME
    players: int | None = None
    cards: str | os.PathLike | None = None
    rules_file: str | os.PathLike | None = None
    rule_overrides: tuple[str, ...] = ()
    strategies: Any = ()          # a Mapping on the way in, (slot, spec) pairs inside
    debug: bool = False

    def __post_init__(self) -> None:
        overrides = self.rule_overrides
        if isinstance(overrides, str):
            overrides = (overrides,)
        object.__setattr__(self, "rule_overrides", tuple(str(o) for o in (overrides or ())))
        strategies = self.strategies or ()
        pairs = strategies.items() if isinstance(strategies, Mapping) else strategies
        object.__setattr__(self, "strategies", tuple((str(k), str(v)) for k, v in pairs))
        object.__setattr__(self, "debug", bool(self.debug))

    @property
    def strategy_map(self) -> dict[str, str] | None:
        """The strategies as ``Game.configure`` takes them (None: the game's defaults)."""
        return dict(self.strategies) or None

    def as_request(self) -> dict[str, Any]:
        """The manifest's ``request`` dict (``sim.core.game.game_request``)."""
        from sim.core.game import game_request

        return game_request(self.cards, self.rules_file, self.rule_overrides,
                            self.strategy_map, self.debug)

    def player_count(self) -> int:
        """The player count this request plays (checked against the game's counts)."""
        from sim.core.game import player_count, resolve_game

        return player_count(resolve_game(self.game), self.players)

    def configure(self):
        """A validated GameConfig (raises UserError on bad input)."""
        from sim.core.game import configure

        return configure(self.game, self.players, self.cards, self.rules_file,
                         self.rule_overrides, self.strategy_map, self.debug)

    def replace(self, **changes: Any) -> "GameRequest":
        return dataclasses.replace(self, **changes)


@dataclass(frozen=True)
class Execution:
    """How the games of a command play: how many (``games``; None: the command's default),
    the seed, kernel threads (None: every CPU this process may use, one per Dask task),
    games per chunk, the backend (``"local"``, ``"dask"`` with
    ``backend_options={"scheduler": "tcp://HOST:8786"}``, ``"dask-local"`` with
    ``{"workers": N}``, or a ``sim.runs.backends.Backend`` object, not closed by the
    command), the progress bar, the output (run directory or file), ``until_ci`` (stop
    when every headline interval is narrower than this many percentage points) and the
    command line recorded in manifests (None: this process's own)."""

    games: int | str | None = None
    seed: int | str = 1
    threads: int | None = None
    chunk_size: int | None = None
    backend: Any = None
    backend_options: Mapping[str, Any] | None = None
    progress: bool = True
    out: str | os.PathLike | None = None
    until_ci: float | str | None = None
    command_line: str | None = None

    def replace(self, **changes: Any) -> "Execution":
        return dataclasses.replace(self, **changes)

    def backend_args(self) -> dict[str, Any]:
        """``backend=..., backend_options=...`` for the layers that take them apart."""
        return {"backend": self.backend, "backend_options": self.backend_options}


REQUEST_FIELDS = tuple(f.name for f in dataclasses.fields(GameRequest))
EXECUTION_FIELDS = tuple(f.name for f in dataclasses.fields(Execution))


def split(request: "GameRequest | str | None" = None, execution: Execution | None = None,
          fields: Mapping[str, Any] | None = None, *, command: str = "this function",
          allowed: tuple[str, ...] | None = None) -> tuple[GameRequest, Execution]:
    """(GameRequest, Execution) from the values given and keyword ``fields`` (which win:
    ``api.run(request, games=100)`` changes only the games). ``request`` may be a game
    name. ``allowed`` limits the field names (an unknown one is a TypeError, as for any
    Python keyword)."""
    if isinstance(request, str):
        request = GameRequest(game=request)
    elif request is None:
        request = GameRequest()
    elif not isinstance(request, GameRequest):
        raise TypeError(f"{command}: request must be a GameRequest or a game name, "
                        f"got {type(request).__name__}")
    execution = execution if execution is not None else Execution()
    if not isinstance(execution, Execution):
        raise TypeError(f"{command}: execution must be an Execution, got "
                        f"{type(execution).__name__}")
    fields = dict(fields or {})
    names = allowed if allowed is not None else REQUEST_FIELDS + EXECUTION_FIELDS
    unknown = [name for name in fields if name not in names]
    if unknown:
        raise TypeError(f"{command} got an unexpected keyword argument '{unknown[0]}'")
    game_part = {k: v for k, v in fields.items() if k in REQUEST_FIELDS}
    run_part = {k: v for k, v in fields.items() if k in EXECUTION_FIELDS}
    if game_part:
        request = request.replace(**game_part)
    if run_part:
        execution = execution.replace(**run_part)
    return request, execution
