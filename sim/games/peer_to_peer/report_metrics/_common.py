"""Helpers shared by the Peer-to-Peer metric modules (not a metric itself)."""
from __future__ import annotations

# the game-neutral helpers every metric uses
from sim.core.report_metric import (add_verdict, collect, judged, keys, lazy,  # noqa: F401
                                    length_histograms, n_of, sort_groups, where)
# winner codes: the game's own (sim/games/peer_to_peer/constants.py; its Game.outcome_codes)
from sim.games.peer_to_peer.constants import (ALL_LOSE, DRAW, SOLO_WIN, TIMEOUT,  # noqa: F401
                                              WIN_A, WIN_B)

# players per team by player count (P2P-S1); team A is the larger team
TEAM_PLAYERS = {1: (1, 0), 2: (1, 1), 3: (2, 1), 4: (2, 2), 5: (3, 2), 6: (3, 3)}
