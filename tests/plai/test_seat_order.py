"""PLAI-D: options of a decision that name another seat are listed from the next seat
clockwise from the deciding seat, so a tie between equal targets never favours a seat
number (listed from seat 0, every tie would go to seat 0). Every
strategy decides through the kernel's lists, so each is checked here."""
from __future__ import annotations

import numpy as np
import pytest

from sim.games.plai import constants as c
from sim.games.plai import decide_kernel as dk
from sim.games.plai.features import DEFAULT_WEIGHTS, FEATURE_NAMES
from sim.core.strategy import parse_spec, registry
from plai_state import CARDS, State, rules

# The tie-breaking strategies (random has noise on every option: its ties have
# probability 0, and its targets are uniform by construction).
DETERMINISTIC = sorted(name for name in registry("plai") if name != "random")


def vector(spec: str, **weights) -> np.ndarray:
    strategy, params = parse_spec(spec, "plai")
    w = strategy.vector(FEATURE_NAMES, DEFAULT_WEIGHTS, params)
    for name, value in weights.items():
        w[FEATURE_NAMES.index(name)] = value
    return w


def _target(w, players, actor, hands, bankrupt=(), **rule_overrides):
    s = State(players, hands=hands, bankrupt=bankrupt)
    action, _, target = dk.choose_action(w, s.rng, CARDS, rules(players, **rule_overrides),
                                         s.piles, s.pile_n, s.bankrupt, actor)
    return action, target


@pytest.mark.parametrize("strategy", DETERMINISTIC)
@pytest.mark.parametrize("players", (3, 4, 5))
def test_tied_special_targets_go_to_the_next_seat_so_every_seat_gets_its_share(strategy,
                                                                                players):
    w = vector(strategy, **{"act.special": 100.0})
    received = [0] * players
    for actor in range(players):
        hands = {s: ["Synergy", "Chatbot", "Tech Debt"] for s in range(players)}
        hands[actor] = ["Layoffs", "Synergy", "Chatbot"]   # everyone holds 3 cards: a tie
        action, target = _target(w, players, actor, hands)
        assert action == c.ACT_SPECIAL
        assert target == (actor + 1) % players
        received[target] += 1
    assert received == [1] * players        # each seat is the target once: its share


@pytest.mark.parametrize("strategy", DETERMINISTIC)
@pytest.mark.parametrize("players", (3, 4, 5))
def test_tied_takeover_targets_go_to_the_next_seat(strategy, players):
    w = vector(strategy, **{"act.takeover": 1000.0})
    received = [0] * players
    for actor in range(players):
        hands = {s: ["Synergy", "Chatbot"] for s in range(players)}
        hands[actor] = ["Vendor Lock-in"] * 9
        action, target = _target(w, players, actor, hands)
        assert action == c.ACT_TAKEOVER
        received[target] += 1
        assert target == (actor + 1) % players
    assert received == [1] * players


def test_a_bankrupt_next_seat_is_skipped_and_the_one_after_it_is_first():
    w = vector("weighted", **{"act.special": 100.0})
    hands = {0: ["Synergy"] * 2, 1: ["Synergy"] * 2, 4: ["Acqui-hire", "Synergy"]}
    # seat 4 acts; seats 0 and 1 hold 2 cards each; 2 and 3 are bankrupt
    assert _target(w, 5, 4, hands, bankrupt=(2, 3)) == (c.ACT_SPECIAL, 0)
    hands = {0: ["Synergy"] * 2, 3: ["Synergy"] * 2, 2: ["Acqui-hire", "Synergy"]}
    assert _target(w, 5, 2, hands, bankrupt=(1, 4)) == (c.ACT_SPECIAL, 3)
    # A bigger hand still wins over the next seat (ties only are ordered).
    hands = {0: ["Synergy"] * 5, 1: ["Synergy"] * 2, 4: ["Acqui-hire", "Synergy"]}
    assert _target(w, 5, 4, hands, bankrupt=(2, 3))[1] == 0
    hands = {0: ["Synergy"] * 2, 1: ["Synergy"] * 5, 4: ["Acqui-hire", "Synergy"]}
    assert _target(w, 5, 4, hands, bankrupt=(2, 3))[1] == 1


@pytest.mark.parametrize("players", (3, 5))
def test_a_maintainers_tied_targets_start_after_its_seat(players):
    w = vector("weighted", **{"act.special": 100.0, "act.takeover": 1000.0})
    for actor in range(players):
        hands = {s: ["Synergy", "Chatbot"] for s in range(players) if s != actor}
        s = State(players, hands=hands, bankrupt=[actor], pool=["Layoffs"])
        _, _, target = dk.choose_action(w, s.rng, CARDS, rules(players), s.piles, s.pile_n,
                                        s.bankrupt, actor)
        assert target == (actor + 1) % players
        s = State(players, hands=hands, bankrupt=[actor], pool=["Vendor Lock-in"])
        action, _, target = dk.choose_action(w, s.rng, CARDS,
                                             rules(players, maintainer_attack=True),
                                             s.piles, s.pile_n, s.bankrupt, actor)
        assert (action, target) == (c.ACT_TAKEOVER, (actor + 1) % players)
