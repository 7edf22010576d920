"""The workbench's endpoints, through Starlette's TestClient.

Most tests use the fast fake game (tests/support/fake_game.py, no numba); the ones about real
cards and rule options read Peer-to-Peer's loaders (no game is played there).
"""
from __future__ import annotations

import copy
import json
import math
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from repo_paths import REPO_ROOT

from sim import api
from sim.cli import main
from sim.core import paired
from sim.core.errors import UserError
from sim.core.game import resolve_game

from starlette.testclient import TestClient

from sim.workbench import compare, inputs
from sim.workbench.app import create_app
from sim.workbench.bench import Settings

pytestmark = [pytest.mark.usefixtures("fake_game_registered")]
PAGE = "page-0123456789"


def client(tmp_path: Path, **settings) -> TestClient:
    start = tmp_path / "start"
    start.mkdir(parents=True, exist_ok=True)
    options = {"game": "fake", "allowed_hosts": ("testserver",), **settings}
    return TestClient(create_app(Settings(start_dir=start, **options)))


def renamed(body: dict) -> dict:
    """The fake game's edit: a card renamed (a new card file: other games, same indices)."""
    body["cards"]["rows"][0][1] = "Router Mk2"
    return body


def edit_body(state: dict, **changes) -> dict:
    body = {"game": state["game"], "players": [state["default_players"]],
            "cards": {"columns": state["cards"]["columns"],
                      "rows": copy.deepcopy(state["cards"]["rows"])},
            "strategies": {}}
    if state["rules"] is None:
        body["rules_text"] = ""
    else:
        body["rules"] = {o["key"]: o["value"] for o in state["rules"]}
    body.update(changes)
    return body


def wait(c: TestClient, ident: str, seconds: float = 60) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        snap = c.get(f"/api/run/{ident}").json()
        if snap["state"] not in ("starting", "running") or time.monotonic() > deadline:
            return snap
        time.sleep(0.05)


# ----------------------------------------------------------------------------- state
def test_state_shows_every_column_of_the_card_file_and_every_rule_option(tmp_path):
    with client(tmp_path, game="peer-to-peer") as c:
        state = c.get("/api/state").json()
    game = resolve_game("peer-to-peer")
    text = Path(game.default_cards_path()).read_text(encoding="utf-8")
    header = next(line for line in text.splitlines() if line and not line.startswith("#"))
    assert state["cards"]["columns"] == header.split(",")
    assert len(state["cards"]["rows"]) == 54
    options = inputs.rule_options(game)
    assert [o["key"] for o in state["rules"]] == list(options.options)
    by_key = {o["key"]: o for o in state["rules"]}
    assert by_key["hand_size"]["default"] == "4" and by_key["hand_size"]["rule_id"] == "P2P-S4"
    assert by_key["odd_team_compensation"]["choices"] == ["extra_venture",
                                                          "extra_venture_empty", "none"]
    assert state["default_strategy"] == game.default_strategy
    assert state["slots"]["4"] == ["A", "B"]
    assert state["player_counts"] == list(game.player_counts)


def test_state_of_the_other_game_has_its_own_columns_and_seats(tmp_path):
    with client(tmp_path, game="peer-to-peer") as c:
        state = c.get("/api/state?game=plai").json()
        unknown = c.get("/api/state?game=chess")
    assert state["cards"]["columns"][:4] == ["id", "name", "type", "strength"]
    assert state["slots"]["3"] == ["seat0", "seat1", "seat2"]
    assert state["strategy_kind"] == "seats"
    assert unknown.status_code == 400 and "unknown game 'chess'" in unknown.json()["error"]


# ----------------------------------------------------------------------------- validate
def _cli_error(tmp_path: Path, state: dict, rows) -> UserError:
    """What the CLI's loader says about the same card file."""
    sheet = inputs.CardSheet(state["cards"]["comments"], state["cards"]["columns"], rows)
    path = tmp_path / inputs.CARDS_NAME
    path.write_text(sheet.text(), encoding="utf-8")
    with pytest.raises(UserError) as caught:
        api.configure("peer-to-peer", 4, str(path))
    return caught.value


def test_a_bad_cell_gets_the_cli_loaders_words_beside_it(tmp_path):
    with client(tmp_path, game="peer-to-peer") as c:
        state = c.get("/api/state").json()
        columns = state["cards"]["columns"]
        body = edit_body(state)
        body["cards"]["rows"][7][columns.index("value")] = "seven"
        answer = c.post("/api/validate", json=body).json()
        good = c.post("/api/validate", json=edit_body(state)).json()
    expected = _cli_error(tmp_path, state, body["cards"]["rows"])
    assert good == {"ok": True, "problem": None}
    assert answer["ok"] is False
    problem = answer["problem"]
    assert (problem["part"], problem["row"], problem["field"]) == ("cards", 7, "value")
    assert problem["message"] == expected.message
    # the CLI's line, with the file named as the page names it
    assert problem["cli"] == str(expected).replace(str(tmp_path / inputs.CARDS_NAME),
                                                   inputs.CARDS_NAME)


def test_a_bad_rule_value_points_at_its_option(tmp_path):
    with client(tmp_path, game="peer-to-peer") as c:
        state = c.get("/api/state").json()
        body = edit_body(state)
        body["rules"]["hand_size"] = "lots"
        problem = c.post("/api/validate", json=body).json()["problem"]
    assert (problem["part"], problem["field"]) == ("rules", "hand_size")
    assert "'hand_size' expects an integer" in problem["message"]


def test_a_bad_strategy_is_reported_for_the_strategies(tmp_path):
    with client(tmp_path, game="peer-to-peer") as c:
        state = c.get("/api/state").json()
        problem = c.post("/api/validate", json=edit_body(
            state, strategies={"A": "nosuchstrategy"})).json()["problem"]
    assert problem["part"] == "strategies" and "nosuchstrategy" in problem["message"]


@pytest.mark.parametrize("spec", ["nosuchstrategy", "cautious:nosuchweight=1"])
def test_a_bad_plai_seat_strategy_is_reported_for_that_seat(tmp_path, spec):
    with client(tmp_path, game="plai") as c:
        state = c.get("/api/state").json()
        problem = c.post("/api/validate", json=edit_body(
            state, players=[3], strategies={"seat1": spec})).json()["problem"]
    assert (problem["part"], problem["field"]) == ("strategies", "seat1"), problem
    assert spec.split(":")[-1].split("=")[0] in problem["cli"]


