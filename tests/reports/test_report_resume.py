"""A report stopped part-way (Ctrl-C, SIGTERM, a full disk) keeps its finished
counterfactual replays and stronger-play search games, one journal step per block
(OUT/resume.jsonl, sim/runs/resumable.py), and continues with --resume to the same
answers.json, playing only the blocks it lacks. --resume with other options is refused on
one line. Also through a run's --report and balance-report, whose report blocks are steps
of their own journal.

The stops are injected where a block is recorded (what SIGINT or SIGTERM raises while a
block plays); tests/runs/test_cli_run.py sends real signals to a subprocess. Blocks are
made small (200 replayed games, every search chunk its own block) and one thread plays,
so a few thousand games give several blocks of each kind."""
from __future__ import annotations

import json
import shlex
import signal

import polars as pl
import pytest
from click.testing import CliRunner

from sim import api
from sim.cli import main
from sim.core.errors import UserError
from sim.runs import resumable
from sim.runs.resumable import JOURNAL_NAME, Journal, ResumeRequired, StopSignal

OPTIONS = dict(replay_games=600, stronger_play_games=5)
CLI_OPTIONS = ["--replay-games", "600", "--stronger-play-games", "5"]
TIMINGS = {"seconds", "first_game_seconds"}


@pytest.fixture(scope="module", autouse=True)
def small_blocks():
    import reports.attribution
    import reports.stronger
    import sim.core.inputs

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reports.attribution, "BLOCK", 200)
        patch.setattr(reports.stronger, "BLOCK_SECONDS", 0.0)
        patch.setattr(sim.core.inputs, "default_threads", lambda: 1)
        yield


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """Two players' runs show team B's edge: it is explained by two swaps (the starting
    cards, the first marker), each replayed in blocks."""
    out = tmp_path_factory.mktemp("run") / "p2"
    api.run(game="peer-to-peer", players=2, games=3000, seed=2, out=out, threads=1,
            progress=False)
    return out


class Blocks:
    """Counts the blocks recorded in the journal ('replay' or 'search', in order) and,
    at the ``stop_at``-th, raises ``stop`` instead (the block played, not recorded)."""

    def __init__(self, monkeypatch, stop_at: int = 0, stop: BaseException | None = None):
        self.kinds: list[str] = []
        original = Journal.record

        def record(journal, key, value):
            if len(self.kinds) + 1 == stop_at:
                raise stop
            self.kinds.append("replay" if "num" in value else "search")
            return original(journal, key, value)

        monkeypatch.setattr(Journal, "record", record)


def _timeless(value):
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def answers(out):
    return _timeless(json.loads((out / "answers.json").read_text())["answers"])


def table(out, name):
    frame = pl.read_csv(out / f"{name}.csv")
    return frame.drop([c for c in frame.columns if c in TIMINGS])


def assert_same_report(out, whole):
    assert answers(out) == answers(whole)
    for name in ("attribution", "stronger_play"):
        assert table(out, name).equals(table(whole, name)), name


@pytest.fixture(scope="module")
def whole(run_dir, tmp_path_factory):
    """The uninterrupted report: (its directory, the blocks it recorded)."""
    out = tmp_path_factory.mktemp("whole") / "rep"
    with pytest.MonkeyPatch.context() as patch:
        blocks = Blocks(patch)
        api.report([run_dir], out, **OPTIONS)
    assert not (out / JOURNAL_NAME).exists()          # removed once the report is written
    assert blocks.kinds.count("replay") == 6          # 2 swaps x 600 games / 200
    assert blocks.kinds.count("search") == 2          # games 1-2 and 3-4 (2 a chunk)
    return out, blocks.kinds


def _stop_at(kinds, kind):
    """The call that records the second block of ``kind`` (one of its kind is kept)."""
    return [i for i, k in enumerate(kinds) if k == kind][1] + 1


