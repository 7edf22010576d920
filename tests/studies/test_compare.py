"""`simulate compare BASE_RUN EDIT_RUN` (sim/studies/compare.py, sim/core/paired.py): two
runs of the same seed compared game by game.

Most tests use the fast fake game (tests/support/fake_game.py: a card file's sha256 salts
every game, so any card edit re-rolls them and about half change). The changed games and
paired differences are checked against a direct computation from the two games tables;
one test plays a real Technology 13 edit of Peer-to-Peer, one reads synthetic PLAI runs.
"""
from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from repo_paths import DATA

from sim import api
from sim.cli import main
from sim.core.errors import UserError
from sim.core.paired import kind_label
from sim.core.stats import Z95
from sim.studies import compare as study

pytestmark = pytest.mark.usefixtures("fake_game_registered")

FAKE_KINDS = {0: "team A win", 1: "team B win", 2: "draw"}   # the fake game's winner codes


def fake_run(out: Path, games: int = 3000, seed: int = 5, chunk: int = 1000, **fields) -> Path:
    api.run(game="fake", players=4, games=games, seed=seed, chunk_size=chunk, out=out,
            progress=False, **fields)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory, fake_game_registered):
    """A baseline, the same configuration again (other chunking), a card edit (Firewall's
    power 4 -> 9) and a rules-and-strategy edit, all of seed 5 and 3,000 games."""
    root = tmp_path_factory.mktemp("compare")
    cards = root / "cards.csv"
    cards.write_text((DATA / "fake_cards.csv").read_text().replace("3,Firewall,4",
                                                                   "3,Firewall,9"))
    return {"base": fake_run(root / "base"),
            "again": fake_run(root / "again", chunk=700),
            "cards": fake_run(root / "cards", cards=str(cards)),
            "other": fake_run(root / "other", rule_overrides=("bonus=1",),
                              strategies={"A": "greedy"}),
            "root": root}


def table(run: Path) -> pl.DataFrame:
    return pl.read_parquet(run / "games" / "*.parquet").sort("game_index")


def direct_changes(base: Path, edit: Path, kinds=FAKE_KINDS, column="winner",
                   label=None) -> dict[tuple[str, str], list[int]]:
    """The changed games by kind, straight from the two tables (no sim code)."""
    joined = table(base).join(table(edit), on="game_index", suffix="_edit")
    label = label or (lambda row, suffix: kinds[row[column + suffix]])
    out: dict[tuple[str, str], list[int]] = {}
    for row in joined.iter_rows(named=True):
        a, b = label(row, ""), label(row, "_edit")
        if a != b:
            out.setdefault((a, b), []).append(row["game_index"])
    return out


def as_lists(found: dict) -> dict[tuple[str, str], list[int]]:
    return {key: indices.tolist() for key, indices in found.items()}


def invoke(runner, *args):
    return runner.invoke(main, ["compare", *map(str, args)])


# ----------------------------------------------------------------------------- no edit
def test_identical_configurations_report_no_change_and_an_empty_list(runs, runner):
    result = api.compare(runs["base"], runs["again"])
    assert result.changes["same"] and result.games == 3000
    assert result.changed_games() == {} and result.tally.changed_count() == 0
    for row in result.rows():
        assert row["discordant"] == 0 and row["difference"]["mean"] == 0
        assert row["difference"]["lo"] == row["difference"]["hi"] == 0
        assert row["baseline"] == row["edit"]
        assert "changed no game's outcome" in row["verdict"]
    text = invoke(runner, runs["base"], runs["again"])
    assert text.exit_code == 0, text.output
    assert "the edit: none, the two runs have the same configuration" in text.output
    assert "no game's outcome changed (0 of 3,000 games)" in text.output
    data = json.loads(invoke(runner, runs["base"], runs["again"], "--json").output)
    assert data["changed"] == [] and data["changed_games"] == 0
    assert data["configuration"]["same"] is True


