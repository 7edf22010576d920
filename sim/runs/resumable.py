"""Long commands that keep their finished work when stopped and continue with --resume.

A long command (``tune``, ``skill``, ``ablate``, ``autobalance``, an experiment sweep, a
report's replays) is a cheap, deterministic driver around expensive, deterministic steps:
a generation's games, a pairing, a candidate card set, a sub-run. Two pieces make any such
command resumable:

``Journal``: every finished step's answer, one JSON line each, appended (and synced) to
one small file in the command's output (``resume.jsonl`` in an output directory,
``NAME.resume.jsonl`` beside an output file). The first line records the command and the
settings that decide its result. On ``--resume`` the driver runs again from the start and
each step it already finished answers from the journal at once, so the command continues
where it stopped and ends with exactly the result of an uninterrupted run: the same code
runs on the same numbers (for ``tune``: CMA-ES asks, is told the recorded scores, and asks
again, with its random generator in step). A step's key is a hash of what it is asked
(its inputs), so a driver that asks something new plays it instead of reading a wrong
answer. Steps that write their own files (sub-runs, chunk parts) need no entry: a
finished part is its own record (``sim.runs.rundir``).

``stoppable``: SIGINT and SIGTERM stop the command at the next Python instruction (after a
running kernel returns), and a full disk stops it too; either way it raises ``Stopped``
naming the output that holds the finished work. The CLI prints one line with the exact
command to continue (``Stopped.message``).

Using it in a new command (as a report's counterfactual replays do, sim.api.report)::

    with stoppable("card study", out_dir):
        journal = Journal.open(out_dir / JOURNAL_NAME, settings, what="card study",
                               resume=resume)
        for card in cards:
            effect = journal.step(("replay", card, games), lambda: replay(card))
        journal.close()
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import math
import os
import signal
import threading
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping

from sim.core.errors import UserError
from sim.core.output import OutOfSpace, is_no_space, os_error_of, write_failure

JOURNAL_NAME = "resume.jsonl"          # in an output directory
JOURNAL_SUFFIX = ".resume.jsonl"       # beside an output file: NAME.resume.jsonl
JOURNAL_FORMAT = 1
SIGNAL_NAMES = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}


def journal_beside(out: str | os.PathLike) -> Path:
    """The journal of a command whose output is one file: ``expert.yaml`` ->
    ``expert.resume.jsonl``."""
    path = Path(out)
    return path.with_name(path.stem + JOURNAL_SUFFIX)


# ----------------------------------------------------------------------------- stopping
class StopSignal(BaseException):
    """Raised from the signal handler; a BaseException so game code's ``except Exception``
    cannot swallow it."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class SignalGuard:
    """While active, the first SIGINT/SIGTERM raises ``StopSignal`` in the main thread at
    the next Python bytecode (after a running numba kernel returns); later ones are ignored
    so the cleanup that follows cannot be cut short. Outside the main thread it does
    nothing. Guards nest: an inner one restores the outer one's handler when it ends.

    A handler that runs inside a finalizer (``__del__``, as a Dask future's) cannot stop
    anything: Python prints its exception and drops it. The signal stays recorded, and a
    loop that calls ``check()`` between its steps stops there instead."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: Any) -> None:
        if self.signum is None:
            self.signum = signum
            raise StopSignal(signum)

    def check(self) -> None:
        """Raise ``StopSignal`` if a signal arrived; reached only when its own raise was
        dropped, since otherwise the loop calling this has already been left."""
        if self.signum is not None:
            raise StopSignal(self.signum)

    def __enter__(self) -> "SignalGuard":
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        for sig, previous in self._previous.items():
            signal.signal(sig, previous)
        self._previous.clear()


class RunInterrupted(Exception):
    """SIGINT/SIGTERM stopped a run. Every finished chunk is on disk and the manifest says
    the run is incomplete. ``exit_code`` is 128 + signal number (130 / 143)."""

    def __init__(self, signum: int, run_dir: str, games_done: int, games_total: int):
        self.signum = signum
        self.exit_code = 128 + int(signum)
        self.run_dir = run_dir
        self.games_done = games_done
        self.games_total = games_total
        name = SIGNAL_NAMES.get(signum, f"signal {signum}")
        super().__init__(f"interrupted by {name} after {games_done:,} of {games_total:,} games; "
                         f"finished chunks are kept; continue with: simulate --resume {run_dir}")


class Stopped(Exception):
    """A long command stopped before its end; its finished work is kept in ``out``.
    ``message(command)`` is the one line the CLI prints, ``command`` being what to type
    to continue: the same command line with ``--resume`` (plus ``--out OUT_OPTION`` when
    the command chose its output itself). ``continue_with``, when a command sets it, is
    that command instead (a run's --report is continued by 'simulate report')."""

    exit_code = 1
    continue_with: str | None = None

    def __init__(self, what: str, out: str | os.PathLike, reason: str,
                 out_option: str | os.PathLike | None = None):
        self.what, self.out, self.reason = what, Path(out), reason
        self.out_option = out_option
        super().__init__(self.message(None))

    def message(self, command: str | None) -> str:
        how = command or "the same command with --resume (API: resume=True)"
        return f"{self.what} {self.reason}; finished work is kept in {self.out}; continue with: {how}"


class Interrupted(Stopped):
    """SIGINT/SIGTERM: exit code 128 + the signal's number (130 / 143)."""

    def __init__(self, what: str, out: str | os.PathLike, signum: int,
                 out_option: str | os.PathLike | None = None):
        self.signum = int(signum)
        self.exit_code = 128 + self.signum
        super().__init__(what, out, f"interrupted by {SIGNAL_NAMES.get(signum, signum)}",
                         out_option)


class StoppedOutOfSpace(Stopped):
    """The disk filled up: exit code 2, as for every user-side problem."""

    exit_code = 2

    def __init__(self, what: str, out: str | os.PathLike, file: str | None = None,
                 out_option: str | os.PathLike | None = None):
        where = f" (writing {file})" if file else ""
        super().__init__(what, out, f"stopped: no space left on device{where}", out_option)

    def message(self, command: str | None) -> str:
        how = command or "the same command with --resume (API: resume=True)"
        return (f"error: {self.what} {self.reason}; finished work is kept in {self.out}; free "
                f"some space and continue with: {how}")


class ResumeRequired(UserError):
    """The output already holds an unfinished run of this command: continue it with
    ``--resume``. ``with_command(command)`` is the line with the exact command."""

    def __init__(self, message: str, out: str | os.PathLike):
        self.out, self.text = Path(out), message
        super().__init__(self._words(None), file=str(out), field="--out")

    def _words(self, command: str | None) -> str:
        return (f"{self.text}; choose a new --out, or continue it with: "
                f"{command or 'the same command and --resume'}")

    def with_command(self, command: str) -> str:
        return UserError(self._words(command), file=self.file, field=self.field).format()


@contextlib.contextmanager
def stoppable(what: str, out: str | os.PathLike,
              out_option: str | os.PathLike | None = None) -> Iterator[None]:
    """Run a long command's body: SIGINT/SIGTERM and a full disk become ``Stopped``
    (naming ``out``, where the finished work is kept, and ``out_option``, the command's
    --out when it chose it itself), also when they stop a run or a command nested in it."""
    def stopped(signum: int) -> Interrupted:
        return Interrupted(what, out, signum, out_option)

    with SignalGuard():
        try:
            yield
        except Stopped as inner:      # a nested long command: the outer one is continued
            if isinstance(inner, Interrupted):
                raise stopped(inner.signum) from None
            raise StoppedOutOfSpace(what, out, None, out_option) from None
        except StopSignal as stop:
            raise stopped(stop.signum) from None
        except RunInterrupted as stop:
            raise stopped(stop.signum) from None
        except KeyboardInterrupt:
            raise stopped(signal.SIGINT) from None
        except OutOfSpace as exc:
            raise StoppedOutOfSpace(what, out, exc.file, out_option) from None
        except Exception as exc:
            if is_no_space(exc):
                raise StoppedOutOfSpace(what, out, getattr(exc, "filename", None),
                                        out_option) from None
            raise


# ----------------------------------------------------------------------------- journal
def step_key(*parts: Any) -> str:
    """A short hash of a step's inputs (numbers exactly: floats by their bits, arrays by
    dtype, shape and bytes)."""
    digest = hashlib.sha256()
    _feed(digest, parts)
    return digest.hexdigest()[:32]


def _feed(digest: Any, value: Any) -> None:
    if hasattr(value, "dtype") and hasattr(value, "tobytes"):   # numpy array or scalar
        import numpy as np

        array = np.ascontiguousarray(value)
        digest.update(f"a{array.dtype.str}{array.shape}".encode())
        digest.update(array.tobytes())
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        digest.update(f"d{type(value).__name__}".encode())
        _feed(digest, dataclasses.astuple(value))
    elif isinstance(value, Mapping):
        digest.update(b"m")
        for key in sorted(value, key=repr):
            _feed(digest, key)
            _feed(digest, value[key])
    elif isinstance(value, (list, tuple)):
        digest.update(f"l{len(value)}".encode())
        for item in value:
            _feed(digest, item)
    elif isinstance(value, float):
        digest.update(b"f" + (value.hex() if math.isfinite(value) else repr(value)).encode())
    else:
        digest.update(f"{type(value).__name__}:{value!r};".encode())


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=_json_default))


