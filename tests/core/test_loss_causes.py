"""Why everyone loses, from hand-made game rows: the shares of the unhappy customers of the
all-lose games by cause (P2P-R5), worked out by hand, and the words naming the main one."""
import polars as pl
import pytest

from sim.core.loss_causes import cause_shares, main_cause_words
from sim.core.stats import wilson
from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer.why_lose import WHY_LOSE

# per game: outcome, then the unhappy customers by cause (deck, draw, capacity, choice) for
# the closest team; team A's and team B's own columns get the same counts
GAMES = [(k.ALL_LOSE, 2, 0, 1, 0),
         (k.ALL_LOSE, 0, 1, 1, 0),
         (k.ALL_LOSE, 1, 0, 0, 0),
         (k.WIN_A, 5, 5, 0, 0)]     # not an all-lose game: its unhappy customers do not count


def _frame(players=4) -> pl.DataFrame:
    names = [c.name for c in WHY_LOSE.causes]
    rows = []
    for outcome, *counts in GAMES:
        row = {"winner": outcome, "players": players}
        for name, n in zip(names, counts):
            row.update({WHY_LOSE.column(name, team): n for team in (None, "a", "b")})
        rows.append(row)
    return pl.DataFrame(rows)


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
    main, words = main_cause_words(row, WHY_LOSE)
    assert (main["cause"], main["share"]) == ("deck", pytest.approx(0.5))
    # a half is not a majority: "most often", not "mostly"
    assert words == ("most often deck (deck 50 %, draw 17 %, capacity 33 %, choice 0 %; "
                     "6 unhappy customers of 3 all-lose games); to change it: "
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
    assert main["cause"] == "capacity" and words.startswith("mostly capacity (deck 0 %")
