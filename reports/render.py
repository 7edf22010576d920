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

MAX_ROWS = 80
LEVEL_ORDER = {"imbalance": 0, "undecided": 1, "within": 2, "info": 3}


@dataclass
class Section:
    metric: Metric
    table: pl.DataFrame
    display: pl.DataFrame
    findings: list[Finding] = field(default_factory=list)
    png: bytes | None = None
    csv_name: str = ""
    plot_name: str | None = None


# ----------------------------------------------------------------------------- cells
def _isnan(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def _fmt_value(v, kind: str) -> str:
    if _isnan(v):
        return "–"
    if kind == "rate":
        return f"{100 * v:.1f}"
    if kind == "diff":
        return f"{100 * v:+.1f}"
    return f"{v:,.2f}"


def _combine(est, lo, hi, kind: str) -> str:
    if _isnan(est):
        return "–"
    unit = {"rate": " %", "diff": " pp"}.get(kind, "")
    if _isnan(lo) or _isnan(hi):
        return f"{_fmt_value(est, kind)}{unit}"
    return f"{_fmt_value(est, kind)}{unit} [{_fmt_value(lo, kind)}, {_fmt_value(hi, kind)}]"


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
        ("Package version", ", ".join(versions)),
        ("Imbalance threshold", f"±{ctx.threshold_pp:g} percentage points"),
    ]


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
    """The game's compared_rules hook options that any of the runs has."""
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
                 "point (50 % of games won by a team, or no difference). An imbalance is called "
                 "only when the whole 95 % interval lies beyond ±{t} pp of that point; the result "
                 "is called balanced only when the whole interval lies within ±{t} pp; otherwise "
                 "it is 'not decided'. Proportions use Wilson intervals, differences of two "
                 "proportions Newcombe's hybrid score interval, means Student t intervals.")


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
.f-imbalance{color:#a00}.f-undecided{color:#8a5a00}.f-within{color:#196619}
td.v-above,td.v-below{color:#a00;font-weight:bold}td.v-within{color:#196619}
img{max-width:100%;height:auto;display:block;margin:.5em 0}
.muted{color:#666;font-size:.85em}
.tablewrap{overflow-x:auto}
@media print{body{max-width:none;margin:0;font-size:10pt}h2{page-break-after:avoid}
img,figure,table{page-break-inside:avoid}.tablewrap{overflow:visible}
tr:nth-child(even) td,th{background:none}a{color:inherit;text-decoration:none}
table{font-size:7pt}th,td{padding:.1em .25em}nav{display:none}}
"""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def render_html(rs: RunSet, ctx: Context, sections: list[Section],
                skipped: list[tuple[str, str]]) -> str:
    title = f"Balance report: {rs.game}"
    p = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{_e(title)}</title>",
         f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><style>{CSS}</style>"
         "</head><body>", f"<h1>{_e(title)}</h1>", '<header><dl class="facts">']
    for k, v in header_facts(rs, ctx):
        p.append(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>")
    p.append("</dl>")
    p.append("<h3>Rule options</h3>")
    p.append(html_table(["option", "value"], [list(r) for r in rules_rows(rs)], wrap=True))
    p.append("<h3>Runs</h3>")
    h, rows = runs_table(rs)
    p.append(html_table(h, rows, wrap=True))
    p.append("</header>")
    if rs.mixed:
        p.append('<div class="box warn"><strong>Mixed runs merged on request (allow_mixed).</strong> '
                 "These runs differ in more than player count, pairing and compensation mode, so "
                 "pooled numbers mix different games:<ul>")
        p += [f"<li>{_e(d)}</li>" for d in rs.mixed]
        p.append("</ul></div>")
    if rs.notes:
        p.append('<div class="box warn"><ul>' + "".join(f"<li>{_e(n)}</li>" for n in rs.notes) + "</ul></div>")
    p.append(f'<div class="box">{_e(DECISION_RULE.format(t=f"{ctx.threshold_pp:g}"))}</div>')
    p.append("<h2>Key findings</h2>")
    keyf = key_findings(sections)
    if keyf:
        p.append("<ul>" + "".join(f'<li class="f-{f.level}">{_e(f.text)}</li>' for f in keyf) + "</ul>")
    else:
        p.append(f"<p>No imbalance called (threshold ±{ctx.threshold_pp:g} pp).</p>")
    nu = undecided_count(sections)
    if nu:
        p.append(f'<p class="f-undecided">{nu} comparison{"s" if nu != 1 else ""} not decided: '
                 "the interval crosses the threshold; see the sections below.</p>")
    p.append("<nav><strong>Contents:</strong> " + " · ".join(
        f'<a href="#{_e(s.metric.name)}">{_e(s.metric.title)}</a>' for s in sections) + "</nav>")
    for s in sections:
        p.append(f'<section id="{_e(s.metric.name)}"><h2>{_e(s.metric.title)}</h2>')
        p.append(f"<p>{_e(s.metric.description)}</p>")
        if s.png:
            b64 = base64.b64encode(s.png).decode("ascii")
            p.append(f'<figure><img src="data:image/png;base64,{b64}" alt="{_e(s.metric.title)}"></figure>')
        if s.findings:
            p.append("<ul>" + "".join(f'<li class="f-{f.level}">{_e(f.text)}</li>' for f in s.findings) + "</ul>")
        if s.display.height == 0:
            p.append('<p class="muted">No rows for these runs.</p>')
        else:
            h, rows = format_table(s.display)
            vcol = h.index("verdict") if "verdict" in h else None
            p.append(html_table(h, rows, limit=MAX_ROWS, verdict_col=vcol, wrap=True))
        p.append(f'<p class="muted">Full table: {_e(s.csv_name)}</p></section>')
    if skipped:
        p.append("<h2>Metrics not applicable</h2><ul>" + "".join(
            f"<li>{_e(n)}: {_e(r)}</li>" for n, r in skipped) + "</ul>")
    p.append("</body></html>")
    return "\n".join(p)


# ----------------------------------------------------------------------------- Markdown
def render_markdown(rs: RunSet, ctx: Context, sections: list[Section],
                    skipped: list[tuple[str, str]]) -> str:
    p = [f"# Balance report: {rs.game}", ""]
    p += [f"- **{k}:** {v}" for k, v in header_facts(rs, ctx)]
    p += ["", "## Rule options", "", markdown_table(["option", "value"], [list(r) for r in rules_rows(rs)]),
          "", "## Runs", "", markdown_table(*runs_table(rs)), ""]
    if rs.mixed:
        p.append("> **Mixed runs merged on request (allow_mixed).** Pooled numbers mix different games:")
        p += [f"> - {d}" for d in rs.mixed]
        p.append("")
    if rs.notes:
        p += [f"> {n}" for n in rs.notes] + [""]
    p += [DECISION_RULE.format(t=f"{ctx.threshold_pp:g}"), "", "## Key findings", ""]
    keyf = key_findings(sections)
    p += [f"- **{f.level}**: {f.text}" for f in keyf] or [f"No imbalance called (threshold ±{ctx.threshold_pp:g} pp)."]
    nu = undecided_count(sections)
    if nu:
        p += ["", f"{nu} comparison{'s' if nu != 1 else ''} not decided: the interval crosses the "
              "threshold; see the sections below."]
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
    if skipped:
        p += ["", "## Metrics not applicable", ""] + [f"- {n}: {r}" for n, r in skipped]
    return "\n".join(p) + "\n"
