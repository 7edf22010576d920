"""``simulate workbench``: bind the socket, build the app, run uvicorn until Ctrl-C."""
from __future__ import annotations

import socket
from pathlib import Path
from typing import Any, Callable

from sim.core.errors import UserError
from sim.workbench.app import create_app
from sim.workbench.bench import Settings

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


def allowed_hosts(host: str, port: int) -> tuple[str, ...]:
    """The Host header values that name this server (with and without the port when it is
    80). A browser on a DNS-rebinding page sends the attacker's name and is refused."""
    names = {host.lower(), "127.0.0.1", "localhost", "[::1]"}
    if host in ("0.0.0.0", "::", ""):  # every interface: this machine's own names too
        names |= machine_names()
    if ":" in host and not host.startswith("["):
        names.add(f"[{host.lower()}]")
    out = {f"{name}:{port}" for name in names}
    if port == 80:
        out |= names
    return tuple(sorted(out))


def machine_names() -> set[str]:
    """This machine's host name, full name and addresses (for a wildcard --host)."""
    names = {socket.gethostname().lower(), socket.getfqdn().lower()}
    try:
        for *_, address in socket.getaddrinfo(socket.gethostname(), None):
            ip = str(address[0])
            names.add(f"[{ip}]" if ":" in ip else ip)
    except OSError:
        pass
    return {name for name in names if name}


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (port 0: a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise UserError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); choose "
                        "another --port", field="--port") from None
    sock.listen(64)
    sock.setblocking(False)
    return sock


def make_server(settings: Settings, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT):
    """(uvicorn.Server, socket, address) ready to ``server.run(sockets=[sock])``."""
    import uvicorn

    sock = bind(host, port)
    actual = sock.getsockname()[1]
    settings.allowed_hosts = allowed_hosts(host, actual)
    app = create_app(settings)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    server = uvicorn.Server(config)
    shown = f"[{host}]" if ":" in host else host
    return server, sock, f"http://{shown}:{actual}/"


def serve(*, game: str, cards: str | None, rules: str | None, players: int | None,
          host: str = DEFAULT_HOST, port: int = DEFAULT_PORT, backend: str = "local",
          backend_options: dict[str, Any] | None = None, backend_flags: tuple[str, ...] = (),
          threads: int | None = None, max_games: int | None = None,
          max_temp_bytes: int | None = None, start_dir: str | Path = ".",
          announce: Callable[[str], None] = print) -> None:
    """Check the starting files with the CLI's loaders, then serve until interrupted."""
    from sim import api
    from sim.workbench.bench import DEFAULT_MAX_GAMES, DEFAULT_MAX_TEMP_BYTES

    api.configure(game, players, cards, rules)  # a bad --cards/--rules stops here (exit 2)
    settings = Settings(start_dir=Path(start_dir).resolve(), game=game,
                        cards=str(Path(cards).resolve()) if cards else None,
                        rules=str(Path(rules).resolve()) if rules else None, players=players,
                        backend=backend, backend_options=dict(backend_options or {}),
                        backend_flags=tuple(backend_flags), threads=threads,
                        max_games=max_games or DEFAULT_MAX_GAMES,
                        max_temp_bytes=max_temp_bytes or DEFAULT_MAX_TEMP_BYTES)
    server, sock, address = make_server(settings, host, port)
    announce(f"workbench: {address}  (files are read and saved under {settings.start_dir} "
             f"only; temporary data up to {settings.max_temp_bytes / 1e6:,.0f} MB; Ctrl-C "
             "stops)")
    server.run(sockets=[sock])
