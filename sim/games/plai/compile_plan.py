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

# play_games's working arrays: name, dtype, dimensions (only their types matter here)
ARRAYS = (("piles", np.int16, 2), ("pile_n", np.int64, 1), ("bankrupt", np.int64, 1),
          ("st", np.int64, 1), ("scratch", np.int64, 2), ("trace", np.int8, 2),
          ("rng", np.uint64, 1), ("deck", np.int16, 1), ("cards", np.int64, 2),
          ("rules", np.int64, 1), ("weights", np.float64, 2))
SCALARS = ("kind", "attacker", "defender", "att_mode", "action", "seat", "card", "target",
           "ws", "pile", "side", "stake", "rival_hand", "left", "turn", "first_seat",
           "drawer", "own", "t_hand", "deck_size", "game_index", "players", "outcome",
           "winner", "first")
FLAGS = ("maintainer",)


def play_games_plan(record_dtype) -> list:
    """(kernel, argument types) pairs for the helper, in the order it should take them."""
    from sim.games.plai.decide_kernel import choose_action_s, pick_table
    from sim.games.plai.engine_kernel import (
        cap_pool, fight, fund, play_special, record, setup, takeover_mode,
    )
    from sim.games.plai.piles_kernel import resolve_events

    values = {name: np.zeros((2,) * ndim, dtype) for name, dtype, ndim in ARRAYS}
    values.update(W=values["weights"], picks=(np.zeros((2, 2), np.int64),
                                               np.zeros((2, 2), np.float64)),
                  r=np.zeros(1, dtype=record_dtype)[0], **{name: 0 for name in SCALARS},
                  **{name: True for name in FLAGS})
    order = (fight, record, cap_pool, resolve_events, play_special, fund, takeover_mode,
             choose_action_s, setup, pick_table)
    return plan_by_names(order, values)
