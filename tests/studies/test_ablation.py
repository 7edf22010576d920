"""Card ablation (sim/studies/ablation.py) on the card-duel test game
(tests/support/ablation_game.py), whose card worth is known by construction: a ``boost 8``
card is clearly stronger than the ``boost 1`` cards, and equal cards are equal."""
import numpy as np
import polars as pl
import pytest

from sim import api
from sim.core.game import EXTRA_GAMES_ENV
from sim.studies.ablation import paired_table

EQUAL = "id,name,power,effect\n" + "".join(
    f"{i},{n},3,boost 1\n" for i, n in enumerate(["Ant", "Bee", "Cat", "Dog", "Elk", "Fox",
                                                  "Gnu", "Hen"], start=1))


@pytest.fixture(autouse=True)
def duel_registered(monkeypatch):
    monkeypatch.setenv(EXTRA_GAMES_ENV, "fake=fake_game,cardduel=ablation_game")


def _cards(tmp_path, text):
    path = tmp_path / "cards.csv"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_card_made_stronger_is_found_first_with_an_interval_excluding_zero(tmp_path, seed):
    cards = _cards(tmp_path, EQUAL.replace("8,Hen,3,boost 1", "8,Hen,3,boost 8"))
    result = api.ablate(game="cardduel", games=4000, seed=seed, cards=cards,
                        out=tmp_path / "abl", threads=1)
    called = result.called()
    assert called.height >= 1
    first = called.row(0, named=True)
    assert first["card_name"] == "Hen"
    assert first["lo"] > 0 or first["hi"] < 0            # its own change excludes zero
    assert first["vs_ref_lo"] > 0.02 or first["vs_ref_hi"] < -0.02   # beyond the threshold
    assert set(called["card_name"]) == {"Hen"}
    # every configuration played the same games: baseline + 8 cards x 3 changes
    assert result.configurations == 25 and result.games_played == 25 * 4000
    assert (tmp_path / "abl" / "ablation.csv").is_file()


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_equal_cards_call_no_card(tmp_path, seed):
    result = api.ablate(game="cardduel", games=4000, seed=seed, cards=_cards(tmp_path, EQUAL),
                        out=tmp_path / "abl", threads=1)
    assert result.called().height == 0
    # the cards do matter (each one's own change excludes zero somewhere); none stands out
    assert (result.table["lo"] > 0).any() or (result.table["hi"] < 0).any()
    assert int(result.table["tested"][0]) == result.table.height - 3 * len(
        result.table["headline"].unique())


def test_paired_differences_by_hand():
    """Baseline and one variant over 4 games: game 1 turns from A (0) to all-lose (3)."""
    base = np.array([0, 1, 3, 0], dtype=np.int8)
    var = np.array([3, 1, 3, 0], dtype=np.int8)
    same = base.copy()
    t = paired_table(base, [("1", "One", "no_effect", var), ("2", "Two", "no_effect", same),
                            ("3", "Three", "no_effect", same)], {"A": 0, "all_lose": 3}, 2.0)
    row = t.filter((pl.col("card_id") == "1") & (pl.col("headline") == "all_lose rate")).row(0, named=True)
    assert row["diff"] == pytest.approx(0.25) and row["base_rate"] == pytest.approx(0.25)
    assert row["variant_rate"] == pytest.approx(0.5)
    d = np.array([1, 0, 0, 0])
    half = 1.959964 * d.std(ddof=1) / 2
    assert row["lo"] == pytest.approx(0.25 - half) and row["hi"] == pytest.approx(0.25 + half)
    assert row["ref_card"] in ("Two", "Three") and row["ref_diff"] == 0.0   # the median card


def test_report_shows_the_ablation_section(tmp_path):
    cards = _cards(tmp_path, EQUAL.replace("8,Hen,3,boost 1", "8,Hen,3,boost 8"))
    result = api.ablate(game="cardduel", games=2000, seed=1, cards=cards, out=tmp_path / "abl",
                        threads=1, changes=("no_effect",))
    written = api.report([result.out / "baseline"], tmp_path / "rep",
                         extra={"ablation": str(result.out)})
    html = (tmp_path / "rep" / "report.html").read_text()
    assert 'id="ablation"' in html and "Hen" in html
    assert "ablation" in written["plots"] and written["extra"] == ["ablation"]
    assert any("ablation" in a["question"] for a in written["answers"])
