"""The simulate command: options, --json, run-dir layout, one-line errors with exit 2,
lazy imports, and a real subprocess interrupted by SIGINT/SIGTERM and then resumed."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

import fake_game
from compile_time import pretend_a_compile_in
from repo_paths import REPO_ROOT, subprocess_pythonpath
from sim import api, cli

ROOT = REPO_ROOT


pytestmark = pytest.mark.usefixtures("fake_game_registered")


def invoke(*args: str):
    return CliRunner().invoke(cli.main, list(args))


def assert_one_line_error(result, *needles: str):
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output and result.stdout == ""
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.fixture(scope="module")
def json_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "run"
    result = invoke("--game", "fake", "--games", "1e6", "--seed", "5", "--players", "2",
                    "--out", str(out), "--json")
    assert result.exit_code == 0, result.output
    return out, result


def test_json_is_one_object_with_the_headline_keys(json_run):
    out, result = json_run
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    payload = json.loads(lines[0])
    assert list(payload)[:7] == ["game", "players", "games", "seed", "wall_seconds",
                                 "games_per_second", "run_dir"]
    assert (payload["game"], payload["players"], payload["games"], payload["seed"]) == \
        ("fake", 2, 1_000_000, 5)
    assert payload["run_dir"] == str(out)
    assert payload["games_per_second"] == pytest.approx(1e6 / payload["wall_seconds"], rel=1e-3)
    assert set(payload["teams"]) == {"A", "B"}
    assert set(payload["teams"]["A"]) == {"win_rate", "ci_low", "ci_high"}
    for key in ("draw_rate", "all_lose_rate", "mean_rounds"):
        assert isinstance(payload[key], float)
    assert payload["teams"]["A"]["ci_low"] < payload["teams"]["A"]["win_rate"] < \
        payload["teams"]["A"]["ci_high"]


def test_run_dir_layout(json_run):
    out, _ = json_run
    # the layout sim/runs/rundir.py documents: the fake game has per-round curves
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == \
        ["curves", "curves.npz", "games", "manifest.json", "summary.json"]
    parts = sorted(p.name for p in (out / "games").iterdir())
    assert parts == [f"part-5-{start:012d}.parquet" for start in range(0, 1_000_000, 100_000)]
    assert sorted(p.name for p in (out / "curves").iterdir()) == \
        [f"part-5-{start:012d}.npy" for start in range(0, 1_000_000, 100_000)]
    manifest = json.loads((out / "manifest.json").read_text())
    for key in ("game", "players", "games", "seed", "chunk_size", "chunks", "complete",
                "package_version", "git_commit", "cards", "rules", "strategies", "seat_teams",
                "wall_seconds", "started", "finished", "command_line", "sessions"):
        assert key in manifest, key
    assert manifest["complete"] is True and manifest["chunk_size"] == 100_000
    assert manifest["command_line"] == (f"simulate --game fake --games 1e6 --seed 5 --players 2 "
                                        f"--out {out} --json")
    assert manifest["cards"]["path"].endswith("fake_cards.csv")
    table = pl.read_parquet(f"{out}/games/*.parquet")
    assert table.columns[0] == "game_index" and table.height == 1_000_000
    assert np.array_equal(table["game_index"].to_numpy(), np.arange(1_000_000))


@pytest.mark.parametrize("spelling", ["2e4", "20_000", "20000", "2.0e4"])
def test_games_spellings(tmp_path, spelling):
    result = invoke("--game", "fake", "--games", spelling, "--out", str(tmp_path / "r"), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["games"] == 20_000


def test_human_output(tmp_path):
    result = invoke("--game", "fake", "--games", "3000", "--out", str(tmp_path / "r"))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Team A wins ")
    assert f"run dir: {tmp_path / 'r'}" in result.stdout
    # the summary's answers are the strategies'; it says where they are checked under
    # stronger play (--report's check), not that they hold
    assert "\nunder stronger play: not checked here; --report checks every answer" in result.stdout
    assert "3,000 games in" in result.stdout and "games/s" in result.stdout
    assert "compiling" not in result.stdout


def test_human_output_keeps_a_first_runs_compile_apart(tmp_path, monkeypatch):
    """A cold cache compiles the kernels inside the first run: the games/s line says how
    long that took and gives the games' own speed without it."""
    pretend_a_compile_in(monkeypatch, "run")
    result = invoke("--game", "fake", "--games", "3000", "--out", str(tmp_path / "r"))
    assert result.exit_code == 0, result.output
    line = result.stdout.strip().splitlines()[-1]
    assert line.startswith("3,000 games in ") and "s of it compiling the kernels, once;" in line
    assert line.endswith("games/s without it)")


