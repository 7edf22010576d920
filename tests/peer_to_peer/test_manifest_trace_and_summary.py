"""What a run tells: the manifest records the reading options, the trace answers "could
they have served that customer?", and the run summary and report say once when one
outcome dominates or when 3 players play exactly like 4."""
import json

import numpy as np
import pytest

from sim.cli import main
from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer import engine_kernel as e
from sim.games.peer_to_peer.game import GAME
from sim.games.peer_to_peer.rules import OPTIONS, plays_like

from p2p_state import PASSIVE, State

READING_OPTIONS = {"unchosen_ventures": "aside", "solo_spare_start_cards": "customers",
               "contest_unpaired": "longer_wins", "patience_resets_wait": False}


pytestmark = pytest.mark.usefixtures("p2p_kernels")


# ---------------------------------------------------------------- manifest

def test_the_manifest_records_the_reading_options_defaults_and_overrides(runner, tmp_path):
    out = tmp_path / "r"
    result = runner.invoke(main, ["--games", "500", "--players", "1", "--out", str(out),
                                  "--no-progress", "--rule", "contest_unpaired=tied",
                                  "--rule", "solo_spare_start_cards=out"])
    assert result.exit_code == 0, result.output
    rules = json.loads((out / "manifest.json").read_text())["rules"]
    assert {key: rules[key] for key in READING_OPTIONS} == {
        **READING_OPTIONS, "contest_unpaired": "tied", "solo_spare_start_cards": "out"}


# ---------------------------------------------------------------- trace

def test_trace_says_whether_the_waiting_team_could_have_assisted_an_unhappy_customer():
    """P2P-R2a / R4: SV5 waited since round 1 and is due at the end of round 2. Team A
    (passive) holds SV2 SV3, which sum to 5 with a Service card: it could have assisted SV5
    but passed. Team B's TE1 could not. The trace records both (EV_COULD) and the unhappy
    line says so."""
    s = State(players=2, round=2, strategies={"A": PASSIVE, "B": PASSIVE})
    s.row("SV5", arrival=1).hand("A", "SV2", "SV3").hand("B", "TE1")
    s.assist_loop()
    could = [(ev[2], ev[3], ev[4]) for ev in s.events(e.EV_COULD)]
    assert could == [(0, s.id("SV5"), 0b11), (1, s.id("SV5"), 0)]
    hands = [(ev[2], ev[3], ev[4]) for ev in s.events(e.EV_HAND)]
    assert hands == [(0, s.id("SV2"), 0), (0, s.id("SV3"), 1), (1, s.id("TE1"), 0)]
    s.unhappy()
    story = s.story()
    assert ("customer SV5 turns unhappy (P2P-R4); team A could have assisted it with SV2 + SV3"
            in story)
    assert "no subset of team B's hand (TE1) could assist it" in story
    assert "team A's hand before it commits: SV2, SV3" in story


def test_trace_shows_every_draw_and_reshuffle_with_the_cards():
    """P2P-R3: team A's deck holds TE2 only, its discard SC3 IN4: drawing 4 takes TE2,
    then reshuffles the 2 discarded cards (plus the hand discarded first) and draws on."""
    s = State(players=2).hand("A", "SV1").deck("A", "TE2").discard("A", "SC3", "IN4")
    s.refresh("A")
    draws = [s.name(ev[3]) for ev in s.events(e.EV_DRAW)]
    assert draws[0] == "TE2" and sorted(draws[1:]) == ["IN4", "SC3", "SV1"]
    (reshuffle,) = s.events(e.EV_RESHUFFLE)
    assert reshuffle[2:4] == (0, 3)
    assert "reshuffles its discard (3 cards) into a new group deck" in s.story()


def test_simulate_trace_shows_hands_draws_and_ventures_set_aside(runner):
    result = runner.invoke(main, ["trace", "--seed", "3", "--game-index", "2"])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "draws its first hand: " in text and "(P2P-S4)" in text
    assert "is set aside, out of the game (P2P-S2" in text
    assert "'s hand before it commits: " in text
    refreshes = [line for line in text.splitlines() if "refreshes: draws " in line]
    assert refreshes and all(": " in line.split("refreshes: ")[1] for line in refreshes)


