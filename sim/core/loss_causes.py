"""Why everyone loses, from the causes a game's engine records per game (sim.core.game.
WhyLose; Peer-to-Peer: sim/games/peer_to_peer/why_lose.py): the share of the unhappy
customers of all-lose games by cause, with 95 % intervals, and the words that name the
main one. The run summary and the report's "Why everyone loses" section both read them
here, so the two say the same.

A share is a ratio over games (the game is the unit: its causes are counted together), with
a delta-method interval (sim.core.stats.ratio_ci). The main cause (the largest share) is
named as such only when its lead over the next one has an interval above 0, the same ratio
of the per-game difference of their counts; otherwise the words say it is not clearly
ahead, and give both causes' advice.
"""
from __future__ import annotations

from typing import Any

import numpy as np
import polars as pl

from sim.core.stats import ratio_ci


def cause_columns(why) -> list[str]:
    """The result columns the causes are read from: each cause's for the team that came
    closest, then team A's and team B's."""
    return [why.column(c.name, t) for c in why.causes for t in (None, "a", "b")]


def lost_to(games, why, outcome: str, cause: str) -> np.ndarray:
    """Per game, the customers that turned unhappy for ``cause`` in a game everyone lost (0
    for a game someone won), as float64: what a paired comparison and a sweep metric add
    up. ``games``: a polars DataFrame or a mapping of column arrays."""
    lost = np.asarray(games[outcome]) == why.code
    return np.asarray(games[why.column(cause)], dtype=np.float64) * lost


def cause_shares(games, why, outcome: str, by: tuple[str, ...] = ()) -> pl.DataFrame:
    """Per group of ``by`` (one row without): the all-lose games, their unhappy customers and,
    per cause, its share (for the team that came closest, then team A's and team B's) as
    ``<cause>[_a|_b]_rate`` with ``_lo`` and ``_hi``; then ``main_cause`` (the largest
    share), ``runner_up`` (the next) and ``main_lead`` (the first's share minus the
    second's) with ``main_lead_lo`` and ``main_lead_hi``."""
    names = [c.name for c in why.causes]
    cols = cause_columns(why)
    lost = games.lazy().filter(pl.col(outcome) == why.code)
    total = sum(pl.col(why.column(n)).cast(pl.Float64) for n in names)
    aggs = [pl.len().alias("all_lose_games"), total.sum().alias("unhappy"),
            (total * total).sum().alias("_yy")]
    for c in cols:
        x = pl.col(c).cast(pl.Float64)
        aggs += [x.sum().alias(f"{c}__x"), (x * x).sum().alias(f"{c}__xx"),
                 (x * total).sum().alias(f"{c}__xy")]
    for i, a in enumerate(names):     # the cross sums a lead's interval needs
        for b in names[i + 1:]:
            aggs.append((pl.col(why.column(a)).cast(pl.Float64)
                         * pl.col(why.column(b)).cast(pl.Float64)).sum().alias(f"{a}*{b}"))
    t = (lost.group_by(*by).agg(aggs).sort(*by) if by else lost.select(aggs)).collect(
        engine="streaming")
    rows = []
    for r in t.iter_rows(named=True):
        row = {key: r[key] for key in by}
        row.update({"all_lose_games": r["all_lose_games"],
                    "unhappy_customers": int(r["unhappy"] or 0)})
        for c in cols:
            rate, lo, hi = ratio_ci(r[f"{c}__x"] or 0.0, r[f"{c}__xx"] or 0.0,
                                    r[f"{c}__xy"] or 0.0, r["unhappy"] or 0.0,
                                    r["_yy"] or 0.0, r["all_lose_games"])
            stem = c[len("unhappy_"):]
            row.update({f"{stem}_rate": rate, f"{stem}_lo": lo, f"{stem}_hi": hi})
        rows.append({**row, **_lead(r, row, names, why)})
    return pl.DataFrame(rows)


