"""``simulate distill`` (sim/studies/distill.py): the default player learns from the search.

- Deterministic for a seed: two runs write the same weights, whatever the threads.
- Resumable: a run stopped in its second iteration (a chunk task fails) and continued with
  ``resume`` writes the file an uninterrupted run writes; the journal and the chunks
  beside the file are gone afterwards.
- The file is an ordinary strategy file: it plays (``@FILE``), and its weights differ
  from the base only where the search decides, and in the noise draws (0: the policy
  starts without them); the decisions the search does not make keep the base's weights.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from sim.core.csvfile import content_sha256
from sim.core.errors import UserError
from sim.games.plai import features
from sim.games.plai.search_kernel import RECORDED_KINDS
from sim.runs.backends import LocalBackend
from sim.studies.distill import distill_strategy

SMALL = dict(game="plai", players=2, base="expert-v1", iterations=2, games=16, k=2, n=2,
             extra=1, check_games=40, seed=5, progress=False)


class FailingBackend(LocalBackend):
    """Plays ``allowed`` chunk tasks, then fails the next one (a crash mid-iteration)."""

    def __init__(self, allowed: int):
        self.allowed = allowed

    def run_tasks(self, tasks, **kwargs):
        for result in super().run_tasks(tasks, **kwargs):
            if self.allowed == 0:
                raise RuntimeError("worker lost")
            self.allowed -= 1
            yield result


def _weights(path: Path) -> dict:
    return yaml.safe_load(path.read_text())["weights"]


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("whole") / "learned.yaml"
    result = distill_strategy(out=out, threads=1, **SMALL)
    assert [it.games for it in result.iterations] == [16, 16]
    assert result.check["games"] == 80
    # where each iteration's policy chose otherwise than the search, by decision kind,
    # in the file and the report
    last = result.iterations[-1]
    assert sum(n for n, _, _ in last.shortfall.values()) == last.informative
    assert set(last.shortfall) <= set(RECORDED_KINDS) and "action" in last.shortfall
    assert all(0 <= other <= n and lost >= 0 for n, other, lost in last.shortfall.values())
    assert "where iteration 2's policy chose otherwise than the search" in result.report()
    doc = yaml.safe_load(out.read_text())
    assert doc["tuned_on"]["iterations"][-1]["shortfall"] == last.shortfall
    return out


def test_distill_is_deterministic_for_a_seed(uninterrupted, tmp_path):
    again = distill_strategy(out=tmp_path / "again.yaml", threads=2, **SMALL)
    assert _weights(again.out) == _weights(uninterrupted)
    other = distill_strategy(out=tmp_path / "other.yaml", threads=1,
                             **{**SMALL, "seed": 6, "iterations": 1})
    assert _weights(other.out) != _weights(uninterrupted)


def test_a_resumed_distill_writes_the_uninterrupted_file(uninterrupted, tmp_path):
    out = tmp_path / "stopped.yaml"
    # each iteration plays 2 sides x 1 chunk of 8 games: fail in the second iteration
    with pytest.raises(RuntimeError, match="worker lost"):
        distill_strategy(out=out, backend=FailingBackend(3), threads=1, **SMALL)
    assert (tmp_path / "stopped.resume.jsonl").exists()
    with pytest.raises(UserError, match="--resume|resume"):   # not without --resume
        distill_strategy(out=out, threads=1, **SMALL)
    result = distill_strategy(out=out, threads=1, resume=True, **SMALL)
    assert _weights(result.out) == _weights(uninterrupted)
    assert not (tmp_path / "stopped.resume.jsonl").exists()
    assert not (tmp_path / "stopped.distill").exists()
    for resume in (False, True):   # finished: not overwritten
        with pytest.raises(UserError, match="already holds a finished distillation"):
            distill_strategy(out=out, threads=1, resume=resume, **SMALL)


def test_the_file_changes_only_the_weights_the_search_decides(uninterrupted):
    from sim.core.game import configure

    doc = yaml.safe_load(uninterrupted.read_text())
    assert doc["base"] == "expert-v1" and doc["players"] == [2]
    assert doc["tuned_on"]["command"] and len(doc["tuned_on"]["iterations"]) == 2
    # the cards also by their lines without comments, so a header edit keeps the file valid
    cards = doc["tuned_on"]["cards"]
    assert cards["content_sha256"] == content_sha256(cards["path"])
    base = configure("plai", 2, strategies={"all": "expert-v1"}).weights[0]
    learned = configure("plai", 2, strategies={"all": f"@{uninterrupted}"}).weights[0]
    searched = np.isin(features.FEATURE_GROUP, features.SEARCHED_GROUPS)
    noise = features.FEATURE_GROUP == features.G_NOISE
    assert (learned[noise] == 0).all() and (base[noise] != 0).any()
    others = ~searched & ~noise
    assert (learned[others] == base[others]).all()
    assert not (learned[searched] == base[searched]).all()


def test_distill_checks_its_inputs(tmp_path):
    with pytest.raises(UserError, match="yaml"):
        distill_strategy(out=tmp_path / "x.txt", **SMALL)
    with pytest.raises(UserError, match="not a search player"):
        distill_strategy(out=tmp_path / "x.yaml", **{**SMALL, "base": "search:k=2,n=2"})


def test_opponents_take_an_equal_share_of_each_iterations_games(tmp_path, monkeypatch):
    """--opponents: the search side meets the policy and each opponent in an equal share
    of an iteration's games (game indices shared out, none twice); without it the games
    are the policy's alone, as before."""
    from sim.studies import distill as distill_module
    from sim.studies.distill import opponent_specs

    played = []
    real_play = distill_module.Distiller._play

    def recording_play(self, where, jobs, columns):
        if "iteration" in where.name:
            played.append([(dict(request.strategies), first, games)
                           for request, first, games in jobs])
        return real_play(self, where, jobs, columns)

    monkeypatch.setattr(distill_module.Distiller, "_play", recording_play)
    result = distill_strategy(out=tmp_path / "league.yaml", threads=1,
                              **{**SMALL, "iterations": 1, "games": 12, "check_games": 0,
                                 "opponents": "random,bluffer"})
    (jobs,) = played
    rivals = [next(spec for spec in strategies.values() if not spec.startswith("search:"))
              for strategies, _, _ in jobs]
    assert [name for name in rivals if not name.startswith("@")] == ["random"] * 2 + ["bluffer"] * 2
    assert sum(games for _, _, games in jobs) == 12 and {g for _, _, g in jobs} == {2}
    assert sorted(first for _, first, _ in jobs) == [0, 2, 4, 6, 8, 10]
    assert yaml.safe_load(result.out.read_text())["tuned_on"]["settings"]["opponents"] == [
        "random", "bluffer"]
    played.clear()
    distill_strategy(out=tmp_path / "alone.yaml", threads=1,
                     **{**SMALL, "iterations": 1, "games": 12, "check_games": 0})
    assert len(played[0]) == 2 and all(g == 6 for _, _, g in played[0])
    with pytest.raises(UserError, match="not a search player"):
        distill_strategy(out=tmp_path / "x.yaml", **{**SMALL, "opponents": "search:k=2,n=2"})
    with pytest.raises(UserError) as info:
        distill_strategy(out=tmp_path / "x.yaml", **{**SMALL, "opponents": "nobody"})
    assert info.value.field == "--opponents"
    # a spec's parameters stay with it (the --strategies list's reading)
    assert opponent_specs("greedy,weighted:value=2,cards=-1", "peer_to_peer") == (
        "greedy", "weighted:value=2,cards=-1")
    from click.testing import CliRunner

    from sim.cli import main

    cli = CliRunner().invoke(main, ["distill", "--game", "plai", "--players", "2",
                                    "--opponents", "random,nobody", "--out",
                                    str(tmp_path / "c.yaml")])
    assert cli.exit_code == 2 and "--opponents" in cli.output and "nobody" in cli.output


