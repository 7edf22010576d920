"""What the game viewer reads from a traced game beyond the rule events (view_kernel): the
options of D2 and D4 with their scores, the table at each round's start and at the end,
and each unhappy customer's cause. Each is checked against what the game did."""
import math

import numpy as np
import pytest

from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer.game import GAME
from sim.games.peer_to_peer.why_lose import CAUSES

pytestmark = pytest.mark.usefixtures("p2p_kernels")

PAIRINGS = [(4, "expert", "expert"), (3, "random", "greedy"), (1, "expert", "expert")]
# strategies without a noise weight: the option taken is the first highest listed
NOISELESS = [(4, "greedy", "cautious"), (3, "builder", "greedy"), (1, "greedy", "greedy")]


def _stories(players, a, b, games, seed=11):
    config = GAME.configure(players=players, strategies={"A": a, "B": b})
    return config, [(i, config.story(seed, i)) for i in range(games)]


def _decisions(stories):
    for _, story in stories:
        for step in story.steps:
            for line in step.lines:
                if line.decision is not None:
                    yield step, line, line.decision.options


@pytest.mark.parametrize("players,a,b", PAIRINGS + NOISELESS)
def test_every_decision_lists_the_option_taken(players, a, b):
    """The options are the decisions' own listings (the ones the search ranks): the
    option the game took is among them, once, at every decision."""
    _, stories = _stories(players, a, b, 12)
    decisions = 0
    for step, line, options in _decisions(stories):
        decisions += 1
        assert len([o for o in options if o.chosen]) == 1, (step.title, line.text, options)
    assert decisions > 100


@pytest.mark.parametrize("players,a,b", NOISELESS)
def test_without_noise_the_option_taken_has_the_highest_score(players, a, b):
    """A listed score leaves out the strategy's noise feature (the listing draws nothing):
    for strategies without noise it is the score they compared, and the option the game
    took is the first highest, at every decision."""
    _, stories = _stories(players, a, b, 12)
    decisions = 0
    for step, line, options in _decisions(stories):
        decisions += 1
        chosen = [o for o in options if o.chosen][0]
        best = max(o.score for o in options if not math.isnan(o.score))
        assert chosen.score >= best - 1e-6, (step.title, line.text, options)
        first = next(o for o in options if not math.isnan(o.score) and o.score >= best - 1e-6)
        assert first is chosen, (step.title, line.text, options)
    assert decisions > 100


def test_tracing_leaves_the_games_alone_with_noisy_strategies():
    """The viewer's listings draw nothing and put the stream back all the same: a traced
    game's row equals the untraced one's under strategies with noise on every decision."""
    config = GAME.configure(players=4, strategies={"A": "expert", "B": "random"})
    rows, fates = config.play(5, 0, 20)
    for i in range(20):
        _, row, fate = config.trace_events(5, i)
        assert all(row[name] == rows[i][name] for name in k.RESULT_DTYPE.names)
        assert np.array_equal(fate, fates[i])


@pytest.mark.parametrize("players,a,b", PAIRINGS)
def test_the_table_at_each_round_and_at_the_end(players, a, b):
    """Every round starts with a snapshot; the last one's score piles are the result's,
    the customer deck never grows, and a game of n cards has all n somewhere."""
    config, stories = _stories(players, a, b, 6)
    for i, story in stories:
        row = config.play(11, i, 1)[0][0]
        deck = []
        for step in story.steps[1:]:
            piles = {(p.group, p.label): p for p in step.state}
            deck.append(piles[("table", "customer deck")].size)
            assert piles[("table", "row")].cards is not None
        assert deck == sorted(deck, reverse=True)
        end = {(p.group, p.label): p for p in story.steps[-1].end_state}
        assert end[("team A", "score pile")].size == row["score_a"]
        if players > 1:
            assert end[("team B", "score pile")].size == row["score_b"]
        else:
            assert not any(group == "team B" for group, _ in end)
        assert sum(p.size for p in story.steps[-1].end_state) == config.cards.n


def test_each_unhappy_customer_names_its_cause_as_the_result_counts_it():
    config, stories = _stories(4, "expert", "expert", 40)
    rows = config.play(11, 0, 40)[0]
    seen = 0
    for i, story in stories:
        tags = [line.tag for step in story.steps for line in step.lines if line.kind == "unhappy"]
        assert len(tags) == rows[i]["unhappy"]
        for cause in CAUSES:
            assert tags.count(f"cause: {cause.name}") == rows[i][f"unhappy_{cause.name}"]
        seen += len(tags)
    assert seen > 0


def test_contests_name_the_step_that_decided_them():
    _, stories = _stories(4, "expert", "expert", 20)
    tags = [line.tag for _, story in stories for step in story.steps for line in step.lines
            if line.kind == "contest"]
    assert tags and all(tag.startswith("decided by: ") for tag in tags)
