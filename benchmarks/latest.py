"""Where the benchmark scripts put their results: ``benchmarks/results/<name>.md``, the
latest run only.

A script's next run replaces its file (git keeps the earlier ones). Every file opens with
the command that made it, the machine it ran on and the date, so no table is read without
them. Scripts whose runs measure one case each (a report kind and size, a search budget)
keep one row per case in ``<name>.json`` and rewrite the table from it: a case's new
measurement replaces that case's row, and each row carries its own date and load.
"""
from __future__ import annotations

import json
import os
import platform
import shlex
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def command_line() -> str:
    """How this script was started, as a user would type it from the repository root."""
    script = Path(sys.argv[0])
    try:
        script = script.resolve().relative_to(RESULTS.parent.parent)
    except ValueError:
        pass
    return shlex.join(["python", str(script), *sys.argv[1:]])


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> str:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return f"{int(line.split()[1]) / 2**20:.0f} GiB"
    except OSError:
        pass
    return "?"


def load_average() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"


def machine() -> str:
    """CPU, cores, memory, Python and numba/numpy versions, in one line."""
    try:
        import numba
        import numpy
        versions = f"numba {numba.__version__}, numpy {numpy.__version__}"
    except ImportError:
        versions = "numba not installed"
    return (f"{_cpu_model()}, {os.cpu_count()} cores, {_memory_gib()}; "
            f"{platform.system()} {platform.release()}; Python {platform.python_version()}, "
            f"{versions}")


def now() -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())


def write(name: str, title: str, body: str, *, command: str | None = None,
          notes: str = "", out: str | os.PathLike | None = None) -> Path:
    """Replace ``results/<name>.md`` (or write ``out`` instead, leaving the stored result
    alone) with ``title``, the run's facts and ``body``."""
    head = [f"# {title}", "",
            f"- Command: `{command or command_line()}`",
            f"- Machine: {machine()}",
            f"- Date: {now()}; load average (1, 5, 15 min) at the end: {load_average()}", ""]
    if notes:
        head += [notes.strip(), ""]
    path = Path(out) if out else RESULTS / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(head) + "\n" + body.rstrip() + "\n", encoding="utf-8")
    print(f"results: {path}", flush=True)
    return path


def update_rows(name: str, key: tuple[str, ...], row: dict) -> list[dict]:
    """Put ``row`` (plus its date, load and command) into ``results/<name>.json``,
    replacing the row with the same values of ``key``; return every row."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    rows = json.loads(path.read_text()) if path.exists() else []
    row = {**row, "date": now(), "load": load_average(), "command": command_line()}
    rows = [r for r in rows if tuple(r.get(k) for k in key) != tuple(row.get(k) for k in key)]
    rows.append(row)
    path.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return rows
