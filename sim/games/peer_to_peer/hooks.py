"""What the commands need to know about Peer-to-Peer besides configure (the hooks of
``sim.core.game.Game``): its strategy slots (teams A and B), its outcome codes, its
headline rates, its matchup scheme, balance-report points, sweep and report metrics.
``PeerToPeerGame`` (game.py) inherits them, so every command reads them from ``GAME``."""
from __future__ import annotations

from typing import Any, Mapping

import polars as pl

from sim.core.strategy import team_pairing
from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer.arena import PeerToPeerArena
from sim.games.peer_to_peer.examples import EXAMPLES
from sim.games.peer_to_peer.swaps import SWAPS
from sim.games.peer_to_peer.why_lose import WhyLose

DEFAULT_STRATEGY = "expert"      # the tuned strategy (strategies/peer_to_peer/expert.yaml)
TEAMS = ("A", "B")
# balance-report: at 3 and 5 players (an odd team) every odd_team_compensation mode
ODD_TEAM_COUNTS = (3, 5)
BALANCE_MODES = ("extra_venture", "extra_venture_empty", "none")
# card fields an experiment may change, in the order its messages have always listed them
CARD_FIELDS = ("value", "effect", "domain", "kind", "start", "name")


class PeerToPeerHooks:
    title = "Peer-to-Peer"

    # -- strategies
    strategy_kind = "teams"
    strategy_package = "peer_to_peer"

    default_strategy = DEFAULT_STRATEGY

    def strategy_slots(self, players: int) -> tuple[str, ...]:
        return TEAMS

    def strategy_key(self, key: str, players: int | None = None) -> str:
        if str(key).upper() not in TEAMS:
            raise ValueError(f"expected team A or B, got '{key}'")
        return str(key).upper()

    def pairing(self, manifest: Mapping[str, Any]) -> str:
        return team_pairing(manifest)

    # -- outcomes: the winner codes of constants.py (P2P "What a game must report")
    outcome_column = "winner"
    outcome_codes = {name: code for code, name in enumerate(k.WINNER_NAMES)}
    headline_columns = ("winner",)

    def headline_counts(self, games: pl.DataFrame, players: int) -> dict[str, int]:
        w = games["winner"].to_numpy()
        counts = {"team A win rate": int(((w == k.WIN_A) | (w == k.SOLO_WIN)).sum()),
                  "all-lose rate": int((w == k.ALL_LOSE).sum())}
        if players > 1:
            counts["team B win rate"] = int((w == k.WIN_B).sum())
        return counts

    # -- studies
    matchup_scheme = "team_pairs"   # every ordered pair of teams, first marker balanced
    # simulate skill's search rungs: a game has about 47 searched decisions at 4
    # players (PLAI's 9 at 3), so small budgets keep the ladder within its 30 minutes
    # (k=2,n=2 plays about 100 games/s of a thread, k=4,n=2 about 55, k=4,n=4 29)
    skill_budgets = ("k=2,n=2", "k=4,n=2")

    def balance_variants(self, players: int) -> tuple[tuple[str, ...], ...]:
        if players in ODD_TEAM_COUNTS:
            return tuple((f"odd_team_compensation={mode}",) for mode in BALANCE_MODES)
        return ((),)

    card_fields = CARD_FIELDS
    tune_arena = PeerToPeerArena
    card_ref_example = "TE12.value or Technology-12.value"

    # -- reports (names in reports/sweep.py and reports/metrics/)
    sweep_metrics = ("a_share", "imbalance", "a_win_rate", "b_win_rate", "all_lose_rate",
                     "draw_rate", "mean_rounds")

    def default_sweep_metrics(self, players: tuple[int, ...]) -> tuple[str, ...]:
        return ("a_share", "all_lose_rate", "a_win_rate", "b_win_rate", "mean_rounds")

    report_metrics = "sim.games.peer_to_peer.report_metrics"  # its metric modules
    compared_rules = ("odd_team_compensation",)
    report_card_fights = False
    why_lose = WhyLose()                    # reports: why everyone loses (its causes)
    swaps = SWAPS                           # counterfactual replays: what explains an edge
    answer_examples = EXAMPLES              # an example game of each answer (examples.py)
    ablation_fields = ("value", "effect")   # simulate ablate: value -1 / +1, effect removed

    def report_group(self, players: int, rules: Mapping[str, Any]) -> str:
        """The odd_team_compensation mode at 3 and 5 players, "n/a" otherwise."""
        mode = rules.get("odd_team_compensation")
        if mode is None or players not in ODD_TEAM_COUNTS:
            return "n/a"
        return str(mode)
