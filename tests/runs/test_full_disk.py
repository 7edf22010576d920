"""A full disk, for real: a small tmpfs mounted in the test (root only; skipped with the
reason otherwise). Every writer's failure (polars' ComputeError for a Parquet part, its
errno-less OSError for a CSV, Python's OSError) is one line with exit code 2, the run is
left resumable, and --resume after enlarging the disk gives the uninterrupted table."""
from __future__ import annotations

import contextlib
import os
import re
import subprocess
import uuid

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.core.errors import UserError
from sim.core.output import NO_SPACE_ERRNOS, os_error_of, writing

pytestmark = pytest.mark.usefixtures("fake_game_registered")


def _mount(path, size):
    return subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                          capture_output=True, text=True)


@pytest.fixture
def small_disk(tmp_path):
    """A 2 MB tmpfs; ``small_disk.grow(size)`` remounts it larger (the files stay)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root (the full-disk tests run as root in CI)")
    where = tmp_path / f"disk-{uuid.uuid4().hex[:6]}"
    where.mkdir()
    mounted = _mount(where, "2m")
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.strip()})")

    class Disk:
        path = where

        @staticmethod
        def grow(size="64m"):
            subprocess.run(["mount", "-o", f"remount,size={size}", str(where)], check=True)

        @staticmethod
        def fill():
            """Fill the disk to the last byte."""
            fd = os.open(where / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
            try:
                for size in (65536, 4096, 1):
                    with contextlib.suppress(OSError):
                        while True:
                            os.write(fd, b"\0" * size)
            finally:
                os.close(fd)

    try:
        yield Disk
    finally:
        subprocess.run(["umount", "-l", str(where)], capture_output=True)


def invoke(args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def one_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


RUN = ["--game", "fake", "--games", "1e6", "--chunk-size", "100000", "--seed", "7",
       "--threads", "1", "--no-progress"]


def test_a_run_that_fills_the_disk_stops_on_one_line_and_resumes(small_disk, tmp_path):
    out = small_disk.path / "run"
    full = invoke(RUN + ["--out", out])
    assert full.exit_code == 2
    line = one_line(full)
    assert "no space left on device" in line and f"simulate --resume {out}" in line
    parts = sorted((out / "games").glob("*.parquet"))
    assert 0 < len(parts) < 10                     # it got part of the way
    assert not list((out / "games").glob(".*tmp*"))  # no half-written part left behind
    small_disk.grow()
    resumed = invoke(["--resume", out, "--no-progress"])
    assert resumed.exit_code == 0, resumed.output
    whole = invoke(RUN + ["--out", tmp_path / "whole"])
    assert whole.exit_code == 0
    table = pl.read_parquet(out / "games" / "*.parquet").sort("game_index")
    assert table.height == 1_000_000
    assert table.equals(pl.read_parquet(tmp_path / "whole" / "games" / "*.parquet")
                        .sort("game_index"))


def test_a_disk_full_at_the_start_says_run_again_and_running_again_works(small_disk):
    small_disk.fill()
    out = small_disk.path / "run"
    args = RUN + ["--games", "1000", "--out", out]
    full = invoke(args)
    assert full.exit_code == 2
    line = one_line(full)
    assert "no space left on device" in line and "run the same command again" in line
    assert "--resume" not in line                  # there is no run to resume
    assert not out.exists() or not any(out.iterdir())
    (small_disk.path / "filler").unlink()
    again = invoke(args)
    assert again.exit_code == 0, again.output


def test_a_long_command_on_a_full_disk_says_how_to_continue(small_disk, tmp_path):
    """ablate's sub-runs fill the disk: one line naming the ablation command to continue;
    after enlarging the disk, the continued ablation writes the uninterrupted table."""
    args = ["ablate", "--game", "fake", "--players", "4", "--games", "300000", "--seed", "3",
            "--card", "1", "--card", "2", "--threads", "1"]
    out = small_disk.path / "abl"
    full = invoke(args + ["--out", out])
    assert full.exit_code == 2
    line = one_line(full)
    assert "card ablation stopped: no space left on device" in line
    assert line.endswith(f"; free some space and continue with: simulate {' '.join(args)} "
                         f"--out {out} --resume")
    small_disk.grow()
    again = invoke(args + ["--out", out, "--resume"])
    assert again.exit_code == 0, again.output
    whole = invoke(args + ["--out", tmp_path / "whole"])
    assert whole.exit_code == 0, whole.output
    assert pl.read_csv(out / "ablation.csv").equals(pl.read_csv(tmp_path / "whole" /
                                                               "ablation.csv"))


def test_a_report_on_a_full_disk_says_how_to_continue(small_disk, tmp_path):
    """A report whose files fill the disk: one line with the 'simulate report ... --resume'
    that continues it (its finished replays kept, tests/reports/test_report_resume.py);
    after enlarging the disk it writes the whole report."""
    run = tmp_path / "run"
    assert invoke(RUN + ["--games", "20000", "--out", run]).exit_code == 0
    small_disk.fill()
    filler = small_disk.path / "filler"
    os.truncate(filler, filler.stat().st_size - 8192)   # room for the journal and a table
    out = small_disk.path / "rep"
    full = invoke(["report", run, "--out", out])
    assert full.exit_code == 2
    line = one_line(full)
    assert "report stopped: no space left on device" in line
    # the budget it took from the environment is named, so the line continues anywhere
    assert re.search(rf"continue with: simulate report {re.escape(str(run))} --out "
                     rf"{re.escape(str(out))} --stronger-play \S+ --resume$", line), line
    small_disk.grow()
    again = invoke(["report", run, "--out", out, "--resume"])
    assert again.exit_code == 0, again.output
    assert (out / "report.html").exists() and not (out / "resume.jsonl").exists()


def test_every_writer_fails_as_an_os_error_with_its_errno(small_disk):
    """polars raises ComputeError for Parquet and an OSError without errno for CSV; both,
    and Python's own OSError, are read as ENOSPC and become one line."""
    small_disk.fill()
    frame = pl.DataFrame({"x": np.arange(100_000)})
    writers = {"parquet": lambda p: frame.write_parquet(p), "csv": lambda p: frame.write_csv(p),
               "text": lambda p: p.write_text("x" * 100_000)}
    for name, write in writers.items():
        with pytest.raises(Exception) as caught:
            write(small_disk.path / f"out.{name}")
        assert os_error_of(caught.value).errno in NO_SPACE_ERRNOS, (name, caught.value)
        with pytest.raises(UserError) as one:
            with writing(f"the {name} file", small_disk.path / f"out.{name}"):
                write(small_disk.path / f"out.{name}")
        assert "no space left on device while writing the" in str(one.value)
        assert len(str(one.value).splitlines()) == 1


def test_a_failed_write_that_is_not_a_full_disk_passes_through():
    with pytest.raises(ValueError):
        with writing("x"):
            raise ValueError("a bug, not a disk")
    assert os_error_of(ValueError("(os error 28)")) is None
