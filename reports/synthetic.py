"""Synthetic Peer-to-Peer run directories that follow the data contract.

For tests and for trying the report without the engine. The numbers are random draws
with chosen outcome probabilities, not games: never read balance from them.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import polars as pl

DOMAINS = (("SV", "Service"), ("TE", "Technology"), ("SC", "Science"), ("IN", "Information"))
CARD_IDS = [f"{d}{v}" for d, _ in DOMAINS for v in range(1, 14)] + ["OPA", "OPB"]
CARD_NAMES = [f"{n} {v}" for _, n in DOMAINS for v in range(1, 14)] + ["Open Protocol A", "Open Protocol B"]
VENTURES = [i for i, cid in enumerate(CARD_IDS) if cid[2:].isdigit() and int(cid[2:]) >= 10]
TEAM_PLAYERS = {1: (1, 0), 2: (1, 1), 3: (2, 1), 4: (2, 2), 5: (3, 2), 6: (3, 3)}
DEFAULT_RULES = {"hand_size": 4, "initial_row": 2, "customer_patience": 2, "row_capacity": 0,
                 "max_rounds": 200, "odd_team_compensation": "extra_venture",
                 "unhappy_limit": {"1": 4, "2": 3, "3": 2, "4": 2, "5": 1, "6": 1}}


def seat_teams(players: int, compensation: str = "extra_venture") -> list[str]:
    a, b = TEAM_PLAYERS[players]
    if players in (3, 5) and compensation != "none":
        b += 1
    return ["A"] * a + ["B"] * b


def _team_counters(cols: dict, rng, n: int, team_b: bool = True) -> None:
    """Scores, values, assists, contests and cards sent of both teams (team B's zero and
    not drawn without a team B), drawn in this order."""
    for t in ("a", "b"):
        cols[f"score_{t}"] = rng.integers(0, 15, n).astype(np.int16) if (t == "a" or team_b) else np.zeros(n, np.int16)
    for t in ("a", "b"):
        cols[f"value_{t}"] = (cols[f"score_{t}"] * 7).astype(np.int16)
        cols[f"assists_{t}"] = rng.integers(0, 20, n).astype(np.int16)
    cols["contests"] = rng.integers(0, 5, n).astype(np.int16)
    cols["contests_won_a"] = (cols["contests"] // 2).astype(np.int16)
    cols["contests_won_b"] = (cols["contests"] - cols["contests_won_a"]).astype(np.int16)
    for d in ("score", "venture", "deck"):
        for t in ("a", "b"):
            cols[f"sent_{d}_{t}"] = (rng.integers(0, 8, n) if (t == "a" or team_b) else np.zeros(n)).astype(np.int16)


def _reason_columns(cols: dict, n: int, team_b: bool) -> None:
    """How contests were decided and why customers turned unhappy, derived without a draw
    (so every other column stays as it was): every contest on a higher card, every unhappy
    customer out of the deck's reach."""
    zero = np.zeros(n, np.int16)
    for t in ("a", "b"):
        cols[f"contests_higher_won_{t}"] = cols[f"contests_won_{t}"].copy()
        for step in ("tiebreak", "domain", "marker"):
            cols[f"contests_{step}_won_{t}"] = zero.copy()
    for suffix in ("", "_a", "_b"):
        for cause in ("deck", "draw", "capacity", "choice"):
            own = cause == "deck" and (suffix != "_b" or team_b)
            cols[f"unhappy_{cause}{suffix}"] = cols["unhappy"].copy() if own else zero.copy()


