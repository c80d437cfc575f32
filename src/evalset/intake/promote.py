"""Production failures become draft items: read, map, redact, dedupe, append.

A failure file is JSONL (one record per line) or a JSON array, in the shape of
``schemas/failure.schema.json`` or any other shape mapped onto it by dotted paths
(``--map question=inputs.query``) or by a preset for a tracing tool's run export. Every
free-text field is redacted (``evalset.redact``) before anything else sees it, so no
original value reaches the set file, the summary or an error message.

Records are checked first; one invalid record and nothing is written, unless the caller
asks to skip invalid ones. Deduplication and the holdout assignment are decided under the
set file's edit lock, against the file as it is at that moment, so concurrent promotes into
one set neither lose rows nor add the same failure twice.
"""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evalset.config import PromoteConfig
from evalset.errors import EvalsetError
from evalset.fsio import (
    NumberTooLong,
    RepeatedKey,
    json_loads,
    json_text_lines,
    long_number_at,
    not_json,
    unique_object,
)
from evalset.holdout.seal import Arrivals
from evalset.intake.redact import PatternTooSlow, Redactor, redact
from evalset.sets.findings import field_path
from evalset.sets.messages import error_loc, field_message, schema_message
from evalset.sets.model import ID_PATTERN, FailureRecord, Item, SealedItem
from evalset.sets.sealed import IDENTITY_ENV

FIELDS = tuple(FailureRecord.model_fields)
TEXT_FIELDS = ("question", "answer", "note")
"""Free text, redacted; ``retrieved`` entries are redacted too."""

PRESETS: dict[str, dict[str, list[str]]] = {
    # Langfuse traces, as the UI's table export (JSON/JSONL), the blob-storage export and
    # GET /api/public/traces write them: id, timestamp, input, output, metadata.
    "langfuse": {
        "question": ["input.question", "input.query", "input.input", "input.messages.-1.content",
                     "input.messages.-1.content.0.text", "input"],
        "answer": ["output.answer", "output.output", "output.content", "output.text", "output"],
        "trace": ["id"],
        "date": ["timestamp"],
        "retrieved": ["metadata.retrieved", "metadata.sources", "output.sources",
                      "output.source_documents"],
        "category": ["metadata.category"],
        "note": ["metadata.note", "metadata.feedback"],
    },
    # LangSmith root runs, as the run export and GET /runs write them: id, trace_id,
    # start_time, inputs, outputs, extra.metadata.
    "langsmith": {
        "question": ["inputs.question", "inputs.query", "inputs.input",
                     "inputs.messages.-1.content", "inputs.messages.-1.content.0.text"],
        "answer": ["outputs.answer", "outputs.output", "outputs.output_text", "outputs.result",
                   "outputs.text"],
        "trace": ["trace_id", "id"],
        "date": ["start_time"],
        "retrieved": ["outputs.source_documents", "outputs.sources", "outputs.context",
                      "extra.metadata.retrieved"],
        "category": ["extra.metadata.category"],
        "note": ["extra.metadata.note"],
    },
}  # fmt: skip
"""Preset name -> field -> dotted paths tried in order (the first that holds a value wins)."""

_SOURCE_KEYS = ("citation", "source", "id", "doc_id", "document")
"""Keys naming a retrieved document, when an export lists retrieved documents as objects."""


class PromoteRefused(EvalsetError):
    """The failure file cannot be promoted as asked; nothing was written."""


@dataclass
class Added:
    line: int
    id: str
    holdout: bool | None
    redactions: dict[str, int]


@dataclass
class Skipped:
    line: int
    trace: str | None
    item: str
    reason: str


@dataclass
class Invalid:
    line: int
    problem: str
    column: int | None = None


