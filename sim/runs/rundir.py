"""A run directory: ``manifest.json`` plus one Parquet part per chunk of games.

Layout::

    RUN_DIR/
      manifest.json                               what was run, with what, and how far it got
      games/part-{seed}-{start:012d}.parquet      one row per game, games start .. start+count-1
      curves/part-{seed}-{start:012d}.npy         the chunk's per-round sums (a game with
                                                  curves; sim.runs.curve_files), written
                                                  before its part
      curves.npz                                  the run's per-round sums (when complete)
      .lock                                       held (flock) while a process writes the run

Every file is written under a temporary name in its final directory and renamed into
place when complete, so a killed run never leaves a half-written part or manifest, and
re-running a chunk (resume, retry) is idempotent. A part's existence means "this chunk is
done"; the manifest is the human-readable record and is rewritten as chunks finish.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import subprocess
from pathlib import Path
from typing import Any, Iterator

from sim.core.errors import UserError
from sim.core.output import NO_SPACE_ERRNOS, OutOfSpace, os_error_of, write_failure

MANIFEST = "manifest.json"
GAMES_DIR = "games"
CURVES_DIR = "curves"
PART_TEMPLATE = "games/part-{seed}-{start:012d}.parquet"
FORMAT_VERSION = 1
DEFAULT_CHUNK_SIZE = 100_000
_MIN_DEFAULT_CHUNK = 10_000

# Manifest keys that decide what the games table contains. Two runs with equal values
# here (plus everything GameConfig.manifest() reported) produce identical tables.
IDENTITY_KEYS = ("game", "players", "games", "seed")


# ----------------------------------------------------------------------------- layout
def default_chunk_size(games: int) -> int:
    """100,000 games per chunk; smaller for small runs so the progress bar still moves
    (about 10 chunks, at least 10,000 games each, never more than ``games``)."""
    size = min(DEFAULT_CHUNK_SIZE, max(_MIN_DEFAULT_CHUNK, -(-games // 10)))
    return max(1, min(size, games))


def chunk_layout(games: int, chunk_size: int) -> list[tuple[int, int]]:
    """(start, count) of every chunk, in order."""
    return [(start, min(chunk_size, games - start)) for start in range(0, games, chunk_size)]


def part_relpath(seed: int, start: int) -> str:
    return PART_TEMPLATE.format(seed=seed, start=start)


# ----------------------------------------------------------------------------- helpers
def now_iso() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def git_commit() -> str | None:
    """HEAD of the git checkout holding the ``sim`` package, or None (not a checkout,
    no git, or any failure)."""
    root = Path(__file__).resolve().parents[2]  # sim/runs/rundir.py -> the checkout
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                             text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = out.stdout.strip()
    return commit if out.returncode == 0 and len(commit) >= 7 else None


def json_default(value: Any) -> Any:
    """Make numpy scalars/arrays, paths, tuples and sets JSON-able."""
    if hasattr(value, "tolist"):  # numpy scalar or array
        return value.tolist()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    raise TypeError(f"not JSON-serialisable: {type(value).__name__}")


def to_jsonable(value: Any) -> Any:
    """Round-trip through JSON so values compare equal to what a manifest file holds."""
    return json.loads(json.dumps(value, default=json_default))


def _tmp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.tmp-{os.getpid()}")


def _replace_durably(tmp: Path, path: Path) -> None:
    os.replace(tmp, path)
    try:  # make the rename itself durable; best effort (not every filesystem allows it)
        fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: Path, data: bytes) -> None:
    tmp = _tmp_name(path)
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        _replace_durably(tmp, path)
    except BaseException:
        _unlink_quietly(tmp)
        raise


def _unlink_quietly(path: Path) -> None:
    try:
        path.unlink()
    except OSError:
        pass


def _remove_empty(path: Path) -> None:
    try:
        path.rmdir()   # only when empty
    except OSError:
        pass


class OutputError(UserError):
    """Writing the run failed (disk full, permissions); finished parts are kept."""


class RunOutOfSpace(OutputError, OutOfSpace):
    """The disk filled up while writing the run; finished parts are kept."""


def output_error(exc: BaseException, run_dir: Path, action: str) -> OutputError:
    error = os_error_of(exc) or OSError(None, str(exc))
    if error.errno in NO_SPACE_ERRNOS:
        return RunOutOfSpace(f"no space left on device while {action}; finished chunks are "
                             f"kept, free some space and continue with: simulate --resume "
                             f"{run_dir}", file=str(run_dir), field="--out")
    reason = error.strerror or str(error)
    return OutputError(f"cannot write the run directory ({reason}) while {action}",
                       file=str(run_dir), field="--out")


def make_output_dir(path: Path) -> Path:
    """``mkdir -p`` for an ``--out`` directory; failing is one UserError naming it."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UserError(f"cannot create the output directory ({exc.strerror or exc})",
                        file=str(path), field="--out") from None
    return path