# ----------------------------------------------------------------------------- an edit
def test_a_card_edit_gives_the_changed_games_by_kind_of_the_two_tables(runs):
    result = api.compare(runs["base"], runs["cards"])
    expected = direct_changes(runs["base"], runs["cards"])
    assert as_lists(result.changed_games()) == expected
    assert sum(map(len, expected.values())) > 1000        # the fake game re-rolls every game
    counts = [len(v) for v in result.changed_games().values()]
    assert counts == sorted(counts, reverse=True)          # most games first
    assert result.changes["cards"]["changes"] == [
        {"card": "3", "name": "Firewall", "field": "power", "baseline": "4", "edit": "9"}]
    assert not result.changes["same"] and result.changes["rules"] == []


def test_paired_differences_match_a_direct_computation(runs):
    result = api.compare(runs["base"], runs["cards"])
    base, edit = table(runs["base"])["winner"].to_numpy(), table(runs["cards"])["winner"].to_numpy()
    rows = {row["headline"]: row for row in result.rows()}
    for code, name in ((0, "team A win rate"), (1, "team B win rate"), (2, "draw rate")):
        d = (edit == code).astype(float) - (base == code).astype(float)
        half = Z95 * d.std(ddof=1) / math.sqrt(d.size)
        row = rows[name]
        assert row["difference"]["mean"] == pytest.approx(d.mean(), abs=1e-12)
        assert row["difference"]["lo"] == pytest.approx(d.mean() - half, abs=1e-12)
        assert row["difference"]["hi"] == pytest.approx(d.mean() + half, abs=1e-12)
        assert row["discordant"] == int((d != 0).sum())
        assert row["baseline"]["rate"] == pytest.approx((base == code).mean())


def test_rules_and_strategies_of_the_edit_are_named(runs, runner):
    result = api.compare(runs["base"], runs["other"])
    changes = result.changes
    assert changes["rules"] == [{"option": "bonus", "baseline": 0, "edit": 1}]
    assert [s["slot"] for s in changes["strategies"]] == ["A"]
    assert changes["cards"]["same"]
    text = invoke(runner, runs["base"], runs["other"]).output
    assert "rule bonus: 0 -> 1" in text
    assert "strategy A: random -> greedy(bias=1.0)" in text
    head = text.splitlines()[1:3]   # each run names the strategies it played
    assert head[0].endswith("games; random vs random)") and "greedy" in head[1], head
    assert as_lists(result.changed_games()) == direct_changes(runs["base"], runs["other"])


def test_the_text_lists_counts_and_the_first_indices_of_each_kind(runs, runner):
    out = invoke(runner, runs["base"], runs["cards"], "--shown", "3")
    assert out.exit_code == 0, out.output
    assert "card 3 (Firewall) power: 4 -> 9" in out.output
    for (a, b), indices in direct_changes(runs["base"], runs["cards"]).items():
        line = next(ln for ln in out.output.splitlines() if ln.strip().startswith(f"{a} -> {b} "))
        assert f"{len(indices):,}" in line
        assert line.endswith("games " + ", ".join(map(str, indices[:3])) + ", ...")


def test_json_has_a_stable_schema_and_every_changed_index(runs, runner):
    out = invoke(runner, runs["base"], runs["cards"], "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert set(data) == {"format", "game", "players", "seed", "baseline", "edit", "games",
                         "paired_ranges", "z", "configuration", "notes", "headlines",
                         "balance", "stronger_play", "all_lose_causes", "outcomes",
                         "changed_games", "changed"}
    assert data["all_lose_causes"] is None     # the fake game records no causes
    # the suite turns the stronger-play check off (tests/conftest.py)
    assert data["stronger_play"] == {"checked": False,
                                     "words": "not checked under stronger play (turned off)"}
    assert (data["format"], data["game"], data["players"], data["seed"]) == (1, "fake", 4, 5)
    assert data["games"] == 3000 and data["paired_ranges"] == [[0, 3000]]
    assert set(data["baseline"]) == {"run_dir", "games", "complete", "command_line",
                                     "source_hash"}
    assert set(data["configuration"]) == {"same", "cards", "rules", "strategies", "other",
                                          "engine"}
    for row in data["headlines"]:
        assert set(row) == {"headline", "baseline", "edit", "difference", "discordant", "verdict"}
        assert set(row["difference"]) == {"mean", "lo", "hi", "width_pp"}
        assert set(row["baseline"]) == {"rate", "lo", "hi"}
    expected = direct_changes(runs["base"], runs["cards"])
    assert {(c["from"], c["to"]): c["games"] for c in data["changed"]} == expected
    assert all(c["count"] == len(c["games"]) for c in data["changed"])
    assert data["changed_games"] == sum(map(len, expected.values()))
    for side in ("baseline", "edit"):
        assert sum(data["outcomes"][side].values()) == 3000
        assert set(data["outcomes"][side]) <= set(FAKE_KINDS.values())


