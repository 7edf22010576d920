"""Long commands stopped part-way (a signal, a full disk) keep their finished work and
continue with --resume to exactly the result of an uninterrupted run: the journal
(sim/runs/resumable.py), tune, skill, ablate, autobalance, experiment and balance-report.

The stops are injected where the signal handler raises (``StopSignal`` from inside a
chunk or a block of games); tests/runs/test_cli_run.py sends real signals to a
subprocess."""
from __future__ import annotations

import json
import shlex
import signal
import textwrap

import numpy as np
import polars as pl
import pytest
import yaml
from click.testing import CliRunner

from sim.cli import main
from sim.core.errors import UserError
from sim.runs import resumable
from sim.runs.resumable import Journal, ResumeRequired, StopSignal
from sim.studies import tune as tuner

pytestmark = pytest.mark.usefixtures("fake_game_registered")


# ----------------------------------------------------------------------------- helpers
class StopAt:
    """Raise StopSignal (what the SIGINT handler raises) at the n-th call of a method."""

    def __init__(self, monkeypatch, owner, name, at, signum=signal.SIGINT):
        self.calls, self.at, self.signum = 0, at, signum
        original = getattr(owner, name)

        def wrapped(*args, **kwargs):
            self.calls += 1
            if self.calls == self.at:
                raise StopSignal(self.signum)
            return original(*args, **kwargs)

        monkeypatch.setattr(owner, name, wrapped)


def stop_chunks_at(monkeypatch, at, signum=signal.SIGINT):
    """Stop at the at-th chunk played in this process (every chunk's rows are checked by
    ``check_table`` before they are written or counted), before it is kept."""
    from sim.runs.backends import tasks

    return StopAt(monkeypatch, tasks, "check_table", at, signum)


