"""What a cold compile's helper process compiles for PLAI (sim.core.compile_cache).

play_games calls play_game, which calls setup and game_loop (the turn loop, with the turn
inlined; play_game and game_loop are inlined into play_games); the kernels below are what those call as compiled functions of their own
(``forceinline=True`` ones, which LLVM then inlines, or plain calls), each with the values
its parameters get there, by name. While this process compiles play_games (its typing
reaches them in call order), a helper compiles them into the shared cache, the largest
(a fight) first and then from the end of a turn backwards, so the two meet in the middle;
a kernel compiled by one is loaded by the other, and the helper skips one this process is
compiling. The game loop itself (play_games, with
play_game and game_loop) and whatever is not listed here are compiled by this process.
"""
from __future__ import annotations

import numpy as np

from sim.core.compile_cache import plan_by_names

SCALARS = ("kind", "attacker", "defender", "att_mode", "action", "seat", "card", "target",
           "ws", "pile", "side", "stake", "rival_hand", "left", "turn", "first_seat",
           "drawer", "own", "t_hand", "deck_size", "game_index", "players", "outcome",
           "winner", "first")
FLAGS = ("maintainer",)


def play_games_plan(record_dtype, deck, cards, rules, weights) -> list:
    """(kernel, argument types) pairs for the helper, in the order it should take them.

    The arrays' types come from what play_games works on: the game's deck, card table,
    rules and weights (contiguous, as it makes them), a ``State`` as piles_kernel.new_state
    lays it out (its Python function, so nothing is compiled here), each field under its
    own name, as the kernels name their parameters; the pick table's two matrices and the
    empty int8 trace matrix of a game without a trace. No hook, no option list (None)."""
    from sim.games.plai.constants import R_PLAYERS
    from sim.games.plai.decide_kernel import choose_action_s, pick_table
    from sim.games.plai.engine_kernel import (
        cap_pool, fight, fight_defend, fund, play_special, record, setup, takeover_mode,
    )
    from sim.games.plai.piles_kernel import new_state, resolve_events

    deck, cards, rules, weights = (np.ascontiguousarray(a) for a in (deck, cards, rules,
                                                                      weights))
    state = new_state.py_func(int(rules[R_PLAYERS]), deck.shape[0], cards.shape[1])
    values = {**state._asdict(), "deck": deck, "cards": cards, "rules": rules,
              "weights": weights, "W": weights,
              "picks": (np.zeros((2, 2), np.int64), np.zeros((2, 2), np.float64)),
              "trace": np.zeros((0, 6), np.int8), "hook": None, "options": None,
              "r": np.zeros(1, dtype=record_dtype)[0], **{name: 0 for name in SCALARS},
              **{name: True for name in FLAGS}}
    order = (fight, fight_defend, record, cap_pool, resolve_events, play_special, fund,
             takeover_mode, choose_action_s, setup, pick_table)
    return plan_by_names(order, values)
