"""The kernel's trace buffer as a story (sim.core.story): round by round, with cards by
name, the table at each round's start, every decision's options and scores, each contest's
deciding step and each unhappy customer's cause. The text trace is the story's text."""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from sim.core.story import (
    CardInfo, Decision, Line, Option, Pile, Step, Story, decode_score, keyed, scored_by,
)
from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer import engine_kernel as e
from sim.games.peer_to_peer.view_kernel import (
    SCORE_INF, SCORE_NAN, SCORE_UNIT, VIEW_COMMIT, VIEW_PLACE,
)
from sim.games.peer_to_peer.why_lose import CAUSES

WHY = {k.WHY_HIGHER_CARD: "a higher card in the pair-by-pair comparison",
       k.WHY_LONGER: "more cards after equal pairs",
       k.WHY_TIEBREAK: "its `tiebreak` venture, now spent for the round",
       k.WHY_DOMAIN: "domain rank after equal values",
       k.WHY_MARKER: "holding the first team marker"}
# The contest step that decided it (P2P-R2c), for the viewer's mark
WHY_STEP = {k.WHY_HIGHER_CARD: "pairs", k.WHY_LONGER: "unpaired cards", k.WHY_TIEBREAK: "tiebreak",
            k.WHY_DOMAIN: "domain", k.WHY_MARKER: "marker"}
PLACES = ("its score pile", "a venture", "its group deck (develop)", "its group hand (develop)",
          "its group discard (develop)")
SEARCH_KINDS = ("commit", "target", "place")  # search_kernel.KIND_*
# The rule each event line applies (docs/rules/peer-to-peer.md), cited at the line's end;
# rule_of adds the ones that depend on the event's fields.
RULES = {e.EV_SEAT_START: "P2P-S2, D1", e.EV_ASIDE: "P2P-S2, unchosen_ventures=aside", e.EV_SETUP: "P2P-S3, S5",
         e.EV_PASS: "P2P-R2a, D2", e.EV_PLAY: "P2P-R2b", e.EV_DECLARE: "P2P-R2b",
         e.EV_RETARGET: "P2P-R2b, D3", e.EV_CONTEST: "P2P-R2c", e.EV_RETURN: "P2P-R2e",
         e.EV_WIN: "P2P-R2d", e.EV_PLACE: "P2P-R2d, D4", e.EV_OVERFLOW: "P2P-R2d, D5",
         e.EV_REFRESH: "P2P-R3", e.EV_SAVE: "P2P-E6, D6", e.EV_END: "P2P-R5"}
SEARCH_SCORED = ("the search's mean result for the team over its playouts (a win 1, a draw "
                 "1/2); options kept from the base strategy's ranking")
# view_piles' piles (state_kernel P_*): label, team (None: the table), cards shown
PILES = {e.P_CUST: ("customer deck", None, False), 1: ("row", None, True),
         e.P_UNHAPPY: ("unhappy customers", None, True), e.P_OUT: ("out of the game", None, True)}
for _team in range(2):
    PILES[e.P_GDECK + _team] = ("group deck", _team, False)
    PILES[e.P_HAND + _team] = ("group hand", _team, True)
    PILES[e.P_DISC + _team] = ("discard", _team, False)
    PILES[e.P_SCORE + _team] = ("score pile", _team, True)


def _destination(code: int) -> str:
    """A D4 destination code (place_kernel.choose_place's) in words."""
    if code == 0:
        return PLACES[0]
    if code < 100:
        return f"a venture on seat {code - 1}"
    return PLACES[2 + code - 100]


