"""The report section "How much does skill matter", from a ``simulate skill`` run.

    >>> from reports.skill_section import section_html
    >>> html = section_html("runs/skill-plai-seed1-...")

``section_html`` returns one self-contained HTML fragment (a ``<section>``, plots inlined
as PNG data): per player count the ladder plot, the luck share and one plain sentence.
It reads only the run directory's skill.json (sim/studies/skill.py writes it), so the
report builder can add it as an optional section without importing the study.
"""
from __future__ import annotations

import base64
import html
import json
from pathlib import Path
from typing import Any, Mapping, Sequence

import polars as pl

from reports.plots import COLORS, new_figure, to_png
from reports.sections import ExtraSection, register, same_game
from sim.core.errors import UserError
from sim.core.report_metric import Answer

TITLE = "How much does skill matter"


def _short(spec: str) -> str:
    """``search:k=8,n=16,base=expert`` -> ``search k=8,n=16``."""
    if spec.startswith("search:"):
        return "search " + ",".join(p for p in spec[7:].split(",") if not p.startswith("base="))
    return spec


def ladder_png(rows: Sequence[Mapping[str, Any]], ladder: Sequence[str], title: str) -> bytes:
    """The ladder plot: for each rung above the first, its share of decided games against
    the rung below and against expert, with 95 % intervals; 50 % = as strong per seat."""
    fig, (ax,) = new_figure(1, width=9.0, panel_height=4.2)
    _draw_ladder(ax, rows, ladder, title)
    return to_png(fig)


def ladders_png(data: Mapping[str, Any]) -> bytes:
    """Every player count's ladder plot, one panel each (the report's figure)."""
    players = list(data["players"])
    fig, axes = new_figure(len(players), width=9.0, panel_height=4.2)
    for ax, p in zip(axes, players):
        rows = [r for r in data["pairings"] if r["players"] == p]
        _draw_ladder(ax, rows, data["ladders"][str(p)], f"{data['title']}, {p} players")
    return to_png(fig)


def _draw_ladder(ax, rows: Sequence[Mapping[str, Any]], ladder: Sequence[str], title: str) -> None:
    names = list(ladder[1:])
    x = list(range(len(names)))
    for j, (kind, label) in enumerate((("below", "vs the rung below"), ("expert", "vs expert"))):
        xs, est, low, high, ns = [], [], [], [], []
        for i, name in enumerate(names):
            row = next((r for r in rows if r["stronger"] == name and kind in r["kind"]), None)
            if row is None or row["decided"] == 0:
                continue
            xs.append(i - 0.12 + 0.24 * j)
            est.append(100 * row["share"])
            low.append(100 * (row["share"] - row["ci_low"]))
            high.append(100 * (row["ci_high"] - row["share"]))
            ns.append(row["decided"])
        ax.errorbar(xs, est, yerr=[low, high], fmt="o", capsize=3, ms=5,
                    color=COLORS[j], label=label)
    ax.axhline(50, color="black", lw=0.8)
    ax.set_xticks(x)
    ax.set_xticklabels([_short(n) for n in names], fontsize=8, rotation=20)
    ax.set_ylabel("share of decided games (%), 95 % CI")
    ax.set_xlabel("rung (weakest first; n per point in pairings.csv)")
    ax.set_title(title, fontsize=10)
    ax.set_ylim(0, 100)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")


def load(run_dir: str | Path) -> dict[str, Any]:
    path = Path(run_dir) / "skill.json"
    if not path.is_file():
        raise UserError("not a 'simulate skill' output directory (no skill.json)",
                        file=str(run_dir), field="--skill")
    return json.loads(path.read_text())


def intro(title: str) -> str:
    """What the ladder is, in words (the section's first paragraph, in the report and alone)."""
    return (f"{title}: a ladder of players from random play to a search player, each rung "
            "against the rung below and against expert, every seat in turn on the same deals. "
            "A share of 50 % means the two are as strong per seat; the bars are 95 % "
            "intervals. The luck share is the weaker side's per-seat share of the decided "
            "games in the top pairing (the strongest search player against expert): 50 % "
            "if skill made no difference. Per seat: one seat against the others' seats, so "
            "it is not the share of the games that side won.")


