"""Strategy plug-ins: one file per strategy, compiled into the core as a weight vector.

A strategy is a module ``strategies/<game_pkg>/<name>.py`` with a module-level
``STRATEGY = Strategy(...)``. The game defines named features for each decision and a
vector of default weights; a strategy overrides only the weights it changes. The kernel
scores every legal option of a decision as ``weights . features`` and takes the best
(first in the game's documented option order on ties), so no Python runs per decision,
the kernel compiles once and caches, and a new strategy needs no engine edit.

Parameters (``builder:threshold=12``) are plain floats handed to ``Strategy.weights``.
A spec ``@FILE`` names a strategy file (what ``simulate tune`` writes) instead.
"""
from __future__ import annotations

import importlib
import math
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from sim.core.errors import UserError


@dataclass(frozen=True)
class Strategy:
    name: str
    summary: str
    weights: Callable[[Mapping[str, float]], Mapping[str, float]]
    params: Mapping[str, float] = field(default_factory=dict)
    # The range a parameter must lie in, where it has one (bluffer's rate: a probability);
    # a value outside is refused when the spec is read.
    param_bounds: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    # Parameters whose values are names, not numbers (``search:base=expert``).
    text_params: Mapping[str, str] = field(default_factory=dict)
    # A search player: the game's search kernel plays it, over the weights
    # this strategy returns (its base strategy's), with ``k`` and ``n`` from its params.
    search: bool = False
    # Parameters a spec may give that have no default, so they are listed (in manifests,
    # summaries) only where given; their values are kept as text (search:record=4).
    optional_params: tuple[str, ...] = ()
    # Weights for one player count over ``weights`` (params, players) -> overrides; a
    # strategy file's ``by_players``. None: the same weights at every count.
    by_players: Callable[[Mapping[str, Any], int], Mapping[str, float]] | None = None

    def count_weights(self, params: Mapping[str, Any], players: int | None
                      ) -> Mapping[str, float]:
        if self.by_players is None or players is None:
            return {}
        return self.by_players(params, players)

    def vector(self, feature_names: tuple[str, ...], defaults: np.ndarray,
               params: Mapping[str, float] | None = None,
               expand: Callable[[str], tuple[str, ...]] | None = None,
               players: int | None = None) -> np.ndarray:
        """Default weights with this strategy's overrides applied (at ``players``, that
        count's on top), as float64.

        ``expand`` maps a key the strategy uses to the feature names it sets (a game
        with phases lets one key set a weight in every phase)."""
        merged: dict = dict(self.params)
        merged.update(self.text_params)
        merged.update(params or {})
        out = np.array(defaults, dtype=np.float64).copy()
        index = {n: i for i, n in enumerate(feature_names)}
        overrides = {**self.weights(merged)}
        overrides.update(self.count_weights(merged, players))
        for key, value in overrides.items():
            for name in (expand(key) if expand else (key,)):
                if name not in index:
                    raise ValueError(f"strategy {self.name}: unknown feature '{name}'")
                out[index[name]] = float(value)
        return out


def weights_sha256(*arrays: Any) -> str:
    """The SHA-256 of the weight vectors (and search budgets) a configuration plays: it
    changes when a strategy file is edited, which its name alone does not show (a run or
    a matchups continued after such an edit is refused). None stands for an absent array."""
    import hashlib

    digest = hashlib.sha256()
    for array in arrays:
        if array is None:
            digest.update(b"none;")
            continue
        array = np.ascontiguousarray(array)
        digest.update(f"{array.dtype.str}{array.shape};".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def registry(game_pkg: str) -> dict[str, Strategy]:
    """Every strategy in ``strategies/<game_pkg>/``, by name (files starting with _ are skipped)."""
    package = importlib.import_module(f"strategies.{game_pkg}")
    found: dict[str, Strategy] = {}
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"strategies.{game_pkg}.{info.name}")
        strategy = getattr(module, "STRATEGY", None)
        if isinstance(strategy, Strategy):
            found[strategy.name] = strategy
    return found


