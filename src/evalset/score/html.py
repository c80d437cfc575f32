"""A report as one self-contained HTML page: the pin, the misses, and per metric a bar chart
of every category with its 95% interval. An answers report adds its judge, how far people
agree with it, and the answers to start reading from.

Everything is inline (styles and SVG; no script, font or image is fetched), so the page can
be mailed or attached to a CI run and viewed offline. Text from the set, the run and the
judge is shown as text (``evalset.display.html_text``): HTML-escaped, and printable, so that
a bidi override in a run's path cannot reverse what the page says after it. Each bar and
interval carries ``data-category``, ``data-metric``, ``data-value``, ``data-low`` and
``data-high`` so that a test, or a reader's own tooling, can check what was drawn
(``data-category`` is the column's name: ``overall``, or a category's, a category named
"overall" being ``overall (category)``).
"""

from __future__ import annotations

import json
import math
from html import escape
from typing import Any

from evalset.display import clip, html_text
from evalset.score import answer_text, markdown
from evalset.score.markdown import (
    cell,
    columns,
    miss_cells,
    scored_splits,
    scored_trials,
    title,
)

CHART_HEIGHT = 160
"""Pixels from 0 to 1 on a chart's axis."""
BAR = 44
GAP = 44
LEFT = 40
TOP = 14
BOTTOM = 58

STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px;
       color: #1f2328; max-width: 1200px; }
h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 16px; margin: 28px 0 8px; }
h1, p { overflow-wrap: anywhere; }  /* a long set name, run path or citation wraps */
.meta { color: #59636e; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #d1d9e0; padding: 3px 8px; text-align: left; vertical-align: top;
         overflow-wrap: anywhere; }