def test_malformed_requests_get_one_line_errors_and_the_server_keeps_serving(tmp_path):
    with client(tmp_path) as c:
        state = c.get("/api/state").json()
        cases = [
            c.post("/api/validate", content=b"{not json", headers={"Content-Type": "application/json"}),
            c.post("/api/validate", json=[1, 2]),
            c.post("/api/validate", json={"players": "four"}),
            c.post("/api/validate", json=edit_body(state, cards={"columns": ["id"], "rows": [[1]]})),
            c.post("/api/validate", json=edit_body(state, players=[9])),
            c.post("/api/run", json=edit_body(state)),                      # no page id
            c.get("/api/run/nosuchid"),
            c.get("/no/such/page"),
        ]
        still = c.get("/api/state")
    assert [r.status_code for r in cases] == [400, 400, 400, 400, 400, 400, 404, 404]
    for r in cases:
        assert "\n" not in r.json()["error"] and r.json()["error"]
    assert "fake is played by 2, 3, 4 players, not 9" in cases[4].json()["error"]
    assert still.status_code == 200


# ----------------------------------------------------------------------------- guards
def test_foreign_host_and_origin_are_refused_and_own_origin_passes(tmp_path):
    with client(tmp_path) as c:
        host = c.get("/api/state", headers={"Host": "attacker.example:8765"})
        origin = c.post("/api/validate", json={}, headers={"Origin": "http://attacker.example"})
        null = c.get("/", headers={"Origin": "null"})
        own = c.get("/api/state", headers={"Origin": "http://testserver"})
    assert host.status_code == 403 and "Host 'attacker.example:8765'" in host.json()["error"]
    assert origin.status_code == 403 and "Origin" in origin.json()["error"]
    assert null.status_code == 403
    assert own.status_code == 200


def test_the_hosts_a_server_answers_to():
    from sim.workbench.server import allowed_hosts, machine_names

    local = allowed_hosts("127.0.0.1", 8765)
    assert set(local) == {"127.0.0.1:8765", "localhost:8765", "[::1]:8765"}
    wildcard = allowed_hosts("0.0.0.0", 9000)
    assert {f"{name}:9000" for name in machine_names()} <= set(wildcard)
    assert "attacker.example:9000" not in wildcard


def test_request_size_and_game_count_are_capped(tmp_path):
    with client(tmp_path, max_games=5000) as c:
        state = c.get("/api/state").json()
        big = c.post("/api/validate", content=b"{" + b" " * 1_100_000 + b"}",
                     headers={"Content-Type": "application/json"})
        many = c.post("/api/run", json=edit_body(state, page=PAGE, games=6000))
        rows = c.post("/api/validate", json=edit_body(state, cards={
            "columns": ["id", "name", "power"], "rows": [["1", "a", "1"]] * 2001}))
    assert big.status_code == 413
    assert many.status_code == 400 and "at most 5,000 games" in many.json()["error"]
    assert rows.status_code == 400 and "at most 2000 card rows" in rows.json()["error"]


def test_the_page_and_its_script_load_nothing_from_elsewhere(tmp_path):
    with client(tmp_path) as c:
        page = c.get("/")
        script = c.get("/static/app.js")
        other = c.get("/static/../app.py")
    assert page.status_code == 200 and "default-src 'self'" in page.headers["content-security-policy"]
    # the SVG namespace is a name (createElementNS), not a resource
    for text in (page.text, script.text.replace('"http://www.w3.org/2000/svg"', "")):
        assert "http://" not in text and "https://" not in text and "//cdn" not in text
    assert other.status_code == 404


# ----------------------------------------------------------------------------- run
def _played(run_dir: str) -> pl.DataFrame:
    return pl.read_parquet(Path(run_dir) / "games" / "*.parquet").sort("game_index")


def test_run_pairs_the_sides_game_by_game_and_decides_by_the_until_ci_rule(tmp_path):
    with client(tmp_path) as c:
        state = c.get("/api/state").json()
        body = renamed(edit_body(state, page=PAGE, games=40000, chunk=4000, width=3,
                                 strategies={"A": "greedy"}))
        started = c.post("/api/run", json=body).json()
        snap = wait(c, started["id"])
        bench = c.app.state.bench
        dirs = bench.comparisons[started["id"]].run_dirs[4]
        base, edit = _played(dirs["baseline"]), _played(dirs["edit"])  # removed at shutdown
    assert started["looks_planned"] == 10 and started["chunk"] == 4000
    assert snap["state"] == "decided", snap["reason"]
    assert snap["verdict"]["reason"] == "every difference interval is narrower than 3 pp"
    n = snap["games_per_side"]
    assert base.height == edit.height == n and n % 4000 == 0
    assert (base["game_index"] == edit["game_index"]).all()
    # the paired difference, worked out from the two tables directly
    row = next(r for r in snap["points"][0]["rows"] if r["headline"] == "team A win rate")
    d = (edit["winner"].to_numpy() == 0).astype(int) - (base["winner"].to_numpy() == 0).astype(int)
    z = snap["z"]
    half = z * d.std(ddof=1) / np.sqrt(n)
    assert row["difference"]["mean"] == pytest.approx(d.mean())
    assert row["difference"]["width_pp"] == pytest.approx(200 * half)
    assert row["discordant"] == int((d != 0).sum())
    assert row["baseline"]["rate"] == pytest.approx((base["winner"] == 0).mean())
    assert all(r["difference"]["width_pp"] < 3 for r in snap["points"][0]["rows"])
    assert snap["widths"][-1] < 3 <= snap["widths"][-2]      # stopped at the first narrow look
    assert snap["widths"] == sorted(snap["widths"], reverse=True)  # it narrows look by look
    assert snap["z"] == pytest.approx(compare.z_for_looks(10))
    assert snap["points"][0]["balance"] == {"baseline": None, "edit": None}   # no measure
    assert "--team-a greedy" in snap["commands"]["edit"]
    assert f"--games {n} " in snap["commands"]["edit"]      # the games played, not the cap


def test_an_ended_comparisons_command_lines_play_the_games_it_played(tmp_path, monkeypatch):
    """--until-ci stops on each side's own rates, the page on the paired difference: once
    the comparison has ended, its command lines name the games it played instead."""
    monkeypatch.setenv("FAKE_GAME_DELAY", "0.05")
    with client(tmp_path) as c:
        state = c.get("/api/state").json()
        body = renamed(edit_body(state, page=PAGE, games=100000, chunk=1000, width=0.01))
        ident = c.post("/api/run", json=body).json()["id"]
        running = c.get(f"/api/run/{ident}").json()
        while c.get(f"/api/run/{ident}").json()["looks"] < 2:
            time.sleep(0.05)
        c.post(f"/api/run/{ident}/stop")
        snap = wait(c, ident)
    assert "--games 100000 " in running["commands"]["edit"]
    assert "--until-ci" in running["commands"]["edit"]
    assert "need not stop where the page does" in running["commands"]["note"]
    played = snap["games_per_side"]
    assert snap["state"] == "stopped" and played < 100000
    for side in ("edit", "baseline"):
        assert f"--games {played} --seed 1" in snap["commands"][side]
        assert "--until-ci" not in snap["commands"][side]
    assert "print the page's numbers" in snap["commands"]["note"]


