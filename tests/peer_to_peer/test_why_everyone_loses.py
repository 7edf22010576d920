"""Why everyone loses: the replayed unhappy customers agree with what the engine stored
(the same games, as many unhappy customers per game as its ``unhappy`` column), and the
report shows the section and its answers."""
import polars as pl
import pytest

from reports.load import load_runs
from reports.why_lose import replayed, summary
from sim import api
from sim.games.peer_to_peer.constants import ALL_LOSE


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("why") / "p3"
    api.run(game="peer-to-peer", players=3, games=200, seed=7, out=out, threads=1, progress=False)
    return out


def test_replayed_customers_match_the_stored_games(run):
    rs = load_runs([str(run)])
    customers, notes = replayed(rs, sample=40)
    assert notes == []
    stored = (pl.read_parquet(run / "games" / "*.parquet")
              .filter(pl.col("winner") == ALL_LOSE).sort("game_index").head(40))
    assert stored.height > 0
    per_game = customers.group_by("game_index").len().sort("game_index")
    assert per_game["game_index"].to_list() == stored["game_index"].to_list()
    assert per_game["len"].to_list() == stored["unhappy"].cast(pl.UInt32).to_list()
    assert (customers["winner"] == ALL_LOSE).all()
    assert (customers["wait"] >= 0).all() and (customers["unhappy_round"] >= customers["dealt"]).all()
    both = customers.select((~(pl.col("reachable_a") | pl.col("reachable_b"))).alias("u"))["u"]
    assert both.to_list() == customers["unreachable"].to_list()
    t = summary(customers)
    assert t["unhappy_customers"].to_list() == [customers.height]
    assert 0.0 <= t["unreachable_lo"][0] <= t["unreachable_rate"][0] <= t["unreachable_hi"][0] <= 1.0


def test_report_has_the_section_and_answers(run, tmp_path):
    written = api.report([run], tmp_path / "rep")
    assert "why_lose" in written["extra"] and "why_lose" in written["plots"]
    html = (tmp_path / "rep" / "report.html").read_text()
    assert 'id="why_lose"' in html
    assert any(a["question"].startswith("Why does everyone lose") for a in written["answers"])
