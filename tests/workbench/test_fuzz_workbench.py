"""Fuzzing the workbench's HTTP API on a real socket (uvicorn), one keep-alive connection:
every answer is below 500 with a one-line JSON error, the connection stays usable, nothing
is written outside the start directory (but the workbench's own temporary folder), and
memory stays bounded. A fixed small budget in the default run; ``-m slow`` runs more."""
from __future__ import annotations

import http.client
import json
import resource
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.workbench.bench import Settings

pytestmark = pytest.mark.usefixtures("fake_game_registered")

PATHS = ["/api/state", "/api/validate", "/api/run", "/api/save", "/api/download",
         "/api/run/abc", "/api/run/abc/stop", "/api/report/abc", "/report/abc/report.html",
         "/", "/static/app.js", "/static/../../etc/passwd", "/api/state?game=../../x",
         "/api/state?game=fake", "/nothing", "/api/run/" + "x" * 300,
         "/api/run/abc/changed?players=4&from=a&to=b", "/api/run/abc/changed?players=-1",
         "/api/example/abc", "/game/abc/4/1", "/game/abc/4/" + "9" * 40,
         "/game/abc/%2e%2e/1"]
METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]
HOSTILE_TEXT = st.sampled_from([
    "@../../../../etc/passwd", "@/etc/shadow", "@../secret.yaml", "!!python/object:os.system",
    "&a [*a]", "[" * 200, "9" * 400, "1e999", "NaN", "-1", "\x00", "../x.csv", "/tmp/x.csv",
    "greedy", "random", "bias=1", "x" * 600, "", " ", "\n", "é"])


def _json_values(depth: int = 3):
    leaves = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                       st.floats(allow_nan=False, allow_infinity=False), HOSTILE_TEXT,
                       st.text(max_size=30))
    return st.recursive(leaves, lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=10), children,
                                                        max_size=4)), max_leaves=12)


