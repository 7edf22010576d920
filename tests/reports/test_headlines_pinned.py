"""Every headline number of the report is what the eager, whole-table aggregation gave.

tests/data/report_headlines_peer_to_peer/ holds the metric tables that the eager,
whole-table aggregation wrote for four fixed synthetic runs (reports/synthetic.py,
seeded: 3 players with and without compensation, 4 and 5 players); this test writes the
same runs, reports them with today's code (a lazy, streamed aggregation over the parquet
parts) and compares every column the pinned tables have: counts, rates, intervals and
quantiles exactly; means and standard deviations to 1e-12 relative (they are summed in
another order). The group column ``compensation`` is called ``variant`` now.
"""
from pathlib import Path

import polars as pl
import pytest
from repo_paths import DATA
from table_checks import assert_same_table

from reports.build import write_report
from reports.synthetic import write_run

FIXTURE = DATA / "report_headlines_peer_to_peer"
METRICS = sorted(p.stem for p in FIXTURE.glob("*.csv"))


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    base = tmp_path_factory.mktemp("fixed")
    runs = [write_run(base / "p3", players=3, games=4000, seed=3, p_a=0.45, p_b=0.3),
            write_run(base / "p3none", players=3, games=4000, seed=4, compensation="none"),
            write_run(base / "p5", players=5, games=4000, seed=5, p_a=0.42, p_b=0.33),
            write_run(base / "p4", players=4, games=4000, seed=6)]
    write_report([str(r) for r in runs], str(base / "out"))
    return base / "out"


def test_the_fixture_is_there():
    assert len(METRICS) == 9


@pytest.mark.parametrize("metric", METRICS)
def test_headline_numbers_identical_to_the_eager_aggregation(written, metric):
    old = pl.read_csv(FIXTURE / f"{metric}.csv").rename({"compensation": "variant"}, strict=False)
    assert_same_table(old, pl.read_csv(written / f"{metric}.csv"))
