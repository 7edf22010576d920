"""Render the report as one self-contained HTML page and as Markdown.

The HTML has inline CSS (with print rules), plots embedded as PNG data URIs, and no
external link, script or font, so it opens offline and prints as it shows.
"""
from __future__ import annotations

import base64
import html
import json
import math
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from reports.load import RunSet, compared_on_purpose
from reports.registry import Context, Finding, Metric
from reports.tables import html_table, markdown_table
from reports.why_lose import KEY as WHY_ALL_LOSE
from sim.core.wording import interval_digits, plural

MAX_ROWS = 80
LEVEL_ORDER = {"imbalance": 0, "undecided": 1, "small": 2, "within": 3, "info": 4}


@dataclass
class Section:
    metric: Metric
    table: pl.DataFrame
    display: pl.DataFrame
    findings: list[Finding] = field(default_factory=list)
    png: bytes | None = None
    csv_name: str = ""
    plot_name: str | None = None
    answers: list = field(default_factory=list)       # sim.core.report_metric.Answer


@dataclass
class Page:
    """What the page shows besides the metric sections: the answers-first rows
    [(Answer, section anchor)], the optional sections (reports.sections), the small-multiples
    panel (PNG) and the warnings about the strategies used."""

    answers: list = field(default_factory=list)
    extras: list = field(default_factory=list)
    panel: bytes | None = None
    warnings: list[str] = field(default_factory=list)
    about: str | None = None    # what the runs are, said under the title (a caller's words)


def answer_rows(sections: list[Section], extras: list) -> list[tuple[Any, str]]:
    """Every section's answers, ordered by question (its ``order``), then player count."""
    rows = [(a, s.metric.name) for s in sections for a in s.answers]
    rows += [(a, x.name) for x in extras for a in x.answers]
    return sorted(rows, key=lambda r: (r[0].order, r[0].question, r[0].players or 0, r[0].where))


def strategies_used(rs: RunSet) -> list[tuple[str, int]]:
    """(pairing, player count) of every run, in run order without repeats."""
    return list(dict.fromkeys((r.pairing, r.players) for r in rs.runs))


def strategy_warnings(rs: RunSet, extras: list) -> list[str]:
    """When the balance numbers rest on weak play: a strategy other than the game's default
    (its ``Game.default_strategy``), a random player, or what an optional section says
    (a skill run showing a stronger strategy beats these)."""
    from sim.core.game import resolve_game

    default = resolve_game(rs.game).default_strategy
    names = sorted({name for r in rs.runs for _, name in r.strategy_names if name})
    out = []
    weak = [n for n in names if n.split(":")[0] == "random"]
    if weak:
        out.append("A random player is in these runs: the numbers describe random play, "
                   "not how people play; check them with the game's better strategies.")
    other = [n for n in names if n.split(":")[0] != default and n not in weak]
    if other:
        out.append(f"Strategies other than the game's default ({default}) were used: "
                   f"{', '.join(other)}. A balance measured with weaker play may not hold for "
                   "stronger players.")
    for x in extras:
        out += list(x.warnings)
    return out


# ----------------------------------------------------------------------------- cells
def _isnan(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _fmt_value(v, kind: str, digits: int | None = None) -> str:
    if _isnan(v):
        return "–"
    v = v + 0.0   # no "-0.0"
    if kind == "rate":
        return f"{100 * v:.{1 if digits is None else digits}f}"
    if kind == "diff":
        return f"{100 * v:+.{1 if digits is None else digits}f}"
    return f"{v:,.{2 if digits is None else digits}f}"


def _combine(est, lo, hi, kind: str) -> str:
    """The estimate with its interval, with the decimals it takes not to read as a point
    (``interval_digits``)."""
    if _isnan(est):
        return "–"
    unit = {"rate": " %", "diff": " pp"}.get(kind, "")
    if _isnan(lo) or _isnan(hi):
        return f"{_fmt_value(est, kind)}{unit}"
    scaled = kind in ("rate", "diff")
    digits = interval_digits(lo, hi, 1 if scaled else 2, 100.0 if scaled else 1.0)
    return (f"{_fmt_value(est, kind, digits)}{unit} [{_fmt_value(lo, kind, digits)}, "
            f"{_fmt_value(hi, kind, digits)}]")


def _plain(v) -> str:
    if _isnan(v):
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int):
        return f"{v:,}" if abs(v) >= 10000 else str(v)
    if isinstance(v, float):
        return f"{v:g}" if v == int(v) and abs(v) < 1e6 else f"{v:,.3f}"
    return str(v)


