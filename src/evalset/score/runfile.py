"""Run files: what the system under test returned for each item of a set, one JSON object
per line (JSONL), one line per item and trial.

    {"id": "q-001", "retrieved": ["policies/returns.md#damaged-items", ...], "trial": 0,
     "latency_ms": 812, "cost": 0.0021, "answer": "..."}

``id`` is the item's id. ``retrieved`` lists what the retriever returned, best first; each
entry is a citation (``doc#section`` or ``doc``), a chunk as a retriever returns it
(``{"doc": ..., "text": ...}``), or a span of the document's source (``{"doc": ...,
"start": ..., "end": ...}``, character offsets, end excluded). ``trial`` (default 0) numbers
repeated runs of the same item; ``latency_ms`` and ``cost`` are numbers of the run's own
units, summarised in the report; ``answer`` is what the system answered (for answer
scoring); ``contexts`` lists the passages the answer was generated from, as text (for
faithfulness); ``metadata`` holds anything else. Other keys are refused, so that a misspelt key
never drops data silently.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import reduce
from itertools import chain
from json.scanner import make_scanner
from operator import add, attrgetter
from pathlib import Path
from typing import Any, cast

from evalset.corpus.names import nfc
from evalset.display import told_apart
from evalset.errors import CannotOpen, EvalsetError
from evalset.fsio import (
    NumberTooLong,
    RepeatedKey,
    TextError,
    decode_text,
    finite_number,
    long_number_at,
    not_text,
    read_input,
    unique_object,
)
from evalset.sets.citations import Citation
from evalset.sets.model import MAX_ID, states_nothing

KEYS = ("id", "retrieved", "trial", "latency_ms", "cost", "answer", "contexts", "metadata")
_KEYS = frozenset(KEYS)
_RETRIEVED_ALIASES = ("docs", "documents", "doc_ids", "document_ids", "results", "hits",
                      "retrieved_docs", "retrieved_documents", "retrieved_ids",
                      "citations")  # fmt: skip
MEANT = {
    **dict.fromkeys(("question_id", "qid", "query_id", "item_id", "example_id"), "id"),
    **dict.fromkeys(_RETRIEVED_ALIASES, "retrieved"),
    **dict.fromkeys(("response", "output", "prediction", "generated_answer"), "answer"),
    "retrieved_contexts": "contexts",
}
"""Keys other tools and home-made runs give what a run line's key holds, by that key: a
line holding one is told to rename it, not to put it under "metadata", which would drop it."""
CHUNK_KEYS = ("doc", "text", "start", "end", "metadata")
_CHUNK_KEYS = frozenset(CHUNK_KEYS)
_STR = frozenset([str])
_SCAN = make_scanner(cast(Any, json.JSONDecoder(object_pairs_hook=unique_object)))
"""Reads one JSON value at the start of a text: ``json.loads`` without its checks for white
space around the value; returns it with where it ended."""
MAX_ERRORS = 20
"""How many invalid lines ``--skip-invalid`` lists by name (all are counted)."""


class RunFileError(EvalsetError):
    """A run file, or one of its lines, that cannot be read."""


class RunFileMissing(RunFileError, CannotOpen):
    """A run file that cannot be opened."""


@dataclass(frozen=True, slots=True)
class Chunk:
    """A retrieved chunk given by its text, or by its span of the document's source."""

    doc: str
    text: str | None = None
    start: int | None = None
    end: int | None = None

    def to_json(self) -> dict[str, Any]:
        if self.text is not None:
            return {"doc": self.doc, "text": self.text}
        return {"doc": self.doc, "start": self.start, "end": self.end}


Entry = str | Chunk
"""A retrieved entry: a citation as written, or a chunk to resolve."""


@dataclass(slots=True)
class RunLine:
    """One line of a run file."""

    line: int
    id: str
    trial: int
    retrieved: list[Entry] | None
    latency_ms: float | None = None
    cost: float | None = None
    answer: str | None = None
    plain: bool = True
    """Whether every retrieved entry is a citation (no chunk to resolve)."""
    contexts: list[str] | None = None
    """The passages the answer was generated from (answer scoring: faithfulness)."""


