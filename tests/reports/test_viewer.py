"""The game viewer page (reports/viewer.py): self-contained, every step reachable, and the
side-by-side view of an edit opened at the right first difference."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

from sim import api
from sim.core.errors import UserError
from sim.cli import main
from sim.games.peer_to_peer.game import GAME as P2P

from card_edits import edited_cards


class _Page(HTMLParser):
    """The page's tags and attributes, the step buttons and the embedded data."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []
        self.steps: list[int] = []
        self._in_data = False
        self.data_text = ""
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == "button" and "data-step" in attrs:
            self.steps.append(int(attrs["data-step"]))
        self._in_data = tag == "script" and attrs.get("id") == "story-data"

    def handle_endtag(self, tag):
        self._in_data = False

    def handle_data(self, data):
        if self._in_data:
            self.data_text += data

    @property
    def data(self) -> dict:
        return json.loads(self.data_text)


def assert_self_contained(text: str) -> None:
    page = _Page(text)
    for tag, attrs in page.tags:
        assert tag not in ("link", "img", "iframe", "object", "embed"), tag
        for name in ("src", "href", "action", "srcset", "data"):
            assert name not in attrs or not re.match(r"\s*(https?:)?//", attrs[name] or ""), (tag, attrs)
        assert not (tag == "script" and "src" in attrs)
    assert "@import" not in text
    assert not re.search(r"url\(\s*['\"]?(https?:)?//", text)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)


def test_a_game_page_is_self_contained_and_every_round_is_reachable():
    text = api.viewer(seed=1, game_index=3)
    assert_self_contained(text)
    page = _Page(text)
    (story,) = page.data["stories"]
    rounds = P2P.configure(players=4).play(1, 3, 1)[0][0]["rounds"]
    assert len(story["steps"]) == rounds + 1                       # the setup, then each round
    assert [s["number"] for s in story["steps"]] == list(range(rounds + 1))
    assert page.steps == list(range(rounds + 1))                   # one button per step
    assert all(step["state"] for step in story["steps"][1:])      # each round: its table
    assert story["steps"][-1]["end_state"]
    assert page.data["divergence"] is None


def test_the_edit_of_technology_13_first_changes_round_1s_commit_of_team_a(tmp_path):
    """Technology 13 from 13 to 10, game 26 of seed 1 (4 players, expert v expert): the
    setup is the same; in round 1 Technology 13 is in the row and team A holds TE2 SC3
    IN4 SV1 (10 in all, no shift venture). No subset reaches 13, so team A can only pass;
    TE2 + SC3 + IN4 + SV1 = 10 reaches the edited value with a Technology card (P2P-R2a).
    So the edited team A weighs one more option, and takes it."""
    cards = edited_cards(tmp_path, "TE13", 10)
    text = api.viewer(seed=1, game_index=26, compare={"cards": str(cards)})
    assert_self_contained(text)
    data = _Page(text).data
    assert data["changes"] == ["TE13: Technology 13: Technology 13, venture, shift 2 -> "
                               "Technology 13: Technology 10, venture, shift 2"]
    found = data["divergence"]
    assert found["step"] == 1
    base, edit = (s["steps"][1]["lines"][found["line"]] for s in data["stories"])
    assert base["text"] == edit["text"] == ("team A's hand before it commits: Technology 2, "
                                            "Science 3, Information 4, Service 1")
    new = "Technology 2 + Science 3 + Information 4 + Service 1 for Technology 13"
    assert [o["text"] for o in base["decision"]["options"]] == ["pass"]
    chosen = [o for o in edit["decision"]["options"] if o["chosen"]]
    assert [o["text"] for o in chosen] == [new]
    # everything before it reads the same
    assert ([line["text"] for line in data["stories"][0]["steps"][0]["lines"]]
            == [line["text"] for line in data["stories"][1]["steps"][0]["lines"]])
    assert found["edit"].endswith(f"only this game weighed {new}")


def test_the_same_configuration_twice_has_no_difference(tmp_path):
    same = edited_cards(tmp_path, "TE13", 13)
    assert api.compare_games(seed=1, game_index=3, compare={"cards": str(same)}) is None
    data = _Page(api.viewer(seed=1, game_index=3, compare={"cards": str(same)})).data
    assert data["divergence"] is None and data["changes"] == []