def _lead(sums: dict[str, Any], row: dict[str, Any], names: list[str], why) -> dict[str, Any]:
    """The largest share, the next, and the first's lead over the second with its interval:
    the ratio of the per-game difference of their counts to the unhappy customers."""
    first, second = sorted(names, key=lambda n: -row[f"{n}_rate"]
                           if row[f"{n}_rate"] == row[f"{n}_rate"] else 1.0)[:2]
    a, b = (f"{why.column(n)}__" for n in (first, second))
    cross = sums.get(f"{first}*{second}", sums.get(f"{second}*{first}")) or 0.0
    lead, lo, hi = ratio_ci(
        (sums[a + "x"] or 0.0) - (sums[b + "x"] or 0.0),
        (sums[a + "xx"] or 0.0) + (sums[b + "xx"] or 0.0) - 2 * cross,
        (sums[a + "xy"] or 0.0) - (sums[b + "xy"] or 0.0),
        sums["unhappy"] or 0.0, sums["_yy"] or 0.0, sums["all_lose_games"],
        wilson_floor=False, clip=(-1.0, 1.0))
    return {"main_cause": first, "runner_up": second, "main_lead": lead,
            "main_lead_lo": lo, "main_lead_hi": hi}


def main_cause_words(row: dict[str, Any], why) -> tuple[dict[str, Any], str]:
    """The main cause of one row of ``cause_shares`` (its name, share and interval, what it
    means and what a designer can change for it) and the answer in words: "most often deck
    (deck 47 %, draw 21 %, ...; N unhappy customers of M all-lose games); to change it: ...",
    or, when its lead over the next cause has an interval holding 0, "most often deck, not
    clearly ahead of draw (...); to change it: ...; or ..." with both causes' advice.
    ``main["lead"]`` is the words' head ("most often deck"), for a line that has no room
    for the rest."""
    causes = {c.name: {"cause": c.name, "share": row[f"{c.name}_rate"],
                       "lo": row[f"{c.name}_lo"], "hi": row[f"{c.name}_hi"],
                       "means": c.words, "advice": c.advice} for c in why.causes}
    main, second = causes[row["main_cause"]], causes[row["runner_up"]]
    split = ", ".join(f"{c['cause']} {100 * c['share']:.0f} %" for c in causes.values())
    counted = (f"({split}; {row['unhappy_customers']:,} unhappy customers of "
               f"{row['all_lose_games']:,} all-lose games)")
    if not row["main_lead_lo"] > 0:     # NaN too: one game gives no interval
        main["lead"] = f"most often {main['cause']}, not clearly ahead of {second['cause']}"
        return main, (f"{main['lead']} {counted}; to change it: {main['advice']}; or "
                      f"{second['advice']}")
    # "mostly" only for a majority: the largest of four shares can be well under half
    main["lead"] = f"{'mostly' if main['share'] > 0.5 else 'most often'} {main['cause']}"
    return main, f"{main['lead']} {counted}; to change it: {main['advice']}"


def why_everyone_loses(games, why, outcome: str) -> dict[str, Any] | None:
    """A run summary's answer (one games table): the words naming the main cause, the runner
    up and the main cause's lead with its interval, and every cause's share with its 95 %
    interval. None with fewer than two all-lose games (no interval), none of them with an
    unhappy customer, or results without the causes' columns (an older run)."""
    if not set(cause_columns(why)) <= set(games.lazy().collect_schema().names()):
        return None
    row = cause_shares(games, why, outcome).row(0, named=True)
    if row["all_lose_games"] < 2 or not row["unhappy_customers"]:
        return None
    main, words = main_cause_words(row, why)
    return {"words": words, "main_cause": main["cause"], "runner_up": row["runner_up"],
            "main_lead": [row["main_lead"], row["main_lead_lo"], row["main_lead_hi"]],
            "all_lose_games": row["all_lose_games"],
            "unhappy_customers": row["unhappy_customers"],
            "causes": [{"cause": c.name, "share": row[f"{c.name}_rate"],
                        "lo": row[f"{c.name}_lo"], "hi": row[f"{c.name}_hi"]}
                       for c in why.causes]}


