"""The repository stands alone and carries no history (DEVELOPERS: the rules documents are
the project's own; git holds history).

- No tracked file names the input folder beside the checkout (the ``shared`` folder one
  level up, its rules or seeds): a clone must not need it. CI has that folder beside the checkout, so only this
  test notices a new reference.
- No tracked file numbers past sessions or issues; an upstream reference is a link-style
  name such as ``numba#4452``.

Both scans are ``git grep`` over the tracked files, the same command a developer runs. The
patterns are assembled from pieces so that this file does not match them itself. Outside
a git checkout of this repository (an unpacked sdist, git missing) the tests skip.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from repo_paths import REPO_ROOT

SHARED_FOLDER = r"\.\./" + "shared" + "|" + "shared" + "/(rules|seeds)"
HISTORY = "(session|issue)" + " [0-9]+"           # matched case-insensitively


def _git(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)


def tracked_lines_matching(root: Path, pattern: str, ignore_case: bool = False) -> list[str]:
    """``path:line:text`` of every tracked text file line matching ``pattern`` (ERE)."""
    flags = ["-n", "-I", "-E"] + (["-i"] if ignore_case else [])
    done = _git(root, "grep", *flags, "-e", pattern)
    if done.returncode == 1:          # git grep: nothing found
        return []
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.fixture(scope="module")
def checkout() -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    top = _git(REPO_ROOT, "rev-parse", "--show-toplevel")
    if top.returncode != 0 or Path(top.stdout.strip()).resolve() != REPO_ROOT.resolve():
        pytest.skip("not a git checkout of this repository")
    return REPO_ROOT


def test_no_tracked_file_names_the_shared_input_folder(checkout):
    found = tracked_lines_matching(checkout, SHARED_FOLDER)
    assert not found, ("tracked files name the input folder beside the checkout (the "
                       "repository must stand alone; cite docs/rules/ instead):\n"
                       + "\n".join(found))


def test_no_tracked_file_numbers_sessions_or_issues(checkout):
    found = tracked_lines_matching(checkout, HISTORY, ignore_case=True)
    assert not found, ("tracked files number past sessions or issues (say what the thing "
                       "is now; git holds the history; upstream: numba#4452):\n"
                       + "\n".join(found))


def test_the_scans_find_planted_lines_in_tracked_files_only(tmp_path):
    """The scans themselves can fail: a throwaway repository with one planted line of
    each kind in a tracked file, and the same lines in an untracked file."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    assert _git(tmp_path, "init", "-q").returncode == 0
    shared_line = "see .." + "/shared/" + "rules/plai.md"
    history_line = "# added in " + "Session " + "14"
    (tmp_path / "tracked.py").write_text(f"{shared_line}\nclean line\n{history_line}\n")
    (tmp_path / "untracked.md").write_text(f"{shared_line}\n{history_line}\n")
    assert _git(tmp_path, "add", "tracked.py").returncode == 0

    assert tracked_lines_matching(tmp_path, SHARED_FOLDER) == [f"tracked.py:1:{shared_line}"]
    assert tracked_lines_matching(tmp_path, HISTORY, ignore_case=True) == [
        f"tracked.py:3:{history_line}"]
    assert tracked_lines_matching(tmp_path, HISTORY) == []   # only case-insensitively
