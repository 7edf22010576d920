"""PLAI as a `sim.core.game.Game`: ``GAME`` (the description every command reads),
``configure`` (loads cards, rules and strategies) and the configuration that runs the kernels."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from sim.core.errors import UserError
from sim.games.plai import constants as c
from sim.games.plai import features
from sim.games.plai import description
from sim.games.plai.arena import PlaiArena
from sim.games.plai.description import DEFAULT_STRATEGY
from sim.games.plai.sweep_metrics import SWEEP_METRICS
from sim.games.plai.cards import COLUMNS, DEFAULT_CARDS, CardTable, load_cards
from sim.games.plai.fight_stats import card_fight_table
from sim.games.plai.trace import TRACE_CAPACITY
from sim.games.plai import measures
from sim.games.plai.measures import seat_share
from sim.games.plai.swaps import SWAPS
from sim.games.plai.examples import EXAMPLES
from sim.games.plai.rules import OPTIONS, PLAYER_COUNTS, rules_array
from sim.core.compile_cache import ensure_compiled
from sim.games.plai.compile_plan import play_games_plan
from sim.core.curves import Curves
from sim.core.game import CardFightReplay, Game, cards_words
from sim.core.strategy import parse_spec, record_extra, weights_sha256

TITLE = "PLAI"
# Cold compile of play_games (the kernels a run needs), wall seconds on an idle 2-core machine:
# the first-run notice's estimate until this machine has measured one (sim.core.compile_cache)
COMPILE_SECONDS = 12  # 10.6-10.9 s compiling idle with the helper (16.7 s in one process)
SEARCH_COMPILE_SECONDS = 90   # the search player's kernels (search_kernel.play_games_search)
SEAT_FIELDS = ("bankrupt_turn", "hand")
# Per-turn curves (sim.core.curves) end at the rules' max_turns, or at this turn when
# max_turns is larger: the default (400) is never reached
CURVE_TURNS = 1000


def finish_curves(sums: np.ndarray) -> np.ndarray:
    """The kernel's per-turn sums in sim.core.curves' layout (curves_kernel.py): the games
    that reached each turn from those that ended there; each turn's fights and fundings
    from the running totals (the totals at the turn, less the previous turn's totals of
    the games that went on), their squares their sums (0 or 1 a turn)."""
    from sim.games.plai.curves_kernel import RUNNING_TOTALS, WIDTH

    out = sums.copy()
    out[:, 0] = np.cumsum(sums[::-1, 0])[::-1]
    for k in RUNNING_TOTALS:
        totals, ended = sums[:, 1 + k], sums[:, 1 + WIDTH + k]
        out[1:, 1 + k] = totals[1:] - (totals[:-1] - ended[:-1])
        out[:, 1 + WIDTH + k] = out[:, 1 + k]
    return out


@dataclass
class PlaiConfig:
    players: int
    cards: CardTable
    rules: dict[str, Any]
    strategies: dict[str, tuple[str, dict[str, float]]]   # "seat0" -> (name, params)
    weights: np.ndarray                                   # float64[players, NF]
    specs: dict[str, str] = field(default_factory=dict)   # "seat0" -> spec as given
    debug: bool = False
    game: str = "plai"
    # int64[players, 3] (constants.SEARCH_*): the seats a search player holds, with its k, n
    search: np.ndarray | None = None
    # a search seat's ``record=E``: its games carry its decisions (sim.core.recorded)
    record: int | None = None
    decisions: int = 0   # search decisions made by ``play`` so far (for benchmarks)
    # a counterfactual replay's turn-order swap (swaps.py): the first seat, and the deal
    # with it, move this many seats on (the same random draws)
    first_seat_shift: int = 0
    card_table: np.ndarray = field(init=False)
    rules_vector: np.ndarray = field(init=False)
    deck: np.ndarray = field(init=False)

    def __post_init__(self):
        self.card_table = self.cards.matrix
        self.rules_vector = rules_array(self.rules, self.players)
        self.rules_vector[c.R_DEBUG] = int(self.debug)   # invariants after every turn
        self.rules_vector[c.R_FIRST_SEAT_SHIFT] = self.first_seat_shift % self.players
        self.deck = self.cards.deck_for(self.players)

    def manifest(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "cards": {"path": str(self.cards.path), "sha256": self.cards.sha256,
                      "ids": list(self.cards.ids), "names": list(self.cards.names),
                      "deck_size": int(len(self.deck))},
            "rules": dict(self.rules),
            "strategies": {seat: {"name": name, "params": params}
                           for seat, (name, params) in self.strategies.items()},
            "strategy_weights_sha256": weights_sha256(self.weights, self.search),
            "debug": self.debug,
        }

    def _args(self):
        return self.deck, self.card_table, self.rules_vector, self.weights

    def compile_plan(self) -> list:
        """What a cold compile's helper process compiles meanwhile (compile_plan.py)."""
        return play_games_plan(c.RESULT_DTYPE, *self._args())

    def curve_sums(self) -> np.ndarray:
        """An empty int64 matrix of per-turn sums (sim.core.curves; curves_kernel.py):
        one row per turn up to the rules' max_turns (at most CURVE_TURNS), row 0 the deal.
        The kernels take it flat (``reshape(-1)``: a view)."""
        from sim.games.plai.curves_kernel import ROW

        turns = min(int(self.rules_vector[c.R_MAX_TURNS]), CURVE_TURNS)
        return np.zeros((turns + 1, ROW), dtype=np.int64)

    def play(self, seed: int, start: int, count: int, threads: int = 1,
             card_fights: bool = False, curves=None):
        """Raw results: a RESULT_DTYPE record array, one row per game. With
        ``card_fights``, also the per-card fight counts: int16[count, 4, cards] in
        constants.CARD_FIGHT_FIELDS order, by card id (row of the card file). ``curves``
        (a sim.core.curves.CurveSink): where the chunk's per-turn sums go (the engine's
        games always record them; a search seat's games record none)."""
        from sim.games.plai.engine_kernel import play_games

        searching = self.search is not None and bool(self.search[:, c.SEARCH_ON].any())
        if searching:
            from sim.games.plai.search_kernel import play_games_search
        decisions = np.zeros(count, dtype=np.int64)
        out = np.zeros(count, dtype=c.RESULT_DTYPE)
        n_cards = self.card_table.shape[1]
        fights = np.zeros((count if card_fights else 0, 4, n_cards), dtype=np.int16)
        # a cold cache compiles for a while: say so (stderr) and compile on one game first
        if searching:   # a search seat plays only the search kernel (its own compile)
            ensure_compiled("plai-search", f"{TITLE} search", [play_games_search],
                            lambda: play_games_search(seed, start, *self._args(), self.search,
                                                      0, out[:1].copy(), fights[:1].copy(),
                                                      decisions[:1].copy()),
                            SEARCH_COMPILE_SECONDS)
        else:
            ensure_compiled("plai", TITLE, [play_games],
                            lambda: play_games(seed, start, *self._args(), out[:1].copy(),
                                               fights[:1].copy(),
                                               self.curve_sums().reshape(-1)),
                            COMPILE_SECONDS, plan=self.compile_plan)
        threads = max(1, min(int(threads or 1), count))
        bounds = np.linspace(0, count, threads + 1).astype(int)
        sums = [self.curve_sums() for _ in range(threads)]   # each thread its own

        def work(i):
            lo, hi = bounds[i], bounds[i + 1]
            if searching:   # the search seats' player (sim/games/plai/search_kernel.py)
                play_games_search(seed, start + lo, *self._args(), self.search, 0, out[lo:hi],
                                  fights[lo:hi] if card_fights else fights, decisions[lo:hi])
            else:
                play_games(seed, start + lo, *self._args(), out[lo:hi],
                           fights[lo:hi] if card_fights else fights, sums[i].reshape(-1))

        if threads == 1:
            work(0)
        else:  # the kernel releases the GIL; each game seeds itself, so splits don't matter
            with ThreadPoolExecutor(threads) as pool:
                list(pool.map(work, range(threads)))
        self.decisions += int(decisions.sum())
        if curves is not None and not searching:
            for part in sums:
                curves.add(finish_curves(part))
        return (out, fights) if card_fights else out

    def play_recorded(self, seed: int, start: int, count: int, threads: int = 1):
        """``play`` (with the card fights) for a recording search seat (``record``):
        (results, fights, the recordings of its decisions in game order:
        sim.core.recorded)."""
        from sim.core.recorded import play_recorded
        from sim.games.plai.search_kernel import play_games_search

        out = np.zeros(count, dtype=c.RESULT_DTYPE)
        fights = np.zeros((count, 4, self.card_table.shape[1]), dtype=np.int16)
        decisions = np.zeros(count, dtype=np.int64)

        def play(lo, hi, recording):
            play_games_search(seed, start + lo, *self._args(), self.search, 0, out[lo:hi],
                              fights[lo:hi], decisions[lo:hi], recording)

        recordings = play_recorded(count, threads, features.NF,
                                   int(self.search[:, c.SEARCH_K].max()) + self.record,
                                   self.record, play)
        self.decisions += int(decisions.sum())
        return out, fights, recordings

    def run_chunk(self, seed: int, start: int, count: int, threads: int = 1,
                  curves=None) -> pl.DataFrame:
        """The per-game table: RESULT_DTYPE's fields (per-seat ones as ``name_<seat>``),
        then the per-card fight counts ``card_att_<k>``, ``card_att_won_<k>``,
        ``card_def_<k>``, ``card_def_won_<k>`` for every card id k (see fight_stats)."""
        recordings = None
        if self.record is not None and self.search is not None:   # learning: no curves
            out, fights, recordings = self.play_recorded(seed, start, count, threads)
        else:
            out, fights = self.play(seed, start, count, threads, card_fights=True,
                                    curves=curves)
        columns = {}
        for name in c.RESULT_DTYPE.names:
            if name in SEAT_FIELDS:
                for s in range(c.MAX_SEATS):
                    columns[f"{name}_{s}"] = out[name][:, s]
            else:
                columns[name] = out[name]
        for f, name in enumerate(c.CARD_FIGHT_FIELDS):
            for k in range(fights.shape[2]):
                columns[f"{name}_{k}"] = fights[:, f, k]
        if recordings is not None:
            from sim.core.recorded import recording_columns

            columns.update(recording_columns(recordings, start, count))
        return pl.DataFrame(columns)

    def trace(self, seed: int, game_index: int) -> str:
        return self.story(seed, game_index).text()

    def story(self, seed: int, game_index: int):
        """The replayed game as a sim.core.story.Story (the text trace and the viewer)."""
        from sim.core.numba_patches import install
        from sim.games.plai.engine_kernel import trace_game
        from sim.games.plai.trace import build_story

        install()   # compile as a run does (the cache directory is named for the patches)

        rows = np.zeros((TRACE_CAPACITY, c.TRACE_WIDTH), dtype=np.int32)
        out = np.zeros(1, dtype=c.RESULT_DTYPE)
        if self.search is not None and self.search[:, c.SEARCH_ON].any():
            from sim.games.plai.search_kernel import trace_game_search

            n = trace_game_search(seed, game_index, *self._args(), self.search, rows, out)
        else:
            n = trace_game(seed, game_index, *self._args(), rows, out)
        row = out[0]
        header = (f"PLAI, {self.players} players, seed {seed}, game {game_index}, deck "
                  f"{len(self.deck)} cards; " + ", ".join(
                      f"seat {s}: {self._strategy_text(s)}" for s in range(self.players))
                  + "\ncards: " + cards_words(self.cards.path, self.cards.sha256, DEFAULT_CARDS)
                  + "\nrules: " + ", ".join(f"{k}={v}" for k, v in self.rules.items()))
        footer = [f"result: {self._outcome_text(row)} after {row['turns']} turns; final hands "
                  + ", ".join(f"seat {s}: {row['hand'][s]}" for s in range(self.players))
                  + f"; pool {row['pool_left']}"]
        if row["error"]:
            footer.append(f"INVARIANT VIOLATED: {c.ERROR_NAMES[row['error']]}")
        return build_story(rows[:n], self.cards, header, footer, n == TRACE_CAPACITY,
                           [self._strategy_text(s) for s in range(self.players)])

    @staticmethod
    def _outcome_text(row) -> str:
        if row["outcome"] == c.OUT_SEAT:
            return f"seat {row['winner']} wins"
        return "the maintainers win" if row["outcome"] == c.OUT_MAINTAINERS else "stalemate"

    def _strategy_text(self, seat: int) -> str:
        return self.specs.get(f"seat{seat}") or self.strategies[f"seat{seat}"][0]

    def summarize(self, games: pl.LazyFrame) -> dict[str, Any]:
        from sim.core.stats import win_rate_ci

        seat_wins = [((pl.col("outcome") == c.OUT_SEAT) & (pl.col("winner") == s)).sum()
                     .alias(f"seat{s}") for s in range(self.players)]
        totals = games.select(
            pl.len().alias("n"), *seat_wins,
            (pl.col("outcome") == c.OUT_MAINTAINERS).sum().alias("maintainers"),
            (pl.col("outcome") == c.OUT_STALEMATE).sum().alias("stalemate"),
            pl.col("turns").cast(pl.Float64).mean().alias("mean_turns"),
            (pl.col("error") != 0).sum().alias("errors"),
        ).collect().row(0, named=True)
        n = totals["n"]

        def rate(count):
            return win_rate_ci(count, n)

        maintainers = rate(totals["maintainers"])
        stalemates = rate(totals["stalemate"])
        return {
            "games": n,
            "seats": {str(s): rate(totals[f"seat{s}"]) for s in range(self.players)},
            "seat_balance": self._seat_balance([totals[f"seat{s}"] for s in range(self.players)]),
            "maintainers_win_rate": maintainers["win_rate"],
            "maintainers_ci": [maintainers["ci_low"], maintainers["ci_high"]],
            "stalemate_rate": stalemates["win_rate"],
            "stalemate_ci": [stalemates["ci_low"], stalemates["ci_high"]],
            "mean_turns": totals["mean_turns"],
            "draw_rate": 0.0,                       # PLAI has no draws
            "all_lose_rate": maintainers["win_rate"],  # every startup lost
            "invariant_errors": totals["errors"],
        }

    def _seat_balance(self, wins: list[int]) -> dict[str, Any] | None:
        """The report's seat-balance answer: the seat furthest from its fair share of the
        games a startup won (Wilson), in the words of sim.core.wording.edge_answer, judged
        as the furthest of the seats."""
        from sim.core.stats import wilson
        from sim.core.wording import DEFAULT_THRESHOLD_PP, edge_answer

        decided = sum(wins)
        if not decided:
            return None
        fair = 1.0 / self.players
        seat = max(range(self.players), key=lambda s: (abs(wins[s] / decided - fair), -s))
        value, lo, hi = wilson(wins[seat], decided)
        measure = seat_share(seat, self.players)
        code, words = edge_answer(value, lo, hi, fair, DEFAULT_THRESHOLD_PP, measure.above,
                                  measure.below, (wins[seat], decided, fair, self.players))
        return {"seat": seat, "value": value, "lo": lo, "hi": hi, "even": fair,
                "decided": decided, "verdict": code, "words": words}

    def format_summary(self, summary: dict[str, Any]) -> str:
        from sim.core.wording import balance_line

        lines = []
        for seat, r in summary["seats"].items():
            who = f"seat {seat} ({self._strategy_text(int(seat))})"
            lines.append(f"{who:<42} wins {100 * r['win_rate']:6.2f} %  "
                         f"[95 % CI {100 * r['ci_low']:.2f} - {100 * r['ci_high']:.2f}]")
        balance = summary.get("seat_balance")
        if balance:
            lines.append(balance_line(balance, "seat balance", f"seat {balance['seat']}'s "
                                      "share of the games a startup won"))
        lo, hi = summary["maintainers_ci"]
        lines.append(f"{'Open Source Maintainers (all startups lost)':<42} wins "
                     f"{100 * summary['maintainers_win_rate']:6.2f} %  "
                     f"[95 % CI {100 * lo:.2f} - {100 * hi:.2f}]")
        lo, hi = summary.get("stalemate_ci", (float("nan"), float("nan")))
        lines.append(f"{'stalemate (max_turns reached)':<42}      "
                     f"{100 * summary['stalemate_rate']:6.2f} %  "
                     f"[95 % CI {100 * lo:.2f} - {100 * hi:.2f}]")
        lines.append(f"{'mean turns':<42}      {summary['mean_turns']:6.2f}")
        if summary["invariant_errors"]:
            lines.append(f"INVARIANT VIOLATIONS in {summary['invariant_errors']} games")
        return "\n".join(lines)


