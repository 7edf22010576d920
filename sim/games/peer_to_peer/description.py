"""The parts of Peer-to-Peer's description (``GAME`` in game.py) that are functions: its
compiled entry points, its strategy slots (teams A and B) and keys, the pairing label, the headline counts, the
balance report's rule variants, the sweep's default metrics and the reports' variant."""
from __future__ import annotations

from typing import Any, Mapping

import polars as pl

from sim.core.strategy import team_pairing
from sim.games.peer_to_peer import constants as k

DEFAULT_STRATEGY = "expert"      # the tuned strategy (strategies/peer_to_peer/expert.yaml)
TEAMS = ("A", "B")
# balance-report: at 3 and 5 players (an odd team) every odd_team_compensation mode
ODD_TEAM_COUNTS = (3, 5)
BALANCE_MODES = ("extra_venture", "extra_venture_empty", "none")
# card fields an experiment may change, in the order its messages have always listed them
CARD_FIELDS = ("value", "effect", "domain", "kind", "start", "name")
# outcomes: the winner codes of constants.py (P2P "What a game must report")
OUTCOME_CODES = {name: code for code, name in enumerate(k.WINNER_NAMES)}


def card_role(row: Mapping[str, str], players: int) -> str | None:
    """A card's S mark (P2P-S3): the team whose starting group deck it is in. That is why a
    change to such a card moves that team's rate and not the other's. In a solo game team
    B's S cards have no team (option solo_spare_start_cards): no role."""
    team = (row.get("start") or "").strip().upper()
    if not team or (players == 1 and team == "B"):
        return None
    return f"in team {team}'s starting deck"


def kernels() -> tuple:
    """The compiled entry points a run calls (imported here, not compiled)."""
    from sim.games.peer_to_peer.engine_kernel import new_state, run_games

    return (run_games, new_state)


def strategy_slots(players: int) -> tuple[str, ...]:
    return TEAMS


def strategy_key(key: str, players: int | None = None) -> str:
    if str(key).upper() not in TEAMS:
        raise ValueError(f"expected team A or B, got '{key}'")
    return str(key).upper()


def pairing(manifest: Mapping[str, Any]) -> str:
    return team_pairing(manifest)


def headline_counts(games: pl.DataFrame, players: int) -> dict[str, int]:
    w = games["winner"].to_numpy()
    counts = {"team A win rate": int(((w == k.WIN_A) | (w == k.SOLO_WIN)).sum()),
              "all-lose rate": int((w == k.ALL_LOSE).sum())}
    if players > 1:
        counts["team B win rate"] = int((w == k.WIN_B).sum())
    return counts


def balance_variants(players: int) -> tuple[tuple[str, ...], ...]:
    if players in ODD_TEAM_COUNTS:
        return tuple((f"odd_team_compensation={mode}",) for mode in BALANCE_MODES)
    return ((),)


def default_sweep_metrics(players: tuple[int, ...]) -> tuple[str, ...]:
    return ("a_share", "all_lose_rate", "a_win_rate", "b_win_rate", "mean_rounds")


def report_group(players: int, rules: Mapping[str, Any]) -> str:
    """The odd_team_compensation mode at 3 and 5 players, "n/a" otherwise."""
    mode = rules.get("odd_team_compensation")
    if mode is None or players not in ODD_TEAM_COUNTS:
        return "n/a"
    return str(mode)


def curve_series(players: int) -> tuple:
    """The per-round curves (curves_kernel.py's columns) a report draws at ``players``."""
    from sim.core.curves import Curve
    from sim.games.peer_to_peer import constants as ck   # no compiled code: a report reads it

    teams = (("A", ck.K_SCORE_A), ("B", ck.K_SCORE_B)) if players > 1 else (("A", ck.K_SCORE_A),)
    return (*(Curve(f"score_{team.lower()}", f"team {team}'s score (customers in its score pile)",
                    "score per team", column) for team, column in teams),
            Curve("row", "customers waiting in the row", "customers in the row", ck.K_ROW),
            Curve("unhappy", "unhappy customers so far", "unhappy customers", ck.K_UNHAPPY),
            Curve("served", "customers served so far (won by either team)", "customers served",
                  ck.K_SERVED),
            Curve("customer_deck", "cards left in the customer deck", "customer deck",
                  ck.K_DECK))
