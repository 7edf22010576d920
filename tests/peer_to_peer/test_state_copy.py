"""state_kernel.copy_state and engine_kernel.play_rounds: a copy of a Peer-to-Peer game's
state made between rounds plays on exactly as the original would (what a search player
clones and plays out from)."""
import pytest

from sim.core.game import get_game
from sim.games.peer_to_peer import engine_kernel as e
from sim.games.peer_to_peer import state_kernel as s
from sim.games.peer_to_peer.constants import R_MAX_ROUNDS, TIMEOUT

NO_TRACE = None  # no trace: the version run_games uses (trace branches compiled away)


def _args(config):
    return config._kernel_args()


def _start(game, seed, game_index, state):
    e.start_game(game, seed, game_index, NO_TRACE, state)


def _play_rounds(game, rules, state):
    return e.play_rounds(game._replace(rules=rules), NO_TRACE, True, state)


def _game_state(state):
    """The parts of a state a game goes on from (not the scratch rows), as plain lists."""
    rng, pile, pile_n, arrival, used, st, stats, starts, _ = state
    return ([int(x) for x in rng], [pile[p, :pile_n[p]].tolist() for p in range(s.N_PILES)],
            arrival.tolist(), used.tolist(), st.tolist(), stats.tolist(), starts.tolist())


@pytest.mark.parametrize("players, strategies", [
    (4, None),
    (3, {"A": "random", "B": "greedy"}),  # strategy noise: the copy must carry the stream
    (1, {"A": "random"}),
])
def test_a_copy_made_between_rounds_plays_on_as_the_original(players, strategies):
    config = get_game("peer-to-peer").configure(players=players, strategies=strategies)
    game = _args(config)
    cards, rules = game[0], game[1]
    first_part = rules.copy()
    checked = 0
    for game_index in range(12):
        whole = e.new_state(cards.shape[1])
        _start(game, 5, game_index, whole)
        expected = _play_rounds(game, rules, whole)
        split_at = 1 + game_index % 4
        if expected[1] <= split_at:
            continue  # over before the copy is made
        # The first rounds, stopped after round split_at (max_rounds is read only by the
        # round loop), then copied into a state left over from another game.
        first_part[R_MAX_ROUNDS] = split_at
        original = e.new_state(cards.shape[1])
        _start(game, 5, game_index, original)
        assert _play_rounds(game, first_part, original) == (TIMEOUT, split_at)
        copy = e.new_state(cards.shape[1])
        _start(game, 99, game_index + 1, copy)
        _play_rounds(game, rules, copy)
        s.copy_state(original, copy)
        assert _game_state(copy) == _game_state(original)
        # the original plays on first: the copy shares none of its arrays
        assert _play_rounds(game, rules, original) == expected
        assert _game_state(original) == _game_state(whole)
        assert _play_rounds(game, rules, copy) == expected
        assert _game_state(copy) == _game_state(whole)
        checked += 1
    assert checked >= 6