def default_cards_path():
    return DEFAULT_CARDS


def configure(*, players: int, cards: str | None = None, rules_file: str | None = None,
              rule_overrides: tuple[str, ...] = (), strategies: dict[str, str] | None = None,
              debug: bool = False) -> PlaiConfig:
    if players not in PLAYER_COUNTS:
        raise UserError(f"PLAI is played by 2 to 5 players, got {players}",
                        field="--players")
    resolved = OPTIONS.resolve(rules_file, tuple(rule_overrides))
    table = load_cards(cards)
    table.check_deal(players, OPTIONS.value_for(resolved, "starting_hand", players))
    chosen = {}
    specs = description.seat_specs(players, strategies)
    weights = np.zeros((players, features.NF), dtype=np.float64)
    search = np.zeros((players, 3), dtype=np.int64)
    record = None
    for s, (seat, spec) in enumerate(specs.items()):
        strategy, params = parse_spec(spec, "plai", field_name=f"strategy of {seat}")
        merged = {**strategy.params, **strategy.text_params, **params}
        chosen[seat] = (strategy.name, merged)
        weights[s] = strategy.vector(features.FEATURE_NAMES, features.DEFAULT_WEIGHTS,
                                     params, players=players)
        if strategy.search:   # the seat's row of weights is its base strategy's
            search[s] = (1, int(merged["k"]), int(merged["n"]))
            extra = record_extra(merged)
            record = extra if record is None else max(record, extra or 0)
    return PlaiConfig(players=players, cards=table, rules=resolved, strategies=chosen,
                      weights=weights, specs=specs, debug=debug,
                      search=search if search[:, 0].any() else None, record=record)