@dataclass
class RunFile:
    """A read run file: its valid lines and, with ``skip_invalid``, the refused ones."""

    path: Path
    sha256: str
    lines: list[RunLine]
    invalid: list[tuple[int, str]] = field(default_factory=list)
    """(line, problem) of each line left out."""
    citations: set[str] | None = None
    """Every distinct entry its lines retrieved, in NFC, when every entry of the file is
    text (the usual run); None otherwise. It counts the entries of lines later left out:
    it is every valid line's only while ``invalid`` is empty."""
    kind: str = "retrieval"
    """What it is read for, ``retrieval`` or ``answers``: the example line its refusals show
    (``EXAMPLES``)."""
    shape: str | None = None
    """What the file looks like when no line of it is a run line (``_shape``): said with
    the refusal, since fixing lines one by one, or leaving them out, cannot help."""

    @property
    def trials(self) -> int:
        return len({line.trial for line in self.lines})


def _problem(obj: Any, plain: bool) -> str | None:
    """What is wrong with one parsed line, or None. Citations given as text are checked
    later, once per distinct text (``_bad_citations``); ``plain``: every retrieved entry is
    text."""
    if not isinstance(obj, dict):
        return f"is a JSON {_kind(obj)}, not an object; each line is one object like " + (
            '{"id": "q-001", "retrieved": ["doc.md#section"]}'
        )
    if not obj.keys() <= _KEYS:
        unknown = next(key for key in obj if key not in _KEYS)
        close = (
            [MEANT[unknown]] if unknown in MEANT else difflib.get_close_matches(unknown, KEYS, n=1)
        )
        hint = (
            f"did you mean {close[0]!r}?"
            if close
            else f'a line\'s keys are {", ".join(KEYS[:-1])}; put extra data under "metadata"'
        )
        return f"has an unknown key {unknown!r} ({hint})"
    ident = obj.get("id")
    if type(ident) is not str or not ident:
        return 'has no "id" text; give the id of the set item it answers'
    trial = obj.get("trial", 0)
    if type(trial) is not int or trial < 0 or trial > TRIAL_LIMIT:
        return (
            f'item {_shown_id(ident)}: "trial" must be a whole number from 0 to '
            f"{TRIAL_LIMIT:,}, not {_as_written(trial)}"
        )
    for key in ("latency_ms", "cost"):
        value = obj.get(key)
        if value is not None and (not finite_number(value) or value < 0):
            shown = _as_written(value)
            return f'item {_shown_id(ident)}: "{key}" must be a number from 0, not {shown}'
    answer = obj.get("answer")
    if answer is not None and not isinstance(answer, str):
        return f'item {_shown_id(ident)}: "answer" must be text, not {_a(_kind(answer))}'
    contexts = obj.get("contexts")
    if contexts is not None and (
        type(contexts) is not list or not all(isinstance(c, str) for c in contexts)
    ):
        return (
            f'item {_shown_id(ident)}: "contexts" must be a list of texts (the passages given '
            "to the model)"
        )
    retrieved = obj.get("retrieved")
    if retrieved is not None:
        if type(retrieved) is not list:
            return (
                f'item {_shown_id(ident)}: "retrieved" must be a list, not {_a(_kind(retrieved))}'
            )
        if not plain:
            for k, entry in enumerate(retrieved):
                wrong = _entry_problem(entry)
                if wrong:  # a citation before it may be wrong too: the first problem is said
                    k, wrong = _first_bad_citation(retrieved[:k]) or (k, wrong)
                    return f"item {_shown_id(ident)}: retrieved[{k}] {wrong}"
    return None


def _as_written(value: Any) -> str:
    """A value of a line as JSON writes it (``true``, ``"fast"``, not Python's ``True`` and
    ``'fast'``), cut after 24 characters when longer than 40."""
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= 40:
        return text
    return f"{text[:24]}…" + (" (a number too large)" if type(value) in (int, float) else "")


def _first_bad_citation(entries: list[Any]) -> tuple[int, str] | None:
    """The first of ``entries`` that is text but not a citation, with its problem."""
    for k, entry in enumerate(entries):
        if type(entry) is str:
            try:
                Citation.parse(entry)
            except ValueError as exc:
                return k, f"is not a citation ({exc})"
    return None


def _plain_texts(parsed: list[tuple[int, Any]]) -> set[str] | None:
    """The distinct entries of every retrieved list when all of them are text (the usual
    run: then no line needs a check of its own), else None."""
    lists = [obj.get("retrieved") for _, obj in parsed if type(obj) is dict]
    try:
        found = set(chain.from_iterable(r for r in lists if type(r) is list))
    except TypeError:  # an object (a chunk) or a list among the entries
        return None
    return found if set(map(type, found)) <= _STR else None