def format_table(df: pl.DataFrame) -> tuple[list[str], list[list[str]]]:
    """Headers and string cells; ``<stem>_rate|_diff|_mean`` with ``<stem>_lo/_hi`` (and
    ``rate`` with ``lo/hi``) become one "estimate [lo, hi]" column."""
    cols = df.columns
    colset = set(cols)
    plan: list[tuple[str, Any]] = []
    used: set[str] = set()
    for c in cols:
        if c in used:
            continue
        stem, kind = None, None
        if c == "rate" and {"lo", "hi"} <= colset:
            stem, kind, lo, hi = "rate", "rate", "lo", "hi"
        else:
            for suffix, k in (("_rate", "rate"), ("_diff", "diff"), ("_mean", "mean")):
                if c.endswith(suffix):
                    s = c[: -len(suffix)]
                    if {f"{s}_lo", f"{s}_hi"} <= colset:
                        stem, kind, lo, hi = s, k, f"{s}_lo", f"{s}_hi"
                    break
        if stem is not None:
            used.update({c, lo, hi})
            unit = {"rate": " %", "diff": " pp"}.get(kind, "")
            plan.append((f"{stem}{unit} [95 % CI]", (c, lo, hi, kind)))
        else:
            used.add(c)
            plan.append((c, c))
    headers = [h for h, _ in plan]
    rows = []
    for r in df.iter_rows(named=True):
        cells = []
        for _, spec in plan:
            if isinstance(spec, tuple):
                c, lo, hi, kind = spec
                cells.append(_combine(r[c], r[lo], r[hi], kind))
            else:
                cells.append(_plain(r[spec]))
        rows.append(cells)
    return headers, rows


# ----------------------------------------------------------------------------- header facts
def header_facts(rs: RunSet, ctx: Context) -> list[tuple[str, str]]:
    seeds = sorted({int(r.manifest["seed"]) for r in rs.runs})
    shas = sorted({r.sha256 for r in rs.runs})
    paths = sorted({str(r.manifest["cards"].get("path", "?")) for r in rs.runs})
    versions = sorted({str(r.manifest.get("package_version", "?")) for r in rs.runs})
    return [
        ("Game", rs.game),
        ("Runs", str(len(rs.runs))),
        ("Games", f"{rs.total_games:,}"),
        ("Seed" + ("s" if len(seeds) > 1 else ""), ", ".join(str(s) for s in seeds)),
        ("Card file", ", ".join(paths)),
        ("Card file sha256", ", ".join(shas)),
        *card_edit_facts(rs),
        ("Package version", ", ".join(versions)),
        ("Imbalance threshold", f"±{ctx.threshold_pp:g} percentage points"),
    ]


def card_edit_facts(rs: RunSet) -> list[tuple[str, str]]:
    """A header line per edited card file: what it changes from the game's default."""
    from reports.card_edits import card_file_edits

    edits = card_file_edits(rs)
    if len(edits) == 1:
        return [("Card edits", edits[0][1])]
    return [(f"Card edits ({path})", words) for path, words in edits]


def runs_table(rs: RunSet) -> tuple[list[str], list[list[str]]]:
    compared = _compared_rules(rs)  # e.g. Peer-to-Peer's odd_team_compensation; PLAI: none
    headers = ["#", "run directory", "players", "pairing", *compared,
               "seed", "games", "complete", "card sha256"]
    rows = []
    for i, r in enumerate(rs.runs):
        m = r.manifest
        planned = int(m.get("games", r.games_found))
        games = f"{r.games_found:,}" + ("" if planned == r.games_found else f" of {planned:,}")
        modes = [str(r.rules.get(rule, "–")) for rule in compared]
        rows.append([str(i), r.path, str(r.players), r.pairing, *modes, str(m["seed"]), games,
                     "yes" if m.get("complete", True) else "no", r.sha256[:16] + "…"])
    return headers, rows


