"""Peer-to-Peer as a `sim.core.game.Game`: ``GAME`` (the description every command reads),
``configure`` (loads cards, rules and strategies) and the configuration that runs the kernels."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl

from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer import features
from sim.games.peer_to_peer import description
from sim.games.peer_to_peer.arena import PeerToPeerArena
from sim.games.peer_to_peer.description import DEFAULT_STRATEGY
from sim.games.peer_to_peer.sweep_metrics import SWEEP_METRICS
from sim.games.peer_to_peer.why_lose import WHY_LOSE
from sim.games.peer_to_peer import measures
from sim.games.peer_to_peer.measures import team_balance
from sim.games.peer_to_peer.swaps import SWAPS
from sim.games.peer_to_peer.examples import EXAMPLES
from sim.games.peer_to_peer.cards import CardTable, default_cards_path, load_cards, validate_for_players
from sim.games.peer_to_peer.rules import OPTIONS, plays_like, rules_array
from sim.games.peer_to_peer.seats import TEAM_SIZES, seat_layout, seat_teams
from sim.core.compile_cache import ensure_compiled
from sim.core.wording import DEFAULT_THRESHOLD_PP, balance_line
from sim.games.peer_to_peer.compile_plan import run_games_plan
from sim.core.curves import Curves
from sim.core.game import Game, cards_words
from sim.core.strategy import parse_spec, record_extra, weights_sha256

TITLE = "Peer-to-Peer"
PLAYER_COUNTS = (1, 2, 3, 4, 5, 6)
TRACE_CAPACITY = 200_000
# Per-round curves (sim.core.curves) end at the rules' max_rounds, or at this round when
# max_rounds is larger: the default (200) is never reached, and a raised safety stop
# should not make every chunk carry a huge matrix
CURVE_ROUNDS = 1000
# Cold compile of run_games (the kernels a run needs), wall seconds on an idle 2-core machine:
# the first-run notice's estimate until this machine has measured one (sim.core.compile_cache)
COMPILE_SECONDS = 18  # 14-19 s compiling idle with the helper (27.9 s in one process)
SEARCH_COMPILE_SECONDS = 150  # the search player's kernels (search_kernel.run_games_search): 220 s CPU at load 5


def card_matrix(cards: CardTable) -> np.ndarray:
    """The kernel's card table: int64[N_CARD_FIELDS, n] (rows CD_*)."""
    rows = [cards.domain, cards.value, cards.kind, cards.start, cards.effect, cards.effect_arg]
    return np.ascontiguousarray(np.stack(rows).astype(np.int64))


def _json_rules(resolved: dict[str, Any]) -> dict[str, Any]:
    return {key: ({str(n): v for n, v in value.items()} if isinstance(value, dict) else value)
            for key, value in resolved.items()}


