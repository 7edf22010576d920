"""Peer-to-Peer's search player (sim/games/peer_to_peer/search_kernel.py).

- Without search teams its kernel plays the engine's games exactly (it plays through the
  engine's own rounds, with a hook).
- The no-peeking test: changing what the searching team cannot see (the other team's hand
  against its group deck, the order of the customer deck and of its own group deck) before
  a commit (D2) changes neither the options it evaluates, nor their results, nor its
  choice, for the same random stream. The same check on the peeking variant (``peek`` = 1:
  the true hidden state, never determinized) must fail, which shows the check can fail.
- Scenarios from hand-made states (tests/support/p2p_state.py), outcomes from the rules file: a
  commit that wins the game where the base strategy's choice draws it (D2), a placement
  that scores the deciding customer where the base's puts it on a venture (D4).
"""
from __future__ import annotations

import numpy as np
import pytest

from p2p_state import State, weights
from sim.core.errors import UserError
from sim.core.search_kernel import seed_decision
from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer import engine_kernel as e
from sim.games.peer_to_peer import search_kernel as sk
from sim.games.peer_to_peer.game import GAME

SEARCH = "search:k=4,n=6,base=expert"


def _search(k_=4, n=6, team=0):
    search = np.zeros((2, 3), np.int64)
    search[team] = (1, k_, n)
    return search


def _kept(ctx):
    """(options kept, best first; their results; the chosen rank) of ctx's last decision."""
    meta, opts, order, wins = ctx.meta, ctx.options.rows, ctx.order, ctx.wins
    kept = int(meta[sk.M_KEPT])
    return ([tuple(int(x) for x in opts[order[j]]) for j in range(kept)],
            [float(w) for w in wins[:kept]], int(meta[sk.M_CHOSEN]))


def _tuple(s: State):
    return e.State(s.rng, s.pile, s.pile_n, s.arrival, s.used, s.st, s.stats,
                   np.zeros(k.MAX_SEATS, np.int64), s.fscr)


def _tables(s: State):
    return e.Tables(s.cards, s.rules, s.seats, s.w_a, s.w_b)


def _commit(s: State, search, peek=0, seed=3, game_index=5):
    s._fill()
    ctx = sk.new_context(search, seed, peek, s.cards.shape[1], 0)
    ctx.meta[sk.M_GAME] = game_index
    mask, cust = sk.commit_at(0, _tables(s), _tuple(s), ctx)
    return (int(mask), int(cust)), _kept(ctx)


# ---------------------------------------------------------------- the engine's games

@pytest.mark.parametrize("players,a,b", [(4, "expert", "greedy"), (2, "random", "expert"),
                                         (5, "cautious", "builder"), (1, "expert", None)])
def test_without_search_teams_it_plays_the_engine_games(players, a, b):
    cfg = GAME.configure(players=players, strategies={"A": a, "B": b or "expert"})
    n = 200
    out = np.zeros(n, k.RESULT_DTYPE)
    fates = np.zeros((n, cfg.cards.n), np.int8)
    e.run_games(cfg._kernel_args(), 7, 0, out, fates, True, e.new_state(cfg.cards.n),
                cfg.curve_sums().reshape(-1))
    out2 = np.zeros_like(out)
    fates2 = np.zeros_like(fates)
    sk.run_games_search(cfg._kernel_args(), 7, 0, out2, fates2, True, np.zeros((2, 3), np.int64),
                        0, np.zeros(n, np.int64))
    assert (out == out2).all() and (fates == fates2).all()
    assert (out["error"] == 0).all()


def test_search_games_depend_only_on_seed_and_game_index():
    cfg = GAME.configure(players=4, strategies={"A": "search:k=3,n=3", "B": "expert"},
                         debug=True)
    out, _ = cfg.play(11, 0, 12, threads=1)
    again, _ = cfg.play(11, 0, 12, threads=2)   # other chunking, other thread
    alone, _ = cfg.play(11, 7, 1)
    assert (out == again).all()
    assert out[7] == alone[0]
    assert (out["error"] == 0).all()   # debug: the invariants held after every pass
    assert cfg.decisions > 12          # it searched (several decisions per game)


