"""Shared checks for the malformed-input fuzz tests (tests/runs/test_fuzz_*)."""
import itertools
import tempfile
from pathlib import Path

from click.testing import CliRunner

from sim.cli import main

# One temporary root per test session, removed when the session ends (mkdtemp per example
# left one directory per Hypothesis example behind in /tmp).
_ROOT = tempfile.TemporaryDirectory(prefix="fuzz_")
_counter = itertools.count()


def fresh_dir() -> Path:
    """A run directory that does not exist yet, in its own parent (for side files)."""
    parent = Path(_ROOT.name) / f"case{next(_counter)}"
    parent.mkdir()
    return parent / "run"


def run_cli(args: list[str]):
    return CliRunner().invoke(main, args, catch_exceptions=True)


def assert_clean_outcome(result, out_dir: Path, context: str) -> None:
    """Either one clean error line with exit code 2 and no run directory, or a good run."""
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"{context}: crashed with {result.exception!r}")
    assert result.exit_code in (0, 2), f"{context}: exit {result.exit_code}: {result.output}"
    assert "Traceback" not in result.output, context
    if result.exit_code == 2:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error:"), f"{context}: {result.stderr!r}"
        assert not out_dir.exists() or not any(out_dir.iterdir()), (
            f"{context}: a failed run left {sorted(p.name for p in out_dir.iterdir())}")
    else:
        assert (out_dir / "manifest.json").exists(), context