def retrieved_texts(lines: Sequence[RunLine]) -> set[str]:
    """The distinct entries the lines retrieved as text (citations, or what is meant as
    them), without their chunks."""
    texts: set[str] = set()
    for line in lines:
        if line.plain and line.retrieved:
            texts.update(line.retrieved)  # type: ignore[arg-type]
        elif line.retrieved:
            texts.update(e for e in line.retrieved if type(e) is str)
    return texts


def _bad_citations(lines: list[RunLine], texts: set[str] | None) -> list[tuple[int, str]]:
    """(line, problem) of the lines with a retrieved text that is not a citation; each
    distinct text is parsed once (a run repeats the same sections many times). ``texts``:
    every retrieved text of the file, when known (``_plain_texts``)."""
    if texts is None:
        texts = retrieved_texts(lines)
    bad = {}
    for text in texts:
        try:
            Citation.parse(text)
        except ValueError as exc:
            bad[text] = str(exc)
    if not bad:
        return []
    found = []
    for line in lines:
        for k, entry in enumerate(line.retrieved or []):
            if type(entry) is str and entry in bad:
                found.append(
                    (
                        line.line,
                        f"item {_shown_id(line.id)}: retrieved[{k}] is not a citation "
                        f"({bad[entry]})",
                    )
                )
                break
    return found


def _entry_problem(entry: Any) -> str | None:
    if isinstance(entry, str):
        return None  # checked once per distinct text, by _bad_citations
    if not isinstance(entry, dict):
        return (
            f"is a JSON {_kind(entry)}; an entry is a citation, "
            '{"doc": ..., "text": ...} or {"doc": ..., "start": ..., "end": ...}'
        )
    if not entry.keys() <= _CHUNK_KEYS:  # a misspelt "text" would leave only the span's
        unknown = next(key for key in entry if key not in _CHUNK_KEYS)
        close = difflib.get_close_matches(str(unknown), CHUNK_KEYS, n=1)
        hint = f"did you mean {close[0]!r}?" if close else 'put extra data under "metadata"'
        return f"has an unknown key {unknown!r} ({hint})"
    doc = entry.get("doc")
    if not isinstance(doc, str) or not doc:
        return 'has no "doc" text: name the document the chunk comes from'
    try:
        if Citation.parse(doc).section is not None:
            return f'names {doc!r} as "doc"; give the document alone (no "#section")'
    except ValueError as exc:
        return f'has a "doc" that is not a document id ({exc})'
    text, start, end = entry.get("text"), entry.get("start"), entry.get("end")
    if text is not None:
        if not isinstance(text, str) or states_nothing(text):
            return 'has a "text" that is not (non-empty) text'
        if start is not None or end is not None:
            return 'gives both "text" and "start"/"end"; give one of them'
        return None
    if start is None and end is None:
        return 'needs "text", or "start" and "end" as character offsets with 0 <= start < end'
    if start is None or end is None:
        given, other = ("start", "end") if end is None else ("end", "start")
        return (
            f'has "{given}" but no "{other}"; give both, as character offsets with 0 <= start '
            '< end, or the chunk\'s "text"'
        )
    for key, value in (("start", start), ("end", end)):
        if type(value) is not int:
            return (
                f'has "{key}": {_as_written(value)}, which is no whole number; "start" and '
                '"end" count characters, with 0 <= start < end'
            )
    if not 0 <= start < end:
        return (
            f'has "start" {start} and "end" {end}; they are character offsets with 0 <= start < end'
        )
    return None


def _kind(value: Any) -> str:
    names = {dict: "object", list: "list", str: "text", bool: "boolean", type(None): "null"}
    return names.get(type(value), "number")


def _a(kind: str) -> str:
    """A kind of JSON value with its article: "an object", not "a object"."""
    return f"an {kind}" if kind == "object" else f"a {kind}"


def _entries(raw: list[Any]) -> list[Entry]:
    """The entries of a line some of whose entries are chunks."""
    out: list[Entry] = []
    for e in raw:
        if isinstance(e, str):
            out.append(nfc(e))
        elif "text" in e and e["text"] is not None:
            out.append(Chunk(nfc(e["doc"]), text=e["text"]))
        else:
            out.append(Chunk(nfc(e["doc"]), start=e["start"], end=e["end"]))
    return out


