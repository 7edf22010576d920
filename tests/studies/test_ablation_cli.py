"""`simulate ablate` and `simulate report --ablation` from the command line (card-duel game)."""
from click.testing import CliRunner

from sim.cli import main
from sim.core.game import EXTRA_GAMES_ENV


def test_ablate_then_report(tmp_path, monkeypatch):
    monkeypatch.setenv(EXTRA_GAMES_ENV, "fake=fake_game,cardduel=ablation_game")
    cards = tmp_path / "cards.csv"
    cards.write_text("id,name,power,effect\n1,Ant,3,boost 1\n2,Bee,3,boost 1\n3,Cat,3,boost 1\n"
                     "4,Dog,3,boost 1\n5,Elk,3,boost 1\n6,Fox,3,boost 1\n7,Gnu,3,boost 1\n"
                     "8,Hen,3,boost 8\n")
    out = tmp_path / "abl"
    runner = CliRunner()
    result = runner.invoke(main, ["ablate", "--game", "cardduel", "--games", "3000", "--cards",
                                  str(cards), "--out", str(out), "--change", "no_effect",
                                  "--threads", "1"])
    assert result.exit_code == 0, result.output
    assert "Hen (8), effect removed" in result.output and "4 configurations" not in result.output
    assert "9 configurations (27,000 games)" in result.output
    rep = runner.invoke(main, ["report", str(out / "baseline"), "--out", str(tmp_path / "rep"),
                               "--ablation", str(out)])
    assert rep.exit_code == 0, rep.output
    assert 'id="ablation"' in (tmp_path / "rep" / "report.html").read_text()


def test_ablate_unknown_card_is_a_one_line_error(tmp_path, monkeypatch):
    monkeypatch.setenv(EXTRA_GAMES_ENV, "fake=fake_game,cardduel=ablation_game")
    result = CliRunner().invoke(main, ["ablate", "--game", "cardduel", "--card", "Zebra",
                                       "--out", str(tmp_path / "x")])
    assert result.exit_code == 2
    assert "no card 'Zebra'" in result.output and "--card" in result.output