@pytest.mark.parametrize("kind", ["replay", "search"])
def test_a_stopped_report_resumes_to_the_same_answers(run_dir, whole, tmp_path, monkeypatch,
                                                       kind):
    whole_out, kinds = whole
    stop_at = _stop_at(kinds, kind)
    out = tmp_path / "rep"
    with monkeypatch.context() as patch:
        Blocks(patch, stop_at, KeyboardInterrupt())
        with pytest.raises(resumable.Interrupted) as caught:
            api.report([run_dir], out, **OPTIONS)
    assert caught.value.exit_code == 130 and caught.value.out == out
    assert not (out / "answers.json").exists()
    journal = out / JOURNAL_NAME
    assert len(journal.read_text().splitlines()) == stop_at     # the header + finished blocks
    # a search block records where it ends and its seconds: its games are kept in the run
    # directory (sim.runs.kept_search), not copied into the journal
    searched = [line for line in journal.read_text().splitlines() if '"seconds"' in line
                and '"num"' not in line]
    assert all('"table"' not in line for line in searched)
    with pytest.raises(ResumeRequired, match=rf"holds an unfinished report \({stop_at - 1} "):
        api.report([run_dir], out, **OPTIONS)
    again = Blocks(monkeypatch)
    api.report([run_dir], out, resume=True, **OPTIONS)
    assert again.kinds == kinds[stop_at - 1:]         # only the blocks it lacked were played
    assert not journal.exists()
    assert_same_report(out, whole_out)