@st.composite
def bodies(draw, base: dict):
    """A valid edit mutated, random JSON, or raw bytes."""
    kind = draw(st.sampled_from(["edit", "edit", "json", "raw", "empty"]))
    if kind == "raw":
        return draw(st.one_of(st.binary(max_size=200), st.sampled_from([
            b"[" * 3000, b'{"games": ' + b"9" * 2000 + b"}", b'{"seed": NaN}', b"\xff",
            b'{"a":' * 50 + b"1" + b"}" * 50])))
    if kind == "empty":
        return b""
    if kind == "json":
        return json.dumps(draw(_json_values())).encode()
    body = json.loads(json.dumps(base))
    for _ in range(draw(st.integers(0, 4))):
        key = draw(st.sampled_from(["games", "seed", "width", "chunk", "players", "page",
                                    "strategies", "rules_text", "cards", "cards_name",
                                    "rules_name", "kind", "game", "overwrite",
                                    "question", "variant"]))
        if key == "strategies":
            body[key] = {draw(st.sampled_from(["A", "B", "seat0", "x"])): draw(HOSTILE_TEXT)}
        elif key == "cards" and draw(st.booleans()):
            rows = body["cards"]["rows"]
            if rows:
                row = draw(st.integers(0, len(rows) - 1))
                col = draw(st.integers(0, len(rows[row]) - 1))
                rows[row][col] = draw(st.one_of(HOSTILE_TEXT, st.text(max_size=8)))
        else:
            body[key] = draw(_json_values())
    return json.dumps(body).encode()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from sim.workbench.server import make_server

    root = tmp_path_factory.mktemp("fuzz_workbench")
    start = root / "start"
    start.mkdir()
    (root / "secret.yaml").write_text("root:x:0:0:secret\n")
    settings_ = Settings(start_dir=start, game="fake", max_games=5000, idle_seconds=2,
                         max_temp_bytes=5_000_000)
    uvicorn_server, sock, _ = make_server(settings_, "127.0.0.1", 0)
    thread = threading.Thread(target=uvicorn_server.run, kwargs={"sockets": [sock]},
                              daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not uvicorn_server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    connection = http.client.HTTPConnection("127.0.0.1", sock.getsockname()[1], timeout=60)
    connection.request("GET", "/api/state")
    state = json.loads(connection.getresponse().read())
    base = {"game": "fake", "players": [4], "page": "page-fuzz-000001", "games": 2000,
            "chunk": 1000, "width": 1, "rules_text": "", "strategies": {},
            "cards": {"columns": state["cards"]["columns"], "rows": state["cards"]["rows"]}}
    try:
        yield {"connection": connection, "base": base, "root": root, "start": start,
               "bench": uvicorn_server.config.app.state.bench,
               "before": sorted(str(p) for p in root.rglob("*")),
               "peak_before_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}
    finally:
        connection.close()
        uvicorn_server.should_exit = True
        thread.join(timeout=30)


def _check(server, method, path, body=b""):
    connection = server["connection"]
    connection.request(method, path, body=body or None,
                       headers={"Content-Type": "application/json"})
    answer = connection.getresponse()
    data = answer.read()
    assert answer.status < 500, (method, path, body[:200] if body else body, data[:300])
    kind = answer.getheader("Content-Type", "")
    if answer.status >= 400:
        assert kind.startswith("application/json"), (path, kind)
        error = json.loads(data)["error"]
        assert error and "\n" not in error and "Traceback" not in error and len(error) <= 1000
        assert "root:x:0:0" not in error
    return answer.status


def _fuzz(server, method, path, body):
    """The request's status (never a server error: _check), after which the server still
    answers and wrote nothing outside its start directory."""
    status = _check(server, method, path, body)
    # the same connection still answers (uvicorn drops it after an unhandled error)
    assert _check(server, "GET", "/api/state") == 200
    outside = [p for p in server["root"].rglob("*")
               if server["start"] not in p.parents and p != server["start"]]
    assert sorted(str(p) for p in outside) == [p for p in server["before"]
                                               if not p.startswith(str(server["start"]))]
    return status


def _requests(data, server):
    method = data.draw(st.sampled_from(METHODS))
    path = data.draw(st.sampled_from(PATHS))
    return method, path, data.draw(bodies(server["base"]))


QUICK = settings(max_examples=60, deadline=None, derandomize=True,
                 suppress_health_check=list(HealthCheck))
LONG = settings(max_examples=1500, deadline=None, derandomize=True,
                suppress_health_check=list(HealthCheck))


@QUICK
@given(data=st.data())
def test_fuzz_the_workbench_api(server, data):
    assert _fuzz(server, *_requests(data, server)) < 500


@pytest.mark.slow
@LONG
@given(data=st.data())
def test_fuzz_the_workbench_api_long(server, data):
    assert _fuzz(server, *_requests(data, server)) < 500


@pytest.fixture(scope="module")
def finished(server):
    """A finished comparison of the fuzz server: its id."""
    _check(server, "POST", "/api/run", json.dumps({**server["base"],
                                                   "page": "page-fuzz-finished"}).encode())
    ident = max(server["bench"].comparisons.values(), key=lambda c: c.started).id
    server["bench"].comparisons[ident].thread.join(timeout=60)
    return ident


GAME_PARTS = st.one_of(st.integers(-5, 10**20).map(str), HOSTILE_TEXT)


@QUICK
@given(data=st.data())
def test_fuzz_the_games_of_a_finished_comparison(server, finished, data):
    """The changed games, an example and the viewer of a real comparison, with hostile
    player counts, kinds, indices and bodies."""
    from urllib.parse import quote, urlencode

    kind = data.draw(st.sampled_from(["changed", "example", "viewer"]))
    if kind == "changed":
        query = {k: data.draw(GAME_PARTS) for k in data.draw(st.sets(st.sampled_from(
            ["players", "from", "to"])))}
        status = _fuzz(server, "GET", f"/api/run/{finished}/changed?{urlencode(query)}", b"")
    elif kind == "example":
        body = data.draw(st.one_of(_json_values(), st.fixed_dictionaries(
            {"question": HOSTILE_TEXT, "players": st.one_of(st.integers(-3, 9), HOSTILE_TEXT)})))
        status = _fuzz(server, "POST", f"/api/example/{finished}", json.dumps(body).encode())
    else:
        players, index = (quote(data.draw(GAME_PARTS), safe="") or "x" for _ in range(2))
        path = f"/game/{finished}/{players}/{index}"
        status = _fuzz(server, data.draw(st.sampled_from(["GET", "POST"])), path, b"")
    assert status < 500


def test_after_the_fuzz_memory_and_temporary_data_are_bounded(server):
    """Runs after the fuzz in this module: the process's peak memory grew little while the
    server answered the fuzz (it runs in this process), the temporary folder is under the cap the server was given (plus the one
    running comparison's last look) and it lies outside the start directory, as documented."""
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                - server["peak_before_kb"]) / 1024
    assert grown_mb < 300, f"the peak memory grew by {grown_mb:.0f} MB during the fuzz"
    bench = server["bench"]
    assert bench.temp_bytes() < bench.settings.max_temp_bytes + 2_000_000
    assert len(bench.comparisons) <= 8 + 1
    assert server["start"] not in bench.work.parents
