"""What the commands need to know about PLAI besides configure (the hooks of
``sim.core.game.Game``): its strategy slots (seats, with the keys ``seatN``, ``N`` and
``all``), its outcome codes, its headline rates, its matchup scheme, sweep and report
metrics. ``PlaiGame`` (game.py) inherits them, so every command reads them from ``GAME``."""
from __future__ import annotations

from typing import Any, Mapping

import polars as pl

from sim.core.strategy import seat_number, seat_specs
from sim.games.plai import constants as c
from sim.games.plai.arena import PlaiArena
from sim.games.plai.examples import EXAMPLES
from sim.games.plai.swaps import SWAPS

DEFAULT_STRATEGY = "expert"          # the tuned strategy (strategies/plai/expert.yaml)
DEFAULT_KEYS = ("all", "default")   # strategy keys meaning "every seat not given"
SWEEP_SEATS = 5                      # seat<N>_win_rate sweep metrics exist for N < 5


class PlaiHooks:
    title = "PLAI"

    # -- strategies
    strategy_kind = "seats"
    strategy_package = "plai"

    default_strategy = DEFAULT_STRATEGY

    def strategy_slots(self, players: int) -> tuple[str, ...]:
        return tuple(f"seat{s}" for s in range(players))

    def strategy_key(self, key: str, players: int | None = None) -> str:
        """"seat2" or "2" -> "seat2"; "all" stays "all" (every seat not given)."""
        if key == "all":
            return "all"
        seat = seat_number(key)
        if seat is None or (players is not None and seat >= players):
            raise ValueError(f"expected a seat (seat0, 1, ...) or 'all', got '{key}'")
        return f"seat{seat}"

    def seat_specs(self, players: int, strategies: Mapping[str, str] | None) -> dict[str, str]:
        """{"seat0": spec, ...}: per-seat keys over the default ("all"), see strategy_key."""
        return seat_specs(players, strategies, self.default_strategy, DEFAULT_KEYS)

    def pairing(self, manifest: Mapping[str, Any]) -> str:
        """A short label for a run's seats, from the specs as given (the manifest's
        strategies also list every default weight): "weighted x4" or "bluffer:rate=0.3 vs
        cautious vs cautious"."""
        request = (manifest.get("request") or {}).get("strategies") or None
        try:
            specs = list(self.seat_specs(int(manifest["players"]), request).values())
        except Exception:  # noqa: BLE001 - an odd manifest still gets a label
            specs = [str(v.get("name", "?")) if isinstance(v, dict) else str(v)
                     for v in (manifest.get("strategies") or {}).values()]
        if specs and len(set(specs)) == 1:
            return f"{specs[0]} x{len(specs)}"
        return " vs ".join(specs)

    # -- outcomes: constants.OUT_* (PLAI-T6); ``winner`` is the winning seat
    outcome_column = "outcome"
    outcome_codes = {"seat": c.OUT_SEAT, "maintainers": c.OUT_MAINTAINERS,
                     "stalemate": c.OUT_STALEMATE}
    headline_columns = ("winner", "outcome")

    def headline_counts(self, games: pl.DataFrame, players: int) -> dict[str, int]:
        w, o = games["winner"].to_numpy(), games["outcome"].to_numpy()
        counts = {f"seat {s} win rate": int(((o == c.OUT_SEAT) & (w == s)).sum())
                  for s in range(players)}
        counts["maintainers win rate"] = int((o == c.OUT_MAINTAINERS).sum())
        return counts

    # -- studies
    matchup_scheme = "every_seat"   # every strategy in every seat against the others
    skill_budgets = ("k=4,n=4", "k=8,n=16")   # simulate skill's search rungs

    def balance_variants(self, players: int) -> tuple[tuple[str, ...], ...]:
        return ((),)

    tune_arena = PlaiArena

    @property
    def card_fields(self) -> tuple[str, ...]:
        from sim.games.plai.cards import COLUMNS

        return tuple(col for col in COLUMNS if col != "id")

    card_ref_example = "5.strength or Daily Standups.strength"

    # -- reports (names in reports/sweep.py and reports/metrics/)
    sweep_metrics = (*(f"seat{s}_win_rate" for s in range(SWEEP_SEATS)), "first_player_share",
                     "first_player_advantage", "last_player_advantage", "maintainers_win_rate",
                     "stalemate_rate", "mean_turns")

    def default_sweep_metrics(self, players: tuple[int, ...]) -> tuple[str, ...]:
        """Every seat the largest player count has, the first and last player's advantage,
        the maintainers' win rate, the stalemate rate and the mean length."""
        seats = max(players) if players else SWEEP_SEATS
        return tuple(f"seat{s}_win_rate" for s in range(seats)) + (
            "first_player_advantage", "last_player_advantage", "maintainers_win_rate",
            "stalemate_rate", "mean_turns")

    report_metrics = "sim.games.plai.report_metrics"  # its metric modules
    compared_rules = ()
    why_lose = None                         # no "why everyone loses" section
    swaps = SWAPS                           # counterfactual replays: what explains an edge
    answer_examples = EXAMPLES              # an example game of each answer (examples.py)
    ablation_fields = ("strength", "effect")   # simulate ablate: strength -1 / +1, effect removed
    report_card_fights = True       # reports replay games for per-card fight counts

    def report_group(self, players: int, rules: Mapping[str, Any]) -> str:
        return "n/a"