def invoke(args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


NOTICE = "the report checks every answer under stronger play: "


def stop_line(result) -> str:
    """The one-line stop message, after at most the line that says what the stronger-play
    check plays."""
    *said, line = result.stderr.strip().splitlines()
    assert all(s.startswith(NOTICE) for s in said) and len(said) <= 1, result.stderr
    return line


def continue_command(result) -> list[str]:
    """The command the one-line stop message says to type, as CLI arguments."""
    line = stop_line(result)
    command = shlex.split(line.split("continue with: ", 1)[1])
    assert command[0] == "simulate" and command[-1] == "--resume", line
    return command[1:]


def test_report_cli_stops_with_the_command_that_continues_it(run_dir, whole, tmp_path,
                                                              monkeypatch):
    out = tmp_path / "rep"
    args = ["report", run_dir, "--out", out, *CLI_OPTIONS]
    with monkeypatch.context() as patch:
        Blocks(patch, 3, StopSignal(signal.SIGTERM))
        stopped = invoke(args)
    assert stopped.exit_code == 143
    assert stop_line(stopped).startswith(f"simulate: report interrupted by SIGTERM; finished "
                                         f"work is kept in {out}; continue with: simulate "
                                         "report")
    command = continue_command(stopped)
    # the seconds recorded beside --stronger-play-games: $CARDSIM_STRONGER_PLAY's (tests: 0)
    assert command == [str(a) for a in args] + ["--stronger-play", "0", "--resume"]
    # other options would give other numbers: refused on one line, naming what differs
    other = invoke(["report", run_dir, "--out", out, "--replay-games", "400",
                    "--stronger-play-games", "5", "--resume"])
    assert other.exit_code == 2 and stop_line(other)
    assert "holds an unfinished report with other settings (replay_games 600 there, 400 " \
           "now)" in other.stderr
    # without --resume the unfinished report is not overwritten
    plain = invoke(args)
    assert plain.exit_code == 2 and "holds an unfinished report (2 steps done)" in plain.stderr
    assert plain.stderr.strip().endswith(shlex.join(command))
    blocks = Blocks(monkeypatch)
    again = invoke(command)
    assert again.exit_code == 0, again.output
    assert len(blocks.kinds) == len(whole[1]) - 2
    assert_same_report(out, whole[0])


def test_a_runs_report_is_continued_by_simulate_report(tmp_path, monkeypatch):
    """Stopped in its --report, a run is finished: 'simulate report' continues the report.
    The stronger-play budget came from $CARDSIM_STRONGER_PLAY: the line names it, so it
    continues in a shell without the variable."""
    run = tmp_path / "r"
    with monkeypatch.context() as patch:
        patch.setenv("CARDSIM_STRONGER_PLAY", "0.5")
        Blocks(patch, 2, KeyboardInterrupt())
        stopped = invoke(["--players", "2", "--games", "2000", "--seed", "3", "--out", run,
                          "--report", "--no-progress"])
    assert stopped.exit_code == 130, stopped.output
    command = continue_command(stopped)
    assert command == ["report", str(run), "--out", str(run / "report"), "--stronger-play",
                       "0.5", "--resume"]
    again = invoke(command)
    assert again.exit_code == 0, again.output
    assert (run / "report" / "answers.json").exists()
    assert not (run / "report" / JOURNAL_NAME).exists()


def test_balance_report_keeps_its_reports_blocks(whole, tmp_path, monkeypatch):
    """balance-report's report blocks are steps of its own journal: stopped in the report,
    it continues from them (its runs finished) to the answers of the same run's report."""
    monkeypatch.setattr(api, "balance_points", lambda game: [(2, ())])
    options = dict(game="peer-to-peer", games=3000, seed=2, out=tmp_path / "b", threads=1,
                   progress=False, **OPTIONS)
    stop_at = _stop_at(whole[1], "search")
    with monkeypatch.context() as patch:
        Blocks(patch, stop_at, KeyboardInterrupt())
        with pytest.raises(resumable.Interrupted, match="balance report interrupted"):
            api.balance_report(**options)
    again = Blocks(monkeypatch)
    api.balance_report(resume=True, **options)
    assert again.kinds == whole[1][stop_at - 1:]
    assert answers(tmp_path / "b") == answers(whole[0])
    assert not (tmp_path / "b" / JOURNAL_NAME).exists()     # finished: its blocks are dropped
    with pytest.raises(UserError, match="already holds a finished balance report"):
        api.balance_report(resume=True, **options)


def test_an_output_that_cannot_be_made_is_one_line(run_dir, tmp_path):
    """--out under a file (as under a read-only mount): one line naming it, not a
    traceback."""
    (tmp_path / "a-file").write_text("x")
    result = CliRunner().invoke(main, ["report", str(run_dir), "--out",
                                       str(tmp_path / "a-file" / "rep")])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: {tmp_path / 'a-file' / 'rep'}")
    assert "cannot write" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_report_cli_without_a_budget_continues_with_the_one_it_took(run_dir, tmp_path,
                                                                   monkeypatch):
    out = tmp_path / "rep"
    args = ["report", run_dir, "--out", out, "--replay-games", "600"]
    with monkeypatch.context() as patch:
        patch.setenv("CARDSIM_STRONGER_PLAY", "0.5")
        Blocks(patch, 2, KeyboardInterrupt())
        stopped = invoke(args)
    assert stopped.exit_code == 130, stopped.output
    assert continue_command(stopped) == [str(a) for a in args] + ["--stronger-play", "0.5",
                                                                  "--resume"]


def test_a_budget_in_games_continues_with_the_exact_seconds_it_recorded(run_dir, tmp_path,
                                                                       monkeypatch):
    """--stronger-play-games N: the journal still records $CARDSIM_STRONGER_PLAY's seconds,
    so the continue line names them, whole and unrounded (1234567, not 1.23457e+06)."""
    from reports.stronger import seconds_text

    assert [seconds_text(s) for s in (1234567.0, 0.5, 0.1 + 0.2)] == \
        ["1234567", "0.5", "0.30000000000000004"]
    out = tmp_path / "rep"
    args = ["report", run_dir, "--out", out, "--replay-games", "600",
            "--stronger-play-games", "5"]
    with monkeypatch.context() as patch:
        patch.setenv("CARDSIM_STRONGER_PLAY", "1234567")
        Blocks(patch, 2, KeyboardInterrupt())
        stopped = invoke(args)
    assert stopped.exit_code == 130, stopped.output
    command = continue_command(stopped)
    assert command == [str(a) for a in args] + ["--stronger-play", "1234567", "--resume"]
    monkeypatch.delenv("CARDSIM_STRONGER_PLAY", raising=False)
    Blocks(monkeypatch, 1, KeyboardInterrupt())   # accepted: it plays on (and is stopped)
    assert invoke(command).exit_code == 130
