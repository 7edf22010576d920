"""The Python API: count parsing, chunking independence, resume, interruption, summaries."""
from __future__ import annotations

import json
import os
import re
import signal
import shutil

import numpy as np
import polars as pl
import pytest

import fake_game
from sim import api
from sim.runs import runner, setup
from sim.core.errors import UserError

GAMES = 20_000


pytestmark = pytest.mark.usefixtures("fake_game_registered")


@pytest.fixture(scope="module")
def reference():
    return fake_game.GAME.configure(players=4).run_chunk(1, 0, GAMES)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    return {size: api.run(game="fake", games=GAMES, seed=1, chunk_size=size, out=base / str(size),
                          progress=False)
            for size in (1000, 7777)}


@pytest.mark.parametrize("text,value", [("1e6", 10**6), ("1_000_000", 10**6), ("1000000", 10**6),
                                        ("2.5e3", 2500), ("1E3", 1000), (" 42 ", 42), (7, 7),
                                        (1e6, 10**6)])
def test_parse_count_accepts(text, value):
    assert api.parse_count(text) == value


@pytest.mark.parametrize("text", ["0", "-1", "1.5", "1e-3", "abc", "", "1__000", "_1", "1e",
                                  "inf", "nan", "0x10", "1e13", True, 2.5, "1,000"])
def test_parse_count_rejects(text):
    with pytest.raises(UserError) as info:
        api.parse_count(text)
    assert "field '--games'" in str(info.value) and "\n" not in str(info.value)


def test_chunking_does_not_change_the_table(runs, reference):
    small = pl.read_parquet(f"{runs[1000].run_dir}/games/*.parquet")
    odd = pl.read_parquet(f"{runs[7777].run_dir}/games/*.parquet")
    assert small.equals(odd)
    assert small.equals(reference)  # also in game_index order straight from the glob
    assert len(list((runs[7777].run_dir / "games").glob("*.parquet"))) == 3


def test_summary_comes_from_the_whole_table(runs, reference):
    summary = runs[7777].summary
    assert summary == runs[1000].summary
    assert summary["draw_rate"] == pytest.approx((reference["winner"] == 2).mean())
    assert summary["teams"]["A"]["win_rate"] == pytest.approx((reference["winner"] == 0).mean())
    on_disk = json.loads((runs[7777].run_dir / "summary.json").read_text())
    assert on_disk == summary


def test_manifest_records_the_run(runs):
    m = runs[7777].manifest
    assert (m["game"], m["players"], m["games"], m["seed"], m["chunk_size"]) == \
        ("fake", 4, GAMES, 1, 7777)
    assert m["chunks"] == {"count": 3, "size": 7777, "last_count": GAMES - 2 * 7777,
                           "part_template": "games/part-{seed}-{start:012d}.parquet"}
    assert m["complete"] is True and m["status"] == "complete"
    assert m["games_done"] == GAMES and m["chunks_done"] == 3
    assert m["cards"]["names"] == ["Router", "Switch", "Firewall", "Packet"]
    assert re.fullmatch(r"[0-9a-f]{64}", m["cards"]["sha256"])
    assert m["seat_teams"] == ["A", "B", "A", "B"]
    assert m["wall_seconds"] > 0 and m["finished"] >= m["started"]
    assert m["git_commit"] is None or re.fullmatch(r"[0-9a-f]{40}", m["git_commit"])
    assert json.loads((runs[7777].run_dir / "manifest.json").read_text()) == m


