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


def format_trace(events: np.ndarray, names: tuple[str, ...], seat_teams: list[str],
                 header: str, rules_summary: str, result: dict) -> str:
    def card(c: int) -> str:
        return names[c] if c >= 0 else "-"

    def team(t: int) -> str:
        return f"team {'AB'[t]}"

    lines = [header, rules_summary, "", "Setup (P2P-S)"]
    for rnd, code, a, b, c, d in events.tolist():
        if code == e.EV_EFFECT and c in (k.EFFECT_PATIENCE, k.EFFECT_TIEBREAK):
            continue  # told by the save / contest line itself
        if code == e.EV_MARKER:
            lines += ["", f"Round {rnd} (first team marker: {team(a)})"]
            continue
        text = {
            e.EV_SEAT_START: lambda: f"seat {a} ({team('AB'.index(seat_teams[a]))}) keeps "
                                     f"{card(b)}, returns {card(c)} (D1)",
            e.EV_SETUP: lambda: f"customer deck {a} cards; group decks after the first draw: "
                                f"A {b}, B {c}",
            e.EV_DEAL: lambda: f"customer {card(a)} joins the row",
            e.EV_PASS: lambda: f"{team(a)} passes",
            e.EV_PLAY: lambda: f"{team(a)} plays {card(b)} as {c}",
            e.EV_DECLARE: lambda: f"{team(a)} declares {card(b)}"
                                  + (f", shifting with {card(c)}" if c >= 0 else "")
                                  + (f", wild domain from {card(d)}" if d >= 0 else ""),
            e.EV_RETARGET: lambda: f"{team(a)} (marker) retargets from {card(b)} to {card(c)} (D3)",
            e.EV_CONTEST: lambda: f"contest for {card(b)}: {team(a)} wins by {WHY[c]} (P2P-R2c)",
            e.EV_RETURN: lambda: f"{team(a)} takes its cards back into its hand (P2P-R2e)",
            e.EV_WIN: lambda: f"{team(a)} assists {card(b)}",
            e.EV_PLACE: lambda: f"{team(a)} puts {card(b)} into {PLACES[c]}"
                                + (f" on seat {d}" if c == 1 else ""),
            e.EV_OVERFLOW: lambda: f"seat {b} is over its limit: {card(c)} moves to "
                                   f"{team(a)}'s score pile (D5)",
            e.EV_EFFECT: lambda: f"{team(a)} uses {k.EFFECT_NAMES[c]} of {card(b)}",
            e.EV_REFRESH: lambda: f"{team(a)} refreshes: draws {b}"
                                  + (f" (extra {d})" if d else "")
                                  + (f", reshuffled its discard {c}x" if c else ""),
            e.EV_SAVE: lambda: f"{team(a)} uses patience of {card(b)} to keep {card(c)} (D6)",
            e.EV_UNHAPPY: lambda: f"customer {card(a)} turns unhappy",
            e.EV_END: lambda: f"Game over after round {rnd}: {k.WINNER_NAMES[a]}",
        }[code]()
        lines.append("  " + text)
    lines += ["", "Scoring (P2P-W): " + ", ".join(f"{key} {value}" for key, value in result.items())]
    return "\n".join(lines)
