"""A tiny deterministic game for runner/CLI tests (no numba; rows are a numpy hash of
(seed, game_index, rules, strategies)). Register it with CARDSIM_EXTRA_GAMES=fake=fake_game
and put tests/ on PYTHONPATH (pytest does this for in-process tests).

Its description (``GAME``, a ``sim.core.game.Game``) is built from this file alone: a new
game needs no edit outside its own package (tests/core/test_game_contract.py checks every
command on it).

FAKE_GAME_DELAY=<seconds> makes every run_chunk sleep, so subprocess tests can interrupt a
run part-way through.
"""
from __future__ import annotations

import hashlib
import math
import os
import time
from pathlib import Path

import numpy as np
import polars as pl

from sim.core.errors import UserError
from sim.core.curves import Curve, Curves
from sim.core.game import Game
from sim.core.sweep_metric import SweepMetric, indicator, ones

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
CALLS: list[tuple[int, int, int]] = []  # (seed, start, count) of every run_chunk call


def _mix(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.uint64, copy=True)
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


STRATEGIES = {"random": {}, "greedy": {"bias": 1.0}}


class FakeConfig:
    def __init__(self, players, cards_path, cards_sha, card_ids, card_names, rules, strategies,
                 debug):
        self.game = "fake"
        self.players = players
        self.cards_path, self.cards_sha = cards_path, cards_sha
        self.card_ids, self.card_names = card_ids, card_names
        self.rules = rules
        self.strategies = strategies
        self.debug = debug

    def manifest(self):
        return {"game": "fake", "players": self.players,
                "cards": {"path": self.cards_path, "sha256": self.cards_sha,
                          "ids": self.card_ids, "names": self.card_names},
                "rules": dict(self.rules),
                "strategies": {team: {"name": name, "params": params}
                               for team, (name, params) in self.strategies.items()},
                "seat_teams": ["A", "B"] * (self.players // 2) + ["A"] * (self.players % 2)}

    def _salt(self) -> int:
        text = repr((self.cards_sha, sorted(self.rules.items()),
                     sorted((t, n, sorted(p.items())) for t, (n, p) in self.strategies.items())))
        return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")

    def run_chunk(self, seed, start, count, threads=1, curves=None):
        CALLS.append((seed, start, count))
        delay = float(os.environ.get("FAKE_GAME_DELAY", "0") or 0)
        if delay:
            time.sleep(delay)
        index = np.arange(start, start + count, dtype=np.int64)
        key = _mix(np.full(count, seed, dtype=np.uint64) * GOLDEN ^ np.uint64(self._salt()))
        h = _mix(index.astype(np.uint64) ^ key)
        bias = self.strategies.get("A", ("random", {}))[1].get("bias", 0.0)
        roll = (h % np.uint64(100)).astype(np.int64) + int(10 * bias)
        winner = np.where(roll < 48, 0, np.where(roll < 96, 1, 2)).astype(np.int8)
        rounds = (np.uint64(8) + (h >> np.uint64(20)) % np.uint64(25)).astype(np.int16)
        rounds += np.int16(self.rules["bonus"])
        if curves is not None:
            curves.add(self._curve_sums(rounds))
        return pl.DataFrame({"game_index": index, "winner": winner, "rounds": rounds,
                             "score": (h >> np.uint64(40)).astype(np.float64) / 2.0**24})

    def _curve_sums(self, rounds):
        """Its per-round curve (sim.core.curves): one series, the round number, in every
        round a game reaches (round 0 .. its last)."""
        horizon = 40 + max(0, self.rules["bonus"])
        ended = np.bincount(np.clip(rounds, 0, horizon), minlength=horizon + 1)
        running = ended[::-1].cumsum()[::-1]
        t = np.arange(horizon + 1, dtype=np.int64)
        return np.stack([running, running * t, running * t * t], axis=1).astype(np.int64)

    def trace(self, seed, game_index):
        row = self.run_chunk(seed, game_index, 1).row(0, named=True)
        team = "ABD"[row["winner"]]
        return (f"game {game_index} (seed {seed}): round 1 ... round {row['rounds']}: "
                f"{'draw' if team == 'D' else 'team ' + team + ' wins'}")

    def summarize(self, games):
        row = games.select(pl.len().alias("n"),
                           (pl.col("winner") == 0).mean().alias("a"),
                           (pl.col("winner") == 1).mean().alias("b"),
                           (pl.col("winner") == 2).mean().alias("d"),
                           pl.col("rounds").cast(pl.Float64).mean().alias("r")).collect().row(0)
        n, a, b, d, r = row

        def ci(p):
            half = 1.96 * math.sqrt(p * (1 - p) / n)
            return {"win_rate": p, "ci_low": max(0.0, p - half), "ci_high": min(1.0, p + half)}

        return {"teams": {"A": ci(a), "B": ci(b)}, "draw_rate": d, "all_lose_rate": 0.0,
                "mean_rounds": r}

    def format_summary(self, summary):
        a, b = summary["teams"]["A"], summary["teams"]["B"]
        return (f"Team A wins {a['win_rate']:.2%}, team B wins {b['win_rate']:.2%}, "
                f"draws {summary['draw_rate']:.2%}, mean rounds {summary['mean_rounds']:.2f}")


# ----------------------------------------------------------------------------- its description
def strategy_slots(players):
    return ("A", "B")


def strategy_key(key, players=None):
    if str(key).upper() not in ("A", "B"):
        raise ValueError(f"expected team A or B, got '{key}'")
    return str(key).upper()


def pairing(manifest):
    names = [spec["name"] for spec in (manifest.get("strategies") or {}).values()]
    return " vs ".join(names)


def headline_counts(games, players):
    w = games["winner"].to_numpy()
    # two common headlines (about 48 % each) and a rare one (draws, about 4 %): the
    # stopping rule must wait for the widest interval, not the first narrow one
    return {"team A win rate": int((w == 0).sum()), "team B win rate": int((w == 1).sum()),
            "draw rate": int((w == 2).sum())}


def balance_variants(players):
    return ((), ("bonus=1",)) if players == 3 else ((),)


def default_sweep_metrics(players):
    return ("a_win_rate", "b_win_rate", "mean_rounds")


def _won(code):
    return lambda g: (indicator(g["winner"] == code), ones(g, "winner"))


SWEEP_METRICS = (   # its own, though named like Peer-to-Peer's: nothing is shared by name
    SweepMetric("a_share", "Team A's share of team wins", "%", "rate", 100.0, 0.0,
                lambda g: (indicator(g["winner"] == 0), indicator(g["winner"] <= 1)),
                "Among games a team won, the share team A won.", ("winner",), reference=50.0),
    SweepMetric("a_win_rate", "Team A win rate", "%", "rate", 100.0, 0.0, _won(0),
                "Share of games team A won.", ("winner",)),
    SweepMetric("b_win_rate", "Team B win rate", "%", "rate", 100.0, 0.0, _won(1),
                "Share of games team B won.", ("winner",)),
    SweepMetric("draw_rate", "Draw rate", "%", "rate", 100.0, 0.0, _won(2),
                "Share of drawn games.", ("winner",)),
    SweepMetric("mean_rounds", "Mean game length", "rounds", "mean", 1.0, 0.0,
                lambda g: (np.asarray(g["rounds"], dtype=np.float64), ones(g, "rounds")),
                "Rounds per game.", ("rounds",)),
)


def default_cards_path():
    return Path(__file__).resolve().parent.parent / "data" / "fake_cards.csv"


PLAYER_COUNTS = (2, 3, 4)


def configure(*, players, cards=None, rules_file=None, rule_overrides=(), strategies=None,
              debug=False):
    if players not in PLAYER_COUNTS:
        raise UserError(f"fake is played by 2-4 players, not {players}", field="--players")
    path = Path(cards) if cards else default_cards_path()
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read card file ({exc.strerror})", file=str(path),
                        field="--cards") from None
    ids, names = [], []
    for number, line in enumerate(data.decode().splitlines()[1:], start=2):
        fields = line.split(",")
        if len(fields) < 2 or not fields[0].isdigit():
            raise UserError("expected id,name,...", file=str(path), line=number, field="id")
        ids.append(int(fields[0]))
        names.append(fields[1])
    rules = {"bonus": 0}
    items = []
    if rules_file:
        try:
            items += [ln.replace(":", "=", 1) for ln in Path(rules_file).read_text().splitlines()
                      if ln.strip()]
        except OSError as exc:
            raise UserError(f"cannot read rules ({exc.strerror})", file=str(rules_file),
                            field="--rules") from None
    items += list(rule_overrides)
    for item in items:
        key, eq, value = (p.strip() for p in item.partition("="))
        if not eq or key not in rules or not value.lstrip("-").isdigit():
            raise UserError(f"bad rule '{item}'; valid: bonus=<int>", field="--rule")
        rules[key] = int(value)
    chosen = {"A": ("random", {}), "B": ("random", {})}
    for team, spec in (strategies or {}).items():
        name, _, rest = spec.partition(":")
        field = f"--team-{team.lower()}"
        if name not in STRATEGIES:
            raise UserError(f"unknown strategy '{name}'", field=field)
        params = dict(STRATEGIES[name])
        for item in filter(None, rest.split(",")):
            key, eq, value = item.partition("=")
            if not eq or key not in params:
                raise UserError(f"strategy '{name}' has no parameter '{key}'", field=field)
            params[key] = float(value)
        chosen[team] = (name, params)
    return FakeConfig(players, str(path), hashlib.sha256(data).hexdigest(), ids, names, rules,
                      chosen, debug)


# Everything the commands know about the fake game: two teams, outcome codes A, B, draw in
# ``winner``, no rule options form, no kernels, no matchups and no strategy files.
DESCRIPTION = dict(
    name="fake", title="Fake", player_counts=PLAYER_COUNTS, default_players=4,
    options=None, default_cards_path=default_cards_path, card_fields=None,
    card_ref_example="1.name", configure=configure,   # no compiled kernels (the default)
    strategy_kind="teams", default_strategy="random",
    strategy_package=None,             # its strategies are STRATEGIES above, not files
    strategy_slots=strategy_slots, strategy_key=strategy_key, pairing=pairing,
    outcome_column="winner", outcome_codes={"A": 0, "B": 1, "draw": 2},
    headline_columns=("winner",), headline_counts=headline_counts,
    ablation_fields=("power", None),   # its card file has no effect column
    skill_budgets=("k=4,n=4", "k=8,n=16"),   # (no search player: no search rungs)
    balance_variants=balance_variants,
    sweep_metrics=SWEEP_METRICS, default_sweep_metrics=default_sweep_metrics,
    compared_rules=("bonus",),         # the report compares its balance variants
    curves=Curves(unit="round", series=lambda players: (
        Curve("progress", "the round number", "progress", 0),)),
)
GAME = Game(**DESCRIPTION)
