"""Peer-to-Peer's search player records its decisions for learning (search_kernel
record_decision, sim/core/recorded.py).

- A hand-made D2 (tests/support/p2p_state.py; outcomes from the rules file): the options
  the search weighed, as the team sees them (the strategy's features), their means, its
  choice, and the decision's phase block.
- The recorded features are the numbers the strategy scores: features . weights ranks the
  kept options as the search's listing ranked them, on real games.
- Recording changes no game: a run's results with and without ``record`` are the same.
"""
from __future__ import annotations

import numpy as np

from p2p_state import State, weights
from sim.core.search_kernel import (
    N_DECISIONS, N_ROWS, REC_BLOCK, REC_CHOSEN, REC_COUNT, REC_FIRST, REC_KIND, REC_SAMPLES,
    REC_WHO, new_recording,
)
from sim.core.recorded import RECORD_COLUMNS, recordings_of
from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer import engine_kernel as e
from sim.games.peer_to_peer import features as f
from sim.games.peer_to_peer import search_kernel as sk
from sim.games.peer_to_peer.game import GAME
from sim.games.peer_to_peer.state_kernel import KIND_COMMIT


def _tuple(s: State):
    return e.State(s.rng, s.pile, s.pile_n, s.arrival, s.used, s.st, s.stats,
                   np.zeros(k.MAX_SEATS, np.int64), s.fscr)


def _tables(s: State):
    return e.Tables(s.cards, s.rules, s.seats, s.w_a, s.w_b)


def test_a_hand_made_commit_is_recorded_with_its_options_and_choice():
    """The last round (customer deck empty), 4 players; team A holds TE5 and SC3, the row
    is TE8 (arrived this round), B's hand is empty; the score piles tie 1-1 with B ahead on
    value. D2 options: pass, or TE5+SC3 on TE8 (5 + 3 = 8, a Technology card among them:
    P2P-R2a). Assisting wins the game (W1: 2 cards to 1), passing loses it (W2: B leads on
    value). The base always passes (commit.pass 1e6): the search takes the assist."""
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
    recording = new_recording(4, 16, f.NF, 2)
    mask, cust = sk.commit_at(0, _tables(s), _tuple(s), ctx, recording)
    assert (int(mask), s.name(int(cust))) == (0b11, "TE8")
    assert recording.n[N_DECISIONS] == 1 and recording.n[N_ROWS] == 2
    row = recording.decisions[0]
    assert row[REC_WHO] == 0 and row[REC_KIND] == KIND_COMMIT and row[REC_SAMPLES] == 4
    assert row[REC_FIRST] == 0 and row[REC_COUNT] == 2
    # the base's ranking first: the pass, then the assist; the search chose the assist
    assert row[REC_CHOSEN] == 1
    assert list(recording.values[:2]) == [0.0, 1.0]   # the pass loses every playout
    # early phase (the greedy defaults' switch -1: never late): block 0
    assert row[REC_BLOCK] == 0
    pass_row, assist = recording.features[0], recording.features[1]
    expected_pass = np.zeros(f.NF)
    expected_pass[f.C_PASS] = 1.0
    assert (pass_row == expected_pass).all()
    expected = np.zeros(f.NF)
    expected[f.C_VALUE] = 8          # TE8
    expected[f.C_WAITED] = 0         # arrived this round
    expected[f.C_URGENT] = 0         # patience 2: it would wait one more round
    expected[f.C_CARDS] = 2
    expected[f.C_HIGH] = 5
    expected[f.C_TOP] = 1            # the only customer in the row
    assert (assist == expected).all(), dict(zip(f.FEATURE_NAMES, assist))


def test_recorded_features_score_as_the_search_ranked_and_games_do_not_change():
    cfg = GAME.configure(players=4, strategies={"A": "search:k=3,n=2,record=2",
                                                "B": "expert"})
    plain = GAME.configure(players=4, strategies={"A": "search:k=3,n=2", "B": "expert"})
    assert cfg.record == 2 and plain.record is None
    assert "record" not in plain.manifest()["strategies"]["A"]["params"]
    table = cfg.run_chunk(9, 20, 3, threads=1)
    assert set(RECORD_COLUMNS) <= set(table.columns)
    without = plain.run_chunk(9, 20, 3, threads=1)
    assert table.drop(RECORD_COLUMNS).equals(without)
    rec = recordings_of(table, f.NF)
    d = rec.decisions[:rec.n[N_DECISIONS]]
    assert len(d) > 10 and (d[:, REC_WHO] == 0).all()
    w = cfg.weights["A"]
    for row in d:
        first, count, block = row[REC_FIRST], row[REC_COUNT], row[REC_BLOCK]
        values = rec.values[first:first + count]
        kept = int(np.isfinite(values).sum())
        assert 2 <= kept <= 3 and count <= kept + 2
        assert np.isfinite(values[:kept]).all() and 0 <= row[REC_CHOSEN] < kept
        scores = rec.features[first:first + count] @ w[block:block + f.NF]
        # kept: the best by the base's scores, best first; the others rank below them
        assert (np.diff(scores[:kept]) <= 1e-9).all()
        assert (scores[kept:] <= scores[kept - 1] + 1e-9).all()
