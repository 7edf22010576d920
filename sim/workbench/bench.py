"""The workbench server's state: what ``simulate workbench`` was started with
(``Settings``), and ``Workbench``: each game's baseline, the comparisons of every page, the
backend that plays them, and the temporary folder they write to, bounded in comparisons
and in bytes."""
from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from sim import api
from sim.workbench import compare, inputs

DEFAULT_MAX_GAMES = 1_000_000   # cap on a comparison's games per side and player count
KEEP_COMPARISONS = 2            # finished comparisons kept per page (their run directories)
KEEP_TOTAL = 8                  # finished comparisons kept in all, over every page
DEFAULT_MAX_TEMP_BYTES = 1_000_000_000   # the temporary folder's cap (--temp-limit, in MB)
NO_WORKER_SECONDS = 60          # a Dask comparison stops after this long without any worker


@dataclass
class Settings:
    """What ``simulate workbench`` was started with."""

    start_dir: Path
    game: str
    cards: str | None = None
    rules: str | None = None
    players: int | None = None
    backend: str = "local"
    backend_options: dict[str, Any] = field(default_factory=dict)
    backend_flags: tuple[str, ...] = ()
    threads: int | None = None
    max_games: int = DEFAULT_MAX_GAMES
    max_temp_bytes: int = DEFAULT_MAX_TEMP_BYTES
    idle_seconds: float = 15.0
    allowed_hosts: tuple[str, ...] = ("127.0.0.1", "localhost")


def folder_bytes(folder: Path) -> int:
    """Bytes of the files under ``folder`` (one vanishing meanwhile counts 0)."""
    total = 0
    for parent, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(parent, name)).st_size
    return total


class Workbench:
    """The server's state: baselines per game, the comparisons of each page."""

    def __init__(self, settings: Settings):
        self.settings = settings
        self.start_dir = settings.start_dir.resolve()
        self.work = Path(tempfile.mkdtemp(prefix="cardsim-workbench-"))
        self.comparisons: dict[str, compare.Comparison] = {}
        self.pages: dict[str, list[str]] = {}
        self.saved: dict[str, dict[str, str]] = {}   # game -> {"cards": name, "rules": name}
        self.lock = threading.Lock()
        self._backend = None

    # -- baseline of a game: the started-with files for the started game, else defaults
    def baseline(self, game_name: str) -> compare.Side:
        if game_name == self.settings.game:  # the game given on the command line
            return compare.Side(self.settings.cards, self.settings.rules)
        return compare.Side(None, None)

    def baseline_sheet(self, game_name: str) -> inputs.CardSheet:
        side = self.baseline(game_name)
        if side.cards:
            from sim.core.csvfile import read_text

            return inputs.parse_card_text(read_text(side.cards, what="card file"))
        return inputs.parse_card_text(api.default_cards(game_name))

    def backend(self):
        if self._backend is None:
            from sim.runs import backends

            options = dict(self.settings.backend_options or {})
            if self.settings.backend != "local":   # a page must not wait silently forever
                options.setdefault("no_worker_timeout", NO_WORKER_SECONDS)
            self._backend, _ = backends.resolve(self.settings.backend, options or None)
        return self._backend

    # -- the temporary folder: bounded in comparisons and in bytes
    def temp_bytes(self) -> int:
        """Bytes under the temporary folder (every comparison's files, runs, report)."""
        return folder_bytes(self.work)

    def evict(self, keep: Iterable[str] = (), total: int | None = None) -> int:
        """Drop finished comparisons, oldest first, while more than KEEP_TOTAL are kept or
        the folder holds more than the cap (``keep``: ones that must stay; ``total``: the
        folder's bytes, when the caller has just measured them). Returns the folder's bytes
        after. Call with ``self.lock`` held."""
        keep = set(keep)
        finished = [c for c in sorted(self.comparisons.values(), key=lambda c: c.started)
                    if not c.running and c.id not in keep]
        total = self.temp_bytes() if total is None else total
        while finished and (len(finished) > KEEP_TOTAL or total > self.settings.max_temp_bytes):
            gone = finished.pop(0)
            total -= folder_bytes(gone.home)   # the folder walked once, then only what goes
            self.forget(gone.id)
        return total

    def forget(self, ident: str) -> None:
        """Remove a comparison and its folder (lock held)."""
        comparison = self.comparisons.pop(ident, None)
        if comparison is not None:
            comparison.remove()
        for page, history in list(self.pages.items()):
            if ident in history:
                history.remove(ident)
            if not history:
                del self.pages[page]

    def after_look(self, comparison: "compare.Comparison") -> None:
        """After each look of a running comparison: keep the folder under its cap, first by
        dropping finished comparisons, then by stopping this one (its chunks are kept)."""
        with self.lock:
            total = self.temp_bytes()
            if total <= self.settings.max_temp_bytes:
                return
            if self.evict(keep={comparison.id}, total=total) > self.settings.max_temp_bytes:
                comparison.stop(f"the workbench's temporary data reached its cap of "
                                f"{self.settings.max_temp_bytes / 1e6:,.0f} MB (--temp-limit); "
                                "the finished chunks are kept")

    def close(self) -> None:
        for comparison in list(self.comparisons.values()):
            comparison.stop("the workbench is shutting down")
        for comparison in list(self.comparisons.values()):
            if comparison.thread.is_alive():
                comparison.thread.join(timeout=30)
        if self._backend is not None:
            self._backend.close()
        shutil.rmtree(self.work, ignore_errors=True)
