"""Turn the engine's numeric trace rows (constants.EV_*) into words, turn by turn."""
from __future__ import annotations

import numpy as np

from sim.games.plai import constants as c

TRACE_CAPACITY = 200_000   # trace rows a replayed game may write (a game writes ~1,500)


def format_trace(rows: np.ndarray, card_name, header: str, footer: list[str],
                 truncated: bool, card_kind=lambda card: -1) -> str:
    """``card_name(card_id) -> str``, ``card_kind(card_id) -> TYPE_*``; rows are
    trace[i, TR_*]."""
    lines = [header]
    for turn, code, a, b, d, e in rows.tolist():
        text = _describe(code, a, b, d, e, card_name, card_kind)
        if code == c.EV_TURN:
            lines.append(f"turn {turn}: {text}")
        elif text:
            lines.append("    " + text)
    if truncated:
        lines.append("(trace cut short: the trace buffer is full)")
    lines.extend(footer)
    return "\n".join(lines)


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
