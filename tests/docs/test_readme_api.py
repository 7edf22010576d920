"""The README's Python API example runs as written (GameRequest and Execution values, the
same numbers on a 2-worker dask-local cluster, matchups from the same values)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from repo_paths import REPO_ROOT

README = REPO_ROOT / "README.md"


def _python_api_example() -> str:
    text = README.read_text(encoding="utf-8")
    section = text.split("### Python API", 1)[1].split("\n#", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert blocks, "the README's Python API section has no python example"
    return blocks[0]


def test_readme_python_api_example_runs(tmp_path, monkeypatch, capsys):
    pytest.importorskip("distributed")
    code = _python_api_example()
    assert "api.GameRequest(" in code and "api.Execution(" in code
    monkeypatch.chdir(tmp_path)          # its runs go to ./runs
    exec(compile(code, str(README), "exec"), {})
    printed = capsys.readouterr().out
    assert "greedy" in printed and "95 % Wilson interval" in printed
    assert len(list((tmp_path / "runs").iterdir())) == 3   # two runs and the matchups
