"""sim.core.report_metric.rate_table: the group-count-Wilson table both games' report
metrics share (outcomes, seats, takeovers, all-lose, first marker, ...), on a hand-made
games table whose counts and intervals are worked out here."""
import math

import polars as pl
import pytest

from sim.core.report_metric import Context, rate_table

Z = 1.959964


def wilson(s: int, n: int) -> tuple[float, float, float]:
    """The Wilson score interval, written out: (s/n, lo, hi)."""
    p = s / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return p, centre - half, centre + half


# 4 players first, so the table's sort is seen: 3 games at 4 players (1 win, 1 decided
# draw-like "other"), 5 games at 3 players (3 wins).
GAMES = pl.DataFrame({
    "players": [4, 4, 4, 3, 3, 3, 3, 3],
    "pairing": ["a"] * 8,
    "variant": ["n/a"] * 8,
    "outcome": [1, 2, 0, 1, 1, 0, 1, 2],
    "turns": [10, 20, 30, 5, 6, 7, 8, 9],
})


def test_counts_rates_and_wilson_intervals_per_group_sorted():
    ctx = Context(game="x")
    t = rate_table(GAMES.lazy(), ctx, {"wins": pl.col("outcome") == 1,
                                       "decided": pl.col("outcome") > 0},
                   {"win": "wins", "share": ("wins", "decided")},
                   extra=[pl.col("turns").max().alias("longest")])
    assert t.columns == ["players", "pairing", "variant", "games", "wins", "decided", "longest",
                         "win_rate", "win_lo", "win_hi", "share_rate", "share_lo", "share_hi"]
    assert t["players"].to_list() == [3, 4]
    assert t["games"].to_list() == [5, 3] and t["wins"].to_list() == [3, 1]
    assert t["decided"].to_list() == [4, 2] and t["longest"].to_list() == [9, 30]
    assert t.schema["games"] == pl.Int64 and t.schema["wins"] == pl.Int64
    for row, (s, n, d) in zip(t.iter_rows(named=True), ((3, 5, 4), (1, 3, 2))):
        assert (row["win_rate"], row["win_lo"], row["win_hi"]) == pytest.approx(wilson(s, n), abs=1e-12)
        assert (row["share_rate"], row["share_lo"], row["share_hi"]) == pytest.approx(wilson(s, d), abs=1e-12)


def test_where_and_by_choose_the_games_and_the_groups():
    ctx = Context(game="x")
    t = rate_table(GAMES, ctx, {"wins": pl.col("outcome") == 1}, {"win": "wins"},
                   by=("pairing",), where_expr=pl.col("turns") < 25)
    assert t.columns == ["pairing", "games", "wins", "win_rate", "win_lo", "win_hi"]
    assert t.rows()[0][:3] == ("a", 7, 4)
    assert t["win_lo"][0] == pytest.approx(wilson(4, 7)[1], abs=1e-12)


def test_no_games_gives_an_empty_table_with_the_columns():
    t = rate_table(GAMES.head(0).lazy(), Context(game="x"), {"wins": pl.col("outcome") == 1},
                   {"win": "wins"})
    assert t.height == 0
    assert t.columns == ["players", "pairing", "variant", "games", "wins", "win_rate", "win_lo",
                         "win_hi"]