def synthetic_games(players: int, games: int, seed: int, *, p_a=0.4, p_b=0.35, p_draw=0.02,
                    p_all_lose=0.2, compensation="extra_venture", start=0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    n = games
    if players == 1:
        winner = np.where(rng.random(n) < p_a, 4, 3)
    else:
        p_to = 1.0 - p_a - p_b - p_draw - p_all_lose
        winner = rng.choice(6, size=n, p=[p_a, p_b, p_draw, p_all_lose, 0.0, p_to])
    teams = seat_teams(players, compensation)
    cols: dict[str, np.ndarray] = {
        "game_index": np.arange(start, start + n, dtype=np.int64),
        "players": np.full(n, players, np.int8),
        "winner": winner.astype(np.int8),
        "first_marker": (rng.random(n) < 0.5).astype(np.int8) if players > 1 else np.zeros(n, np.int8),
        "rounds": rng.integers(5, 25, n).astype(np.int16),
        "unhappy": rng.integers(0, 4, n).astype(np.int16),
    }
    _team_counters(cols, rng, n, team_b=players > 1)
    seats = len(teams)
    for s in range(6):
        if s < seats and not (compensation == "extra_venture_empty" and players in (3, 5) and s == seats - 1):
            cols[f"start_card_{s}"] = np.zeros(n, np.int16)  # filled below
        else:
            cols[f"start_card_{s}"] = np.full(n, -1, np.int16)
    for g in range(n):
        picks = rng.choice(VENTURES, size=seats, replace=False)
        for s in range(seats):
            if cols[f"start_card_{s}"][g] != -1:
                cols[f"start_card_{s}"][g] = picks[s]
    cols["error"] = np.zeros(n, np.int16)
    _reason_columns(cols, n, team_b=players > 1)
    for cid in CARD_IDS:
        cols[f"fate_{cid}"] = rng.integers(0, 9, n).astype(np.int8)
    return pl.DataFrame(cols)


def write_run(path, players: int = 4, games: int = 400, seed: int = 1, *,
              strategies=("greedy", "greedy"), compensation: str = "extra_venture",
              rules: dict | None = None, card_sha: str | None = None, complete: bool = True,
              df: pl.DataFrame | None = None, **probs) -> Path:
    """Write ``path/manifest.json`` and ``path/games/part-<seed>-0.parquet``."""
    path = Path(path)
    (path / "games").mkdir(parents=True, exist_ok=True)
    if df is None:
        df = synthetic_games(players, games, seed, compensation=compensation, **probs)
    r = dict(DEFAULT_RULES if rules is None else rules)
    r["odd_team_compensation"] = compensation
    manifest = {
        "game": "peer-to-peer", "players": players, "games": df.height, "seed": seed,
        "complete": complete, "package_version": "0.1.0", "wall_seconds": 0.5,
        "cards": {"path": "cards/default.csv",
                  "sha256": card_sha or hashlib.sha256(",".join(CARD_IDS).encode()).hexdigest(),
                  "ids": CARD_IDS, "names": CARD_NAMES},
        "rules": r,
        "strategies": {"A": {"name": strategies[0], "params": {}},
                       **({"B": {"name": strategies[1], "params": {}}} if players > 1 else {})},
        "seat_teams": seat_teams(players, compensation),
    }
    (path / "manifest.json").write_text(json.dumps(manifest, indent=2))
    df.write_parquet(path / "games" / f"part-{seed}-0.parquet")
    return path


def synthetic_part(players: int, games: int, seed: int, start: int = 0, *, p_a=0.4, p_b=0.35,
                   p_draw=0.02, p_all_lose=0.2, compensation="extra_venture") -> pl.DataFrame:
    """Like :func:`synthetic_games` (same columns and dtypes) but vectorised, for runs of
    millions of games (the memory benchmark); the draws differ from synthetic_games'."""
    rng = np.random.default_rng([seed, start])
    n = games
    p_to = 1.0 - p_a - p_b - p_draw - p_all_lose
    winner = rng.choice(6, size=n, p=[p_a, p_b, p_draw, p_all_lose, 0.0, p_to]).astype(np.int8)
    teams = seat_teams(players, compensation)
    seats = len(teams)
    cols: dict[str, np.ndarray] = {
        "game_index": np.arange(start, start + n, dtype=np.int64),
        "players": np.full(n, players, np.int8),
        "winner": winner,
        "first_marker": (rng.random(n) < 0.5).astype(np.int8),
        "rounds": rng.integers(5, 25, n).astype(np.int16),
        "unhappy": rng.integers(0, 4, n).astype(np.int16),
    }
    _team_counters(cols, rng, n)
    picks = np.asarray(VENTURES, dtype=np.int16)[
        rng.random((n, len(VENTURES))).argsort(axis=1)[:, :seats]]
    for s in range(6):
        empty = s >= seats or (compensation == "extra_venture_empty" and players in (3, 5)
                               and s == seats - 1)
        cols[f"start_card_{s}"] = np.full(n, -1, np.int16) if empty else picks[:, s]
    cols["error"] = np.zeros(n, np.int16)
    _reason_columns(cols, n, team_b=players > 1)
    for cid in CARD_IDS:
        cols[f"fate_{cid}"] = rng.integers(0, 9, n).astype(np.int8)
    return pl.DataFrame(cols)


def write_large_run(path, players: int, games: int, seed: int = 1, *, part_size: int = 1_000_000,
                    compensation: str = "extra_venture") -> Path:
    """A synthetic run of ``games`` games written part by part (``part-<k>.parquet`` of
    ``part_size`` games each, as the engine writes its chunks), in bounded memory."""
    path = Path(path)
    (path / "games").mkdir(parents=True, exist_ok=True)
    done = 0
    k = 0
    while done < games:
        n = min(part_size, games - done)
        synthetic_part(players, n, seed, done, compensation=compensation).write_parquet(
            path / "games" / f"part-{k:05d}.parquet")
        done += n
        k += 1
    head = synthetic_part(players, 1, seed, 0, compensation=compensation)
    write_run(path, players=players, games=1, seed=seed, compensation=compensation, df=head)
    (path / "games" / f"part-{seed}-0.parquet").unlink()     # the head part of write_run
    manifest = json.loads((path / "manifest.json").read_text())
    manifest["games"] = games
    (path / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return path


# ----------------------------------------------------------------------------- PLAI
PLAI_CARD_IDS = list(range(1, 34))
PLAI_CARD_NAMES = [f"Card {i}" for i in PLAI_CARD_IDS]
PLAI_COUNTS = ("deck_size", "fund_family", "fund_regional", "fund_venture", "regional_attacked",
               "regional_attack_won", "venture_attacked", "venture_attack_won", "takeovers",
               "takeovers_won", "bluffs_called", "specials", "negates", "events", "help_cards",
               "maintainer_family", "reshuffles", "deck_left", "discard_left", "pool_left",
               "max_pool")


def plai_part(players: int, games: int, seed: int, start: int = 0) -> pl.DataFrame:
    """Synthetic PLAI games with the engine's columns and dtypes (outcome, seats, fight
    counters, per-card fight columns ``card_att_<k>`` ... for 33 cards); random draws, for
    tests and the memory benchmark, never for balance."""
    rng = np.random.default_rng([seed, start, players])
    n = games
    i16 = lambda lo, hi: rng.integers(lo, hi, n).astype(np.int16)  # noqa: E731
    outcome = rng.choice(3, size=n, p=[0.9, 0.07, 0.03]).astype(np.int8)
    cols: dict[str, np.ndarray] = {
        "game_index": np.arange(start, start + n, dtype=np.int64),
        "players": np.full(n, players, np.int8),
        "outcome": outcome,
        "winner": np.where(outcome == 0, rng.integers(0, players, n), -1).astype(np.int8),
        "first_seat": rng.integers(0, players, n).astype(np.int8),
        "turns": i16(20, 200),
    }
    for name in PLAI_COUNTS:
        cols[name] = i16(0, 12)
    for won, of in (("regional_attack_won", "regional_attacked"),
                    ("venture_attack_won", "venture_attacked"), ("takeovers_won", "takeovers")):
        cols[won] = (rng.random(n) * (cols[of] + 1)).astype(np.int16)
        cols[won] = np.minimum(cols[won], cols[of])
    for s in range(5):
        cols[f"bankrupt_turn_{s}"] = np.where(s < players, i16(-1, 150), -1).astype(np.int16)
    for s in range(5):
        cols[f"hand_{s}"] = np.where(s < players, i16(0, 9), 0).astype(np.int16)
    cols["error"] = np.zeros(n, np.int16)
    k = len(PLAI_CARD_IDS)
    for side in ("att", "def"):
        played = rng.integers(0, 4, (k, n)).astype(np.int16)
        won = np.minimum(played, rng.integers(0, 3, (k, n))).astype(np.int16)
        cols.update({f"card_{side}_{j}": played[j] for j in range(k)})
        cols.update({f"card_{side}_won_{j}": won[j] for j in range(k)})
    order = [c for side in ("att", "def") for kind in ("", "won_")
             for c in (f"card_{side}_{kind}{j}" for j in range(k))]
    return pl.DataFrame({c: cols[c] for c in [*[c for c in cols if not c.startswith("card_")],
                                                *order]})


def write_plai_run(path, players: int, games: int, seed: int = 1, *,
                   part_size: int = 1_000_000) -> Path:
    """A synthetic PLAI run directory (manifest.json and parts ``part-<k>.parquet`` of
    ``part_size`` games), written part by part in bounded memory."""
    path = Path(path)
    (path / "games").mkdir(parents=True, exist_ok=True)
    done = k = 0
    while done < games:
        count = min(part_size, games - done)
        plai_part(players, count, seed, done).write_parquet(path / "games" / f"part-{k:05d}.parquet")
        done += count
        k += 1
    manifest = {
        "game": "plai", "players": players, "games": games, "seed": seed, "complete": True,
        "package_version": "0.1.0", "wall_seconds": 0.5,
        "cards": {"path": "plai-synthetic.csv",
                  "sha256": hashlib.sha256(repr(PLAI_CARD_IDS).encode()).hexdigest(),
                  "ids": PLAI_CARD_IDS, "names": PLAI_CARD_NAMES},
        "rules": {"first_seat": "0", "starting_hand": 6, "max_turns": 400},
        "strategies": {f"seat{s}": {"name": "weighted", "params": {}} for s in range(players)},
        "request": {"strategies": None},
    }
    (path / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return path