_LONE_SURROGATE = (
    'holds a lone surrogate (a "\\ud800" to "\\udfff" escape without its pair), which is not '
    "text; escape a character beyond U+FFFF as its pair of surrogates, or write it as UTF-8"
)


_LONE_CR = (
    "a carriage return alone ends a line before it, so the next line is read as part of "
    "this one; save the file with LF or CRLF line ends"
)


def _parse_lines(path: Path, text: str) -> tuple[list[tuple[int, Any]], list[tuple[int, str]]]:
    """(line, parsed object) per content line, and (line, problem) for lines that are not
    JSON, or hold what is not text. Each line is read on its own, so a value can never be
    taken from two lines."""
    scan = _SCAN
    parsed, broken = [], []
    escapes = "\\ud" in text or "\\uD" in text  # a surrogate, alone or in a pair (an emoji)
    lines = text.split("\n")
    if "\ufeff" in text:  # a byte-order mark where files were joined (cat a.jsonl b.jsonl)
        lines = [line.removeprefix("\ufeff") for line in lines]
    for n, line in enumerate(lines, 1):
        if not line or line.isspace():
            continue
        try:
            value, end = scan(line, 0)
            if end != len(line) and line[end:].strip(" \t\r"):  # "\r": a CRLF file
                value = json.loads(line)  # something after the value: read for the reason
        except (StopIteration, ValueError, RecursionError):  # read again for the reason
            try:
                value = json.loads(line, object_pairs_hook=unique_object)
            except RepeatedKey as exc:
                broken.append((n, f"has the key {exc.key!r} twice in one object (column "
                               f"{exc.at(line) + 1}): JSON keeps only the last, silently; "
                               "keep one of them"))  # fmt: skip
                continue
            except json.JSONDecodeError as exc:
                before = line[: exc.pos]  # a lone CR (classic Mac OS) joins the next line
                joined = exc.msg == "Extra data" and "\r" in before[len(before.rstrip()) :]
                why = _LONE_CR if joined else exc.msg
                broken.append((n, f"is not JSON (column {exc.colno}: {why})"))
                continue
            except (ValueError, RecursionError) as exc:  # numbers too long, nesting too deep
                at = long_number_at(line) if isinstance(exc, ValueError) else None
                if at is not None:
                    long = NumberTooLong(line, at)
                    broken.append((n, f"is not JSON that can be read (column {long.colno}: "
                                   f"{long.msg})"))  # fmt: skip
                    continue
                broken.append((n, "is not JSON that can be read (too deeply nested, or a "
                               "number too long)"))  # fmt: skip
                continue
        if escapes and ("\\ud" in line or "\\uD" in line) and not_text(value):
            broken.append((n, _LONE_SURROGATE))
            continue
        parsed.append((n, value))
    return parsed, broken


