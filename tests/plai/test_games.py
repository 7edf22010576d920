"""Whole PLAI games: invariants over 10,000 games, determinism, results, summary, trace."""
from __future__ import annotations

import polars as pl
import pytest

from sim.core.errors import UserError
from sim.core.game import get_game
from sim.games.plai import constants as c

GAME = get_game("plai")
MIXES = {  # seats' strategies per player count, so every decision path is exercised
    2: {"seat0": "random", "seat1": "aggressive"},
    3: {"seat0": "bluffer", "seat1": "cautious", "seat2": "random"},
    4: {"all": "random", "seat1": "aggressive"},
    5: {"seat0": "weighted", "seat1": "random", "seat2": "bluffer:rate=0.8",
        "seat3": "aggressive", "seat4": "cautious"},
}


@pytest.fixture(scope="module")
def results():
    """2,500 games per player count (10,000 in all), in debug mode: the kernel checks
    card conservation and the pool cap (PLAI-T7) after every turn."""
    frames = {}
    for players, strategies in MIXES.items():
        config = GAME.configure(players=players, strategies=strategies, debug=True)
        frames[players] = config.run_chunk(seed=11, start=0, count=2500, threads=1)
    return frames


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_invariants_over_games(results, players):
    df = results[players]
    seats = [f"hand_{s}" for s in range(players)]
    assert (df["error"] == 0).all()              # checked after every turn (debug mode)
    held = df.select(pl.sum_horizontal(seats)).to_series()
    # Card conservation: hands + deck + discard + pool = the deck used.
    assert (held + df["deck_left"] + df["discard_left"] + df["pool_left"]
            == df["deck_size"]).all()
    assert (df["max_pool"] <= 6).all() and (df["pool_left"] <= 6).all()   # PLAI-T7
    assert (df["turns"] <= 400).all()                                     # PLAI-T6
    assert (df["deck_size"] == {2: 28, 3: 38, 4: 38, 5: 44}[players]).all()
    # PLAI-T6: a winner is the one startup never bankrupt, and it still holds cards.
    won = df.filter(pl.col("outcome") == c.OUT_SEAT)
    for s in range(players):
        mine = won.filter(pl.col("winner") == s)
        assert (mine[f"bankrupt_turn_{s}"] == -1).all() and (mine[f"hand_{s}"] > 0).all()
    assert len(won) > 0.9 * len(df)
    # The loser's bankruptcy turn is within the game, and bankrupt seats hold nothing.
    for s in range(players):
        out = df.filter(pl.col(f"bankrupt_turn_{s}") >= 0)
        assert (out[f"bankrupt_turn_{s}"] <= out["turns"]).all()
        assert (out[f"hand_{s}"] == 0).all()
    assert (df["regional_attack_won"] <= df["regional_attacked"]).all()
    assert (df["regional_attacked"] <= df["fund_regional"]).all()
    assert (df["venture_attacked"] <= df["fund_venture"]).all()
    assert (df["takeovers_won"] <= df["takeovers"]).all()


def test_debug_mode_checks_the_invariants_after_every_turn():
    """The error column: card conservation and the pool cap (PLAI-T7), checked by
    end_of_turn only in debug mode (R_DEBUG); a broken state is caught there."""
    import numpy as np

    from sim.games.plai import engine_kernel as ek
    from plai_state import State, rules

    for debug, expected in ((1, c.ERR_CONSERVATION), (0, c.ERR_NONE)):
        s = State(2, hands={0: ["Daily Standups"], 1: ["Chatbot"]})
        r = rules(2)
        r[c.R_DEBUG] = debug
        assert ek.end_of_turn(r, s.piles, s.pile_n, s.bankrupt, s.st, s.trace, 3,
                              s.startups()) == 2
        assert s.st[c.S_ERROR] == expected          # 2 cards held, 3 in the deck used
    s = State(2, hands={0: ["Daily Standups"], 1: ["Chatbot"]}, pool=["Synergy"] * 7)
    ek.end_of_turn(rules(2), s.piles, s.pile_n, s.bankrupt, s.st, s.trace, 9, s.startups())
    assert s.st[c.S_ERROR] == c.ERR_POOL_CAP
    config = GAME.configure(players=2, debug=True)
    assert config.rules_vector[c.R_DEBUG] == 1
    assert np.array_equal(config.play(3, 0, 200), GAME.configure(players=2).play(3, 0, 200))


