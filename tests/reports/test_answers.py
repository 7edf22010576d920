"""One measure of balance everywhere, and answers.json: the run summary and the report give
the same team-balance answer at every player count (the same value, interval and words);
answers.json lists every answer with its stable key, causes and stronger-play check; the
stronger-play check plays search on every side of the same seeds."""
import json

import pytest
from click.testing import CliRunner

from sim import api
from sim.cli import main
from sim.core.wording import edge_answer

KEYS = {"question", "title", "players", "variant", "pairing", "where", "words", "value", "lo",
        "hi", "even", "kind", "verdict", "section", "causes", "stronger_play"}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("answers")
    out = {}
    for players in (2, 3, 4, 5, 6):
        # at 3 and 5 players a compensation that does not play like 4 and 6 (the report
        # leaves out the rows that repeat another player count)
        rules = ("odd_team_compensation=extra_venture_empty",) if players in (3, 5) else ()
        out[players] = api.run(game="peer-to-peer", players=players, games=3000, seed=2,
                               out=base / f"p{players}", threads=2, progress=False,
                               rule_overrides=rules)
    return out


@pytest.fixture(scope="module")
def report(runs, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    written = api.report([r.run_dir for r in runs.values()], out, replay_games=500,
                         stronger_play_games=4)
    return written, json.loads((out / "answers.json").read_text())


def test_summary_and_report_agree_on_team_balance(runs, report):
    _, doc = report
    answers = {a["players"]: a for a in doc["answers"] if a["question"] == "team_balance"}
    assert sorted(answers) == [2, 3, 4, 5, 6]
    for players, result in runs.items():
        mine = result.summary["team_balance"]
        theirs = answers[players]
        assert (mine["value"], mine["lo"], mine["hi"]) == pytest.approx(
            (theirs["value"], theirs["lo"], theirs["hi"]), abs=1e-12)
        assert mine["words"] in theirs["words"]          # the report adds Holm's family
        assert mine["words"] in result.config.format_summary(result.summary)


def test_answers_json_lists_every_answer_with_its_reasons(report):
    written, doc = report
    assert doc["schema"] == 1 and doc["game"] == "peer-to-peer"
    assert len(doc["answers"]) == len(written["answers"])
    keys = {a["question"] for a in doc["answers"]}
    assert {"team_balance", "first_marker", "all_lose", "why_all_lose", "card_strength"} <= keys
    for a in doc["answers"]:
        assert set(a) == KEYS
        assert a["stronger_play"]["words"]
        assert isinstance(a["causes"], list)
        if a["stronger_play"]["checked"]:
            sp = a["stronger_play"]
            assert sp["games"] > 0 and sp["lo"] <= sp["value"] <= sp["hi"]
            assert sp["words"].startswith(("holds", "changes", "not decided"))
            assert sp["holds"] == (sp["status"] == "holds")
    edges = [a for a in doc["answers"] if a["question"] == "team_balance"
             and a["lo"] is not None and (a["hi"] < 0.5 or a["lo"] > 0.5)]
    for a in edges:   # an edge: explained by the swaps, each cause with its interval
        causes = {c["cause"]: c for c in a["causes"]}
        assert {"start_cards", "first_marker"} <= set(causes)
        assert causes["start_cards"]["lo"] <= causes["start_cards"]["share"] <= causes["start_cards"]["hi"]
        if a["players"] in (3, 5):
            assert any(c["kind"] == "compare" for c in a["causes"])


def test_why_everyone_loses_names_the_pairing_of_its_runs(report):
    _, doc = report
    why = [a for a in doc["answers"] if a["question"] == "why_all_lose"]
    assert why and all(a["pairing"] == "expert vs expert" and "expert vs expert" in a["where"]
                       for a in why), [(a["pairing"], a["where"]) for a in why]


def test_the_all_lose_rate_names_its_main_cause_from_the_same_games(report):
    written, doc = report
    rates = [a for a in doc["answers"] if a["question"] == "all_lose"]
    whys = {(a["players"], a["variant"], a["pairing"]): a for a in doc["answers"]
            if a["question"] == "why_all_lose"}
    assert len(rates) == 5 and len(whys) == 5
    for rate in rates:
        why = whys[rate["players"], rate["variant"], rate["pairing"]]
        main = next(c for c in why["causes"] if "lead" in c)
        (cause,) = rate["causes"]
        assert cause["kind"] == "loss_cause" and cause["cause"] == main["cause"]
        assert (cause["share"], cause["lo"], cause["hi"]) == (why["value"], why["lo"], why["hi"])
        assert cause["words"].startswith(f"{main['lead']}: {100 * why['value']:.0f} % [")
        assert "'Why does everyone lose?'" in cause["words"]
    markdown = open(written["markdown"]).read()
    row = next(line for line in markdown.splitlines() if line.startswith("| How often"))
    assert "of the unhappy customers" in row            # the table's "Why" cell


def test_a_pooled_cause_answer_lends_its_reason_saying_so():
    """The cause section pools a player count's pairings when it has several: the rate of
    one pairing then says its cause counts them all. No cause answer, no reason lent."""
    from reports.why_lose import lend_reasons
    from sim.core.report_metric import Answer
    from sim.games.peer_to_peer.why_lose import WHY_LOSE

    group = {"players": 4, "pairing": "greedy vs expert", "variant": "n/a"}
    rate = Answer("How often does everyone lose?", "4 players", "8 %", "info", 0.08, 0.07,
                  0.09, key="all_lose", group=group)
    why = Answer("Why does everyone lose? (the unhappy customers by cause)", "4 players",
                 "mostly deck (...)", "info", 0.6, 0.55, 0.65, key="why_all_lose",
                 group={"players": 4, "variant": "n/a"},
                 causes=({"cause": "deck", "share": 0.6, "lo": 0.55, "hi": 0.65,
                          "lead": "mostly deck"},
                         {"cause": "draw", "share": 0.4, "lo": 0.35, "hi": 0.45}))
    (lent, _), _ = lend_reasons([(rate, "all_lose"), (why, "why_lose")], WHY_LOSE)
    assert lent.causes[0]["words"] == (
        "mostly deck: 60 % [55, 65] of the unhappy customers, every pairing at this count; "
        "every cause and what changes it: 'Why does everyone lose?'")
    other = Answer(why.question, "5 players", "", "info", 0.6, 0.5, 0.7, key="why_all_lose",
                   group={"players": 5, "variant": "n/a"}, causes=why.causes)
    (alone, _), _ = lend_reasons([(rate, "all_lose"), (other, "why_lose")], WHY_LOSE)
    assert alone.causes == ()


def test_search_plays_every_side(report):
    written, _ = report
    import polars as pl

    played = pl.read_csv(written["tables"]["stronger_play"])
    assert played["games"].to_list() == [4] * 5
    assert all(s.count("search:base=expert") == 2 for s in played["strategies"])


def test_edge_words():
    assert edge_answer(0.484, 0.481, 0.486, 0.5, 2.0, "to team A", "to team B") == (
        "small", "a small edge to team B (1.6 points), inside the ±2 band")
    assert edge_answer(0.463, 0.455, 0.470, 0.5, 2.0, "to team A", "to team B")[0] == "below"
    assert edge_answer(0.50, 0.49, 0.51, 0.5, 2.0, "to team A", "to team B") == (
        "within", "balanced (within ±2 pp)")
    code, words = edge_answer(0.479, 0.47, 0.488, 0.5, 2.0, "to team A", "to team B")
    assert code == "undecided" and words.startswith("not decided: an edge to team B")


def test_command_line_summary_names_the_main_cause(tmp_path):
    result = CliRunner().invoke(main, ["--players", "2", "--games", "6000", "--seed", "1",
                                       "--out", str(tmp_path / "r"), "--no-progress"])
    assert result.exit_code == 0, result.output
    line = [x for x in result.output.splitlines() if x.startswith("team balance:")]
    assert line and "edge to team B" in line[0]
    assert "main cause: the starting cards" in result.output
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["team_balance"]["main_cause"]["cause"] == "start_cards"


def test_a_player_count_that_plays_like_another_has_no_answers_of_its_own(tmp_path):
    """3 players with the default compensation play exactly like 4: the report says so
    once, and neither the metrics nor the why-everyone-loses section answer for 3 again."""
    dirs = [api.run(game="peer-to-peer", players=p, games=1500, seed=3, out=tmp_path / f"p{p}",
                    threads=1, progress=False).run_dir for p in (3, 4)]
    written = api.report(dirs, tmp_path / "rep", replay_games=0, stronger_play=0)
    by_question = {}
    for a in written["answers"]:
        by_question.setdefault(a["question"], set()).add(a["where"].split(" ")[0])
    assert by_question["Why does everyone lose? (the unhappy customers by cause)"] == {"4"}
    assert all(counts == {"4"} for counts in by_question.values()), by_question


def test_a_runs_replays_and_search_games_are_its_own_in_a_report_of_several(tmp_path):
    """The replayed and searched games a report records (its journal) belong to one run:
    a 6-player run gets the same causes and stronger-play check beside a 2-player run of
    the same request and seed as alone."""
    dirs = {p: api.run(game="peer-to-peer", players=p, games=1200, seed=4, out=tmp_path / f"p{p}",
                       threads=1, progress=False).run_dir for p in (2, 6)}
    settings = dict(replay_games=300, stronger_play_games=3)
    api.report([dirs[2], dirs[6]], tmp_path / "both", **settings)
    api.report([dirs[6]], tmp_path / "alone", **settings)

    def six(name):
        doc = json.loads((tmp_path / name / "answers.json").read_text())
        return {a["question"]: (a["causes"], {k: v for k, v in a["stronger_play"].items()
                                              if k != "seconds"})   # (the time it took)
                for a in doc["answers"] if a["players"] == 6}

    both, alone = six("both"), six("alone")
    assert both == alone and both["team_balance"][1]["checked"]
    # the section states the budget it was given: games, not seconds
    text = (tmp_path / "alone" / "report.md").read_text()
    assert "Each run played up to 3 games under search" in text and "s per player count" not in text


def test_two_compensation_modes_that_play_the_same_games_are_said_to(tmp_path):
    """At 3 players `expert` never seats a venture on an empty extra seat, so `none` and
    `extra_venture_empty` end every game the same way: the report says so once."""
    dirs = [api.run(game="peer-to-peer", players=3, games=800, seed=3, out=tmp_path / mode,
                    threads=1, progress=False,
                    rule_overrides=(f"odd_team_compensation={mode}",)).run_dir
            for mode in ("none", "extra_venture_empty", "extra_venture")]
    written = api.report(dirs, tmp_path / "rep", replay_games=0, stronger_play=0)
    said = [f["text"] for f in written["findings"] if "game for game" in f["text"]]
    assert len(said) == 1 and "under none and under extra_venture_empty" in said[0]
    assert "800 games" in said[0] and "only those under none are listed" in said[0]
    # the repeated rows are not judged a second time: no finding of their own
    judged = [f["text"] for f in written["findings"] if f["level"] != "info"]
    assert judged and not any(", extra_venture_empty" in t for t in judged), judged


def edited_cards(tmp_path):
    """The default Peer-to-Peer card file with one card's name changed: another file."""
    from sim.games.peer_to_peer.cards import default_cards_path

    edited = tmp_path / "edited.csv"
    edited.write_text(default_cards_path().read_text().replace("SV1,Service 1,", "SV1,Edited,"))
    return edited


def explained_four_player_cause(dirs, monkeypatch):
    """The 4-player team-balance answer of the runs ``dirs`` (merged with allow_mixed)
    explained under a fixed cause (the replays themselves are not what is tested): its
    one cause, the answers' section, the runs and the games given to the replays (seed,
    games per run)."""
    import sim.core.attribution as core
    from reports import attribution
    from reports.load import load_runs
    from sim.core.attribution import EXCHANGE, Cause
    from sim.core.report_metric import Answer
    from sim.games.peer_to_peer.measures import team_balance_measure

    rs = load_runs([str(d) for d in dirs], allow_mixed=True)
    assert rs.mixed
    monkeypatch.setattr(attribution, "_check", lambda *a: True)
    given = []

    def explain_pooled(sources, *a, **k):
        given.extend((source.seed, source.original.height) for source in sources)
        return [Cause("start_cards", "the starting cards", EXCHANGE, 0.03, 0.01, 0.05,
                      edge=0.04, edge_lo=0.02, edge_hi=0.06, games=20)]
    monkeypatch.setattr(core, "explain_pooled", explain_pooled)
    answer = Answer("Is it fair between the teams?", "4 players", "an edge", "above", 0.45,
                    0.42, 0.48, even=0.5, measure=team_balance_measure(4), key="team_balance",
                    group={"players": 4, "pairing": rs.runs[0].pairing, "variant": "n/a"})
    out, section = attribution.explain_answers([(answer, "team_balance")], rs, replay_games=10,
                                               threads=1)
    (explained, _), = out
    (cause,) = explained.causes
    return cause, section, rs, given


def test_mixed_runs_replay_every_run_and_their_reasons_say_so(tmp_path, monkeypatch):
    """Two runs with different card files pooled with allow_mixed, of 20 and 40 games: the
    replays play both runs' lowest games, 10 games per variant shared 3 and 7 in proportion
    to their games (largest remainder), and each reason says it comes from both runs and
    that they differ."""
    dirs = [api.run(game="peer-to-peer", players=4, games=20, seed=1, out=tmp_path / "a",
                    threads=1, progress=False).run_dir,
            api.run(game="peer-to-peer", players=4, games=40, seed=2, out=tmp_path / "b",
                    threads=1, progress=False, cards=str(edited_cards(tmp_path))).run_dir]
    cause, section, rs, given = explained_four_player_cause(dirs, monkeypatch)
    assert given == [(1, 3), (2, 7)]
    assert cause["runs"] == [run.path for run in rs.runs]
    assert ("from the replayed games of all 2 runs pooled in this answer, which differ in "
            "card file") in cause["words"]
    assert section.table["run"].to_list() == ["; ".join(run.path for run in rs.runs)]
    assert "each run's games are replayed under its own variants" in section.description


def test_reasons_say_runs_differ_only_when_the_runs_of_their_answer_do(tmp_path, monkeypatch):
    """Two 4-player runs of one card file and a 3-player run of another, merged with
    allow_mixed: the 4-player reasons come from both 4-player runs and do not claim a
    difference those runs do not have."""
    dirs = [api.run(game="peer-to-peer", players=4, games=20, seed=seed, out=tmp_path / name,
                    threads=1, progress=False).run_dir for seed, name in ((1, "a"), (2, "b"))]
    dirs.append(api.run(game="peer-to-peer", players=3, games=20, seed=1, out=tmp_path / "c",
                        threads=1, progress=False, cards=str(edited_cards(tmp_path))).run_dir)
    cause, _, _, given = explained_four_player_cause(dirs, monkeypatch)
    assert given == [(1, 5), (2, 5)]
    assert "from the replayed games of all 2 runs pooled in this answer" in cause["words"]
    assert "differ in card file" not in cause["words"]


def test_an_answer_with_too_few_search_games_of_its_kind_says_so():
    """One all-lose game among the search games gives the cause split an estimate but no
    interval: the check says too few, not that there were none."""
    import dataclasses

    import polars as pl

    from reports.stronger import compare
    from sim.core.report_metric import Answer

    nan = float("nan")
    answer = Answer("Why does everyone lose?", "4 players", "mostly deck", "info", 0.45, 0.4,
                    0.5, key="why_all_lose", group={"players": 4},
                    recompute=lambda frame: (0.5, nan, nan))
    (checked, _), = compare([(answer, "why_lose")], pl.DataFrame({"players": [4]}), {})
    words = checked.stronger["words"]
    assert not checked.stronger["checked"]
    assert "too few search games of its kind to give an interval" in words
    assert "none of its kind" not in words
    none = dataclasses.replace(answer, recompute=lambda frame: None)
    (checked, _), = compare([(none, "why_lose")], pl.DataFrame({"players": [4]}), {})
    assert "none of its kind" in checked.stronger["words"]
    # a NaN estimate (a card that never opened a venture in the search games) is none too
    unknown = dataclasses.replace(answer, recompute=lambda frame: (nan, nan, nan))
    (checked, _), = compare([(unknown, "why_lose")], pl.DataFrame({"players": [4]}), {})
    assert "none of its kind" in checked.stronger["words"]
    assert "estimate nan" not in checked.stronger["words"]


def test_wording_of_shares_counts_and_replays_off():
    """"mostly" only for a majority; one player is "1 player"; an edge with the replays
    turned off says so in its "Why"."""
    from types import SimpleNamespace

    import polars as pl

    from reports import attribution
    from reports.render import why_words
    from reports.why_lose import answers as why_answers
    from sim.core.game import resolve_game
    from sim.core.report_metric import Answer
    from sim.games.peer_to_peer.measures import team_balance_measure

    why = resolve_game("peer-to-peer").why_lose
    shares = {"deck": 0.45, "draw": 0.25, "capacity": 0.2, "choice": 0.1}
    row = {"players": 1, "variant": "n/a", "all_lose_games": 10, "unhappy_customers": 40,
           "main_cause": "deck", "runner_up": "draw", "main_lead": 0.2, "main_lead_lo": 0.1,
           "main_lead_hi": 0.3}
    for cause in why.causes:
        for team in ("", "_a", "_b"):
            row.update({f"{cause.name}{team}_rate": shares[cause.name],
                        f"{cause.name}{team}_lo": 0.0, f"{cause.name}{team}_hi": 1.0})
    (answer,) = why_answers(pl.DataFrame([row]), why, "outcome")
    assert answer.answer.startswith("most often deck (deck 45 %")
    assert answer.where == "1 player"
    edge = Answer("Is it fair between the teams?", "4 players", "an edge", "above", 0.45, 0.42,
                  0.48, even=0.5, measure=team_balance_measure(4), key="team_balance",
                  group={"players": 4})
    runs = SimpleNamespace(runs=[SimpleNamespace(game=resolve_game("peer-to-peer"))])
    (explained, _), = attribution.explain_answers([(edge, "team_balance")], runs,
                                                  replay_games=0)[0]
    assert why_words(explained) == [
        "not explained: the counterfactual replays were turned off (--replay-games 0)"]
