"""The engine's numeric trace rows (constants.EV_*) as a story (sim.core.story), turn by
turn: the table at each turn's start, every action with the options the seat weighed and
their scores, fights with the reason that decided them. The text trace is the story's text."""
from __future__ import annotations

from typing import Callable

import numpy as np

from sim.core.story import (
    CardInfo, Decision, Line, Option, Pile, Step, Story, decode_score, keyed, scored_by,
)
from sim.games.plai import constants as c
from sim.games.plai.view_kernel import SCORE_INF, SCORE_NAN, SCORE_UNIT

# The rule each event line applies (docs/rules/plai.md), cited at the line's end; rule_of
# adds the ones that depend on the event's fields.
RULES = {c.EV_ACTION: "PLAI-T1, D1", c.EV_DRAW: "PLAI-T1", c.EV_JOIN: "PLAI-T1, D2",
         c.EV_DEAL: "PLAI-F5", c.EV_MARKET_EVENT: "PLAI-T3", c.EV_EVENT_LOSS: "PLAI-T3",
         c.EV_EVENT_GAIN: "PLAI-T3", c.EV_ATTACK: "PLAI-F1, D2", c.EV_PLAY: "PLAI-F1",
         c.EV_DEFEND: "PLAI-F1, D3", c.EV_NEGATE: "PLAI-F2, D5", c.EV_EFFECT_DISCARD: "PLAI-F2",
         c.EV_FIGHT: "PLAI-F3, F4", c.EV_SPOILS: "PLAI-F5", c.EV_SPECIAL_LOSS: "PLAI-C3",
         c.EV_BANKRUPT: "PLAI-T5", c.EV_END: "PLAI-T6", c.EV_RESHUFFLE: "PLAI-T4",
         c.EV_POOL_EXCESS: "PLAI-T7, D6"}
SEARCH_SCORED = ("the search's mean result for the seat over its playouts (a win 1); "
                 "options kept from the base strategy's ranking")
PILES = {c.P_DECK: ("deck", False), c.P_DISCARD: ("discard", False),
         c.P_POOL: ("maintainers' pool", True), c.P_FUNDING: ("funding at stake", False),
         c.P_EVENTS: ("Market Events", True), c.P_ATTACK: ("attack", True),
         c.P_DEFENSE: ("defense", True)}


def _score(code: int) -> float:
    return decode_score(code, SCORE_UNIT, SCORE_INF, SCORE_NAN)


def card_infos(cards) -> list[CardInfo]:
    """The viewer's card list of a CardTable; its labels hold every field of a card (the
    numeral and copies too), so an edit of any of them shows."""
    def label(i: int) -> str:
        numeral = c.NUMERAL_NAMES[cards.numerals[i]] or "none"
        return f"{cards.describe(i)}, numeral {numeral}, {int(cards.copies[i])} copies"

    return [CardInfo(str(cards.ids[i]), cards.names[i], label(i),
                     c.TYPE_NAMES[cards.types[i]]) for i in range(len(cards.ids))]


def build_story(rows: np.ndarray, cards, header: str, footer: list[str], truncated: bool,
                strategies: list[str]) -> Story:
    """The story of one game from its trace rows; ``strategies``: each seat's strategy in
    words (the options' scores are its)."""
    kinds = [int(t) for t in cards.types]

    def build(card_words: Callable[[int], str]) -> Story:
        return _build(rows.tolist(), card_words, lambda card: kinds[card], header, footer,
                      truncated, strategies, card_infos(cards))

    described = [cards.describe(i) for i in range(len(cards.ids))]
    return keyed(build, described, [f"#{i}" for i in cards.ids])

TRACE_CAPACITY = 200_000   # trace rows a replayed game may write (a game writes ~1,500)


def format_trace(rows: np.ndarray, card_name, header: str, footer: list[str],
                 truncated: bool, card_kind=lambda card: -1) -> str:
    """The text trace alone: ``card_name(card_id) -> str``, ``card_kind(card_id) ->
    TYPE_*``; rows are trace[i, TR_*]."""
    return _build(rows.tolist(), card_name, card_kind, header, footer, truncated,
                  [], []).text()