class PairedLossCauses:
    """Why an edit changed the all-lose rate: per cause, the unhappy customers of all-lose
    games per game on both sides of the same games (0 for a game someone won), and their
    paired difference with a normal interval, the game as the unit (``PairedTally``'s
    ``also``; sim.studies.compare). The differences add up to the change in all-lose
    games' unhappy customers, so the largest says where the edit's all-lose games come
    from, or go."""

    def __init__(self, why, outcome: str):
        self.why, self.outcome = why, outcome
        self.names = [c.name for c in why.causes]
        self.columns = (outcome, *(why.column(n) for n in self.names))
        self.n = 0
        # per cause and the total: baseline sum, edit sum, sum of d, sum of d^2
        self.sums = np.zeros((len(self.names) + 1, 4))

    @classmethod
    def of(cls, game) -> "PairedLossCauses | None":
        """The tally for ``game`` (its ``why_lose`` and outcome column), or None for a game
        whose engine records no causes."""
        return cls(game.why_lose, game.outcome_column) if game.why_lose else None

    def add_aligned(self, base, edit) -> None:
        def counts(frame) -> np.ndarray:
            x = np.stack([lost_to(frame, self.why, self.outcome, n) for n in self.names])
            return np.vstack([x, x.sum(axis=0)])

        b, e = counts(base), counts(edit)
        d = e - b
        self.n += b.shape[1]
        self.sums += np.stack([b.sum(axis=1), e.sum(axis=1), d.sum(axis=1),
                               (d * d).sum(axis=1)], axis=1)

    def rows(self, z: float) -> list[dict[str, Any]]:
        """Per cause, then "all" (their total): per game, ``baseline``, ``edit`` and the
        paired ``difference`` {mean, lo, hi}; with what the cause means and its advice."""
        from sim.core.paired import paired_interval

        about = {c.name: c for c in self.why.causes}
        n = max(self.n, 1)
        out = []
        for i, name in enumerate([*self.names, "all"]):
            base, edit, sum_d, sum_d2 = self.sums[i]
            diff = paired_interval(sum_d, sum_d2, self.n, z)
            diff.pop("width_pp", None)
            cause = about.get(name)
            out.append({"cause": name, "baseline": base / n, "edit": edit / n,
                        "difference": diff, "means": cause.words if cause else "",
                        "advice": cause.advice if cause else ""})
        return out

    def main(self, z: float) -> dict[str, Any] | None:
        """The cause the change comes from (its row, the largest change in the total's
        direction), when the total change's interval excludes 0; None otherwise."""
        return _main(self.rows(z))

    def lead(self, z: float, actor: str = "the edit") -> str | None:
        """The cause the change comes from, in words, when the total change's interval
        excludes 0 ("mostly deck: +31.0 [+29.4, +32.5] of the +34.9 [...] unhappy customers per
        1,000 games the edit adds (...)"); None when nothing changed clearly. ``actor``: what
        made the change ("the edit", "the change")."""
        rows = self.rows(z)
        top = _main(rows)
        if top is None:
            return None
        total = rows[-1]["difference"]
        sign = 1 if total["mean"] > 0 else -1
        d = top["difference"]
        # "mostly" only for a majority of the change
        most = "mostly" if d["mean"] / total["mean"] > 0.5 else "the largest part from"

        def per1000(x: dict) -> str:
            return (f"{1000 * x['mean']:+.1f} [{1000 * x['lo']:+.1f}, "
                    f"{1000 * x['hi']:+.1f}]")
        return (f"{most} {top['cause']}: {per1000(d)} of the {per1000(total)} unhappy "
                f"customers per 1,000 games {actor} {'adds' if sign > 0 else 'removes'} "
                f"({top['means']}); to change it: {top['advice']}")

    def answer(self, z: float) -> dict[str, Any]:
        """The rows and the lead together, as compare's JSON and the workbench give them
        (numbers per game)."""
        return {"per": "game", "rows": self.rows(z), "lead": self.lead(z)}


def _main(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """``PairedLossCauses.main`` of its rows."""
    total = rows[-1]["difference"]
    if not (total["lo"] > 0 or total["hi"] < 0):
        return None
    sign = 1 if total["mean"] > 0 else -1
    return max(rows[:-1], key=lambda r: sign * r["difference"]["mean"])