def test_resume_plays_only_missing_chunks(runs, reference, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(runs[1000].run_dir, out)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["complete"], manifest["status"] = False, "interrupted"
    (out / "manifest.json").write_text(json.dumps(manifest))
    for start in (3000, 19000):
        (out / "games" / f"part-1-{start:012d}.parquet").unlink()
    (out / "games" / ".part-1-000000004000.parquet.tmp-99").write_bytes(b"junk")
    fake_game.CALLS.clear()
    result = api.resume(out, progress=False)
    assert fake_game.CALLS == [(1, 3000, 1000), (1, 19000, 1000)]
    assert pl.read_parquet(f"{out}/games/*.parquet").equals(reference)
    assert result.manifest["complete"] is True
    assert result.summary == runs[1000].summary
    assert not list((out / "games").glob(".*"))


def test_resume_refuses_changed_inputs(tmp_path):
    cards = tmp_path / "cards.csv"
    shutil.copy(fake_game.GAME.default_cards_path(), cards)
    out = tmp_path / "run"
    api.run(game="fake", games=3000, chunk_size=1000, cards=str(cards), out=out, progress=False)
    (out / "games" / "part-1-000000001000.parquet").unlink()
    cards.write_text(cards.read_text() + "5,Modem,2\n")
    with pytest.raises(UserError, match="inputs changed.*cards differs"):
        api.resume(out, progress=False)


def test_same_inputs_from_rules_file_and_overrides_are_rebuilt_on_resume(tmp_path):
    rules = tmp_path / "rules.yaml"
    rules.write_text("bonus: 2\n")
    out = tmp_path / "run"
    first = api.run(game="fake", games=3000, chunk_size=1000, rules_file=str(rules),
                    rule_overrides=("bonus=5",), strategies={"A": "greedy:bias=0.5"},
                    players=2, seed=9, out=out, progress=False)
    table = pl.read_parquet(f"{out}/games/*.parquet")
    assert table["rounds"].min() >= 8 + 5
    (out / "games" / "part-9-000000002000.parquet").unlink()
    api.resume(out, progress=False)
    assert pl.read_parquet(f"{out}/games/*.parquet").equals(table)
    assert first.manifest["strategies"]["A"] == {"name": "greedy", "params": {"bias": 0.5}}


class _SignalOnThirdChunk:
    """Wraps a config; sends a signal to this process while playing the third chunk."""

    def __init__(self, config, signum):
        self.config, self.signum, self.calls = config, signum, 0

    def __getattr__(self, name):
        return getattr(self.config, name)

    def send_signal(self):
        os.kill(os.getpid(), self.signum)

    def run_chunk(self, seed, start, count, threads=1, **curves):
        self.calls += 1
        if self.calls == 3:
            self.send_signal()
        return self.config.run_chunk(seed, start, count, threads, **curves)


class _SignalInsideFinalizer(_SignalOnThirdChunk):
    """The signal arrives while Python runs a finalizer (a Dask future's ``__del__`` does
    this), where an exception raised by the handler is printed and dropped."""

    def send_signal(self):
        class Finalized:
            def __del__(inner):
                os.kill(os.getpid(), self.signum)
        Finalized()


@pytest.mark.parametrize("signum,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_stops_the_run_and_keeps_finished_chunks(tmp_path, monkeypatch, reference,
                                                        signum, code):
    real_configure = setup.configure_request
    monkeypatch.setattr(setup, "configure_request", lambda *a: _SignalOnThirdChunk(real_configure(*a),
                                                                          signum))
    before = signal.getsignal(signum)
    out = tmp_path / "run"
    with pytest.raises(runner.RunInterrupted) as info:
        api.run(game="fake", games=5000, chunk_size=1000, out=out, progress=False)
    assert info.value.exit_code == code
    assert f"simulate --resume {out}" in str(info.value)
    assert signal.getsignal(signum) is before  # handlers restored
    names = sorted(p.name for p in (out / "games").iterdir())
    assert names == ["part-1-000000000000.parquet", "part-1-000000001000.parquet"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert (manifest["complete"], manifest["status"], manifest["games_done"]) == \
        (False, "interrupted", 2000)
    monkeypatch.setattr(setup, "configure_request", real_configure)
    api.resume(out, progress=False)
    assert pl.read_parquet(f"{out}/games/*.parquet").equals(reference.head(5000))


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_signal_whose_stop_was_swallowed_still_stops_the_run(tmp_path, monkeypatch):
    real_configure = setup.configure_request
    monkeypatch.setattr(setup, "configure_request",
                        lambda *a: _SignalInsideFinalizer(real_configure(*a), signal.SIGTERM))
    out = tmp_path / "run"
    with pytest.raises(runner.RunInterrupted) as info:
        api.run(game="fake", games=5000, chunk_size=1000, out=out, progress=False)
    assert info.value.exit_code == 143
    manifest = json.loads((out / "manifest.json").read_text())
    assert (manifest["status"], manifest["games_done"]) == ("interrupted", 3000)
    assert len(list((out / "games").iterdir())) == 3


def test_bad_game_output_is_caught_before_writing(tmp_path, monkeypatch):
    real_configure = setup.configure_request

    class Short:
        def __init__(self, config):
            self.config = config

        def __getattr__(self, name):
            return getattr(self.config, name)

        def run_chunk(self, seed, start, count, threads=1, **curves):
            return self.config.run_chunk(seed, start + 1, count, threads, **curves)

    monkeypatch.setattr(setup, "configure_request", lambda *a: Short(real_configure(*a)))
    with pytest.raises(RuntimeError, match="game_index 1..1000"):
        api.run(game="fake", games=2000, chunk_size=1000, out=tmp_path / "r", progress=False)
    assert not list((tmp_path / "r" / "games").iterdir())
    assert json.loads((tmp_path / "r" / "manifest.json").read_text())["status"] == "failed"


def test_default_out_dir_and_players(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = api.run(game="fake", games=10, seed=3, progress=False)
    assert re.fullmatch(r"runs/fake-4p-seed3-\d{8}-\d{6}", str(result.run_dir))
    assert result.manifest["players"] == 4 and result.manifest["chunk_size"] == 10
    again = api.run(game="fake", games=10, seed=3, progress=False)  # same second: new dir
    assert again.run_dir != result.run_dir


@pytest.mark.parametrize("kwargs,field", [({"players": 5}, "--players"),
                                          ({"threads": 0}, "--threads"),
                                          ({"chunk_size": "-4"}, "--chunk-size"),
                                          ({"seed": -1}, "--seed"),
                                          ({"game": "nope"}, "--game")])
def test_bad_arguments_are_user_errors(tmp_path, kwargs, field):
    with pytest.raises(UserError, match=f"field '{field}'"):
        api.run(**{"game": "fake", "games": 10, "out": tmp_path / "r", "progress": False,
                   **kwargs})
    assert not (tmp_path / "r").exists()


def test_extra_games_env_is_validated(monkeypatch):
    monkeypatch.setenv(api.EXTRA_GAMES_ENV, "broken")
    with pytest.raises(UserError, match=api.EXTRA_GAMES_ENV):
        api.resolve_game("fake")
    monkeypatch.setenv(api.EXTRA_GAMES_ENV, "peer-to-peer=fake_game,fake=fake_game")
    assert api.game_modules()["peer-to-peer"] == "sim.games.peer_to_peer.game"  # no shadowing
    assert api.resolve_game("fake") is fake_game.GAME


def test_games_as_pandas_from_the_api_and_the_run_result(tmp_path, reference):
    """pandas for notebooks: RunResult.to_pandas() and api.load_games(as_pandas=True) give
    one row per game in game order, equal to the table the game plays; the default stays a
    polars LazyFrame."""
    import pandas as pd

    result = api.run(game="fake", games=5000, chunk_size=700, out=tmp_path / "r", progress=False)
    frame = result.to_pandas()
    assert isinstance(frame, pd.DataFrame)
    pd.testing.assert_frame_equal(frame, reference.head(5000).to_pandas())
    pd.testing.assert_frame_equal(api.load_games(result.run_dir, as_pandas=True), frame)
    lazy = api.load_games(result.run_dir)
    assert isinstance(lazy, pl.LazyFrame) and lazy.collect().height == 5000
    assert result.games().collect().height == 5000
    with pytest.raises(UserError, match="holds no games"):
        api.load_games(tmp_path)
