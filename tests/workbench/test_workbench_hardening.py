"""The workbench reads and writes only under its start directory, answers every malformed
request with a one-line JSON 4xx (405 too) and keeps the connection open, and keeps its
temporary data bounded (comparisons in all, bytes)."""
from __future__ import annotations

import http.client
import json
import os
import shutil
import threading
import time
import warnings
from pathlib import Path

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*", category=DeprecationWarning)
from starlette.testclient import TestClient  # noqa: E402

from sim.workbench import app as workbench_app  # noqa: E402
from sim.workbench import bench as workbench_bench  # noqa: E402
from sim.workbench.app import create_app  # noqa: E402
from sim.workbench.bench import Settings  # noqa: E402

pytestmark = [pytest.mark.usefixtures("fake_game_registered"),
              pytest.mark.filterwarnings("ignore::DeprecationWarning")]
PAGE = "page-0123456789"
SECRET = "root:x:0:0:secret-line-of-a-file-outside"


def _client(start: Path, **settings) -> TestClient:
    options = {"game": "fake", "allowed_hosts": ("testserver",), **settings}
    return TestClient(create_app(Settings(start_dir=start, **options)))


@pytest.fixture
def start(tmp_path):
    """The start directory, with a 'secret' file beside it (outside) and a link out."""
    where = tmp_path / "start"
    where.mkdir()
    (tmp_path / "secret.yaml").write_text(SECRET + "\n")
    (where / "link.yaml").symlink_to(tmp_path / "secret.yaml")
    return where


def _edit(state: dict, **changes) -> dict:
    body = {"game": state["game"], "players": [state["default_players"]],
            "cards": {"columns": state["cards"]["columns"],
                      "rows": [list(r) for r in state["cards"]["rows"]]},
            "strategies": {}, "rules_text": ""}
    body.update(changes)
    return body


@pytest.mark.parametrize("spec", ["@../secret.yaml", "@../../../../etc/passwd",
                                  "@/etc/passwd", "@link.yaml", "@start/../../secret.yaml",
                                  "@" + "../" * 40 + "etc/shadow"])
def test_a_strategy_file_outside_the_start_directory_is_refused_unread(start, spec):
    with _client(start, game="peer-to-peer") as c:
        state = c.get("/api/state").json()
        for route in ("/api/validate", "/api/run", "/api/save"):
            answer = c.post(route, json=_edit(state, page=PAGE, cards_name="x.csv",
                                              strategies={"A": spec}))
            assert answer.status_code == 400, (route, answer.text)
            assert "outside the workbench's directory" in answer.json()["error"]
            assert "root:" not in answer.text and "secret" not in answer.text.replace(
                "secret.yaml", "")


def test_a_strategy_file_under_the_start_directory_is_read(start):
    (start / "mine.yaml").write_text("cardsim_strategy: 1\ngame: peer-to-peer\n"
                                     "weights: {switch: 8}\n")
    (start / "bad.yaml").write_text("cardsim_strategy: 1\ngame: peer-to-peer\n"
                                    "weights: {" + "x" * 500 + ": 1}\n")
    with _client(start, game="peer-to-peer") as c:
        state = c.get("/api/state").json()
        good = c.post("/api/validate", json=_edit(state, strategies={"A": "@mine.yaml"}))
        bad = c.post("/api/validate", json=_edit(state, strategies={"A": "@bad.yaml"}))
    assert good.status_code == 200 and good.json()["ok"], good.text
    problem = bad.json()["problem"]
    assert problem["part"] == "strategies" and "x" * 100 not in bad.text   # an excerpt only


@pytest.mark.parametrize("body, words", [
    (b"[" * 20000 + b"]" * 20000, "nests more than"),
    (b'{"games": ' + b"9" * 5000 + b"}", "a number of 5,000 characters"),
    (b'{"games": NaN}', "NaN is not a number"),
    (b'{"seed": 1e999}', None),
    (b"\xff\xfe", "not JSON"),
])
def test_hostile_json_is_a_400_line(start, body, words):
    with _client(start) as c:
        answer = c.post("/api/run", content=body, headers={"Content-Type": "application/json"})
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert "\n" not in error and len(error) < 400
    if words:
        assert words in error