def _build(rows: list, card_name, card_kind, header: str, footer: list[str], truncated: bool,
           strategies: list[str], infos: list[CardInfo]) -> Story:
    setup = Step(0, "Before the first turn")
    steps = [setup]
    step = setup
    snapshot: list[list[int]] = []
    options: list[tuple[Option, tuple[int, int, int]]] = []   # D1 waiting for the action
    search_lead: list[str] = []
    search_options: list[Option] = []
    maintainer = False   # whether the turn is a maintainer's (PLAI-T7)

    def flush_snapshot():
        if not snapshot:
            return
        piles = _piles(snapshot)
        if step.state:
            step.end_state = piles
        else:
            step.state = piles
        snapshot.clear()

    for turn, code, a, b, d, e in rows:
        if code != c.EV_VIEW_PILE:
            flush_snapshot()
        if code == c.EV_VIEW_PILE:
            snapshot.append([a, b, d, e])
            continue
        if code == c.EV_VIEW_OPTION:
            options.append((Option(_search_option_text(a, b, d, c.SEARCH_ACTION, card_name),
                                   _score(e)), (a, b, d)))
            continue
        text = _describe(code, a, b, d, e, card_name, card_kind)
        if code == c.EV_TURN:
            maintainer = bool(b)
            title = f"turn {turn}: {text}"
            step = Step(turn, title, [title])
            steps.append(step)
            continue
        if code == c.EV_SEARCH_OPTION:
            search_lead.append("    " + text)
            search_options.append(Option("", b / d if d else None,
                                         detail=f"{b} of {d} playouts"
                                         + (" (the base strategy's choice)" if e == 0 else "")))
            continue
        if code in (c.EV_SEARCH_ARG, c.EV_SEARCH_CARD):
            search_lead.append("    " + text)
            if search_options:
                words = text.strip()
                last = search_options[-1]
                last.text = words if code == c.EV_SEARCH_ARG else f"{last.text}, {words}"
            continue
        if not text:
            continue
        depth = (len(text) - len(text.lstrip(" "))) // 2
        line = Line(text.strip() if code == c.EV_SEARCH_CHOICE else
                    f"{text.strip()} ({rule_of(code, a, b, d, card_kind, maintainer)})",
                    _kind(code), depth)
        step.lines.append(line)
        if code == c.EV_SEARCH_CHOICE:
            decision = Decision(f"seat {d}", f"{c.SEARCH_KIND_NAMES[a]} (search)", SEARCH_SCORED,
                                list(search_options))
            if 0 <= b < len(decision.options):
                decision.options[b].chosen = True
            line.decision, line.lead = decision, list(search_lead)
            search_lead.clear()
            search_options.clear()
        if code == c.EV_ACTION and options:
            decision = Decision(f"seat {a}", "action (PLAI-D1, D4)",
                                scored_by(strategies[a] if a < len(strategies) else "the"),
                                [option for option, _ in options])
            taken = (b, d if b == c.ACT_SPECIAL else -1,
                     e if b in (c.ACT_SPECIAL, c.ACT_TAKEOVER) else -1)
            for option, code_of in options:
                if code_of == taken:
                    option.chosen = True
                    break
            line.decision, line.kind = decision, "decision"
            options.clear()
        if code == c.EV_FIGHT:
            line.tag = f"decided by: {c.WHY_NAMES[e]}"
    flush_snapshot()
    tail = (["(trace cut short: the trace buffer is full)"] if truncated else []) + list(footer)
    return Story("PLAI", "turn", header.split("\n"), steps, tail, infos,
                 line_prefix="    ", depth_prefix="  ")


def rule_of(code: int, a: int, b: int, d: int, card_kind, maintainer: bool) -> str:
    """The rule ids an event line cites (its fields as the trace rows hold them;
    ``maintainer``: the turn is a maintainer's)."""
    if code == c.EV_DRAW and maintainer:
        return "PLAI-T7"
    if code == c.EV_ACTION and maintainer:
        return "PLAI-T7, D1" + (", D4" if b in (c.ACT_SPECIAL, c.ACT_TAKEOVER) else "")
    if code == c.EV_DRAWN:
        return ("PLAI-T3" if card_kind(b) == c.MARKET_EVENT else "PLAI-T7" if d == c.P_POOL
                else "PLAI-T2" if d == c.P_FUNDING else "PLAI-T1")
    if code == c.EV_ACTION and b in (c.ACT_SPECIAL, c.ACT_TAKEOVER):
        return "PLAI-T1, D1, D4"
    if code == c.EV_PLAY and d < 0:
        return "PLAI-T7, D6"   # the maintainers' help
    return RULES[code]


def _kind(code: int) -> str:
    return {c.EV_FIGHT: "contest", c.EV_BANKRUPT: "unhappy", c.EV_END: "end",
            c.EV_SEARCH_CHOICE: "search"}.get(code, "event")




def _piles(snapshot: list[list[int]]) -> list[Pile]:
    piles: dict[int, Pile] = {}
    for p, position, value, extra in snapshot:
        if position < 0:
            if p >= c.P_HAND0:
                seat = p - c.P_HAND0
                label = "hand" if extra < 0 else f"hand (Open Source Maintainer since turn {extra})"
                piles[p] = Pile(label, f"seat {seat}", value, [])
                continue
            label, shown = PILES[p]
            piles[p] = Pile(label, "table", value, [] if shown else None)
        elif p in piles:
            piles[p].cards.append(value)
    return list(piles.values())


