"""Play a run's missing chunks in order, one Parquet part per chunk, with a progress bar,
clean SIGINT/SIGTERM handling and an up-to-date manifest.

Only one chunk's rows are in memory at a time, so peak memory is flat in ``games``.
"""
from __future__ import annotations

import contextlib
import os
import time
from typing import Any

from sim.core.progress import bar_context, progress_bar
# OutputFailed: writing a part or the manifest raised OSError (kept apart from errors in
# game code); defined with the backends, which raise it from any process.
from sim.runs.backends import OutputFailed
# RunInterrupted is raised here; it lives with the other ways a command stops.
from sim.runs.resumable import RunInterrupted, SignalGuard, StopSignal  # noqa: F401
from sim.runs.rundir import (NO_SPACE_ERRNOS, RunDir, chunk_layout, now_iso, output_error,
                             pending_chunks)

MANIFEST_EVERY_SECONDS = 1.0  # rewrite the manifest at most this often while running


def _source_hash() -> str:
    import sim

    return sim.source_hash()


def _config_request(manifest: dict[str, Any], backend: Any):
    """The picklable request a worker rebuilds the configuration from (in-process backends
    use the caller's config object, so a game missing from the registry is fine there)."""
    from sim.runs.backends import ConfigRequest

    if backend.in_process:
        return ConfigRequest(manifest["game"], int(manifest["players"]))
    return ConfigRequest.from_manifest(manifest)


def run_chunks(config: Any, run: RunDir, manifest: dict[str, Any], *, threads: int,
               progress: bool = True, command_line: str | None = None,
               backend: Any = None, on_chunk: Any = None) -> dict[str, Any]:
    """Play every chunk that has no part yet; returns the final (complete) manifest.

    ``backend`` (sim.runs.backends) plays the chunks: by default in this process, one after
    another; a Dask backend plays them on a cluster, in any order, from the manifest's
    ``request`` (``config`` is then used only on this side). ``on_chunk(result)`` is called
    with each finished chunk's ChunkResult (count, aggregates on Dask), e.g. for progress.

    Raises ``RunInterrupted`` on SIGINT/SIGTERM and ``OutputError`` (a UserError) when the
    disk is full or unwritable; in both cases finished parts are kept and the manifest on
    disk says ``complete: false``.
    """
    seed, games = manifest["seed"], manifest["games"]
    todo, done_games = pending_chunks(run, manifest)
    chunks_total = len(chunk_layout(games, manifest["chunk_size"]))
    base_wall = float(manifest.get("wall_seconds") or 0.0)
    session = {"started": now_iso(), "finished": None, "command_line": command_line,
               "pid": os.getpid(), "threads": threads, "games_played": 0, "wall_seconds": 0.0,
               "source_hash": _source_hash(), "status": "running"}
    if backend is None:
        from sim.runs.backends import LocalBackend

        backend = LocalBackend()
    if backend.name != "local":
        session["backend"] = backend.describe()
    manifest.setdefault("sessions", []).append(session)
    t0 = time.perf_counter()

    def sync(status: str, *, strict: bool) -> None:
        nonlocal done_games
        elapsed = time.perf_counter() - t0
        manifest["wall_seconds"] = round(base_wall + elapsed, 6)
        if status == "running":
            manifest["chunks_done"] = chunks_total - len(todo) + played_chunks
        else:  # a part may have landed just before a signal: count what is on disk
            remaining, done_games = pending_chunks(run, manifest)
            manifest["chunks_done"] = chunks_total - len(remaining)
        manifest["games_done"] = done_games
        manifest["status"] = status
        manifest["complete"] = status == "complete"
        session.update(games_played=played_games, wall_seconds=round(elapsed, 6), status=status)
        if status != "running":
            session["finished"] = now_iso()
            if status == "complete":
                manifest["finished"] = session["finished"]
        try:
            run.write_manifest(manifest)
        except OSError as exc:
            if strict:
                raise OutputFailed(exc) from exc

    played_chunks = played_games = 0
    last_sync = time.perf_counter()
    label = f"{manifest['game']} {manifest['players']}p seed {seed}"
    bar = progress_bar(progress, games, label, done=done_games)
    with SignalGuard() as guard, bar_context(bar) as bar:
        try:
            sync("running", strict=True)
            results = backend.map_chunks(
                _config_request(manifest, backend), [(seed, start, count) for start, count in todo],
                run_dir=run.path, threads=threads, run_token=manifest.get("started"),
                config=config, aggregate=not backend.in_process)
            with contextlib.closing(results):  # closing early cancels what is still queued
                for result in results:
                    count = result.count
                    played_chunks += 1
                    played_games += count
                    done_games += count
                    if bar is not None:
                        bar.update(count)
                    if on_chunk is not None:
                        on_chunk(result)
                    guard.check()
                    if time.perf_counter() - last_sync >= MANIFEST_EVERY_SECONDS:
                        sync("running", strict=True)
                        last_sync = time.perf_counter()
            if not backend.in_process:
                session["backend"] = backend.describe()
                run.remove_temporaries()  # left by workers killed mid-write (retried since)
            sync("complete", strict=True)
        except StopSignal as stop:
            run.remove_temporaries()
            sync("interrupted", strict=False)
            raise RunInterrupted(stop.signum, str(run.path), done_games, games) from None
        except OutputFailed as failed:
            run.remove_temporaries()
            status = "out-of-space" if failed.error.errno in NO_SPACE_ERRNOS else "failed"
            sync(status, strict=False)
            raise output_error(failed.error, run.path, "writing the games") from None
        except BaseException:
            run.remove_temporaries()
            sync("failed", strict=False)
            raise
    return manifest
