"""A report as a pull-request comment (markdown), and the cells the terminal tables share:
the misses first ("start reading here"), then each metric per category with its interval."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evalset.display import (
    COMMENT_LONGEST,
    LEFT_OUT_ROOM,
    md_code,
    md_fit,
    md_length,
    md_row,
    md_text,
)
from evalset.sets.model import HIDDEN

MAX_MISSES = 20
"""Misses listed in a comment (the report holds them all)."""
MISS_TABLE_LONGEST = 20_000
"""The most characters a comment's table of misses takes (answers and retrieval misses both
fit in ``COMMENT_LONGEST`` with the rest), however long the answers or citations."""


def hidden(split: str) -> str:
    """What a miss shows of the expected sources of an item outside the tuning split: why
    they are not shown (a held-out item, or one that `split` may yet hold out)."""
    return HIDDEN if split == "holdout" else "(in no split yet: not shown)"


TERMINAL_MISSES = 50
"""Misses listed on the terminal: where to start reading, not the whole list, which a run
of a large set that went badly makes thousands of lines long (the report holds them all)."""


def more_misses(misses: list[Any]) -> str | None:
    """The line that follows the misses listed on the terminal, when some were left out."""
    left = len(misses) - TERMINAL_MISSES
    if left <= 0:
        return None
    return (f"  … and {left} more item(s): the report lists them all (write it with "
            "-o REPORT.json, or print it with --json)")  # fmt: skip


def cell(entry: dict[str, Any] | None) -> str:
    """``0.625 [0.480, 0.741]``; ``-`` when nothing was scored."""
    if not entry or entry.get("value") is None:
        return "-"
    return f"{entry['value']:.3f} [{entry['low']:.3f}, {entry['high']:.3f}]"


def columns(data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The tables to show side by side: overall, then each category with scored items, by
    the name its column shows (``column_name``)."""
    found = [("overall", data["overall"])]
    found += [
        (column_name(name), table) for name, table in data["categories"].items() if _scored(table)
    ]
    return found


def column_name(category: str) -> str:
    """A category's name as its column shows it: as it is, but for a category named
    "overall", which would read as the column of every item: ``overall (category)`` (no
    category can be named so: a name has no space)."""
    return f"{category} (category)" if category == "overall" else category


def _scored(table: dict[str, Any]) -> bool:
    return any(entry.get("n") for entry in table.values())


