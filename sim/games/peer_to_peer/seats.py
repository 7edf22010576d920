"""Seats by player count (P2P-S1): team A's seats first, then team B's."""
import numpy as np

from sim.games.peer_to_peer.constants import MAX_SEATS, SEAT_DEALT, SEAT_TEAM

TEAM_SIZES = {1: (1, 0), 2: (1, 1), 3: (2, 1), 4: (2, 2), 5: (3, 2), 6: (3, 3)}


def seat_layout(players: int, odd_team_compensation: str) -> np.ndarray:
    """int64[2, MAX_SEATS]: each seat's team (-1 = no seat) and whether it is dealt a start."""
    size_a, size_b = TEAM_SIZES[players]
    teams = [0] * size_a + [1] * size_b
    dealt = [1] * (size_a + size_b)
    if players in (3, 5) and odd_team_compensation != "none":
        teams.append(1)  # the smaller team (B) controls an extra venture
        dealt.append(1 if odd_team_compensation == "extra_venture" else 0)
    layout = np.full((2, MAX_SEATS), -1, dtype=np.int64)
    layout[SEAT_DEALT] = 0
    layout[SEAT_TEAM, :len(teams)] = teams
    layout[SEAT_DEALT, :len(dealt)] = dealt
    return layout


def seat_teams(players: int, odd_team_compensation: str) -> list[str]:
    layout = seat_layout(players, odd_team_compensation)
    return ["AB"[t] for t in layout[SEAT_TEAM] if t >= 0]
