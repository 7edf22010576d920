"""The workbench's guards: which requests reach a route, and how much of each.

``Guard``, an ASGI middleware around the whole application: the Host header must name this
server (a DNS-rebinding page's requests carry its own host name), an Origin header, when a
browser sends one, must be this server's, and a request body is capped (``max_body``). An
error no route answered becomes a 500 with one JSON line, and the server goes on serving.
``read_json`` reads a route's JSON body within bounds (nesting, the length of a number, no
NaN or Infinity); a malformed one is a BadInput, which the route answers with a 400.
"""
from __future__ import annotations

import json
import re
import sys
from typing import Any, Iterable, Mapping

from starlette.requests import Request
from starlette.responses import JSONResponse

from sim.workbench.inputs import BadInput

MAX_BODY = 1_000_000     # bytes of one request body
MAX_JSON_DEPTH = 16      # nested arrays / objects in a request (the page sends 4)
MAX_JSON_NUMBER = 40     # characters of one number


def brief(value: Any, limit: int = 300) -> str:
    """``value`` as one line of at most ``limit`` characters."""
    text = " ".join(str(value).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def error_response(message: str, status: int = 400,
                   headers: Mapping[str, str] | None = None) -> JSONResponse:
    """The one-line JSON ``error`` every refusal answers with."""
    return JSONResponse({"error": brief(message, 1000)}, status_code=status,
                        headers=dict(headers or {}))


class Guard:
    """Host/Origin checks and the body cap, before any route runs."""

    def __init__(self, app: Any, allowed_hosts: Iterable[str], max_body: int = MAX_BODY):
        self.app = app
        self.hosts = {h.lower() for h in allowed_hosts}
        self.origins = {f"http://{h}" for h in self.hosts}
        self.max_body = max_body

    def too_large(self) -> JSONResponse:
        return error_response(f"request body too large (at most {self.max_body:,} bytes)", 413)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "").strip().lower()
        if host not in self.hosts:
            return await error_response(
                f"refused: Host '{host}' is not this workbench (it answers to "
                f"{', '.join(sorted(self.hosts))}; DNS-rebinding guard)", 403)(scope, receive, send)
        origin = headers.get("origin")
        if origin is not None and origin.strip().lower().rstrip("/") not in self.origins:
            return await error_response(f"refused: Origin '{origin}' is not this workbench "
                                        "(cross-site request)", 403)(scope, receive, send)
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            return await self.too_large()(scope, receive, send)
        seen = 0

        async def capped():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    raise BodyTooLarge()
            return message

        started = False

        async def watched_send(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, capped, watched_send)
        except BodyTooLarge:
            await self.too_large()(scope, receive, send)
        except Exception as exc:  # noqa: BLE001 - a bug: one JSON line, the server keeps serving
            if started:
                raise
            print(f"workbench: internal error on {scope.get('path')}: {type(exc).__name__}: "
                  f"{brief(exc)}", file=sys.stderr, flush=True)
            await error_response(f"internal error: {type(exc).__name__}: {brief(exc)}",
                                 500)(scope, receive, send)


class BodyTooLarge(Exception):
    pass


def _bounded_number(text: str) -> Any:
    if len(text) > MAX_JSON_NUMBER:
        raise BadInput(f"a number of {len(text):,} characters in the request (at most "
                       f"{MAX_JSON_NUMBER})")
    return float(text) if any(c in text for c in ".eE") else int(text)


def _no_constant(name: str) -> Any:
    raise BadInput(f"{name} is not a number JSON allows")


def json_depth(body: bytes) -> int:
    """How deep arrays and objects nest in a JSON text (brackets inside strings do not
    count); read before parsing, so a deep body is refused without recursion."""
    depth = deepest = 0
    for match in re.finditer(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]', body):
        token = match.group()
        if token in (b"[", b"{"):
            depth += 1
            deepest = max(deepest, depth)
        elif token in (b"]", b"}"):
            depth -= 1
    return deepest


async def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object, within bounds: the body cap (Guard), MAX_JSON_DEPTH
    levels, numbers of at most MAX_JSON_NUMBER characters, no NaN or Infinity."""
    body = await request.body()
    if not body.strip():
        return {}
    if json_depth(body) > MAX_JSON_DEPTH:
        raise BadInput(f"the request nests more than {MAX_JSON_DEPTH} levels deep")
    try:
        data = json.loads(body, parse_int=_bounded_number, parse_float=_bounded_number,
                          parse_constant=_no_constant)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BadInput(f"the request body is not JSON ({brief(exc, 120)})") from None
    except RecursionError:
        raise BadInput("the request nests too deeply") from None
    if not isinstance(data, dict):
        raise BadInput("the request body must be a JSON object")
    return data