# ----------------------------------------------------------------------------- sizes
def test_runs_of_different_sizes_compare_on_their_common_indices_and_say_so(runs, tmp_path):
    small = fake_run(tmp_path / "small", games=1200, chunk=500)
    result = api.compare(runs["cards"], small)
    assert result.games == 1200 and result.paired == [(0, 1200)]
    assert any("hold 3,000 and 1,200 games; compared on the 1,200 games both hold" in note
               for note in result.notes)
    full = direct_changes(runs["base"], runs["cards"])   # base == small on 0..1199 (same config)
    reverse = {(b, a): [i for i in v if i < 1200] for (a, b), v in full.items()}
    assert as_lists(result.changed_games()) == {k: v for k, v in reverse.items() if v}


def test_windows_and_chunks_do_not_change_the_answer(runs):
    whole = api.compare(runs["base"], runs["cards"])
    for window in (1, 333, 1000, 10_000):
        part = study.compare_runs(runs["base"], runs["cards"], window=window)
        assert part.rows() == whole.rows()
        assert part.balance_rows() == whole.balance_rows()
        assert as_lists(part.changed_games()) == as_lists(whole.changed_games())


def test_an_unfinished_run_is_compared_on_the_chunks_it_holds(runs, tmp_path):
    edit = tmp_path / "unfinished"
    shutil.copytree(runs["cards"], edit)
    (sorted((edit / "games").glob("*.parquet"))[1]).unlink()        # games 1000-1999
    manifest = json.loads((edit / "manifest.json").read_text())
    manifest["complete"] = False
    (edit / "manifest.json").write_text(json.dumps(manifest))
    result = api.compare(runs["base"], edit)
    assert result.paired == [(0, 1000), (2000, 3000)] and result.games == 2000
    assert "unfinished" in " ".join(result.notes)
    expected = {k: [i for i in v if not 1000 <= i < 2000]
                for k, v in direct_changes(runs["base"], runs["cards"]).items()}
    assert as_lists(result.changed_games()) == {k: v for k, v in expected.items() if v}


# ----------------------------------------------------------------------------- refusals
def refused(runner, base, edit) -> str:
    out = invoke(runner, base, edit)
    assert out.exit_code == 2, out.output
    lines = out.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.output
    with pytest.raises(UserError):
        api.compare(base, edit)
    return lines[0]


def test_runs_of_different_seeds_are_refused_in_one_line(runs, runner, tmp_path):
    other = fake_run(tmp_path / "seed6", seed=6, games=500)
    line = refused(runner, runs["base"], other)
    assert "not paired: different seeds (5 in" in line and "6 in" in line


def test_runs_of_different_player_counts_or_games_are_refused(runs, runner, tmp_path):
    three = tmp_path / "three"
    api.run(game="fake", players=3, games=500, seed=5, out=three, progress=False)
    assert "different player counts (4 in" in refused(runner, runs["base"], three)
    from reports.synthetic import write_run

    p2p = write_run(tmp_path / "p2p", players=4, games=50, seed=5)
    assert "different games (fake in" in refused(runner, runs["base"], p2p)


def test_runs_without_a_common_game_index_are_refused(runs, runner, tmp_path):
    late = tmp_path / "late"
    shutil.copytree(runs["base"], late)
    parts = sorted((late / "games").glob("*.parquet"))
    for part in parts[:2]:
        part.unlink()                                      # holds games 2000-2999 only
    early = fake_run(tmp_path / "early", games=1500, chunk=500)
    line = refused(runner, early, late)
    assert "hold no game index in common" in line and "0-1,499" in line
    assert "2,000-2,999" in line


def test_a_directory_that_is_no_run_is_refused(runs, runner, tmp_path):
    line = refused(runner, runs["base"], tmp_path)
    assert "EDIT_RUN" in line and "no manifest.json" in line


