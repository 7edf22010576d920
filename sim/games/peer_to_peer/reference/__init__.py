"""A readable, pure-Python reference engine for Peer-to-Peer.

Written from docs/rules/peer-to-peer.md in an object style (cards, piles, seats,
teams, a table), sharing with the numba kernels only their documented conventions: the
random stream (rng.py), the option order and features of every decision
(features.py), which effect uses make an assist legal (assist_kernel.py) and the order of
random draws (engine_kernel.py). tests/peer_to_peer/test_reference_differential.py plays the same
seeded games on both engines and compares them field by field.

    from sim.games.peer_to_peer.reference import play_games, play_game
    rows = play_games(config, seed, start, count)      # list of dicts, one per game
    result = play_game(config, seed, index, trace=True)  # .row, .fates, .events
"""
from sim.games.peer_to_peer.reference.game import GameResult, Reference, play_game, play_games

__all__ = ["GameResult", "Reference", "play_game", "play_games"]
