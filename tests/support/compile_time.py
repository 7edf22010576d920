"""Make a command look as if the kernels compiled inside it (a cold cache), for the tests
of the commands' last line: the compile total rises by a quarter of the call's wall time
once ``api.<name>`` returns."""
from __future__ import annotations

from sim import api
from sim.core import compile_cache


def pretend_a_compile_in(monkeypatch, name: str) -> None:
    played = getattr(api, name)

    def played_with_a_compile(*args, **kwargs):
        result = played(*args, **kwargs)
        compiled = compile_cache.compile_seconds() + 0.25 * result.wall_seconds
        monkeypatch.setattr(compile_cache, "compile_seconds", lambda: compiled)
        return result

    monkeypatch.setattr(api, name, played_with_a_compile)