# ----------------------------------------------------------------------------- the games
def test_outcome_kinds_are_named_from_the_games_hooks():
    assert kind_label("A", ["team A win rate"]) == "team A win"
    assert kind_label("solo_win", ["team A win rate"]) == "team A win (solo_win)"
    assert kind_label("all_lose", ["all-lose rate"]) == "all-lose"
    assert kind_label("seat", ["seat 2 win rate"]) == "seat 2 win"
    assert kind_label("stalemate", []) == "stalemate"


P2P_KINDS = {0: "team A win", 1: "team B win", 2: "draw", 3: "all-lose",
             4: "team A win (solo_win)", 5: "timeout"}   # P2P winner codes (constants.py)


def test_a_technology_13_edit_of_peer_to_peer(tmp_path, runner):
    """The real game: Technology 13's value 13 -> 10 on 400 games of seed 3."""
    cards = tmp_path / "te13.csv"
    text = api.default_cards("peer-to-peer")
    assert "TE13,Technology 13,Technology,13," in text
    cards.write_text(text.replace("TE13,Technology 13,Technology,13,",
                                  "TE13,Technology 13,Technology,10,"))
    for name, extra in (("base", {}), ("edit", {"cards": str(cards)})):
        api.run(game="peer-to-peer", players=4, games=400, seed=3, out=tmp_path / name,
                progress=False, **extra)
    result = api.compare(tmp_path / "base", tmp_path / "edit")
    assert result.changes["cards"]["changes"] == [{"card": "TE13", "name": "Technology 13",
                                                   "field": "value", "baseline": "13",
                                                   "edit": "10"}]
    expected = direct_changes(tmp_path / "base", tmp_path / "edit", P2P_KINDS)
    assert expected and as_lists(result.changed_games()) == expected
    assert {row["headline"] for row in result.rows()} == {"team A win rate", "team B win rate",
                                                          "all-lose rate"}
    out = invoke(runner, tmp_path / "base", tmp_path / "edit")
    assert "card TE13 (Technology 13) value: 13 -> 10" in out.output
    # team A's share of the games won by a team: each side as its run's summary gives it,
    # the paired difference as attribution's delta method gives it from both tables
    from sim.core.attribution import contrast
    from sim.games.peer_to_peer.measures import team_balance_measure

    row, = result.balance_rows()
    for side, name in (("baseline", "base"), ("edit", "edit")):
        summary = json.loads((tmp_path / name / "summary.json").read_text())["team_balance"]
        assert row[side]["rate"] == pytest.approx(summary["value"], abs=1e-12)
        assert (row[side]["lo"], row[side]["hi"]) == pytest.approx((summary["lo"],
                                                                    summary["hi"]), abs=1e-12)
    measure = team_balance_measure(4)
    direct = contrast([measure.arrays(table(tmp_path / "base")),
                       measure.arrays(table(tmp_path / "edit"))], [-1.0, 1.0])
    d = row["difference"]
    assert (d["mean"], d["lo"], d["hi"]) == pytest.approx(
        (direct["est"], direct["lo"], direct["hi"]), abs=1e-12)
    assert "team A's share of the games won by a team" in out.output
    # why the all-lose rate changed: per cause, the unhappy customers of all-lose games per
    # game on each side and the paired change, straight from the two tables
    from sim.games.peer_to_peer import constants as k

    rows = {r["cause"]: r for r in result.loss_causes.rows(Z95)}
    assert list(rows) == ["deck", "draw", "capacity", "choice", "all"]
    joined = table(tmp_path / "base").join(table(tmp_path / "edit"), on="game_index",
                                           suffix="_edit")
    for cause in ("deck", "draw", "capacity", "choice"):
        b = joined[f"unhappy_{cause}"] * (joined["winner"] == k.ALL_LOSE)
        e = joined[f"unhappy_{cause}_edit"] * (joined["winner_edit"] == k.ALL_LOSE)
        d = (e - b).cast(pl.Float64)
        half = Z95 * d.std() / math.sqrt(len(d))
        r = rows[cause]
        assert (r["baseline"], r["edit"]) == pytest.approx((b.mean(), e.mean()), abs=1e-12)
        assert (r["difference"]["lo"], r["difference"]["hi"]) == pytest.approx(
            (d.mean() - half, d.mean() + half), abs=1e-12)
    assert rows["all"]["difference"]["mean"] == pytest.approx(
        sum(rows[c]["difference"]["mean"] for c in ("deck", "draw", "capacity", "choice")))
    assert "why the all-lose rate changed: unhappy customers of all-lose games per 1,000 " \
           "games, by cause" in out.output
    data = json.loads(invoke(runner, tmp_path / "base", tmp_path / "edit", "--json").output)
    assert [r["cause"] for r in data["all_lose_causes"]["rows"]] == list(rows)