def parse_spec(spec: str, game_pkg: str, field_name: str = "strategy") -> tuple[Strategy, dict[str, float]]:
    """Parse ``name`` or ``name:key=value,key=value`` into a registered strategy and params,
    or ``@path.yaml`` into the strategy that file holds (sim/core/strategy_file.py)."""
    if spec.strip().startswith("@"):
        from sim.core.strategy_file import from_spec

        return from_spec(spec, game_pkg, field_name), {}
    known = registry(game_pkg)
    name, _, rest = spec.strip().partition(":")
    if name not in known:
        raise UserError(f"unknown strategy '{name}'; valid: {', '.join(sorted(known))}",
                        field=field_name)
    strategy = known[name]
    params: dict[str, float | str] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if eq and (key in strategy.text_params or key in strategy.optional_params):
            params[key] = value.strip()   # a name (search:base=expert), checked by the strategy
            continue
        # a search player passes other numbers to its base (search:base=builder,threshold=6),
        # which checks them when the weights are built
        if not eq or (key not in strategy.params and not strategy.search):
            valid = ", ".join(sorted([*strategy.params, *strategy.text_params,
                                      *strategy.optional_params])) or "(none)"
            raise UserError(f"strategy '{name}' has no parameter '{key}'; valid: {valid}",
                            field=field_name)
        try:
            number = float(value)
        except ValueError:
            raise UserError(f"parameter '{key}' of strategy '{name}' must be a number, got '{value}'",
                            field=field_name) from None
        if not math.isfinite(number):
            raise UserError(f"parameter '{key}' of strategy '{name}' must be a finite number, "
                            f"got '{value}'", field=field_name)
        lo, hi = strategy.param_bounds.get(key, (-math.inf, math.inf))
        if not lo <= number <= hi:
            raise UserError(f"parameter '{key}' of strategy '{name}' must be between {lo:g} "
                            f"and {hi:g}, got {number:g}", field=field_name)
        params[key] = number
    return strategy, params


def seat_specs(players: int, strategies: Mapping[str, str] | None, default: str,
               default_keys: tuple[str, ...] = ("all", "default")) -> dict[str, str]:
    """{"seat0": spec, ...} for a game of seats: per-seat keys ("seat2" or "2") over a
    default (any of ``default_keys``, else ``default``). An unknown seat is a UserError
    listing the valid keys."""
    given = dict(strategies or {})
    for key in default_keys:
        if given.get(key):
            default = given.pop(key)
        else:
            given.pop(key, None)
    specs = {f"seat{s}": default for s in range(players)}
    for key, spec in given.items():
        seat = seat_number(key)
        if seat is None or seat >= players:
            valid = ", ".join([*specs, *default_keys])
            raise UserError(f"no seat '{key}' in a {players}-player game; valid: {valid}",
                            field="strategies")
        if spec:
            specs[f"seat{seat}"] = spec
    return specs


def seat_number(key: str) -> int | None:
    """The seat of a per-seat strategy key, ``seat2`` or ``2`` -> 2; None for any other key.
    The one place the seat-key spelling is defined (CLI --seat, experiments, configure)."""
    key = str(key)
    seat = key[4:] if key.startswith("seat") else key
    return int(seat) if seat.isdigit() else None