def invoke(args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def continue_command(result) -> list[str]:
    """The command the stop message says to type, as CLI arguments."""
    line = result.stderr.strip()
    assert len(line.splitlines()) == 1, line
    command = shlex.split(line.split("continue with: ", 1)[1])
    assert command[0] == "simulate" and command[-1] == "--resume", line
    return command[1:]


# ----------------------------------------------------------------------------- journal
def test_a_journal_answers_finished_steps_and_records_new_ones(tmp_path):
    path = tmp_path / "j.resume.jsonl"
    played = []

    def compute(x):
        played.append(x)
        return {"x": x, "half": x / 2}

    with Journal.open(path, {"seed": 1}, what="demo", resume=False) as journal:
        assert journal.step(("a", 1), lambda: compute(1)) == {"x": 1, "half": 0.5}
        journal.step(("a", np.arange(3.0)), lambda: compute(2))
    with Journal.open(path, {"seed": 1}, what="demo", resume=True) as journal:
        assert journal.step(("a", 1), lambda: compute(99)) == {"x": 1, "half": 0.5}
        journal.step(("a", np.arange(3.0)), lambda: compute(99))
        journal.step(("a", np.arange(3.0) + 1e-12), lambda: compute(3))   # other inputs: played
        assert journal.replayed == 2
    assert played == [1, 2, 3]


def test_a_journal_refuses_without_resume_and_with_other_settings(tmp_path):
    path = tmp_path / "j.resume.jsonl"
    with Journal.open(path, {"seed": 1, "games": 10}, what="demo", resume=False) as journal:
        journal.step("one", lambda: 1)
    with pytest.raises(ResumeRequired) as caught:
        Journal.open(path, {"seed": 1, "games": 10}, what="demo", resume=False)
    assert "(1 step done)" in str(caught.value)
    assert caught.value.with_command("simulate demo --resume").endswith(
        "continue it with: simulate demo --resume")
    for resume in (True, False):   # never "continue with" a command that cannot
        with pytest.raises(UserError, match="other settings .*seed 1 there, 2 now") as caught:
            Journal.open(path, {"seed": 2, "games": 10}, what="demo", resume=resume)
        assert not isinstance(caught.value, ResumeRequired)
    with pytest.raises(UserError, match="players not given there, 3 now"):   # not "None"
        Journal.open(path, {"seed": 1, "games": 10, "players": 3}, what="demo", resume=True)


def test_a_torn_last_line_is_dropped_and_the_next_record_starts_clean(tmp_path):
    path = tmp_path / "j.resume.jsonl"
    with Journal.open(path, {}, what="demo", resume=False) as journal:
        journal.step("one", lambda: 1)
    with open(path, "a") as handle:
        handle.write('{"k": "abc", "v": [1, 2')      # killed mid-write
    with Journal.open(path, {}, what="demo", resume=True) as journal:
        assert journal.step("one", lambda: 99) == 1 and len(journal.records) == 1
        journal.step("two", lambda: 2)
    lines = path.read_text().splitlines()
    assert len(lines) == 3 and all(json.loads(line) for line in lines)


def test_a_damaged_journal_is_one_line_error(tmp_path):
    path = tmp_path / "j.resume.jsonl"
    path.write_text("not json\n{}\n")
    with pytest.raises(UserError, match="not a progress journal"):
        Journal.open(path, {}, what="demo", resume=True)


# ----------------------------------------------------------------------------- tune
def _bowl_search(arena, seed=5, budget=200_000):
    """13 calls of play_blocks: three exploring CMA runs of 3 generations (restarts), the
    runs' selection, the best run to the end of the budget, the final and the re-check."""
    baselines = {"zero": np.zeros(3), "other": np.array([-1.0, 1.0, 0.0])}
    return tuner.search(arena, np.zeros(3), baselines, budget=budget, seed=seed,
                        games_per_eval=2000, check_games=4000, sigma=0.5, patience=3,
                        explore_runs=3, explore_generations=3)


@pytest.mark.parametrize("stop_at", [1, 5, 11, 13])
def test_a_stopped_search_resumes_to_the_uninterrupted_result(tmp_path, monkeypatch, stop_at):
    """Stopped at a generation (with restarts, the CMA state and its random generator in
    play), the resumed search replays the recorded games and ends exactly where an
    uninterrupted search ends."""
    from bowl_arena import BowlArena

    whole = _bowl_search(BowlArena())
    path = tmp_path / "bowl.resume.jsonl"
    stopping = BowlArena()
    StopAt(monkeypatch, stopping, "play_blocks", stop_at)
    with pytest.raises(StopSignal):
        with Journal.open(path, {}, what="tune", resume=False) as journal:
            _bowl_search(tuner.JournaledArena(stopping, journal))
    assert len(path.read_text().splitlines()) == stop_at      # header + finished steps
    counting = BowlArena()
    calls = StopAt(monkeypatch, counting, "play_blocks", 0)
    with Journal.open(path, {}, what="tune", resume=True) as journal:
        again = _bowl_search(tuner.JournaledArena(counting, journal))
        assert journal.replayed == stop_at - 1
    assert calls.calls == len(journal.records) - (stop_at - 1)   # only the rest was played
    assert np.array_equal(again.weights, whole.weights)
    assert [g.__dict__ for g in again.generations] == [g.__dict__ for g in whole.generations]
    assert again.check == whole.check and again.final == whole.final
    assert again.games == whole.games and again.settings == whole.settings


TUNE = ["tune", "--players", "2", "--budget", "8000", "--games-per-eval", "400",
        "--check-games", "200", "--seed", "4", "--threads", "1", "--no-progress"]


def test_tune_cli_stop_message_and_resume_give_the_same_file(tmp_path, monkeypatch):
    from sim.core.arena import ThreadedArena

    whole = invoke(TUNE + ["--out", tmp_path / "whole.yaml"])
    assert whole.exit_code == 0, whole.output
    with monkeypatch.context() as patch:
        StopAt(patch, ThreadedArena, "play_blocks", 2, signal.SIGTERM)
        stopped = invoke(TUNE + ["--out", tmp_path / "cut.yaml"])
    assert stopped.exit_code == 143
    assert stopped.stderr.startswith("simulate: tune interrupted by SIGTERM; finished work is "
                                     f"kept in {tmp_path / 'cut.resume.jsonl'}")
    assert not (tmp_path / "cut.yaml").exists()
    again = invoke(continue_command(stopped))
    assert again.exit_code == 0, again.output
    assert not (tmp_path / "cut.resume.jsonl").exists()      # removed once the file is written

    def weights(name):
        doc = yaml.safe_load((tmp_path / name).read_text())
        return doc["weights"], doc["score"], doc["tuned_on"]["final"]

    assert weights("cut.yaml") == weights("whole.yaml")
    # a finished strategy file is not overwritten, with or without --resume
    before = (tmp_path / "cut.yaml").read_text()
    for extra in ([], ["--resume"]):
        refused = invoke(TUNE + ["--out", tmp_path / "cut.yaml", *extra])
        assert refused.exit_code == 2 and "already holds a finished tune" in refused.stderr
    assert (tmp_path / "cut.yaml").read_text() == before
    # the same command without --resume refuses to overwrite an unfinished tune
    with monkeypatch.context() as patch:
        StopAt(patch, ThreadedArena, "play_blocks", 2)
        invoke(TUNE + ["--out", tmp_path / "cut2.yaml"])
    refused = invoke(TUNE + ["--out", tmp_path / "cut2.yaml"])
    assert refused.exit_code == 2 and "holds an unfinished tune" in refused.stderr
    assert refused.stderr.strip().endswith("--out " + str(tmp_path / "cut2.yaml") + " --resume")


# ----------------------------------------------------------------------------- skill
SKILL = dict(game="plai", players="2", games=24, search_games=8,
             budgets=("k=2,n=1", "k=2,n=2"), threads=1)


def _pairings(result):
    return [{k: v for k, v in row.items() if k != "seconds"} for row in result.pairings]


def test_skill_resumes_to_the_uninterrupted_ladder(tmp_path, monkeypatch):
    from sim.studies import skill

    whole = skill.run(out=tmp_path / "whole", **SKILL)
    with monkeypatch.context() as patch:
        stop_chunks_at(patch, 7)
        with pytest.raises(resumable.Interrupted) as caught:
            skill.run(out=tmp_path / "cut", **SKILL)
    assert caught.value.out == tmp_path / "cut" and caught.value.exit_code == 130
    with pytest.raises(ResumeRequired):
        skill.run(out=tmp_path / "cut", **SKILL)
    played = stop_chunks_at(monkeypatch, 0)
    again = skill.run(out=tmp_path / "cut", resume=True, **SKILL)
    assert _pairings(again) == _pairings(whole)
    assert again.summary == whole.summary
    # six chunks were finished before the stop: only the rest is played again
    assert played.calls == sum(1 for _ in (tmp_path / "whole" / "blocks").glob("*/games/*")) - 6
    assert (tmp_path / "cut" / "pairings.csv").read_text().count("\n") == \
        (tmp_path / "whole" / "pairings.csv").read_text().count("\n")


# ----------------------------------------------------------------------------- ablate
ABLATE = ["ablate", "--game", "fake", "--players", "4", "--games", "3000", "--threads", "1",
          "--card", "1", "--card", "2"]


def test_ablate_cli_resumes_to_the_same_table(tmp_path, monkeypatch):
    whole = invoke(ABLATE + ["--out", tmp_path / "whole"])
    assert whole.exit_code == 0, whole.output
    with monkeypatch.context() as patch:
        stop_chunks_at(patch, 5)
        stopped = invoke(ABLATE + ["--out", tmp_path / "cut"])
    assert stopped.exit_code == 130, stopped.output
    assert "card ablation interrupted by SIGINT" in stopped.stderr
    assert "simulate --resume" not in stopped.stderr          # not one sub-run's resume
    assert not (tmp_path / "cut" / "ablation.csv").exists()
    again = invoke(continue_command(stopped))
    assert again.exit_code == 0, again.output
    assert pl.read_csv(tmp_path / "cut" / "ablation.csv").equals(
        pl.read_csv(tmp_path / "whole" / "ablation.csv"))
    # a finished ablation is not overwritten
    again = invoke(ABLATE + ["--out", tmp_path / "cut"])
    assert again.exit_code == 2 and "already holds a finished card ablation" in again.stderr


def test_ablate_with_a_default_out_says_which_out_to_continue(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with monkeypatch.context() as patch:
        stop_chunks_at(patch, 2)
        stopped = invoke(ABLATE)
    command = continue_command(stopped)
    out = command[command.index("--out") + 1]
    assert out.startswith("runs/ablation-fake-") and (tmp_path / out / "baseline").is_dir()
    assert invoke(command).exit_code == 0


# ----------------------------------------------------------------------------- matchups
MATCHUPS = ["matchups", "--strategies", "greedy,builder", "--players", "4", "--games", "600",
            "--threads", "1", "--seed", "4"]


def test_matchups_stopped_twice_resume_to_the_same_matrix(tmp_path, monkeypatch):
    """Stopped at its third block (SIGINT), then at the second block it had left
    (SIGTERM), the matchups continue with the line they print to the uninterrupted files;
    the finished ones are not overwritten."""
    from sim.studies import matchups as study

    whole = invoke(MATCHUPS + ["--out", tmp_path / "whole"])
    assert whole.exit_code == 0, whole.output
    with monkeypatch.context() as patch:
        StopAt(patch, study, "_count", 3)
        stopped = invoke(MATCHUPS + ["--out", tmp_path / "cut"])
    assert stopped.exit_code == 130 and "matchups interrupted by SIGINT" in stopped.stderr
    assert not (tmp_path / "cut" / "matrix.csv").exists()
    with monkeypatch.context() as patch:
        StopAt(patch, study, "_count", 2, signal.SIGTERM)
        again = invoke(continue_command(stopped))
    assert again.exit_code == 143, again.output
    done = invoke(continue_command(again))
    assert done.exit_code == 0, done.output
    for name in ("matrix.csv", "pairs.csv"):
        assert (tmp_path / "cut" / name).read_text() == (tmp_path / "whole" / name).read_text()
    refused = invoke(MATCHUPS + ["--out", tmp_path / "cut"])
    assert refused.exit_code == 2 and "already holds a finished matchups" in refused.stderr


def test_every_seat_matchups_resume_to_the_same_matrix_and_need_their_out(tmp_path,
                                                                          monkeypatch):
    """PLAI's matchups (every strategy in every seat) stopped at their fourth block
    continue to the uninterrupted files; --resume without --out says it needs it."""
    from sim.studies import matchups_every_seat as study

    args = ["matchups", "--game", "plai", "--players", "3", "--strategies", "weighted,expert",
            "--games", "300", "--threads", "1", "--seed", "2"]
    whole = invoke(args + ["--out", tmp_path / "whole"])
    assert whole.exit_code == 0, whole.output
    with monkeypatch.context() as patch:
        StopAt(patch, study, "_count", 4)
        stopped = invoke(args + ["--out", tmp_path / "cut"])
    assert stopped.exit_code == 130, stopped.output
    done = invoke(continue_command(stopped))
    assert done.exit_code == 0, done.output
    for name in ("matrix.csv", "pairs.csv", "head_to_head.csv"):
        assert (tmp_path / "cut" / name).read_text() == (tmp_path / "whole" / name).read_text()
    missing = invoke(args + ["--resume"])
    assert missing.exit_code == 2 and "--resume continues the matchups in --out" in \
        missing.stderr


def test_an_edited_strategy_file_is_not_mixed_into_stopped_matchups_or_a_run(tmp_path,
                                                                            monkeypatch):
    """A strategy file changed between the stop and --resume: the matchups and the run
    refuse to continue (their games would mix the old and the new weights)."""
    from sim.games.peer_to_peer.cards import default_cards_path  # noqa: F401 (the game)
    from sim.studies import matchups as study

    strategy = tmp_path / "mine.yaml"
    strategy.write_text("cardsim_strategy: 1\ngame: peer-to-peer\nname: mine\nbase: greedy\n"
                        "weights:\n  early.commit.cards: -1.0\n")
    args = ["matchups", "--strategies", f"greedy,@{strategy}", "--players", "4", "--games",
            "600", "--threads", "1", "--seed", "4", "--out", tmp_path / "m"]
    with monkeypatch.context() as patch:
        StopAt(patch, study, "_count", 3)
        stopped = invoke(args)
    assert stopped.exit_code == 130, stopped.output
    strategy.write_text(strategy.read_text().replace("-1.0", "-2.0"))
    refused = invoke(continue_command(stopped))
    assert refused.exit_code == 2 and "other settings (strategies differs)" in refused.stderr
    # a run: stopped at its second chunk, then the file edited back
    run_args = ["--games", "4000", "--chunk-size", "1000", "--threads", "1", "--team-a",
                f"@{strategy}", "--out", tmp_path / "r", "--no-progress"]
    with monkeypatch.context() as patch:
        stop_chunks_at(patch, 2)
        stopped = invoke(run_args)
    assert stopped.exit_code == 130, stopped.output
    strategy.write_text(strategy.read_text().replace("-2.0", "-1.0"))
    refused = invoke(["--resume", tmp_path / "r", "--no-progress"])
    assert refused.exit_code == 2 and "strategy_weights_sha256" in refused.stderr


# ----------------------------------------------------------------------------- autobalance
AUTOBALANCE = """
    ab:
      game: fake
      players: [4]
      games: 3000
      autobalance:
        vary:
          1.power: [1, 2, 3, 4, 5, 6]
        targets:
          - {metric: a_win_rate, players: 4, target: 60, tolerance: 0.2}
        batches: 3
        rounds: 3
"""


def test_autobalance_resumes_to_the_same_card_file(tmp_path, monkeypatch):
    path = tmp_path / "ab.yaml"
    path.write_text(textwrap.dedent(AUTOBALANCE).lstrip())
    args = ["autobalance", "ab", "--file", path, "--threads", "1", "--no-progress"]
    with monkeypatch.context() as patch:
        counted = stop_chunks_at(patch, 0)
        whole = invoke(args + ["--out", tmp_path / "whole.csv"])
    assert whole.exit_code == 0, whole.output
    with monkeypatch.context() as patch:
        stop_chunks_at(patch, 5)      # in the second candidate (3 batches each)
        stopped = invoke(args + ["--out", tmp_path / "cut.csv"])
    assert stopped.exit_code == 130 and "autobalance interrupted" in stopped.stderr
    assert (tmp_path / "cut.resume.jsonl").exists()
    played = stop_chunks_at(monkeypatch, 0)
    again = invoke(continue_command(stopped))
    assert again.exit_code == 0, again.output
    assert (tmp_path / "cut.csv").read_text() == (tmp_path / "whole.csv").read_text()
    assert again.output.replace("cut.csv", "X") == whole.output.replace("whole.csv", "X")
    assert played.calls == counted.calls - 3          # the first candidate came from the journal
    assert not (tmp_path / "cut.resume.jsonl").exists()
    refused = invoke(args + ["--out", tmp_path / "cut.csv"])    # finished: not overwritten
    assert refused.exit_code == 2 and "already holds a finished autobalance" in refused.stderr


# ----------------------------------------------------------------------------- experiment
EXPERIMENT = """
    sweep:
      game: fake
      players: [2, 4]
      games: 3000
      seed: 5
      sweep:
        rule.bonus: [0, 1]
"""


def test_experiment_stop_names_the_experiment_command(tmp_path, monkeypatch):
    path = tmp_path / "e.yaml"
    path.write_text(textwrap.dedent(EXPERIMENT).lstrip())
    args = ["experiment", "sweep", "--file", path, "--threads", "1", "--no-progress",
            "--no-report"]
    whole = invoke(args + ["--out", tmp_path / "whole"])
    assert whole.exit_code == 0, whole.output
    with monkeypatch.context() as patch:
        stop_chunks_at(patch, 4, signal.SIGTERM)
        stopped = invoke(args + ["--out", tmp_path / "cut"])
    assert stopped.exit_code == 143
    assert "experiment sweep interrupted by SIGTERM" in stopped.stderr
    command = continue_command(stopped)
    assert command[:2] == ["experiment", "sweep"]
    again = invoke(command)
    assert again.exit_code == 0 and again.output.replace("cut", "X") == \
        whole.output.replace("whole", "X")


def test_balance_report_resumes(tmp_path, monkeypatch):
    args = ["balance-report", "--game", "fake", "--games", "2000", "--threads", "1",
            "--no-progress"]
    with monkeypatch.context() as patch:
        stop_chunks_at(patch, 3)
        stopped = invoke(args + ["--out", tmp_path / "c0t1"])
    assert stopped.exit_code == 130 and "balance report interrupted" in stopped.stderr
    again = invoke(continue_command(stopped))
    assert again.exit_code == 0, again.output
    whole = invoke(args + ["--out", tmp_path / "wh0le"])
    assert whole.output.replace("wh0le", "X") == again.output.replace("c0t1", "X")
    runs = sorted(p.name for p in (tmp_path / "wh0le" / "runs").iterdir())
    assert len(runs) == 4 and runs == sorted(p.name for p in (tmp_path / "c0t1" / "runs").iterdir())
    for name in runs:
        games = [pl.read_parquet(tmp_path / top / "runs" / name / "games" / "*.parquet")
                 for top in ("wh0le", "c0t1")]
        assert games[0].equals(games[1]), name
    assert (tmp_path / "c0t1" / "report.md").read_text().replace("c0t1", "X") == \
        (tmp_path / "wh0le" / "report.md").read_text().replace("wh0le", "X")


def test_an_experiment_with_edited_strategies_is_not_continued_into_the_same_out(tmp_path,
                                                                                monkeypatch):
    """A team's strategy changed between the stop and --resume: refused, naming the team
    and both strategies (the finished points played the old one); finished points too."""
    path = tmp_path / "e.yaml"
    text = textwrap.dedent(EXPERIMENT).lstrip() + "  strategies: {A: random, B: random}\n"
    path.write_text(text)
    args = ["experiment", "sweep", "--file", path, "--threads", "1", "--no-progress",
            "--no-report"]
    with monkeypatch.context() as patch:
        stop_chunks_at(patch, 4, signal.SIGTERM)
        stopped = invoke(args + ["--out", tmp_path / "cut"])
    assert stopped.exit_code == 143
    path.write_text(text.replace("B: random", "B: greedy"))
    refused = invoke(continue_command(stopped))
    assert refused.exit_code == 2, refused.output
    assert "(the strategies differ: B 'random' there, 'greedy' now (at every point))" in \
        refused.stderr
    path.write_text(text)
    assert invoke(continue_command(stopped)).exit_code == 0
    path.write_text(text.replace("B: random", "B: greedy"))   # every point finished
    refused = invoke(args + ["--out", tmp_path / "cut"])
    assert refused.exit_code == 2 and "B 'random' there, 'greedy' now" in refused.stderr


def test_check_reuses_the_points_an_experiment_finished_in_its_out(tmp_path, monkeypatch):
    """simulate check into an experiment's OUT plays only the points it lacks: the
    experiment's finished points are the check's."""
    path = tmp_path / "e.yaml"
    path.write_text(textwrap.dedent(EXPERIMENT).lstrip() + "  checks:\n"
                    "    - {metric: a_win_rate, players: 4, max: 100}\n")
    args = ["--file", path, "--threads", "1", "--no-progress", "--out", tmp_path / "o"]
    assert invoke(["experiment", "sweep"] + args).exit_code == 0
    report = (tmp_path / "o" / "report" / "sweep.md").read_text()
    played = stop_chunks_at(monkeypatch, 0)
    checked = invoke(["check", "sweep"] + args)
    assert checked.exit_code == 0, checked.output
    assert played.calls == 0
    record = json.loads((tmp_path / "o" / "experiment.json").read_text())
    assert len(record["points"]) == 4    # the experiment's points stay recorded
    assert (tmp_path / "o" / "report" / "sweep.md").read_text() == report   # and reported


@pytest.mark.parametrize("command", ["experiment", "check"])
def test_an_out_that_is_a_file_is_one_line(tmp_path, command):
    path = tmp_path / "e.yaml"
    path.write_text(textwrap.dedent(EXPERIMENT).lstrip() + "  checks:\n"
                    "    - {metric: a_win_rate, max: 100}\n")
    existing = tmp_path / "existing.csv"
    existing.write_text("id,name\n")
    result = invoke([command, "sweep", "--file", path, "--threads", "1", "--no-progress",
                     "--out", existing])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: {existing}, field '--out': is a file, not a directory; " \
        "choose a new --out\n"
    assert existing.read_text() == "id,name\n"


def autobalance_stopped_in_its_second_candidate(tmp_path, monkeypatch):
    """AUTOBALANCE written to TMP/ab.yaml and stopped in its second candidate (the first
    is journalled): (the experiments file, the stopped command's result)."""
    path = tmp_path / "ab.yaml"
    path.write_text(textwrap.dedent(AUTOBALANCE).lstrip())
    args = ["autobalance", "ab", "--file", path, "--threads", "1", "--no-progress", "--out",
            tmp_path / "cut.csv"]
    with monkeypatch.context() as patch:
        stop_chunks_at(patch, 5)
        stopped = invoke(args)
    assert stopped.exit_code == 130, stopped.output
    return path, stopped


def test_an_edited_autobalance_section_is_named_in_words(tmp_path, monkeypatch):
    path, stopped = autobalance_stopped_in_its_second_candidate(tmp_path, monkeypatch)
    path.write_text(path.read_text().replace("tolerance: 0.2", "tolerance: 0.5"))
    refused = invoke(continue_command(stopped))
    assert refused.exit_code == 2
    assert "with other settings (the autobalance section (vary, targets, rounds, batches) " \
        "differs)" in refused.stderr, refused.stderr


def test_a_stopped_check_says_check(tmp_path, monkeypatch):
    path = tmp_path / "e.yaml"
    path.write_text(textwrap.dedent(EXPERIMENT).lstrip() + "  checks:\n"
                    "    - {metric: a_win_rate, max: 100}\n")
    with monkeypatch.context() as patch:
        stop_chunks_at(patch, 2, signal.SIGTERM)
        stopped = invoke(["check", "sweep", "--file", path, "--threads", "1", "--no-progress",
                          "--out", tmp_path / "c"])
    assert stopped.exit_code == 143
    assert stopped.stderr.startswith("simulate: check sweep interrupted by SIGTERM"), \
        stopped.stderr
    assert continue_command(stopped)[:2] == ["check", "sweep"]


def test_an_experiment_whose_strategy_file_was_edited_is_refused(tmp_path, monkeypatch):
    """The same strategy file name with other weights: the finished points played the old
    ones, so the OUT is not continued (from another working directory it is the same file)."""
    strategy = tmp_path / "mine.yaml"
    strategy.write_text("cardsim_strategy: 1\ngame: peer-to-peer\nname: mine\nbase: greedy\n"
                        "weights:\n  early.commit.cards: -1.0\n")
    path = tmp_path / "e.yaml"
    path.write_text("e:\n  players: [4]\n  games: 300\n"
                    "  strategies: {A: '@mine.yaml', B: greedy}\n")
    args = ["experiment", "e", "--file", path, "--threads", "1", "--no-progress",
            "--no-report", "--out", tmp_path / "o"]
    assert invoke(args).exit_code == 0
    monkeypatch.chdir(tmp_path)
    assert invoke(args).exit_code == 0
    strategy.write_text(strategy.read_text().replace("-1.0", "-2.0"))
    refused = invoke(args)
    assert refused.exit_code == 2
    assert f"(the strategy file {strategy} was edited since the points played it)" in \
        refused.stderr


@pytest.mark.parametrize("command", ["experiment", "check"])
@pytest.mark.parametrize("text", ["[]", '{"experiment": "sw', "3"])
def test_an_experiment_json_that_is_no_object_is_one_line(tmp_path, command, text):
    """An OUT whose experiment.json is cut off or is not a JSON object (with a report
    beside it): one line, not a traceback."""
    path = tmp_path / "e.yaml"
    path.write_text(textwrap.dedent(EXPERIMENT).lstrip() + "  checks:\n"
                    "    - {metric: a_win_rate, max: 100}\n")
    out = tmp_path / "o"
    (out / "report").mkdir(parents=True)
    (out / "report" / "sweep.md").write_text("# sweep\n")
    (out / "experiment.json").write_text(text)
    result = invoke([command, "sweep", "--file", path, "--threads", "1", "--no-progress",
                     "--out", out])
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: {out}, field '--out': holds an unreadable " \
        "experiment.json; choose a new --out\n"


def test_an_autobalance_resumed_after_a_rule_edit_names_the_rule(tmp_path, monkeypatch):
    path, stopped = autobalance_stopped_in_its_second_candidate(tmp_path, monkeypatch)
    path.write_text(path.read_text().replace("  games: 3000\n", "  games: 3000\n  rules: "
                                                                 "{bonus: 1}\n"))
    refused = invoke(continue_command(stopped))
    assert refused.exit_code == 2
    assert "with other settings (rule bonus not given there, '1' now)" in refused.stderr, \
        refused.stderr


def test_an_autobalance_whose_game_has_no_search_player_says_it_was_not_checked(tmp_path):
    """The check under stronger play comes after the whole search: a game without a search
    player keeps the search's answer and says why it was not checked."""
    path = tmp_path / "ab.yaml"
    path.write_text(textwrap.dedent(AUTOBALANCE).lstrip().replace("games: 3000", "games: 300"))
    result = invoke(["autobalance", "ab", "--file", path, "--threads", "1", "--no-progress",
                     "--out", tmp_path / "best.csv", "--stronger-play-games", "2"])
    assert result.exit_code == 0, result.output
    assert "under stronger play: not checked (the search player cannot play these " \
           "points: " in result.output
    assert (tmp_path / "best.csv").exists()