def test_untraced_and_traced_games_are_the_same_games():
    """Tracing only writes events: a traced game's row equals the untraced one's."""
    config = GAME.configure(players=4, strategies={"A": "cautious", "B": "builder"})
    rows, fates = config.play(7, 0, 30)
    for i in range(30):
        _, row, fate = config.trace_events(7, i)
        assert all(row[name] == rows[i][name] for name in k.RESULT_DTYPE.names)
        assert np.array_equal(fate, fates[i])


# ---------------------------------------------------------------- summary and report

@pytest.mark.parametrize("players,mode,like", [
    (3, "extra_venture", 4), (5, "extra_venture", 6), (3, "extra_venture_empty", None),
    (5, "none", None), (4, "extra_venture", None), (2, "extra_venture", None)])
def test_plays_like_needs_equal_rules_and_seats(players, mode, like):
    resolved = OPTIONS.resolve(None, (f"odd_team_compensation={mode}",))
    assert plays_like(resolved, players) == like


def test_plays_like_needs_equal_per_player_count_options():
    resolved = OPTIONS.resolve(None, ("unhappy_limit.3=3",))
    assert plays_like(resolved, 3) is None
    assert plays_like(resolved, 5) == 6


def test_summary_says_once_that_3_players_play_like_4_and_when_everyone_loses(runner, tmp_path):
    """Patience 1 makes everyone lose in most games of greedy teams (named: the default is
    expert, which loses fewer); at 3 players with extra_venture the summary adds one line for
    each, naming where the report shows why."""
    result = runner.invoke(main, ["--games", "2000", "--players", "3", "--rule",
                                  "customer_patience=1", "--out", str(tmp_path / "r3"),
                                  "--team-a", "greedy", "--team-b", "greedy", "--no-progress"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    dominant = [line for line in lines if line.startswith("Everyone loses in most games")]
    assert len(dominant) == 1 and "Per card: fate at the end of the game" in dominant[0]
    like = [line for line in lines if "play exactly like 4" in line]
    assert len(like) == 1
    result = runner.invoke(main, ["--games", "2000", "--players", "3", "--rule",
                                  "odd_team_compensation=none", "--out", str(tmp_path / "rn"),
                                  "--no-progress"])
    assert result.exit_code == 0 and "play exactly like" not in result.output
    # cautious teams at 4 players: about a quarter of the games end with everyone losing
    result = runner.invoke(main, ["--games", "2000", "--team-a", "cautious", "--team-b",
                                  "cautious", "--out", str(tmp_path / "r4"), "--no-progress"])
    assert result.exit_code == 0 and "Everyone loses in most games" not in result.output
    assert "play exactly like" not in result.output


def test_report_says_it_once_and_does_not_repeat_the_rows_as_findings(tmp_path):
    from sim import api

    runs = [api.run(players=p, games=3000, seed=2, out=tmp_path / f"{p}p", progress=False,
                    strategies={"A": "greedy", "B": "greedy"}).run_dir for p in (3, 4)]
    written = api.report(runs, tmp_path / "report")
    texts = [f["text"] for f in written["findings"]]
    assert sum("play exactly like 4" in t for t in texts) == 1
    assert not [t for t in texts if t.startswith("3 players") and "exactly like" not in t]
    assert [t for t in texts if t.startswith("4 players")]
    # without the 4-player run, the 3-player rows are findings of their own
    alone = api.report(runs[:1], tmp_path / "report3")
    assert [f for f in alone["findings"] if f["text"].startswith("3 players")]
    assert not [f for f in alone["findings"] if "exactly like" in f["text"]]


def test_trace_says_a_short_refresh_a_spent_tiebreak_and_a_solo_games_one_team():
    """Default games whose traces show these (seed 1, 4 players): game 13 refreshes with
    fewer cards than due, game 7 has a contest decided by a tiebreak; a solo trace names
    only team A."""
    from sim import api

    text = api.story(players=4, seed=1, game_index=13).text()
    assert ("refreshes: draws 5 of 6 (hand_size 4 + extra 2; its group deck and discard "
            "ran out)") in text
    text = api.story(players=4, seed=1, game_index=0,
                     rule_overrides=("reshuffle_discard=false",)).text()
    assert "of 4 (hand_size 4; its group deck ran out, reshuffle_discard=false)" in text
    text = api.story(players=4, seed=1, game_index=7).text()
    assert "wins by its `tiebreak` venture, now spent for the round (P2P-R2c, E5)" in text
    solo = api.story(players=1, seed=3, game_index=0).text().splitlines()[0]
    assert solo == "Peer-to-Peer, 1 player, seed 3, game 0; team A: expert"
