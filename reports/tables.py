"""Tables as text: plain (aligned columns, for the terminal), Markdown and HTML. Cells are
already formatted strings (or anything ``str`` makes one)."""
from __future__ import annotations

import html
from typing import Any, Sequence


def text_table(headers: Sequence[Any], rows: Sequence[Sequence[Any]]) -> str:
    """Left-aligned columns two spaces apart, a dashed rule under the header."""
    widths = [max(len(str(x)) for x in col) for col in zip(headers, *rows)]

    def line(cells) -> str:
        return "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, rows)])


def _md_cell(x: Any) -> str:
    return str(x).replace("|", "\\|").replace("\n", " ")


def markdown_table(headers: Sequence[Any], rows: Sequence[Sequence[Any]],
                   limit: int | None = None) -> str:
    """A Markdown table; past ``limit`` rows a note says how many were shown."""
    shown = rows if limit is None else rows[:limit]
    out = ["| " + " | ".join(_md_cell(h) for h in headers) + " |",
           "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in shown]
    if len(shown) < len(rows):
        out.append(f"\n_First {limit} of {len(rows):,} rows shown._")
    return "\n".join(out)


def _e(x: Any) -> str:
    return html.escape(str(x), quote=True)


def html_table(headers: Sequence[Any], rows: Sequence[Sequence[Any]], limit: int | None = None,
               verdict_col: int | None = None, wrap: bool = False) -> str:
    """An HTML table; ``verdict_col`` cells get the class ``v-<cell>``; ``wrap`` puts it in
    a scrolling ``div.tablewrap``; past ``limit`` rows a note says how many were shown."""
    shown = rows if limit is None else rows[:limit]
    out = ['<div class="tablewrap">' if wrap else "", "<table><thead><tr>"]
    out += [f"<th>{_e(h)}</th>" for h in headers]
    out.append("</tr></thead><tbody>")
    for row in shown:
        out.append("<tr>")
        for j, cell in enumerate(row):
            cls = f' class="v-{_e(cell)}"' if j == verdict_col else ""
            out.append(f"<td{cls}>{_e(cell)}</td>")
        out.append("</tr>")
    out.append("</tbody></table>" + ("</div>" if wrap else ""))
    if len(shown) < len(rows):
        out.append(f'<p class="muted">First {limit} of {len(rows):,} rows shown.</p>')
    return "".join(out)