@dataclass
class PeerToPeerConfig:
    players: int
    cards: CardTable
    rules: dict[str, Any]
    strategies: dict[str, tuple[str, dict[str, float]]]
    weights: dict[str, np.ndarray]
    debug: bool = False
    game: str = "peer-to-peer"
    # int64[2, 3] (search_kernel.SEARCH_*): the teams a search player holds, with its k, n
    search: np.ndarray | None = None
    # a search team's ``record=E``: its games carry its decisions (sim.core.recorded)
    record: int | None = None
    decisions: int = 0   # search decisions made by ``play`` so far (for benchmarks)
    # a counterfactual replay's first-marker swap (swaps.py): the same draw, the other team
    marker_to_other: bool = False
    card_table: np.ndarray = field(init=False)
    rules_vector: np.ndarray = field(init=False)
    seats: np.ndarray = field(init=False)

    def __post_init__(self):
        self.card_table = card_matrix(self.cards)
        self.rules_vector = rules_array(self.rules, self.players)
        if self.marker_to_other:
            mode = self.rules_vector[k.R_FIRST_MARKER]
            self.rules_vector[k.R_FIRST_MARKER] = {
                k.MARKER_RANDOM: k.MARKER_RANDOM_OTHER, k.MARKER_A: k.MARKER_B,
                k.MARKER_B: k.MARKER_A}[int(mode)]
        self.seats = seat_layout(self.players, self.rules["odd_team_compensation"])

    def manifest(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "players": self.players,
            "cards": {"path": str(self.cards.path), "sha256": self.cards.sha256,
                      "ids": list(self.cards.ids), "names": list(self.cards.names)},
            "rules": _json_rules(self.rules),
            "strategies": {team: {"name": name, "params": params}
                           for team, (name, params) in self.strategies.items()},
            "strategy_weights_sha256": weights_sha256(self.weights["A"], self.weights["B"],
                                                      self.search),
            "seat_teams": seat_teams(self.players, self.rules["odd_team_compensation"]),
            # 3 players play exactly like 4 (5 like 6) under these options: reports say so
            # once instead of repeating the rows (None otherwise)
            "plays_like_players": plays_like(self.rules, self.players),
            "debug": self.debug,
        }

    def _kernel_args(self):
        """The kernels' ``Tables`` (state_kernel): what never changes during a game."""
        from sim.games.peer_to_peer.state_kernel import Tables

        return Tables(self.card_table, self.rules_vector, self.seats, self.weights["A"],
                      self.weights["B"])

    def curve_sums(self) -> np.ndarray:
        """An empty int64 matrix of per-round sums (sim.core.curves; curves_kernel.py):
        one row per round up to the rules' max_rounds (at most CURVE_ROUNDS), row 0 the
        setup. The kernels take it flat (``reshape(-1)``: a view)."""
        from sim.games.peer_to_peer.curves_kernel import ROW

        rounds = min(int(self.rules_vector[k.R_MAX_ROUNDS]), CURVE_ROUNDS)
        return np.zeros((rounds + 1, ROW), dtype=np.int64)

    def play(self, seed: int, start: int, count: int, threads: int = 1, curves=None):
        """Raw results: (record array, fates int8[count, n_cards]). ``curves`` (a
        sim.core.curves.CurveSink): where the chunk's per-round sums go (the engine's games
        always record them; a search team's games record none)."""
        from sim.games.peer_to_peer.engine_kernel import new_state, run_games

        out = np.zeros(count, dtype=k.RESULT_DTYPE)
        fates = np.zeros((count, self.cards.n), dtype=np.int8)
        if self.search is not None:   # a search team: its own kernels (search_kernel.py)
            return self._play_search(seed, start, count, threads, out, fates)
        # a cold cache compiles for a while: say so (stderr) and compile on one game first
        ensure_compiled("peer-to-peer", TITLE, [run_games, new_state],
                        lambda: run_games(self._kernel_args(), seed, start, out[:1].copy(),
                                          fates[:1].copy(), self.debug,
                                          new_state(self.cards.n),
                                          self.curve_sums().reshape(-1)),
                        COMPILE_SECONDS, plan=self.compile_plan)
        threads = max(1, min(int(threads or 1), count))
        bounds = np.linspace(0, count, threads + 1).astype(int)
        args = self._kernel_args()
        sums = [self.curve_sums() for _ in range(threads)]   # each thread its own

        def work(i):
            lo, hi = bounds[i], bounds[i + 1]
            run_games(args, seed, start + lo, out[lo:hi], fates[lo:hi], self.debug,
                      new_state(self.cards.n), sums[i].reshape(-1))  # each its own state

        if threads == 1:
            work(0)
        else:  # the kernel releases the GIL; each game seeds itself, so splits don't matter
            with ThreadPoolExecutor(threads) as pool:
                list(pool.map(work, range(threads)))
        if curves is not None:
            for part in sums:
                curves.add(part)
        return out, fates

    def play_recorded(self, seed: int, start: int, count: int, threads: int = 1):
        """``play`` for a recording search team (``record``): (record array, fates, the
        recordings of its decisions in game order: sim.core.recorded)."""
        from sim.core.recorded import play_recorded
        from sim.games.peer_to_peer.search_kernel import run_games_search

        out = np.zeros(count, dtype=k.RESULT_DTYPE)
        fates = np.zeros((count, self.cards.n), dtype=np.int8)
        decisions = np.zeros(count, dtype=np.int64)
        args = self._kernel_args()

        def play(lo, hi, recording):
            run_games_search(args, seed, start + lo, out[lo:hi], fates[lo:hi], self.debug,
                             self.search, 0, decisions[lo:hi], recording)

        recordings = play_recorded(count, threads, features.NF,
                                   int(self.search[:, 1].max()) + self.record, self.record, play)
        self.decisions += int(decisions.sum())
        return out, fates, recordings

    def _play_search(self, seed, start, count, threads, out, fates):
        from sim.games.peer_to_peer.search_kernel import run_games_search

        decisions = np.zeros(count, dtype=np.int64)
        ensure_compiled("peer-to-peer-search", f"{TITLE} search",
                        [run_games_search],
                        lambda: run_games_search(self._kernel_args(), seed, start,
                                                 out[:1].copy(), fates[:1].copy(), self.debug,
                                                 self.search, 0, decisions[:1].copy()),
                        SEARCH_COMPILE_SECONDS)
        threads = max(1, min(int(threads or 1), count))
        bounds = np.linspace(0, count, threads + 1).astype(int)

        def work(i):
            lo, hi = bounds[i], bounds[i + 1]
            run_games_search(self._kernel_args(), seed, start + lo, out[lo:hi], fates[lo:hi],
                             self.debug, self.search, 0, decisions[lo:hi])

        if threads == 1:
            work(0)
        else:
            with ThreadPoolExecutor(threads) as pool:
                list(pool.map(work, range(threads)))
        self.decisions += int(decisions.sum())
        return out, fates

    def compile_plan(self) -> list:
        """What a cold compile's helper process compiles meanwhile (compile_plan.py)."""
        return run_games_plan(self._kernel_args(), self.debug)

    def run_chunk(self, seed: int, start: int, count: int, threads: int = 1,
                  curves=None) -> pl.DataFrame:
        recordings = None
        if self.record is not None and self.search is not None:   # learning: no curves
            out, fates, recordings = self.play_recorded(seed, start, count, threads)
        else:
            out, fates = self.play(seed, start, count, threads, curves)
        columns = {name: out[name] for name in k.RESULT_DTYPE.names}
        columns.update({f"fate_{cid}": fates[:, i] for i, cid in enumerate(self.cards.ids)})
        if recordings is not None:
            from sim.core.recorded import recording_columns

            columns.update(recording_columns(recordings, start, count))
        return pl.DataFrame(columns)

    def trace_events(self, seed: int, game_index: int):
        from sim.core.numba_patches import install
        from sim.games.peer_to_peer.engine_kernel import TRACE_FIELDS, play_traced

        install()   # compile as a run does (the cache directory is named for the patches)

        out = np.zeros(1, dtype=k.RESULT_DTYPE)
        fates = np.zeros((1, self.cards.n), dtype=np.int8)
        trace = np.zeros((TRACE_CAPACITY, TRACE_FIELDS), dtype=np.int64)
        if self.search is not None:
            from sim.games.peer_to_peer.search_kernel import trace_game_search

            n = trace_game_search(self._kernel_args(), seed, game_index, out, fates, trace,
                                  True, self.search)
        else:
            n = play_traced(self._kernel_args(), seed, game_index, out, fates, trace, True)
        return trace[:n], out[0], fates[0]

    def trace(self, seed: int, game_index: int) -> str:
        return self.story(seed, game_index).text()

    def story(self, seed: int, game_index: int):
        """The replayed game as a sim.core.story.Story (the text trace and the viewer)."""
        from sim.games.peer_to_peer.trace import build_story

        events, row, _ = self.trace_events(seed, game_index)
        teams = (f"team A: {self._strategy_text('A')}" if self.players == 1 else
                 f"team A: {self._strategy_text('A')}, team B: {self._strategy_text('B')}")
        header = (f"Peer-to-Peer, {self.players} player{'s' if self.players > 1 else ''}, "
                  f"seed {seed}, game {game_index}; {teams}\ncards: "
                  + cards_words(self.cards.path, self.cards.sha256, default_cards_path()))
        rules = "rules: " + ", ".join(f"{key}={OPTIONS.value_for(self.rules, key, self.players)}"
                                      for key in self.rules)
        result = {"winner": k.WINNER_NAMES[row["winner"]], "score A": int(row["score_a"]),
                  "score B": int(row["score_b"]), "value A": int(row["value_a"]),
                  "value B": int(row["value_b"]), "unhappy": int(row["unhappy"]),
                  "rounds": int(row["rounds"])}
        if row["error"]:
            result["INVARIANT VIOLATED"] = k.ERROR_NAMES[row["error"]]
        seats = seat_teams(self.players, self.rules["odd_team_compensation"])
        searching = self.search[:, 0] if self.search is not None else (0, 0)
        return build_story(events, self.cards, seats, header, rules, result,
                           (self._strategy_text("A"), self._strategy_text("B")),
                           (bool(searching[0]), bool(searching[1])),
                           OPTIONS.value_for(self.rules, "hand_size", self.players),
                           bool(OPTIONS.value_for(self.rules, "reshuffle_discard", self.players)))

    def _strategy_text(self, team: str) -> str:
        name, params = self.strategies[team]
        return name + (":" + ",".join(f"{p}={v:g}" if isinstance(v, (int, float)) else f"{p}={v}"
                                      for p, v in params.items()) if params else "")

    def summarize(self, games: pl.LazyFrame) -> dict[str, Any]:
        from sim.core.loss_causes import why_everyone_loses
        from sim.core.stats import wilson, win_rate_ci

        columns = games.collect_schema().names()
        unpaired = (pl.col("contests_unpaired_won_a").cast(pl.Int64)
                    + pl.col("contests_unpaired_won_b").cast(pl.Int64)).sum()
        totals = games.select(
            pl.len().alias("n"),
            pl.col("contests").cast(pl.Int64).sum().alias("contests"),
            (unpaired if "contests_unpaired_won_a" in columns else pl.lit(None)).alias("unpaired"),
            (pl.col("winner") == k.WIN_A).sum().alias("a"),
            (pl.col("winner") == k.WIN_B).sum().alias("b"),
            (pl.col("winner") == k.SOLO_WIN).sum().alias("solo"),
            (pl.col("winner") == k.DRAW).sum().alias("draw"),
            (pl.col("winner") == k.ALL_LOSE).sum().alias("all_lose"),
            (pl.col("winner") == k.TIMEOUT).sum().alias("timeout"),
            pl.col("rounds").cast(pl.Float64).mean().alias("mean_rounds"),
            (pl.col("error") != 0).sum().alias("errors"),
        ).collect().row(0, named=True)
        n = totals["n"]

        def rate(count):
            return win_rate_ci(count, n)

        teams = {"A": rate(totals["a"] + totals["solo"])}
        if self.players > 1:
            teams["B"] = rate(totals["b"])
        contests = {"contests": totals["contests"]}
        if totals["unpaired"] is not None:  # older runs lack the columns
            # contests whose pairs were all equal with one list longer (P2P-R2c): decided by
            # an unpaired card under contest_unpaired=longer_wins
            contests["reached_unpaired_step"] = totals["unpaired"]
            contests["unpaired_share"] = (win_rate_ci(totals["unpaired"], totals["contests"])
                                          if totals["contests"] else None)  # solo: none
        balance = None
        # the report's team-balance answer, from the same counts; none when no game was
        # won by a team (every game timed out, drawn or lost by everyone)
        if self.players > 1 and totals["a"] + totals["b"]:
            balance = team_balance(totals["a"], totals["a"] + totals["b"], self.players,
                                   DEFAULT_THRESHOLD_PP)
        return {"teams": teams,
                "team_balance": balance,
                # the report's "Why everyone loses" (P2P-R5), for this run's games
                "why_all_lose": why_everyone_loses(games, WHY_LOSE, "winner"),
                "contests": contests,
                "plays_like_players": plays_like(self.rules, self.players),
                "draw_rate": totals["draw"] / n if n else float("nan"),
                "all_lose_rate": totals["all_lose"] / n if n else float("nan"),
                "all_lose_ci": list(wilson(totals["all_lose"], n)[1:]),
                "timeout_rate": totals["timeout"] / n if n else float("nan"),
                "mean_rounds": totals["mean_rounds"],
                "invariant_errors": totals["errors"]}

    def format_summary(self, summary: dict[str, Any]) -> str:
        size_a, size_b = TEAM_SIZES[self.players]
        lines = []
        for team, rate in summary["teams"].items():
            size = size_a if team == "A" else size_b
            who = f"team {team} ({size} player{'s' if size > 1 else ''}, {self._strategy_text(team)})"
            lines.append(f"{who:<42} wins {100 * rate['win_rate']:6.2f} %  "
                         f"[95 % CI {100 * rate['ci_low']:.2f} - {100 * rate['ci_high']:.2f}]")
        balance = summary.get("team_balance")
        if balance:
            lines.append(balance_line(balance, "team balance",
                                      "team A's share of the games won by a team"))
        elif self.players > 1:
            lines.append("team balance: no answer, no game was won by a team")
        lo, hi = summary["all_lose_ci"]
        lines.append(f"{'draw':<42}      {100 * summary['draw_rate']:6.2f} %")
        lines.append(f"{'everyone loses (unhappy customers)':<42}      "
                     f"{100 * summary['all_lose_rate']:6.2f} %  [95 % CI {100 * lo:.2f} - {100 * hi:.2f}]")
        why = summary.get("why_all_lose")
        if why:
            lines.append(f"  why: {why['words']}")
        lines.append(f"{'mean rounds':<42}      {summary['mean_rounds']:6.2f}")
        if summary["timeout_rate"]:
            lines.append(f"timeouts (max_rounds reached): {100 * summary['timeout_rate']:.3f} %")
        if summary["invariant_errors"]:
            lines.append(f"INVARIANT VIOLATIONS in {summary['invariant_errors']} games")
        unpaired = summary.get("contests", {}).get("unpaired_share")
        if unpaired and summary["contests"]["contests"]:
            lines.append(f"{'contests reaching the unpaired step (R2c)':<42}      "
                         f"{100 * unpaired['win_rate']:6.2f} %  of {summary['contests']['contests']:,} "
                         f"contests ({self.rules['contest_unpaired']})")
        if summary["all_lose_rate"] > 0.5:
            lines.append(
                f"Everyone loses in most games ({100 * summary['all_lose_rate']:.1f} %): the "
                "report's 'Per card: fate at the end of the game' section shows which "
                "customers (by value and domain) turned unhappy (--report, or simulate "
                "report RUN_DIR --out DIR).")
        like = summary.get("plays_like_players")
        if like:
            lines.append(
                f"{self.players} players play exactly like {like} here (odd_team_compensation="
                f"{self.rules['odd_team_compensation']}: team B's extra seat is dealt like a "
                f"player's, and every per-player-count option is the same): these are "
                f"{like}-player games, not a separate finding.")
        return "\n".join(lines)