def test_the_workbench_and_simulate_compare_agree(tmp_path, runner):
    """The workbench's comparison and `simulate compare` of its two runs are the same
    tally (sim.core.paired): the same rates, differences (at the workbench's z), discordant
    games and changed games by kind."""
    with client(tmp_path) as c:
        state = c.get("/api/state").json()
        ident = c.post("/api/run", json=renamed(edit_body(
            state, page=PAGE, games=3000, chunk=1000, width=0.01))).json()["id"]
        snap = wait(c, ident)
        dirs = c.app.state.bench.comparisons[ident].run_dirs[4]
        result = api.compare(dirs["baseline"], dirs["edit"])
        cli = runner.invoke(main, ["compare", dirs["baseline"], dirs["edit"], "--json"])
    point = snap["points"][0]
    assert result.games == point["games"] == 3000
    assert result.tally.rows(snap["z"]) == point["rows"]
    assert result.tally.changed(shown=compare.SHOWN_INDICES) == point["changed"]
    assert result.tally.changed_count() == point["changed_games"] > 0
    data = json.loads(cli.output)
    assert [r["discordant"] for r in data["headlines"]] == [r["discordant"] for r in point["rows"]]
    assert [(k["from"], k["to"], k["count"], k["games"][:compare.SHOWN_INDICES])
            for k in data["changed"]] == [(k["from"], k["to"], k["count"], k["games"])
                                         for k in point["changed"]]


def test_changed_games_expand_to_every_index(tmp_path):
    """The snapshot lists each kind of change with its first indices; the changed-games
    endpoint gives all of them (worked out here from the two tables)."""
    with client(tmp_path) as c:
        state = c.get("/api/state").json()
        ident = c.post("/api/run", json=renamed(edit_body(
            state, page=PAGE, games=3000, chunk=1000, width=0.01))).json()["id"]
        snap = wait(c, ident)
        dirs = c.app.state.bench.comparisons[ident].run_dirs[4]
        base, edit = _played(dirs["baseline"]), _played(dirs["edit"])
        kinds = snap["points"][0]["changed"]
        full = [c.get(f"/api/run/{ident}/changed", params={"players": 4, "from": k["from"],
                                                           "to": k["to"]}).json()
                for k in kinds]
        refused = [c.get(f"/api/run/{ident}/changed", params={"players": 4, "from": "a"}),
                   c.get(f"/api/run/{ident}/changed", params={"players": 3, "from": "a",
                                                              "to": "b"}),
                   c.get("/api/run/nothing/changed", params={"players": 4}),
                   c.get(f"/game/{ident}/4/0")]        # the fake game tells no story
    names = {0: "team A win", 1: "team B win", 2: "draw"}
    b, e = base["winner"].to_numpy(), edit["winner"].to_numpy()
    expected = {}
    for index in np.flatnonzero(b != e):
        expected.setdefault((names[b[index]], names[e[index]]), []).append(int(index))
    assert {(k["from"], k["to"]): k["games"] for k in full} == expected
    assert [k["count"] for k in kinds] == [len(k["games"]) for k in full]
    assert all(k["games"] == f["games"][:compare.SHOWN_INDICES] for k, f in zip(kinds, full))
    assert sum(k["count"] for k in kinds) == snap["points"][0]["changed_games"]
    assert [r.status_code for r in refused] == [400, 400, 404, 400]
    assert "played 4 players, not 3" in refused[1].json()["error"]
    assert "cannot tell a game as a story" in refused[3].json()["error"]


def test_each_look_keeps_its_difference_intervals(tmp_path):
    with client(tmp_path) as c:
        state = c.get("/api/state").json()
        ident = c.post("/api/run", json=renamed(edit_body(
            state, page=PAGE, games=4000, chunk=1000, width=0.01))).json()["id"]
        snap = wait(c, ident)
    history = snap["history"]
    assert [h["look"] for h in history] == [1, 2, 3, 4]
    assert [h["games"] for h in history] == [1000, 2000, 3000, 4000]
    last = {r["headline"]: [r["difference"][k] for k in ("mean", "lo", "hi")]
            for r in snap["points"][0]["rows"]}
    assert history[-1]["intervals"]["4"] == last
    widths = [max(hi - lo for _, lo, hi in h["intervals"]["4"].values()) for h in history]
    assert [round(200 * w / 2, 9) for w in widths] == [round(w, 9) for w in snap["widths"]]


def finished_patience_edit(c) -> str:
    """A finished comparison of customer_patience 3 against the default, 2,000 games."""
    state = c.get("/api/state").json()
    body = edit_body(state, page=PAGE, games=2000, chunk=1000, width=0.001)
    body["rules"]["customer_patience"] = "3"
    ident = c.post("/api/run", json=body).json()["id"]
    wait(c, ident, seconds=120)
    return ident


def test_an_example_game_of_each_answer_comes_from_the_edits_games(tmp_path):
    """After the report, "show an example" of an answer: the game the game's query picks
    from the edit's games table (here checked against that table), opened in the viewer."""
    with client(tmp_path, game="peer-to-peer") as c:
        ident = finished_patience_edit(c)
        early = c.post(f"/api/example/{ident}", json={"question": "all_lose", "players": 4})
        made = c.post(f"/api/report/{ident}").json()
        found = {q: c.post(f"/api/example/{ident}", json={"question": q, "players": 4})
                 for q in ("all_lose", "first_marker", "team_balance")}
        again = c.post(f"/api/example/{ident}", json={"question": "all_lose", "players": 4})
        unknown = c.post(f"/api/example/{ident}", json={"question": "chess", "players": 4})
        wrong = c.post(f"/api/example/{ident}", json={"question": "all_lose", "players": 5})
        edit = _played(c.app.state.bench.comparisons[ident].run_dirs[4]["edit"])
        viewer = c.get(found["all_lose"].json()["viewer"])
    assert early.status_code == 400 and "make the balance report of the edit side first" in early.json()["error"]
    assert {"all_lose", "first_marker", "team_balance"} <= set(made["examples"])
    assert all(r.status_code == 200 for r in found.values()), {q: r.text for q, r in found.items()}
    lose = found["all_lose"].json()
    winner = edit["winner"].to_numpy()
    assert lose["example"]["game_index"] == int(np.flatnonzero(winner == 3)[0])  # the first
    assert lose["side"] == "edit" and lose["example"]["games"] == edit.height
    assert lose["viewer"] == f"/game/{ident}/4/{lose['example']['game_index']}"
    marker = found["first_marker"].json()["example"]
    row = edit.row(marker["game_index"], named=True)
    answer = next(a for a in made["answers"] if a["question"] == "first_marker")
    holder_won = row["winner"] == row["first_marker"]
    assert holder_won == (answer["value"] >= answer["even"])
    assert "with the marker given to team" in marker["words"]
    balance = found["team_balance"].json()["example"]
    row = edit.row(balance["game_index"], named=True)
    team = "a" if row["winner"] == 0 else "b"
    assert row[f"contests_domain_won_{team}"] > 0
    assert again.json() == lose
    assert unknown.status_code == 404 and wrong.status_code == 400
    assert viewer.status_code == 200, viewer.text
    data = json.loads(re.search(r'<script type="application/json" id="story-data">(.*?)</script>',
                                viewer.text, re.S).group(1))
    assert len(data["stories"]) == 2                  # the baseline and the edit
    assert all(f"game {lose['example']['game_index']}" in " ".join(s["header"])
               for s in data["stories"])