@pytest.mark.parametrize("change, words", [
    ({"games": "1e999"}, "must be at most"),
    ({"games": 10**30}, "must be at most"),
    ({"seed": 2**64}, "2**63-1"),
    ({"seed": -1}, "2**63-1"),
    ({"players": [None]}, "'players' must be"),
    ({"players": [True]}, "'players' must be"),
    ({"width": "1e999"}, "interval width"),
    ({"chunk": "x" * 100}, "'chunk' must be a number"),
    ({"page": "x" * 1000}, "'page'"),
])
def test_out_of_range_values_are_refused_before_anything_runs(start, change, words):
    with _client(start) as c:
        state = c.get("/api/state").json()
        answer = c.post("/api/run", json=_edit(state, **{"page": PAGE, **change}))
        assert c.app.state.bench.comparisons == {}
    assert answer.status_code == 400 and words in answer.json()["error"], answer.text


def test_a_python_tag_in_the_rules_is_a_problem_not_a_crash(start):
    with _client(start, game="peer-to-peer") as c:
        state = c.get("/api/state").json()
        body = _edit(state, rules={"hand_size": "!!python/object/apply:os.system ['echo x']"})
        body.pop("rules_text")
        checked = c.post("/api/validate", json=body)
        started = c.post("/api/run", json={**body, "page": PAGE})
    assert checked.status_code == 200 and "is not allowed" in checked.json()["problem"]["cli"]
    assert started.status_code == 400 and "is not allowed" in started.json()["error"]


def test_wrong_methods_and_paths_are_json_4xx(start):
    with _client(start) as c:
        wrong = c.put("/api/run", json={})
        missing = c.get("/api/nothing")
        deleted = c.delete("/api/state")
    assert wrong.status_code == 405 and "method PUT is not allowed" in wrong.json()["error"]
    assert "POST" in wrong.headers.get("allow", "")
    assert missing.status_code == 404 and missing.json()["error"].startswith("not found")
    assert deleted.status_code == 405 and deleted.json()["error"]


def test_an_unknown_comparison_is_one_404_line_on_every_route(start):
    with _client(start) as c:
        answers = [c.get("/api/run/nosuch"), c.post("/api/run/nosuch/stop"),
                   c.get("/api/run/nosuch/changed")]
    assert [a.status_code for a in answers] == [404] * 3
    assert all(a.json()["error"].startswith("error: no comparison 'nosuch'") for a in answers)


@pytest.fixture
def live_server(start):
    """The workbench on a real socket (uvicorn in a thread)."""
    from sim.workbench.server import make_server

    settings = Settings(start_dir=start, game="fake", max_games=20000, idle_seconds=3)
    server, sock, address = make_server(settings, "127.0.0.1", 0)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    port = sock.getsockname()[1]
    try:
        yield port, server
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def request(connection, method, path, body=None, headers=None):
    headers = {"Content-Type": "application/json", **(headers or {})}
    connection.request(method, path, body=body, headers=headers)
    answer = connection.getresponse()
    return answer.status, answer.read()


def test_one_connection_survives_every_malformed_request_and_an_internal_error(live_server,
                                                                              monkeypatch):
    port, _ = live_server
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def broken(*args, **kwargs):
        raise RuntimeError("a bug\nwith two lines")

    monkeypatch.setattr(workbench_app.inputs, "sheet_from_request", broken)
    hostile = [("POST", "/api/run", b"[" * 5000), ("POST", "/api/validate", b"{bad"),
               ("PUT", "/api/run", b"{}"), ("GET", "/api/run/%00", None),
               ("POST", "/api/validate", b'{"players": [4], "cards": {}}'),
               ("POST", "/api/run", b'{"seed": ' + b"1" * 5000 + b"}"),
               ("GET", "/report/x/../../etc/passwd", None)]
    for method, path, body in hostile:
        status, data = request(connection, method, path, body)
        assert 400 <= status < 600 and status != 500 or b"internal error" in data, (path, data)
        error = json.loads(data)["error"]
        assert "\n" not in error and "Traceback" not in error
    status, data = request(connection, "GET", "/api/state")
    assert status == 200 and json.loads(data)["game"] == "fake"   # the same connection