def _compared_rules(rs: RunSet) -> list[str]:
    """The game's Game.compared_rules options that any of the runs has."""
    wanted = compared_on_purpose(rs.runs[0]) - {"players"}
    return sorted(rule for rule in wanted if any(rule in r.rules for r in rs.runs))


def rules_rows(rs: RunSet) -> list[tuple[str, str]]:
    rows = [(k, json.dumps(v, sort_keys=True, default=str)) for k, v in sorted(rs.common_rules.items())]
    for rule in _compared_rules(rs):
        rows.append((rule, "see the runs table (compared on purpose)"))
    differing = sorted({k for r in rs.runs for k in r.rules} - set(rs.common_rules)
                       - compared_on_purpose(rs.runs[0]))
    for k in differing:
        rows.append((k, "differs between runs: " + "; ".join(
            f"run {i}: {json.dumps(r.rules.get(k), default=str)}" for i, r in enumerate(rs.runs))))
    return rows


DECISION_RULE = ("How imbalances are called: each balance quantity is compared with its even "
                 "point (a fair share of the games won, or no difference). An imbalance is called "
                 "only when the whole 95 % interval lies beyond ±{t} pp of that point; the result "
                 "is called balanced only when the whole interval lies within ±{t} pp and holds "
                 "the point, and a small edge when it lies within ±{t} pp but excludes it; "
                 "otherwise it is 'not decided'. Proportions use Wilson intervals, differences "
                 "of two proportions Newcombe's hybrid score interval, means Student t "
                 "intervals.")


def key_findings(sections: list[Section]) -> list[Finding]:
    """The imbalances called, in report order."""
    return [f for s in sections for f in s.findings if f.level == "imbalance"]


def undecided_count(sections: list[Section]) -> int:
    return sum(1 for s in sections for f in s.findings if f.level == "undecided")


# ----------------------------------------------------------------------------- HTML
CSS = """
body{font-family:-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:1.5em auto;
max-width:1100px;padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em;margin-bottom:.2em}h2{font-size:1.25em;border-bottom:2px solid #ccd;
padding-bottom:.2em;margin-top:1.6em}
table{border-collapse:collapse;font-size:.82em;margin:.6em 0}
th,td{border:1px solid #ccd;padding:.2em .45em;text-align:left;vertical-align:top}
th{background:#eef0f6}tr:nth-child(even) td{background:#fafbfd}
dl.facts{display:grid;grid-template-columns:max-content auto;gap:.15em 1em}
dl.facts dt{font-weight:bold}dl.facts dd{margin:0;word-break:break-all}
.box{border:1px solid #ccd;background:#f6f7fb;padding:.5em .8em;margin:.8em 0}
.warn{border-color:#c33;background:#fff1f0}
.f-imbalance{color:#a00}.f-undecided{color:#8a5a00}.f-small{color:#6b6b00}.f-within{color:#196619}
td.v-above,td.v-below{color:#a00;font-weight:bold}td.v-within{color:#196619}
img{max-width:100%;height:auto;display:block;margin:.5em 0}
.muted{color:#666;font-size:.85em}.lede{margin:.2em 0 .6em}
table.answers{font-size:.9em;width:100%}table.answers td{padding:.3em .5em}
table.answers td.num{white-space:nowrap}
.dot{display:inline-block;width:.75em;height:.75em;border-radius:50%;margin-right:.4em;
vertical-align:baseline}
.a-ok td{background:#e3f4e1!important}.a-ok .dot{background:#2ca02c}
.a-small td{background:#f2f5d8!important}.a-small .dot{background:#bcbd22}
td.why{font-size:.92em}td.why ul{margin:0;padding-left:1.1em}
.a-bad td{background:#fbe0de!important}.a-bad .dot{background:#d62728}
.a-open td{background:#fff0d6!important}.a-open .dot{background:#ff7f0e}
.a-info td{background:#e4eef8!important}.a-info .dot{background:#1f77b4}
.a-none td{background:#eee!important}.a-none .dot{background:#7f7f7f}
.legend span{margin-right:1em;font-size:.85em;padding:.1em .3em}
.tablewrap{overflow-x:auto}
@media print{body{max-width:none;margin:0;font-size:10pt}h2{page-break-after:avoid}
img,figure,table{page-break-inside:avoid}.tablewrap{overflow:visible}
tr:nth-child(even) td,th{background:none}a{color:inherit;text-decoration:none}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
table{font-size:7pt}th,td{padding:.1em .25em}nav{display:none}}
"""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


