"""Turn the kernel's trace buffer into words, round by round, with cards by name."""
from __future__ import annotations

import numpy as np

from sim.games.peer_to_peer import constants as k
from sim.games.peer_to_peer import engine_kernel as e

WHY = {k.WHY_HIGHER_CARD: "a higher card in the pair-by-pair comparison",
       k.WHY_LONGER: "more cards after equal pairs",
       k.WHY_TIEBREAK: "its `tiebreak` venture",
       k.WHY_DOMAIN: "domain rank after equal values",
       k.WHY_MARKER: "holding the first team marker"}
PLACES = ("its score pile", "a venture", "its group deck (develop)", "its group hand (develop)",
          "its group discard (develop)")
SEARCH_KINDS = ("commit", "target", "place")  # search_kernel.KIND_*


def _destination(code: int) -> str:
    """A D4 destination code (place_kernel.choose_place's) in words."""
    if code == 0:
        return PLACES[0]
    if code < 100:
        return f"a venture on seat {code - 1}"
    return PLACES[2 + code - 100]


def format_trace(events: np.ndarray, names: tuple[str, ...], seat_teams: list[str],
                 header: str, rules_summary: str, result: dict) -> str:
    def card(c: int) -> str:
        return names[c] if c >= 0 else "-"

    def team(t: int) -> str:
        return f"team {'AB'[t]}"

    def cards_text(cs) -> str:
        return ", ".join(card(c) for c in cs) if cs else "no cards"

    lines = [header, rules_summary, "", "Setup (P2P-S)"]
    rows = events.tolist()
    hands: dict[int, list[int]] = {}        # each team's hand at its latest commit (R2a)
    passed_hands: dict[int, list[int]] = {}  # ... when both teams passed (end of R2)
    could: dict[tuple[int, int], int] = {}   # (team, customer) -> first assisting subset
    draws: dict[int, list[str]] = {}         # draws and reshuffles since the last refresh
    i = 0
    while i < len(rows):
        rnd, code, a, b, c, d = rows[i]
        i += 1
        if code == e.EV_EFFECT and c in (k.EFFECT_PATIENCE, k.EFFECT_TIEBREAK):
            continue  # told by the save / contest line itself
        if code == e.EV_MARKER:
            lines += ["", f"Round {rnd} (first team marker: {team(a)})"]
            could.clear()
            continue
        if code == e.EV_HAND:  # one event per card: one line per team and commit
            hand = [b] if b >= 0 else []
            while i < len(rows) and rows[i][1] == e.EV_HAND and rows[i][2] == a and rows[i][4] > 0:
                hand.append(rows[i][3])
                i += 1
            hands[a] = hand
            lines.append(f"  {team(a)}'s hand before it commits: {cards_text(hand)}")
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
            lines.append(f"  search {SEARCH_KINDS[a]} option {b}{base}: its team scores {c / 2:g} "
                         f"of {d} playouts, mean {c / 2 / d:.3f}" if d else "")
            continue
        if code == e.EV_SEARCH_ARG:
            if a == 0:  # commit: (mask, customer, cards), its cards in the events that follow
                played = []
                while i < len(rows) and rows[i][1] == e.EV_SEARCH_CARD:
                    played.append(card(rows[i][2]))
                    i += 1
                lines.append(f"    {' + '.join(played)} for {card(c)}" if b else "    pass")
            elif a == 1:
                lines.append(f"    {card(b)}")
            else:
                lines.append(f"    {_destination(b)}")
            continue
        if code == e.EV_SEARCH_CHOICE:
            lines.append(f"  search: {team(c)} takes option {b} of {d} ({SEARCH_KINDS[a]})")
            continue
        if code == e.EV_SETUP:
            for t in sorted(draws):
                lines.append(f"  {team(t)} draws its first hand (S4): {', '.join(draws[t])}")
            draws.clear()
        text = {
            e.EV_SEAT_START: lambda: f"seat {a} ({team('AB'.index(seat_teams[a]))}) keeps "
                                     f"{card(b)}, not {card(c)} (D1)",
            e.EV_ASIDE: lambda: f"seat {a}'s other venture {card(b)} is set aside, out of "
                                "the game (P2P-S2, unchosen_ventures=aside)",
            e.EV_SETUP: lambda: f"customer deck {a} cards; group decks after the first draw: "
                                f"A {b}, B {c}",
            e.EV_DEAL: lambda: f"customer {card(a)} joins the row",
            e.EV_PASS: lambda: f"{team(a)} passes",
            e.EV_PLAY: lambda: f"{team(a)} plays {card(b)} as {c}",
            e.EV_DECLARE: lambda: f"{team(a)} declares {card(b)}"
                                  + (f", shifting with {card(c)}" if c >= 0 else "")
                                  + (f", wild domain from {card(d)}" if d >= 0 else ""),
            e.EV_RETARGET: lambda: f"{team(a)} (marker) retargets from {card(b)} to {card(c)} (D3)",
            e.EV_CONTEST: lambda: f"contest for {card(b)}: {team(a)} wins by {WHY[c]}"
                                  + (" (all pairs equal, one list longer: its unpaired cards "
                                     "counted for nothing)" if d and c != k.WHY_LONGER else "")
                                  + " (P2P-R2c)",
            e.EV_RETURN: lambda: f"{team(a)} takes its cards back into its hand (P2P-R2e)",
            e.EV_WIN: lambda: f"{team(a)} assists {card(b)}",
            e.EV_PLACE: lambda: f"{team(a)} puts {card(b)} into {PLACES[c]}"
                                + (f" on seat {d}" if c == 1 else ""),
            e.EV_OVERFLOW: lambda: f"seat {b} is over its limit: {card(c)} moves to "
                                   f"{team(a)}'s score pile (D5)",
            e.EV_EFFECT: lambda: f"{team(a)} uses {k.EFFECT_NAMES[c]} of {card(b)}",
            e.EV_REFRESH: lambda: f"{team(a)} refreshes: draws {b}"
                                  + (f" (extra {d})" if d else "")
                                  + (f", reshuffled its discard {c}x" if c else "")
                                  + (f": {', '.join(draws.pop(a))}" if draws.get(a) else ""),
            e.EV_SAVE: lambda: f"{team(a)} uses patience of {card(b)} to keep {card(c)} (D6)"
                               + (", and its wait starts again (patience_resets_wait)" if d else ""),
            e.EV_UNHAPPY: lambda: f"customer {card(a)} turns unhappy"
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

        lines.append("  " + text[code]())
    lines += ["", "Scoring (P2P-W): " + ", ".join(f"{key} {value}" for key, value in result.items())]
    return "\n".join(lines)