def test_held_weights_stay_out_of_the_fit(uninterrupted, tmp_path):
    """--hold: a held weight keeps the value given, or the base's, through every
    iteration, while the weights beside it are fitted as before; the file names them."""
    learned = _weights(uninterrupted)
    from sim.core.game import configure

    start = dict(zip(features.FEATURE_NAMES,
                     configure("plai", 2, strategies={"all": "expert-v1"}).weights[0]))
    moved = [name for name in ("act.regional", "act.venture", "act.family")
             if learned[name] != start[name]]
    assert len(moved) >= 2   # the unheld run fits them
    at_zero, kept = moved[:2]
    result = distill_strategy(out=tmp_path / "held.yaml", threads=1,
                              **{**SMALL, "hold": f"{at_zero}=0,{kept}"})
    held = _weights(result.out)
    assert held[at_zero] == 0.0 and held[kept] == start[kept]
    assert any(held[name] != start[name] for name in features.FEATURE_NAMES
               if name not in (at_zero, kept) and not name.endswith("noise"))
    doc = yaml.safe_load(result.out.read_text())
    assert doc["tuned_on"]["settings"]["hold"] == {at_zero: 0.0, kept: None}
    words = {at_zero: f"{at_zero}=0", kept: kept}
    listed = sorted(words, key=list(features.FEATURE_NAMES).index)
    named = "held out of the fit: " + ", ".join(words[n] for n in listed)
    assert named in doc["summary"] and named in result.report()   # in --hold's words


