"""A small card game for the card-ablation tests (no numba), registered as
``CARDSIM_EXTRA_GAMES=cardduel=ablation_game``.

Two teams each get ``HAND`` cards of the card file, dealt from a hash of (seed, game
index) only, so a changed card value or effect leaves every deal and every draw of noise
the same (common random numbers), exactly as the real engines do. A team's total is the
power of its cards, plus k for each card whose effect is ``boost k``, plus noise in
[0, NOISE). Both totals below THRESHOLD: everyone loses (code 3); otherwise the higher total
wins (0 = A, 1 = B; equal: draw, 2). A card's worth is then known by construction: a
``boost 8`` card moves the all-lose rate far more than a ``boost 1`` card.
"""
from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path

import numpy as np
import polars as pl

from fake_game import GAME as FAKE
from fake_game import FakeConfig, _mix, GOLDEN  # noqa: F401
from sim.core.errors import UserError

HAND = 3
NOISE = 12
THRESHOLD = 21


def read_cards(path: Path):
    rows = []
    lines = path.read_text().splitlines()
    header = [h.strip() for h in lines[0].split(",")]
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = dict(zip(header, (c.strip() for c in line.split(","))))
        try:
            power = int(cells["power"])
        except (KeyError, ValueError):
            raise UserError("power must be an integer", file=str(path), line=number,
                            field="power") from None
        effect = cells.get("effect", "")
        boost = 0
        if effect:
            kind, _, k = effect.partition(" ")
            if kind != "boost" or not k.isdigit():
                raise UserError(f"unknown effect '{effect}'", file=str(path), line=number,
                                field="effect")
            boost = int(k)
        rows.append((cells["id"], cells["name"], power + boost))
    return rows


class DuelConfig(FakeConfig):
    def __init__(self, players, path, sha, cards, rules, strategies):
        super().__init__(players, str(path), sha, [c[0] for c in cards], [c[1] for c in cards],
                         rules, strategies, False)
        self.worth = np.array([c[2] for c in cards], dtype=np.int64)

    def manifest(self):
        m = super().manifest()
        m["game"] = "cardduel"
        return m

    def run_chunk(self, seed, start, count, threads=1):
        index = np.arange(start, start + count, dtype=np.int64)
        key = _mix(np.full(count, seed, dtype=np.uint64) * GOLDEN)
        n = self.worth.size
        # deal: a per-game permutation from hashed keys (independent of the card values)
        keys = np.stack([_mix(index.astype(np.uint64) * np.uint64(64) + np.uint64(j) ^ key)
                         for j in range(n)], axis=1)
        order = np.argsort(keys, axis=1, kind="stable")
        hand_a, hand_b = order[:, :HAND], order[:, HAND:2 * HAND]
        noise = _mix(index.astype(np.uint64) ^ key ^ np.uint64(0x5bd1e995))
        na = (noise % np.uint64(NOISE)).astype(np.int64)
        nb = ((noise >> np.uint64(20)) % np.uint64(NOISE)).astype(np.int64)
        ta = self.worth[hand_a].sum(axis=1) + na
        tb = self.worth[hand_b].sum(axis=1) + nb
        winner = np.where((ta < THRESHOLD) & (tb < THRESHOLD), 3,
                          np.where(ta > tb, 0, np.where(tb > ta, 1, 2))).astype(np.int8)
        return pl.DataFrame({"game_index": index, "winner": winner,
                             "rounds": np.full(count, 1, np.int16),
                             "score": (ta - tb).astype(np.float64)})


def default_cards_path():
    return Path(__file__).resolve().parent.parent / "data" / "ablation_cards.csv"


def configure(*, players=2, cards=None, rules_file=None, rule_overrides=(), strategies=None,
              debug=False):
    path = Path(cards) if cards else default_cards_path()
    data = path.read_bytes()
    return DuelConfig(2, path, hashlib.sha256(data).hexdigest(), read_cards(path),
                      {"bonus": 0}, {"A": ("random", {}), "B": ("random", {})})


# the fake game's description with its own name, players, outcomes, cards and configure
GAME = dataclasses.replace(
    FAKE, name="cardduel", title="Card duel", player_counts=(2,), default_players=2,
    outcome_codes={"A": 0, "B": 1, "draw": 2, "all_lose": 3},
    ablation_fields=("power", "effect"), card_fields=("name", "power", "effect"),
    compared_rules=(), default_cards_path=default_cards_path, configure=configure,
    curves=None)   # a duel has no rounds to draw