def test_chunk_size_and_threads_do_not_change_results(tmp_path):
    tables = []
    for chunk, threads in (("1000", "1"), ("7777", "2")):
        out = tmp_path / chunk
        result = invoke("--game", "fake", "--games", "20000", "--chunk-size", chunk,
                        "--threads", threads, "--out", str(out))
        assert result.exit_code == 0, result.output
        tables.append(pl.read_parquet(f"{out}/games/*.parquet"))
    assert tables[0].equals(tables[1])


def test_existing_different_run_is_refused(json_run):
    out, _ = json_run
    before = sorted(p.name for p in (out / "games").iterdir())
    result = invoke("--game", "fake", "--games", "1e6", "--seed", "6", "--players", "2",
                    "--out", str(out))
    assert_one_line_error(result, "--out", "different run", "seed 5 there vs 6 now")
    same = invoke("--game", "fake", "--games", "1e6", "--seed", "5", "--players", "2",
                  "--out", str(out))
    assert_one_line_error(same, "completed run", "new --out")
    assert sorted(p.name for p in (out / "games").iterdir()) == before


def test_unwritable_out_dir(tmp_path, monkeypatch):
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    assert_one_line_error(invoke("--game", "fake", "--out", str(blocker / "sub")),
                          "--out", "cannot create")

    def denied(self, *args, **kwargs):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", denied)
    assert_one_line_error(invoke("--game", "fake", "--out", str(tmp_path / "new")),
                          "--out", "Permission denied")


@pytest.mark.parametrize("args,needles", [
    (["--games", "1.5"], ["--games"]),
    (["--games", "0"], ["--games"]),
    (["--games", "lots"], ["--games"]),
    (["--games", "-5"], ["--games"]),
    (["--players", "9"], ["--players"]),
    (["--threads", "0"], ["--threads"]),
    (["--chunk-size", "1e-2"], ["--chunk-size"]),
    (["--seed", "x"], ["--seed"]),
    (["--game", "chess"], ["--game", "chess"]),
    (["--rule", "nonsense"], ["--rule"]),
    (["--team-a", "nobody"], ["--team-a"]),
    (["--cards", "/nonexistent/cards.csv"], ["--cards"]),
    (["--gmaes", "5"], ["--gmaes"]),
    (["--resume", "/nonexistent/run"], ["--resume"]),
    (["--resume", "x", "--games", "5"], ["--resume", "--games"]),
    (["--games", "5", "trace", "--game-index", "1"], ["--games", "trace"]),
    (["trace"], ["--game-index"]),
    (["trace", "--game-index", "-1"], ["--game-index"]),
])
def test_bad_values_are_one_line_errors(tmp_path, args, needles):
    base = ["--game", "fake", "--out", str(tmp_path / "r")] if args[0] != "trace" else []
    assert_one_line_error(invoke(*base, *args), *needles)
    assert not (tmp_path / "r").exists()


def test_trace_and_cards_subcommands():
    direct = fake_game.GAME.configure(players=3).trace(7, 42)
    result = invoke("trace", "--game", "fake", "--seed", "7", "--game-index", "42",
                    "--players", "3")
    assert result.exit_code == 0 and result.stdout == direct + "\n"
    inherited = invoke("--game", "fake", "--players", "3", "trace", "--seed", "7",
                       "--game-index", "42")
    assert inherited.stdout == result.stdout
    cards = invoke("cards", "--game", "fake")
    assert cards.exit_code == 0
    assert cards.stdout == fake_game.GAME.default_cards_path().read_text()


