"""Per-card fight counts for PLAI from replayed traces (pure Python): the test oracle of the
kernel's own counts, and the fallback for runs made before the kernel wrote them.

The engine writes, for every game, the columns below (engine_kernel: ``_tally``, copied out
of ``play_games``'s ``card_fights`` array; ``PlaiConfig.run_chunk``). This module derives
the same numbers from a game's trace: tests/plai/test_card_fight_columns.py checks that both agree,
and reports/card_fights.py replays a sample of an old run's games with ``trace_game``
(game i of seed s is the same game in every replay) when its table lacks the columns:

* a fight is the rows from ``EV_ATTACK`` (attacker seat in column A) to its ``EV_FIGHT``
  (winning side in column A);
* a card is on a side of that fight when an ``EV_PLAY`` row (side, card) or an
  ``EV_NEGATE`` row (seat, card; every negate but the defender's is the attack's: a
  joint venture attack has several attackers) names it in
  between. The maintainers' help cards count for the attack they joined. A card played
  twice in one fight (two copies) counts once for that fight.

Per game and card index k (row of the card file) the columns are ``card_att_<k>`` (fights
with k on the attack), ``card_att_won_<k>`` (of those, fights the attack won),
``card_def_<k>`` and ``card_def_won_<k>`` (the same for the defense), plus ``fights`` and
``fights_att_won`` for the whole game.
"""
from __future__ import annotations

from typing import Iterable

import numpy as np
import polars as pl

from sim.games.plai import constants as c

FIELDS = c.CARD_FIGHT_FIELDS


def fights_of_trace(rows: np.ndarray, n_cards: int) -> tuple[np.ndarray, int, int]:
    """(counts int64[4, n_cards] in FIELDS order, fights, attack wins) from trace rows."""
    counts = np.zeros((4, n_cards), dtype=np.int64)
    code = rows[:, c.TR_CODE]
    is_attack = code == c.EV_ATTACK
    is_fight = code == c.EV_FIGHT
    n_fights = int(is_fight.sum())
    if n_fights == 0:
        return counts, 0, 0
    started = np.cumsum(is_attack)                       # attacks up to and including row i
    ended = np.cumsum(is_fight) - is_fight               # fights strictly before row i
    inside = started > ended
    fight_of = started - 1
    defender = rows[is_attack, c.TR_B]
    winner = rows[is_fight, c.TR_A]
    att_wins = int((winner == c.SIDE_ATTACK).sum())

    play = inside & (code == c.EV_PLAY)
    negate = inside & (code == c.EV_NEGATE)
    f = np.concatenate([fight_of[play], fight_of[negate]])
    side = np.concatenate([rows[play, c.TR_A],
                           np.where(rows[negate, c.TR_A] == defender[fight_of[negate]],
                                    c.SIDE_DEFENSE, c.SIDE_ATTACK)])
    card = np.concatenate([rows[play, c.TR_B], rows[negate, c.TR_B]])
    if f.size == 0:
        return counts, n_fights, att_wins
    key = np.unique((f.astype(np.int64) * 2 + side) * n_cards + card)  # once per fight
    card_u = key % n_cards
    side_u = (key // n_cards) % 2
    fight_u = key // (2 * n_cards)
    side_won = winner[fight_u] == side_u
    for s, (played, won) in ((c.SIDE_ATTACK, (0, 1)), (c.SIDE_DEFENSE, (2, 3))):
        mask = side_u == s
        np.add.at(counts[played], card_u[mask], 1)
        np.add.at(counts[won], card_u[mask & side_won], 1)
    return counts, n_fights, att_wins


def card_fight_table(config, seed: int, game_indices: Iterable[int]) -> pl.DataFrame:
    """Replay ``game_indices`` of ``seed`` with ``config`` (a PlaiConfig) and return one row
    per game: game_index, turns (to check the replay), fights, fights_att_won and the
    FIELDS columns per card index."""
    from sim.core.numba_patches import install
    from sim.games.plai.engine_kernel import trace_game
    from sim.games.plai.trace import TRACE_CAPACITY

    install()   # compile as a run does (the cache directory is named for the patches)

    n_cards = int(config.card_table.shape[1])
    indices = [int(i) for i in game_indices]
    rows = np.zeros((TRACE_CAPACITY, c.TRACE_WIDTH), dtype=np.int32)
    out = np.zeros(1, dtype=c.RESULT_DTYPE)
    per_card = np.zeros((len(indices), 4, n_cards), dtype=np.int16)
    fights = np.zeros(len(indices), dtype=np.int32)
    att_won = np.zeros(len(indices), dtype=np.int32)
    turns = np.zeros(len(indices), dtype=np.int32)
    for j, index in enumerate(indices):
        n = trace_game(seed, index, *config._args(), rows, out)
        counts, fights[j], att_won[j] = fights_of_trace(rows[:n], n_cards)
        per_card[j] = counts
        turns[j] = out[0]["turns"]
    columns = {"game_index": np.asarray(indices, dtype=np.int64), "replay_turns": turns,
               "fights": fights, "fights_att_won": att_won}
    for f, name in enumerate(FIELDS):
        for k in range(n_cards):
            columns[f"{name}_{k}"] = per_card[:, f, k]
    return pl.DataFrame(columns)