GAME = Game(
    name="plai", title=TITLE, player_counts=PLAYER_COUNTS, default_players=4,
    options=OPTIONS, default_cards_path=default_cards_path, card_fields=tuple(col for col in COLUMNS if col != "id"),
    card_ref_example="5.strength or Daily Standups.strength", configure=configure,
    kernels=description.kernels,
    strategy_kind="seats", default_strategy=DEFAULT_STRATEGY, strategy_package="plai",
    strategy_slots=description.strategy_slots, strategy_key=description.strategy_key,
    pairing=description.pairing,
    outcome_column="outcome", outcome_codes=description.OUTCOME_CODES,
    headline_columns=("winner", "outcome"), headline_counts=description.headline_counts,
    ablation_fields=("strength", "effect"),   # simulate ablate: strength -1 / +1, effect removed
    ablation_outcomes=description.game_results,   # its headlines: each seat's win, ...
    cards_in_play=lambda config: frozenset(str(config.cards.ids[int(i)])
                                           for i in set(config.deck.tolist())),
    matchup_scheme="every_seat",   # every strategy in every seat against the others
    skill_budgets=("k=4,n=4", "k=8,n=16"),   # simulate skill's search rungs
    tune_arena=PlaiArena,
    sweep_metrics=SWEEP_METRICS, default_sweep_metrics=description.default_sweep_metrics,
    report_metrics="sim.games.plai.report_metrics",
    # reports replay old runs' games for per-card fight counts (fight_stats.py)
    card_fights=CardFightReplay(fields=c.CARD_FIGHT_FIELDS, check_column="turns",
                                replay=card_fight_table),
    curves=Curves(unit="turn", series=description.curve_series),
    swaps=SWAPS, balance_measures=measures.balance_measures,
    balance_measure=measures.balance_measure,
    answer_examples=EXAMPLES,    # an example game of each answer (examples.py)
    story=PlaiConfig.story,      # the game viewer's story of one game
)
