"""Why everyone loses, from hand-made game rows: the shares of the unhappy customers of the
all-lose games by cause (P2P-R5), worked out by hand, and the words naming the main one."""
import math

import numpy as np
import polars as pl
import pytest

from sim.core.loss_causes import cause_shares, main_cause_words
from sim.core.stats import Z95, wilson
from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer.why_lose import WHY_LOSE

# per game: outcome, then the unhappy customers by cause (deck, draw, capacity, choice) for
# the closest team; team A's and team B's own columns get the same counts
GAMES = [(k.ALL_LOSE, 2, 0, 1, 0),
         (k.ALL_LOSE, 0, 1, 1, 0),
         (k.ALL_LOSE, 1, 0, 0, 0),
         (k.WIN_A, 5, 5, 0, 0)]     # not an all-lose game: its unhappy customers do not count


def _frame(players=4, copies=1) -> pl.DataFrame:
    names = [c.name for c in WHY_LOSE.causes]
    rows = []
    for outcome, *counts in GAMES * copies:
        row = {"winner": outcome, "players": players}
        for name, n in zip(names, counts):
            row.update({WHY_LOSE.column(name, team): n for team in (None, "a", "b")})
        rows.append(row)
    return pl.DataFrame(rows)


def _lead_interval(copies: int) -> tuple[float, float, float]:
    """deck's lead over capacity worked out game by game: the ratio of the per-game
    difference of their counts to the unhappy customers, with the delta method's
    residuals e = (deck - capacity) - lead * unhappy (the game as the unit)."""
    lost = [g for g in GAMES * copies if g[0] == k.ALL_LOSE]
    x = np.array([g[1] - g[3] for g in lost], dtype=float)
    y = np.array([sum(g[1:]) for g in lost], dtype=float)
    lead = x.sum() / y.sum()
    e = x - lead * y
    se = math.sqrt((e @ e) / (len(lost) - 1) / len(lost)) / y.mean()
    return lead, lead - Z95 * se, lead + Z95 * se


def test_the_shares_are_the_unhappy_customers_of_all_lose_games_by_cause():
    (row,) = cause_shares(_frame(), WHY_LOSE, "winner").iter_rows(named=True)
    # 6 unhappy customers in 3 all-lose games: deck 3, draw 1, capacity 2, choice 0
    assert (row["all_lose_games"], row["unhappy_customers"]) == (3, 6)
    for cause, share in (("deck", 3 / 6), ("draw", 1 / 6), ("capacity", 2 / 6),
                         ("choice", 0.0)):
        assert row[f"{cause}_rate"] == pytest.approx(share)
        assert row[f"{cause}_a_rate"] == pytest.approx(share)
        # never narrower than Wilson's interval of the pooled counts
        _, w_lo, w_hi = wilson(round(6 * share), 6)
        assert row[f"{cause}_lo"] <= w_lo + 1e-12 and row[f"{cause}_hi"] >= w_hi - 1e-12
    # deck leads capacity by 1/6 of the customers, in three games: not clearly
    lead = _lead_interval(1)
    assert (row["main_cause"], row["runner_up"]) == ("deck", "capacity")
    assert (row["main_lead"], row["main_lead_lo"], row["main_lead_hi"]) == pytest.approx(lead)
    assert lead[0] == pytest.approx(1 / 6) and lead[1] < 0
    main, words = main_cause_words(row, WHY_LOSE)
    assert (main["cause"], main["share"]) == ("deck", pytest.approx(0.5))
    advice = {c.name: c.advice for c in WHY_LOSE.causes}
    assert words == ("most often deck, not clearly ahead of capacity (deck 50 %, draw 17 %, "
                     "capacity 33 %, choice 0 %; 6 unhappy customers of 3 all-lose games); "
                     f"to change it: {advice['deck']}; or {advice['capacity']}")


def test_the_main_cause_is_named_alone_once_its_lead_is_clear():
    """The same games a hundred times over: the same shares, a lead beyond noise."""
    (row,) = cause_shares(_frame(copies=100), WHY_LOSE, "winner").iter_rows(named=True)
    lead = _lead_interval(100)
    assert (row["main_lead"], row["main_lead_lo"], row["main_lead_hi"]) == pytest.approx(lead)
    assert lead[1] > 0
    _, words = main_cause_words(row, WHY_LOSE)
    # a half is not a majority: "most often", not "mostly"
    assert words == ("most often deck (deck 50 %, draw 17 %, capacity 33 %, choice 0 %; "
                     "600 unhappy customers of 300 all-lose games); to change it: "
                     + WHY_LOSE.causes[0].advice)


def test_grouped_shares_keep_each_group_apart():
    games = pl.concat([_frame(3), _frame(4).with_columns(
        pl.when(pl.col("winner") == k.ALL_LOSE).then(0).otherwise(pl.col("unhappy_deck"))
        .alias("unhappy_deck"))])
    table = cause_shares(games.lazy(), WHY_LOSE, "winner", by=("players",))
    assert table["players"].to_list() == [3, 4]
    assert table["unhappy_customers"].to_list() == [6, 3]
    assert table["deck_rate"].to_list() == pytest.approx([0.5, 0.0])
    assert table["capacity_rate"].to_list() == pytest.approx([2 / 6, 2 / 3])
    main, words = main_cause_words(table.row(1, named=True), WHY_LOSE)
    assert table["main_cause"].to_list() == ["deck", "capacity"]
    assert table["runner_up"].to_list() == ["capacity", "draw"]
    assert main["cause"] == "capacity"
    assert words.startswith("most often capacity, not clearly ahead of draw (deck 0 %")
