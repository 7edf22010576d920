"""The report's replays (its reasons) take about as long as the runs did: on a terminal a
bar counts their games, over every answer they explain, and drawing it changes no number."""
import json
import re
import sys

from sim import api


def test_the_replays_draw_one_bar_over_all_their_games_and_keep_every_answer(tmp_path,
                                                                             monkeypatch,
                                                                             capsys):
    # greedy against expert: team balance has an edge at both counts, so both replay
    dirs = [api.run(game="peer-to-peer", players=players, games=600, seed=5,
                    out=tmp_path / f"p{players}", threads=1, progress=False,
                    strategies={"A": "greedy"}).run_dir for players in (2, 4)]
    label = "replaying games for the reasons"
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    api.report(dirs, tmp_path / "bar", replay_games=200, stronger_play=0, progress=True)
    drawn = capsys.readouterr().err
    text = (tmp_path / "bar" / "report.md").read_text()
    replayed = int(re.search(r"([\d,]+) games replayed in", text)[1].replace(",", ""))
    assert replayed >= 2 * 200    # two answers at least, each one swap's variant at least
    assert label in drawn and f"{replayed}/{replayed}" in drawn and "100%" in drawn
    assert drawn.count(label) >= 2 and f"0/{replayed}" in drawn   # one bar, drawn as it fills
    api.report(dirs, tmp_path / "quiet", replay_games=200, stronger_play=0)
    assert label not in capsys.readouterr().err

    def causes(name):
        doc = json.loads((tmp_path / name / "answers.json").read_text())
        return [(a["question"], a["players"], [{k: v for k, v in c.items() if k != "seconds"}
                                               for c in a["causes"]]) for a in doc["answers"]]

    assert causes("bar") == causes("quiet") and any(c for *_, c in causes("bar"))