def test_search_spec_errors_are_user_errors():
    with pytest.raises(UserError, match="unknown base strategy"):
        GAME.configure(players=4, strategies={"A": "search:base=nobody"})
    with pytest.raises(UserError, match="at least 1"):
        GAME.configure(players=4, strategies={"A": "search:k=0"})
    # a fraction would be cut to a whole number while the output still named it
    with pytest.raises(UserError, match="k must be a whole number .*got 2.5"):
        GAME.configure(players=4, strategies={"A": "search:k=2.5,n=2"})


# ---------------------------------------------------------------- it must not peek

def _midgame() -> State:
    """4 players, round 3, team A (the searcher) to commit with three customers in the row;
    team B's hand and group deck, both group decks' and the customer deck's order hidden."""
    s = State(players=4, round=3, marker=1,
              strategies={"A": "expert", "B": "expert"})
    s.row("TE8", arrival=2).row("SV6", arrival=3).row("IN9", arrival=3)
    s.hand("A", "TE5", "SC3", "SV4", "IN2")
    s.hand("B", "TE2", "SV1", "IN4", "SC6")
    s.deck("A", "SV2", "TE3", "SC5", "IN6")
    s.deck("B", "SV5", "TE6", "SC2", "IN1", "OPB")
    s.discard("A", "OPA")
    s.customers("SV8", "TE9", "SC7", "IN7", "SV7", "TE4", "SC4", "IN5", "SC9", "SV3")
    s.seat(0, "TE10").seat(1, "SC12").seat(2, "IN10").seat(3, "SV10")
    return s


def _hidden_variants():
    out = []
    v = _midgame()   # a card of team B's hand swapped with one of its group deck
    h, d = v.pile_index("hand B"), v.pile_index("deck B")
    v.pile[h, 0], v.pile[d, 2] = v.pile[d, 2], v.pile[h, 0]
    out.append(("B's hand", v))
    v = _midgame()   # B's hand in another slot order
    v.pile[h, :4] = v.pile[h, :4][::-1].copy()
    out.append(("B's hand order", v))
    v = _midgame()   # the customer deck in reverse order
    p = v.pile_index("customers")
    v.pile[p, :v.pile_n[p]] = v.pile[p, :v.pile_n[p]][::-1].copy()
    out.append(("customer deck order", v))
    v = _midgame()   # A's own group deck in reverse order
    p = v.pile_index("deck A")
    v.pile[p, :v.pile_n[p]] = v.pile[p, :v.pile_n[p]][::-1].copy()
    out.append(("A's deck order", v))
    return out


def _changed_by_hidden(peek):
    search = _search(4, 6)
    base = _commit(_midgame(), search, peek)
    options, wins, _ = base[1]
    assert len(options) == 4 and len(set(wins)) > 1, base   # a real choice was weighed
    return [name for name, v in _hidden_variants() if _commit(v, search, peek) != base]


def test_search_does_not_peek():
    assert _changed_by_hidden(peek=0) == []


def test_the_no_peeking_check_catches_a_peeking_player():
    # the same check on the true hidden state (no determinization) must fail
    assert _changed_by_hidden(peek=1) != []