def read_run(
    path: Path, skip_invalid: bool = False, defer: bool = False, kind: str = "retrieval"
) -> RunFile:
    """Read a run file; a bad line raises ``RunFileError`` naming it, unless
    ``skip_invalid``, which leaves it out and lists it. ``defer``: bad lines are only listed
    (``RunFile.invalid``), for a scorer that finds more (ids not in its set) and refuses them
    all at once with ``refuse_lines``. ``kind``: what the run is read for (``retrieval`` or
    ``answers``), which the example line of a refusal shows."""
    try:
        data = read_input(path)
    except FileNotFoundError:
        raise RunFileMissing(f"{path}: no such file; give the path of the run file.") from None
    except IsADirectoryError:
        raise RunFileMissing(f"{path}: is a folder; give the path of the run file.") from None
    except OSError as exc:
        raise RunFileMissing(f"{path}: cannot be read ({exc.strerror}).") from None
    try:  # UTF-16, a NUL byte or bad UTF-8 named as for every other text file
        text = decode_text(data, path, "run file").removeprefix("\ufeff")
    except TextError as exc:
        raise RunFileError(str(exc)) from None
    parsed, invalid = _parse_lines(path, text)
    # names in NFC, as snapshots hold them: none to change where every name is ASCII, which
    # a file of ASCII text holds unless it writes other characters as \u escapes
    ascii_file = text.isascii() and "\\u" not in text
    texts = _plain_texts(parsed)
    if texts is not None and not ascii_file:
        texts = set(map(nfc, texts))
    own: list[RunLine] = []  # the lines without a problem of their own, but for citations
    for n, obj in parsed:
        retrieved = obj.get("retrieved") if type(obj) is dict else None
        plain = (
            texts is not None or type(retrieved) is not list or set(map(type, retrieved)) <= _STR
        )
        problem = _problem(obj, plain)
        if problem is not None:
            invalid.append((n, problem))
            continue
        entries = retrieved if plain or retrieved is None else _entries(retrieved)
        if entries and plain and not ascii_file:  # names in NFC, as snapshots hold them
            entries = list(map(nfc, entries))
        own.append(
            RunLine(
                n,
                obj["id"],
                obj.get("trial", 0),
                entries,
                obj.get("latency_ms"),
                obj.get("cost"),
                obj.get("answer"),
                plain,
                obj.get("contexts"),
            )
        )
    cited = _bad_citations(own, texts)
    invalid += cited
    refused = {n for n, _ in cited}
    # a line refused for its own problem takes no (id, trial) away from a later line
    lines: list[RunLine] = []
    first: dict[tuple[str, int], int] = {}
    for line in own:
        if refused and line.line in refused:
            continue
        key = (line.id, line.trial)
        if key in first:
            invalid.append(
                (
                    line.line,
                    f"repeats item {_shown_id(key[0])} trial {key[1]} of line {first[key]}; number "
                    'repeated runs with "trial"',
                )
            )
            continue
        first[key] = line.line
        lines.append(line)
    beyond = _totals_beyond_a_number(lines)
    if beyond:
        invalid += beyond
        left_out = {n for n, _ in beyond}
        lines = [line for line in lines if line.line not in left_out]
    invalid.sort()
    run = RunFile(path, "sha256:" + hashlib.sha256(data).hexdigest(), lines, invalid, texts)
    run.kind = kind
    if invalid and not lines:
        run.shape = _shape(text, invalid)
    if not defer:
        refuse_lines(run, [], skip_invalid)
    elif not lines and not invalid:
        _no_lines(run)
    return run


TRIAL_LIMIT = 2**31 - 1
"""The largest trial number (a count of repeated runs, kept as a 32-bit integer by the tools
that read reports)."""


def _totals_beyond_a_number(lines: list[RunLine]) -> list[tuple[int, str]]:
    """The lines whose latency or cost would take the run's total beyond the largest number
    a report can hold (about 1.8e308, where JSON would get ``Infinity``), as (line,
    problem); the total is kept without them."""
    found: dict[int, str] = {}
    for key in ("latency_ms", "cost"):
        # added one by one in order, as the report adds them (intervals.running_total)
        if math.isfinite(reduce(add, map(float, filter(None, map(attrgetter(key), lines))), 0.0)):
            continue
        total = 0.0
        for line in lines:
            value = getattr(line, key) or 0
            if math.isfinite(total + float(value)):
                total += value
            elif line.line not in found:
                why = "takes the run's total beyond the largest number a report holds"
                found[line.line] = (
                    f'item {_shown_id(line.id)}: "{key}" {value!r} {why} (check its unit)'
                )
    return sorted(found.items())


def _no_lines(run: RunFile) -> None:
    raise RunFileError(
        f"{run.path}: holds no {'valid ' if run.invalid else ''}run line; write one JSON object "
        f"per line, like {EXAMPLES[run.kind]}."
    )


def _shown_id(ident: str) -> str:
    """A run line's id as messages name it: one longer than any item's id may be clipped,
    as other long values are (a line can hold megabytes, and a message is one sentence)."""
    if len(ident) <= MAX_ID:  # quoted when it holds white space, which shows nothing bare
        return repr(ident) if any(map(str.isspace, ident)) else ident
    return f"{ident[:24]}… ({len(ident):,} characters, longer than any item's id)"


def unknown_item(ident: str, known: list[str], set_name: str) -> str:
    """The problem of a run line whose id is not in the set, with the closest id."""
    close = difflib.get_close_matches(ident, known, n=1)
    hint = f"did you mean {close[0]!r}?{told_apart(ident, close[0])}" if close else "check the id"
    return f"item {_shown_id(ident)} is not in set {set_name} ({hint})"