def test_per_count_holds_the_weights_at_every_count(tmp_path):
    from sim import api

    result = distill_strategy(out=tmp_path / "each.yaml", threads=1, per_count=True,
                              **{**SMALL, "players": "3,4", "iterations": 1, "games": 12,
                                 "check_games": 0, "hold": "act.regional=0"})
    for p in (3, 4):
        played = api.configure("plai", p, strategies={"seat0": f"@{result.out}"})
        assert played.weights[0][list(features.FEATURE_NAMES).index("act.regional")] == 0.0


def test_hold_names_each_phase_and_only_fitted_weights():
    """A name without its phase holds it in every phase; unknown and unfitted names,
    and values that are not numbers, are refused with what to give."""
    from types import SimpleNamespace

    from sim.studies.distill import held_weights

    arena = SimpleNamespace(
        names=("early.commit.high_card", "early.commit.noise", "late.commit.high_card",
               "late.commit.noise", "switch"),
        learned=np.array([True, False, True, False, False]))
    assert held_weights(None, arena) == ()
    assert held_weights("commit.high_card=0", arena) == ((0, 0.0), (2, 0.0))
    assert held_weights(["late.commit.high_card"], arena) == ((2, None),)
    assert held_weights({"early.commit.high_card": 1.5}, arena) == ((0, 1.5),)
    with pytest.raises(UserError, match="did you mean early.commit.high_card"):
        held_weights("early.commit.high_crad", arena)
    with pytest.raises(UserError, match="not fitted"):
        held_weights("commit.noise", arena)
    with pytest.raises(UserError, match="number"):
        held_weights("commit.high_card=low", arena)
    with pytest.raises(UserError, match="finite"):
        held_weights("commit.high_card=nan", arena)


def test_a_refused_input_closes_the_arenas_it_opened(tmp_path, monkeypatch):
    """An input refused once the arenas are open (here --hold, which needs their weight
    names) leaves none of them open."""
    from sim.games.plai.arena import PlaiArena

    opened, closed = [], []
    init, close = PlaiArena.__init__, PlaiArena.close

    def tracked_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        opened.append(id(self))

    def tracked_close(self):
        closed.append(id(self))
        close(self)

    monkeypatch.setattr(PlaiArena, "__init__", tracked_init)
    monkeypatch.setattr(PlaiArena, "close", tracked_close)
    with pytest.raises(UserError, match="did you mean"):
        distill_strategy(out=tmp_path / "x.yaml", threads=1,
                         **{**SMALL, "players": "2,3", "hold": "act.regionl=0"})
    assert len(opened) == 2 and sorted(closed) == sorted(opened)


def test_several_player_counts_share_the_games(tmp_path):
    result = distill_strategy(out=tmp_path / "mixed.yaml", threads=1,
                              **{**SMALL, "players": "2,3", "iterations": 1, "games": 20})
    doc = yaml.safe_load(result.out.read_text())
    assert doc["players"] == [2, 3]
    # 5 seatings (2 sides at 2 players, 3 at 3): 4 games each; the check 40 per seating
    assert result.iterations[0].games == 20
    assert {p: row["games"] for p, row in result.check["players"].items()} == {"2": 80,
                                                                                 "3": 120}
    assert "3 players, against expert-v1" in result.report()