def rule_of(code: int, a: int, b: int, c: int, d: int, in_setup: bool) -> str:
    """The rule ids an event line cites at its end (its fields as the trace rows hold
    them); "" for an unhappy customer, whose line cites P2P-R4 before its cause."""
    if code == e.EV_UNHAPPY:
        return ""
    if code == e.EV_DEAL:
        return "P2P-S5" if in_setup else "P2P-R1"
    if code == e.EV_EFFECT:
        return f"P2P-E{c}"   # the effect codes are the E rules' numbers (constants.EFFECT_*)
    extra = {e.EV_DECLARE: (", E2" if c >= 0 else "") + (", E1" if d >= 0 else ""),
             e.EV_CONTEST: ", E5" if c == k.WHY_TIEBREAK else "",
             e.EV_PLACE: ", E3" if c >= 2 else "",
             e.EV_REFRESH: ", E4" if d else ""}.get(code, "")
    if code == e.EV_END and a == k.TIMEOUT:
        return "P2P-R6"
    return RULES[code] + extra


def _score(code: int) -> float:
    return decode_score(code, SCORE_UNIT, SCORE_INF, SCORE_NAN)


def card_infos(cards) -> list[CardInfo]:
    """The viewer's card list of a CardTable."""
    infos = []
    for i in range(cards.n):
        effect = k.EFFECT_NAMES[cards.effect[i]]
        arg = int(cards.effect_arg[i])
        if effect == "dual_domain":
            effect += f" {k.DOMAIN_NAMES[arg].lower()}"
        elif effect == "develop":
            effect += f" {('deck', 'hand', 'discard')[arg]}"
        elif effect in ("shift", "boost", "extra_draw"):
            effect += f" {arg}"
        domain = k.DOMAIN_NAMES[cards.domain[i]]
        start = int(cards.start[i])   # every field of the card, so an edit of any shows
        label = (f"{cards.names[i]}: {domain} {int(cards.value[i])}, "
                 f"{k.KIND_NAMES[cards.kind[i]]}" + (f", {effect}" if effect else "")
                 + (f", a starting card of team {'AB'[start]}" if start != k.NO_TEAM else ""))
        infos.append(CardInfo(cards.ids[i], cards.names[i], label, domain))
    return infos


def build_story(events: np.ndarray, cards, seat_teams: list[str], header: str,
                rules_summary: str, result: dict[str, Any], strategies: tuple[str, str],
                search_teams: tuple[bool, bool] = (False, False), hand_size: int = 0,
                reshuffle: bool = True) -> Story:
    """The story of one game from its trace events; ``strategies``: each team's strategy
    in words (the options' scores are its), ``search_teams``: which teams search;
    ``hand_size``, ``reshuffle``: the rules' values (hand_size, reshuffle_discard), for a
    refresh that draws fewer than due (hand_size 0: not said)."""
    def build(card: Callable[[int], str]) -> Story:
        return _build(events.tolist(), card, seat_teams, header, rules_summary, result,
                      strategies, search_teams, card_infos(cards), hand_size, reshuffle)

    return keyed(build, list(cards.names), list(cards.ids))


def format_trace(events: np.ndarray, names: tuple[str, ...], seat_teams: list[str],
                 header: str, rules_summary: str, result: dict) -> str:
    """The text trace alone, cards named by ``names`` (the scenario tests' helper)."""
    return _build(events.tolist(), lambda c: names[c] if c >= 0 else "-", seat_teams, header,
                  rules_summary, result, ("the strategy", "the strategy"), (False, False),
                  []).text()


