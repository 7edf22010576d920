"""Card ablation (sim/studies/ablation.py) on the card-duel test game
(tests/support/ablation_game.py), whose card worth is known by construction: a ``boost 8``
card is clearly stronger than the ``boost 1`` cards, and equal cards are equal."""
import numpy as np
import polars as pl
import pytest

from sim import api
from sim.core.errors import UserError
from sim.core.game import EXTRA_GAMES_ENV
from sim.studies import ablation
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
    # the answer names the card it picks for what it is: the one furthest from the typical
    words = [a["answer"] for a in written["answers"] if "ablation" in a["question"]]
    assert words and all("typical card" in w for w in words)
    assert not any("largest" in w for w in words)


def test_one_card_ablated_is_compared_with_nothing_and_another_games_is_refused(tmp_path):
    from sim.core.errors import UserError

    cards = _cards(tmp_path, EQUAL)
    result = api.ablate(game="cardduel", games=200, seed=1, cards=cards, out=tmp_path / "abl",
                        threads=1, changes=("no_effect",), only=("Hen",))
    assert "One card ablated (8): no other card to compare it with" in result.to_text()
    written = api.report([result.out / "baseline"], tmp_path / "own",
                         extra={"ablation": str(result.out)})
    words = [a["answer"] for a in written["answers"] if "ablation" in a["question"]]
    assert words and all(w.startswith("one card ablated, so none compared: Hen") for w in words)
    other = api.run(game="fake", games=200, seed=1, out=tmp_path / "fake", threads=1)
    with pytest.raises(UserError) as caught:
        api.report([other.run_dir], tmp_path / "rep", extra={"ablation": str(result.out)})
    assert "the ablation is of cardduel, the report's runs of fake" in str(caught.value)


def test_plai_ablation_measures_each_seats_win_rate(tmp_path):
    """In PLAI some startup wins nearly every game, so the ablation's headlines are each
    seat's win rate (with the maintainers' and stalemates'), and a card that matters
    (Daily Standups' strength -1) moves them."""
    result = api.ablate(game="plai", players=3, games=300, seed=1, only=("Daily Standups",),
                        changes=("value-1",), out=tmp_path / "abl", threads=1)
    assert "the calls compare them with each other" in result.to_text()   # --card named
    assert "seed 1; expert x3; cards: the default card file" in result.to_text()
    # the largest change's run, to check under stronger play with simulate compare
    first = result.table.with_columns(pl.col("diff").abs().alias("_a")).sort(
        "_a", descending=True).row(0, named=True)
    variant = result.out / ablation.variant_directory(first["card_id"], first["change"])
    assert (variant / "manifest.json").is_file()
    assert (f"Under stronger play: not checked here; simulate compare {result.out / 'baseline'} "
            f"{variant} checks a change") in result.to_text()
    headlines = set(result.table["headline"])
    assert {"seat 0 win rate", "seat 1 win rate", "seat 2 win rate"} <= headlines
    assert headlines <= {"seat 0 win rate", "seat 1 win rate", "seat 2 win rate",
                         "maintainers win rate", "stalemate rate"}
    seats = result.table.filter(pl.col("headline").str.starts_with("seat"))
    assert (seats["diff"].abs() > 0.01).any()           # the card moves who wins
    assert (seats["base_rate"] < 0.9).all()            # a seat's share, not "some seat won"
    for card in seats["card_id"].unique():             # the seats' changes cancel out
        total = seats.filter(pl.col("card_id") == card)["diff"].sum()
        others = result.table.filter((pl.col("card_id") == card)
                                     & ~pl.col("headline").str.starts_with("seat"))
        assert total + others["diff"].sum() == pytest.approx(0.0, abs=1e-12)


