"""Markdown, self-contained HTML and CSV renderings of the report's sections.

The HTML page embeds its plots as data URIs and its style inline, and its content security policy forbids every
other source, so it opens offline and never contacts the network.
"""

from __future__ import annotations

import base64
import csv
import html
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from drive_evals.report.tables import NO_INTERVAL, Table

CODE_SPAN = re.compile(r"`([^`]+)`")
ESTIMATE_CELL = re.compile(rf"^(\S+) (\[[^\]]+\]\S*|\({re.escape(NO_INTERVAL)}\)\S*)$")
"""`53.0 [44.4, 61.7]†` or `53.0 (no CI)†`: in HTML the interval (or its absence) goes under the estimate, which
halves the width of wide tables."""
LONG_CELL = 60
FOLD_ROWS = 12
"""Tables longer than this are folded (<details>), so the page reads as a sequence of headings and short tables."""
MAX_ROWS = 200
"""Rows shown of a table that names its CSV; the rest are in that file only."""
WARNING_MARK = "⚠"
STACK_COLUMNS = 6
"""Wider tables put each interval under its estimate (half the width); narrower ones keep it on one line."""
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
STYLE = """
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #222; max-width: 110rem; }
table { border-collapse: collapse; margin: 0.5rem 0 0.3rem; font-size: 0.85rem; }
th, td { border: 1px solid #ccc; padding: 0.2rem 0.3rem; text-align: left; vertical-align: top; }
td { white-space: nowrap; }
td.long { white-space: normal; overflow-wrap: anywhere; min-width: 14rem; }
td .ci { display: block; font-size: 0.75rem; color: #555; }
td:first-child { white-space: normal; overflow-wrap: anywhere; min-width: 9rem; }
th { background: #f1f1f1; }
tr:nth-child(even) td { background: #fafafa; }
p.note { font-size: 0.8rem; color: #555; margin: 0.1rem 0; max-width: 90rem; }
p.warn { font-size: 0.9rem; color: #7a4200; background: #fff6e0; padding: 0.2rem 0.4rem; margin: 0.2rem 0;
  max-width: 90rem; }
details { margin: 0.4rem 0; }
summary { cursor: pointer; font-weight: 600; }
p.lead { font-weight: 600; margin: 0.3rem 0; }
img { max-width: 100%; border: 1px solid #eee; margin: 0.5rem 0; }
code { background: #f4f4f4; padding: 0 0.2rem; }
"""


@dataclass(frozen=True)
class Plot:
    title: str
    file_name: str
    png: bytes


@dataclass(frozen=True)
class Section:
    title: str
    tables: list[Table]
    plots: list[Plot]
    folds: bool = True
    """Long tables are folded; the first screen's are not."""


def _shown_rows(table: Table) -> tuple[list[list[str]], list[str]]:
    """The rows to print and the notes, with a pointer to the CSV when rows were left out."""
    if not table.csv or len(table.rows) <= MAX_ROWS:
        return table.rows, table.notes
    more = f"The first {MAX_ROWS} of {len(table.rows)} rows; all of them in `{table.csv}`."
    return table.rows[:MAX_ROWS], [more, *table.notes]


def _folded(section: Section, table: Table) -> bool:
    return section.folds and len(table.rows) > FOLD_ROWS


def markdown(title: str, preamble: Sequence[str], sections: Sequence[Section], image_dir: str) -> str:
    lines = [f"# {title}", "", *preamble, ""]
    for section in sections:
        lines += [f"## {section.title}", ""]
        for table in section.tables:
            lines += _markdown_table(table, _folded(section, table))
        for plot in section.plots:
            lines += [f"![{plot.title}]({image_dir}/{plot.file_name})", ""]
    return "\n".join(lines)


def _markdown_table(table: Table, folded: bool) -> list[str]:
    lines = [f"### {table.title}", "", *([f"**{table.lead}**", ""] if table.lead else [])]
    rows, notes = _shown_rows(table)
    if folded:  # GitHub renders a Markdown table inside <details> when blank lines surround it
        lines += [f"<details><summary>{len(table.rows)} rows</summary>", ""]
    if rows:
        lines.append("| " + " | ".join(_md_cell(h) for h in table.header) + " |")
        lines.append("|" + "---|" * len(table.header))
        lines += ["| " + " | ".join(_md_cell(cell) for cell in row) + " |" for row in rows]
    else:
        lines.append("(none)")
    lines.append("")
    if folded:
        lines += ["</details>", ""]
    lines += [f"{note}  " for note in notes]
    return [*lines, ""]


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def html_page(title: str, preamble: Sequence[str], sections: Sequence[Section]) -> str:
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
        *(f"<p>{_inline(line)}</p>" for line in preamble),
    ]
    for section in sections:
        parts.append(f"<h2>{html.escape(section.title)}</h2>")
        for table in section.tables:
            parts.extend(_html_table(table, _folded(section, table)))
        for plot in section.plots:
            data = base64.b64encode(plot.png).decode("ascii")
            parts.append(f'<img alt="{html.escape(plot.title)}" src="data:image/png;base64,{data}">')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _html_table(table: Table, folded: bool) -> Iterable[str]:
    yield f"<h3>{html.escape(table.title)}</h3>"
    if table.lead:
        yield f'<p class="lead">{_inline(table.lead)}</p>'
    rows, notes = _shown_rows(table)
    stack = len(table.header) > STACK_COLUMNS
    if folded:
        yield f"<details><summary>{len(table.rows)} rows (click to show)</summary>"
    if not rows:
        yield "<p>(none)</p>"
    else:
        yield "<table><thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in table.header) + "</tr></thead>"
        yield "<tbody>"
        for row in rows:
            yield "<tr>" + "".join(_html_cell(cell, stack) for cell in row) + "</tr>"
        yield "</tbody></table>"
    if folded:
        yield "</details>"
    for note in notes:
        kind = "warn" if note.startswith(WARNING_MARK) else "note"
        yield f'<p class="{kind}">{_inline(note)}</p>'


def _html_cell(text: str, stack: bool) -> str:
    """Numbers and labels stay on one line (in wide tables an interval on its own line under its estimate); long
    prose wraps."""
    if len(text) > LONG_CELL:
        return f'<td class="long">{_inline(text)}</td>'
    if stack and (match := ESTIMATE_CELL.match(text)):
        return f'<td>{html.escape(match.group(1))}<span class="ci">{html.escape(match.group(2))}</span></td>'
    return f"<td>{_inline(text)}</td>"


def _inline(text: str) -> str:
    """Escaped text with Markdown's `code` spans as <code>, so notes read the same in both renderings."""
    return CODE_SPAN.sub(r"<code>\1</code>", html.escape(text))


def write_csv(path: Path, rows: Sequence[dict[str, Any]], leading: Sequence[str] = ()) -> None:
    """Rows may have different keys; columns are `leading`, then their union in order of first appearance (so an
    empty file still has its header)."""
    columns = list(dict.fromkeys([*leading, *(key for row in rows for key in row)]))
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")  # the csv module's default is \r\n
        writer.writeheader()
        writer.writerows(rows)