def _build(rows: list, card: Callable[[int], str], seat_teams: list[str], header: str,
           rules_summary: str, result: dict, strategies: tuple[str, str],
           search_teams: tuple[bool, bool], infos: list[CardInfo], hand_size: int = 0,
           reshuffle: bool = True) -> Story:
    def team(t: int) -> str:
        return f"team {'AB'[t]}"

    def cards_text(cs) -> str:
        return ", ".join(card(c) for c in cs) if cs else "no cards"

    setup = Step(0, "Setup", ["", "Setup (P2P-S)"])
    steps = [setup]
    step = setup
    hands: dict[int, list[int]] = {}        # each team's hand at its latest commit (R2a)
    hand_lines: dict[int, Line] = {}         # ... and its line, which holds the D2 options
    passed_hands: dict[int, list[int]] = {}  # ... when both teams passed (end of R2)
    could: dict[tuple[int, int], int] = {}   # (team, customer) -> first assisting subset
    draws: dict[int, list[str]] = {}         # draws and reshuffles since the last refresh
    commits: dict[int, tuple[Decision, list[int]]] = {}  # D2 waiting for its play: options
    played: dict[int, list[int]] = {}        # cards played since the team's commit
    retargeted: dict[int, int] = {}          # team -> the customer it committed to (D3)
    places: dict[int, tuple[Decision, list[int]]] = {}   # D4 options waiting for the place
    search_lead: list[str] = []               # a search decision's option lines (text)
    search_options: list[Option] = []
    unhappy_lines: dict[int, Line] = {}      # customer -> its unhappy line (for its cause)
    snapshot: list[list[int]] = []
    i = 0

    def add(text: str, kind: str = "event", depth: int = 0, **more) -> Line:
        line = Line(text, kind, depth, **more)
        step.lines.append(line)
        return line

    def flush_snapshot():
        if not snapshot:
            return
        piles = _piles(snapshot, card, seat_teams, step.number)
        if step.state:
            step.end_state = piles
        else:
            step.state = piles
        snapshot.clear()

    while i < len(rows):
        rnd, code, a, b, c, d = rows[i]
        i += 1
        if code != e.EV_VIEW_PILE:
            flush_snapshot()
        if code == e.EV_VIEW_PILE:
            snapshot.append([a, b, c, d])
            continue
        if code == e.EV_VIEW_OPTION:
            kind, t = divmod(a, 2)
            if kind == VIEW_COMMIT:
                if t not in commits:
                    decision = Decision(team(t), "commit (P2P-D2)", scored_by(strategies[t]))
                    commits[t] = (decision, [])
                    played[t] = []
                    if t in hand_lines:
                        hand_lines[t].decision = decision
                        hand_lines[t].kind = "decision"
                decision, codes = commits[t]
                hand = hands.get(t, [])
                used = [hand[s] for s in range(len(hand)) if b >> s & 1]
                decision.options.append(Option(
                    f"{' + '.join(map(card, used))} for {card(c)}" if b else "pass",
                    _score(d)))
                codes.append((b, c))
            else:
                if t not in places:
                    places[t] = (Decision(team(t), "place (P2P-D4)", scored_by(strategies[t])),
                                 [])
                decision, codes = places[t]
                decision.options.append(Option(_destination(b), _score(d)))
                codes.append(b)
            continue
        if code == e.EV_VIEW_CAUSE:
            line = unhappy_lines.get(a)
            if line is not None:
                cause = CAUSES[d]
                closest = [team(t) for t, own in ((0, b), (1, c)) if own == d]
                line.text += f"; cause ({cause.name}, {' and '.join(closest)}): {cause.words}"
                line.tag = f"cause: {cause.name}"
            continue
        if code == e.EV_EFFECT and c in (k.EFFECT_PATIENCE, k.EFFECT_TIEBREAK):
            continue  # told by the save / contest line itself
        if code == e.EV_MARKER:
            title = f"Round {rnd} (first team marker: {team(a)})"
            step = Step(rnd, title, ["", title])
            steps.append(step)
            could.clear()
            continue
        if code == e.EV_HAND:  # one event per card: one line per team and commit
            hand = [b] if b >= 0 else []
            while i < len(rows) and rows[i][1] == e.EV_HAND and rows[i][2] == a and rows[i][4] > 0:
                hand.append(rows[i][3])
                i += 1
            hands[a] = hand
            commits.pop(a, None)
            hand_lines[a] = add(f"{team(a)}'s hand before it commits: {cards_text(hand)}")
            continue
        if code == e.EV_DRAW:
            draws.setdefault(a, []).append(card(b))
            continue
        if code == e.EV_RESHUFFLE:
            draws.setdefault(a, []).append(f"[reshuffles its discard ({b} cards) into a new "
                                           "group deck]")
            continue
        if code == e.EV_COULD:
            passed_hands[a] = list(hands.get(a, []))
            could[(a, b)] = c
            continue
        if code == e.EV_SEARCH_OPTION:  # a search decision (search_kernel): its kept options
            base = " (the base strategy's choice)" if b == 0 else ""
            search_lead.append(f"  search {SEARCH_KINDS[a]} option {b}{base}: its team scores "
                               f"{c / 2:g} of {d} playouts, mean {c / 2 / d:.3f}" if d else "")
            search_options.append(Option("", c / 2 / d if d else None,
                                         detail=f"{c / 2:g} of {d} playouts" + base))
            continue
        if code == e.EV_SEARCH_ARG:
            if a == 0:  # commit: (mask, customer, cards), its cards in the events that follow
                cards_played = []
                while i < len(rows) and rows[i][1] == e.EV_SEARCH_CARD:
                    cards_played.append(card(rows[i][2]))
                    i += 1
                words = f"{' + '.join(cards_played)} for {card(c)}" if b else "pass"
            elif a == 1:
                words = card(b)
            else:
                words = _destination(b)
            search_lead.append(f"    {words}")
            if search_options:
                search_options[-1].text = words
            continue
        if code == e.EV_SEARCH_CHOICE:
            decision = Decision(team(c), f"{SEARCH_KINDS[a]} (search)", SEARCH_SCORED,
                                list(search_options))
            if 0 <= b < len(decision.options):
                decision.options[b].chosen = True
            add(f"search: {team(c)} takes option {b} of {d} ({SEARCH_KINDS[a]})", "search",
                decision=decision, lead=list(search_lead))
            search_lead.clear()
            search_options.clear()
            continue
        if code == e.EV_SETUP:
            for t in sorted(draws):
                add(f"{team(t)} draws its first hand: {', '.join(draws[t])} (P2P-S4)")
            draws.clear()
        if code == e.EV_PLAY and a in commits:
            played.setdefault(a, []).append(b)
        if code == e.EV_RETARGET:
            retargeted[a] = b
        if code in (e.EV_DECLARE, e.EV_PASS) and a in commits:
            decision, codes = commits.pop(a)
            hand = hands.get(a, [])
            mask = sum(1 << hand.index(x) for x in played.pop(a, []) if x in hand)
            target = retargeted.pop(a, b) if code == e.EV_DECLARE else -1
            _choose(decision, codes, (mask, target) if code == e.EV_DECLARE else (0, -1))
        text = {
            e.EV_SEAT_START: lambda: f"seat {a} ({team('AB'.index(seat_teams[a]))}) keeps "
                                     f"{card(b)}, not {card(c)}",
            e.EV_ASIDE: lambda: f"seat {a}'s other venture {card(b)} is set aside, out of "
                                "the game",
            e.EV_SETUP: lambda: f"customer deck {a} cards; group decks after the first draw: "
                                f"A {b}, B {c}",
            e.EV_DEAL: lambda: f"customer {card(a)} joins the row",
            e.EV_PASS: lambda: f"{team(a)} passes",
            e.EV_PLAY: lambda: f"{team(a)} plays {card(b)} as {c}",
            e.EV_DECLARE: lambda: f"{team(a)} declares {card(b)}"
                                  + (f", shifting with {card(c)}" if c >= 0 else "")
                                  + (f", wild domain from {card(d)}" if d >= 0 else ""),
            e.EV_RETARGET: lambda: f"{team(a)} (marker) retargets from {card(b)} to {card(c)}",
            e.EV_CONTEST: lambda: f"contest for {card(b)}: {team(a)} wins by {WHY[c]}"
                                  + (" (all pairs equal, one list longer: its unpaired cards "
                                     "counted for nothing)" if d and c != k.WHY_LONGER else ""),
            e.EV_RETURN: lambda: f"{team(a)} takes its cards back into its hand",
            e.EV_WIN: lambda: f"{team(a)} assists {card(b)}",
            e.EV_PLACE: lambda: f"{team(a)} puts {card(b)} into {PLACES[c]}"
                                + (f" on seat {d}" if c == 1 else ""),
            e.EV_OVERFLOW: lambda: f"seat {b} is over its limit: {card(c)} moves to "
                                   f"{team(a)}'s score pile",
            e.EV_EFFECT: lambda: f"{team(a)} uses {k.EFFECT_NAMES[c]} of {card(b)}",
            e.EV_REFRESH: lambda: f"{team(a)} refreshes: draws {b}"
                                  + (f" of {hand_size + d} (hand_size {hand_size}"
                                     + (f" + extra {d}" if d else "")
                                     + ("; its group deck and discard ran out)" if reshuffle
                                        else "; its group deck ran out, reshuffle_discard=false)")
                                     if 0 < hand_size and b < hand_size + d else
                                     f" (extra {d})" if d else "")
                                  + (f", reshuffled its discard {c}x" if c else "")
                                  + (f": {', '.join(draws.pop(a))}" if draws.get(a) else ""),
            e.EV_SAVE: lambda: f"{team(a)} uses patience of {card(b)} to keep {card(c)}"
                               + (", and its wait starts again (patience_resets_wait)" if d else ""),
            e.EV_UNHAPPY: lambda: f"customer {card(a)} turns unhappy (P2P-R4)"
                                  + "".join(_could_text(t, a) for t in sorted(passed_hands)),
            e.EV_END: lambda: f"Game over after round {rnd}: {k.WINNER_NAMES[a]}",
        }

        def _could_text(t: int, customer: int) -> str:
            hand = passed_hands[t]
            mask = could.get((t, customer), 0)
            if mask:
                used = [hand[s] for s in range(len(hand)) if mask >> s & 1]
                return (f"; {team(t)} could have assisted it with {' + '.join(map(card, used))} "
                        f"from its hand ({cards_text(hand)}) when it passed")
            return f"; no subset of {team(t)}'s hand ({cards_text(hand)}) could assist it"

        kind = {e.EV_CONTEST: "contest", e.EV_UNHAPPY: "unhappy", e.EV_END: "end",
                e.EV_PLACE: "decision" if a in places else "event"}.get(code, "event")
        cite = rule_of(code, a, b, c, d, step is setup)
        line = add(text[code]() + (f" ({cite})" if cite else ""), kind)
        if code == e.EV_CONTEST:
            line.tag = f"decided by: {WHY_STEP[c]}"
        if code == e.EV_UNHAPPY:
            unhappy_lines[a] = line
        if code == e.EV_PLACE and a in places:
            decision, codes = places.pop(a)
            dest = 0 if c == 0 else (1 + d if c == 1 else 100 + c - 2)
            _choose(decision, codes, dest)
            line.decision = decision
    flush_snapshot()
    footer = ["", "Scoring (P2P-W): " + ", ".join(f"{key} {value}" for key, value in result.items())]
    return Story("Peer-to-Peer", "round", [*header.split("\n"), rules_summary], steps, footer,
                 infos, result)