def test_plai_ablation_leaves_out_cards_no_game_of_the_count_deals(tmp_path):
    """PLAI-C2: Daily Standups is printed under numerals I (id 1) and II (id 21); a
    2-player deck holds only numeral I, so id 21 is not ablated (it could change no game
    and would only swell the test family) and the note says so."""
    result = api.ablate(game="plai", players=2, games=200, seed=1, only=("Daily Standups",),
                        changes=("value-1",), out=tmp_path / "abl", threads=1)
    assert set(result.table["card_id"]) == {"1"}
    assert any(s.startswith("not in the deck at 2 players") and "(21)" in s
               for s in result.skipped), result.skipped
    assert result.meta["named_cards"] == ["1"]          # the one ablated, not card 21
    # the same call with the API's two values (and a card reference as a plain string)
    again = api.ablate(api.GameRequest(game="plai", players=2),
                       api.Execution(games=200, seed=1, out=tmp_path / "again", threads=1,
                                     progress=False),
                       only="Daily Standups", changes="value-1")
    assert again.table.equals(result.table)
    with pytest.raises(UserError, match="no card to ablate: not in the deck at 2 players"):
        api.ablate(game="plai", players=2, games=200, only=("21",), out=tmp_path / "none",
                   threads=1)


def test_plai_headlines_by_hand():
    """A hand-made PLAI games frame: the per-game headline of each game and their names."""
    from sim.core.game import get_game
    from sim.games.plai.constants import OUT_MAINTAINERS, OUT_SEAT, OUT_STALEMATE
    from sim.studies.ablation import headline_outcomes

    plai = get_game("plai")
    games = pl.DataFrame({"game_index": [0, 1, 2, 3, 4], "winner": [2, 0, -1, -1, 1],
                          "outcome": [OUT_SEAT, OUT_SEAT, OUT_MAINTAINERS, OUT_STALEMATE,
                                      OUT_SEAT]})
    codes, names = headline_outcomes(plai, games, 3)
    assert list(names) == ["seat 0 win", "seat 1 win", "seat 2 win", "maintainers win",
                           "stalemate"]
    assert [next(n for n, c in names.items() if c == k) for k in codes] == [
        "seat 2 win", "seat 0 win", "maintainers win", "stalemate", "seat 1 win"]
    # a variant where game 0 goes to seat 0 instead of seat 2
    var, _ = headline_outcomes(plai, games.with_columns(
        pl.Series("winner", [0, 0, -1, -1, 1])), 3)
    t = paired_table(codes, [("1", "One", "value-1", var)], names, 2.0)
    diff = dict(zip(t["headline"], t["diff"]))
    assert diff["seat 0 win rate"] == pytest.approx(0.2)
    assert diff["seat 2 win rate"] == pytest.approx(-0.2)
    assert diff["seat 1 win rate"] == 0.0


def test_the_ablation_band_and_answer_are_about_the_typical_card(tmp_path):
    """Calls are made against the typical card's change: the plot's band is centred there,
    and the answer's value is the difference from it, so a card far from 0 but near the
    typical card sits inside the band beside its 'no card stands out'."""
    from matplotlib.patches import Rectangle

    from reports.ablation import forest_figure

    result = api.ablate(game="cardduel", games=400, seed=1, cards=_cards(tmp_path, EQUAL),
                        out=tmp_path / "abl", threads=1, changes=("no_effect",))
    written = api.report([result.out / "baseline"], tmp_path / "rep",
                         extra={"ablation": str(result.out)})
    table = pl.read_csv(result.out / "ablation.csv")
    answers = [a for a in written["answers"] if "ablation" in a["question"]]
    for a in answers:
        h = a["question"].split("(")[1].split(",")[0]
        t = table.filter(pl.col("headline") == h)
        assert any(a["estimate"] == pytest.approx(v) for v in t["vs_ref_diff"]), a
        assert "from the typical card" in a["answer"]
    fig = forest_figure(table, 2.0)
    ax = fig.axes[0]
    h = table["headline"][0]
    refs = sorted(100 * table.filter(pl.col("headline") == h)["ref_diff"].to_numpy())
    bands = sorted(r.get_x() + r.get_width() / 2 for r in ax.patches if isinstance(r, Rectangle)
                   and r.get_width() == pytest.approx(4.0))
    assert bands and bands == pytest.approx(refs)