def test_the_balance_report_is_of_one_sides_games_never_both_pooled(tmp_path):
    """The report of a comparison answers for the edit's games (the game being considered)
    unless the baseline's are asked for, and says which; its example comes from that side."""
    with client(tmp_path, game="peer-to-peer") as c:
        ident = finished_patience_edit(c)
        made = {side: c.post(f"/api/report/{ident}", json=asked).json() for side, asked in
                (("edit", None), ("baseline", {"side": "baseline"}))}
        pages = {side: c.get(made[side]["url"]).text for side in made}
        example = c.post(f"/api/example/{ident}", json={"question": "all_lose", "players": 4,
                                                        "side": "baseline"}).json()
        odd = c.post(f"/api/report/{ident}", json={"side": "both"})
        dirs = c.app.state.bench.comparisons[ident].run_dirs[4]
        tables = {side: _played(dirs[side]) for side in ("baseline", "edit")}
    for side, table in tables.items():
        answer = next(a for a in made[side]["answers"] if a["question"] == "all_lose")
        assert answer["value"] == pytest.approx((table["winner"] == 3).mean())
        assert made[side]["side"] == side
        assert f"({side} side)" in pages[side]
    assert made["edit"]["answers"] != made["baseline"]["answers"]
    winner = tables["baseline"]["winner"].to_numpy()
    assert example["side"] == "baseline"
    assert example["example"]["game_index"] == int(np.flatnonzero(winner == 3)[0])
    assert odd.status_code == 400 and "'side'" in odd.json()["error"]


def test_writing_a_report_leaves_the_server_answering_other_requests(tmp_path,
                                                                     monkeypatch):
    import threading

    import reports.build

    writing, release = threading.Event(), threading.Event()
    write_report = reports.build.write_report

    def slow_write_report(*args, **kwargs):
        writing.set()
        release.wait(30)
        return write_report(*args, **kwargs)

    monkeypatch.setattr(reports.build, "write_report", slow_write_report)
    with client(tmp_path) as c:
        state = c.get("/api/state").json()
        ident = c.post("/api/run", json=renamed(edit_body(
            state, page=PAGE, games=2000, chunk=1000, width=0.01))).json()["id"]
        wait(c, ident)
        made = {}
        writer = threading.Thread(target=lambda: made.update(
            answer=c.post(f"/api/report/{ident}", json={})))
        writer.start()
        assert writing.wait(30)
        started = time.monotonic()
        polled = c.get(f"/api/run/{ident}")          # answered while the report is written
        answered_in = time.monotonic() - started
        release.set()
        writer.join(60)
    assert polled.status_code == 200 and answered_in < 5
    assert made["answer"].status_code == 200, made["answer"].text


def test_each_side_shows_the_balance_answer_of_the_summary_and_the_report(tmp_path):
    from sim.games.peer_to_peer.measures import team_balance

    with client(tmp_path, game="peer-to-peer") as c:
        state = c.get("/api/state").json()
        body = edit_body(state, page=PAGE, games=2000, chunk=1000, width=0.001)
        body["rules"]["customer_patience"] = "3"
        started = c.post("/api/run", json=body).json()
        snap = wait(c, started["id"], seconds=120)
        dirs = c.app.state.bench.comparisons[started["id"]].run_dirs[4]
        tables = {side: _played(dirs[side]) for side in ("baseline", "edit")}
    assert snap["state"] == "capped", snap["reason"]
    for side, table in tables.items():
        w = table["winner"].to_numpy()
        same = team_balance(int((w == 0).sum()), int(((w == 0) | (w == 1)).sum()), 4, 2.0)
        shown = snap["points"][0]["balance"][side]
        assert shown["question"] == "team_balance" and shown["words"] == same["words"]
        assert shown["value"] == pytest.approx(same["value"])
    # and its paired difference, at the table's z, as the delta method gives it from both
    from sim.core.attribution import contrast
    from sim.games.peer_to_peer.measures import team_balance_measure

    measure = team_balance_measure(4)
    direct = contrast([measure.arrays(tables[side].sort("game_index"))
                       for side in ("baseline", "edit")], [-1.0, 1.0], z=snap["z"])
    change, = snap["points"][0]["balance_change"]
    assert change["label"] == "team A's share of the games won by a team"
    assert (change["difference"]["mean"], change["difference"]["lo"],
            change["difference"]["hi"]) == pytest.approx((direct["est"], direct["lo"],
                                                          direct["hi"]), abs=1e-12)
    # why the all-lose rate changed: each cause's unhappy customers of all-lose games per
    # game, paired, at the table's z, straight from both tables
    from sim.games.peer_to_peer import constants as k

    causes = snap["points"][0]["all_lose_causes"]
    joined = tables["baseline"].join(tables["edit"], on="game_index", suffix="_edit")
    for row in causes["rows"][:-1]:
        c = row["cause"]
        b = joined[f"unhappy_{c}"] * (joined["winner"] == k.ALL_LOSE)
        e = joined[f"unhappy_{c}_edit"] * (joined["winner_edit"] == k.ALL_LOSE)
        d = (e - b).cast(pl.Float64)
        half = snap["z"] * d.std() / math.sqrt(len(d)) if d.std() else 0.0
        assert (row["baseline"], row["edit"]) == pytest.approx((b.mean(), e.mean()), abs=1e-12)
        assert (row["difference"]["lo"], row["difference"]["hi"]) == pytest.approx(
            (d.mean() - half, d.mean() + half), abs=1e-12)
    assert [r["cause"] for r in causes["rows"]] == ["deck", "draw", "capacity", "choice", "all"]