def test_per_count_distils_each_count_into_one_file(tmp_path):
    """--per-count: one distillation per count from the same base; the file holds the
    usual count's weights (PLAI: 4 players) and each other count's own where they differ,
    and a game at a count plays that count's distillation exactly (a count not distilled,
    2 and 5, the base's weights)."""
    from sim import api

    each = {**SMALL, "iterations": 1, "games": 12, "check_games": 0}
    singles = {p: yaml.safe_load(distill_strategy(out=tmp_path / f"alone{p}.yaml", threads=1,
                                                  **{**each, "players": p}).out.read_text())
               for p in (3, 4)}
    result = distill_strategy(out=tmp_path / "each.yaml", threads=1, per_count=True,
                              **{**each, "players": "3,4"})
    doc = yaml.safe_load(result.out.read_text())
    assert doc["players"] == [3, 4] and doc["weights"] == singles[4]["weights"]
    assert set(doc["by_players"]) == {2, 3, 5} and doc["by_players"][3]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["alone3.yaml", "alone4.yaml",
                                                          "each.yaml"]   # parts removed
    assert "3 players:" in result.report() and "4 players:" in result.report()
    for p in (3, 4):
        played = api.configure("plai", p, strategies={"seat0": f"@{result.out}"})
        alone = api.configure("plai", p, strategies={"seat0": f"@{tmp_path}/alone{p}.yaml"})
        assert np.array_equal(played.weights[0], alone.weights[0])


def test_per_count_resumed_over_a_count_made_by_its_own_command(tmp_path):
    """A count's file made beforehand by another command (FILE.<P>p.yaml beside FILE) is
    kept on --resume: the combined file plays its weights at that count, keeps its command
    under tuned_on.per_count and says so in its summary."""
    each = {**SMALL, "iterations": 1, "games": 12, "check_games": 0}
    own = distill_strategy(out=tmp_path / "each.3p.yaml", threads=1, command_line="first",
                           **{**each, "players": 3, "seed": 8})
    result = distill_strategy(out=tmp_path / "each.yaml", threads=1, per_count=True,
                              resume=True, command_line="second", **{**each, "players": "3,4"})
    doc = yaml.safe_load(result.out.read_text())
    assert not own.out.exists()   # the part is removed once combined
    assert doc["tuned_on"]["command"] == "second"
    assert doc["tuned_on"]["per_count"]["3"]["command"] == "first"
    assert doc["tuned_on"]["per_count"]["4"]["command"] == "second"
    assert "at 3 players made by its own command (tuned_on.per_count)" in doc["summary"]
    assert doc["by_players"][3] == {k: v for k, v in own.document["weights"].items()
                                    if v != doc["weights"][k]}


def test_per_count_provenance_is_each_counts_own_where_they_differ(tmp_path):
    """The main count's file (4 players) made by another command with another seed: the
    combined file's tuned_on describes the main count's weights at the top level (its
    seed, and settings such as hold and cards stay there) and names under per_count the
    seed each count was made with."""
    each = {**SMALL, "iterations": 1, "games": 12, "check_games": 0}
    distill_strategy(out=tmp_path / "each.4p.yaml", threads=1, command_line="first",
                     **{**each, "players": 4, "seed": 8})
    result = distill_strategy(out=tmp_path / "each.yaml", threads=1, per_count=True,
                              resume=True, command_line="second", **{**each, "players": "3,4"})
    tuned = yaml.safe_load(result.out.read_text())["tuned_on"]
    assert tuned["seed"] == 8       # the main count's: the file's weights are its
    assert tuned["per_count"]["4"]["seed"] == 8 and tuned["per_count"]["3"]["seed"] == 5
    assert tuned["per_count"]["4"]["command"] == "first"
    assert tuned["settings"]["games"] == 12 and tuned["settings"]["k"] == 2   # shared


