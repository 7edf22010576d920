"""Is every seat fair? The answer names the seat furthest from its fair share, and of
several fair seats one often lies outside its own 95 % interval by chance: a small edge is
said only when the interval widened for picking the furthest of them (Bonferroni) still
excludes the fair share. The summary, the report and the workbench judge it alike, and a
seat judged balanced gets no replays (there is no edge to explain)."""
import polars as pl

from reports.attribution import _edge_excluded
from sim.core.game import configure
from sim.core.report_metric import Context
from sim.core.stats import wilson, z_of_many
from sim.core.wording import SMALL, WITHIN, edge_answer, furthest_answer
from sim.games.plai.report_metrics.plai_seats import place_answers
from sim.runs.explain import edge_excluded

# a 200,000-game 4-player run: seat 1 has 49,578 of the 199,982 games a startup won, its
# 95 % interval [24.60, 24.98] % just excludes 25 %, but the 4 seats' together do not
WINS = [49_989, 49_578, 50_314, 50_101]
DECIDED = sum(WINS)


def test_the_widened_interval_is_the_bonferroni_one_and_decides_a_small_edge():
    assert abs(z_of_many(1) - 1.959964) < 1e-5 and abs(z_of_many(4) - 2.497705) < 1e-5
    _, lo, hi = wilson(WINS[1], DECIDED)
    assert hi < 0.25                                 # its own interval excludes the fair share
    _, lo4, hi4 = wilson(WINS[1], DECIDED, z_of_many(4))
    assert lo4 < 0.25 < hi4                          # the four together do not
    code, words = edge_answer(WINS[1] / DECIDED, lo, hi, 0.25, 2.0, "to seat 1",
                              "against seat 1")
    assert code == SMALL
    code, words = furthest_answer(code, words, WINS[1], DECIDED, 0.25, 4, 2.0)
    assert code == WITHIN
    assert words == ("balanced (within ±2 pp; the furthest of the 4 is 0.2 points from its "
                     "fair share, as chance often puts one of 4)")
    # a clear small edge stays one: 1 point off on 200,000 games
    clear = 49_000
    _, lo, hi = wilson(clear, DECIDED)
    said = edge_answer(clear / DECIDED, lo, hi, 0.25, 2.0, "to seat 1", "against seat 1")
    assert furthest_answer(*said, clear, DECIDED, 0.25, 4, 2.0) == said and said[0] == SMALL
    # two seats' shares add up to one: one test, nothing to widen
    _, lo, hi = wilson(99_500, 200_000)
    said = edge_answer(99_500 / 200_000, lo, hi, 0.5, 2.0, "to seat 0", "against seat 0")
    assert said[0] == SMALL and furthest_answer(*said, 99_500, 200_000, 0.5, 2, 2.0) == said


def test_the_summary_says_balanced_and_replays_nothing():
    config = configure("plai", players=4)
    balance = config._seat_balance(WINS)
    assert balance["seat"] == 1 and balance["verdict"] == WITHIN
    assert balance["words"].startswith("balanced (within ±2 pp; the furthest of the 4")
    assert balance["hi"] < balance["even"] and not edge_excluded(balance)


def test_the_reports_answer_says_balanced_and_the_first_player_is_not_widened():
    fair, ctx = 0.25, Context(game="plai", threshold_pp=2.0)
    rows = []
    for seat, wins in enumerate(WINS):
        share, lo, hi = wilson(wins, DECIDED)
        rows.append({"players": 4, "pairing": "expert x4", "variant": "n/a", "seat": seat,
                     "wins": wins, "decided": DECIDED, "fair": fair, "edge_diff": share - fair,
                     "edge_lo": lo - fair, "edge_hi": hi - fair, "called": False,
                     "p_holm": 1.0, "tested": 4})
    table = pl.DataFrame(rows)
    (answer,) = place_answers(table, ctx, "seat", "Is every seat fair?", lambda s: f"seat {s}")
    assert answer.verdict == WITHIN and answer.hi < 0
    assert not _edge_excluded(answer)     # the report replays nothing for it
    assert answer.answer == ("balanced (within ±2 pp; the furthest of the 4 is 0.2 points from "
                             "its fair share, as chance often puts one of 4) (4 tested, Holm)")
    # the first player is not picked as the furthest: its own interval decides
    first = table.with_columns(pl.col("seat").alias("position")).filter(pl.col("seat") == 1) \
        .with_columns(pl.lit(0).alias("position"))
    (answer,) = place_answers(first, ctx, "position", "Does going first matter?",
                              lambda s: f"position {s}", pick_first=True)
    assert answer.verdict == SMALL