@pytest.mark.parametrize("args", [["--help"], ["trace", "--help"], ["cards", "--help"]])
def test_help_has_examples(args):
    result = invoke(*args)
    assert result.exit_code == 0 and "Example" in result.stdout
    assert "  simulate " in result.stdout  # verbatim example lines survive rewrapping


def test_help_does_not_import_heavy_modules():
    code = ("import sys, sim.cli; from click.testing import CliRunner; "
            "r = CliRunner().invoke(sim.cli.main, ['--help']); assert r.exit_code == 0; "
            "print(sorted(m for m in ('numba', 'polars', 'numpy', 'pyarrow', 'sim.core.game') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert out.stdout.strip() == "[]"


# --------------------------------------------------------------------------- subprocess
SUB_GAMES, SUB_CHUNK = 40_000, 2_000


def _simulate(*args, delay=0.0, **kwargs):
    env = {**os.environ, "PYTHONPATH": subprocess_pythonpath(),
           api.EXTRA_GAMES_ENV: "fake=fake_game", "FAKE_GAME_DELAY": str(delay)}
    return subprocess.Popen([sys.executable, "-m", "sim.cli", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)


@pytest.fixture(scope="module")
def uninterrupted():
    return fake_game.GAME.configure(players=4).run_chunk(3, 0, SUB_GAMES)


@pytest.mark.parametrize("signum,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_subprocess_interrupt_then_resume(tmp_path, uninterrupted, signum, code):
    out = tmp_path / "run"
    proc = _simulate("--game", "fake", "--games", str(SUB_GAMES), "--chunk-size", str(SUB_CHUNK),
                     "--seed", "3", "--out", str(out), "--json", delay=0.1)
    deadline = time.monotonic() + 60
    while len(list((out / "games").glob("part-*.parquet"))) < 3:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "run never produced 3 parts"
        time.sleep(0.02)
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == code, stderr
    assert stdout == ""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and f"simulate --resume {out}" in lines[0], stderr
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is False and manifest["status"] == "interrupted"
    kept = list((out / "games").iterdir())
    assert 3 <= len(kept) < SUB_GAMES // SUB_CHUNK
    assert all(p.name.startswith("part-") for p in kept)  # no temporaries left behind
    assert manifest["games_done"] == len(kept) * SUB_CHUNK

    resumed = _simulate("--resume", str(out), "--json")
    stdout, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    assert json.loads(stdout)["games"] == SUB_GAMES
    assert pl.read_parquet(f"{out}/games/*.parquet").equals(uninterrupted)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is True
    assert [s["status"] for s in manifest["sessions"]] == ["interrupted", "complete"]
    assert manifest["sessions"][1]["command_line"] == f"simulate --resume {out} --json"
    assert manifest["sessions"][1]["games_played"] == SUB_GAMES - len(kept) * SUB_CHUNK


def _peak_rss_kib(games: str, out: Path) -> int:
    code = ("import resource, sys, runpy; sys.argv = ['simulate'] + sys.argv[1:]\n"
            "try:\n    runpy.run_module('sim.cli', run_name='__main__')\n"
            "except SystemExit as e:\n    assert not e.code, e.code\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    env = {**os.environ, "PYTHONPATH": subprocess_pythonpath(),
           api.EXTRA_GAMES_ENV: "fake=fake_game"}
    done = subprocess.run([sys.executable, "-c", code, "--game", "fake", "--games", games,
                           "--out", str(out), "--no-progress"], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=True)
    return int(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_peak_memory_is_flat_in_games(tmp_path):
    small = _peak_rss_kib("1e5", tmp_path / "small")
    large = _peak_rss_kib("1e7", tmp_path / "large")
    # 1e7 rows of this table are ~190 MB in memory; one 100k chunk is ~2 MB.
    assert large - small < 60_000, (small, large)


def test_python_dash_m_sim_cli_knows_every_command():
    """`python -m sim.cli` (what the benchmarks run) registers every command before it
    starts: one defined after the `__main__` guard was missing there (skill)."""
    from sim.cli import main as cli_main

    done = subprocess.run([sys.executable, "-m", "sim.cli", "--help"], capture_output=True,
                          text=True, check=True, cwd=ROOT)
    for name in cli_main.commands:
        assert f"  {name} " in done.stdout or f"  {name}\n" in done.stdout, name