def test_per_count_checks_a_count_made_by_another_command(tmp_path, monkeypatch):
    """A count's file another command made (kept on --resume) gets the check a distilled
    result gets, on its own weights: where the rule keeps the base (here the check is
    made to find the part short against it), the combined file plays the base's weights
    at that count and says so; the part's own score stays beside the check's."""
    from sim import api
    from sim.studies import distill as distill_module

    each = {**SMALL, "iterations": 1, "games": 12, "check_games": 20}
    made = distill_strategy(out=tmp_path / "elsewhere.yaml", threads=1, command_line="first",
                            **{**each, "players": 3, "seed": 8, "check_games": 0})
    part = tmp_path / "each.3p.yaml"
    made.out.rename(part)
    mine = api.configure("plai", 3, strategies={"seat0": f"@{part}"})
    real_check = distill_module.Distiller.check
    checked = []

    def check_short_at_3(self, vector):
        check = real_check(self, vector)
        if self.players == (3,):
            checked.append(np.array(vector))
            check["players"]["3"].update(share=0.3, share_low=0.28, share_high=0.32)
        return check

    monkeypatch.setattr(distill_module.Distiller, "check", check_short_at_3)
    result = distill_strategy(out=tmp_path / "each.yaml", threads=1, per_count=True,
                              resume=True, command_line="second", **{**each, "players": "3,4"})
    assert len(checked) == 1   # the part's own weights, not a distillation's
    assert np.array_equal(checked[0], mine.weights[0])
    doc = yaml.safe_load(result.out.read_text())
    assert doc["score"]["3"]["kept_base"] and doc["score"]["3"]["checked_by"] == "second"
    assert "own_command" in doc["score"]["3"] and doc["tuned_on"]["per_count"]["3"][
        "command"] == "first"
    assert "players the base's own (the weights made there fell short)" in doc["summary"]
    assert "made by its own command" not in doc["summary"]   # it plays the base's there
    assert "weights made by another command (tuned_on.command), checked" in result.report()
    played = api.configure("plai", 3, strategies={"seat0": f"@{result.out}"}).weights[0]
    assert np.array_equal(played, api.configure(
        "plai", 3, strategies={"seat0": "expert-v1"}).weights[0])
    assert not np.array_equal(played, mine.weights[0])


def _row(share_low, share_high, fair=0.5):
    return {"share": (share_low + share_high) / 2, "share_low": share_low,
            "share_high": share_high, "fair_share": fair}


def test_beaten_by_names_who_make_the_result_worse_than_its_base():
    """The base beating the result counts; a field strategy counts only where it beats the
    result and not the base (one that beats both says nothing about the distillation)."""
    from sim.studies.distill_verdict import beaten_by

    check = {"opponent": "expert-v1", "players": {"2": _row(0.78, 0.80), "3": _row(0.2, 0.3, 1 / 3)},
             "field": {"bluffer": {"players": {"2": _row(0.06, 0.08), "3": _row(0.4, 0.5, 1 / 3)}},
                       "weighted": {"players": {"2": _row(0.13, 0.15), "3": _row(0.1, 0.2, 1 / 3)}}},
             "base_field": {"bluffer": {"players": {"2": _row(0.6, 0.7), "3": _row(0.4, 0.5, 1 / 3)}},
                            "weighted": {"players": {"2": _row(0.1, 0.2), "3": _row(0.1, 0.2, 1 / 3)}}}}
    assert beaten_by(check) == {2: ["bluffer"], 3: ["expert-v1"]}
    assert beaten_by({"games": 0}) == {}


def test_beaten_by_with_a_min_share_counts_the_base_below_it():
    """With ``min_share`` (--per-count's bar) the base counts as beating the result wherever
    the result wins less than that share against it, though above the fair one."""
    from sim.studies.distill_verdict import KEEP_SHARE, beaten_by

    check = {"opponent": "expert-v1", "players": {"2": _row(0.53, 0.55), "4": _row(0.56, 0.58),
                                                  "6": _row(0.45, 0.47)}}
    assert beaten_by(check) == {6: ["expert-v1"]}
    assert beaten_by(check, KEEP_SHARE) == {2: ["expert-v1"], 6: ["expert-v1"]}