def test_an_edit_of_the_starting_cards_is_named(tmp_path):
    """SV1 (team A's) and IN1 (team B's) exchange their S marks: no value or effect
    changes, yet the games do, and the page names the edit."""
    lines = api.default_cards("peer-to-peer").splitlines()
    swapped = {"SV1": "B", "IN1": "A"}
    for i, line in enumerate(lines):
        fields = line.split(",")
        if fields[0] in swapped:
            fields[5] = swapped[fields[0]]
            lines[i] = ",".join(fields)
    path = tmp_path / "starts.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    changes = _Page(api.viewer(seed=1, game_index=3, compare={"cards": str(path)})).data["changes"]
    assert any(c.startswith("SV1:") and c.endswith("a starting card of team B")
               for c in changes), changes


def test_plai_turn_by_turn_and_a_rules_edit(tmp_path):
    """PLAI, 3 players, game 1 of seed 1: seat 0 holds 8 cards at turn 4. With
    takeover_threshold 7 (PLAI-T1) a hostile takeover is one of its options there; at the
    default 9 it is not."""
    rules = tmp_path / "threshold7.yaml"
    rules.write_text("takeover_threshold: 7\n", encoding="utf-8")
    text = api.viewer(game="plai", players=3, seed=1, game_index=1,
                      compare={"rules_file": str(rules)})
    assert_self_contained(text)
    page = _Page(text)
    data = page.data
    base, edit = data["stories"]
    assert base["unit"] == "turn"
    assert page.steps == list(range(max(len(base["steps"]), len(edit["steps"]))))
    assert "takeover_threshold=9 -> takeover_threshold=7" in data["changes"]
    found = data["divergence"]
    assert found["step"] == 4 and base["steps"][4]["title"].startswith("turn 4: seat 0")
    options = [o["text"] for o in edit["steps"][4]["lines"][found["line"]]["decision"]["options"]]
    assert any(o.startswith("hostile takeover of seat") for o in options)
    assert not any(o["text"].startswith("hostile takeover") for o in
                   base["steps"][4]["lines"][found["line"]]["decision"]["options"])


def test_simulate_trace_writes_the_page_and_says_where_the_games_part(runner, tmp_path):
    cards = edited_cards(tmp_path, "TE13", 10)
    out = tmp_path / "game3.html"
    result = runner.invoke(main, ["trace", "--seed", "1", "--game-index", "26",
                                  "--compare-cards", str(cards), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert f"viewer: {out}" in result.output
    assert "first difference, Round 1 (first team marker: team B)" in result.output
    assert_self_contained(out.read_text(encoding="utf-8"))
    plain = runner.invoke(main, ["trace", "--seed", "1", "--game-index", "3"])
    assert plain.output.startswith("Peer-to-Peer, 4 players, seed 1, game 3")


def test_the_self_contained_check_can_fail():
    with pytest.raises(AssertionError):
        assert_self_contained('<html><script src="https://cdn.example/x.js"></script></html>')
    with pytest.raises(AssertionError):
        assert_self_contained("<style>@import url(https://fonts.example/a.css);</style>")


@pytest.mark.parametrize("show", ["viewer", "compare_games"])
def test_an_edited_game_of_another_game_is_refused(show):
    with pytest.raises(UserError, match="the edited game must be the same game"):
        getattr(api, show)("peer-to-peer", players=3, seed=1, game_index=0,
                           compare=api.GameRequest(game="plai", players=3))


def test_a_heading_that_differs_before_any_line_is_the_first_difference(tmp_path):
    """A third copy of Daily Standups: the deck is larger from the deal on, which the
    first turn's heading shows before any line differs."""
    text = api.default_cards("plai").replace("1,Daily Standups,adversary,3,I,2,",
                                             "1,Daily Standups,adversary,3,I,3,")
    (tmp_path / "edit.csv").write_text(text)
    found = api.compare_games("plai", players=3, seed=1, game_index=1,
                              compare={"cards": str(tmp_path / "edit.csv")})
    assert found.line == -1 and "deck 20" in found.base_text and "deck 21" in found.edit_text
