"""The report's "Why everyone loses" section, for a game whose ``Game.why_lose`` names the
causes its engine records per game (Peer-to-Peer: sim/games/peer_to_peer/why_lose.py).

Per player count (and variant), over the games where everyone lost: the share of their
unhappy customers by cause, for the team that came closest to serving each (deck, draw,
capacity, choice: the first true statement), and each team's own split; a ratio over
games with the game as the unit (delta-method interval, sim.core.stats.ratio_ci). Each
cause comes with what a designer can change for it. No replays: the engine counts them.
"""
from __future__ import annotations

import dataclasses

import polars as pl

from reports.sections import ALWAYS, ExtraSection
from sim.core.loss_causes import cause_columns, cause_shares, main_cause_words
from sim.core.report_metric import Answer

KEY = "why_all_lose"   # the causes' answer (answers.json's question key)


def cause_table(games, why, outcome: str) -> pl.DataFrame:
    """Per players and variant: all-lose games, their unhappy customers and, per cause,
    its share (closest team, then team A and team B) with a 95 % interval."""
    return cause_shares(games, why, outcome, by=("players", "variant"))


def plot(table: pl.DataFrame, why) -> bytes | None:
    """Per player count: the share of unhappy customers by cause (closest team), stacked."""
    from sim.core.plots import COLORS, Figure, FigureCanvasAgg, to_png

    if table.height == 0:
        return None
    fig = Figure(figsize=(8, 3.2), dpi=100, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    labels = [f"{p}p" + (f" {v}" if v != "n/a" else "") for p, v in
              zip(table["players"], table["variant"])]
    bottom = [0.0] * table.height
    for j, cause in enumerate(why.causes):
        share = [100 * (x if x == x else 0.0) for x in table[f"{cause.name}_rate"]]
        ax.bar(labels, share, bottom=bottom, color=COLORS[j % len(COLORS)], label=cause.name)
        bottom = [b + s for b, s in zip(bottom, share)]
    ax.set_ylim(0, 100)
    ax.set_ylabel("% of unhappy customers")
    ax.set_title("Why everyone loses: the unhappy customers of all-lose games by cause",
                 fontsize=9)
    ax.legend(fontsize=7, ncols=len(why.causes))
    ax.grid(axis="y", alpha=0.3)
    return to_png(fig)


def _same_cause(cause: str, group: dict, why, outcome: str):
    """The answer's main cause on another games table (the stronger-play check)."""
    from sim.core.report_metric import in_group

    def recompute(games):
        t = cause_table(in_group(games, group), why, outcome)
        if t.height == 0 or not t["unhappy_customers"][0]:
            return None
        return t[f"{cause}_rate"][0], t[f"{cause}_lo"][0], t[f"{cause}_hi"][0]
    return recompute


def answers(table: pl.DataFrame, why, outcome: str,
            pairings: dict | None = None) -> list[Answer]:
    """One answer per player count and variant; ``pairings``: (players, variant) -> the
    pairings of its runs, named where there is one (the table pools the pairings)."""
    from sim.core.wording import group_label, plural

    out = []
    for r in table.iter_rows(named=True):
        if not r["unhappy_customers"]:
            continue
        found = (pairings or {}).get((r["players"], r["variant"]), set())
        pairing = next(iter(found)) if len(found) == 1 else None
        where = (group_label(r["players"], pairing, r["variant"]) if pairing else
                 plural(r["players"], "player") + (f", {r['variant']}" if r["variant"] != "n/a"
                                              else ""))
        main, words = main_cause_words(r, why)
        causes = tuple({"cause": c.name, "share": r[f"{c.name}_rate"],
                        "lo": r[f"{c.name}_lo"], "hi": r[f"{c.name}_hi"],
                        "words": f"{100 * r[f'{c.name}_rate']:.0f} % {c.words}",
                        "advice": c.advice,
                        "team_a": r[f"{c.name}_a_rate"], "team_b": r[f"{c.name}_b_rate"],
                        **({"lead": main["lead"]} if c.name == main["cause"] else {})}
                       for c in why.causes)
        group = {"players": r["players"], "variant": r["variant"],
                 **({"pairing": pairing} if pairing else {})}
        out.append(Answer("Why does everyone lose? (the unhappy customers by cause)", where,
                          words, "info", main["share"], main["lo"], main["hi"],
                          players=r["players"], order=31, key=KEY, group=group,
                          causes=causes, recompute=_same_cause(main["cause"], group, why, outcome)))
    return out


def lend_reasons(answers: list, why) -> list:
    """``answers`` [(Answer, anchor)] with the all-lose rate's "Why" (``why.rate_key``'s
    answer) naming the main cause of the same games' unhappy customers, from this section's
    answer of the same player count and variant: a rate is not an answer without its
    reasons. A pooled cause answer (no pairing) says it counts every pairing."""
    if why is None or why.rate_key is None:
        return answers
    whys = [a for a, _ in answers if a.key == KEY]
    return [(_with_main_cause(answer, whys) if answer.key == why.rate_key
             and not answer.causes else answer, anchor) for answer, anchor in answers]


def _with_main_cause(rate: Answer, whys: list[Answer]) -> Answer:
    """The all-lose rate with the main cause of the cause answer of its group, if any."""
    w = next((w for w in whys if all(rate.group.get(k) == v for k, v in w.group.items())),
             None)
    if w is None:
        return rate
    main = next(c for c in w.causes if "lead" in c)
    pooled = ("" if "pairing" in w.group or "pairing" not in rate.group
              else ", every pairing at this count")
    return dataclasses.replace(rate, causes=({
        "cause": main["cause"], "share": main["share"], "lo": main["lo"], "hi": main["hi"],
        "kind": "loss_cause",
        "words": (f"{main['lead']}: {100 * main['share']:.0f} % [{100 * main['lo']:.0f}, "
                  f"{100 * main['hi']:.0f}] of the unhappy customers{pooled}; every cause "
                  f"and what changes it: '{w.question.split(' (')[0]}'")},))


def build(path, rs, ctx) -> ExtraSection | None:
    from sim.core.game import resolve_game

    game = resolve_game(rs.game)
    why = game.why_lose
    if why is None:
        return None
    if not set(cause_columns(why)) <= set(rs.columns):
        return ExtraSection(
            name="why_lose", title="Why everyone loses",
            description="These runs lack the columns of the causes of unhappy customers (they "
                        "were played by an older simulator): run them again to see why.")
    outcome = game.outcome_column
    table = cause_table(rs.games, why, outcome)
    if table.height == 0:
        return None
    description = (
        "Each customer that turned unhappy in a game where everyone lost, classified by the "
        "first true statement, for the team that came closest to serving it: "
        + "; ".join(f"{c.name}: {c.words}" for c in why.causes)
        + ". 'Could assist' reads the assist rules as reachable sums of card values (boost, "
        "dual_domain, wild_domain and shift counting; for 'choice' only the effects still "
        "unused). Shares are ratios over games (the game is the unit, delta-method 95 % "
        "intervals); the _a and _b columns are each team's own split. What a designer can "
        "change: " + "; ".join(f"{c.name}: {c.advice}" for c in why.causes) + ".")
    return ExtraSection(name="why_lose", title="Why everyone loses", description=description,
                        table=table, png=plot(table, why),
                        answers=answers(table, why, outcome, _pairings(rs)),
                        order=10)


def _pairings(rs) -> dict[tuple[int, str], set[str]]:
    out: dict[tuple[int, str], set[str]] = {}
    for run in rs.runs:
        out.setdefault((run.players, run.variant), set()).add(run.pairing)
    return out


ALWAYS.append(build)