def test_the_all_lose_change_names_the_cause_it_comes_from():
    """Hand-made pairs of games: the edit turns two won games into all-lose games with
    three unhappy customers the deck could not serve and one the draw could not: the
    change comes mostly from deck; no all-lose change, no cause named."""
    from sim.core.loss_causes import PairedLossCauses
    from sim.games.peer_to_peer import constants as k
    from sim.games.peer_to_peer.why_lose import WHY_LOSE

    def games(winner, deck, draw):
        zeros = [0] * len(winner)
        return pl.DataFrame({"winner": winner, "unhappy_deck": deck, "unhappy_draw": draw,
                             "unhappy_capacity": zeros, "unhappy_choice": zeros})

    won, lost = k.WIN_A, k.ALL_LOSE
    base = games([won] * 6, [1] * 6, [0] * 6)     # unhappy customers of won games count 0
    edit = games([lost, lost, won, won, won, won], [2, 1, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0])
    causes = PairedLossCauses(WHY_LOSE, "winner")
    causes.add_aligned(base, edit)
    rows = {r["cause"]: r for r in causes.rows(Z95)}
    assert (rows["deck"]["baseline"], rows["deck"]["edit"]) == (0.0, 0.5)
    assert rows["all"]["difference"]["mean"] == pytest.approx(4 / 6)
    lead = causes.lead(1.0)       # a narrower interval: six games are few
    assert lead.startswith("mostly deck: +500.0 [") and "unhappy customers per 1,000 " \
        "games the edit adds (no combination of the team's own cards" in lead
    assert "to change it: the card values and domains" in lead
    same = PairedLossCauses(WHY_LOSE, "winner")
    same.add_aligned(edit, edit)
    assert same.lead(Z95) is None
    # half the change is no majority: the largest part, not "mostly"
    spread = edit.with_columns(pl.Series("unhappy_capacity", [1, 1, 0, 0, 0, 0]))
    split = PairedLossCauses(WHY_LOSE, "winner")
    split.add_aligned(base, spread)
    assert split.lead(1.0).startswith("the largest part from deck: +500.0 [")


def test_plai_changes_are_grouped_by_winning_seat_maintainers_and_stalemate(tmp_path):
    """Synthetic PLAI runs (reports/synthetic.py) of other draws under one seed."""
    from reports.synthetic import write_plai_run

    base = write_plai_run(tmp_path / "base", players=3, games=3000, seed=1)
    edit = write_plai_run(tmp_path / "edit", players=3, games=3000, seed=2)
    manifest = json.loads((edit / "manifest.json").read_text())
    manifest["seed"] = 1
    (edit / "manifest.json").write_text(json.dumps(manifest))

    def label(row, suffix):
        outcome = row["outcome" + suffix]
        return {0: f"seat {row['winner' + suffix]} win", 1: "maintainers win",
                2: "stalemate"}[outcome]

    expected = direct_changes(base, edit, label=label)
    result = api.compare(base, edit)
    assert as_lists(result.changed_games()) == expected
    kinds = {k for pair in expected for k in pair}
    assert {"seat 0 win", "maintainers win", "stalemate"} <= kinds
    assert np.isfinite([r["difference"]["mean"] for r in result.rows()]).all()
    # the stalemates are a headline too, so an edit of max_turns shows what it did to them
    (stalemates,) = [r for r in result.rows() if r["headline"] == "stalemate rate"]
    for side, run in (("baseline", base), ("edit", edit)):
        counted = table(run).filter(pl.col("outcome") == 2).height
        assert stalemates[side]["rate"] == pytest.approx(counted / 3000)


