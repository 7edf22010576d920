"""What the game viewer reads from a traced PLAI game beyond the rule events
(view_kernel): each turn's table and the action options with their scores, checked
against what the game did."""
import math

import pytest

from sim.games.plai import constants as c
from sim.games.plai.game import GAME


@pytest.mark.parametrize("players,strategy", [(3, "expert"), (4, "random"), (2, "bluffer"),
                                              (4, "cautious")])
def test_the_action_taken_is_listed_and_without_noise_scores_highest(players, strategy):
    """The options are choose_action_s's own listing (the one the search ranks), scored
    without the noise feature: the action the game took is listed once every turn, and
    for a strategy without noise (bluffer, cautious) it is the first highest."""
    config = GAME.configure(players=players, strategies={"all": strategy})
    noisy = strategy in ("expert", "random")
    decisions = 0
    for i in range(8):
        for step in config.story(3, i).steps:
            for line in step.lines:
                if line.decision is None:
                    continue
                decisions += 1
                options = line.decision.options
                chosen = [o for o in options if o.chosen]
                assert len(chosen) == 1, (step.title, line.text, options)
                if noisy:
                    continue
                best = max(o.score for o in options if not math.isnan(o.score))
                assert chosen[0].score >= best - 1e-3, (step.title, line.text, options)
    assert decisions > 50


def test_tracing_leaves_the_games_alone_with_noisy_strategies():
    config = GAME.configure(players=3, strategies={"all": "random"})
    rows = config.play(4, 0, 15)
    for i in range(15):
        story = config.story(4, i)
        end = {p.group: p.size for p in story.steps[-1].end_state if p.label.startswith("hand")}
        assert [end[f"seat {s}"] for s in range(3)] == list(rows[i]["hand"][:3])
        assert len(story.steps) - 1 == rows[i]["turns"]


def test_every_turn_starts_with_the_table():
    config = GAME.configure(players=4)
    story = config.story(2, 5)
    every_card = sum(p.size for p in story.steps[1].state)   # a reshuffle may refill the deck
    for step in story.steps[1:]:
        piles = {(p.group, p.label): p for p in step.state}
        assert piles[("table", "deck")].cards is None            # face down: a size
        hands = [p for p in step.state if p.group.startswith("seat")]
        assert len(hands) == 4 and all(p.cards is not None and len(p.cards) == p.size
                                       for p in hands)
        assert piles[("table", "deck")].size < every_card
    assert story.steps[-1].lines[-1].kind == "end"
    fights = [line.tag for step in story.steps for line in step.lines if line.kind == "contest"]
    assert all(tag.split(": ")[1] in c.WHY_NAMES for tag in fights)