ANSWER_CLASS = {"within": "a-ok", "small": "a-small", "above": "a-bad", "below": "a-bad",
                "undecided": "a-open", "no_data": "a-none", "info": "a-info"}
ANSWER_COLOUR = {"within": "green", "small": "yellow-green", "above": "red", "below": "red",
                 "undecided": "amber", "no_data": "grey", "info": "blue"}
MAX_CAUSES = 4   # causes listed in an answers-table cell (answers.json has them all)


def why_words(a) -> list[str]:
    """An answer's reasons in words: its causes (replays, a rule's own effect, the split of
    the unhappy customers), the largest first."""
    causes = [c for c in a.causes if c.get("words")]
    if a.key == WHY_ALL_LOSE:
        return [f"{c['cause']}: {100 * c['share']:.0f} % [{100 * c['lo']:.0f}, "
                f"{100 * c['hi']:.0f}]; change {c['advice']}" for c in causes]
    return [c["words"] for c in causes][:MAX_CAUSES]


def stronger_words(a) -> str:
    return (a.stronger or {}).get("words", "")


def _answer_number(a) -> str:
    return _combine(a.estimate, a.lo, a.hi, "diff" if a.kind == "diff" else "rate")


def _answers_html(page: Page) -> str:
    if not page.answers:
        return '<p class="muted">No metric of these runs answers a designer question.</p>'
    p = ['<table class="answers"><thead><tr><th>Question</th><th>Where</th><th>Answer</th>'
         '<th>Number [95 % CI]</th><th>Why</th><th>Under stronger play</th><th>Section</th>'
         '</tr></thead><tbody>']
    for a, anchor in page.answers:
        cls = ANSWER_CLASS.get(a.verdict, "a-info")
        why = why_words(a)
        why_cell = ("<ul>" + "".join(f"<li>{_e(w)}</li>" for w in why) + "</ul>") if why else ""
        p.append(f'<tr class="{cls}"><td>{_e(a.question)}</td><td>{_e(a.where)}</td>'
                 f'<td><span class="dot"></span>{_e(a.answer)}</td>'
                 f'<td class="num">{_e(_answer_number(a))}</td>'
                 f'<td class="why">{why_cell}</td><td class="why">{_e(stronger_words(a))}</td>'
                 f'<td><a href="#{_e(anchor)}">details</a></td></tr>')
    p.append("</tbody></table>")
    return "".join(p)


def _img(png: bytes, alt: str) -> str:
    b64 = base64.b64encode(png).decode("ascii")
    return f'<figure><img src="data:image/png;base64,{b64}" alt="{_e(alt)}"></figure>'


