"""Setup (P2P-S), the game loop with its end (P2P-R5, R6), scoring (P2P-W) and results.

``play_games(config, seed, start, count)`` plays games ``start .. start+count-1`` of a
``PeerToPeerConfig`` and returns one dict per game with the same fields as the kernel's
result row (constants.RESULT_DTYPE) plus one ``fate_<card id>`` per card, as in
``PeerToPeerConfig.run_chunk``.
"""
from __future__ import annotations

from dataclasses import dataclass

from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer import features as F
from sim.games.peer_to_peer.reference import events as ev
from sim.games.peer_to_peer.reference.model import Pile, Rules, Seat, Team, cards_from_table
from sim.games.peer_to_peer.reference.policy import Policy
from sim.games.peer_to_peer.reference.rng import Rng
from sim.games.peer_to_peer.reference.round import Table, log_piles, play_round


class Reference:
    """The reference engine for one configuration (cards, rules, players, strategies)."""

    def __init__(self, config):
        self.config = config
        self.cards = cards_from_table(config.cards)
        self.rules = Rules.from_resolved(config.rules, config.players)
        self.weights = {0: list(map(float, config.weights["A"])),
                        1: list(map(float, config.weights["B"]))}

    def play(self, seed: int, game_index: int, trace: bool = False) -> "GameResult":
        table = self._setup(seed, game_index, ev.Log(trace))
        winner = self._play_rounds(table)
        return GameResult(self._row(table, game_index, winner), self._fates(table),
                          table.log.events)

    # -------------------------------------------------------------- setup (P2P-S)

    def _setup(self, seed: int, game_index: int, log: ev.Log) -> Table:
        rules = self.rules
        rng = Rng(seed, game_index)
        teams = [Team(i, Policy(self.weights[i], rng)) for i in range(1 if rules.solo else 2)]
        seats = []
        for index, (team, dealt) in enumerate(rules.seat_plan()):  # S1
            seat = Seat(index, teams[team], dealt)
            teams[team].seats.append(seat)
            seats.append(seat)
        t = Table(rules, rng, teams, seats, log)

        # S2: S cards aside; shuffle the rest; each dealt seat turns cards from the top
        # until it has revealed two ventures, and keeps one (D1). The revealed cards it
        # does not keep stay in the deck (in place), which is then shuffled; with
        # unchosen_ventures=aside the other venture leaves the game instead.
        deck = [c for c in self.cards if c.start == k.NO_TEAM]
        rng.shuffle(deck)  # read from the front during this deal
        position = 0
        for seat in seats:
            if not seat.dealt:
                continue
            revealed = []
            while len(revealed) < 2:
                card = deck[position]
                position += 1
                if card.is_venture:
                    revealed.append(card)
            kept = self._choose_start(seat.team, revealed)
            deck.remove(kept)
            position -= 1
            seat.ventures.append(kept)
            seat.start_card = kept
            unchosen = revealed[1] if kept is revealed[0] else revealed[0]
            log(0, ev.SEAT_START, seat.index, kept, unchosen)
            if rules.unchosen_ventures == "aside":
                deck.remove(unchosen)
                position -= 1  # the unchosen venture was revealed before this position
                t.out.put(unchosen)
                log(0, ev.ASIDE, seat.index, unchosen)
        # S3 solo: team B's S cards join the customer deck (solo_spare_start_cards=customers).
        spare_b = [c for c in self.cards if c.start == k.TEAM_B]
        if rules.solo and rules.solo_spare_start_cards == "customers":
            deck += spare_b
        t.customer_deck = Pile("customer deck", deck)  # its top is the end of the list
        t.customer_deck.shuffle(rng)
        # S3: each team's S cards are shuffled into its group deck; solo: B's are out
        # (solo_spare_start_cards=out).
        for team_index in (k.TEAM_A, k.TEAM_B):
            s_cards = [c for c in self.cards if c.start == team_index]
            if team_index < len(teams):
                teams[team_index].group_deck = Pile(f"group deck {'AB'[team_index]}", s_cards)
                teams[team_index].group_deck.shuffle(rng)
            elif rules.solo_spare_start_cards == "out":
                for card in s_cards:
                    t.out.put(card)
        # S4: group hands.
        for team in teams:
            for _ in range(rules.hand_size):
                if not team.group_deck:
                    break
                team.hand.append(team.group_deck.draw())
                log(0, ev.DRAW, team.index, team.hand[-1])
        log(0, ev.SETUP, len(t.customer_deck), len(teams[0].group_deck),
            len(teams[1].group_deck) if len(teams) > 1 else 0)
        # S5: the first customers.
        t.round = 1
        for _ in range(rules.initial_row):
            if not t.customer_deck:
                break
            t.deal_customer()
        # S6: a random team gets the first team marker.
        if rules.solo or rules.first_marker == "A":
            t.marker = k.TEAM_A
        elif rules.first_marker == "B":
            t.marker = k.TEAM_B
        else:
            t.marker = k.TEAM_B if rng.uniform() >= 0.5 else k.TEAM_A
        t.first_marker = t.marker
        return t

    def _choose_start(self, team: Team, revealed: list):
        """D1: keep one of the two revealed ventures (in reveal order; early phase)."""
        options = [(card, {F.V_HAS_EFFECT: 1.0 if card.effect != k.EFFECT_NONE else 0.0,
                           F.V_VALUE: card.value}) for card in revealed]
        return team.policy.choose(0, options, F.V_NOISE)

    # -------------------------------------------------------------- rounds (P2P-R)

    def _play_rounds(self, t: Table) -> int:
        rules = t.rules
        winner = k.TIMEOUT  # R6
        for rnd in range(1, rules.max_rounds + 1):
            t.round = rnd
            play_round(t)
            # R5: end of round.
            if len(t.unhappy) >= rules.unhappy_limit:
                winner = k.ALL_LOSE
                break
            if not t.customer_deck and (rules.end_when == "deck_empty" or not t.row):
                winner = k.SOLO_WIN if rules.solo else self._scoring(t)
                break
            if not rules.solo:
                t.marker = 1 - t.marker
        if t.log.on:
            log_piles(t)
        t.log(t.round, ev.END, winner, len(t.teams[0].score_pile),
              len(t.teams[1].score_pile) if len(t.teams) > 1 else 0)
        return winner

    def _scoring(self, t: Table) -> int:
        """W1/W2: most scored cards, then value sum, then scored cards per domain from the
        highest-ranked domain down; else a draw."""
        rank = t.rules.domain_rank
        domains = sorted((d for d in rank if rank[d] >= 0), key=lambda d: -rank[d])

        def key(team):
            pile = team.score_pile.cards
            return ([len(pile), sum(c.value for c in pile)]
                    + [sum(1 for c in pile if c.domain == d) for d in domains])

        a, b = key(t.teams[0]), key(t.teams[1])
        if a == b:
            return k.DRAW
        return k.WIN_A if a > b else k.WIN_B

    # -------------------------------------------------------------- results

    def _row(self, t: Table, game_index: int, winner: int) -> dict:
        team = {0: t.teams[0], 1: t.teams[1] if len(t.teams) > 1 else None}

        def stat(i, name):
            return getattr(team[i], name) if team[i] is not None else 0

        def score_pile(i):
            return team[i].score_pile.cards if team[i] is not None else []

        row = {
            "game_index": game_index, "players": t.rules.players, "winner": winner,
            "first_marker": t.first_marker, "rounds": t.round, "unhappy": len(t.unhappy),
            "score_a": len(score_pile(0)), "score_b": len(score_pile(1)),
            "value_a": sum(c.value for c in score_pile(0)),
            "value_b": sum(c.value for c in score_pile(1)),
            "assists_a": stat(0, "assists"), "assists_b": stat(1, "assists"),
            "contests": t.contests,
            "contests_won_a": stat(0, "contests_won"), "contests_won_b": stat(1, "contests_won"),
            "contests_unpaired_won_a": stat(0, "contests_unpaired_won"),
            "contests_unpaired_won_b": stat(1, "contests_unpaired_won"),
            "sent_score_a": stat(0, "sent_score"), "sent_score_b": stat(1, "sent_score"),
            "sent_venture_a": stat(0, "sent_venture"), "sent_venture_b": stat(1, "sent_venture"),
            "sent_deck_a": stat(0, "sent_deck"), "sent_deck_b": stat(1, "sent_deck"),
        }
        for s in range(k.MAX_SEATS):
            start = t.seats[s].start_card if s < len(t.seats) else None
            row[f"start_card_{s}"] = start.index if start is not None else -1
        row["error"] = 0
        for why, name in ((k.WHY_HIGHER_CARD, "higher"), (k.WHY_TIEBREAK, "tiebreak"),
                          (k.WHY_DOMAIN, "domain"), (k.WHY_MARKER, "marker")):
            for i, side in enumerate("ab"):
                won_by = team[i].contests_won_by if team[i] is not None else {}
                row[f"contests_{name}_won_{side}"] = won_by.get(why, 0)
        for cause, name in enumerate(k.UNHAPPY_CAUSES):
            row[f"unhappy_{name}"] = t.unhappy_causes[cause]
            for i, side in enumerate("ab"):
                row[f"unhappy_{name}_{side}"] = (team[i].unhappy_causes[cause]
                                                 if team[i] is not None else 0)
        return row

    def _fates(self, t: Table) -> list[int]:
        """Where each card ends the game (constants.FATE_*), by card index."""
        fate = [None] * len(self.cards)
        places = [(t.customer_deck, k.FATE_CUSTOMER_DECK), (t.row, k.FATE_ROW),
                  (t.unhappy, k.FATE_UNHAPPY), (t.out, k.FATE_OUT)]
        for team in t.teams:
            places += [(team.score_pile, k.FATE_SCORE_A + team.index),
                       (team.group_deck, k.FATE_GROUP_A + team.index),
                       (team.hand, k.FATE_GROUP_A + team.index),
                       (team.discard, k.FATE_GROUP_A + team.index)]
            places += [(seat.ventures, k.FATE_VENTURE_A + team.index) for seat in team.seats]
        for pile, code in places:
            for card in pile:
                assert fate[card.index] is None, f"{card} is in two places"
                fate[card.index] = code
        assert None not in fate, "a card is nowhere"
        return fate


@dataclass
class GameResult:
    row: dict          # the RESULT_DTYPE fields
    fates: list        # FATE_* per card index
    events: list       # (round, code, a, b, c, d) when traced


def play_game(config, seed: int, game_index: int, trace: bool = False) -> GameResult:
    return Reference(config).play(seed, game_index, trace)


def play_games(config, seed: int, start: int, count: int) -> list[dict]:
    """Games start .. start+count-1: the RESULT_DTYPE fields plus ``fate_<card id>``."""
    engine = Reference(config)
    ids = config.cards.ids
    rows = []
    for game_index in range(start, start + count):
        result = engine.play(seed, game_index)
        row = dict(result.row)
        row.update({f"fate_{cid}": fate for cid, fate in zip(ids, result.fates)})
        rows.append(row)
    return rows