def _describe(code: int, a: int, b: int, d: int, e: int, card_name, card_kind) -> str:
    side = ("attack", "defense")
    if code == c.EV_TURN:
        who = "maintainer" if b else "startup"
        held = "pool" if b else "hand"
        return f"seat {a} ({who}, {held} {d} cards, deck {e})"
    if code == c.EV_ACTION:
        action = c.ACTION_NAMES[b]
        if b == c.ACT_SPECIAL:
            return f"plays {card_name(d)} on seat {e}"
        if b == c.ACT_TAKEOVER:
            return f"launches a hostile takeover of seat {e}"
        return f"takes {action}" if b != c.ACT_PASS else "passes"
    if code == c.EV_DRAWN:
        if card_kind(b) == c.MARKET_EVENT:
            return (f"draws Market Event {card_name(b)}: it resolves at once and is not "
                    "replaced")
        where = ("into the pool" if d == c.P_POOL else "face down" if d == c.P_FUNDING
                 else "into its hand")
        return f"draws {card_name(b)} {where}"
    if code == c.EV_DRAW:
        if d == c.ACT_FAMILY:
            where = "the pool" if e else "its hand"
            return f"family funding: {b} card(s) added to {where}"
        return f"{c.ACTION_NAMES[d]}: {b} card(s) face down at stake"
    if code == c.EV_JOIN:
        return (f"seat {a} joins the attack ({'bluffing' if b == c.MODE_BLUFF else 'real'}; "
                "joint venture attack)")
    if code == c.EV_SEARCH_OPTION:
        mean = b / d if d else float("nan")
        base = " (the base strategy's choice)" if e == 0 else ""
        return (f"  search {c.SEARCH_KIND_NAMES[a]} option {e}{base}: seat wins {b} of {d} "
                f"playouts, mean {mean:.3f}")
    if code == c.EV_SEARCH_ARG:
        return "    " + _search_option_text(a, b, d, e, card_name)
    if code == c.EV_SEARCH_CARD:
        return f"      card {card_name(a)}"
    if code == c.EV_SEARCH_CHOICE:
        return f"  search: seat {d} takes option {b} of {e} ({c.SEARCH_KIND_NAMES[a]})"
    if code in (c.EV_RESOLVE, c.EV_RNG):
        return ""   # replay data for the tests (the negate budgets, the random state)
    if code == c.EV_DEAL:
        return f"  seat {a} is dealt {card_name(b)}"
    if code == c.EV_MARKET_EVENT:
        if d:
            return f"Market Event {card_name(a)} drawn during another event: discarded, no effect"
        return f"Market Event {card_name(a)} (drawn by seat {b}) resolves"
    if code == c.EV_EVENT_LOSS:
        return f"seat {a} discards {b} card(s) at random"
    if code == c.EV_EVENT_GAIN:
        return f"seat {a} draws {b} card(s)"
    if code == c.EV_ATTACK:
        return (f"seat {a} attacks seat {b} ({c.FIGHT_NAMES[e]}, "
                f"{'bluffing' if d == c.MODE_BLUFF else 'with a real attack'})")
    if code == c.EV_PLAY:
        by = "maintainers' help" if d < 0 else f"seat {d}"
        return f"  {side[a]}: {card_name(b)} ({by})"
    if code == c.EV_DEFEND:
        return f"seat {a} " + ("does not defend" if b == c.MODE_NONE else
                               "defends" + (" bluffing" if b == c.MODE_BLUFF else ""))
    if code == c.EV_NEGATE:
        return f"seat {a} plays {card_name(b)}: negates a rival effect"
    if code == c.EV_EFFECT_DISCARD:
        return f"  effect discards the {side[a]}'s {card_name(b)} before counting"
    if code == c.EV_FIGHT:
        return (f"{side[a]} wins: attack {b} vs defense {d} ({c.WHY_NAMES[e]})")
    if code == c.EV_SPOILS:
        if e:
            return f"the attackers were dealt the funding's {b} card(s)"
        source = "the funding" if d < 0 else f"seat {d}'s hand"
        return f"seat {a} takes {b} card(s) from {source}"
    if code == c.EV_SPECIAL_LOSS:
        if d < 0:
            return f"seat {a} discards {b} card(s) at random"
        return f"seat {d} takes {b} random card(s) from seat {a}"
    if code == c.EV_BANKRUPT:
        return f"seat {a} has no cards: bankrupt, now an Open Source Maintainer"
    if code == c.EV_END:
        if a == c.OUT_SEAT:
            return f"game over: seat {b} is the last startup and wins"
        if a == c.OUT_MAINTAINERS:
            return "game over: no startup left, the Open Source Maintainers win"
        return "game over: max_turns reached, stalemate"
    if code == c.EV_RESHUFFLE:
        return f"the discard pile ({a} cards) is shuffled into a new deck"
    if code == c.EV_POOL_EXCESS:
        return f"pool over its cap: {card_name(a)} discarded"
    return f"(event {code}: {a} {b} {d} {e})"


def _search_option_text(a: int, b: int, d: int, kind: int, card_name) -> str:
    """An evaluated option's words: an action (a = ACT_*, b its card or -1, d its target
    or -1) or a fight play (a = MODE_*, b its card count; a row per card follows)."""
    if kind == c.SEARCH_ACTION:
        if a == c.ACT_SPECIAL:
            return f"plays {card_name(b)} on seat {d}"
        if a == c.ACT_TAKEOVER:
            return f"hostile takeover of seat {d}"
        return c.ACTION_NAMES[a]
    mode = {c.MODE_NONE: "no defense", c.MODE_REAL: "real", c.MODE_BLUFF: "bluff"}[a]
    return f"{mode} with {b} card(s)"