def scored_splits(data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The splits that hold scored items, to show beside each other."""
    return [(name, table) for name, table in data["splits"].items() if _scored(table)]


def metric_rows(data: dict[str, Any], tables: list[tuple[str, dict[str, Any]]]) -> list[list[str]]:
    """One row per metric: its name, then a cell per table."""
    return [
        [metric] + [cell(table.get(metric)) for _, table in tables]
        for metric in data["definitions"]
    ]


def scored_trials(data: dict[str, Any]) -> int:
    """How many trial numbers the scored lines of a report's run carry (a report written
    before it counted them: every trial number of the run's lines)."""
    return int(data["counts"].get("trials", data["run"]["trials"]))


def title(data: dict[str, Any]) -> str:
    pin = data["evalset"]
    version = pin.get("version") or "unreleased"
    return f"{pin.get('set')} {version}, snapshot {data.get('snapshot') or '-'}"


def marks(miss: dict[str, Any]) -> str:
    """`` (stale, missing)``, or as much of it as applies, to follow a miss's id."""
    found = [m for m in ("stale", "missing") if miss.get(m)]
    return f" ({', '.join(found)})" if found else ""


def miss_cells(miss: dict[str, Any]) -> list[str]:
    trials = f"{miss['missed']}/{miss['trials']} trials" if miss["trials"] > 1 else ""
    return [
        miss["id"] + marks(miss),
        str(miss.get("category")),
        miss.get("split", ""),
        trials,
        hidden(miss["split"]) if miss["expected"] is None else ", ".join(miss["expected"]),
        ", ".join(map(entry_text, miss["retrieved"])) or "(nothing)",
    ]


def entry_text(entry: str | list[str]) -> str:
    """A retrieved entry as a list of misses shows it: a citation, or a chunk's several
    citations braced as one entry, ``{a.md#one + a.md#two}``, so that entries still count
    ranks."""
    return entry if isinstance(entry, str) else "{" + " + ".join(entry) + "}"


def stale_and_missing(
    data: dict[str, Any], scored_as: str, shown: Callable[[str], str] = str
) -> list[str]:
    """The notes every report starts with: a corpus edited since the newest snapshot, stale
    items scored anyway, items the run left out (``scored_as`` says how they count; ``shown``
    shows an item id as text of the output form: ``md_text`` in a comment, where an id such
    as ``__init__`` would otherwise read as a bold "init")."""
    out = []
    if data.get("corpus") == "changed":
        out.append(
            f"the corpus has changed since snapshot {data['snapshot']}, the newest: the labels "
            "were checked against that snapshot, not against the documents as they are now; "
            "run `evalset snapshot`, then `evalset stale`"
        )
    if data.get("stale"):
        stale = [shown(s["id"]) for s in data["stale"]]
        more = (
            f', and {len(stale) - STALE_IDS} more (report: "stale")'
            if len(stale) > STALE_IDS
            else ""
        )
        out.append(
            f"{len(stale)} stale item(s) scored and marked (--allow-stale): "
            f"{', '.join(stale[:STALE_IDS])}{more}"
        )
    if data.get("missing"):
        out.append(f"{len(data['missing'])} item(s) not in the run, scored as {scored_as}")
    return out


STALE_IDS = 20
"""Stale items named in a note (a large policy update makes thousands; the report lists
them all)."""


def notes(data: dict[str, Any], shown: Callable[[str], str] = str) -> list[str]:
    """What a reader must know besides the numbers (``shown``: as ``stale_and_missing``)."""
    counts = data["counts"]
    out = stale_and_missing(data, "retrieving nothing", shown)
    if counts.get("unanswerable"):
        out.append(f"{counts['unanswerable']} unanswerable item(s) not scored for retrieval")
    if counts.get("sealed"):
        out.append(
            f"{counts['sealed']} sealed holdout item(s) not scored (their labels need the key)"
        )
    if data.get("unresolved"):
        out.append(
            f"{len(data['unresolved'])} chunk(s) did not resolve to a section (report: "
            '"unresolved")'
        )
    unknown = data.get("unknown_citations")
    meant = data.get("unknown_meant") or {}
    if unknown and meant:  # one example: the report lists them all
        given, wanted = next(iter(meant.items()))
        out.append(
            f"{len(unknown)} retrieved citation(s) name no section of snapshot "
            f"{data.get('snapshot')}, {len(meant)} of them a document and section of it written "
            f"otherwise ({md_code(given)} for {md_code(wanted)}): give documents by their "
            "path inside the corpus folder and sections by the anchors `evalset snapshot` "
            'lists. They score as misses (report: "unknown_citations", "unknown_meant")'
        )
    elif unknown:  # the first few: the report lists them all
        named = ", ".join(md_code(c) for c in unknown[:NAMED]) + (
            ", …" if len(unknown) > NAMED else ""
        )
        out.append(
            f"{len(unknown)} retrieved citation(s) name no section of snapshot "
            f"{data.get('snapshot')} ({named}): did the retriever index another version of "
            "the corpus, or name its documents otherwise? They score as misses (report: "
            '"unknown_citations")'
        )
    out += invalid_lines(data)
    return out


NAMED = 3
"""How many unknown citations, or invalid lines, a note names (the report lists them all):
a pull-request comment is read by people who do not have the report."""


def invalid_lines(data: dict[str, Any]) -> list[str]:
    """The note on the run's invalid lines, left out (--skip-invalid), naming the first."""
    invalid = data.get("invalid_lines")
    if not invalid:
        return []
    lines = ", ".join(str(x["line"]) for x in invalid[:NAMED]) + (
        ", …" if len(invalid) > NAMED else ""
    )
    return [
        f'{len(invalid)} invalid run line(s) left out, at line {lines} (report: "invalid_lines")'
    ]


def metric_table(data: dict[str, Any], tables: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """The lines of a markdown table: a column per table, a row per metric."""
    # a category's name as text: `__init__` would read as a bold "init"
    head = [md_row(["metric", *(md_text(name) for name, _ in tables)]),
            "|---" * (len(tables) + 1) + "|"]  # fmt: skip
    return head + [md_row([f"`{r[0]}`", *r[1:]]) for r in metric_rows(data, tables)]


def comment(data: dict[str, Any], before: list[str], after: list[str]) -> str:
    """A report's comment: ``before``, the metric table (overall, then each category), then
    ``after``. A set of many categories gets as many whole columns as fit in what the rest
    leaves of ``COMMENT_LONGEST``, and a line saying how many more the report holds."""
    tables = columns(data)
    room = COMMENT_LONGEST - md_length(before) - md_length(after)
    lines = metric_table(data, tables)
    if md_length(lines) > room:
        # a column adds its name and each of its cells, with " | ", to a row each
        widths = [
            len(md_text(name)) + 7 + sum(len(cell(table.get(m))) + 3 for m in data["definitions"])
            for name, table in tables
        ]
        used, kept = md_length(metric_table(data, [])) + LEFT_OUT_ROOM, 0
        while kept < len(tables) and used + widths[kept] <= room:
            used, kept = used + widths[kept], kept + 1
        kept = max(kept, 1)  # overall, always
        left = len(tables) - kept
        lines = [
            *metric_table(data, tables[:kept]),
            "",
            f"… and {left} more categor{'y' if left == 1 else 'ies'} in the report "
            '("categories"), left out to keep this comment within GitHub\'s size limit.',
        ]
    return "\n".join([*before, *lines, *after]) + "\n"


def split_details(data: dict[str, Any]) -> list[str]:
    """The per-split table, folded, when some split holds scored items."""
    splits = scored_splits(data)
    if not splits:
        return []
    return ["<details><summary>By split</summary>", "", *metric_table(data, splits), "",
            "</details>", ""]  # fmt: skip


def retrieval_miss_table(data: dict[str, Any], name: str) -> list[str]:
    """A comment's retrieval misses (``name``: what they are called there): a table of the
    first ``MAX_MISSES``, or the line saying there is none."""
    k = max(data["settings"]["k"])
    misses = data.get("misses", [])
    if not misses:
        return [f"**No {name.lower()}:** every scored item had an expected source in the first "
                f"{k}.", ""]  # fmt: skip
    # "missed": in how many trials, a column only when some item had several
    shown = [0, 1, 2, 3, 4, 5] if any(m["trials"] > 1 for m in misses) else [0, 1, 2, 4, 5]
    names = ["item", "category", "split", "missed", "expected", f"retrieved (first {k})"]
    out = [
        f"**{name}, start reading here:** {len(misses)} item(s) with no expected source in the "
        f"first {k} entries.",
        "",
        md_row([names[j] for j in shown]),
        "|---" * len(shown) + "|",
    ]
    rows = []
    for m in misses[:MAX_MISSES]:
        cells = miss_cells(m)
        code = (4, 5) if m["expected"] is not None else (5,)  # citations as code
        cells[0] = f"{md_code(m['id'])}{marks(m)}"  # marks after the id, as for answers
        rows.append(md_row([cells[j] if j == 0 else md_code(cells[j]) if j in code
                            else md_text(cells[j]) for j in shown]))  # fmt: skip
    return out + miss_rows(rows, len(misses))


def miss_rows(rows: list[str], misses: int) -> list[str]:
    """The rows of a comment's table of misses that fit in ``MISS_TABLE_LONGEST`` (of the
    first ``MAX_MISSES``), and the line saying how many more the report holds."""
    shown = md_fit(rows, MISS_TABLE_LONGEST)
    more = [f"\n… and {misses - shown} more in the report."] if misses > shown else []
    return [*rows[:shown], *more, ""]


def retrieval_miss_lines(data: dict[str, Any], name: str) -> list[tuple[str, str | None]]:
    """The terminal's retrieval misses (``name``: what they are called there), as (line,
    colour): the first ``TERMINAL_MISSES``, or the line saying there is none."""
    k = max(data["settings"]["k"])
    misses = data["misses"]
    if not misses:
        return [(f"no {name}: every scored item had an expected source in the first {k} "
                 "entries", None)]  # fmt: skip
    out: list[tuple[str, str | None]] = [
        (f"{name}, start reading here ({len(misses)} item(s) with no expected source in the "
         f"first {k} entries):", "red"),
    ]  # fmt: skip
    for miss in misses[:TERMINAL_MISSES]:
        ident, category, split, trials, expected, retrieved = miss_cells(miss)
        out.append((f"  {ident}  {category} ({split}){'  ' + trials if trials else ''}", None))
        out.append((f"      expected   {expected}", None))
        out.append((f"      retrieved  {retrieved}", None))
    more = more_misses(misses)
    if more:
        out.append((more, None))
    return out


def markdown(data: dict[str, Any]) -> str:
    """The report as a pull-request comment."""
    pin = data["evalset"]
    out = [
        f"### Retrieval: {md_text(title(data))}",
        "",
        f"Run {md_code(data['run']['path'])} ({data['run']['sha256'][:19]}…), "
        f"{data['counts']['scored']} item(s) scored, {scored_trials(data)} trial(s); set "
        f"fingerprint `{pin.get('fingerprint', '')[:19]}…`, {data['tool']}.",
        "",
    ]
    out += retrieval_miss_table(data, "Misses")
    after = ["", "Values with their 95% interval over items; n = items scored.", ""]
    after += split_details(data)
    after += ["<details><summary>Definitions</summary>", ""]
    after += [f"- `{name}`: {d['definition']}" for name, d in data["definitions"].items()]
    after += ["", f"Matching: {data['settings']['matching']}", "", "</details>"]
    after += [f"\n> {note}" for note in notes(data, md_text)]
    return comment(data, out, after)
