"""The stopping rule (``--until-ci W`` and the workbench's verdict) tested for what it
promises: a run stops only once EVERY headline interval is narrower than W, and the
intervals it reports keep their coverage. The fake game has a rare headline (draws,
about 4 %) and two common ones (team wins, about 48 % each): the rare one's interval is
narrow after the first chunk, the common ones' only later, so a rule that stopped on the
first narrow interval would stop at the first look and report intervals wider than W."""
from __future__ import annotations

import json
import warnings

import numpy as np
import polars as pl
import pytest
from click.testing import CliRunner

from sim.cli import main
from sim.core.stats import wilson
from sim.studies.sequential import Tally, z_for_looks

pytestmark = pytest.mark.usefixtures("fake_game_registered")

WIDTH = 5.0          # pp: the draw rate's interval is narrower after 1,000 games, a team's not


def _widths(games: pl.DataFrame, z: float) -> dict[str, float]:
    n = games.height
    counts = {"team A win rate": int((games["winner"] == 0).sum()),
              "team B win rate": int((games["winner"] == 1).sum()),
              "draw rate": int((games["winner"] == 2).sum())}
    return {name: 100 * (wilson(k, n, z)[2] - wilson(k, n, z)[1]) for name, k in counts.items()}


def test_until_ci_stops_at_the_first_look_where_every_interval_is_narrow(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(main, ["--game", "fake", "--games", "20000", "--chunk-size",
                                       "1000", "--until-ci", str(WIDTH), "--seed", "11",
                                       "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    state = json.loads((out / "manifest.json").read_text())["until_ci"]
    z, looks = state["z"], state["looks"]
    assert z == pytest.approx(z_for_looks(20))
    # what it reports: every headline, each narrower than W
    assert set(state["intervals"]) == {"team A win rate", "team B win rate", "draw rate"}
    assert all(v["width_pp"] < WIDTH for v in state["intervals"].values()), state["intervals"]
    # where it stopped, recomputed from the games: the first look with every interval narrow
    games = pl.read_parquet(out / "games" / "*.parquet").sort("game_index")
    assert games.height == 1000 * looks
    by_look = [_widths(games.head(1000 * k), z) for k in range(1, looks + 1)]
    assert all(w < WIDTH for w in by_look[-1].values())
    assert all(max(w.values()) >= WIDTH for w in by_look[:-1])
    # and the test can tell: the rare headline alone was narrow at the first look
    assert by_look[0]["draw rate"] < WIDTH and looks >= 3


class _TwoRates:
    """A game of two headlines only: a rare and a common rate (for the Tally)."""

    headline_columns = ("rare", "common")

    @staticmethod
    def headline_counts(games, players):
        return {"rare": int(games["rare"].sum()), "common": int(games["common"].sum())}


def test_the_reported_intervals_keep_their_coverage_and_width():
    """Many sequential runs with known rates (rare 3 %, common 50 %), stopped by the rule's
    own Tally: at the stopping look every reported interval is narrower than W, and each
    headline's interval misses its true rate in at most about 5 % of the runs."""
    rng = np.random.default_rng(2024)
    p_rare, p_common, chunk, looks, runs, width = 0.03, 0.5, 500, 16, 300, 8.0
    z = z_for_looks(looks)
    missed = {"rare": 0, "common": 0}
    stopped_at = []
    for _ in range(runs):
        tally = Tally(_TwoRates(), 2, z)
        for look in range(1, looks + 1):
            tally.add(pl.DataFrame({"rare": rng.random(chunk) < p_rare,
                                    "common": rng.random(chunk) < p_common}))
            if tally.narrow(width):
                break
        intervals = tally.intervals()
        stopped_at.append(look)
        if look < looks:
            assert all(v["width_pp"] < width for v in intervals.values()), (look, intervals)
        for name, p in (("rare", p_rare), ("common", p_common)):
            missed[name] += not intervals[name]["lo"] <= p <= intervals[name]["hi"]
    assert min(stopped_at) > 1          # the rare rate alone is narrow at look 1
    assert missed["rare"] <= 0.06 * runs and missed["common"] <= 0.06 * runs, missed


def test_the_workbench_decides_only_when_every_difference_is_narrow(tmp_path):
    """The workbench's comparison uses the same rule on paired differences: the draw
    difference (few games differ) narrows first, the team differences later."""
    warnings.filterwarnings("ignore", category=DeprecationWarning)
    from starlette.testclient import TestClient

    from sim.workbench.app import create_app
    from sim.workbench.bench import Settings

    start = tmp_path / "start"
    start.mkdir()
    width = 8.0
    app = create_app(Settings(start_dir=start, game="fake", allowed_hosts=("testserver",)))
    with TestClient(app) as c:
        state = c.get("/api/state").json()
        rows = [list(r) for r in state["cards"]["rows"]]
        rows[0][1] = "Router Mk2"            # a new card file: every game is played anew
        ident = c.post("/api/run", json={
            "game": "fake", "players": [4], "page": "page-0123456789", "games": 20000,
            "chunk": 1000, "width": width, "rules_text": "",
            "cards": {"columns": state["cards"]["columns"], "rows": rows}}).json()["id"]
        snap = {"state": "running"}
        while snap["state"] in ("starting", "running"):
            snap = c.get(f"/api/run/{ident}").json()
    assert snap["state"] == "decided", snap
    rows = snap["points"][0]["rows"]
    assert {r["headline"] for r in rows} == {"team A win rate", "team B win rate", "draw rate"}
    assert all(r["difference"]["width_pp"] < width for r in rows)
    assert snap["looks"] >= 2 and snap["widths"][-2] >= width > snap["widths"][-1]
    # the draw difference alone was narrower than the width from the first look
    draw = next(r for r in rows if r["headline"] == "draw rate")
    first_look_half = snap["z"] * np.sqrt(draw["discordant"] / snap["games_per_side"]) \
        / np.sqrt(1000)
    assert 200 * first_look_half < width