def test_a_result_short_of_min_share_is_kept_where_it_dominates_its_base():
    """Below ``min_share`` the result still counts as better than its base where it beats
    it beyond the interval and does no worse than it against any field strategy (Peer-to-
    Peer at 2 players: 54.0 % against ``expert-v1``, and more than it against every
    hand-written player); one field strategy it does clearly worse against, or a win
    within the interval, and the base counts as beating it."""
    from sim.studies.distill_verdict import KEEP_SHARE, beaten_by

    check = {"opponent": "expert-v1", "players": {"2": _row(0.533, 0.547)},
             "field": {"greedy": {"players": {"2": _row(0.785, 0.799)}},
                       "random": {"players": {"2": _row(0.9857, 0.9895)}}},
             "base_field": {"greedy": {"players": {"2": _row(0.766, 0.780)}},
                            "random": {"players": {"2": _row(0.9873, 0.9908)}}}}
    assert beaten_by(check, KEEP_SHARE) == {}
    check["field"]["greedy"]["players"]["2"] = _row(0.55, 0.57)   # clearly worse than the base
    assert beaten_by(check, KEEP_SHARE) == {2: ["expert-v1"]}
    check["field"]["greedy"]["players"]["2"] = _row(0.785, 0.799)
    check["players"]["2"] = _row(0.49, 0.51)   # no win beyond the interval
    assert beaten_by(check, KEEP_SHARE) == {2: ["expert-v1"]}


def test_min_share_is_a_pairing_share_at_more_than_two_sides():
    """One seat against three base seats (fair 25 %): the bar is the share that wins 55 %
    against each base seat, 0.55 / (0.55 + 3 x 0.45) = 28.9 % of the decided games (PLAI's
    4-player weights won 40.6 % and were kept)."""
    from sim.studies.distill_verdict import KEEP_SHARE, beaten_by

    check = {"opponent": "expert-v1", "players": {"4": _row(0.28, 0.29, 0.25),
                                                  "5": _row(0.40, 0.41, 0.2)}}
    assert beaten_by(check, KEEP_SHARE) == {4: ["expert-v1"]}
    check["players"]["4"] = _row(0.29, 0.30, 0.25)
    assert beaten_by(check, KEEP_SHARE) == {}


def test_per_count_keeps_the_base_where_a_shipped_strategy_beats_the_result(tmp_path,
                                                                            monkeypatch):
    """--per-count: a count whose distilled weights lose to a shipped strategy that the
    base holds keeps the base's weights (noise draws included): the file plays the base
    there, says so, and the other count keeps its distillation."""
    from sim import api
    from sim.studies import distill as distill_module

    real_check = distill_module.Distiller.check

    def check_with_bluffer_winning_at_2(self, vector):
        check = real_check(self, vector)
        if self.players == (3,):   # 3 players: a result that clears the bar (KEEP_SHARE)
            check["players"]["3"].update(share=0.6, share_low=0.58, share_high=0.62)
            for field in ("field", "base_field"):
                for result in check[field].values():
                    result["players"]["3"].update(share=0.6, share_low=0.58, share_high=0.62)
        if self.players == (2,):
            check["field"]["bluffer"]["players"]["2"].update(share_low=0.05, share_high=0.07)
            check["base_field"]["bluffer"]["players"]["2"].update(share_low=0.6,
                                                                  share_high=0.7)
        return check

    monkeypatch.setattr(distill_module.Distiller, "check", check_with_bluffer_winning_at_2)
    result = distill_strategy(out=tmp_path / "each.yaml", threads=1, per_count=True,
                              **{**SMALL, "players": "2,3", "iterations": 1, "games": 12,
                                 "check_games": 20})
    doc = yaml.safe_load(result.out.read_text())
    assert "at 2 players the base's own" in doc["summary"]
    assert "at 4/5 players (not distilled) the base's" in doc["summary"]
    assert doc["score"]["2"]["kept_base"] and not doc["score"]["3"]["kept_base"]
    assert doc["score"]["2"]["min_share"] == distill_module.KEEP_SHARE
    assert "beaten by bluffer (which the base beats): the file keeps" in result.report()
    played = {p: api.configure("plai", p, strategies={"seat0": f"@{result.out}"}).weights[0]
              for p in (2, 3, 4, 5)}
    for p in (2, 4, 5):   # kept at 2; 4 and 5 were not distilled
        assert np.array_equal(played[p], api.configure(
            "plai", p, strategies={"seat0": "expert-v1"}).weights[0]), p
    assert not np.array_equal(played[3], api.configure(
        "plai", 3, strategies={"seat0": "expert-v1"}).weights[0])