def render_html(rs: RunSet, ctx: Context, sections: list[Section],
                skipped: list[tuple[str, str]], page: Page | None = None) -> str:
    """Answers first: the answers table, the strategies used (and warnings), the headline
    panel; then the key findings and every section; the configuration tables at the end."""
    page = page or Page()
    title = f"Balance report: {rs.game}"
    p = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{_e(title)}</title>",
         f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><style>{CSS}</style>"
         "</head><body>", f"<h1>{_e(title)}</h1>",
         *([f'<p class="lede about">{_e(page.about)}</p>'] if page.about else []),
         f'<p class="lede">{rs.total_games:,} games in {len(rs.runs)} run'
         f'{"s" if len(rs.runs) != 1 else ""}; every number with its 95 % interval; '
         f'threshold ±{ctx.threshold_pp:g} pp. <a href="#configuration">Configuration</a></p>']
    p.append('<section id="answers"><h2>Answers</h2>')
    p.append(_answers_html(page))
    p.append('<p class="muted">Every answer with its causes and its stronger-play check, for '
             'scripts: answers.json beside this page.</p>')
    p.append('<p class="legend"><span class="a-ok"><span class="dot"></span>balanced</span> '
             '<span class="a-small"><span class="dot"></span>a small edge, inside the band</span> '
             '<span class="a-bad"><span class="dot"></span>imbalance called</span> '

             '<span class="a-open"><span class="dot"></span>not decided</span> '
             '<span class="a-info"><span class="dot"></span>a rate, no verdict</span></p></section>')
    p.append('<section id="strategies"><h2>Strategies used</h2><ul>')
    p += [f"<li>{_e(pairing)} ({plural(players, 'player')})</li>"
          for pairing, players in strategies_used(rs)]
    p.append("</ul>")
    if page.warnings:
        p.append('<div class="box warn"><ul>' + "".join(f"<li>{_e(w)}</li>" for w in page.warnings)
                 + "</ul></div>")
    p.append("</section>")
    if rs.mixed:
        p.append('<div class="box warn"><strong>Mixed runs merged on request (allow_mixed).</strong> '
                 "These runs differ in more than player count, pairing and variant, so "
                 "pooled numbers mix different games:<ul>")
        p += [f"<li>{_e(d)}</li>" for d in rs.mixed]
        p.append("</ul></div>")
    if rs.notes:
        p.append('<div class="box warn"><ul>' + "".join(f"<li>{_e(n)}</li>" for n in rs.notes) + "</ul></div>")
    if page.panel:
        p.append('<section id="panel"><h2>Headline rates by player count</h2>')
        p.append(_img(page.panel, "headline answers by player count"))
        p.append('<p class="muted">One panel per question; points coloured by the answer '
                 "(green balanced, red imbalance called, amber not decided, blue a rate); "
                 "bars are 95 % intervals.</p></section>")
    p.append(f'<div class="box">{_e(DECISION_RULE.format(t=f"{ctx.threshold_pp:g}"))}</div>')
    p.append("<h2>Key findings</h2>")
    keyf = key_findings(sections) + [f for x in page.extras for f in x.findings
                                     if f.level == "imbalance"]
    if keyf:
        p.append("<ul>" + "".join(f'<li class="f-{f.level}">{_e(f.text)}</li>' for f in keyf) + "</ul>")
    else:
        p.append(f"<p>No imbalance called (threshold ±{ctx.threshold_pp:g} pp).</p>")
    nu = undecided_count(sections)
    if nu:
        p.append(f'<p class="f-undecided">{nu} comparison{"s" if nu != 1 else ""} not decided: '
                 "the interval crosses the threshold (or a family's correction does not call "
                 "it); see the sections below.</p>")
    p.append("<nav><strong>Contents:</strong> " + " · ".join(
        [f'<a href="#{_e(s.metric.name)}">{_e(s.metric.title)}</a>' for s in sections]
        + [f'<a href="#{_e(x.name)}">{_e(x.title)}</a>' for x in page.extras]
        + ['<a href="#configuration">Configuration</a>']) + "</nav>")
    for s in sections:
        p.append(f'<section id="{_e(s.metric.name)}"><h2>{_e(s.metric.title)}</h2>')
        p.append(f"<p>{_e(s.metric.description)}</p>")
        if s.png:
            p.append(_img(s.png, s.metric.title))
        if s.findings:
            p.append("<ul>" + "".join(f'<li class="f-{f.level}">{_e(f.text)}</li>' for f in s.findings) + "</ul>")
        if s.display.height == 0:
            p.append('<p class="muted">No rows for these runs.</p>')
        else:
            h, rows = format_table(s.display)
            vcol = h.index("verdict") if "verdict" in h else None
            p.append(html_table(h, rows, limit=MAX_ROWS, verdict_col=vcol, wrap=True))
        p.append(f'<p class="muted">Full table: {_e(s.csv_name)}</p></section>')
    for x in page.extras:
        p.append(f'<section id="{_e(x.name)}"><h2>{_e(x.title)}</h2><p>{_e(x.description)}</p>')
        if x.png:
            p.append(_img(x.png, x.title))
        if x.findings:
            p.append("<ul>" + "".join(f'<li class="f-{f.level}">{_e(f.text)}</li>' for f in x.findings) + "</ul>")
        if x.table is not None and x.table.height:
            shown = x.display if x.display is not None else x.table
            p.append(html_table(*format_table(shown), limit=MAX_ROWS, wrap=True))
            p.append(f'<p class="muted">Full table: {_e(x.name)}.csv</p>')
        p.append("</section>")
    if skipped:
        p.append("<h2>Metrics not applicable</h2><ul>" + "".join(
            f"<li>{_e(n)}: {_e(r)}</li>" for n, r in skipped) + "</ul>")
    p.append('<section id="configuration"><h2>Configuration</h2><dl class="facts">')
    for k, v in header_facts(rs, ctx):
        p.append(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>")
    p.append("</dl>")
    p.append("<h3>Rule options</h3>")
    p.append(html_table(["option", "value"], [list(r) for r in rules_rows(rs)], wrap=True))
    p.append("<h3>Runs</h3>")
    h, rows = runs_table(rs)
    p.append(html_table(h, rows, wrap=True))
    p.append("</section></body></html>")
    return "\n".join(p)


# ----------------------------------------------------------------------------- Markdown
def render_markdown(rs: RunSet, ctx: Context, sections: list[Section],
                    skipped: list[tuple[str, str]], page: Page | None = None) -> str:
    page = page or Page()
    p = [f"# Balance report: {rs.game}", "", *([page.about, ""] if page.about else []),
         f"{rs.total_games:,} games in {len(rs.runs)} run(s); every number with its 95 % "
         f"interval; threshold ±{ctx.threshold_pp:g} pp.", "", "## Answers", ""]
    if page.answers:
        p.append(markdown_table(["Question", "Where", "Answer", "Number [95 % CI]", "Colour",
                                 "Why", "Under stronger play", "Section"],
                                [[a.question, a.where, a.answer, _answer_number(a),
                                  ANSWER_COLOUR.get(a.verdict, "blue"), "; ".join(why_words(a)),
                                  stronger_words(a), f"[details](#{anchor})"]
                                 for a, anchor in page.answers]))
    else:
        p.append("_No metric of these runs answers a designer question._")
    p += ["", "## Strategies used", ""]
    p += [f"- {pairing} ({plural(players, 'player')})" for pairing, players in strategies_used(rs)]
    p += [f"> **Warning:** {w}" for w in page.warnings]
    p.append("")
    if rs.mixed:
        p.append("> **Mixed runs merged on request (allow_mixed).** Pooled numbers mix different games:")
        p += [f"> - {d}" for d in rs.mixed]
        p.append("")
    if rs.notes:
        p += [f"> {n}" for n in rs.notes] + [""]
    if page.panel:
        p += ["![headline answers by player count](plots/answers.png)", ""]
    p += [DECISION_RULE.format(t=f"{ctx.threshold_pp:g}"), "", "## Key findings", ""]
    keyf = key_findings(sections) + [f for x in page.extras for f in x.findings
                                     if f.level == "imbalance"]
    p += [f"- **{f.level}**: {f.text}" for f in keyf] or [f"No imbalance called (threshold ±{ctx.threshold_pp:g} pp)."]
    nu = undecided_count(sections)
    if nu:
        p += ["", f"{nu} comparison{'s' if nu != 1 else ''} not decided: the interval crosses the "
              "threshold (or a family's correction does not call it); see the sections below."]
    for s in sections:
        p += ["", f"## {s.metric.title}", "", s.metric.description, ""]
        if s.plot_name:
            p += [f"![{s.metric.title}]({s.plot_name})", ""]
        p += [f"- {f.text}" for f in s.findings]
        if s.findings:
            p.append("")
        if s.display.height:
            p.append(markdown_table(*format_table(s.display), limit=MAX_ROWS))
        else:
            p.append("_No rows for these runs._")
        p += ["", f"Full table: `{s.csv_name}`"]
    for x in page.extras:
        p += ["", f"## {x.title}", "", x.description, ""]
        if x.png:
            p += [f"![{x.title}](plots/{x.name}.png)", ""]
        p += [f"- {f.text}" for f in x.findings]
        if x.table is not None and x.table.height:
            shown = x.display if x.display is not None else x.table
            p += ["", markdown_table(*format_table(shown), limit=MAX_ROWS), "",
                  f"Full table: `{x.name}.csv`"]
    if skipped:
        p += ["", "## Metrics not applicable", ""] + [f"- {n}: {r}" for n, r in skipped]
    p += ["", "## Configuration", ""]
    p += [f"- **{k}:** {v}" for k, v in header_facts(rs, ctx)]
    p += ["", "### Rule options", "", markdown_table(["option", "value"], [list(r) for r in rules_rows(rs)]),
          "", "### Runs", "", markdown_table(*runs_table(rs)), ""]
    return "\n".join(p) + "\n"
