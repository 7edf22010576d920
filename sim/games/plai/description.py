"""The parts of PLAI's description (``GAME`` in game.py) that are functions: its compiled
entry points, its strategy slots (seats, with the keys ``seatN``, ``N`` and ``all``) and keys, the pairing label,
who won each game, the headline counts and the sweep's default metrics."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import polars as pl

from sim.core.strategy import seat_number
from sim.core.strategy import seat_specs as _fill_seats
from sim.games.plai import constants as c

DEFAULT_STRATEGY = "expert"          # the tuned strategy (strategies/plai/expert.yaml)
DEFAULT_KEYS = ("all", "default")   # strategy keys meaning "every seat not given"
# outcomes: constants.OUT_* (PLAI-T6); ``winner`` is the winning seat
OUTCOME_CODES = {"seat": c.OUT_SEAT, "maintainers": c.OUT_MAINTAINERS,
                 "stalemate": c.OUT_STALEMATE}


def kernels() -> tuple:
    """The compiled entry points a run calls (imported here, not compiled)."""
    from sim.games.plai.engine_kernel import play_games

    return (play_games,)


def strategy_slots(players: int) -> tuple[str, ...]:
    return tuple(f"seat{s}" for s in range(players))


def strategy_key(key: str, players: int | None = None) -> str:
    """"seat2" or "2" -> "seat2"; "all" stays "all" (every seat not given)."""
    if key == "all":
        return "all"
    seat = seat_number(key)
    if seat is None or (players is not None and seat >= players):
        raise ValueError(f"expected a seat (seat0, 1, ...) or 'all', got '{key}'")
    return f"seat{seat}"


def seat_specs(players: int, strategies: Mapping[str, str] | None) -> dict[str, str]:
    """{"seat0": spec, ...}: per-seat keys over the default ("all"), see strategy_key."""
    return _fill_seats(players, strategies, DEFAULT_STRATEGY, DEFAULT_KEYS)


def pairing(manifest: Mapping[str, Any]) -> str:
    """A short label for a run's seats, from the specs as given (the manifest's strategies
    also list every default weight): "weighted x4" or "bluffer:rate=0.3 vs cautious vs
    cautious"."""
    request = (manifest.get("request") or {}).get("strategies") or None
    try:
        specs = list(seat_specs(int(manifest["players"]), request).values())
    except Exception:  # noqa: BLE001 - an odd manifest still gets a label
        specs = [str(v.get("name", "?")) if isinstance(v, dict) else str(v)
                 for v in (manifest.get("strategies") or {}).values()]
    if specs and len(set(specs)) == 1:
        return f"{specs[0]} x{len(specs)}"
    return " vs ".join(specs)


def game_results(games: pl.DataFrame, players: int) -> tuple[np.ndarray, dict[str, int]]:
    """Who won each game, one code a game: the winning seat s (0 .. players-1) when a
    startup won, ``players`` when the maintainers won, ``players + 1`` for a stalemate;
    with their names ({"seat 0 win": 0, ..., "maintainers win": players, "stalemate":
    players + 1}), the headlines `simulate ablate` counts (``GAME.ablation_outcomes``)."""
    w, o = games["winner"].to_numpy(), games["outcome"].to_numpy()
    codes = np.full(len(o), -1, dtype=np.int64)
    seat = o == c.OUT_SEAT
    codes[seat] = w[seat]
    codes[o == c.OUT_MAINTAINERS] = players
    codes[o == c.OUT_STALEMATE] = players + 1
    names = {f"seat {s} win": s for s in range(players)}
    names.update({"maintainers win": players, "stalemate": players + 1})
    return codes, names


def headline_counts(games: pl.DataFrame, players: int) -> dict[str, int]:
    """Each seat's and the maintainers' wins and the stalemates: one count per game, so a
    comparison shows what an edit of ``max_turns`` does to the stalemates."""
    codes, names = game_results(games, players)
    return {f"{name} rate": int((codes == code).sum()) for name, code in names.items()}


def default_sweep_metrics(players: tuple[int, ...]) -> tuple[str, ...]:
    """Every seat the largest player count has, the first and last player's advantage,
    the maintainers' win rate, the stalemate rate and the mean length."""
    from sim.games.plai.sweep_metrics import SWEEP_SEATS

    seats = max(players) if players else SWEEP_SEATS
    return tuple(f"seat{s}_win_rate" for s in range(seats)) + (
        "first_player_advantage", "last_player_advantage", "maintainers_win_rate",
        "stalemate_rate", "mean_turns")


def curve_series(players: int) -> tuple:
    """The per-turn curves (curves_kernel.py's columns) a report draws at ``players``."""
    from sim.core.curves import Curve
    from sim.games.plai import constants as ck   # no compiled code: a report reads it

    hands = tuple(Curve(f"hand_seat{s}", f"seat {s}'s hand at the end of the turn",
                        "hand size by seat", ck.K_HAND0 + s) for s in range(players))
    return (*hands,
            Curve("fights", "fights in the turn (pitches and ventures attacked, takeovers)",
                  "fights per turn", ck.K_FIGHTS),
            Curve("fundings", "startups' fundings in the turn (family, regional, venture)",
                  "fundings per turn", ck.K_FUNDINGS),
            Curve("bankruptcies", "seats gone bankrupt at the end of the turn",
                  "bankruptcies per turn", ck.K_BANKRUPT))