def test_a_sample_keeps_what_the_team_sees():
    """determinize (P2P-D): sizes, the revealed slots and every visible pile stay; each pool
    keeps its cards; the result does not depend on where the hidden cards were."""
    s = _midgame()
    s._fill()
    results = []
    for variant in [s] + [v for _, v in _hidden_variants()]:
        variant._fill()
        pile, pile_n = variant.pile.copy(), variant.pile_n.copy()
        rng = np.zeros(4, np.uint64)
        seed_decision(rng, 1, 2, 3, sk.SEARCH_SALT)
        visible = 0b0101   # B revealed the cards in its slots 0 and 2 (R2b)
        before = pile.copy()
        sk.determinize(0, visible, rng, s.rules, pile, pile_n, np.zeros(s.cards.shape[1], np.uint8),
                       np.zeros(s.cards.shape[1], np.int64))
        assert (pile_n == variant.pile_n).all()
        hb, db = s.pile_index("hand B"), s.pile_index("deck B")
        for p in range(e.N_PILES):
            n = pile_n[p]
            if p in (s.pile_index("customers"), s.pile_index("deck A")):
                assert sorted(pile[p, :n]) == sorted(before[p, :n])
            elif p not in (hb, db):
                assert (pile[p, :n] == before[p, :n]).all()
        assert pile[hb, 0] == before[hb, 0] and pile[hb, 2] == before[hb, 2]
        assert (sorted(list(pile[hb, :4]) + list(pile[db, :pile_n[db]]))
                == sorted(list(before[hb, :4]) + list(before[db, :pile_n[db]])))
        results.append(pile[:e.N_PILES].copy())
    # another customer deck or own deck order: the same sample (the other two variants
    # change what B revealed in slots 0 and 2, so their samples differ)
    assert (results[0] == results[3]).all() and (results[0] == results[4]).all()


# ---------------------------------------------------------------- scenarios

def _last_round(base_a) -> State:
    """4 players, the last round (the customer deck is empty: R5 scores the game at its
    end); the score piles tie (one card each, equal values and domains: P2P-W2 a draw)."""
    s = State(players=4, round=6, marker=1, strategies={"A": base_a, "B": "greedy"})
    s.row("TE8", arrival=6)
    s.hand("A", "TE5", "SC3")
    s.score("A", "SV2").score("B", "SV3")
    return s


def test_search_commits_where_its_base_would_pass_and_draw():
    """D2: A can assist TE8 (5 + 3, a Technology card: P2P-R2a) and B cannot (empty hand).
    Scores: A 1 (SV2), B 1 (SV3): B leads on value (W2). Assisting makes A 2-1 (W1): a
    win; passing leaves B ahead: a loss. The base (greedy that always passes:
    commit.pass 1e6; it scores what it wins) would pass."""
    s = _last_round(weights({"commit.pass": 1e6}))
    search = _search(8, 4)
    (mask, cust), (options, wins, chosen) = _commit(s, search)
    assert options[0] == (0, -1, 0)            # the base's noise-free choice: pass
    assert (mask, s.name(cust)) == (0b11, "TE8")
    assert wins[chosen] == 4.0 and wins[0] == 0.0


def test_search_scores_the_deciding_customer_where_its_base_builds_a_venture():
    """D4: A has won TE8 in the last round. The base (builder that never switches to
    scoring: switch -1) ranks a venture first; only the score pile wins the game (W1:
    A 2 - B 1), a venture leaves A behind on value (W2)."""
    s = _last_round(weights("builder:threshold=-1"))
    s._fill()
    search = _search(8, 4)
    ctx = sk.new_context(search, 3, 0, s.cards.shape[1], 0)
    facts = np.full((sk.N_DECISIONS, sk.DECISION_WIDTH), -1, np.int64)
    facts[sk.D_COMMIT] = 0b11, s.id("TE8"), -1   # A's commit
    facts[sk.D_COMMIT + 1] = 0, -1, -1           # B passed
    code = sk.place_at_state(0, s.id("TE8"), facts, _tables(s), _tuple(s), ctx)
    options, wins, chosen = _kept(ctx)
    assert options[0][0] != 0                   # the base's choice: a seat (code 1 + seat)
    assert code == 0 and wins[chosen] == 4.0    # search: the score pile, won every playout


@pytest.mark.slow   # compiles the search kernels' trace version (minutes)
def test_trace_shows_the_options_and_their_means():
    cfg = GAME.configure(players=4, strategies={"A": "search:k=3,n=4", "B": "expert"})
    text = cfg.trace(5, 2)
    assert "search commit option 0 (the base strategy's choice): its team scores" in text
    assert "playouts, mean" in text
    assert "search: team A takes option" in text
    assert "INVARIANT" not in text
