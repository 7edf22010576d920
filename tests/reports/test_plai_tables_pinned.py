"""Every PLAI report table is what the eager aggregation wrote: in particular the
card-fight metric, aggregated lazily now (memory flat in the number of games), gives the
numbers of the eager numpy aggregation it replaced, and the game-length table built by the
shared sim.core.report_metric.length_table those of its own code.

tests/data/report_tables_plai/ holds the tables the eager aggregation (its
``plai_card_fights.compute`` collected the per-card columns and summed them with numpy)
wrote for (1) a report on two fixed synthetic PLAI runs (reports/synthetic.py
write_plai_run: 3 and 5 players, 6,000 games each in parts of 2,500): every metric's CSV,
and (2) an eager 4-player table with two pairings and every seventh game without card
counts (null, as a run made before the engine counted cards leaves them). Counts and sums
are exact, the rates and intervals (from those sums) too.
"""
from pathlib import Path

import polars as pl
import pytest
from repo_paths import DATA

from reports.build import write_report
from reports.registry import Context
from reports.synthetic import PLAI_CARD_IDS, plai_part, write_plai_run
from sim.games.plai.report_metrics import plai_card_fights
from table_checks import assert_same_table

FIXTURE = DATA / "report_tables_plai"
METRICS = sorted(p.stem for p in FIXTURE.glob("plai_*.csv") if not p.stem.endswith("_nulls"))


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    base = tmp_path_factory.mktemp("plai-fixed")
    runs = [write_plai_run(base / "p3", 3, 6000, seed=3, part_size=2500),
            write_plai_run(base / "p5", 5, 6000, seed=5, part_size=2500)]
    write_report([str(r) for r in runs], str(base / "out"))
    return base / "out"


def test_the_fixture_is_there():
    assert len(METRICS) == 7
    assert pl.read_csv(FIXTURE / "plai_card_fights.csv").height == 2 * 2 * len(PLAI_CARD_IDS)


@pytest.mark.parametrize("metric", METRICS)
def test_plai_report_tables_identical_to_the_eager_ones(written, metric):
    assert_same_table(pl.read_csv(FIXTURE / f"{metric}.csv"), pl.read_csv(written / f"{metric}.csv"))


def test_card_fights_with_uncounted_games_and_two_pairings_identical(tmp_path):
    t = pl.concat([plai_part(4, 3000, 7).with_columns(pl.lit("a x4").alias("pairing")),
                   plai_part(4, 3000, 8, start=3000).with_columns(pl.lit("b x4").alias("pairing"))])
    t = t.with_columns(pl.lit("n/a").alias("variant"))
    cards = [c for c in t.columns if c.startswith("card_")]
    t = t.with_columns(pl.when(pl.col("game_index") % 7 == 0).then(None).otherwise(pl.col(c))
                       .alias(c) for c in cards)
    ctx = Context(game="plai", card_ids=[str(i) for i in PLAI_CARD_IDS],
                  card_names=[f"Card {i}" for i in PLAI_CARD_IDS])
    new = plai_card_fights.compute(t.lazy(), ctx)
    new.write_csv(tmp_path / "new.csv")          # through CSV, as the fixture was written
    old = pl.read_csv(FIXTURE / "plai_card_fights_nulls.csv")
    assert old["games_counted"].max() < old["games"].max()    # uncounted games are in it
    assert_same_table(old, pl.read_csv(tmp_path / "new.csv"))
