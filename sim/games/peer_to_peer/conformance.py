"""Conformance check: play seeded Peer-to-Peer games with a strategy and check every
invariant of the engine on the results.

The engine checks, in debug mode, what only it can see (its ``error`` column: every card
in exactly one place, seats within the venture limit, effects used once per round,
assists legal). This module checks everything else a result row and its per-card fates
must agree on, game by game, vectorised over the games:

    >>> from sim.games.peer_to_peer.conformance import check_strategy
    >>> report = check_strategy("builder:threshold=12", players=3, games=600)
    >>> report.ok, report.problems
    (True, {})

A strategy is played against itself and, on each team, against ``opponent`` (random by
default, to reach odd states), so both seats and both roles are exercised.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer.cards import S_CARDS_PER_TEAM
from sim.games.peer_to_peer.seats import seat_layout

SOLO_WINNERS = (k.SOLO_WIN, k.ALL_LOSE)
TEAM_WINNERS = (k.WIN_A, k.WIN_B, k.DRAW, k.ALL_LOSE)


@dataclass
class ConformanceReport:
    strategy: str
    players: int
    games: int = 0
    # check name -> (games that failed it, first failing (pairing, game_index))
    problems: dict[str, tuple[int, str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, other: dict[str, tuple[int, str]], games: int) -> None:
        self.games += games
        for name, (count, first) in other.items():
            old = self.problems.get(name)
            self.problems[name] = (count + (old[0] if old else 0), old[1] if old else first)

    def __str__(self) -> str:
        head = f"{self.strategy}, {self.players} players, {self.games} games"
        if self.ok:
            return head + ": all invariants hold"
        lines = [f"{name}: {count} games (first: {first})"
                 for name, (count, first) in sorted(self.problems.items())]
        return head + ":\n  " + "\n  ".join(lines)


def _team_counts(fates: np.ndarray, code: int) -> np.ndarray:
    return (fates == code).sum(axis=1)


def _expected_winner(config, out, fates) -> np.ndarray:
    """P2P-W1/W2 from the fates alone: score, value sum, then domain counts by rank."""
    values = config.cards.value.astype(np.int64)
    ranks = config.rules_vector[k.R_DOMAIN_RANK + config.cards.domain.astype(np.int64)]
    keys = []
    for code in (k.FATE_SCORE_A, k.FATE_SCORE_B):
        scored = fates == code
        columns = [scored.sum(axis=1), (scored * values).sum(axis=1)]
        columns += [(scored & (ranks == rank)).sum(axis=1) for rank in (3, 2, 1, 0)]
        keys.append(np.stack(columns, axis=1))
    diff = np.sign(keys[0] - keys[1])
    first = np.argmax(diff != 0, axis=1)  # first key that differs (0 if none does)
    decided = diff[np.arange(len(out)), first]
    return np.where(decided > 0, k.WIN_A, np.where(decided < 0, k.WIN_B, k.DRAW))


def check_results(config, out: np.ndarray, fates: np.ndarray, start: int = 0) -> dict[str, np.ndarray]:
    """Every invariant as a boolean mask of the games that break it (only failing checks)."""
    players = config.players
    solo = players == 1
    cards = config.cards
    seats = seat_layout(players, config.rules["odd_team_compensation"])
    limit = config.rules_vector[k.R_UNHAPPY_LIMIT]
    bad: dict[str, np.ndarray] = {}

    def expect(name: str, ok: np.ndarray) -> None:
        ok = np.broadcast_to(ok, (len(out),))
        if not ok.all():
            bad[name] = ~ok

    for code in range(1, len(k.ERROR_NAMES)):
        expect(f"engine: {k.ERROR_NAMES[code]}", out["error"] != code)
    expect("engine: unknown error code", out["error"] < len(k.ERROR_NAMES))
    expect("no timeout", out["winner"] != k.TIMEOUT)
    expect(f"winner code valid for {players} players",
           np.isin(out["winner"], SOLO_WINNERS if solo else TEAM_WINNERS))
    expect("game_index and players recorded",
           (out["game_index"] == start + np.arange(len(out))) & (out["players"] == players))
    expect("rounds within 1..max_rounds",
           (out["rounds"] >= 1) & (out["rounds"] <= config.rules_vector[k.R_MAX_ROUNDS]))
    expect("fate codes valid", ((fates >= 0) & (fates < len(k.FATE_NAMES))).all(axis=1))

    # Unhappy customers and how the game ended (P2P-R5).
    expect("unhappy equals unhappy fates", out["unhappy"] == _team_counts(fates, k.FATE_UNHAPPY))
    expect("all_lose exactly when the unhappy limit is reached",
           (out["winner"] == k.ALL_LOSE) == (out["unhappy"] >= limit))
    scored_end = out["winner"] != k.ALL_LOSE
    expect("a scored game has used up the customer deck",
           ~scored_end | (_team_counts(fates, k.FATE_CUSTOMER_DECK) == 0))
    if not solo:
        expect("winner follows the scoring keys (P2P-W2)",
               ~scored_end | (out["winner"] == _expected_winner(config, out, fates)))

    # S cards stay in their team's group piles; team B's in a solo game are out or customers
    # (P2P-S3, solo_spare_start_cards). Out of the game: those, and with
    # unchosen_ventures=aside each dealt seat's other revealed venture (P2P-S2).
    rules = config.rules_vector
    spare_out = solo and rules[k.R_SOLO_SPARE_START] == k.SOLO_SPARE_OUT
    for team, group in ((k.TEAM_A, k.FATE_GROUP_A), (k.TEAM_B, k.FATE_GROUP_B)):
        if solo and team == k.TEAM_B:
            allowed = [k.FATE_OUT] if spare_out else [
                k.FATE_CUSTOMER_DECK, k.FATE_ROW, k.FATE_UNHAPPY, k.FATE_SCORE_A,
                k.FATE_VENTURE_A, k.FATE_GROUP_A]
        else:
            allowed = [group]
        expect(f"S cards of team {'AB'[team]} stay in place",
               np.isin(fates[:, cards.start == team], allowed).all(axis=1))
    aside = (int(seats[k.SEAT_DEALT].sum())
             if rules[k.R_UNCHOSEN_VENTURES] == k.UNCHOSEN_ASIDE else 0)
    expect("only the set-aside cards are out of the game",
           _team_counts(fates, k.FATE_OUT) == (S_CARDS_PER_TEAM if spare_out else 0) + aside)

    # Starting ventures: one distinct venture card per dealt seat, never anywhere but its
    # team's ventures or score pile (P2P-S2, R2d).
    for s in range(k.MAX_SEATS):
        started = out[f"start_card_{s}"].astype(np.int64)
        team = seats[k.SEAT_TEAM, s]
        if team < 0 or not seats[k.SEAT_DEALT, s]:
            expect(f"seat {s} has no starting venture", started == -1)
            continue
        valid = (started >= 0) & (started < cards.n)
        safe = np.where(valid, started, 0)
        fate = fates[np.arange(len(out)), safe]
        expect(f"seat {s} started with a venture card",
               valid & (cards.kind[safe] == k.VENTURE) & (cards.start[safe] == k.NO_TEAM))
        expect(f"seat {s}'s starting venture stayed with team {'AB'[team]}",
               (fate == k.FATE_VENTURE_A + team) | (fate == k.FATE_SCORE_A + team))
    dealt = [s for s in range(k.MAX_SEATS) if seats[k.SEAT_DEALT, s] and seats[k.SEAT_TEAM, s] >= 0]
    starts = np.stack([out[f"start_card_{s}"] for s in dealt], axis=1)
    expect("starting ventures are distinct",
           np.array([len(set(row)) == len(row) for row in starts.tolist()]))

    # Per team: scores, values and where won customers went (P2P-R2d, W1).
    values = cards.value.astype(np.int64)
    for team, t in ((0, "a"), (1, "b")):
        if solo and team == 1:
            for column in ("score_b", "value_b", "assists_b", "contests_won_b", "sent_score_b",
                           "sent_venture_b", "sent_deck_b"):
                expect(f"solo: {column} is 0", out[column] == 0)
            continue
        score_pile = fates == k.FATE_SCORE_A + team
        n_starts = int(sum(seats[k.SEAT_TEAM, s] == team for s in dealt))
        sent = (out[f"sent_score_{t}"].astype(np.int64) + out[f"sent_venture_{t}"]
                + out[f"sent_deck_{t}"])
        expect(f"score_{t} equals its score-pile fates", out[f"score_{t}"] == score_pile.sum(axis=1))
        expect(f"value_{t} equals the values of its score pile",
               out[f"value_{t}"] == (score_pile * values).sum(axis=1))
        expect(f"sent_* of team {t.upper()} add up to its assists", sent == out[f"assists_{t}"])
        expect(f"group piles of team {t.upper()} hold its S cards plus developed customers",
               _team_counts(fates, k.FATE_GROUP_A + team) == S_CARDS_PER_TEAM + out[f"sent_deck_{t}"])
        # A venture card leaves a seat only for the score pile (D5), so ventures + score
        # hold exactly the starting ventures and the customers sent to either.
        expect(f"ventures + score of team {t.upper()} match starts and customers sent",
               score_pile.sum(axis=1) + _team_counts(fates, k.FATE_VENTURE_A + team)
               == n_starts + out[f"sent_score_{t}"] + out[f"sent_venture_{t}"])
        expect(f"contests won by team {t.upper()} are assists",
               out[f"contests_won_{t}"] <= out[f"assists_{t}"])
    expect("contests = contests won by A + by B",
           out["contests"] == out["contests_won_a"].astype(np.int64) + out["contests_won_b"])
    return bad


def _summarize(bad: dict[str, np.ndarray], label: str, start: int) -> dict[str, tuple[int, str]]:
    return {name: (int(mask.sum()), f"{label} game {start + int(np.argmax(mask))}")
            for name, mask in bad.items()}


def check_strategy(spec: str, players: int, games: int = 600, seed: int = 1,
                   opponent: str = "random", rule_overrides: tuple[str, ...] = (),
                   cards: str | None = None) -> ConformanceReport:
    """Play ``games`` debug games split over three pairings (spec v spec, spec v opponent,
    opponent v spec; one team only when solo) and check every invariant."""
    from sim.games.peer_to_peer.game import GAME

    pairings = [(spec, spec)] if players == 1 else [(spec, spec), (spec, opponent), (opponent, spec)]
    report = ConformanceReport(strategy=spec, players=players)
    per_pairing = max(1, games // len(pairings))
    for i, (team_a, team_b) in enumerate(pairings):
        config = GAME.configure(players=players, cards=cards, rule_overrides=tuple(rule_overrides),
                                strategies={"A": team_a, "B": team_b}, debug=True)
        start = i * per_pairing  # distinct games for each pairing
        out, fates = config.play(seed, start, per_pairing, threads=1)
        label = f"seed {seed}, --team-a {team_a} --team-b {team_b},"
        report.add(_summarize(check_results(config, out, fates, start), label, start),
                   per_pairing)
    return report