th { background: #f6f8fa; white-space: nowrap; }
table.misses td:nth-child(-n+3), table.answer-misses td:nth-child(-n+3) {
  min-width: 10ch; max-width: 32ch; }
code, pre { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
pre { background: #f6f8fa; padding: 8px; overflow-x: auto; }
.charts { display: flex; flex-wrap: wrap; gap: 18px; }
figure { margin: 0; border: 1px solid #d1d9e0; padding: 6px; min-width: 0; max-width: 100%;
         box-sizing: border-box; overflow-x: auto; }
.wide { max-width: 100%; overflow-x: auto; }
th .name { display: inline-block; max-width: 24ch; white-space: normal; }
table.categories td, table.splits td { white-space: nowrap; }
figcaption { font-weight: 600; }
.bar { fill: #4f7cc4; } .bar.overall { fill: #2f4f7f; }
.interval { stroke: #1f2328; stroke-width: 1.5; }
.axis { stroke: #8c959f; stroke-width: 1; } .grid { stroke: #eaeef2; stroke-width: 1; }
.label { font-size: 11px; fill: #1f2328; } .tick { font-size: 10px; fill: #59636e; }
.empty { font-size: 10px; fill: #8c959f; }
.note { background: #fff8c5; padding: 4px 8px; margin: 4px 0; }
"""


def _y(value: float) -> float:
    return TOP + CHART_HEIGHT * (1 - min(max(value, 0.0), 1.0))


LABEL = 14
"""Longest label under a bar, in characters (the name is in its tooltip and the table)."""
FLAT = 7
"""Longest label written level under its bar: 7 of the widest letters (``W``, ``m``: about
1em of the 11px label font each) fit in the bar's slot of ``BAR + GAP`` pixels. A longer
label would reach under its neighbours and hide theirs, so a chart with one is drawn with
every label slanted instead (its glyphs never reach the next label, whatever the font)."""
EM = 11
"""Pixels the widest letter of a label takes (the label font's size)."""
SLANT = 45
"""Degrees a slanted label turns: its line runs from below-left up to its bar, and the
next label's line is (BAR + GAP) * sin(45°), 62 pixels, away from it."""


def bar_labels(names: list[str]) -> list[str]:
    """The label under each bar: the name, cut to ``LABEL`` characters; names that cut to
    the same label keep their ends too (``paraph…lookup``), and, should those still be
    alike, are numbered in the order of the bars (``overall #2``), so that no two bars
    read the same."""
    cut = [n if len(n) <= LABEL else n[: LABEL - 1] + "…" for n in names]
    alike = {c for c in cut if cut.count(c) > 1}
    if not alike:
        return cut
    half = (LABEL - 1) // 2
    cut = [
        n[:half] + "…" + n[-half:] if c in alike and len(n) > LABEL else c
        for n, c in zip(names, cut, strict=True)
    ]
    alike = {c for c in cut if cut.count(c) > 1}
    seen: dict[str, int] = {}
    for k, c in enumerate(cut):
        if c in alike:  # (a category may be called "overall")
            seen[c] = seen.get(c, 0) + 1
            mark = f" #{seen[c]}"
            cut[k] = (c if len(c) + len(mark) <= LABEL else c[: LABEL - len(mark) - 1] + "…") + mark
    return cut


def chart(metric: str, tables: list[tuple[str, dict[str, Any]]]) -> str:
    """One metric: a bar per table (overall, then categories) with its interval."""
    labels = bar_labels([name for name, _ in tables])
    longest = max(map(len, labels))
    slanted = longest > FLAT
    width = LEFT + len(tables) * (BAR + GAP) + GAP
    # a slanted label reaches longest * EM * sin(45°) below where it starts
    bottom = 24 + math.ceil(longest * EM * math.sin(math.radians(SLANT))) + 8 if slanted else BOTTOM
    height = TOP + CHART_HEIGHT + bottom
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{html_text(metric)} by category">'
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = _y(tick)
        parts.append(f'<line class="grid" x1="{LEFT}" x2="{width}" y1="{y:.1f}" y2="{y:.1f}"/>')
        parts.append(
            f'<text class="tick" x="{LEFT - 4}" y="{y + 3:.1f}" text-anchor="end">{tick:g}</text>'
        )
    parts.append(
        f'<line class="axis" x1="{LEFT}" x2="{LEFT}" y1="{TOP}" y2="{TOP + CHART_HEIGHT}"/>'
    )
    for k, (name, table) in enumerate(tables):
        x = LEFT + GAP + k * (BAR + GAP)
        entry = table.get(metric) or {}
        value = entry.get("value")
        attrs = f'data-category="{html_text(name)}" data-metric="{html_text(metric)}"'
        if value is None:
            parts.append(
                f'<text class="empty" {attrs} x="{x + BAR / 2}" y="{_y(0) - 4}" '
                'text-anchor="middle">no items</text>'
            )
        else:
            low, high, n = entry["low"], entry["high"], entry["n"]
            top = _y(value)
            kind = "bar overall" if k == 0 else "bar"  # (not a category named "overall")
            data = f'{attrs} data-value="{value!r}" data-low="{low!r}" data-high="{high!r}"'
            parts.append(
                f'<rect class="{kind}" {data} x="{x}" y="{top:.2f}" width="{BAR}" '
                f'height="{_y(0) - top:.2f}"><title>{html_text(name)}: {html_text(cell(entry))}, '
                f"n={n}</title></rect>"
            )
            mid, y_low, y_high = x + BAR / 2, _y(low), _y(high)
            parts.append(
                f'<line class="interval" {data} x1="{mid}" x2="{mid}" y1="{y_high:.2f}" '
                f'y2="{y_low:.2f}"/>'
            )
            for y in (y_low, y_high):
                parts.append(
                    f'<line class="interval-cap" x1="{mid - 6}" x2="{mid + 6}" y1="{y:.2f}" '
                    f'y2="{y:.2f}" stroke="#1f2328" stroke-width="1.5"/>'
                )
        label = f"<title>{html_text(name)}</title>{html_text(labels[k])}</text>"
        if slanted:  # the value first, level under the bar, then the label slanted below it
            at = f"translate({x + BAR / 2 + 4} {TOP + CHART_HEIGHT + 24}) rotate(-{SLANT})"
            parts.append(f'<text class="label" transform="{at}" text-anchor="end">{label}')
        else:
            parts.append(
                f'<text class="label" x="{x + BAR / 2}" y="{TOP + CHART_HEIGHT + 14}" '
                f'text-anchor="middle">{label}'
            )
        if value is not None:
            parts.append(
                f'<text class="tick" x="{x + BAR / 2}" '
                f'y="{TOP + CHART_HEIGHT + (12 if slanted else 27)}" '
                f'text-anchor="middle">{value:.2f}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)


def _table(headers: list[str], rows: list[list[str]], cls: str = "", names: bool = False) -> str:
    """A table; each value cut as the comment cuts it (one long citation would otherwise
    squeeze every other column to a letter or two). ``names``: the headers after the first
    name categories or splits, which wrap (at any letter: a name has no space) rather than
    make their column as wide as a 200-character name."""
    head = "".join(
        f'<th><span class="name">{html_text(h)}</span></th>'
        if names and k
        else f"<th>{html_text(h)}</th>"
        for k, h in enumerate(headers)
    )
    body = "".join(
        "<tr>" + "".join(f"<td>{html_text(clip(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


HEADINGS = {
    "retrieval": "Retrieval",
    "answers": "Answers",
    "retrieval+answers": "Retrieval and answers",
}


def page(data: dict[str, Any]) -> str:
    """The report as one HTML page that needs no network to view."""
    pin = data["evalset"]
    kind = data["report"]["kind"]
    answers = kind != "retrieval"
    heading = f"{HEADINGS.get(kind, kind)}: {title(data)}"
    shown_pin = {key: value for key, value in pin.items() if key != "item_fingerprints"}
    tables = columns(data)
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html_text(heading)}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>{html_text(heading)}</h1>",
        f'<p class="meta">Run <code>{html_text(data["run"]["path"])}</code> '
        f"({html_text(data['run']['sha256'])}), {data['counts']['scored']} item(s) scored, "
        f"{scored_trials(data)} trial(s); {html_text(data['tool'])}.</p>",
    ]
    if answers:
        judged = [answer_text.judge_line(data), answer_text.agreement_line(data)]
        judged.append(answer_text.ppi_line(data) or "")
        out += [f'<p class="judge">{html_text(line)}</p>' for line in judged if line]
    found = answer_text.notes(data) if answers else markdown.notes(data)
    out += [f'<p class="note">{html_text(n)}</p>' for n in found]
    if answers:
        out += _answer_misses(data["answer_misses"])
    if kind != "answers":
        out += _misses(data, "Retrieval misses" if answers else "Misses")
    out.append('<h2 id="charts">By category, with 95% intervals</h2><div class="charts">')
    for metric, definition in data["definitions"].items():
        caption = metric + (" (lower is better)" if definition.get("better") == "lower" else "")
        out.append(
            f'<figure data-metric="{html_text(metric)}">'
            f"<figcaption>{html_text(caption)}</figcaption>"
            f'{chart(metric, tables)}<div class="meta" style="max-width: 420px">'
            f"{html_text(definition['definition'])}</div></figure>"
        )
    out.append("</div>")
    out.append('<h2 id="table">Per category</h2>')
    out.append(
        '<div class="wide">'
        + _table(
            ["metric", *(name for name, _ in tables)],
            [[m] + [cell(t.get(m)) for _, t in tables] for m in data["definitions"]],
            "categories",
            names=True,
        )
        + "</div>"
    )
    splits = scored_splits(data)
    if splits:
        out.append('<h2 id="splits">Per split</h2>')
        out.append(
            '<div class="wide">'
            + _table(
                ["metric", *(name for name, _ in splits)],
                [[m] + [cell(t.get(m)) for _, t in splits] for m in data["definitions"]],
                "splits",
                names=True,
            )
            + "</div>"
        )
    out.append('<h2 id="pin">Pin</h2>')
    out.append(
        f'<pre class="pin">{escape(json.dumps(shown_pin, indent=2, ensure_ascii=False))}</pre>'
    )
    if "item_fingerprints" in pin:  # not shown here: a list as long as the set
        out.append(
            f'<p class="meta">Without its item_fingerprints ({len(pin["item_fingerprints"])}): '
            "the JSON report holds the whole pin, which <code>evalset check-pin REPORT</code> "
            "checks.</p>"
        )
    if "matching" in data["settings"]:
        out.append(f'<p class="meta">Matching: {html_text(data["settings"]["matching"])}</p>')
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _misses(data: dict[str, Any], name: str) -> list[str]:
    """The retrieval misses: items with no expected source in the first K entries."""
    k = max(data["settings"]["k"])
    misses = data.get("misses", [])
    head = f'<h2 id="misses">{name}: start reading here ({len(misses)})</h2>'
    if not misses:
        return [head, f"<p>Every scored item had an expected source in the first {k}.</p>"]
    headers = ["item", "category", "split", "missed", "expected", f"retrieved (first {k})"]
    shown = [j for j in range(6) if j != 3 or any(m["trials"] > 1 for m in misses)]
    rows = [[cells[j] for j in shown] for cells in map(miss_cells, misses)]  # one trial: no
    return [  # "missed" column, as in the comment
        head,
        f"<p>Items with no expected source in the first {k} retrieved entries.</p>",
        _table([headers[j] for j in shown], rows, "misses"),
    ]


def _answer_misses(misses: list[dict[str, Any]]) -> list[str]:
    """The answers that missed a key point, said what they must not, or declined wrongly."""
    head = f'<h2 id="answer-misses">Answer misses: start reading here ({len(misses)})</h2>'
    if not misses:
        return [head, "<p>Every answer covered its key points, asserted no must_not_say entry "
                "and declined exactly when it should.</p>"]  # fmt: skip
    headers = ["item", "category", "split", "failed", "problems", "answer"]
    return [head, _table(headers, [answer_text.miss_cells(m) for m in misses], "answer-misses")]
