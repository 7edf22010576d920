"""A results file opens with the command that makes every one of its rows."""
from __future__ import annotations

import importlib.util

from repo_paths import REPO_ROOT


def _closing_tables():
    spec = importlib.util.spec_from_file_location(
        "closing_tables", REPO_ROOT / "benchmarks" / "closing_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_file_with_both_games_names_the_command_without_game():
    whole = _closing_tables().whole_file_command
    argv = ["python", "benchmarks/closing_tables.py", "--baseline", "expert-v1", "--game",
            "plai", "--out", "benchmarks/results/expert_moves.md"]
    both = {"plai", "peer-to-peer"}
    assert whole(argv, both) == ("python benchmarks/closing_tables.py --baseline expert-v1 "
                                 "--out benchmarks/results/expert_moves.md")
    assert whole(argv, {"plai"}) == " ".join(argv)   # the file holds only what it played
    assert whole(argv[:4] + ["--game=plai", "--tables-only"], both) == \
        "python benchmarks/closing_tables.py --baseline expert-v1"


def test_the_command_takes_no_abbreviations_the_header_would_miss():
    import pytest

    parser = _closing_tables().arguments()
    assert parser.parse_args(["--game", "plai", "--tables-only"]).tables_only
    for abbreviated in (["--gam", "plai"], ["--tables-o"]):
        with pytest.raises(SystemExit):
            parser.parse_args(abbreviated)
