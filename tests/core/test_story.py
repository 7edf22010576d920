"""sim.core.story: the text a story prints, the keys that compare cards by id, and where two
stories of the same game first differ."""
from __future__ import annotations

import pytest

from sim.core.story import (
    CardInfo, Decision, Line, Option, Step, Story, card_changes, first_divergence, header_changes,
    keyed,
)

IDS = ["TE13", "SV1"]


def _build(card, took: int = 0, extra: bool = False, lines: int = 2, rounds: int = 2):
    """A two-round story whose round 1 has a commit decision over cards named by ``card``."""
    options = [Option("pass", 0.0), Option(f"{card(1)} for {card(0)}", 1.5)]
    if extra:
        options.append(Option(f"{card(1)} + {card(1)} for {card(0)}", 2.0))
    options[took].chosen = True
    steps = [Step(0, "Setup", ["", "Setup"], lines=[Line(f"customer {card(0)} joins the row")])]
    for r in range(1, rounds + 1):
        body = [Line("team A's hand before it commits: " + card(1), "decision",
                     decision=Decision("team A", "commit", "scores", [
                         Option(o.text, o.score, o.chosen) for o in options]))]
        body += [Line(f"line {i}") for i in range(lines - 1)]
        steps.append(Step(r, f"Round {r}", ["", f"Round {r}"], lines=body))
    return Story("Game", "round", ["Game, seed 1", "rules: a=1, b=2"], steps, ["", "end"],
                 [CardInfo(i, n, f"{n}: x") for i, n in zip(IDS, ["Tech", "Serv"])])


def _story(names=("Tech", "Serv"), **kw):
    return keyed(lambda words: _build(words, **kw), list(names), IDS)


def test_text_prints_headings_leads_and_indented_lines():
    story = _story()
    story.steps[1].lines[1].depth = 1
    story.steps[1].lines[1].lead = ["  (a lead line)"]
    text = story.text().splitlines()
    assert text[:4] == ["Game, seed 1", "rules: a=1, b=2", "", "Setup"]
    assert "  customer Tech joins the row" in text
    assert text[text.index("  (a lead line)") + 1] == "    line 0"
    assert text[-2:] == ["", "end"]


def test_the_same_game_under_other_card_names_does_not_differ():
    """Keys name cards by id: a renamed card is the same game."""
    assert first_divergence(_story(), _story(names=("Technology 13", "Service 1"))) is None


def test_a_choice_or_an_option_that_differs_under_the_same_words():
    found = first_divergence(_story(took=1), _story(took=2, extra=True))
    assert (found.step, found.line, found.where) == (1, 0, "Round 1")
    assert found.base_text.endswith("took Serv for Tech")
    assert found.edit_text.endswith("took Serv + Serv for Tech; only this game weighed "
                                    "Serv + Serv for Tech")
    same_choice = first_divergence(_story(took=1), _story(took=1, extra=True))
    assert same_choice is not None and same_choice.line == 0   # one more option: differs


def test_a_longer_step_and_a_longer_game():
    found = first_divergence(_story(lines=2), _story(lines=3))
    assert (found.step, found.line) == (1, 2) and found.base_text == "(nothing more)"
    found = first_divergence(_story(rounds=2), _story(rounds=3))
    assert (found.step, found.line) == (3, -1)
    assert (found.base_text, found.edit_text) == ("the game had ended", "the game went on")


def test_what_an_edit_changed():
    base, edit = _story(), _story()
    edit.cards[0] = CardInfo("TE13", "Tech", "Tech: y")
    edit.cards.append(CardInfo("NEW", "New", "New: z"))
    edit.header[1] = "rules: a=1, b=3"
    assert card_changes(base, edit) == ["TE13: Tech: x -> Tech: y",
                                        "NEW only in the edited game: New: z"]
    assert header_changes(base, edit) == ["b=2 -> b=3"]


def test_a_game_without_a_story_says_so_in_one_line(fake_game_registered):
    from sim import api
    from sim.core.errors import UserError

    with pytest.raises(UserError, match="cannot tell a game as a story"):
        api.viewer(game="fake", seed=1, game_index=0)
