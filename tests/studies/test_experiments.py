"""experiments.yaml: schema errors with file/line/key, points and card files, the sweep
report and common random numbers (paired intervals narrower than unpaired)."""
import json
import math
import textwrap

import numpy as np
import pytest
from click.testing import CliRunner

from reports import sweep
from sim.studies import experiments
from sim.cli import main
from sim.core.errors import UserError
from sim.studies.experiments.cardfile import CardCsv
from sim.games.peer_to_peer.cards import default_cards_path, load_cards


def _write(tmp_path, text, name="experiments.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return str(path)


# ----------------------------------------------------------------------------- schema
def test_points_are_the_grid_of_players_and_axes(tmp_path):
    path = _write(tmp_path, """
        _base: &base
          seed: 7
        grid:
          <<: *base
          players: [3, 5]
          games: 1e3
          strategies: {A: "builder:threshold=12", B: {name: cautious, urgency: 5}}
          rules: {unhappy_limit.5: 2, hand_size: 5}
          sweep:
            rule.odd_team_compensation: [extra_venture, none]
            card.Technology-12.value: {from: 10, to: 14, step: 2}
          baseline: {card.Technology-12.value: 12}
    """)
    exp = experiments.get("grid", path)
    assert exp.seed == 7 and exp.games == 1000 and exp.players == (3, 5)
    points = exp.points()
    assert len(points) == 2 * 2 * 3
    assert points[0].name == "3p-odd_team_compensation=extra_venture-Technology-12.value=10"
    assert points[0].strategies == {"A": "builder:threshold=12", "B": "cautious:urgency=5"}
    assert "unhappy_limit.5=2" in points[0].rule_overrides
    assert points[0].rule_overrides[-1] == "odd_team_compensation=extra_venture"
    # baseline: first value of unnamed axes, the named value of the others, per player count
    baselines = [p.name for p in points if p.is_baseline]
    assert baselines == ["3p-odd_team_compensation=extra_venture-Technology-12.value=12",
                         "5p-odd_team_compensation=extra_venture-Technology-12.value=12"]
    assert exp.baseline_of(points[-1]).name == baselines[1]


@pytest.mark.parametrize("body, line, field, words", [
    ("  players: [4]\n  gamez: 10\n", 4, "bad.gamez", "unknown key 'gamez'"),
    ("  rules:\n    odd_team_compensation: bogus\n", 4, "bad.rules.odd_team_compensation", "bogus"),
    ("  rules:\n    no_such_option: 1\n", 4, "bad.rules.no_such_option", "unknown rule option"),
    ("  card_overrides:\n    XX99.value: 3\n", 4, "bad.card_overrides.XX99.value", "no card 'XX99'"),
    ("  card_overrides:\n    TE12.value: 200\n", 4, "bad.card_overrides.TE12.value", "0 to 99"),
    ("  card_overrides:\n    Technology-12.colour: red\n", 4, None, "unknown card field"),
    ("  sweep:\n    rule.hand_size: [3]\n    foo.bar: [1, 2]\n", 5, "bad.sweep.foo.bar",
     "unknown sweep axis"),
    ("  sweep:\n    rule.customer_patience: [1, 0]\n", 4, "bad.sweep.rule.customer_patience",
     "customer_patience"),
    ("  strategies:\n    A: nosuch\n", 4, "bad.strategies.A", "unknown strategy"),
    ("  players: [4]\n  players: [3]\n", 4, "bad.players", "given twice"),
    ("  checks:\n    - metric: imbalance\n      players: 3\n      max_abs: 3\n", 5,
     None, "does not play 3 players"),
    ("  checks:\n    - metric: wins\n      max: 3\n", 4, None, "unknown metric"),
    # one setting in two places: only one would play, the report would name both
    ("  sweep:\n    card.TE12.value: [10, 12]\n    card.Technology-12.value: [10, 12]\n", 5,
     "bad.sweep.card.Technology-12.value",
     "the value of card TE12 is also set at sweep.card.TE12.value (line 4)"),
    ("  card_overrides: {TE12.value: 11}\n  sweep:\n    card.TE12.value: [10, 12]\n", 5,
     "bad.sweep.card.TE12.value", "also set at card_overrides.TE12.value (line 3)"),
    ("  rules: {hand_size: 5}\n  sweep:\n    rule.hand_size: [4, 6]\n", 5,
     "bad.sweep.rule.hand_size", "rule option hand_size is also set at rules.hand_size (line 3)"),
    # for one player count and for every count: the count's setting overlaps the sweep
    ("  rules: {venture_limit.3: 2}\n  sweep:\n    rule.venture_limit: [2, 3]\n", 5,
     "bad.sweep.rule.venture_limit",
     "rule option venture_limit is also set at rules.venture_limit.3 (line 3)"),
    # a mapping sets the counts it names: 5 players in both places
    ("  players: [4, 5]\n  rules: {unhappy_limit: {4-5: 3}, unhappy_limit.5: 2}\n", 4,
     "bad.rules.unhappy_limit.5",
     "rule option unhappy_limit at 5 players is also set at rules.unhappy_limit (line 4)"),
    ("  sweep:\n    rule.hand_size: [4, 6]\n    rules.hand_size: [5, 7]\n", 5,
     "bad.sweep.rules.hand_size", "also set at sweep.rule.hand_size (line 4)"),
    ("  games: 10\n  players: [9]\n", 4, "bad.players", "not 9"),
    ("  sweep:\n    rule.hand_size: [4, 5]\n  checks:\n    - metric: a_share\n"
     "      where: {rule.hand_size: 6}\n      max: 60\n", 7,
     "bad.checks[0].where.rule.hand_size",
     "6 is not one of the swept values of rule.hand_size (4, 5)"),
    ("  sweep:\n    card.TE12.value: {from: 13, to: 9}\n", 4, "bad.sweep.card.TE12.value.to",
     "'to' (9) is below 'from' (13)"),
])
def test_errors_name_file_line_and_key(tmp_path, body, line, field, words):
    path = _write(tmp_path, "# comment\nbad:\n" + body)
    with pytest.raises(UserError) as caught:
        experiments.get("bad", path)
    err = caught.value
    assert err.file == path and err.line == line, str(err)
    if field:
        assert err.field == field, str(err)
    assert words in str(err)
    assert "\n" not in str(err)


def test_a_bad_card_file_is_named_at_the_cards_line_with_its_own_line_and_field(tmp_path):
    from sim.games.peer_to_peer.cards import default_cards_path

    cards = tmp_path / "cards.csv"
    cards.write_text(default_cards_path().read_text().replace(
        "TE12,Technology 12,Technology,12,", "TE12,Technology 12,Technology,twelve,"))
    path = _write(tmp_path, f"# comment\nbad:\n  players: [4]\n  cards: {cards}\n")
    with pytest.raises(UserError) as caught:
        experiments.get("bad", path)
    err = caught.value
    assert (err.file, err.line, err.field) == (path, 4, "bad.cards"), str(err)
    assert f"(in {cards}:" in str(err) and "field 'value'" in str(err)


def test_invalid_yaml_names_the_line(tmp_path):
    path = _write(tmp_path, "ok:\n  players: [4\nnext: 1\n")
    with pytest.raises(UserError) as caught:
        experiments.load(path)
    assert caught.value.line is not None and "not valid YAML" in str(caught.value)


def test_cli_user_error_is_one_line_exit_2(tmp_path):
    path = _write(tmp_path, "bad:\n  sweep:\n    rule.hand_size: []\n")
    result = CliRunner().invoke(main, ["experiment", "bad", "--file", path, "--no-progress"])
    assert result.exit_code == 2
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and f"{path}:3" in lines[0] and "bad.sweep.rule.hand_size" in lines[0]
    good = _write(tmp_path, "fine:\n  players: [4]\n", name="good.yaml")
    result = CliRunner().invoke(main, ["experiment", "missing", "--file", good])
    assert result.exit_code == 2 and "no experiment 'missing'; experiments in the file: fine" \
        in result.output


def test_outside_the_projects_folder_the_error_names_the_ready_made_file(tmp_path,
                                                                        monkeypatch):
    from pathlib import Path

    import sim

    monkeypatch.chdir(tmp_path)    # a designer's own folder, without an experiments file
    ready = Path(sim.__file__).resolve().parent.parent / "experiments.yaml"
    where = (f"the ready-made ones: --file {ready}" if ready.is_file() else   # from a clone
             "the ready-made ones are in experiments.yaml at the root of cardsim's "
             "repository; give a file with --file")
    for command in ("experiment", "check", "autobalance"):
        result = CliRunner().invoke(main, [command, "three_vs_five"])
        assert result.exit_code == 2 and result.stderr.strip() == (
            f"error: experiments.yaml: experiments file not found in this folder ({where})")
    named = CliRunner().invoke(main, ["check", "three_vs_five", "--file", "mine.yaml"])
    assert named.stderr.strip() == "error: mine.yaml: experiments file not found"


# ----------------------------------------------------------------------------- card files
def test_card_refs_by_id_and_domain_value_name():
    table = CardCsv(default_cards_path())
    assert table.card_id(table.find("TE12")) == "TE12"
    assert table.card_id(table.find("te12")) == "TE12"
    assert table.card_id(table.find("Technology-12")) == "TE12"
    assert table.card_id(table.find("Service-10")) == "SV10"
    assert table.card_id(table.find("Service 10")) == "SV10"
    with pytest.raises(KeyError):
        table.find("Technology-14")
    table.set(table.find("Technology-12"), "value", 9)  # refs name the printed card
    assert table.card_id(table.find("Technology-12")) == "TE12"
    assert table.card_id(table.find("Technology-9")) == "TE9"


def test_card_overrides_change_only_those_cells(tmp_path):
    table = CardCsv(default_cards_path())
    before = table.text()
    table.set(table.find("Technology-12"), "value", 11)
    table.set(table.find("SV10"), "effect", "shift 1")
    path = table.write(tmp_path / "c.csv")
    changed = [(a, b) for a, b in zip(before.splitlines(), table.text().splitlines()) if a != b]
    assert changed == [("SV10,Service 10,Service,10,venture,,wild_domain",
                        "SV10,Service 10,Service,10,venture,,shift 1"),
                       ("TE12,Technology 12,Technology,12,venture,,shift 2",
                        "TE12,Technology 12,Technology,11,venture,,shift 2")]
    cards = load_cards(path)  # still a valid card file, comment line kept
    assert int(cards.value[cards.ids.index("TE12")]) == 11
    assert before.splitlines()[0].startswith("#") and table.text().splitlines()[0] == before.splitlines()[0]


# ----------------------------------------------------------------------------- paired statistics
def _games(winners, rounds=None):
    w = np.asarray(winners, dtype=np.int8)
    return {"game_index": np.arange(len(w)), "winner": w,
            "rounds": np.asarray(rounds if rounds is not None else [5] * len(w))}


from sim.games.peer_to_peer.constants import ALL_LOSE as LOSE, DRAW, WIN_A as A, WIN_B as B  # noqa: E402


def test_paired_difference_worked_example():
    base = _games([A, B, LOSE, A])
    point = _games([A, A, LOSE, B])
    d = sweep.paired("a_win_rate", point, base, z=2.0)
    # rates 0.5 and 0.5; influences u_p = (.5, .5, -.5, -.5), u_b = (.5, -.5, -.5, .5)
    # u_p - u_b = (0, 1, 0, -1): sd = sqrt(2/3), se = sqrt(2/3)/2, half width = 2 se
    half = 100 * 2 * math.sqrt(2 / 3) / 2
    assert d["diff"] == pytest.approx(0.0)
    assert d["hi"] == pytest.approx(half) and d["lo"] == pytest.approx(-half)
    # independent samples: var(u_p) = var(u_b) = 1/3 -> se = sqrt(2/3 / 4), the same here
    assert d["unpaired_hi"] == pytest.approx(half)
    assert d["identical_games"] == pytest.approx(0.5)


def test_identical_points_have_a_zero_width_paired_interval():
    games = _games([A, B, LOSE, A, DRAW, B, A, LOSE])
    d = sweep.paired("all_lose_rate", games, games)
    assert d["diff"] == 0 and d["lo"] == 0 and d["hi"] == 0
    assert d["unpaired_hi"] > 0.3 * 100 / 8  # the unpaired interval does not know they are equal


def test_share_metric_uses_decisive_games_only():
    g = _games([A, A, A, B, LOSE, LOSE, DRAW, LOSE])
    e = sweep.estimate("a_share", g)
    assert e["n"] == 4 and e["est"] == pytest.approx(75.0)
    i = sweep.estimate("imbalance", g)
    assert i["est"] == pytest.approx(25.0) and i["lo"] == pytest.approx(e["lo"] - 50)


# ----------------------------------------------------------------------------- a real sweep
SWEEP = """
    sweep_in4:
      players: [4]
      games: 1200
      chunk_size: 600
      strategies: {A: builder, B: builder}
      sweep:
        card.Information-4.value: [4, 6]
      metrics: [a_win_rate, all_lose_rate, mean_rounds]
      checks:
        - metric: all_lose_rate
          min: 0
        - metric: mean_rounds
          min: 1
"""


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    root = tmp_path_factory.mktemp("exp")
    path = _write(root, SWEEP)
    out = root / "out"
    result = CliRunner().invoke(main, ["experiment", "sweep_in4", "--file", path, "--out",
                                       str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    return path, out, result.output


def test_every_point_has_its_run_and_card_file(swept):
    path, out, output = swept
    record = json.loads((out / "experiment.json").read_text())
    assert record["points"] == ["4p-Information-4.value=4", "4p-Information-4.value=6"]
    shas = []
    for name in record["points"]:
        manifest = json.loads((out / name / "run" / "manifest.json").read_text())
        assert manifest["complete"] and manifest["games"] == 1200 and manifest["seed"] == 1
        cards = load_cards(out / name / "cards.csv")
        assert manifest["cards"]["path"] == str((out / name / "cards.csv").resolve())
        assert manifest["cards"]["sha256"] == cards.sha256
        shas.append(cards.sha256)
        assert int(cards.value[cards.ids.index("IN4")]) == int(name.rsplit("=", 1)[1])
    assert shas[0] != shas[1]
    for name in ("sweep.html", "sweep.md", "sweep.csv", "paired.csv", "sweep-a_win_rate.png"):
        assert (out / "report" / name).is_file()
    assert "paired differences against the baseline" in output
    assert "strategies: builder(threshold=10.0) vs builder(threshold=10.0) (4 players)" in output
    assert "Strategies: builder(threshold=10.0) vs builder(threshold=10.0) (4 players)." in (out / "report" / "sweep.md").read_text()


def test_an_experiment_names_the_default_strategies_it_played(tmp_path):
    path = _write(tmp_path, """
    default_play:
      players: [2]
      games: 60
      sweep:
        rule.customer_patience: [1, 2]
    """)
    result = CliRunner().invoke(main, ["experiment", "default_play", "--file", path, "--out",
                                       str(tmp_path / "out"), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "strategies: expert vs expert (2 players)" in result.output
    # the default card file is named too, in experiment.json and the report
    words = "the default card file (tech-deck-reconstruction.csv, a reconstruction)"
    assert json.loads((tmp_path / "out" / "experiment.json").read_text())["cards"] == words
    assert f"Card file: {words}." in (tmp_path / "out" / "report" / "sweep.md").read_text()


def test_paired_interval_is_narrower_than_unpaired_on_a_real_sweep(swept):
    _, out, _ = swept
    base = sweep.load_games(out / "4p-Information-4.value=4" / "run")
    point = sweep.load_games(out / "4p-Information-4.value=6" / "run")
    assert np.array_equal(base["game_index"], np.arange(1200))
    for metric in ("a_win_rate", "all_lose_rate", "mean_rounds"):
        d = sweep.paired(metric, point, base)
        paired_width, unpaired_width = d["hi"] - d["lo"], d["unpaired_hi"] - d["unpaired_lo"]
        # same seed and game indices: many games play out identically, so the
        # per-game differences vary less than two independent samples would
        if metric != "mean_rounds":  # a game ends identically more often than it runs identically
            assert d["identical_games"] > 0.5
        assert paired_width < 0.95 * unpaired_width, (metric, paired_width, unpaired_width)


def test_an_output_that_cannot_be_made_is_one_line(swept, tmp_path):
    """--out under a file (as under a read-only mount): one line naming it, not a
    traceback."""
    path, _, _ = swept
    (tmp_path / "a-file").write_text("x")
    out = tmp_path / "a-file" / "exp"
    result = CliRunner().invoke(main, ["experiment", "sweep_in4", "--file", path, "--out",
                                       str(out), "--no-progress"])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: {out}") and "cannot write" in result.stderr


def test_rerun_into_the_same_directory_reuses_finished_points(swept):
    path, out, _ = swept
    before = sorted(p.stat().st_mtime_ns for p in out.glob("*/run/games/*.parquet"))
    result = CliRunner().invoke(main, ["experiment", "sweep_in4", "--file", path, "--out",
                                       str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert sorted(p.stat().st_mtime_ns for p in out.glob("*/run/games/*.parquet")) == before
    other = CliRunner().invoke(main, ["experiment", "sweep_in4", "--file", path, "--out",
                                      str(out), "--games", "600", "--no-progress"])
    assert other.exit_code == 2 and "holds a different experiment (games" in other.output
    assert "there, 600 now" in other.output    # names what differs


_MINE = ("cardsim_strategy: 1\ngame: peer-to-peer\nname: mine\nbase: greedy\n"
         "weights:\n  early.commit.cards: -1.0\n")


def test_switching_retune_or_editing_a_tuned_expert_is_not_continued(tmp_path, monkeypatch):
    """The spec 'expert' plays the shipped or a tuned player: switching retune, editing
    tune: or the point's expert.yaml refuses the OUT (its finished point played another)."""
    from sim.studies import tune

    def fake_tune(*, out, **_):   # a tuned expert without the minutes of tuning
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(_MINE)
    monkeypatch.setattr(tune, "tune_strategy", fake_tune)
    body = "e:\n  players: 2\n  games: 100\n  strategies: {A: expert, B: greedy}\n"
    retuned = body + "  retune: true\n  tune: {budget: 50}\n"
    out = tmp_path / "o"

    def run(text):
        path = tmp_path / "e.yaml"
        path.write_text(text)
        return experiments.run_experiment(experiments.get("e", str(path)), out=out,
                                          progress=False, report=False, threads=1)

    run(retuned)
    run(retuned)    # the same experiment continues
    for text, words in [(body, "the tuning of 'expert' differs: retune with tune "
                               "{budget: 50} there, the shipped expert (no retune) now"),
                        (retuned.replace("50", "60"), "{budget: 50} there, retune with tune "
                                                      "{budget: 60} now")]:
        with pytest.raises(UserError, match="holds a different experiment") as caught:
            run(text)
        assert words in str(caught.value)
    (out / "2p" / "expert.yaml").write_text(_MINE.replace("-1.0", "-2.0"))
    with pytest.raises(UserError, match="the tuned expert.yaml was edited"):
        run(retuned)


def test_a_strategy_file_given_as_a_parameter_is_hashed_and_absolute(tmp_path, monkeypatch):
    from sim.studies.experiments.run import absolute_spec, strategy_files

    (tmp_path / "mine.yaml").write_text(_MINE)
    monkeypatch.chdir(tmp_path)
    assert absolute_spec("search:k=2,base=@mine.yaml") == \
        f"search:k=2,base=@{tmp_path / 'mine.yaml'}"
    path = tmp_path / "e.yaml"
    path.write_text("e:\n  players: 2\n  strategies: {A: 'search:k=2,base=@mine.yaml'}\n")
    files = strategy_files(experiments.get("e", str(path)).points())
    assert list(files) == [str(tmp_path / "mine.yaml")] and files[str(tmp_path / "mine.yaml")]


def test_strategy_files_in_parameters_and_sweep_values_are_next_to_the_experiments_file(
        tmp_path, monkeypatch):
    """'@path' in a spec's parameters, a strategy sweep value or tune's base is found in
    the experiments file's folder, not the working directory (which holds another file
    of the same name here)."""
    import os

    folder = tmp_path / "studies"
    folder.mkdir()
    (folder / "pol.yaml").write_text(_MINE)
    (tmp_path / "pol.yaml").write_text(_MINE.replace("-1.0", "-2.0"))
    path = _write(folder, """
        e:
          players: 2
          strategies: {A: expert}
          retune: true
          tune: {base: "@pol.yaml"}
          sweep:
            strategy.B: ["@pol.yaml", greedy]
          baseline: {strategy.B: "@pol.yaml"}
    """)
    monkeypatch.chdir(tmp_path)
    exp = experiments.load(path, validate=False)["e"]
    mine = str(folder / "pol.yaml")
    assert os.path.abspath(exp.tune["base"][1:]) == mine
    first, second = exp.points()
    assert os.path.abspath(first.strategies["B"][1:]) == mine and first.is_baseline
    assert first.name == "2p-team_B=pol.yaml" and second.strategies["B"] == "greedy"
    path = _write(folder, """
        e:
          players: 2
          strategies: {A: "search:k=2,n=2,base=@pol.yaml", B: "@pol.yaml"}
    """)
    point, = experiments.load(path, validate=False)["e"].points()
    name, _, base = point.strategies["A"].rpartition("base=@")
    assert name == "search:k=2,n=2," and os.path.abspath(base) == mine
    assert os.path.abspath(point.strategies["B"][1:]) == mine


def test_a_mapping_of_counts_sets_only_the_counts_it_names(tmp_path):
    """rules: {unhappy_limit: {3-4: 3}, unhappy_limit.5: 2} sets 3, 4 and 5 players once
    each (docs/rules.md: only the counts named change), as simulate --rules does."""
    path = _write(tmp_path, """
        e:
          players: [2, 3, 4, 5]
          rules: {unhappy_limit: {3-4: 3}, unhappy_limit.5: 2}
          sweep:
            rule.unhappy_limit.2: [1, 2]
    """)
    point = experiments.get("e", path).points()[0]
    assert point.rule_overrides[:2] == ("unhappy_limit={3-4: 3}", "unhappy_limit.5=2")


@pytest.mark.parametrize("case", ["card by name", "default strategies", "default tune"])
def test_equivalent_settings_written_differently_continue_the_same_out(tmp_path, monkeypatch,
                                                                      case):
    """A card by id or by Domain-Value, no strategies or the game's default named for each
    team, retune's tune: left out or given its defaults: the same experiment continues."""
    from sim.core.game import resolve_game
    from sim.studies import tune
    from sim.studies.tune_search import DEFAULT_CHECK_GAMES, DEFAULT_GAMES_PER_EVAL

    def fake_tune(*, out, **_):
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(_MINE)
    monkeypatch.setattr(tune, "tune_strategy", fake_tune)
    budget = resolve_game("peer-to-peer").tune_arena.default_budget
    body = "e:\n  players: 2\n  games: 100\n"
    retuned = body + "  strategies: {A: expert, B: greedy}\n  retune: true\n"
    cases = {"card by name": (body + "  card_overrides: {TE12.value: 11}\n",
              body + "  card_overrides: {Technology-12.value: 11}\n"),
             "default strategies": (body, body + "  strategies: {A: expert, B: expert}\n"),
             "default tune": (retuned, retuned + f"  tune: {{budget: {budget}, games_per_eval: "
                                 f"{DEFAULT_GAMES_PER_EVAL}, check_games: {DEFAULT_CHECK_GAMES}, "
                                 "base: weighted, seed: 1}\n")}
    path = tmp_path / "e.yaml"
    for text in cases[case]:   # the second was refused: "holds a different experiment"
        path.write_text(text)
        experiments.run_experiment(experiments.get("e", str(path)), out=tmp_path / "o",
                                   progress=False, report=False, threads=1)


def test_a_sweep_of_one_count_the_experiment_does_not_play_is_refused_at_its_line(tmp_path):
    """rule.unhappy_limit.5 at 4 players only: every point would play the same games."""
    path = _write(tmp_path, """
        e:
          players: [3, 4]
          sweep:
            rule.unhappy_limit.5: [2, 6]
    """)
    with pytest.raises(UserError, match="sets unhappy_limit at 5 players only, and this "
                                        "experiment plays 3, 4 players") as caught:
        experiments.get("e", path)
    assert caught.value.line == 4
    played = _write(tmp_path, """
        e:
          players: [4, 5]
          sweep:
            rule.unhappy_limit.5: [2, 6]
    """)
    assert experiments.get("e", played).axes[0].target == ("unhappy_limit", 5)


def test_the_report_checks_each_points_changes_under_stronger_play(tmp_path):
    """--stronger-play-games: each point that is not a baseline against its baseline, as
    simulate compare's check of the two runs gives it; without it the report says how."""
    from sim import api
    from sim.studies.compare_stronger import check_change

    path = _write(tmp_path, """
    patience:
      players: [4]
      games: 300
      seed: 1
      sweep: {rule.customer_patience: [2, 3]}
    """)
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["experiment", "patience", "--file", path, "--out",
                                       str(out), "--no-progress", "--threads", "1",
                                       "--stronger-play-games", "6"])
    assert result.exit_code == 0, result.output
    report = (out / "report" / "sweep.md").read_text()
    assert "## Checked under stronger play" in report
    assert "not checked under stronger play here" not in report
    base, edit = (str(out / name / "run") for name in
                  ("4p-customer_patience=2", "4p-customer_patience=3"))
    found = check_change(api.compare(base, edit, stronger_play=0), games=6, threads=1)
    section = report.split("## Checked under stronger play", 1)[1].split("![", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| 4p-customer_patience=3")]
    verdicts = [{"holds": "holds", "changes": "differs", "not decided": "not decided",
                 None: "not checked"}[r["status"]]
                for r in [*found["headlines"], *found["balance"]]]
    assert [line.rstrip(" |").rsplit("| ", 1)[1] for line in rows] == verdicts
    assert len(rows) == 4 and "with search" in report
    # without the option: one line says how to check
    plain = CliRunner().invoke(main, ["experiment", "patience", "--file", path, "--out",
                                      str(tmp_path / "plain"), "--no-progress"])
    assert plain.exit_code == 0, plain.output
    text = (tmp_path / "plain" / "report" / "sweep.md").read_text()
    assert "not checked under stronger play here: simulate experiment NAME --stronger-play" in text
    assert "## Checked under stronger play" not in text


def test_the_all_lose_causes_as_sweep_metrics_add_up_to_the_unhappy_customers(tmp_path):
    """lost_to_<cause>: per 1,000 games, the customers that turned unhappy in all-lose games
    for that cause (0 for a won game); the four add up to all of them, and their paired
    change between two points is the per-game difference's mean, as compare gives it."""
    import polars as pl

    from sim import api
    from sim.games.peer_to_peer import constants as k

    runs = {}
    for name, rules in (("base", ()), ("more", ("new_customers_per_round=3",))):
        runs[name] = api.run(game="peer-to-peer", players=4, games=1500, seed=4,
                             out=tmp_path / name, progress=False,
                             rule_overrides=rules).run_dir
    games = {name: sweep.load_games(path) for name, path in runs.items()}
    causes = ("deck", "draw", "capacity", "choice")
    found = {c: sweep.estimate(f"lost_to_{c}", games["base"], game="peer-to-peer")
             for c in causes}
    table = pl.read_parquet(runs["base"] / "games" / "*.parquet")
    lost = (table["winner"] == k.ALL_LOSE).to_numpy()
    unhappy = table["unhappy"].to_numpy() * lost
    assert unhappy.sum() > 0
    assert sum(f["est"] for f in found.values()) == pytest.approx(1000 * unhappy.mean())
    assert found["deck"]["est"] == pytest.approx(
        1000 * (table["unhappy_deck"].to_numpy() * lost).mean())
    change = sweep.paired("lost_to_capacity", games["more"], games["base"], game="peer-to-peer")
    joined = table.join(pl.read_parquet(runs["more"] / "games" / "*.parquet"),
                        on="game_index", suffix="_more")
    d = (joined["unhappy_capacity_more"] * (joined["winner_more"] == k.ALL_LOSE)
         - joined["unhappy_capacity"] * (joined["winner"] == k.ALL_LOSE)).cast(pl.Float64)
    assert change["diff"] == pytest.approx(1000 * d.mean()) and change["lo"] > 0