def _luck_words(pairings: list[dict[str, Any]], players: int, summary: dict[str, Any]) -> str:
    """The luck share in words: a per-seat share (fair: 50 %), beside the games the weaker
    side won in all, which differ from it when the sides hold different numbers of seats."""
    top = next((r for r in pairings if r["players"] == players
                and r["pairing"] == summary["top_pairing"]), None)
    weaker = f" ({_short(top['weaker'])})" if top else ""
    words = (f"per seat, the weaker side{weaker} still has {100 * summary['luck_share']:.0f} % "
             "of the decided games (50 % if skill made no difference")
    if top and "weaker_wins" in top:
        words += f"; in all it won {top['weaker_wins']:,} of {top['decided']:,} decided games"
    return words + ")"


def build(path, rs, ctx) -> ExtraSection:
    """The report's section (``simulate report RUNS --skill DIR``): the ladder plot per
    player count, the luck share and one sentence per player count, a row per player count
    in the answers-first table, and a warning when the skill run shows a strategy of the
    report's runs losing to a stronger one beyond its interval."""
    data = load(path)
    same_game("skill run", data.get("game"), rs.game, str(Path(path) / "skill.json"))
    answers, sentences = [], []
    for p in data["players"]:
        s = data["summary"][str(p)]
        sentences.append(f"{s['sentence']} Luck share {100 * s['luck_share']:.1f} % "
                         f"[{100 * s['luck_low']:.1f}-{100 * s['luck_high']:.1f}] "
                         f"({s['top_pairing']}).")
        answers.append(Answer(
            "How much does skill decide the game? (luck share of the top pairing)",
            f"{p} players, {s['top_pairing']}",
            f"{s['rungs_beaten']} of {s['steps']} steps up the ladder win beyond their "
            f"interval; {_luck_words(data['pairings'], p, s)}",
            "info", s["luck_share"], s["luck_low"], s["luck_high"], kind="rate", players=p,
            order=60, key="skill"))
    # a run's label carries its parameters, "weighted(act.pass=-5.0,...)": match by name
    used = {name.split("(")[0] for r in rs.runs for _, name in r.strategy_names if name}
    warnings = []
    for r in data["pairings"]:
        if r["weaker"] in used and "below" in r["kind"] and r["decided"] and r["ci_low"] > 0.5:
            warnings.append(f"The skill run ({Path(path).name}) says {r['stronger']} beats "
                            f"{r['weaker']} at {r['players']} players: {100 * r['share']:.1f} % "
                            f"[{100 * r['ci_low']:.1f}-{100 * r['ci_high']:.1f}] of decided games.")
    table = pl.DataFrame([{k: r[k] for k in ("players", "stronger", "weaker", "kind", "games",
                                             "decided", "share", "ci_low", "ci_high")}
                          for r in data["pairings"]])
    description = intro(data["title"]) + " " + " ".join(sentences)
    return ExtraSection(name="skill", title=TITLE, description=description, table=table,
                        png=ladders_png(data), answers=answers, warnings=warnings, order=110)


register("skill", build)


def section_html(run_dir: str | Path) -> str:
    """The section as self-contained HTML (see the module docstring)."""
    data = load(run_dir)
    e = html.escape
    parts = [f'<section id="skill"><h2>{e(TITLE)}</h2>',
             f"<p>{e(intro(data['title']))}</p>"]
    for p in data["players"]:
        s = data["summary"][str(p)]
        rows = [r for r in data["pairings"] if r["players"] == p]
        png = ladder_png(rows, data["ladders"][str(p)], f"{data['title']}, {p} players")
        parts.append(f"<h3>{p} players</h3>")
        parts.append(f"<p>{e(s['sentence'])}</p>")
        parts.append(f"<p>Luck share: <b>{100 * s['luck_share']:.1f} %</b> "
                     f"[95 % CI {100 * s['luck_low']:.1f}-{100 * s['luck_high']:.1f}] "
                     f"({e(s['top_pairing'])}); rungs beating the rung below beyond the "
                     f"interval: {s['rungs_beaten']} of {s['steps']}.</p>")
        parts.append('<img alt="skill ladder, %d players" src="data:image/png;base64,%s">'
                     % (p, base64.b64encode(png).decode()))
        parts.append("<table><tr><th>stronger</th><th>weaker</th><th>games</th>"
                     "<th>decided</th><th>share [95 % CI]</th></tr>")
        for r in rows:
            parts.append(f"<tr><td>{e(_short(r['stronger']))}</td><td>{e(_short(r['weaker']))}"
                         f"</td><td>{r['games']:,}</td><td>{r['decided']:,}</td>"
                         f"<td>{100 * r['share']:.1f} [{100 * r['ci_low']:.1f}-"
                         f"{100 * r['ci_high']:.1f}]</td></tr>")
        parts.append("</table>")
    parts.append("</section>")
    return "\n".join(parts)