@dataclass
class PromoteResult:
    added: list[Added] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    invalid: list[Invalid] = field(default_factory=list)
    traces_appended: dict[str, list[str]] = field(default_factory=dict)
    """Existing item id -> traces appended to its ``origin.traces``."""
    sealed: list[str] = field(default_factory=list)
    """Drafts assigned to the holdout of a set whose holdout is sealed: sealed on arrival."""
    recipients: list[str] = field(default_factory=list)
    """Who the sealed drafts were sealed to."""
    unchecked_sealed: int = 0
    """Sealed items the key did not open: the records were not compared with them."""
    written: bool = False
    """Whether the set file was changed: a draft added or a trace appended (never on a dry
    run, nor when every record was a duplicate already recorded)."""
    crowded: list[tuple[int, list[int]]] = field(default_factory=list)
    """Groups of look-alike questions too many to compare one by one (``MAX_BUCKET``), each
    as its number of questions and the lines of the records among them: those records were
    not checked for near duplicates of one another or of the group's items."""

    @property
    def redactions(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for added in self.added:
            total.update(added.redactions)
        return total

    def to_json(self) -> dict[str, Any]:
        return {
            "written": self.written,
            "added": [
                {"line": a.line, "id": a.id, "holdout": a.holdout, "redactions": a.redactions}
                for a in self.added
            ],
            "skipped": [
                {"line": s.line, "trace": s.trace, "item": s.item, "reason": s.reason}
                for s in self.skipped
            ],
            "invalid": [{"line": i.line, "problem": i.problem} for i in self.invalid],
            "traces_appended": self.traces_appended,
            "redactions": dict(sorted(self.redactions.items())),
            "sealed": self.sealed,
            "unchecked_sealed": self.unchecked_sealed,
            "crowded": [{"questions": n, "lines": lines} for n, lines in self.crowded],
        }


# -- reading ---------------------------------------------------------------------------------


def read_records(
    text: str, source: str, redactor: Redactor | None = None
) -> tuple[list[tuple[int, Any]], list[Invalid]]:
    """(line number, value) per record, and the lines that are not JSON. A JSON array is
    read as a whole (each record numbered by the line it starts on); JSONL line by line.
    What the JSON reader says of a record passes through ``redactor``: it may quote a key,
    which is the sender's text (an email address given twice)."""
    redactor = redactor or Redactor()
    if text.lstrip().startswith("["):
        return _json_array(text, source, redactor), []
    records: list[tuple[int, Any]] = []
    bad: list[Invalid] = []
    for number, line in enumerate(json_text_lines(text), 1):
        if not line.strip():
            continue
        try:
            records.append((number, json_loads(line, unique_keys=True)))
        except json.JSONDecodeError as exc:
            problem = not_json(exc, redact(exc.msg, redactor))
            bad.append(Invalid(number, problem, exc.colno))
    return records, bad


_SPACE = " \t\r\n"
"""JSON's white space."""


def _json_array(text: str, source: str, redactor: Redactor) -> list[tuple[int, Any]]:
    """The records of a JSON array, read one at a time (a record's line is where it
    starts), as strictly as JSON: a comma between records and none after the last, and
    nothing but white space after the array (two arrays joined, or lines after one, would
    otherwise be left out without a word)."""
    decoder = json.JSONDecoder(object_pairs_hook=unique_object)
    records: list[tuple[int, Any]] = []
    pos = _skip(text, text.index("[") + 1)
    closed = False
    try:
        if pos < len(text) and text[pos] == "]":
            pos, closed = pos + 1, True
        while not closed and pos < len(text):
            try:
                value, end = decoder.raw_decode(text, pos)
            except RecursionError:
                raise json.JSONDecodeError("values nested too deeply to read", text, pos) from None
            except RepeatedKey as exc:
                raise json.JSONDecodeError(exc.message, text, pos + exc.at(text[pos:])) from None
            except json.JSONDecodeError:
                raise
            except ValueError:  # an integer too long to read
                at = long_number_at(text[pos:])
                if at is None:
                    raise
                raise NumberTooLong(text, pos + at) from None
            records.append((text.count("\n", 0, pos) + 1, value))
            pos = _skip(text, end)
            if pos < len(text) and text[pos] == ",":
                pos = _skip(text, pos + 1)  # a value must follow: "[{…},]" is refused
            elif pos < len(text) and text[pos] == "]":
                pos, closed = pos + 1, True
            elif pos < len(text):
                raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
        if not closed:
            raise PromoteRefused(f"{source}: the JSON array is not closed; nothing was promoted.")
        rest = _skip(text, pos)
        if rest < len(text):
            raise json.JSONDecodeError("Extra data after the array", text, rest)
    except json.JSONDecodeError as exc:
        raise PromoteRefused(
            f"{source}:{exc.lineno}:{exc.colno}: "
            f"{not_json(exc, redact(exc.msg, redactor))}; fix the file, "
            "nothing was promoted."
        ) from None
    return records


def _skip(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _SPACE:
        pos += 1
    return pos


# -- mapping ---------------------------------------------------------------------------------


def parse_map(spec: str | None, preset: str | None) -> dict[str, list[str]] | None:
    """The field -> paths mapping of ``--preset`` overlaid with ``--map``; None for records
    already in the failure-record shape."""
    if preset is None and not spec:
        return None
    mapping: dict[str, list[str]] = {}
    if preset is not None:
        if preset not in PRESETS:
            raise PromoteRefused(f"{preset!r} is not a preset; use one of {', '.join(PRESETS)}.")
        mapping = {name: list(paths) for name, paths in PRESETS[preset].items()}
    given: dict[str, str] = {}
    for part in (spec or "").split(","):
        if not part.strip():
            continue
        name, eq, paths = part.partition("=")
        name = name.strip()
        if not eq or not paths.strip():
            raise PromoteRefused(
                f"--map {part.strip()!r} is not FIELD=PATH; write it like "
                "question=inputs.query,answer=outputs.output."
            )
        if name in given:  # the last would win without a word
            first, then = f"{name}={given[name]}", f"{name}={paths.strip()}"
            raise PromoteRefused(
                f"--map names {name} twice ({first!r} and {then!r}); give each field once, "
                f"with its paths as alternatives: {first}|{paths.strip()}."
            )
        given[name] = paths.strip()
        if name not in FIELDS:
            close = difflib.get_close_matches(name, FIELDS, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            raise PromoteRefused(
                f"--map names the field {name!r}, which failure records do not have; "
                f"{hint}the fields are {', '.join(FIELDS)}."
            )
        mapping[name] = [p.strip() for p in paths.split("|") if p.strip()]
    if "question" not in mapping:
        raise PromoteRefused(
            "--map must say where the question is, for example --map question=inputs.query."
        )
    return mapping


def _lookup(value: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(value, dict):
            value = value.get(part)
        elif isinstance(value, list) and part.lstrip("-").isdigit():
            index = int(part)
            value = value[index] if -len(value) <= index < len(value) else None
        else:
            return None
        if value is None:
            return None
    return value


def _retrieved(value: Any) -> Any:
    """Retrieved documents as a list of strings, whether exported as strings or objects."""
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        return value
    out = []
    for entry in value:
        if isinstance(entry, dict):
            meta = entry.get("metadata")
            meta = meta if isinstance(meta, dict) else {}
            # a citation or source names the document, in the entry or its metadata, before
            # an id does (a LangChain Document's `id` is its own, its source in metadata)
            names = [e.get(k) for k in _SOURCE_KEYS[:2] for e in (entry, meta)]
            names += [e.get(k) for k in _SOURCE_KEYS[2:] for e in (entry, meta)]
            entry = next((n for n in names if isinstance(n, str) and n), entry)
        out.append(entry)
    return out


def _mapped(raw: Any, name: str, paths: list[str]) -> tuple[Any, tuple[str, str] | None]:
    """The value of field ``name``: at the first of ``paths`` that holds one, and for a text
    field the first that holds text (a preset's next path may hold it, where the first holds
    an object). When no path holds text but one holds something else, that path and what it
    holds, so the text field is not dropped without a word."""
    other: tuple[str, str] | None = None
    for path in paths:
        value = _lookup(raw, path)
        if name in TEXT_FIELDS and value is not None and not isinstance(value, str):
            other = other or (path, _kind(value))
            continue
        if value is not None:
            return _as_mapped(name, value), None
    return None, other


def _as_mapped(name: str, value: Any) -> Any:
    """A field's value as a record holds it: retrieved documents as a list of texts."""
    return _retrieved(value) if name == "retrieved" else value


def _kind(value: Any) -> str:
    """What a JSON value is, in words that quote none of it."""
    if isinstance(value, dict):
        return "a JSON object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, bool):
        return "true or false"
    return "a number"


def apply_map(raw: Any, mapping: dict[str, list[str]] | None) -> tuple[Any, str | None]:
    """The record in the failure-record shape (validated afterwards), or what makes it
    unusable, in words that quote none of its values."""
    if not isinstance(raw, dict):
        return raw, "is not a JSON object"
    if mapping is None:  # read as a mapping of each field to its own name reads it
        return {k: _as_mapped(k, v) for k, v in raw.items()}, None
    record: dict[str, Any] = {}
    for name, paths in mapping.items():
        value, other = _mapped(raw, name, paths)
        if value is not None:
            record[name] = value
        elif other is not None and name != "question":
            path, kind = other
            return record, (
                f"{name} at {path} is {kind}, not text; point --map {name}=PATH at the text "
                "it holds"
            )
    if "question" not in record:
        tried = ", ".join(mapping["question"])
        return record, (
            f"has no question text at {tried}; point --map question=PATH at the field that holds it"
        )
    return record, None


# -- checking and redacting ------------------------------------------------------------------


def _validation_problem(exc: ValidationError, redactor: Redactor) -> str:
    """What is wrong with a record, in the sentence a set file's error of the kind gets
    (``field_message``), with the fix."""
    errors = exc.errors()
    first = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    loc = error_loc(first)
    # A record's keys are its sender's text too: one may be an email address.
    where = redact(field_path(loc), redactor)
    where = where or "record"
    if first["type"] == "extra_forbidden":
        close = difflib.get_close_matches(str(first["loc"][0]), FIELDS, n=1)
        hint = f" (did you mean {close[0]}?)" if close and where == first["loc"][0] else ""
        return (
            f"{where} is not a failure-record field{hint}; records of another shape need "
            "--map or --preset"
        )
    if first["type"] == "missing":
        return f"{where} is missing; records of another shape need --map or --preset"
    value = first.get("input")
    if isinstance(value, str):  # the sentence may quote it, or a name made of it
        first = {**first, "input": redact(value, redactor)}
    if loc and loc[0] in TEXT_FIELDS and isinstance(value, (dict, list)):
        # as a mapped field holding an object is told (``apply_map``)
        text, _ = schema_message(first, is_item=True)
        return f"{where}: {text}; point --map {loc[0]}=PATH at the text it holds"
    if loc and loc[0] == "retrieved" and isinstance(value, dict):
        text, _ = schema_message(first, is_item=True)
        keys = ", ".join(_SOURCE_KEYS)
        return f"{where}: {text}; give the document as text, or an object with one of {keys}"
    # the sentence may quote the value (a category, a date given as an object): redacted too
    return f"{where}: {redact(field_message(first), redactor)}"


_NOT_IN_IDS = {"CARD", "IBAN"}
"""Finds not taken for personal data in a trace id: numeric and hexadecimal ids (a snowflake
id, a hash) pass the Luhn or the IBAN check by chance."""


def _personal_trace(trace: str, redactor: Redactor) -> str | None:
    """Why a trace id that holds personal data (a session keyed by an email address, mapped
    with ``--map trace=…``) cannot be promoted: redacted, it would find no trace and tell
    different ones apart no more, and as it is it would be written to the set
    (``origin.trace``) and the summary."""
    kinds = sorted({f.kind for f in redactor.find(trace)} - _NOT_IN_IDS)
    if not kinds:
        return None
    return (
        f"trace holds personal data ({', '.join(kinds)}), which the set's origin.trace would "
        "keep as it is; map the trace to an id that holds none (`--map trace=PATH`, such as "
        "the tracing tool's trace id), or leave it out of the map"
    )


@dataclass
class Candidate:
    """A valid, redacted record, ready to become a draft item."""

    line: int
    record: FailureRecord
    redactions: dict[str, int]


def prepare(
    records: Sequence[tuple[int, Any]],
    mapping: dict[str, list[str]] | None,
    redactor: Redactor,
    categories: Mapping[str, str] | None,
) -> tuple[list[Candidate], list[Invalid]]:
    candidates: list[Candidate] = []
    invalid: list[Invalid] = []
    for line, raw in records:
        try:
            found = _prepared(line, raw, mapping, redactor, categories)
        except PatternTooSlow as exc:
            found = Invalid(line, exc.problem)
        if isinstance(found, Invalid):
            invalid.append(found)
        else:
            candidates.append(found)
    return candidates, invalid


def _prepared(
    line: int,
    raw: Any,
    mapping: dict[str, list[str]] | None,
    redactor: Redactor,
    categories: Mapping[str, str] | None,
) -> Candidate | Invalid:
    """One record, valid and redacted, or its problem."""
    mapped, problem = apply_map(raw, mapping)
    if problem is None:
        try:
            record = FailureRecord.model_validate(mapped)
        except ValidationError as exc:
            problem = _validation_problem(exc, redactor)
    if problem is None and categories is not None and record.category not in (
        None, *categories
    ):  # fmt: skip
        close = difflib.get_close_matches(record.category or "", list(categories), n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        shown = redact(record.category or "", redactor)
        problem = (
            f"category: {shown!r} is not declared in the set; {hint}declare it in the "
            "set's categories or correct the record"
        )
    if problem is None and record.trace:
        problem = _personal_trace(record.trace, redactor)
    if problem is not None:
        return Invalid(line, problem)
    texts = {name: getattr(record, name) for name in TEXT_FIELDS if getattr(record, name)}
    texts.update({f"retrieved.{n}": r for n, r in enumerate(record.retrieved)})
    redaction = redactor.record(texts)
    clean = record.model_copy(
        update={
            **{name: redaction.texts[name] for name in TEXT_FIELDS if name in texts},
            "retrieved": [redaction.texts[f"retrieved.{n}"] for n in range(len(record.retrieved))],
        }
    )
    return Candidate(line, clean, dict(sorted(redaction.counts.items())))


# -- deciding under the lock -----------------------------------------------------------------


def _item_id(candidate: Candidate, id_from: str) -> str | None:
    from evalset.intake.importer import question_id

    if id_from == "trace":
        trace = candidate.record.trace
        return trace if trace is not None and re.fullmatch(ID_PATTERN, trace) else None
    return question_id(candidate.record.question)


def _draft(candidate: Candidate, ident: str) -> dict[str, Any]:
    record = candidate.record
    origin: dict[str, Any] = {"kind": "production"}
    for key, value in (
        ("trace", record.trace),
        ("date", record.date),
        ("observed_answer", record.answer),
        ("retrieved", record.retrieved or None),
        ("note", record.note),
        ("redactions", candidate.redactions or None),
    ):
        if value is not None:
            origin[key] = value
    item: dict[str, Any] = {"id": ident, "question": record.question}
    if record.category:
        item["category"] = record.category
    item["status"] = "draft"
    item["origin"] = origin
    return item


@dataclass
class Decision:
    drafts: list[dict[str, Any]]
    result: PromoteResult


def decide(
    entries: Sequence[Item | SealedItem],
    candidates: Sequence[Candidate],
    id_from: str,
    ratio: float,
    refused: Callable[[str], str | None],
    dry_run: bool = False,
    released: Sequence[Item] = (),
    source: str = "the failure file",
) -> Decision:
    """Which candidates become drafts and which are duplicates, against ``entries`` (the set
    as it is now); the drafts get their holdout assignment by the split rule. A draft whose
    id is that of an item the schema refuses (``refused`` says why, as ``SetFile.not_valid``)
    refuses the run: whether the record is that item cannot be told until it is fixed.
    ``dry_run``: the reasons say what would be done. ``released``: as for ``plan_split``.
    ``source``: the failure file, as the refusals name it."""
    from evalset.holdout.split import plan_split
    from evalset.sets.neardup import near_duplicate_pairs

    result = PromoteResult()
    existing = [e for e in entries if isinstance(e, Item) and e.status != "retired"]
    by_trace: dict[str, str] = {}
    for item in existing:
        if item.origin is not None:
            for trace in (item.origin.trace, *item.origin.traces):
                if trace is not None:
                    by_trace.setdefault(trace, item.id)
    ids = {entry.id for entry in entries}
    plain = {entry.id: entry for entry in entries if isinstance(entry, Item)}
    questions = [item.question for item in existing] + [c.record.question for c in candidates]
    partners: dict[int, list[int]] = {}
    crowded: list[list[int]] = []
    for a, b in near_duplicate_pairs(questions, crowded):
        partners.setdefault(b, []).append(a)  # b comes later: it is the one skipped
    result.crowded = [
        (len(group), [candidates[k - len(existing)].line for k in group if k >= len(existing)])
        for group in crowded
        if group[-1] >= len(existing)  # a group of the set's items alone is validate's to report
    ]
    owner: dict[int, str] = {k: item.id for k, item in enumerate(existing)}
    drafts: dict[str, dict[str, Any]] = {}
    for n, candidate in enumerate(candidates):
        k = len(existing) + n
        trace, line = candidate.record.trace, candidate.line
        if trace is not None and trace in by_trace:
            owner[k] = by_trace[trace]
            earlier = " earlier in this file" if by_trace[trace] in drafts else ""
            reason = f"trace already promoted{earlier} as {by_trace[trace]}"
            result.skipped.append(Skipped(line, trace, by_trace[trace], reason))
            continue
        match = next((owner[a] for a in partners.get(k, []) if a in owner), None)
        if match is not None:
            owner[k] = match
            why = f"near duplicate of {match}'s question"
            if trace is not None:
                by_trace[trace] = match
                if match in drafts:
                    drafts[match]["origin"].setdefault("traces", []).append(trace)
                else:
                    result.traces_appended.setdefault(match, []).append(trace)
                why += f"; trace {'would be ' if dry_run else ''}added to its origin.traces"
            result.skipped.append(Skipped(line, trace, match, why))
            continue
        ident = _item_id(candidate, id_from)
        if ident is None:
            problem = "has no trace usable as an item id (letters, digits, . _ -)"
            result.invalid.append(Invalid(line, problem))
            continue
        owner[k] = ident
        if id_from == "trace" and ident in plain and trace not in _traces_of(plain[ident]):
            # an id that says nothing of the question, which an item made from another
            # record (or by hand) has
            raise PromoteRefused(
                f"{source}:{line}: the record takes the id {ident!r} from its trace (--id-from "
                f"trace), and item {ident!r} is another, made from no such trace; promote it "
                "without --id-from trace (its id then comes from its question), or rename "
                "that item. Nothing was promoted."
            )
        if ident in ids:
            why = _same_id(ident, trace, plain, drafts, result, dry_run)
            if trace is not None:
                by_trace[trace] = ident
            result.skipped.append(Skipped(line, trace, ident, why))
            continue
        invalid = refused(ident)
        if invalid is not None:
            raise PromoteRefused(
                f"{invalid}, then promote again (the record of {source}:{line} would be item "
                f"{ident!r}; nothing was promoted)."
            )
        ids.add(ident)
        if trace is not None:
            by_trace[trace] = ident
        drafts[ident] = _draft(candidate, ident)
        result.added.append(Added(line, ident, None, candidate.redactions))
    new = [Item.model_validate(d) for d in drafts.values()]
    plan = plan_split([*entries, *new], ratio, released)
    sides = {**dict.fromkeys(plan.holdout, True), **dict.fromkeys(plan.tuning, False)}
    if any(isinstance(e, SealedItem) for e in entries):
        # without the key, a draft's question cannot be compared with the sealed holdout's:
        # one in tuning could repeat one of them, for the tuners to see; as `split` does,
        # it is left without a side (`split` with the key gives it one)
        sides = {ident: True for ident, held in sides.items() if held}
    for added in result.added:
        added.holdout = sides.get(added.id)
        if added.holdout is not None:
            drafts[added.id] = _with_holdout(drafts[added.id], added.holdout)
    return Decision(list(drafts.values()), result)


def _same_id(
    ident: str,
    trace: str | None,
    plain: Mapping[str, Item],
    drafts: Mapping[str, dict[str, Any]],
    result: PromoteResult,
    dry_run: bool,
) -> str:
    """Why a record whose id an item (or an earlier record's draft) has already is skipped,
    its trace added to that item's ``origin.traces``: a draft reworded in review keeps the
    id hashed from the question as it came, and the trace of the same question must not
    be lost. A sealed item the key did not open cannot be changed."""
    why = f"{ident} exists already"
    if trace is None:
        return why
    if ident in drafts:
        drafts[ident]["origin"].setdefault("traces", []).append(trace)
    elif ident not in plain:
        return f"{why}, sealed: its trace can be added with the key ({IDENTITY_ENV})"
    elif trace in _traces_of(plain[ident]):
        return f"{why} with this trace"
    else:
        result.traces_appended.setdefault(ident, []).append(trace)
    return f"{why}; trace {'would be ' if dry_run else ''}added to its origin.traces"


def _traces_of(item: Item) -> list[str]:
    if item.origin is None:
        return []
    return [t for t in (item.origin.trace, *item.origin.traces) if t is not None]


def _with_holdout(draft: dict[str, Any], holdout: bool) -> dict[str, Any]:
    """The draft with ``holdout`` where set files keep it: after the category."""
    head: dict[str, Any] = {k: draft[k] for k in ("id", "question", "category") if k in draft}
    return {**head, "holdout": holdout, **draft}


def _append_traces(traces: list[str]) -> Any:
    from evalset.sets.standins import refuse_reserved

    for trace in traces:
        refuse_reserved(trace, f"trace {trace!r}")

    def edit(entry: Any) -> None:
        from ruamel.yaml.comments import CommentedMap, CommentedSeq

        if not isinstance(entry.get("origin"), dict):
            entry["origin"] = CommentedMap()
        origin = entry["origin"]
        if not isinstance(origin.get("traces"), list):
            origin["traces"] = CommentedSeq()
        origin["traces"].extend(t for t in traces if t not in origin["traces"])

    return edit


# -- the whole job ---------------------------------------------------------------------------


def promote(
    text: str,
    source: str,
    target: Path,
    mapping: dict[str, list[str]] | None = None,
    *,
    config: PromoteConfig | None = None,
    ratio: float = 0.2,
    id_from: str = "question",
    skip_invalid: bool = False,
    dry_run: bool = False,
) -> PromoteResult:
    """Promote the failure records of ``text`` (read from ``source``) into the set file
    ``target``; see the module docstring."""
    from evalset.holdout.seal import seal_arrivals
    from evalset.sets.editor import edit_set
    from evalset.sets.lock import refuse_unplain
    from evalset.sets.setfile import load_set
    from evalset.sets.validate import released_holdout_of

    if id_from not in ("question", "trace"):
        raise PromoteRefused(f"--id-from {id_from!r}: use question or trace.")
    config = config or PromoteConfig()
    redactor = Redactor(tuple(config.regions), config.patterns)
    refuse_unplain(target)
    loaded = load_set(target)
    categories = loaded.header.categories if loaded.header else None
    records, unreadable = read_records(text, source, redactor)
    candidates, invalid = prepare(records, mapping, redactor, categories)
    candidates, copying = _sealed_elsewhere(candidates, target)
    invalid = sorted([*unreadable, *invalid, *copying], key=_by_line)
    if invalid and (not skip_invalid or not candidates):
        raise _refusal(source, invalid, none_left=not candidates)
    if dry_run:
        released = released_holdout_of(loaded)
        decision = decide(
            loaded.entries, candidates, id_from, ratio, loaded.not_valid, True, released, source
        )
        _refuse_invalid(source, decision.result, candidates, skip_invalid)  # as the run does
        _note_sealing(decision.result, seal_arrivals(loaded, decision.drafts))
        decision.result.invalid = sorted([*invalid, *decision.result.invalid], key=_by_line)
        return decision.result
    with edit_set(target) as editor:
        current = editor.current
        released = released_holdout_of(current)
        decision = decide(
            current.entries, candidates, id_from, ratio, current.not_valid, False, released, source
        )
        _refuse_invalid(source, decision.result, candidates, skip_invalid)
        arrivals = seal_arrivals(editor.current, decision.drafts, editor.text_of_new)
        _note_sealing(decision.result, arrivals)
        editor.append_items(arrivals.entries)
        for ident, traces in decision.result.traces_appended.items():
            editor.edit_item(ident, _append_traces(traces))
        decision.result.written = bool(arrivals.entries or decision.result.traces_appended)
    decision.result.invalid = sorted([*invalid, *decision.result.invalid], key=_by_line)
    return decision.result


def _sealed_elsewhere(
    candidates: list[Candidate], target: Path
) -> tuple[list[Candidate], list[Invalid]]:
    """The candidates that may go into ``target``, and the records refused because their
    question is a near duplicate of one another set beside it holds sealed (readable with
    the key only): in ``target`` it would stand in plain text, or in tuning, and in that
    set the record is a duplicate of the item, where its trace belongs."""
    from evalset.sets.copies import SealedBeside, near_sealed_questions

    if not candidates or not target.parent.is_dir():
        return candidates, []
    near = near_sealed_questions(
        [c.record.question for c in candidates], SealedBeside().others(target)
    )
    refused = [
        Invalid(
            candidates[n].line,
            f"asks what item {other.id!r} of {other.set} asks (a near duplicate), and "
            f"{other.set} holds that item sealed: here the question would stand in plain "
            f"text; promote the record into {other.set}, where it is that item's duplicate",
        )
        for n, other in sorted(near.items())
    ]
    return [c for n, c in enumerate(candidates) if n not in near], refused


def _note_sealing(result: PromoteResult, arrivals: Arrivals) -> None:
    result.sealed, result.recipients = arrivals.sealed, arrivals.recipients
    result.unchecked_sealed = arrivals.unchecked


def _by_line(invalid: Invalid) -> int:
    return invalid.line


def _refuse_invalid(
    source: str, result: PromoteResult, candidates: Sequence[Candidate], skip_invalid: bool
) -> None:
    """Refuse the run over the records found invalid while deciding (no trace usable as an
    id), unless they are to be skipped and some other record is left."""
    none_left = len(result.invalid) == len(candidates)
    if result.invalid and (not skip_invalid or none_left):
        raise _refusal(source, result.invalid, none_left=none_left)


def _refusal(source: str, invalid: list[Invalid], none_left: bool = False) -> PromoteRefused:
    """The refusal of a run with invalid records. ``none_left``: no record is valid, so
    --skip-invalid would promote nothing (and exit as if all was well): it is not offered."""
    first = invalid[0]
    where = f"{source}:{first.line}" + (f":{first.column}" if first.column else "")
    more = ""
    if len(invalid) > 1:
        others = ", ".join(str(i.line) for i in invalid[1:6]) + (", …" if len(invalid) > 6 else "")
        more = f"; {len(invalid) - 1} more invalid record(s), at line {others}"
    fix = (
        "fix the records: none is valid, so leaving them out (--skip-invalid) would leave nothing"
        if none_left
        else "fix the records, or pass --skip-invalid to promote the valid ones"
    )
    return PromoteRefused(
        f"{where}: the record {first.problem}{more}. Nothing was promoted: {fix}."
    )
