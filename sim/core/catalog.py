"""The games the simulator knows, by name (no imports: the CLI reads it before --help).

Explicit on purpose: read it to see every game. ``sim.core.game`` resolves a name to its
GAME object (and adds the games of CARDSIM_EXTRA_GAMES).
"""

# name on the command line -> module holding GAME
GAME_MODULES = {
    "peer-to-peer": "sim.games.peer_to_peer.game",
    "plai": "sim.games.plai.game",
}

# The game a command plays when none is named (the flagship ``simulate --games 1e6``).
DEFAULT_GAME = "peer-to-peer"