def test_the_verdict_names_a_solo_game_as_one_player():
    from types import SimpleNamespace

    from sim.workbench.app import verdict_notes

    comparison = SimpleNamespace(command_info={"same_game": False}, plan=SimpleNamespace(
        strategies={1: {"A": "greedy"}, 4: {"A": "greedy"}}))
    (note,) = verdict_notes(comparison)
    assert "(1 player: A greedy; 4 players: A greedy)" in note


def test_the_verdict_says_the_strategies_are_both_sides_players(tmp_path):
    """A strategy box sets the players of both sides: a verdict "changed no game" must not
    read as "the strategy did nothing"."""
    with client(tmp_path) as c:
        state = c.get("/api/state").json()
        body = edit_body(state, page=PAGE, games=2000, chunk=1000, width=50,
                         strategies={"A": "greedy"})
        same = wait(c, c.post("/api/run", json=body).json()["id"])
        edited = wait(c, c.post("/api/run", json=renamed(body)).json()["id"])
        page = c.get("/").text
    notes = " ".join(same["verdict"]["notes"])
    assert "both sides are the same game" in notes
    assert "Both sides played the strategies chosen (4 players: A greedy)" in notes
    assert "not about what a strategy does" in notes
    assert not any("same game" in n for n in edited["verdict"]["notes"])
    assert "players of <strong>both" in page


def capped_renamed_edit(tmp_path):
    """The last snapshot of a renamed-card edit run to its cap of 3,000 games."""
    with client(tmp_path) as c:
        state = c.get("/api/state").json()
        ident = c.post("/api/run", json=renamed(edit_body(state, page=PAGE, games=3000,
                                                          chunk=1000, width=0.01))).json()["id"]
        return wait(c, ident)


def test_the_verdict_lines_say_their_intervals_are_at_the_stopping_rules_z(tmp_path):
    snap = capped_renamed_edit(tmp_path)
    lines = [line for line, row in zip(snap["verdict"]["lines"], snap["points"][0]["rows"])
             if row["discordant"] > 0]
    assert lines
    assert all(line.endswith(f"(interval at the stopping rule's z = {snap['z']:.2f})")
               for line in lines)


def test_the_cap_ends_a_run_whose_intervals_stay_wide(tmp_path):
    snap = capped_renamed_edit(tmp_path)
    assert snap["state"] == "capped" and snap["looks"] == 3 and snap["progress"] == 1
    assert "reached the cap of 3,000 games" in snap["verdict"]["reason"]


def long_renamed_edit_two_looks_in(c):
    """A renamed-card edit of up to 100,000 games, started and two looks in: (its request
    body, its id)."""
    state = c.get("/api/state").json()
    body = renamed(edit_body(state, page=PAGE, games=100000, chunk=1000, width=0.01))
    ident = c.post("/api/run", json=body).json()["id"]
    while c.get(f"/api/run/{ident}").json()["looks"] < 2:
        time.sleep(0.05)
    return body, ident