def strategy_labels(manifest: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(slot, "name(k=v,...)") for each strategy of a run's manifest."""
    out = []
    for side, spec in (manifest.get("strategies") or {}).items():
        if isinstance(spec, dict):
            name = str(spec.get("name", "?"))
            params = spec.get("params") or {}
            if params:
                name += "(" + ",".join(f"{k}={v}" for k, v in sorted(params.items())) + ")"
        else:
            name = str(spec)
        out.append((str(side), name))
    return out


def team_pairing(manifest: Mapping[str, Any]) -> str:
    """A team game's label for reports: "greedy vs random", or "NAME (solo)" for one player."""
    names = strategy_labels(manifest)
    if int(manifest.get("players", 0)) == 1 or len(names) == 1:
        return f"{names[0][1]} (solo)" if names else "solo"
    return " vs ".join(n for _, n in names)


def at_counts(counts) -> str:
    """'at 1 player', 'at 2/5 players': where a per-count strategy file does something."""
    counts = list(counts)
    return f"at {'/'.join(map(str, counts))} player{'' if counts == [1] else 's'}"


def shipped(path, game: str, name: str = "expert", module: str | None = None):
    """A strategy a game ships as a file next to its module (``strategies/<g>/expert.yaml``,
    as ``simulate tune`` or ``simulate distill`` wrote it), registered under ``name``: returns the file read and
    the registered Strategy that plays its weights. One file serves every player count,
    with a count's own weights where it has them (``by_players``); the summary says where
    it was tuned."""
    from pathlib import Path

    from sim.core.strategy_file import read

    path = Path(path)
    tuned = read(str(path), game=game, field_name="/".join(path.parts[-3:]))

    def weights(params):
        return dict(tuned.weight_values)

    def by_players(params, players):
        return dict(tuned.count_values.get(players, {}))

    if module is not None:      # the strategy's own file, as every other strategy's weights
        weights.__module__ = module
    command = str((tuned.document.get("tuned_on") or {}).get("command") or "")
    how = ("learned from the search player by simulate distill"
           if command.startswith("simulate distill") else "tuned by simulate tune (self-play")
    counts = sorted(set(tuned.players) | set(tuned.count_values))
    # a per-count file plays its base's weights where it was not made (not in players) or
    # where its check kept them (score.<P>.kept_base)
    scores = tuned.document.get("score") or {}
    base_counts = sorted((set(tuned.count_values) - set(tuned.players)) | {
        int(p) for p, score in scores.items()
        if str(p).isdigit() and isinstance(score, dict) and score.get("kept_base")})
    own_counts = sorted(set(tuned.count_values) - set(base_counts))
    own = ("; weights of their own at " + "/".join(map(str, own_counts)) if own_counts else "")
    base = tuned.document.get("base")
    if base_counts and base:
        own += f"; {at_counts(base_counts)} {base}'s"
    # a per-count file may hold a count made by simulate tune (e.g. --against)
    per_count = (tuned.document.get("tuned_on") or {}).get("per_count") or {}
    tuned_counts = sorted(int(p) for p, part in per_count.items()
                          if str((part or {}).get("command") or "").startswith("simulate tune"))
    if tuned_counts and command.startswith("simulate distill"):
        own += f"; {at_counts(tuned_counts)} tuned by simulate tune"
    strategy = Strategy(
        name=name,
        summary=f"weights {how}{', ' if '(' in how else ' ('}default cards and rules, "
                f"{'/'.join(map(str, counts)) or '?'} players{own})",
        weights=weights, by_players=by_players if tuned.count_values else None,
    )
    return tuned, strategy


def search_player(game_pkg: str, *, summary: str, k: int, n: int, default_base: str,
                  module: str) -> Strategy:
    """A game's ``search`` strategy: its compiled player plays the weights of
    its base strategy (``base=``, any registered strategy but a search player, or a
    strategy file ``base=@FILE``), keeping the ``k`` best options and ``n`` samples of the
    hidden cards. Its other parameters are the base's (``search:base=builder,threshold=6``
    searches over ``builder:threshold=6``). ``record=E`` (``simulate distill``) has its
    games carry its decisions, with up to E options it did not play out per decision
    (``record_extra``). ``module`` is the strategy's own file, where its weights are said
    to come from."""

    def base_strategy(params) -> Strategy:
        name = str(params.get("base") or default_base)
        if name.startswith("@"):
            from sim.core.strategy_file import from_spec

            return from_spec(name, game_pkg, "strategy")
        known = {s_name: s for s_name, s in registry(game_pkg).items() if not s.search}
        if name not in known:
            raise UserError(f"search: unknown base strategy '{name}'; valid: "
                            f"{', '.join(sorted(known))}", field="strategy")
        return known[name]

    def base_params(base: Strategy, params) -> dict:
        """The base's parameters: its defaults, with the numbers the spec gave it, checked
        as the base's own spec checks them (parse_spec)."""
        given = {key: value for key, value in params.items()
                 if key not in ("k", "n", "base", "record")}
        for key in given:
            if key not in base.params:
                valid = ", ".join(sorted(["k", "n", "base", "record", *base.params]))
                raise UserError(f"strategy 'search' has no parameter '{key}', nor has its "
                                f"base '{base.name}'; valid: {valid}", field="strategy")
        if given:
            _, given = parse_spec(f"{base.name}:" + ",".join(
                f"{key}={value!r}" for key, value in given.items()), game_pkg)
        return {**base.params, **given}

    def weights(params):
        base = base_strategy(params)
        for key in ("k", "n"):   # counts: a fraction would be cut and still named as given
            if params[key] != int(params[key]) or params[key] < 1:
                raise UserError(f"search: {key} must be a whole number of at least 1, got "
                                f"{params[key]:g}", field="strategy")
        return dict(base.weights(base_params(base, params)))

    def by_players(params, players):
        base = base_strategy(params)
        return dict(base.count_weights(base_params(base, params), players))

    weights.__module__ = module
    return Strategy(name="search", summary=summary, weights=weights, by_players=by_players,
                    params={"k": float(k), "n": float(n)},
                    text_params={"base": default_base}, search=True,
                    optional_params=("record",))


def record_extra(params: Mapping[str, Any]) -> int | None:
    """A search player's ``record=E`` (search_player): E, or None when it does not record."""
    value = params.get("record")
    if value is None:
        return None
    try:
        extra = int(str(value))
    except ValueError:
        raise UserError(f"search: record must be a whole number of options, got '{value}'",
                        field="strategy") from None
    if extra < 0:
        raise UserError("search: record must be 0 or more", field="strategy")
    return extra
