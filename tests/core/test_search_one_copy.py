"""One rule, one place: the search players play out their options through the engine's
own loops (Peer-to-Peer's round, PLAI's turn), so a rule changed there changes what the
search sees.

Each test plants a rule change in one engine loop and runs a search decision with and
without it, in a subprocess with numba's JIT off (NUMBA_DISABLE_JIT=1): the kernels are
plain Python there, so replacing a function of the engine's module changes the loop
that calls it, with nothing compiled. If a search player kept its own copy of the loop,
its playouts would not see the planted rule and the results would not move.

- Peer-to-Peer, R2d planted (round_kernel.win_customer): a won customer leaves the game
  instead of being placed. In the last round A can assist TE8 and win the game (the
  scenario of tests/peer_to_peer/test_search_player.py): its playouts win every time; with
  the planted rule A never scores it, B stays ahead on value (P2P-W2), and every playout is lost.
- PLAI, F1 planted (engine_kernel.fight_defend, the turn's fight once the attack is
  down): the defender never plays cards (D3). Seat 0 defends a venture funding on turn
  1 and weighs its defenses: they win differently under the rules, and all alike with the
  planted rule (the option under test is dropped like any other). The plant replaces the
  function's code, so every name bound to the engine's function runs it (the search's
  imports too), as an edit of the engine's source would with the JIT on; a search that
  played a fight's steps itself (place the defense, then fight_close) would still weigh
  its defenses differently, and fails this test.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sim.games.plai.constants import SEARCH_DEFENSE

TESTS = Path(__file__).resolve().parents[1]


def _decision(game: str, planted: bool) -> dict:
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(TESTS.parent), str(TESTS / "support"),
                                                    env.get("PYTHONPATH")) if p)
    out = subprocess.run([sys.executable, __file__, game, "planted" if planted else "rules"],
                         capture_output=True, text=True, env=env, cwd=TESTS, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_rule_planted_in_the_round_changes_the_p2p_search_playouts():
    rules = _decision("peer-to-peer", planted=False)
    planted = _decision("peer-to-peer", planted=True)
    assert rules["options"] == planted["options"]         # the same options weighed
    assert rules["options"][0] == [0, -1, 0]              # the base's choice: pass
    assist = rules["options"].index([0b11, rules["te8"], 2])
    assert rules["wins"][assist] == 4.0                   # wins every playout (P2P-W1)
    assert planted["wins"][assist] == 0.0                 # never scores TE8: B leads
    assert rules["choice"] == [0b11, rules["te8"]] and planted["choice"] == [0, -1]


def test_a_rule_planted_in_the_turn_changes_the_plai_search_playouts():
    rules = _decision("plai", planted=False)
    planted = _decision("plai", planted=True)
    assert rules["ask"][:2] == planted["ask"][:2] == [SEARCH_DEFENSE, 0]   # seat 0's D3
    assert rules["options"] == planted["options"] and len(rules["options"]) == 4
    assert len(set(rules["wins"])) > 1                     # the defense matters
    assert len(set(planted["wins"])) == 1                  # no defense is ever played


# ---------------------------------------------------------------- the subprocess

def _p2p(planted: bool) -> dict:
    import numpy as np

    from p2p_state import State, weights
    from sim.games.peer_to_peer import constants as k
    from sim.games.peer_to_peer import engine_kernel as e
    from sim.games.peer_to_peer import round_kernel
    from sim.games.peer_to_peer import search_kernel as sk
    from sim.games.peer_to_peer.place_kernel import take_customer
    from sim.games.peer_to_peer.state_kernel import P_OUT, push

    if planted:
        def win_customer(cards, rules, seats, w, rng, pile, pile_n, used, st, stats, team,
                         mask, cust, trace, hook):
            """R2d planted: the played cards go to the discard, the customer out of the
            game, unscored."""
            take_customer(pile, pile_n, st, stats, team, mask, cust, trace)
            push(pile, pile_n, P_OUT, cust)
            return False

        round_kernel.win_customer = win_customer
    # tests/peer_to_peer/test_search_player.py's last round: A to commit, TE8 in the row,
    # scores tied at one card each with B ahead on value; the base always passes
    # (commit.pass 1e6).
    s = State(players=4, round=6, marker=1,
              strategies={"A": weights({"commit.pass": 1e6}), "B": "greedy"})
    s.row("TE8", arrival=6)
    s.hand("A", "TE5", "SC3")
    s.score("A", "SV2").score("B", "SV3")
    s._fill()
    search = np.zeros((2, 3), np.int64)
    search[0] = (1, 8, 4)
    ctx = sk.new_context(search, 3, 0, s.cards.shape[1], 0)
    ctx.meta[sk.M_GAME] = 5
    state = e.State(s.rng, s.pile, s.pile_n, s.arrival, s.used, s.st, s.stats,
                    np.zeros(k.MAX_SEATS, np.int64), s.fscr)
    tables = e.Tables(s.cards, s.rules, s.seats, s.w_a, s.w_b)
    mask, cust = sk.commit_at(0, tables, state, ctx)
    kept = int(ctx.meta[sk.M_KEPT])
    return {"options": [[int(x) for x in ctx.options.rows[ctx.order[j]]] for j in range(kept)],
            "wins": [float(w) for w in ctx.wins[:kept]], "choice": [int(mask), int(cust)],
            "te8": s.id("TE8")}


def _plai(planted: bool) -> dict:
    import numpy as np

    from sim.core.rng_kernel import seed_game
    from sim.games.plai import constants as c
    from sim.games.plai import decide_kernel as dk
    from sim.games.plai import engine_kernel as ek
    from sim.games.plai import search_kernel as sk
    from sim.games.plai.game import GAME
    from sim.games.plai.piles_kernel import Tables, new_state

    def fight_defend(kind, attacker, defender, weights, picks, rng, cards, rules, piles,
                     pile_n, bankrupt, st, trace, scratch, hook):
        """F1 planted: the defender plays no cards (D3); engine_kernel's names."""
        return fight_close(kind, attacker, defender, weights, rng, cards, rules, piles,  # noqa: F821
                           pile_n, bankrupt, st, trace, scratch)

    cfg = GAME.configure(players=3, strategies={"all": "weighted",
                                                "seat0": "search:k=4,n=8,base=weighted"})
    n = len(cfg.deck)
    state = new_state(3, n, cfg.card_table.shape[1])
    seed_game(state.rng, 5, 2)
    first = ek.setup(cfg.deck, cfg.card_table, cfg.rules_vector, state.rng, state.piles,
                     state.pile_n)
    state.bankrupt[:] = -1
    ctx = sk.new_context(cfg.search, 5, 0, n, 3, cfg.card_table.shape[1], 0)
    ctx.meta[sk.M_GAME] = 2
    tables = Tables(cfg.card_table, cfg.rules_vector, cfg.weights,
                    dk.pick_table(cfg.weights, cfg.card_table))
    trace = np.zeros((0, 6), np.int8)
    # the engine's turn 1 with seat 0's action forced (a venture funding): it stops at
    # seat 0's defense, the attack down
    hook = ctx.hook
    hook.forced[c.SEARCH_ACTION, :3] = (c.ACT_VENTURE, -1, -1)
    ek.game_loop(first, 3, tables, state, trace, n, hook, None)
    if planted:   # from here on: the playouts
        ek.fight_defend.__code__ = fight_defend.__code__
    kind, me, fight_kind, attacker, defender = (int(x) for x in hook.ask[:5])
    sk.decide(kind, me, hook.marks[c.MARK_SEAT], hook.marks[c.MARK_LEFT], fight_kind,
              attacker, defender, tables, state, trace, n, ctx)
    kept = min(int(cfg.search[0, c.SEARCH_K]), int(ctx.options.n[0]))
    return {"ask": [kind, me], "options": [[int(x) for x in ctx.options.rows[ctx.order[j], :4]]
                                           for j in range(kept)],
            "wins": [float(w) for w in ctx.wins[:kept]]}


if __name__ == "__main__":
    game, mode = sys.argv[1:3]
    result = (_p2p if game == "peer-to-peer" else _plai)(mode == "planted")
    print(json.dumps(result))