def test_temporary_data_is_bounded_in_comparisons_and_bytes(start, monkeypatch):
    monkeypatch.setattr(workbench_bench, "KEEP_TOTAL", 3)
    with _client(start, idle_seconds=60) as c:
        state = c.get("/api/state").json()
        bench = c.app.state.bench
        rows = [list(r) for r in state["cards"]["rows"]]
        rows[0][1] = "Router Mk2"
        idents = []
        for page in range(6):            # six pages, one comparison each
            body = _edit(state, page=f"page-{page:010d}", games=2000, chunk=1000, width=0.01,
                         cards={"columns": state["cards"]["columns"], "rows": rows})
            idents.append(c.post("/api/run", json=body).json()["id"])
            while bench.comparisons[idents[-1]].running:
                time.sleep(0.02)
        assert sorted(bench.comparisons) == sorted(idents[-4:])   # 3 finished + the newest
        assert len(bench.pages) == 4
        # the byte cap: a comparison bigger than the cap stops, the others are dropped
        bench.settings.max_temp_bytes = 30_000
        body = _edit(state, page="page-big0000000", games=20000, chunk=1000, width=0.01,
                     cards={"columns": state["cards"]["columns"], "rows": rows})
        ident = c.post("/api/run", json=body).json()["id"]
        snap = {"state": "running"}
        while snap["state"] in ("starting", "running"):
            snap = c.get(f"/api/run/{ident}").json()
        assert snap["state"] == "stopped" and "temporary data reached its cap" in snap["reason"]
        assert list(bench.comparisons) == [ident] and snap["looks"] < 20
        assert bench.temp_bytes() < 200_000


class _FinishedComparison:
    """What Workbench.evict reads of a finished comparison, with ``size`` bytes on disk."""

    def __init__(self, work: Path, ident: str, started: float, size: int):
        self.id, self.started, self.running = ident, started, False
        self.home = work / ident
        (self.home / "runs").mkdir(parents=True)
        (self.home / "runs" / "part-0.parquet").write_bytes(b"x" * size)

    def remove(self) -> None:
        shutil.rmtree(self.home)


def test_eviction_drops_the_oldest_finished_comparisons_until_the_bytes_fit(tmp_path):
    bench = workbench_bench.Workbench(Settings(start_dir=tmp_path, game="fake",
                                               max_temp_bytes=15_000))
    try:
        (bench.work / "loose.txt").write_bytes(b"y" * 1_000)   # not a comparison's: stays
        for i, ident in enumerate(["old", "middle", "new", "kept"]):
            bench.comparisons[ident] = _FinishedComparison(bench.work, ident, float(i), 7_000)
        left = bench.evict(keep={"kept"})
        assert sorted(bench.comparisons) == ["kept", "new"]    # 29,000 -> 22,000 -> 15,000
        assert left == bench.temp_bytes() == 15_000
    finally:
        shutil.rmtree(bench.work)


def test_cli_workbench_has_the_temp_limit_flag():
    from click.testing import CliRunner

    from sim.cli import main

    result = CliRunner().invoke(main, ["workbench", "--help"])
    assert result.exit_code == 0 and "--temp-limit" in result.output


def test_nothing_is_written_outside_the_start_directory_by_save(start):
    before = sorted(p.name for p in start.parent.iterdir())
    with _client(start) as c:
        state = c.get("/api/state").json()
        for name in ("../out.csv", "/tmp/out.csv", "link.yaml/../../x.csv", "sub/../../y.csv"):
            answer = c.post("/api/save", json=_edit(state, cards_name=name))
            assert answer.status_code == 400, answer.text
        assert c.post("/api/save", json=_edit(state, cards_name="mine.csv")).status_code == 200
    assert sorted(p.name for p in start.parent.iterdir()) == before
    assert (start / "mine.csv").is_file() and not os.path.exists("/tmp/out.csv")
