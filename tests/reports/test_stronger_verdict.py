"""An answer holds under stronger play only when the search games show it moves by less than
the band; a change too uncertain to tell is "not decided", never "holds"."""
import polars as pl
import pytest

from reports.stronger import compare
from sim.core.report_metric import Answer
from sim.core.wording import CHANGES, HOLDS, NOT_DECIDED, under_stronger_play


@pytest.mark.parametrize("lo, hi, threshold_pp, expected", [
    (-0.010, 0.015, 2.0, HOLDS),          # inside ±2 points
    (-0.020, 0.020, 2.0, HOLDS),          # the band's own edges
    (0.001, 0.012, 2.0, CHANGES),         # excludes 0, however small
    (-0.030, -0.025, 2.0, CHANGES),
    (-0.010, 0.030, 2.0, NOT_DECIDED),    # holds 0, reaches past +2
    (-0.168, 0.570, 2.0, NOT_DECIDED),    # 20 search games: tells nothing
    (-0.010, 0.030, 5.0, HOLDS),          # a wider band
])
def test_the_verdict_needs_the_whole_interval_inside_the_band(lo, hi, threshold_pp, expected):
    assert under_stronger_play(lo, hi, threshold_pp) == expected


def _answer(estimate, lo, hi, searched):
    return Answer(question="Is it fair between the teams?", where="4 players", answer="",
                  verdict="within", estimate=estimate, lo=lo, hi=hi, kind="rate",
                  players=4, key="team_balance", recompute=lambda games: searched)


@pytest.mark.parametrize("searched, threshold_pp, status, words", [
    # runs 49.0 % [48.5, 49.5]; the difference's half-widths combine as Newcombe's
    ((0.492, 0.484, 0.500), 2.0, HOLDS, "holds under stronger play (49.2 % [48.4, 50.0])"),
    ((0.333, 0.163, 0.563), 2.0, NOT_DECIDED,
     "not decided under stronger play: 33.3 % [16.3, 56.3], -15.7 points [-32.7, +7.3] "
     "from the runs' answer, an interval reaching past ±2 points (more search games would "
     "narrow it)"),
    ((0.333, 0.163, 0.563), 40.0, HOLDS, "holds under stronger play (33.3 % [16.3, 56.3])"),
    ((0.400, 0.390, 0.410), 2.0, CHANGES,
     "changes: 40.0 % [39.0, 41.0] under stronger play (-9.0 points [-10.1, -7.9])"),
])
def test_each_answer_says_holds_changes_or_not_decided(searched, threshold_pp, status, words):
    (checked, anchor), = compare([(_answer(0.49, 0.485, 0.495, searched), "team_balance")],
                                 pl.LazyFrame({"players": [4, 4]}), {(4, None): 12.0},
                                 threshold_pp)
    got = checked.stronger
    assert anchor == "team_balance"
    assert (got["status"], got["holds"], got["words"]) == (status, status == HOLDS, words)
    assert got["checked"] and got["games"] == 2 and got["seconds"] == 12.0
