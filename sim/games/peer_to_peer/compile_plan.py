"""What a cold compile's helper process compiles for Peer-to-Peer (sim.core.compile_cache).

run_games inlines the game and the round (numba's ``inline='always'``); the kernels below
are what it calls as compiled functions of their own (``forceinline=True`` ones, which
LLVM then inlines, or plain calls), each with the values its parameters get there, by
name. While this process compiles run_games (its typing reaches them in the order they
are called, from setup to the round's end), a helper compiles them into the shared cache:
first D2's general commit search (commit_by_passes, the largest leaf, which this process
would otherwise compile inside choose_commit, on its critical path) and its lanes search
for 7-card hands (commit_by_lanes_seven), then setup (this
process reaches it only after compiling new_state and inlining the game loop), then from
the round's end backwards, so the two meet in the middle. A kernel
compiled by one is loaded by the other, and the helper skips one this process is
compiling. The two private ones (the scoring and the result row) and whatever is not
listed here are compiled by this process, as without a helper.
"""
from __future__ import annotations

from sim.core.compile_cache import plan_by_names

SCALARS = ("team", "mask", "cust", "declared", "rival_cust", "n_rival", "phase", "s")
FLAGS = ("none_legal", "need_keys")
# choose_commit's bundles for commit_by_passes and commit_by_lanes_seven (commit_kernel.py):
# scoring = (b, round, patience, noise, high, separable, for D3), row = (n, top value,
# lowest value, value bits), hand = (n, pile, total, boost slots, boosts), team_effects =
# (shift, any wild)
COMMIT_BUNDLES = {"scoring": (0, 0, 0, True, True, True, True), "row": (0, 0, 0, 0),
                  "hand": (0, 0, 0, 0, 0), "team_effects": (0, True), "best_score": 0.0}


def run_games_plan(tables, debug) -> list:
    """(kernel, argument types) pairs for the helper, in the order it should take them.

    The arrays' types come from what run_games is given: the game's ``Tables`` and a
    ``State`` as state_kernel.new_state lays it out (its Python function, so nothing is
    compiled here), each field under its own name, as the kernels name their parameters.
    The engine's games have no trace, no hook and no option list (None)."""
    from sim.games.peer_to_peer.commit_kernel import (
        choose_commit, commit_by_lanes_seven, commit_by_passes,
    )
    from sim.games.peer_to_peer.contest_kernel import reveal, target_by_scan, unmark_assist
    from sim.games.peer_to_peer.place_kernel import win_customer
    from sim.games.peer_to_peer.round_kernel import refresh, unhappy
    from sim.games.peer_to_peer.setup_kernel import setup_game
    from sim.games.peer_to_peer.state_kernel import check_invariants, new_state

    state = new_state.py_func(tables.cards.shape[1])
    row = state.pile[0]  # a scratch row of the state (vals, keys, used_before)
    values = {**state._asdict(), **tables._asdict()}
    values.update(w=tables.w_a, trace=None, hook=None, options=None, debug=bool(debug),
                  vals=row, keys=row, rival_keys=row, used_before=row,
                  **{name: 0 for name in SCALARS}, **{name: True for name in FLAGS},
                  **COMMIT_BUNDLES)
    order = (commit_by_passes, commit_by_lanes_seven, setup_game, unhappy, refresh,
             check_invariants, win_customer, unmark_assist, reveal, target_by_scan,
             choose_commit)
    return plan_by_names(order, values)