def test_d1_cautious_only_takes_family_funding():
    df = GAME.configure(players=3, strategies={"all": "cautious"}).run_chunk(5, 0, 300)
    assert (df["fund_regional"] == 0).all() and (df["fund_venture"] == 0).all()
    assert (df["takeovers"] == 0).all() and (df["specials"] == 0).all()


def test_t6_maintainers_win_when_the_last_startups_fall_together():
    # One card each: an AI Winter drawn early bankrupts everyone at once (the first
    # expert's games, where it happens; today's expert rarely lets it).
    config = GAME.configure(players=2, rule_overrides=("starting_hand=1",),
                            strategies={"all": "expert-v1"})
    df = config.run_chunk(3, 0, 2000)
    maint = df.filter(pl.col("outcome") == c.OUT_MAINTAINERS)
    assert len(maint) > 0
    assert ((maint["bankrupt_turn_0"] == maint["turns"])
            & (maint["bankrupt_turn_1"] == maint["turns"])).all()
    assert (maint["winner"] == -1).all()


def test_t6_stalemate_at_max_turns_and_s1_first_seat():
    df = GAME.configure(players=4, rule_overrides=("max_turns=3",)).run_chunk(1, 0, 300)
    assert (df["turns"] <= 3).all()
    stalemates = df.filter(pl.col("outcome") == c.OUT_STALEMATE)
    assert len(stalemates) > 250 and (stalemates["turns"] == 3).all()
    assert (df["first_seat"] == 0).all()
    df = GAME.configure(players=4, rule_overrides=("first_seat=random",)).run_chunk(1, 0, 300)
    assert set(df["first_seat"].to_list()) == {0, 1, 2, 3}


def test_determinism_threads_and_batch_sizes():
    config = GAME.configure(players=3, strategies={"seat0": "random", "seat2": "bluffer"})
    one_thread = config.run_chunk(seed=42, start=0, count=7777, threads=1)
    chunks = [config.run_chunk(seed=42, start=s, count=min(1000, 7777 - s), threads=2)
              for s in range(0, 7777, 1000)]
    assert one_thread.equals(pl.concat(chunks))
    two_threads = config.run_chunk(seed=42, start=0, count=7777, threads=2)
    assert one_thread.equals(two_threads)
    assert not one_thread.equals(config.run_chunk(seed=43, start=0, count=7777))


def test_summary_keys_and_rates():
    config = GAME.configure(players=3)
    df = config.run_chunk(2, 0, 500)
    summary = config.summarize(df.lazy())
    assert set(summary["seats"]) == {"0", "1", "2"}
    for rate in summary["seats"].values():
        assert rate["ci_low"] <= rate["win_rate"] <= rate["ci_high"]
    total = (sum(r["win_rate"] for r in summary["seats"].values())
             + summary["maintainers_win_rate"] + summary["stalemate_rate"])
    assert total == pytest.approx(1.0)
    assert summary["draw_rate"] == 0.0
    assert summary["all_lose_rate"] == summary["maintainers_win_rate"]
    assert summary["mean_turns"] == pytest.approx(df["turns"].mean())
    assert "seat 0" in config.format_summary(summary)


def test_trace_replays_the_same_game_in_words():
    config = GAME.configure(players=2, strategies={"seat1": "aggressive"})
    row = config.run_chunk(8, 5, 1).row(0, named=True)
    text = config.trace(8, 5)
    assert text.startswith("PLAI, 2 players, seed 8, game 5")
    assert f"after {row['turns']} turns" in text
    assert text.count("\nturn ") == row["turns"]
    assert "game over" in text


def test_manifest_and_strategy_errors():
    config = GAME.configure(players=2, strategies={"all": "cautious", "1": "bluffer:rate=0.2"})
    manifest = config.manifest()
    assert manifest["strategies"]["seat0"]["name"] == "cautious"
    assert manifest["strategies"]["seat1"]["params"] == {"rate": 0.2}
    assert len(manifest["cards"]["sha256"]) == 64 and manifest["rules"]["max_turns"] == 400
    with pytest.raises(UserError, match="seat7"):
        GAME.configure(players=2, strategies={"seat7": "random"})
    with pytest.raises(UserError, match="unknown strategy"):
        GAME.configure(players=2, strategies={"all": "nope"})
    with pytest.raises(UserError, match="2 to 5"):
        GAME.configure(players=6)