def configure(*, players: int, cards: str | None = None, rules_file: str | None = None,
              rule_overrides: tuple[str, ...] = (), strategies: dict[str, str] | None = None,
              debug: bool = False) -> PeerToPeerConfig:
    from sim.core.errors import UserError

    if players not in PLAYER_COUNTS:
        raise UserError(f"Peer-to-Peer is played by 1 to 6 players, got {players}",
                        field="--players")
    resolved = OPTIONS.resolve(rules_file, tuple(rule_overrides))
    table = load_cards(cards)
    validate_for_players(table, players, resolved)
    given = {}
    for key, spec in (strategies or {}).items():   # a mistyped slot would play the default
        try:
            given[description.strategy_key(key)] = spec
        except ValueError:
            raise UserError(f"no team '{key}' in Peer-to-Peer; the strategies are keyed A "
                            "and B (--team-a, --team-b)", field="strategies") from None
    strategies = given
    chosen, weights = {}, {}
    search = np.zeros((2, 3), dtype=np.int64)
    record = None
    for t, team in enumerate(("A", "B")):
        spec = (strategies or {}).get(team) or DEFAULT_STRATEGY
        strategy, params = parse_spec(spec, "peer_to_peer", field_name=f"--team-{team.lower()}")
        chosen[team] = (strategy.name, {**strategy.params, **strategy.text_params, **params}
                        if strategy.search else {**strategy.params, **params})
        weights[team] = strategy.vector(features.WEIGHT_NAMES, features.DEFAULT_WEIGHTS,
                                        params, expand=features.expand_weight_key,
                                        players=players)
        if strategy.search:   # the team's weights are its base strategy's
            merged = chosen[team][1]
            search[t] = (1, int(merged["k"]), int(merged["n"]))
            extra = record_extra(merged)
            record = extra if record is None else max(record, extra or 0)
    return PeerToPeerConfig(players=players, cards=table, rules=resolved, strategies=chosen,
                            weights=weights, debug=debug,
                            search=search if search[:, 0].any() else None, record=record)