def _json_default(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"not JSON-serialisable: {type(value).__name__}")


def settings_diff(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    """'' when equal, else the first differing settings, shortly."""
    keys = sorted(set(old) | set(new))
    parts = []
    for key in keys:
        a, b = old.get(key), new.get(key)
        if a != b:
            if isinstance(a, (dict, list)) or isinstance(b, (dict, list)) or \
                    len(repr(a)) + len(repr(b)) > 60:
                parts.append(f"{key} differs")
            else:
                parts.append(f"{key} {_shown(a)} there, {_shown(b)} now")
    return "; ".join(parts[:4])


def _shown(value: Any) -> str:
    """A setting in settings_diff's words: None (an option left out) as 'not given'."""
    return "not given" if value is None else repr(value)


class Journal:
    """The finished steps of one long command (see the module). Open with ``open``;
    ``step`` answers a step from the journal or computes and records it."""

    def __init__(self, path: Path, settings: dict[str, Any], records: dict[str, Any],
                 what: str):
        self.path, self.settings, self.what = path, settings, what
        self.records = records
        self.replayed = 0          # steps answered from the journal in this session
        self.discard_empty = False
        self._handle: Any = None

    @classmethod
    def open(cls, path: str | os.PathLike, settings: Mapping[str, Any], *, what: str,
             resume: bool, out: str | os.PathLike | None = None,
             discard_empty: bool = False) -> "Journal":
        """The journal at ``path`` for a command whose result is decided by ``settings``.
        Without ``resume`` an existing journal is refused (``ResumeRequired``); with it, its
        settings must equal ``settings``; a missing one starts empty either way (a command
        stopped before its first step, e.g. by a full disk, has nothing to continue).
        ``discard_empty``: a command whose steps hold all its work (no files of its own)
        drops a journal without steps when it fails (used as a context manager)."""
        path = Path(path)
        settings = _jsonable(dict(settings))
        out = Path(out) if out is not None else path
        if not path.exists():
            journal = cls(path, settings, {}, what)
            journal.discard_empty = discard_empty
            journal._create()
            return journal
        header, records = _read(path, what)
        if header.get("command") != what:
            raise UserError(f"{path.name} belongs to '{header.get('command')}', not to "
                            f"'{what}'; choose a new --out", file=str(path), field="--out")
        diff = settings_diff(header.get("settings") or {}, settings)
        if not resume and not diff:   # (with other settings, this command cannot continue it)
            steps = f"{len(records)} step{'s' if len(records) != 1 else ''} done"
            raise ResumeRequired(f"holds an unfinished {what} ({steps})", out)
        if diff:
            raise UserError(f"holds an unfinished {what} with other settings ({diff}); give the "
                            "settings it started with, or choose a new --out", file=str(out),
                            field="--out")
        journal = cls(path, settings, records, what)
        journal.discard_empty = discard_empty
        return journal

    def _create(self) -> None:
        from sim.runs.rundir import atomic_write_text

        header = {"journal": JOURNAL_FORMAT, "command": self.what, "settings": self.settings}
        with _writing(self.what, self.path):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            atomic_write_text(self.path, json.dumps(header) + "\n")

    def __contains__(self, key: str) -> bool:
        return key in self.records

    def get(self, key: str) -> Any:
        return self.records[key]

    def record(self, key: str, value: Any) -> None:
        """Append one finished step (synced to disk before this returns)."""
        value = _jsonable(value)
        line = json.dumps({"k": key, "v": value}, allow_nan=True) + "\n"
        with _writing(self.what, self.path):
            if self._handle is None:
                self._handle = open(self.path, "a", encoding="utf-8")
            self._handle.write(line)
            self._handle.flush()
            os.fsync(self._handle.fileno())
        self.records[key] = value

    def step(self, key_parts: Any, compute: Callable[[], Any],
             encode: Callable[[Any], Any] = lambda value: value,
             decode: Callable[[Any], Any] = lambda value: value) -> Any:
        """The answer of the step asked ``key_parts``: from the journal when recorded, else
        ``compute()``, recorded as ``encode(answer)`` (JSON-able) before it is returned."""
        key = step_key(key_parts)
        if key in self.records:
            self.replayed += 1
            return decode(self.records[key])
        value = compute()
        self.record(key, encode(value))
        return value

    def close(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def remove(self) -> None:
        """Drop the journal once the command's result is written."""
        self.close()
        with contextlib.suppress(OSError):
            self.path.unlink()

    def __enter__(self) -> "Journal":
        return self

    def __exit__(self, kind: Any, *exc: object) -> None:
        if kind is not None and self.discard_empty and not self.records:
            self.remove()   # failed before its first step: nothing to continue
        self.close()


@contextlib.contextmanager
def _writing(what: str, path: Path) -> Iterator[None]:
    try:
        yield
    except Exception as exc:  # noqa: BLE001 - write failures only
        if os_error_of(exc) is None:
            raise
        raise write_failure(exc, f"the {what}'s progress", path,
                            "finished steps are kept; free some space and continue with "
                            "--resume") from None


def _read(path: Path, what: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(header, records) of a journal; a torn last line (the process was killed while
    writing it) is dropped and cut off, so the next record starts on a line of its own."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise UserError(f"cannot read the {what}'s progress ({exc.strerror or exc})",
                        file=str(path), field="--out") from None
    lines = data.split(b"\n")
    good = 0
    header: dict[str, Any] | None = None
    records: dict[str, Any] = {}
    for number, raw in enumerate(lines):
        if not raw.strip():
            good += len(raw) + 1
            continue
        try:
            item = json.loads(raw)
        except (UnicodeDecodeError, json.JSONDecodeError):
            item = None
        complete = number < len(lines) - 1    # followed by a newline
        if item is None or not isinstance(item, dict) or not complete:
            if number >= len(lines) - 2 and header is not None:
                break                         # the torn tail of a killed write
            raise UserError(f"is not a progress journal of this simulator (line {number + 1} "
                            "is damaged); choose a new --out", file=str(path), field="--out")
        if header is None:
            if item.get("journal") != JOURNAL_FORMAT:
                raise UserError("is not a progress journal of this simulator; choose a new "
                                "--out", file=str(path), field="--out")
            header = item
        else:
            records[str(item.get("k"))] = item.get("v")
        good += len(raw) + 1
    if header is None:
        raise UserError("is an empty progress journal; delete it or choose a new --out",
                        file=str(path), field="--out")
    if good < len(data):
        with open(path, "r+b") as handle:
            handle.truncate(good)
    return header, records


# ----------------------------------------------------------------------------- outputs
def output_dir(path: str | os.PathLike, *, what: str, resume: bool,
               finished: str | None = None) -> Path:
    """The output directory of a long command, created if missing: new or empty, or
    holding this command's journal (then ``Journal.open`` decides: continue with
    ``--resume``, or refuse). ``finished``: a file only a finished run has; such a
    directory is refused as finished without ``resume``, or when its journal is gone
    (a command may remove it at its end)."""
    from sim.runs.rundir import make_output_dir

    path = Path(path)
    if path.exists() and not path.is_dir():
        raise UserError("exists and is not a directory; choose a new --out", file=str(path),
                        field="--out")
    if path.is_dir() and any(path.iterdir()):
        has_journal = (path / JOURNAL_NAME).is_file()
        if finished and (path / finished).exists() and not (resume and has_journal):
            raise UserError(f"already holds a finished {what}; choose a new --out",
                            file=str(path), field="--out")
        if not has_journal:
            raise UserError(f"is not empty and holds no {what} to continue; choose a new "
                            "--out", file=str(path), field="--out")
    return make_output_dir(path)


def file_identity(path: str | os.PathLike | None) -> dict[str, Any] | None:
    """A card or rules file as a journal's settings record it: its path and the SHA-256 of
    its content (None when it cannot be read: configuring reports that problem)."""
    if path is None:
        return None
    try:
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        digest = None
    return {"path": str(path), "sha256": digest}


def refuse_finished_file(path: str | os.PathLike, what: str,
                         is_result: Callable[[Path], bool] | None = None) -> None:
    """A command that writes one file (a strategy or card file) and keeps its journal
    beside it until then: ``path`` already there without a journal holds a finished
    result, refused as a finished run directory is (it is never overwritten). With
    ``is_result``, a file it does not accept as the command's result is refused as
    another file."""
    path = Path(path)
    if path.exists() and not journal_beside(path).exists():
        if is_result is not None and not is_result(path):
            raise UserError(f"holds another file, not a finished {what}; choose a new --out "
                            "(it is never overwritten)", file=str(path), field="--out")
        raise UserError(f"already holds a finished {what}; choose a new --out, or remove the "
                        "file first", file=str(path), field="--out")


def split_finished(tasks: Any) -> tuple[list[Any], list[Any]]:
    """(results of the chunk tasks whose part is already on disk, the tasks still to
    play): a stopped command's finished chunks count without being played again. A
    finished part's result has its aggregates read back from the part (and its curves
    from their chunk file)."""
    import numpy as np

    from sim.runs.backends.base import ChunkResult
    from sim.runs.backends.tasks import aggregates
    from sim.runs.curve_files import chunk_path
    from sim.runs.rundir import RunDir

    done, todo = [], []
    for task in tasks:
        run = RunDir(Path(task.run_dir))
        if run.part_done(task.seed, task.start, task.count):
            import polars as pl

            part = run.part_path(task.seed, task.start)
            sums = aggregates(pl.read_parquet(part))
            curves = chunk_path(task.run_dir, task.seed, task.start)
            if curves.is_file():
                sums["curves"] = np.load(curves, allow_pickle=False)
            done.append(ChunkResult(seed=task.seed, start=task.start, count=task.count,
                                    run_dir=task.run_dir, part=str(part), seconds=0.0,
                                    aggregates=sums, tag=task.tag))
        else:
            todo.append(task)
    return done, todo
