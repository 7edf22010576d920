"""PLAI's search player (sim/games/plai/search_kernel.py).

The no-peeking test: changing what the searching seat cannot see (another hand, the deck
order) before a decision changes neither the options it evaluates, nor their wins, nor its
choice, for the same random stream. The same check run on the peeking variant (``peek`` =
1: the true hidden state, never determinized) must fail, which shows the check can fail.
"""
from __future__ import annotations

import numpy as np
import pytest

from sim.core.errors import UserError
from sim.core.rng_kernel import seed_game
from sim.games.plai import constants as c
from sim.games.plai import decide_kernel as dk
from sim.games.plai import engine_kernel as ek
from sim.games.plai import search_kernel as sk
from sim.games.plai.piles_kernel import State, Tables
from sim.games.plai.game import GAME

SEARCH = "search:k=4,n=6,base=weighted"
SEED, GAME_INDEX = 5, 2


def _config(players=3, seat0=SEARCH):
    return GAME.configure(players=players, strategies={"all": "weighted", "seat0": seat0})


def _dealt(cfg, seed=SEED, game_index=GAME_INDEX):
    """The state at the start of turn 1 (seat 0 moves first under the default rules)."""
    players, n = cfg.players, len(cfg.deck)
    piles = np.zeros((c.P_HAND0 + players, n), np.int16)
    pile_n = np.zeros(c.P_HAND0 + players, np.int64)
    rng = np.zeros(4, np.uint64)
    seed_game(rng, seed, game_index)
    first = ek.setup(cfg.deck, cfg.card_table, cfg.rules_vector, rng, piles, pile_n)
    assert first == 0
    bankrupt = np.full(players, -1, np.int64)
    st = np.zeros(c.N_STATS, np.int64)
    st[c.S_TURNS] = 1
    scratch = np.zeros((c.N_SCRATCH, max(c.N_FIGHT_OUT, n, cfg.card_table.shape[1])), np.int64)
    return piles, pile_n, bankrupt, st, scratch


def _decide(cfg, state, peek):
    """Seat 0's search over its turn's action: (options evaluated, their wins, choice)."""
    piles, pile_n, bankrupt, st, scratch = (a.copy() for a in state)
    players, n = cfg.players, len(cfg.deck)
    ctx = sk.new_context(cfg.search, SEED, peek, n, players, cfg.card_table.shape[1], 0)
    ctx.meta[sk.M_GAME] = GAME_INDEX
    trace = np.zeros((0, 6), np.int8)
    tables = Tables(cfg.card_table, cfg.rules_vector, cfg.weights,
                       dk.pick_table(cfg.weights, cfg.card_table))
    live = State(piles, pile_n, bankrupt, st, scratch, np.zeros(4, np.uint64))
    row = sk.decide(c.SEARCH_ACTION, 0, 0, players, -1, -1, -1, tables, live, trace, n, ctx)
    opts, order, wins = ctx.options.rows, ctx.order, ctx.wins
    listed = int(ctx.options.n[0])
    kept = min(int(cfg.search[0, c.SEARCH_K]), listed)
    options = [tuple(int(x) for x in opts[order[j], :3]) for j in range(kept)]
    return options, [float(w) for w in wins[:kept]], tuple(int(x) for x in opts[row, :3])


def _hidden_changes(cfg, state):
    """Copies of ``state`` that differ only in what seat 0 cannot see."""
    piles, pile_n, bankrupt, st, scratch = state
    types = cfg.card_table[c.CD_TYPE]
    out = []

    def variant():
        return [a.copy() for a in state]

    v = variant()   # the deck in reverse order
    v[0][c.P_DECK, :pile_n[c.P_DECK]] = piles[c.P_DECK, :pile_n[c.P_DECK]][::-1]
    out.append(("deck order", v))
    v = variant()   # a card of seat 1 swapped with a different deck card
    h1 = c.P_HAND0 + 1
    j = next(j for j in range(pile_n[c.P_DECK]) if piles[c.P_DECK, j] != piles[h1, 0]
             and types[piles[c.P_DECK, j]] != c.MARKET_EVENT)
    v[0][h1, 0], v[0][c.P_DECK, j] = piles[c.P_DECK, j], piles[h1, 0]
    out.append(("seat 1's hand and the deck", v))
    v = variant()   # a card swapped between seats 1 and 2
    h2 = c.P_HAND0 + 2
    k = next(k for k in range(pile_n[h2]) if piles[h2, k] != piles[h1, 0])
    v[0][h1, 0], v[0][h2, k] = piles[h2, k], piles[h1, 0]
    out.append(("seats 1 and 2", v))
    v = variant()   # seat 2's hand in another order
    v[0][h2, :pile_n[h2]] = piles[h2, :pile_n[h2]][::-1]
    out.append(("seat 2's hand order", v))
    return out


def check_no_peeking(peek: int) -> None:
    cfg = _config()
    state = _dealt(cfg)
    first = _decide(cfg, state, peek)
    assert len(first[0]) >= 2, "the decision must weigh several options"
    for what, changed in _hidden_changes(cfg, state):
        assert np.array_equal(changed[0][c.P_HAND0], state[0][c.P_HAND0])   # its own hand
        assert _decide(cfg, changed, peek) == first, f"changing {what} changed the search"


def test_search_does_not_peek():
    check_no_peeking(peek=0)


def test_the_no_peeking_check_catches_a_peeking_player():
    with pytest.raises(AssertionError, match="changed the search"):
        check_no_peeking(peek=1)


def test_search_games_are_deterministic_and_split_free():
    cfg = _config(seat0="search:k=3,n=2,base=weighted")
    one = cfg.play(11, 40, 6, threads=1)
    two = cfg.play(11, 40, 6, threads=2)
    assert np.array_equal(one, two)
    assert cfg.decisions > 0
    again = _config(seat0="search:k=3,n=2,base=weighted").play(11, 43, 3)
    assert np.array_equal(again, one[3:])


def test_search_changes_the_searching_seats_play():
    base = _config(seat0="weighted").play(11, 40, 6)
    searched = _config(seat0="search:k=3,n=2,base=weighted").play(11, 40, 6)
    assert not np.array_equal(base["turns"], searched["turns"])


@pytest.mark.slow   # compiles the search kernels' trace version too (~75 s CPU): not in .ci/run
def test_trace_shows_the_options_and_their_means():
    text = _config(seat0="search:k=3,n=2,base=weighted").trace(11, 40)
    assert "search action option 0 (the base strategy's choice): seat wins" in text
    assert "search: seat 0 takes option" in text
    assert "seat 0: search:k=3,n=2,base=weighted" in text


def test_spec_names_its_base_and_checks_it():
    cfg = _config(seat0="search:k=5,n=7,base=aggressive")
    assert cfg.search[0].tolist() == [1, 5, 7] and not cfg.search[1:].any()
    aggressive = GAME.configure(players=3, strategies={"all": "aggressive"}).weights[0]
    assert np.array_equal(cfg.weights[0], aggressive)
    with pytest.raises(UserError, match="unknown base strategy 'nope'"):
        _config(seat0="search:base=nope")
    with pytest.raises(UserError, match="has no parameter 'depth'"):
        _config(seat0="search:depth=3")