def refuse_lines(run: RunFile, problems: list[tuple[int, str]], skip_invalid: bool) -> None:
    """Lines a scorer cannot use, as (line, problem), with the lines the run file itself got
    wrong (``run.invalid``): the first of them all is raised naming its line, and how many
    more there are, unless ``skip_invalid``, which lists them with the run's invalid lines and
    leaves them out of ``run.lines``. A run left with no line is refused."""
    if problems:
        run.invalid = sorted(run.invalid + problems)
        refused = {n for n, _ in problems}
        run.lines = [line for line in run.lines if line.line not in refused]
    if run.invalid and (not skip_invalid or not run.lines):
        n, problem = run.invalid[0]
        count = len(run.invalid)
        more = f" ({count - 1} more invalid line(s))" if count > 1 else ""
        fix = "fix the line, or leave invalid lines out with --skip-invalid"
        if not run.lines:  # leaving them out would leave nothing
            fix = SHAPES.get(run.shape or "", NONE_LEFT[count > 1])
            fix = fix.replace("FILE", str(run.path)).replace("EXAMPLE", EXAMPLES[run.kind])
        raise RunFileError(f"{run.path}:{n}: {problem}{more}; {fix}.")
    if not run.lines:
        _no_lines(run)


EXAMPLES = {
    "retrieval": '{"id": "q-001", "retrieved": ["policies/returns.md#damaged-items"]}',
    "answers": '{"id": "q-001", "answer": "Damaged items can be returned within 30 days."}',
}
"""A run line of each kind, as refusals show it."""
SHAPES = {
    "trec-run": "this looks like a TREC run (query, Q0, document, rank, score, tag): score it "
    "in TREC mode, `evalset score retrieval --qrels QRELS --run FILE`",
    "trec-qrels": "this looks like TREC qrels (query, 0, document, relevance): give them with "
    "--qrels, and the run with --run",
    "not-json": "no line is JSON: a run file holds one JSON object per line, like EXAMPLE",
    "json-list": "the file is one JSON list written over several lines, where a run file "
    "holds one JSON object per line (JSON Lines), like EXAMPLE: `jq -c '.[]' FILE` writes "
    "its objects so",
    "json-object": "the file is one JSON object written over several lines, where a run file "
    "holds one JSON object per line (JSON Lines), like EXAMPLE: `jq -c . FILE` writes it so",
}
"""What a file no line of which is a run line looks like (``_shape``), and what to do."""
NONE_LEFT = (
    "fix it: no other line can be scored",
    "fix them: no line can be scored, so leaving them out (--skip-invalid) would leave nothing",
)
"""What to do when every line is invalid, for one invalid line and for several."""


def _shape(text: str, invalid: list[tuple[int, str]]) -> str | None:
    """What a file none of whose lines is a run line looks like: TREC's run or qrels
    columns on its first line, or no JSON on any line; None when it is lines of JSON."""
    try:  # a JSON document over several lines (json.dump with indent), not JSON Lines
        whole = json.loads(text.removeprefix("\ufeff")) if "\n" in text.strip() else None
    except (ValueError, RecursionError):
        whole = None
    if isinstance(whole, (list, dict)):
        return "json-list" if isinstance(whole, list) else "json-object"
    first = next((line for line in text.splitlines() if line.strip()), "")
    columns = first.split()
    if len(columns) in (4, 6) and columns[3].lstrip("-").isdigit():
        if len(columns) == 4:
            return "trec-qrels"
        try:
            float(columns[4])
            return "trec-run"
        except ValueError:
            pass
    if all(problem.startswith("is not JSON") for _, problem in invalid):
        return "not-json"
    return None


def refuse_nothing_to_score(run: RunFile, which: str, set_name: str, ignored: Counter[str]) -> None:
    """Refuse a run none of whose lines is of an item the scorer scores (``which``: "active",
    "active answerable"), ``ignored`` counting its lines by what their items are: scoring
    every item as retrieving or answering nothing would measure no system."""
    why = ", ".join(f"{n} of {what} items" for what, n in sorted(ignored.items()))
    raise RunFileError(
        f"{run.path}: answers no {which} item of set {set_name}"
        + (f" (its lines are {why})" if why else "")
        + "; there is nothing to score: give the run of the set's questions."
    )
