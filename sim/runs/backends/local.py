"""The default backend: chunks play one after another in this process, in the calling
thread (so SIGINT/SIGTERM reach the runner between chunks), with ``threads`` kernel
threads each. It uses the caller's GameConfig object when given one."""
from __future__ import annotations

from typing import Any, Iterable, Iterator, Mapping

from sim.runs.backends.base import Backend, ChunkResult, ChunkTask, ConfigRequest


class LocalBackend(Backend):
    name = "local"
    in_process = True

    def run_tasks(self, tasks: Iterable[ChunkTask], *, configs: Mapping[ConfigRequest, Any]
                  | None = None, aggregate: bool = True) -> Iterator[ChunkResult]:
        from sim.runs.backends.tasks import configured, execute

        for task in tasks:
            config = (configs or {}).get(task.request)
            if config is None:
                config = configured(task.request)
            threads = task.threads if task.threads is not None else self.default_threads()
            yield execute(task, config, aggregate=aggregate, threads=threads)

    def default_threads(self) -> int:
        from sim.core.inputs import default_threads

        return default_threads()
