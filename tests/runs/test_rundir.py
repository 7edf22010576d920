"""Run directory: chunk layout, atomic parts/manifest, refusing foreign or finished runs,
locking, and keeping finished parts when the disk fills up."""
from __future__ import annotations

import errno
import json

import numpy as np
import polars as pl
import pytest

import fake_game
from sim import api
from sim.runs import rundir
from sim.core.errors import UserError


pytestmark = pytest.mark.usefixtures("fake_game_registered")


@pytest.mark.parametrize("games,chunk", [(1, 1), (10, 3), (100_000, 100_000), (250_001, 100_000),
                                         (7, 100)])
def test_chunk_layout_covers_every_game_once(games, chunk):
    layout = rundir.chunk_layout(games, chunk)
    covered = np.concatenate([np.arange(s, s + c) for s, c in layout])
    assert np.array_equal(covered, np.arange(games))
    assert all(1 <= c <= chunk for _, c in layout)


@pytest.mark.parametrize("games,expected", [(1, 1), (1000, 1000), (50_000, 10_000),
                                            (100_000, 10_000), (500_000, 50_000),
                                            (1_000_000, 100_000), (10**7, 100_000)])
def test_default_chunk_size(games, expected):
    assert rundir.default_chunk_size(games) == expected


def test_part_name_sorts_in_game_order():
    names = [rundir.part_relpath(3, s) for s in (0, 9, 10, 100_000, 2_000_000)]
    assert names == sorted(names)
    assert names[0] == "games/part-3-000000000000.parquet"


def _manifest(**over):
    base = {"format": 1, "game": "fake", "players": 4, "games": 10, "seed": 1,
            "complete": False, "rules": {"bonus": 0}, "game_manifest_keys": ["rules"]}
    base.update(over)
    return base


def test_identity_diff_names_what_differs():
    assert rundir.identity_diff(_manifest(), _manifest(chunk_size=5, wall_seconds=3)) == ""
    assert "seed 1 there vs 2 now" in rundir.identity_diff(_manifest(), _manifest(seed=2))
    assert "rules differs" in rundir.identity_diff(_manifest(), _manifest(rules={"bonus": 1}))


def test_part_write_is_atomic(tmp_path):
    run = rundir.RunDir.create(tmp_path / "run", _manifest())
    table = pl.DataFrame({"game_index": np.arange(5)})

    class Exploding:
        def write_parquet(self, path):
            with open(path, "wb") as handle:
                handle.write(b"PAR1 half a file")
            raise OSError(errno.EIO, "I/O error")

    with pytest.raises(OSError):
        run.write_part(1, 0, Exploding())
    assert list((tmp_path / "run" / "games").iterdir()) == []  # no part, no temporary
    path = run.write_part(1, 0, table)
    assert path.name == "part-1-000000000000.parquet"
    assert pl.read_parquet(path).equals(table)
    assert run.part_done(1, 0, 5) and not run.part_done(1, 0, 6)
    run.close()


def test_create_refuses_foreign_files_and_regular_files(tmp_path):
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(UserError, match="not empty"):
        rundir.RunDir.create(tmp_path / "busy", _manifest())
    assert sorted(p.name for p in (tmp_path / "busy").iterdir()) == ["notes.txt"]
    (tmp_path / "file").write_text("x")
    with pytest.raises(UserError, match="not a directory"):
        rundir.RunDir.create(tmp_path / "file", _manifest())


def test_run_dir_is_locked_while_in_use(tmp_path):
    first = rundir.RunDir.create(tmp_path / "run", _manifest())
    with pytest.raises(UserError, match="in use"):
        rundir.RunDir.open(tmp_path / "run")
    first.close()
    rundir.RunDir.open(tmp_path / "run").close()


def test_manifest_errors_are_one_line_user_errors(tmp_path):
    (tmp_path / "manifest.json").write_text('{"format": 1,\n "game": }')
    with pytest.raises(UserError) as info:
        rundir.RunDir.open(tmp_path).read_manifest()
    assert "manifest.json:2" in str(info.value) and "\n" not in str(info.value)


def test_out_of_space_keeps_finished_parts_then_resume_completes(tmp_path, monkeypatch):
    real_write = rundir.RunDir.write_part
    calls = {"n": 0}

    def fill_disk_on_third(self, seed, start, table):
        calls["n"] += 1
        if calls["n"] == 3:
            path = self.part_path(seed, start)
            (path.parent / f".{path.name}.tmp-1").write_bytes(b"partial")
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(self, seed, start, table)

    monkeypatch.setattr(rundir.RunDir, "write_part", fill_disk_on_third)
    out = tmp_path / "run"
    with pytest.raises(UserError) as info:
        api.run(game="fake", games=5000, chunk_size=1000, out=out, progress=False)
    message = str(info.value)
    assert "no space left" in message and f"--resume {out}" in message and "\n" not in message
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is False and manifest["status"] == "out-of-space"
    assert manifest["games_done"] == 2000
    assert sorted(p.name for p in (out / "games").iterdir()) == [
        "part-1-000000000000.parquet", "part-1-000000001000.parquet"]

    monkeypatch.setattr(rundir.RunDir, "write_part", real_write)
    fake_game.CALLS.clear()
    result = api.resume(out, progress=False)
    assert [start for _, start, _ in fake_game.CALLS] == [2000, 3000, 4000]
    assert result.manifest["complete"] is True
    expected = fake_game.GAME.configure(players=4).run_chunk(1, 0, 5000)
    assert pl.read_parquet(f"{out}/games/*.parquet").equals(expected)
    assert [s["status"] for s in result.manifest["sessions"]] == ["out-of-space", "complete"]


def test_a_key_the_game_adds_later_does_not_block_an_older_runs_resume():
    """A run started before its game's manifest gained a key (strategy_weights_sha256)
    still resumes; a key the new manifest lacks, or a changed one, is still refused."""
    from sim.runs.rundir import identity_diff

    old = {"game_manifest_keys": ["rules"], "rules": {"hand_size": 4}}
    new = {"game_manifest_keys": ["rules", "strategy_weights_sha256"],
           "rules": {"hand_size": 4}, "strategy_weights_sha256": "ab12"}
    assert identity_diff(old, new) == ""
    assert identity_diff(old, {**new, "rules": {"hand_size": 5}}) == "rules differs"
    assert identity_diff(old, {"game_manifest_keys": ["strategy_weights_sha256"],
                               "strategy_weights_sha256": "ab12"}) == "rules differs"
    assert identity_diff(new, {**new, "strategy_weights_sha256": "cd34"}) != ""