def _choose(decision: Decision, codes: list, taken) -> None:
    """Mark the option the game took (``taken``: its code as the options' codes)."""
    for option, code in zip(decision.options, codes):
        if code == taken:
            option.chosen = True
            return


def _piles(snapshot: list[list[int]], card: Callable[[int], str], seat_teams: list[str],
           rnd: int) -> list[Pile]:
    """view_piles' events as the viewer's piles (seats the player count has none of, and
    team B's piles in solo, left out)."""
    piles: dict[int, Pile] = {}
    teams = sorted(set(seat_teams))
    for p, position, value, extra in snapshot:
        if position < 0:
            if p >= e.P_SEAT:
                s = p - e.P_SEAT
                if s >= len(seat_teams):
                    continue
                piles[p] = Pile(f"seat {s}'s ventures", f"team {seat_teams[s]}", value, [])
                continue
            label, t, shown = PILES[p]
            if t is not None and "AB"[t] not in teams:
                continue
            piles[p] = Pile(label, "table" if t is None else f"team {'AB'[t]}", value,
                            [] if shown else None, [] if p == 1 else None)
        elif p in piles:
            piles[p].cards.append(value)
            if piles[p].notes is not None:
                piles[p].notes.append(f"in the row since round {extra}")
    return list(piles.values())
