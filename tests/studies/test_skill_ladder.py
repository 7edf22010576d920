"""The skill ladder (sim/studies/skill.py, ``simulate skill``) and its report section."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from sim.core.stats import wilson
from sim.studies import skill
from reports.skill_section import TITLE, section_html


def test_per_seat_share_is_half_when_each_seat_wins_as_often():
    # one seat won 10, two other seats 10 each: as strong per seat
    share, lo, hi = skill.wilson_share(10, 20, 2)
    assert share == pytest.approx(0.5)
    assert lo < 0.5 < hi
    # two sides (team games): the plain Wilson interval
    assert skill.wilson_share(30, 10, 1) == pytest.approx(wilson(30, 40))
    # the map keeps the order of the interval
    s, lo, hi = skill.wilson_share(40, 30, 3)
    assert lo < s < hi and s > 0.5


def test_blocks_rotate_every_seat_and_every_team_and_marker():
    seats = skill._blocks("every_seat", 3, "X", "Y")
    assert [b[0] for b in seats] == [{"all": "Y", "seat0": "X"}, {"all": "Y", "seat1": "X"},
                                     {"all": "Y", "seat2": "X"}]
    teams = skill._blocks("team_pairs", 4, "X", "Y")
    assert [(b[0], b[1], b[2]) for b in teams] == [
        ({"A": "X", "B": "Y"}, ("first_marker=A",), "A"),
        ({"A": "X", "B": "Y"}, ("first_marker=B",), "A"),
        ({"A": "Y", "B": "X"}, ("first_marker=A",), "B"),
        ({"A": "Y", "B": "X"}, ("first_marker=B",), "B")]


def test_wins_read_from_a_blocks_value_counts():
    counts = {"winner": {-1: 5, 0: 7, 1: 3, 2: 4}}
    assert skill._wins("every_seat", {}, "outcome", 1, counts) == (3, 11)
    codes = {"A": 0, "B": 1, "draw": 2}
    assert skill._wins("team_pairs", codes, "winner", "B", {"winner": {0: 6, 1: 9, 2: 1}}) == (9, 6)


def _row(stronger, weaker, kind, share, lo, hi):
    return {"players": 3, "pairing": f"{stronger} vs {weaker}", "kind": kind,
            "stronger": stronger, "weaker": weaker, "share": share, "ci_low": lo,
            "ci_high": hi, "beats": lo > 0.5, "decided": 100, "games": 120}


def test_summary_counts_rungs_beyond_the_interval_and_the_luck_share():
    ladder = ["random", "weighted", "s1", "s2"]
    rows = [_row("random", "weighted", "expert", 0.2, 0.15, 0.25),
            _row("weighted", "random", "below", 0.8, 0.75, 0.85),
            _row("s1", "weighted", "expert+below", 0.55, 0.49, 0.61),
            _row("s2", "weighted", "expert", 0.62, 0.56, 0.68),
            _row("s2", "s1", "below", 0.52, 0.46, 0.58)]
    s = skill._summary(rows, ladder, "weighted", "PLAI", 3)
    assert (s["rungs_beaten"], s["steps"]) == (1, 3)
    assert s["luck_share"] == pytest.approx(0.38)
    assert (s["luck_low"], s["luck_high"]) == (pytest.approx(0.32), pytest.approx(0.44))
    assert s["top_pairing"] == "s2 vs weighted"


@pytest.fixture(scope="module")
def tiny_ladder(tmp_path_factory):
    out = tmp_path_factory.mktemp("skill") / "run"
    return skill.run(game="plai", players="2", games=24, search_games=8,
                     budgets=("k=2,n=1", "k=2,n=2"), out=out, threads=1)


def test_a_tiny_ladder_writes_its_files_and_table(tiny_ladder):
    r = tiny_ladder
    ladder = r.ladders[2]
    assert ladder[0] == "random" and ladder[-1] == "search:k=2,n=2,base=" + r.manifest["expert"]
    for name in ("pairings.csv", "ladder.txt", "skill.json", "ladder-2p.png", "manifest.json"):
        assert (r.run_dir / name).stat().st_size > 0
    below = [p for p in r.pairings if "below" in p["kind"]]
    assert len(below) == len(ladder) - 1
    assert all(p["games"] == 24 or (p["games"] == 8 and "search" in p["pairing"])
               for p in r.pairings)
    assert "luck share" in r.table()
    # a baseline's row against expert puts the baseline first, so the column names the rung
    assert r.table().splitlines()[1].split()[:2] == ["rung", "against"]
    data = json.loads((r.run_dir / "skill.json").read_text())
    assert data["summary"]["2"]["steps"] == len(ladder) - 1


def test_a_strategy_that_plays_as_another_is_no_rung(tmp_path):
    """Peer-to-Peer's weighted at its defaults has greedy's weights: a step between them
    could never win, so the ladder plays greedy once and says why weighted is missing."""
    r = skill.run(game="peer-to-peer", players="2", games=8, search_games=4,
                  budgets=("k=1,n=1", "k=2,n=1"), out=tmp_path / "p2p", threads=1)
    assert "greedy" in r.ladders[2] and "weighted" not in r.ladders[2]
    assert not any("weighted" in p["pairing"] for p in r.pairings)
    s = r.summary[2]
    assert s["alike"] == {"weighted": "greedy"} and s["steps"] == len(r.ladders[2]) - 1
    assert s["sentence"].endswith("Left out: weighted, which plays exactly as greedy here "
                                  "(the same weights).")
    assert json.loads((r.run_dir / "skill.json").read_text())["summary"]["2"]["alike"] == {
        "weighted": "greedy"}
    from sim.runs.backends.base import create
    from sim.studies.skill import _Player

    with create("local") as backend:
        player = _Player(skill.resolve_game("peer-to-peer"), 2, 1, 1, backend, r.run_dir,
                         {"cards": None, "rules_file": None, "rule_overrides": ()})
        # told apart by their parameters: weighted with other weights is a rung of its own
        assert player.plays_alike(["expert", "weighted", "greedy", "cautious"]) == {
            "weighted": "greedy"}
        assert player.plays_alike(["expert", "weighted:value=2", "greedy"]) == {}


def test_pairings_share_their_deals(tiny_ladder):
    """Common random numbers: a pairing of a strategy with itself splits evenly per seat."""
    from sim.studies.skill import _Player
    from sim.runs.backends.base import create

    with create("local") as backend:
        player = _Player(skill.resolve_game("plai"), 2, 1, 1, backend, tiny_ladder.run_dir,
                         {"cards": None, "rules_file": None, "rule_overrides": ()})
        games, won, lost, _ = player.pairing("weighted", "weighted", 40)
    assert games == 40 and won == lost   # the same 20 deals with each seat


def test_section_is_self_contained_html(tiny_ladder):
    text = section_html(tiny_ladder.run_dir)
    assert text.startswith('<section id="skill">') and TITLE in text
    assert "data:image/png;base64," in text
    assert tiny_ladder.summary[2]["sentence"].split(",")[0] in text


def test_cli_skill_help_and_bad_players():
    from sim.cli import main

    runner = CliRunner()
    result = runner.invoke(main, ["skill", "--help"])
    assert result.exit_code == 0 and "simulate skill --game plai --players 3" in result.output
    result = runner.invoke(main, ["skill", "--game", "plai", "--players", "7"])
    assert result.exit_code == 2 and "--players" in result.output


@pytest.mark.parametrize("flag, lines", [([], True), (["--no-progress"], False)])
def test_cli_skill_says_each_pairing_as_it_finishes_unless_told_not(tmp_path, flag, lines):
    from sim.cli import main

    result = CliRunner().invoke(main, [
        "skill", "--game", "plai", "--players", "2", "--games", "24", "--search-games", "8",
        "--budgets", "k=2,n=1;k=2,n=2", "--threads", "1", "--out", str(tmp_path / "s"),
        *flag])
    assert result.exit_code == 0, result.output
    assert ("2p random vs" in result.stderr) == lines


def test_report_adds_the_skill_section_its_answers_and_a_warning(tiny_ladder, tmp_path):
    """`simulate report RUNS --skill DIR`: the section, one answers row per player count,
    and a warning when the skill run shows a strategy of the runs beaten by the rung above."""
    from sim import api
    from sim.cli import main

    run = api.run(game="plai", players=2, games=60, seed=3, out=tmp_path / "run",
                  strategies={"all": "weighted"}, progress=False, threads=1)
    skill_dir = tmp_path / "skill"
    skill_dir.mkdir()
    data = json.loads((tiny_ladder.run_dir / "skill.json").read_text())
    beaten = next(r for r in data["pairings"] if r["weaker"] == "weighted" and "below" in r["kind"])
    beaten.update(decided=1000, share=0.7, ci_low=0.67, ci_high=0.73)   # clearly beaten
    (skill_dir / "skill.json").write_text(json.dumps(data))
    result = CliRunner().invoke(main, ["report", str(run.run_dir), "--out", str(tmp_path / "rep"),
                                       "--skill", str(skill_dir)])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "rep" / "report.html").read_text()
    assert 'id="skill"' in html and TITLE in html
    assert "How much does skill decide the game?" in html
    assert f"says {beaten['stronger']} beats weighted at 2 players" in html
    bad = CliRunner().invoke(main, ["report", str(run.run_dir), "--out", str(tmp_path / "rep2"),
                                    "--skill", str(tmp_path / "run")])
    assert bad.exit_code == 2 and "skill.json" in bad.output and "Traceback" not in bad.output


def test_the_skill_answer_says_its_share_is_per_seat(tmp_path, monkeypatch):
    """At 3 players expert holds two seats against the search player's one: it won 56 of
    99 decided games, a per-seat share of 39 %. The answer says per seat, what fair is,
    and the games won in all, not "wins 39 % of decided games"."""
    from types import SimpleNamespace

    from reports import skill_section

    top = "search:k=8,n=16,base=expert vs expert"
    data = {"game": "plai", "title": "PLAI", "players": [3], "ladders": {"3": []},
            "summary": {"3": {"sentence": "", "luck_share": 28 / 71, "luck_low": 0.3,
                              "luck_high": 0.5, "top_pairing": top, "rungs_beaten": 2,
                              "steps": 3}},
            "pairings": [{"players": 3, "pairing": top, "stronger": "search:k=8,n=16,base=expert",
                          "weaker": "expert", "kind": "expert", "games": 100, "decided": 99,
                          "stronger_wins": 43, "weaker_wins": 56, "share": 43 / 71,
                          "ci_low": 0.5, "ci_high": 0.7}]}
    (tmp_path / "skill.json").write_text(json.dumps(data))
    monkeypatch.setattr(skill_section, "ladders_png", lambda data: None)
    section = skill_section.build(tmp_path, SimpleNamespace(game="plai", runs=[]), None)
    (answer,) = section.answers
    assert "per seat, the weaker side (expert) still has 39 % of the decided games" in answer.answer
    assert "50 % if skill made no difference" in answer.answer
    assert "in all it won 56 of 99 decided games" in answer.answer
    assert "per-seat share" in section.description
