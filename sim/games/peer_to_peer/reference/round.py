"""One round of Peer-to-Peer (P2P-R1..R4) on a Table: the state of one game.

R1 new customers, R2 the assist loop (commit, reveal, retarget, contest, win and place),
R3 refresh, R4 unhappy customers. R5 (the end of a round) lives in game.py.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer import features as F
from sim.games.peer_to_peer.reference import causes
from sim.games.peer_to_peer.reference import events as ev
from sim.games.peer_to_peer.reference.assist import (
    contest, first_unused, plan_assist, ranked_play, reaches_unpaired_step, strongest_shift,
)
from sim.games.peer_to_peer.reference.model import Pile, Rules, Team


@dataclass(eq=False)
class Table:
    """Everything on the table during one game."""

    rules: Rules
    rng: object
    teams: list[Team]                 # [A] solo, else [A, B]
    seats: list                       # every seat, team A's first
    log: ev.Log
    customer_deck: Pile = field(default_factory=lambda: Pile("customer deck"))
    row: list = field(default_factory=list)          # customers, in the order they arrived
    unhappy: Pile = field(default_factory=lambda: Pile("unhappy"))
    out: Pile = field(default_factory=lambda: Pile("out of the game"))
    arrival: dict = field(default_factory=dict)      # customer -> round it entered the row
    used: set = field(default_factory=set)           # cards whose effect was used this round
    round: int = 0
    marker: int = k.TEAM_A                           # team holding the first team marker
    first_marker: int = k.TEAM_A
    contests: int = 0
    # each team's hand at the round's start and at the end of its assist loop, and the
    # unhappy customers by the cause of the team that came closest to serving them
    start_hands: dict = field(default_factory=dict)
    end_hands: dict = field(default_factory=dict)
    unhappy_causes: list = field(default_factory=lambda: [0, 0, 0, 0])

    def rival(self, team: Team) -> Team | None:
        return None if len(self.teams) == 1 else self.teams[1 - team.index]

    def use_effect(self, team: Team, card, effect: int) -> None:
        """R2f: an effect is marked as used for the round when it is used."""
        assert card not in self.used, f"{card} used twice in round {self.round}"
        self.used.add(card)
        self.log(self.round, ev.EFFECT, team.index, card, effect)

    def deal_customer(self) -> None:
        card = self.customer_deck.draw()
        self.row.append(card)
        self.arrival[card] = self.round
        self.log(self.round, ev.DEAL, card)


# ------------------------------------------------------------------ the round

def play_round(t: Table) -> None:
    t.log(t.round, ev.MARKER, t.marker)
    if t.round > 1 or t.rules.deal_in_first_round:  # R1
        for _ in range(t.rules.new_customers_per_round):
            if not t.customer_deck:
                break
            t.deal_customer()
    if t.log.on:
        log_piles(t)
    t.used.clear()  # P2P-E: each effect once per round
    t.start_hands = {team.index: list(team.hand) for team in t.teams}
    assist_loop(t)                                   # R2
    t.end_hands = {team.index: list(team.hand) for team in t.teams}
    for team in t.teams:                             # R3
        refresh(t, team)
    unhappy_customers(t)                             # R4


def log_piles(t: Table) -> None:
    """Trace (the game viewer): every pile in the kernel's pile order, its size, then its
    cards unless it is a deck or a discard: the customer deck, the row (with arrival
    rounds), per pile kind team A's then team B's group deck, hand, discard and score
    pile, the unhappy and out piles, then every seat (k.MAX_SEATS, empty ones too)."""
    teams = t.teams + [None] * (2 - len(t.teams))
    piles = [(list(t.customer_deck), False), (t.row, True)]
    for part in ("group_deck", "hand", "discard", "score_pile"):
        shown = part in ("hand", "score_pile")
        piles += [(list(getattr(team, part)) if team else [], shown) for team in teams]
    piles += [(list(t.unhappy), True), (list(t.out), True)]
    by_index = {seat.index: seat for seat in t.seats}
    piles += [(by_index[s].ventures if s in by_index else [], True) for s in range(k.MAX_SEATS)]
    for p, (cards, shown) in enumerate(piles):
        t.log(t.round, ev.VIEW_PILE, p, -1, len(cards), 0)
        for i, card in enumerate(cards if shown else ()):
            t.log(t.round, ev.VIEW_PILE, p, i, card, t.arrival[card] if p == 1 else 0)


def log_options(t: Table, decision: int, team: Team, phase: int, options: list,
                noise: int) -> None:
    """Trace (the game viewer): a decision's options [(option code, customer, features)]
    with their scores without the noise feature ``noise`` (Policy.choose drew it into the
    features; the kernel's listing draws none)."""
    for code, customer, features in options:
        score = team.policy.score(phase, {f: v for f, v in features.items() if f != noise})
        t.log(t.round, ev.VIEW_OPTION, 2 * decision + team.index, code, customer,
              math.floor(score * ev.SCORE_UNIT + 0.5))


# ------------------------------------------------------------------ R2: the assist loop

def assist_loop(t: Table) -> None:
    """Repeat commit / reveal / contest / win until neither team commits an assist."""
    while True:
        # R2a: both teams commit at once, from the same state (D2).
        if t.log.on:
            log_hands(t)
        commits = {team.index: choose_commit(t, team) for team in t.teams}
        if all(a is None for a in commits.values()):
            for team in t.teams:
                t.log(t.round, ev.PASS, team.index)
            if t.log.on:
                log_could_assist(t)
            return
        holder = t.teams[t.marker]
        other = t.rival(holder)
        # R2b: the team without the marker reveals and declares first ...
        if other is not None:
            if commits[other.index] is not None:
                reveal(t, other, commits[other.index])
            else:
                t.log(t.round, ev.PASS, other.index)
        # ... then the marker holder, who has seen it and may pick another target (D3).
        mine = commits[holder.index]
        if mine is not None:
            rival_assist = commits[other.index] if other is not None else None
            chosen = choose_target(t, holder, mine, rival_assist)
            if chosen.customer is not mine.customer:
                t.log(t.round, ev.RETARGET, holder.index, mine.customer, chosen.customer)
            commits[holder.index] = mine = chosen
            reveal(t, holder, mine)
        else:
            t.log(t.round, ev.PASS, holder.index)
        theirs = commits[other.index] if other is not None else None
        if mine is not None and theirs is not None and mine.customer is theirs.customer:
            resolve_contest(t, commits)
        else:
            for team in (other, holder):  # in reveal order
                if team is not None and commits[team.index] is not None:
                    win(t, team, commits[team.index])


def log_hands(t: Table) -> None:
    """Trace: each team's group hand before it commits, position by position."""
    for team in t.teams:
        if not team.hand:
            t.log(t.round, ev.HAND, team.index, None, -1, 0)
        for i, card in enumerate(team.hand):
            t.log(t.round, ev.HAND, team.index, card, i, len(team.hand))


def first_assisting_subset(t: Table, team: Team, customer) -> int:
    """The first subset of the team's hand (a mask over hand positions, ascending) that
    could legally assist ``customer`` now; 0 if none (R2a)."""
    hand = team.hand
    for mask in range(1, 1 << len(hand)):
        played = [c for i, c in enumerate(hand) if mask >> i & 1]
        if plan_assist(team, played, customer, t.used) is not None:
            return mask
    return 0


def log_could_assist(t: Table) -> None:
    """Trace: once both teams passed, whether each could still have assisted each row
    customer, so the trace answers "could they have served that customer?"."""
    for team in t.teams:
        for customer in t.row:
            t.log(t.round, ev.COULD, team.index, customer, first_assisting_subset(t, team, customer))


def _top_value(t: Table) -> int:
    return max((c.value for c in t.row), default=0)


def assist_features(t: Table, assist, top_value: int) -> dict:
    """The D2/D3 features of one assist (features.py, C_*)."""
    customer = assist.customer
    waited = t.round - t.arrival[customer]
    return {
        F.C_VALUE: customer.value,
        F.C_WAITED: waited,
        F.C_URGENT: 1.0 if waited + 1 >= t.rules.customer_patience else 0.0,
        F.C_CARDS: len(assist.played),
        F.C_HIGH: max([0] + assist.values),
        F.C_EFFECTS: assist.venture_effects,
        F.C_TOP: 1.0 if customer.value >= top_value else 0.0,
        F.C_CUST_EFFECT: 1.0 if customer.is_venture and customer.effect != k.EFFECT_NONE else 0.0,
        **_kind_feature(customer),
    }


def _kind_feature(customer) -> dict:
    """C_KIND: which of the six venture effects the customer carries, if any."""
    if customer.is_venture and k.EFFECT_WILD_DOMAIN <= customer.effect <= k.EFFECT_PATIENCE:
        return {F.C_KIND + customer.effect - k.EFFECT_WILD_DOMAIN: 1.0}
    return {}


def _serves_exactly(cards, customer, used) -> bool:
    """Printed values add up to the customer's and a card matches its domain, naturally
    or by an unused dual_domain (C_REACH counts no other effect)."""
    if sum(c.value for c in cards) != customer.value:
        return False
    return customer.domain == k.ANY or any(
        c.domain in (customer.domain, k.ANY)
        or (c.has(k.EFFECT_DUAL_DOMAIN, customer.domain) and c not in used) for c in cards)


def reach_left(t: Table, hand, played, customer) -> float:
    """C_REACH: the other row customers that some cards of ``hand`` not ``played`` serve
    exactly (_serves_exactly). D3 counts it as D2 did for the committed cards."""
    rest = [c for c in hand if not any(c is p for p in played)]
    subsets = [[c for i, c in enumerate(rest) if m >> i & 1] for m in range(1, 1 << len(rest))]
    return float(sum(1 for other in t.row if other is not customer
                     and any(_serves_exactly(s, other, t.used) for s in subsets)))


def choose_commit(t: Table, team: Team):
    """D2: pass (None) or an Assist. Options: pass, then every subset of the hand as a
    bitmask over hand positions in ascending order, each with every legal customer in
    row order. With an empty hand or an empty row there is no decision (and no draw)."""
    hand = team.hand
    if not hand or not t.row:
        # Nothing to decide: the team passes without a noise draw (features.py).
        return None
    # A quick range test first: boosts only add, a shift moves the sum by at most k.
    shifter = strongest_shift(team, t.used)
    reach = shifter.arg if shifter is not None else 0
    top = _top_value(t)
    weighs_reach = team.policy.weighs(F.C_REACH, len(t.customer_deck))
    options = [(None, {F.C_PASS: 1.0})]
    codes = [(0, None)]   # (hand mask, customer) of each option, for the trace
    for mask in range(1, 1 << len(hand)):
        played = [c for i, c in enumerate(hand) if mask >> i & 1]
        total = sum(c.value for c in played)
        boost = sum(c.arg for c in played if c.has(k.EFFECT_BOOST) and c not in t.used)
        for customer in t.row:
            if not total - reach <= customer.value <= total + boost + reach:
                continue
            assist = plan_assist(team, played, customer, t.used)
            if assist is not None:
                features = assist_features(t, assist, top)
                if weighs_reach:
                    features[F.C_REACH] = reach_left(t, hand, played, customer)
                options.append((assist, features))
                codes.append((mask, customer))
    policy = team.policy
    phase = policy.phase(len(t.customer_deck))
    chosen = policy.choose(phase, options, F.C_NOISE)
    if t.log.on:
        log_options(t, 0, team, phase, [(mask, customer, features) for (mask, customer), (_, features)
                                        in zip(codes, options)], F.C_NOISE)
    return chosen


def choose_target(t: Table, team: Team, committed, rival_assist):
    """D3: the marker holder picks any customer its committed cards can legally assist,
    in row order, knowing the rival's revealed cards and target."""
    top = _top_value(t)
    rival = t.rival(team)
    options = []
    for customer in t.row:
        assist = plan_assist(team, committed.played, customer, t.used)
        if assist is None:
            continue
        f = assist_features(t, assist, top)
        if team.policy.weighs(F.C_REACH, len(t.customer_deck)):
            f[F.C_REACH] = reach_left(t, team.hand, committed.played, customer)
        if rival_assist is not None and customer is rival_assist.customer:
            winner, _ = _contest(t, {team.index: assist, rival.index: rival_assist})
            f[F.C_CONTEST_WIN if winner == team.index else F.C_CONTEST_LOSE] = 1.0
        options.append((assist, f))
    policy = team.policy
    return policy.choose(policy.phase(len(t.customer_deck)), options, F.C_NOISE)


def reveal(t: Table, team: Team, assist) -> None:
    """R2b/R2f: the assist's effects are used; its cards and target are shown."""
    for card, effect in assist.effect_uses():
        t.use_effect(team, card, effect)
    for card, value in zip(assist.played, assist.values):
        t.log(t.round, ev.PLAY, team.index, card, value)
    t.log(t.round, ev.DECLARE, team.index, assist.customer, assist.shift_card, assist.wild_card)


def _tiebreaks(t: Table):
    return [first_unused(team, t.used, k.EFFECT_TIEBREAK) for team in t.teams]


def _contest(t: Table, assists: dict):
    a, b = assists[k.TEAM_A], assists[k.TEAM_B]
    tb_a, tb_b = _tiebreaks(t)
    rank = t.rules.domain_rank
    return contest(ranked_play(a, rank), ranked_play(b, rank), tb_a is not None,
                   tb_b is not None, t.marker, t.rules.contest_unpaired)


def resolve_contest(t: Table, assists: dict) -> None:
    """R2c-R2e: both teams target the same customer."""
    winner_index, why = _contest(t, assists)
    winner, loser = t.teams[winner_index], t.teams[1 - winner_index]
    if why == k.WHY_TIEBREAK:
        t.use_effect(winner, _tiebreaks(t)[winner_index], k.EFFECT_TIEBREAK)
    t.contests += 1
    winner.contests_won += 1
    rank = t.rules.domain_rank
    unpaired = reaches_unpaired_step(ranked_play(assists[k.TEAM_A], rank),
                                     ranked_play(assists[k.TEAM_B], rank))
    winner.contests_unpaired_won += unpaired
    winner.contests_won_by[why] = winner.contests_won_by.get(why, 0) + 1
    customer = assists[winner_index].customer
    t.log(t.round, ev.CONTEST, winner_index, customer, why, int(unpaired))
    t.log(t.round, ev.RETURN, loser.index)  # R2e: its cards never left its hand
    if not t.rules.loser_effects_spent:
        for card, _ in assists[loser.index].effect_uses():
            t.used.discard(card)
    win(t, winner, assists[winner_index])


def win(t: Table, team: Team, assist) -> None:
    """R2d: the played cards go to the group discard; the customer is placed (D4)."""
    for card in reversed(assist.played):
        team.hand.remove(card)
        team.discard.put(card)
    t.row.remove(assist.customer)
    team.assists += 1
    t.log(t.round, ev.WIN, team.index, assist.customer)
    place(t, team, assist.customer)


# ------------------------------------------------------------------ D4 / D5: placement

SCORE = "score"


def place(t: Table, team: Team, customer) -> None:
    """D4: the score pile, then each seat of the team, then each usable develop target."""
    policy = team.policy
    phase = policy.phase(len(t.customer_deck))
    limit = t.rules.venture_limit
    carries = customer.is_venture and customer.effect != k.EFFECT_NONE
    options = [(SCORE, {F.D_SCORE: 1.0, F.D_SCORE_VALUE: customer.value,
                        F.D_SCORE_REMAINING: len(t.customer_deck)})]
    for seat in team.seats:
        options.append((seat, {F.D_VENTURE: 1.0,
                               F.D_OVERFLOW: 1.0 if len(seat.ventures) + 1 > limit else 0.0,
                               F.D_VENTURE_EFFECT: 1.0 if carries else 0.0}))
    for target in (k.DEVELOP_DECK, k.DEVELOP_HAND, k.DEVELOP_DISCARD):
        if first_unused(team, t.used, k.EFFECT_DEVELOP, target) is not None:
            options.append((target, {F.D_DEVELOP_DECK + target: 1.0}))
    where = policy.choose(phase, options, F.D_NOISE)
    if t.log.on:
        log_options(t, 1, team, phase, [(_destination_code(option), customer, features)
                                        for option, features in options], F.D_NOISE)
    if where == SCORE:
        team.score_pile.put(customer)
        team.sent_score += 1
        t.log(t.round, ev.PLACE, team.index, customer, 0, -1)
    elif not isinstance(where, int):  # a seat
        seat = where
        seat.ventures.append(customer)
        team.sent_venture += 1
        t.log(t.round, ev.PLACE, team.index, customer, 1, seat.index)
        while len(seat.ventures) > limit:
            push_out(t, team, seat, phase)
    else:  # E3 develop
        source = first_unused(team, t.used, k.EFFECT_DEVELOP, where)
        t.use_effect(team, source, k.EFFECT_DEVELOP)
        team.sent_deck += 1
        if where == k.DEVELOP_DECK:
            team.group_deck.put(customer)
            team.group_deck.shuffle(t.rng)
        elif where == k.DEVELOP_HAND:
            team.hand.append(customer)
        else:
            team.discard.put(customer)
        t.log(t.round, ev.PLACE, team.index, customer, 2 + where, -1)


def _destination_code(where) -> int:
    """A D4 option as the kernel's destination code: 0 score, 1 + seat, 100 + develop target."""
    if where == SCORE:
        return 0
    return 100 + where if isinstance(where, int) else 1 + where.index


def push_out(t: Table, team: Team, seat, phase: int) -> None:
    """D5: one of an over-full seat's venture cards moves to the team's score pile."""
    last = len(seat.ventures) - 1
    options = [(card, {F.L_HAS_EFFECT: 1.0 if card.is_venture and card.effect != k.EFFECT_NONE else 0.0,
                       F.L_VALUE: card.value,
                       F.L_IS_NEW: 1.0 if i == last else 0.0})
               for i, card in enumerate(seat.ventures)]
    card = team.policy.choose(phase, options, F.L_NOISE)
    seat.ventures.remove(card)
    team.score_pile.put(card)
    t.log(t.round, ev.OVERFLOW, team.index, seat.index, card)


# ------------------------------------------------------------------ R3, R4

def refresh(t: Table, team: Team) -> None:
    """R3: discard the hand, draw hand_size plus extra_draw, reshuffling the discard."""
    while team.hand:
        team.discard.put(team.hand.pop())
    extra = 0
    for card in team.working_ventures(k.EFFECT_EXTRA_DRAW):
        if card not in t.used:
            extra += card.arg
            t.use_effect(team, card, k.EFFECT_EXTRA_DRAW)
    drawn = reshuffles = 0
    for _ in range(t.rules.hand_size + extra):
        if not team.group_deck:
            if not t.rules.reshuffle_discard or not team.discard:
                break
            t.log(t.round, ev.RESHUFFLE, team.index, len(team.discard))
            while team.discard:
                team.group_deck.put(team.discard.draw())
            team.group_deck.shuffle(t.rng)
            reshuffles += 1
        team.hand.append(team.group_deck.draw())
        drawn += 1
        t.log(t.round, ev.DRAW, team.index, team.hand[-1])
    t.log(t.round, ev.REFRESH, team.index, drawn, reshuffles, extra)


def unhappy_customers(t: Table) -> None:
    """R4: customers that waited customer_patience rounds, then the longest-waiting ones
    beyond row_capacity, turn unhappy; `patience` (E6, D6) can save them."""
    doomed = [c for c in t.row if t.round - t.arrival[c] + 1 >= t.rules.customer_patience]
    cap = t.rules.row_capacity
    if cap > 0:
        while len(t.row) - len(doomed) > cap:
            waiting = [c for c in t.row if c not in doomed]
            oldest = min(waiting, key=lambda c: t.arrival[c])  # row order breaks ties
            doomed.append(oldest)
    if doomed:
        holder = t.teams[t.marker]
        for team in (holder, t.rival(holder)):  # the marker holder first
            if team is None:
                continue
            while doomed:
                source = first_unused(team, t.used, k.EFFECT_PATIENCE)
                if source is None:
                    break
                options = [(None, {F.S_NONE: 1.0})] + [
                    (c, {F.S_VALUE: c.value}) for c in t.row if c in doomed]
                policy = team.policy
                saved = policy.choose(policy.phase(len(t.customer_deck)), options, F.S_NOISE)
                if saved is None:
                    break
                t.use_effect(team, source, k.EFFECT_PATIENCE)
                doomed.remove(saved)
                if t.rules.patience_resets_wait:  # E6: its wait starts again next round
                    t.arrival[saved] = t.round + 1
                t.log(t.round, ev.SAVE, team.index, source, saved, int(t.rules.patience_resets_wait))
    lost = []
    for customer in reversed(list(t.row)):
        if customer in doomed:
            t.row.remove(customer)
            t.unhappy.put(customer)
            t.log(t.round, ev.UNHAPPY, customer)
            lost.append(customer)
    for customer in lost:
        count_cause(t, customer)


def count_cause(t: Table, customer) -> None:
    """Why the customer turned unhappy (causes.py): per team, and for the team that came
    closest to serving it."""
    closest = causes.DECK
    by_team = [-1, -1]
    for team in t.teams:
        cause = causes.team_cause(team, customer, t.start_hands[team.index],
                                  t.end_hands[team.index], t.used)
        team.unhappy_causes[cause] += 1
        closest = max(closest, cause)
        by_team[team.index] = cause
    t.unhappy_causes[closest] += 1
    t.log(t.round, ev.VIEW_CAUSE, customer, by_team[0], by_team[1], closest)
