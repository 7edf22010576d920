"""The workbench serves the game viewer of any game of a comparison: its baseline and its
edited side on the comparison's seed, opened at their first difference."""
from __future__ import annotations

import json
import re
import time
import warnings
from pathlib import Path

import pytest

warnings.filterwarnings("ignore", message=".*httpx.*", category=DeprecationWarning)
from starlette.testclient import TestClient  # noqa: E402

from sim.workbench.app import create_app  # noqa: E402
from sim.workbench.bench import Settings  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
PAGE = "page-viewer-0123"


def _client(tmp_path: Path) -> TestClient:
    start = tmp_path / "start"
    start.mkdir(parents=True, exist_ok=True)
    return TestClient(create_app(Settings(start_dir=start, game="peer-to-peer",
                                          allowed_hosts=("testserver",))))


def _run_technology_13_at_10(c: TestClient) -> str:
    state = c.get("/api/state").json()
    rows = [list(row) for row in state["cards"]["rows"]]
    column = state["cards"]["columns"].index("value")
    (row,) = [r for r in rows if r[state["cards"]["columns"].index("id")] == "TE13"]
    row[column] = "10"
    body = {"game": "peer-to-peer", "players": [4], "page": PAGE, "games": 2000,
            "chunk": 1000, "width": 0.01, "strategies": {},
            "cards": {"columns": state["cards"]["columns"], "rows": rows},
            "rules": {o["key"]: o["value"] for o in state["rules"]}}
    answer = c.post("/api/run", json=body)
    assert answer.status_code == 200, answer.text
    ident = answer.json()["id"]
    deadline = time.monotonic() + 300
    while c.get(f"/api/run/{ident}").json()["state"] in ("starting", "running"):
        assert time.monotonic() < deadline
        time.sleep(0.1)
    return ident


def test_a_game_of_a_comparison_opens_in_the_viewer_side_by_side(tmp_path):
    with _client(tmp_path) as c:
        ident = _run_technology_13_at_10(c)
        page = c.get(f"/game/{ident}/4/26")
        wrong_players = c.get(f"/game/{ident}/3/3")
        beyond = c.get(f"/game/{ident}/4/2000")
        unknown = c.get("/game/nosuchrun/4/3")
    assert page.status_code == 200, page.text
    assert "script-src 'unsafe-inline'" in page.headers["content-security-policy"]
    assert "default-src 'none'" in page.headers["content-security-policy"]
    data = json.loads(re.search(r'<script type="application/json" id="story-data">(.*?)</script>',
                                page.text, re.S).group(1))
    assert len(data["stories"]) == 2
    assert data["divergence"]["step"] == 1     # as `simulate trace --compare-cards` says
    assert any("Technology 10" in change for change in data["changes"])
    assert wrong_players.status_code == 400 and "played 4 players" in wrong_players.text
    assert beyond.status_code == 400 and unknown.status_code == 404