def test_a_balance_measure_fed_window_by_window_matches_the_delta_method_on_all_games():
    """PairedRatio keeps sums only; its paired difference is attribution's contrast of the
    whole tables, also when a window's tables hold their games in another order."""
    from sim.core.attribution import Measure, contrast
    from sim.core.paired import PairedRatio

    measure = Measure("share", num=pl.col("winner") == 0, den=pl.col("winner") <= 1, even=0.5)
    rng = np.random.default_rng(3)
    n = 5000
    base = pl.DataFrame({"game_index": np.arange(n), "winner": rng.integers(0, 3, n)})
    moved = rng.random(n) < 0.2    # the edit changes a fifth of the games
    edit = base.with_columns(winner=pl.Series(np.where(moved, rng.integers(0, 3, n),
                                                       base["winner"].to_numpy())))
    ratio = PairedRatio(measure)
    for start in range(0, n, 1200):
        window = slice(start, start + 1200)
        ratio.add(base[window], edit[window].sample(fraction=1.0, shuffle=True, seed=start))
    direct = contrast([measure.arrays(base), measure.arrays(edit)], [-1.0, 1.0])
    d = ratio.row(Z95)["difference"]
    assert ratio.n == n
    assert (d["mean"], d["lo"], d["hi"]) == pytest.approx(
        (direct["est"], direct["lo"], direct["hi"]), abs=1e-12)


def test_a_tally_with_measures_aligns_once_and_matches_a_ratio_fed_alone(runs):
    """PairedTally feeds its balance measures the games it aligned for its headlines: the
    same sums as a PairedRatio fed the same windows on its own, games in another order."""
    from sim.core.attribution import Measure
    from sim.core.game import resolve_game
    from sim.core.paired import GameOutcomes, PairedRatio, PairedTally

    measure = Measure("team_balance", num=pl.col("winner") == 0,
                      den=pl.col("winner") <= 1, even=0.5)
    base, edit = table(runs["base"]), table(runs["cards"])
    tally = PairedTally(GameOutcomes(resolve_game("fake"), 4), [measure])
    alone = PairedRatio(measure)
    for start in range(0, base.height, 700):
        window = slice(start, start + 700)
        shuffled = edit[window].sample(fraction=1.0, shuffle=True, seed=start)
        tally.add(base[window], shuffled)
        alone.add(base[window], shuffled)
    assert tally.n == alone.n == base.height
    assert tally.balance_rows(Z95) == [alone.row(Z95)]
    assert tally.ratios[0].side("edit") == (float((edit["winner"] == 0).sum()),
                                            float((edit["winner"] <= 1).sum()))


def test_a_measure_of_half_games_gets_the_delta_method_interval_not_a_rounded_wilson():
    """A side's interval is Wilson's on whole counts (as the summary's) and the delta
    method's when the measure counts a draw as half a game: rounding its sums to whole
    games for Wilson would give another value."""
    from sim.core.attribution import Measure, contrast
    from sim.core.paired import PairedRatio
    from sim.core.stats import wilson

    half = Measure("share", num=(pl.col("winner") == 0) + 0.5 * (pl.col("winner") == 2),
                   den=pl.lit(1.0), even=0.5)
    whole = Measure("share", num=pl.col("winner") == 0, den=pl.col("winner") <= 1, even=0.5)
    rng = np.random.default_rng(7)
    n = 4001
    base = pl.DataFrame({"game_index": np.arange(n), "winner": rng.integers(0, 3, n)})
    edit = base.with_columns(winner=pl.Series(rng.integers(0, 3, n)))
    halves, wholes = PairedRatio(half), PairedRatio(whole)
    halves.add(base, edit)
    wholes.add(base, edit)
    for side, table in (("baseline", base), ("edit", edit)):
        got = halves.side_value(side, Z95)
        direct = contrast([half.arrays(table)], [1.0])
        assert (got["rate"], got["lo"], got["hi"]) == pytest.approx(
            (direct["est"], direct["lo"], direct["hi"]), abs=1e-12)
        wins, decided = (table["winner"] == 0).sum(), (table["winner"] <= 1).sum()
        assert tuple(wholes.side_value(side, Z95).values()) == pytest.approx(
            tuple(float(x) for x in wilson(int(wins), int(decided))), abs=1e-12)