def test_stop_keeps_the_finished_chunks_and_one_run_at_a_time_per_page(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_GAME_DELAY", "0.05")
    with client(tmp_path) as c:
        body, ident = long_renamed_edit_two_looks_in(c)
        second = c.post("/api/run", json=body)
        other_page = c.post("/api/run", json={**body, "page": "another-page-id"})
        assert c.post(f"/api/run/{ident}/stop").status_code == 200
        c.post(f"/api/run/{other_page.json()['id']}/stop")
        snap = wait(c, ident)
        kept = _played(c.app.state.bench.comparisons[ident].run_dirs[4]["edit"]).height
        again = c.post("/api/run", json={**body, "games": 2000})
    assert second.status_code == 409 and "already runs a comparison" in second.json()["error"]
    assert other_page.status_code == 200
    assert snap["state"] == "stopped" and snap["looks"] >= 2 and snap["verdict"] is None
    assert kept == snap["games_per_side"] == 1000 * snap["looks"]
    assert again.status_code == 200   # the page may run again once stopped


def test_the_game_viewer_serves_only_the_games_the_comparison_played(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_GAME_DELAY", "0.05")
    with client(tmp_path) as c:
        _, ident = long_renamed_edit_two_looks_in(c)
        c.post(f"/api/run/{ident}/stop")
        played = wait(c, ident)["games_per_side"]
        beyond = c.get(f"/game/{ident}/4/{played}")
        last_of_cap = c.get(f"/game/{ident}/4/99999")
    assert played < 100000
    for answer in (beyond, last_of_cap):
        assert answer.status_code == 400
        assert f"beyond the {played:,} games this comparison played" in answer.json()["error"]


def test_a_page_keeps_its_last_comparisons_only(tmp_path):
    """Older comparisons of a page go with their folders (runs, files, report), so 30
    comparisons hold the disk (and memory) of two."""
    with client(tmp_path) as c:
        state = c.get("/api/state").json()
        body = renamed(edit_body(state, page=PAGE, games=1000, chunk=1000, width=0.01))
        idents = []
        for _ in range(4):
            idents.append(c.post("/api/run", json=body).json()["id"])
            wait(c, idents[-1])
        c.post("/api/save", json={**body, "cards_name": "kept.csv"})
        bench = c.app.state.bench
        folders = sorted(p.name for p in bench.work.iterdir() if p.name != "check")
        checks = list((bench.work / "check").iterdir())
        gone = c.get(f"/api/run/{idents[0]}")
    assert folders == sorted(idents[-2:])
    assert checks == []
    assert gone.status_code == 404


def test_a_page_that_stops_polling_stops_its_comparison(tmp_path, monkeypatch):
    monkeypatch.setenv("FAKE_GAME_DELAY", "0.05")
    with client(tmp_path, idle_seconds=0.3) as c:
        state = c.get("/api/state").json()
        ident = c.post("/api/run", json=renamed(edit_body(state, page=PAGE, games=100000,
                                                          chunk=500, width=0.01))).json()["id"]
        comparison = c.app.state.bench.comparisons[ident]
        comparison.thread.join(timeout=30)   # nobody polls
        snap = c.get(f"/api/run/{ident}").json()
    assert snap["state"] == "stopped" and "stopped asking" in snap["reason"]
    assert snap["looks"] < 200


def test_the_dask_backend_plays_the_same_comparison(tmp_path):
    pytest.importorskip("distributed")
    results = []
    for backend, options in (("local", {}), ("dask-local", {"workers": 1})):
        with client(tmp_path / backend, backend=backend, backend_options=options,
                    backend_flags=("--backend", backend) if backend != "local" else ()) as c:
            state = c.get("/api/state").json()
            ident = c.post("/api/run", json=renamed(edit_body(
                state, page=PAGE, games=4000, chunk=2000, width=0.01))).json()["id"]
            snap = wait(c, ident, 240)
            results.append((snap["state"], snap["points"], snap["commands"]["edit"]))
    assert results[0][0] == results[1][0] == "capped"
    assert results[0][1] == results[1][1]          # the same numbers on either backend
    assert results[1][2].endswith("--backend dask-local")


# ----------------------------------------------------------------------------- keeping
def test_save_writes_under_the_start_dir_only_and_the_cli_reads_it_back(tmp_path):
    with client(tmp_path, game="peer-to-peer") as c:
        state = c.get("/api/state").json()
        body = edit_body(state)
        columns = state["cards"]["columns"]
        body["cards"]["rows"][2][columns.index("value")] = "9"
        body["rules"]["hand_size"] = "5"
        saved = c.post("/api/save", json={**body, "cards_name": "mine.csv",
                                          "rules_name": "mine.yaml"})
        again = c.post("/api/save", json={**body, "cards_name": "mine.csv"})
        forced = c.post("/api/save", json={**body, "cards_name": "mine.csv", "overwrite": True})
        (tmp_path / "start" / "link").symlink_to(tmp_path)
        refused = [c.post("/api/save", json={**body, "cards_name": name}) for name in
                   ("../out.csv", str(tmp_path / "abs.csv"), "link/escape.csv", "a/../../b.csv",
                    "mine.txt", "~/x.csv")]
        state_after = c.get("/api/state").json()
    assert saved.status_code == 200, saved.text
    assert saved.json()["written"] == {"cards": "mine.csv", "rules": "mine.yaml"}
    assert again.status_code == 400 and "exists" in again.json()["error"]
    assert forced.status_code == 200
    assert [r.status_code for r in refused] == [400] * 6
    assert all("outside" in r.json()["error"] for r in refused[:4])
    assert not (tmp_path / "out.csv").exists() and not (tmp_path / "escape.csv").exists()
    assert not (tmp_path / "abs.csv").exists()
    config = api.configure("peer-to-peer", 4, str(tmp_path / "start" / "mine.csv"),
                           str(tmp_path / "start" / "mine.yaml"))
    row = body["cards"]["rows"][2]
    assert int(config.cards.value[list(config.cards.ids).index(row[0])]) == 9
    assert config.rules["hand_size"] == 5
    assert state_after["saved"] == {"cards": "mine.csv", "rules": "mine.yaml"}


def test_the_command_names_a_saved_file_only_while_it_holds_the_edit_played(tmp_path):
    with client(tmp_path) as c:
        state = c.get("/api/state").json()
        edit = renamed(edit_body(state, page=PAGE, games=2000, chunk=1000, width=50))
        assert c.post("/api/save", json={**edit, "cards_name": "mine.csv"}).status_code == 200
        first = wait(c, c.post("/api/run", json=edit).json()["id"])
        # mine.csv saved, then a different edit played: the file does not hold it
        edit["cards"]["rows"][0][1] = "Router Mk3"
        second = wait(c, c.post("/api/run", json=edit).json()["id"])
    assert "--cards mine.csv" in first["commands"]["edit"]
    assert "mine.csv" not in second["commands"]["edit"]
    assert "--cards EDITED-CARDS.csv" in second["commands"]["edit"]


def test_each_player_counts_command_line_has_its_own_seats_and_the_chunk_set(tmp_path):
    with client(tmp_path, game="plai") as c:
        state = c.get("/api/state").json()
        body = edit_body(state, page=PAGE, games=1000, chunk=500, width=50, players=[3, 4],
                         strategies={"seat0": "cautious", "seat3": "bluffer"})
        snap = wait(c, c.post("/api/run", json=body).json()["id"], 120)
        auto = wait(c, c.post("/api/run", json={**body, "chunk": ""}).json()["id"], 120)
    for side in ("edit", "baseline"):
        three, four = snap["commands"][side].splitlines()
        assert "--players 3 " in three and "--seat 0=cautious" in three and "--seat 3" not in three
        assert "--players 4 " in four and "--seat 0=cautious --seat 3=bluffer" in four
        assert three.endswith("--chunk-size 500") and four.endswith("--chunk-size 500")
        assert "--chunk-size" not in auto["commands"][side]      # the page left it to the rule


def test_an_edit_that_left_the_rules_alone_names_the_baselines_rules_file(tmp_path):
    start = tmp_path / "start"
    start.mkdir()
    (start / "base-rules.yaml").write_text("customer_patience: 3\n", encoding="utf-8")
    with client(tmp_path, game="peer-to-peer", rules=str(start / "base-rules.yaml")) as c:
        state = c.get("/api/state").json()
        body = edit_body(state, page=PAGE, games=1000, chunk=1000, width=50)
        body["cards"]["rows"][2][state["cards"]["columns"].index("value")] = "9"
        alone = wait(c, c.post("/api/run", json=body).json()["id"], 120)
        body["rules"]["customer_patience"] = "4"
        edited = wait(c, c.post("/api/run", json=body).json()["id"], 120)
    assert "--rules base-rules.yaml" in alone["commands"]["edit"]
    assert "EDITED-RULES" not in alone["commands"]["edit"]
    assert "--rules EDITED-RULES.yaml" in edited["commands"]["edit"]
    assert "--rules base-rules.yaml" in edited["commands"]["baseline"]


def test_a_player_count_that_plays_like_another_says_so(tmp_path):
    """3 players with the default compensation play exactly like 4 (the run manifest's
    plays_like_players): the page is told, so identical numbers are explained."""
    with client(tmp_path, game="peer-to-peer") as c:
        state = c.get("/api/state").json()
        body = edit_body(state, page=PAGE, games=1000, chunk=1000, width=50, players=[3, 4])
        body["cards"]["rows"][2][state["cards"]["columns"].index("value")] = "9"
        snap = wait(c, c.post("/api/run", json=body).json()["id"], 120)
    assert {p["players"]: p["plays_like"] for p in snap["points"]} == {3: 4, 4: None}


def test_save_refuses_a_file_the_cli_would_refuse(tmp_path):
    with client(tmp_path, game="peer-to-peer") as c:
        state = c.get("/api/state").json()
        body = edit_body(state)
        body["cards"]["rows"][0][state["cards"]["columns"].index("domain")] = "Magic"
        answer = c.post("/api/save", json={**body, "cards_name": "bad.csv"})
    assert answer.status_code == 400 and answer.json()["problem"]["field"] == "domain"
    assert not (tmp_path / "start" / "bad.csv").exists()


def test_download_gives_the_edited_files(tmp_path):
    with client(tmp_path, game="peer-to-peer") as c:
        state = c.get("/api/state").json()
        body = edit_body(state)
        body["cards"]["rows"][0][state["cards"]["columns"].index("value")] = "4"
        body["rules"]["customer_patience"] = "3"
        cards = c.post("/api/download", json={**body, "kind": "cards"})
        rules = c.post("/api/download", json={**body, "kind": "rules"})
        bad = c.post("/api/download", json={**body, "kind": "../etc/passwd"})
    assert cards.headers["content-disposition"] == 'attachment; filename="edited-cards.csv"'
    comments = state["cards"]["comments"]
    assert cards.text.splitlines()[:len(comments)] == comments
    assert cards.text.splitlines()[len(comments) + 1].split(",")[3] == "4"   # after the header
    assert rules.text == "customer_patience: 3\n"
    assert bad.status_code == 400


def test_download_of_unedited_rules_gives_the_file_save_writes(tmp_path):
    with client(tmp_path, game="peer-to-peer") as c:
        state = c.get("/api/state").json()
        body = edit_body(state)
        downloaded = c.post("/api/download", json={**body, "kind": "rules"})
        saved = c.post("/api/save", json={**body, "rules_name": "unedited.yaml"})
    assert saved.status_code == 200, saved.text
    written = (tmp_path / "start" / "unedited.yaml").read_text(encoding="utf-8")
    assert downloaded.text == written == "# every rule option at its default\n"


def test_download_refuses_only_a_file_the_cli_would_refuse_itself(tmp_path):
    """A bad card cell refuses the card file as Save does, not the valid rule file; a
    strategy typo or no player count ticked refuses neither."""
    with client(tmp_path, game="peer-to-peer") as c:
        state = c.get("/api/state").json()
        body = edit_body(state)
        body["rules"]["customer_patience"] = "3"
        body["cards"]["rows"][7][state["cards"]["columns"].index("value")] = "seven"
        answers = {kind: c.post("/api/download", json={**body, "kind": kind})
                   for kind in ("cards", "rules")}
        saved = c.post("/api/save", json={**body, "cards_name": "bad.csv"})
        body["rules"]["customer_patience"] = "many"
        bad_rules = c.post("/api/download", json={**body, "kind": "rules"})
        good = edit_body(state, players=[], strategies={"A": "nosuchstrategy"})
        good["rules"]["customer_patience"] = "3"
        loose = {kind: c.post("/api/download", json={**good, "kind": kind})
                 for kind in ("cards", "rules")}
    cards = answers["cards"]
    assert cards.status_code == 400
    assert cards.json()["problem"] == saved.json()["problem"]
    assert (cards.json()["problem"]["row"], cards.json()["problem"]["field"]) == (7, "value")
    assert answers["rules"].status_code == 200 and answers["rules"].text == "customer_patience: 3\n"
    assert bad_rules.status_code == 400 and bad_rules.json()["problem"]["part"] == "rules"
    assert [loose[kind].status_code for kind in ("cards", "rules")] == [200, 200], loose
    assert loose["rules"].text == "customer_patience: 3\n"


def test_report_of_the_last_comparison(tmp_path):
    with client(tmp_path) as c:
        state = c.get("/api/state").json()
        body = renamed(edit_body(state, page=PAGE, games=4000, chunk=2000, width=0.01))
        ident = c.post("/api/run", json=body).json()["id"]
        early = c.post(f"/api/report/{ident}")
        wait(c, ident)
        made = c.post(f"/api/report/{ident}")
        html = c.get(made.json()["url"])
        answers = c.get(made.json()["answers_json"])
        other = c.get(f"/report/{ident}/manifest.json")
    assert early.status_code in (200, 400)
    assert made.status_code == 200, made.text
    assert html.status_code == 200 and "<html" in html.text.lower()
    assert answers.status_code == 200 and answers.json()["answers"] == made.json()["answers"]
    assert other.status_code == 404


# ----------------------------------------------------------------------------- pieces
def test_headline_indicators_follow_the_hook_and_refuse_a_non_row_wise_one():
    game = resolve_game("fake")
    games = pl.DataFrame({"winner": np.array([0, 1, 2, 0, 0], dtype=np.int8)})
    found = paired.headline_indicators(game, games, 4)
    assert found["team A win rate"].tolist() == [1, 0, 0, 1, 1]
    assert found["team B win rate"].tolist() == [0, 1, 0, 0, 0]

    class Odd:
        headline_columns = ("winner",)

        def headline_counts(self, games, players):   # counts 1 for any non-empty frame
            return {"odd": int(games.height > 0)}

    with pytest.raises(RuntimeError, match="game by game"):
        paired.headline_indicators(Odd(), games, 4)


def test_command_lines_use_the_cli_flags_of_the_games_strategy_kind():
    lines = inputs.command_lines("plai", resolve_game("plai"), [3], 7, 20000, 1.0,
                                 {3: {"seat1": "cautious"}}, "mine.csv", None, None, None,
                                 ("--backend", "dask-local"))
    assert lines["edit"] == ("simulate --game plai --players 3 --cards mine.csv --seat "
                             "1=cautious --games 20000 --seed 7 --until-ci 1 --backend dask-local")


def test_cli_workbench_has_help_and_refuses_a_bad_card_file_in_one_line(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    helped = subprocess.run([sys.executable, "-m", "sim.cli", "workbench", "--help"],
                            capture_output=True, text=True, env=env, timeout=120)
    bad = tmp_path / "bad.csv"
    bad.write_text("id,name\n1,x\n")
    refused = subprocess.run([sys.executable, "-m", "sim.cli", "workbench", "--cards", str(bad),
                              "--port", "0"], capture_output=True, text=True, env=env,
                             timeout=120)
    assert helped.returncode == 0 and "simulate workbench --game plai" in helped.stdout
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert str(bad) in refused.stderr


def test_a_choice_option_shows_its_choice_and_an_unedited_form_writes_no_rules():
    # PLAI's first_seat defaults to the choice '0': YAML would show it quoted ("'0'"), which
    # matched none of the select's choices, so the page sent "" and the run was refused.
    from sim.core.game import resolve_game
    from sim.workbench import inputs

    game = resolve_game("plai")
    form = {o["key"]: o for o in inputs.describe_options(game, None)}
    assert form["first_seat"]["value"] == "0" and "0" in form["first_seat"]["choices"]
    edit = inputs.rules_from_request({"rules": {k: o["value"] for k, o in form.items()}}, game)
    assert edit.text == ""


def test_a_comparison_shows_both_sides_curves_round_by_round(tmp_path):
    with client(tmp_path) as c:
        state = c.get("/api/state").json()
        body = renamed(edit_body(state, page=PAGE, games=8000, chunk=4000, width=0.01))
        started = c.post("/api/run", json=body).json()
        snap = wait(c, started["id"])
        dirs = c.app.state.bench.comparisons[started["id"]].run_dirs[4]
        played = {side: _played(dirs[side]) for side in ("baseline", "edit")}
    pace = snap["pace"]["4"]
    assert pace["unit"] == "round"
    assert [p["name"] for p in pace["panels"]] == ["progress"]
    assert set(pace["sides"]) == {"baseline", "edit"}
    def last_drawn(rounds):              # at least 30 games, and 0.5 % of them, reach it
        floor = max(30, -(-len(rounds) * 5 // 1000))
        return max(t for t in range(int(rounds.max()) + 1) if (rounds >= t).sum() >= floor)

    shorter = min(last_drawn(games["rounds"].to_numpy()) for games in played.values())
    for name, games in played.items():   # each side's curves are its own run's games
        side = pace["sides"][name]
        assert side["games"] == snap["games_per_side"] == games.height == 8000
        rounds = games["rounds"].to_numpy()
        assert side["running"] == [int((rounds >= t).sum()) for t in range(len(side["running"]))]
        assert side["curves"]["progress"]["mean"][:3] == [0.0, 1.0, 2.0]   # the round number
        # drawn while at least 30 games still run on each side: no band from a handful
        assert len(side["running"]) == shorter + 1
        assert side["running"][-1] >= 30
        assert len(side["curves"]["progress"]["lo"]) == len(side["running"])
    assert pace["sides"]["baseline"]["running"] != pace["sides"]["edit"]["running"]
    assert min(pace["sides"][s]["running"][-1] for s in ("baseline", "edit")) >= 30


def test_the_pace_curves_stop_where_either_side_runs_out_of_games(monkeypatch):
    """Both sides are drawn up to the last index each side still has 30 games at: the
    baseline's last 2 games do not draw a band past it because the edit's games go on."""
    from sim.core.curves import width
    from sim.runs import curve_files
    from sim.workbench.pace import pace

    game = resolve_game("fake")
    columns = 1 + 2 * len(game.curves.series(4))

    def sums(running):
        out = np.zeros((len(running), columns), dtype=np.int64)
        out[:, 0] = running
        t = np.arange(len(running))
        w = width(out)
        out[:, 1:1 + w] = (np.asarray(running) * t)[:, None]        # every game at t
        out[:, 1 + w:] = (np.asarray(running) * t * t)[:, None]
        return out

    found = {"baseline": sums([1000] * 6 + [2] * 10), "edit": sums([1000] * 6 + [40] * 10)}
    monkeypatch.setattr(curve_files, "read", lambda path: found[path])
    drawn = pace(game, 4, {"baseline": "baseline", "edit": "edit"})
    for side in drawn["sides"].values():
        assert side["running"] == [1000] * 6
        assert all(len(c["lo"]) == 6 for c in side["curves"].values())


def test_the_stopping_width_counts_the_balance_answers_change_too(tmp_path):
    """Half the games all-lose on both sides and a tenth of the decided ones flipped between
    the teams: team A's share of the decided games moves about twice as much as the win
    rates, so its interval is the widest and decides when the comparison stops."""
    plan = compare.plan_from("peer-to-peer", [4], 1, 4000, 1.0, 1000,
                             compare.Side(None, None), compare.Side(None, None), {}, 1)
    comparison = compare.Comparison("t", plan, tmp_path, backend=None)
    rng = np.random.default_rng(11)
    n = 4000
    winner = np.where(rng.random(n) < 0.5, 3, rng.integers(0, 2, n))
    flipped = (winner < 2) & (rng.random(n) < 0.1)
    # as the engine writes them, with the all-lose causes' columns (none counted here)
    causes = {f"unhappy_{c}": np.zeros(n, dtype=np.int16)
              for c in ("deck", "draw", "capacity", "choice")}
    base = pl.DataFrame({"game_index": np.arange(n), "winner": winner, **causes})
    edit = pl.DataFrame({"game_index": np.arange(n), "winner": np.where(flipped, 1 - winner,
                                                                        winner), **causes})
    comparison.tallies[4].add(base, edit)
    tally = comparison.tallies[4]
    headline = max(r["difference"]["width_pp"] for r in tally.rows(comparison.z))
    balance, = [r["difference"]["width_pp"] for r in tally.balance_rows(comparison.z)]
    assert balance > 1.5 * headline
    assert comparison.widest() == balance


def test_a_finished_comparisons_changes_are_checked_under_stronger_play(tmp_path):
    """POST /api/stronger/ID: per player count, simulate compare's stronger-play check of
    the comparison's two runs (the same numbers), kept in the snapshot; refused while the
    comparison runs or with a bad budget."""
    from sim.studies.compare_stronger import check_change

    with client(tmp_path, game="peer-to-peer") as c:
        ident = finished_patience_edit(c)
        for bad in ({"seconds": -1}, {"seconds": "60"}, {"games": 2.5}, {"games": True}):
            refused = c.post(f"/api/stronger/{ident}", json=bad)
            assert refused.status_code == 400 and "must be" in refused.json()["error"]
        answer = c.post(f"/api/stronger/{ident}", json={"games": 6})
        assert answer.status_code == 200, answer.text
        point, = answer.json()["points"]
        snap = c.get(f"/api/run/{ident}").json()
        dirs = c.app.state.bench.comparisons[ident].run_dirs[4]
        direct = check_change(api.compare(dirs["baseline"], dirs["edit"], stronger_play=0),
                              games=6, threads=1)
    assert point["players"] == 4 and point["checked"] and point["games"] == 6
    for key in ("headlines", "balance"):
        assert [(r["difference"], r["holds"], r["words"]) for r in point[key]] == [
            (r["difference"], r["holds"], r["words"]) for r in direct[key]]
    assert snap["stronger"] == answer.json()["points"]


def test_a_second_stronger_play_check_reads_the_first_ones_games_back(tmp_path,
                                                                      search_games_played):
    """Checked again, a comparison plays only the search games no check played yet (they
    are kept in its run directories): the same games give the same answer without
    playing, and more games add to them."""
    with client(tmp_path, game="peer-to-peer") as c:
        ident = finished_patience_edit(c)
        first, again, more = (c.post(f"/api/stronger/{ident}", json={"games": n}).json()
                              ["points"][0] for n in (6, 6, 10))
        assert sum(new for _, new in search_games_played) == 2 * 6 + 2 * 4
    assert again == {**first, "read_back": 2 * 6}
    assert more["games"] == 10 and more["read_back"] == 2 * 6


def test_a_game_without_a_search_player_says_it_is_not_checked(tmp_path):
    with client(tmp_path) as c:
        state = c.get("/api/state").json()
        ident = c.post("/api/run", json=renamed(edit_body(
            state, page=PAGE, games=2000, chunk=1000, width=0.01))).json()["id"]
        wait(c, ident)
        point, = c.post(f"/api/stronger/{ident}", json={"games": 4}).json()["points"]
    assert not point["checked"]
    assert point["words"].startswith("not checked under stronger play (the baseline run "
                                     "cannot be played by search")