GAME = Game(
    name="peer-to-peer", title=TITLE, player_counts=PLAYER_COUNTS, default_players=4,
    options=OPTIONS, default_cards_path=default_cards_path,
    card_fields=description.CARD_FIELDS, card_ref_example="TE12.value or Technology-12.value",
    configure=configure,
    kernels=description.kernels,
    strategy_kind="teams", default_strategy=DEFAULT_STRATEGY, strategy_package="peer_to_peer",
    strategy_slots=description.strategy_slots, strategy_key=description.strategy_key,
    pairing=description.pairing,
    outcome_column="winner", outcome_codes=description.OUTCOME_CODES,
    headline_columns=("winner",), headline_counts=description.headline_counts,
    ablation_fields=("value", "effect"),     # simulate ablate: value -1 / +1, effect removed
    card_role=description.card_role,         # its S mark: the team that starts with it
    matchup_scheme="team_pairs",   # every ordered pair of teams, first marker balanced
    # simulate skill's search rungs: a game has about 47 searched decisions at 4 players
    # (PLAI's 9 at 3), so small budgets keep the ladder within its 30 minutes (k=2,n=2
    # plays about 100 games/s of a thread, k=4,n=2 about 55, k=4,n=4 29)
    skill_budgets=("k=2,n=2", "k=4,n=2"),
    balance_variants=description.balance_variants,
    tune_arena=PeerToPeerArena,
    sweep_metrics=SWEEP_METRICS, default_sweep_metrics=description.default_sweep_metrics,
    report_metrics="sim.games.peer_to_peer.report_metrics",
    compared_rules=("odd_team_compensation",), report_group=description.report_group,
    why_lose=WHY_LOSE,
    curves=Curves(unit="round", series=description.curve_series),
    swaps=SWAPS, balance_measures=measures.balance_measures,
    balance_measure=measures.balance_measure,
    answer_examples=EXAMPLES,    # an example game of each answer (examples.py)
    story=PeerToPeerConfig.story,   # the game viewer's story of one game
)