def stamped_path(name: str, parent: str | os.PathLike = "runs") -> Path:
    """A new directory name ``PARENT/NAME-YYYYmmdd-HHMMSS`` (``-2``, ``-3``... when it
    exists): the default ``--out`` of every command."""
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    base = Path(parent) / f"{name}-{stamp}"
    candidate, n = base, 1
    while candidate.exists():
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def pending_chunks(run: "RunDir", manifest: dict[str, Any]) -> tuple[list[tuple[int, int]], int]:
    """Chunks without a complete part on disk, and the number of games already done."""
    seed = manifest["seed"]
    layout = chunk_layout(manifest["games"], manifest["chunk_size"])
    todo = [(start, count) for start, count in layout if not run.part_done(seed, start, count)]
    done_games = manifest["games"] - sum(count for _, count in todo)
    return todo, done_games



# ----------------------------------------------------------------------------- run dir
class RunDir:
    """One run directory on disk. Create with ``RunDir.create`` or ``RunDir.open``."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock_fd: int | None = None

    # -- construction
    @classmethod
    def create(cls, path: str | os.PathLike, manifest: dict[str, Any]) -> "RunDir":
        """Make ``path`` a new run directory for ``manifest`` (not yet written to disk
        beyond the manifest). Refuses a directory holding another run, the same run
        (complete or not), or unrelated files."""
        path = Path(path)
        if path.exists() and not path.is_dir():
            raise UserError("exists and is not a directory; choose another --out",
                            file=str(path), field="--out")
        made = not path.exists()
        make_output_dir(path)
        run = cls(path)
        try:
            run._lock()
        except UserError:
            if made:
                _remove_empty(path)
            raise
        try:
            existing = run.read_manifest() if (path / MANIFEST).exists() else None
            if existing is not None:
                diff = identity_diff(existing, manifest)
                if diff:
                    raise UserError(f"already holds a different run ({diff}); choose a new --out",
                                    file=str(path), field="--out")
                if existing.get("complete"):
                    raise UserError("already holds this completed run; choose a new --out "
                                    "(runs are never overwritten)", file=str(path), field="--out")
                raise UserError(f"already holds an unfinished run of this configuration; continue "
                                f"it with: simulate --resume {path}", file=str(path), field="--out")
            leftovers = [p.name for p in path.iterdir() if p.name != ".lock"]
            if leftovers:
                _unlink_quietly(path / ".lock")
                raise UserError(f"is not empty and holds no run ({', '.join(sorted(leftovers)[:3])}"
                                f"{', ...' if len(leftovers) > 3 else ''}); choose a new --out",
                                file=str(path), field="--out")
            try:
                (path / GAMES_DIR).mkdir(exist_ok=True)
                run.write_manifest(manifest)
            except OSError as exc:
                # Nothing was played: leave the directory as it was, so the same command
                # runs again once there is space (there is no run to --resume).
                _remove_empty(path / GAMES_DIR)
                _unlink_quietly(path / ".lock")
                if made:
                    _remove_empty(path)
                raise write_failure(exc, "the run's manifest", path,
                                    "nothing was played; free some space and run the same "
                                    "command again") from None
        except BaseException:
            run.close()
            raise
        return run

    @classmethod
    def open(cls, path: str | os.PathLike) -> "RunDir":
        """An existing run directory, locked for writing (for resume)."""
        path = Path(path)
        if not (path / MANIFEST).is_file():
            raise UserError("is not a run directory (no manifest.json)", file=str(path),
                            field="--resume")
        run = cls(path)
        run._lock()
        try:
            (path / GAMES_DIR).mkdir(exist_ok=True)
            run.remove_temporaries()
        except OSError as exc:
            run.close()
            raise output_error(exc, path, "opening the run") from None
        return run

    def _lock(self) -> None:
        import fcntl

        try:
            fd = os.open(self.path / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise write_failure(exc, "the output directory's lock file", self.path,
                                "free some space and run the same command again") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            raise UserError("is in use by another simulate process", file=str(self.path),
                            field="--out") from None
        self._lock_fd = fd

    def close(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the flock
            self._lock_fd = None

    def __enter__(self) -> "RunDir":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- manifest
    @property
    def manifest_path(self) -> Path:
        return self.path / MANIFEST

    def read_manifest(self) -> dict[str, Any]:
        try:
            with open(self.manifest_path, encoding="utf-8") as handle:
                data = json.load(handle)
        except json.JSONDecodeError as exc:
            raise UserError(f"manifest is not valid JSON ({exc.msg})", file=str(self.manifest_path),
                            line=exc.lineno) from None
        except OSError as exc:
            raise UserError(f"cannot read the manifest ({exc.strerror or exc})",
                            file=str(self.manifest_path)) from None
        if not isinstance(data, dict) or "format" not in data:
            raise UserError("is not a simulate run manifest", file=str(self.manifest_path))
        return data

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        atomic_write_text(self.manifest_path,
                          json.dumps(manifest, indent=2, default=json_default) + "\n")

    # -- parts
    def part_path(self, seed: int, start: int) -> Path:
        return self.path / part_relpath(seed, start)

    def write_part(self, seed: int, start: int, table) -> Path:
        """Write one chunk's polars DataFrame atomically; returns the final path."""
        path = self.part_path(seed, start)
        tmp = _tmp_name(path)
        try:
            table.write_parquet(tmp)
            with open(tmp, "rb") as handle:
                os.fsync(handle.fileno())
            _replace_durably(tmp, path)
        except BaseException as exc:
            _unlink_quietly(tmp)
            failed = os_error_of(exc) if isinstance(exc, Exception) else None
            if failed is not None and failed is not exc:
                raise failed from None   # polars' ComputeError: an OSError like the others
            raise
        return path

    def part_done(self, seed: int, start: int, count: int) -> bool:
        """True if the chunk's part exists and holds ``count`` rows (read from the footer)."""
        path = self.part_path(seed, start)
        if not path.is_file():
            return False
        try:
            import pyarrow.parquet as pq

            return pq.ParquetFile(path).metadata.num_rows == count
        except Exception:  # unreadable part: play the chunk again
            return False

    def remove_temporaries(self) -> None:
        for directory in (self.path, self.path / GAMES_DIR, self.path / CURVES_DIR):
            for tmp in directory.glob(".*.tmp-*"):
                _unlink_quietly(tmp)

    def parts(self) -> Iterator[Path]:
        return iter(sorted((self.path / GAMES_DIR).glob("part-*.parquet")))

    @property
    def games_glob(self) -> str:
        return str(self.path / GAMES_DIR / "*.parquet")


def identity(manifest: dict[str, Any]) -> dict[str, Any]:
    """The part of a manifest that decides the results: core keys plus the game's own."""
    keys = list(IDENTITY_KEYS) + list(manifest.get("game_manifest_keys", ()))
    return to_jsonable({key: manifest.get(key) for key in keys})


def identity_diff(old: dict[str, Any], new: dict[str, Any]) -> str:
    """'' if both manifests describe the same run, else a short list of what differs. A key
    only the new one has (the game's manifest gained one since the run started) is not
    compared; one the new manifest lacks is."""
    a, b = identity(old), identity(new)
    differing = [key for key in sorted(set(a) | set(b))
                 if key in a and a.get(key) != b.get(key)]
    parts = []
    for key in differing[:4]:
        va, vb = a.get(key), b.get(key)
        if isinstance(va, (dict, list)) or isinstance(vb, (dict, list)):
            parts.append(f"{key} differs")
        else:
            parts.append(f"{key} {va} there vs {vb} now")
    return "; ".join(parts)
