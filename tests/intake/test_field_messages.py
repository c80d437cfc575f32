"""A record or row refused for a field says so in one sentence with the fix, as `validate`
says it of a set file (the sentences of ``schema_message``), in every format promote and
import read: never pydantic's own words ('Input should be a valid string', 'String should
match pattern …'), which name no fix."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

SET = Path("sets/acme-support.yaml")
QUESTION = "Can I pay for one order with a gift card and a credit card?"
RAW = re.compile(r"Input should|String should|should have at|should match|valid (string|list)")

LONG = "Warranty. " * 2001
CASES: list[tuple[str, str, Any, str]] = [
    # (name, field, bad value, the sentence and its fix)
    ("a category of words", "category", "Direct lookup",
     "category: text ('Direct lookup') does not have the required form ^[A-Za-z0-9._-]+$; use "
     "ASCII letters, digits, '.', '_' and '-' only, such as 'Direct-lookup'"),
    ("an empty category", "category", "",
     "category: must not be empty; write the text, or leave the field out"),
    ("an answer too long", "answer", LONG,
     "answer: is 20,010 characters long; the limit is 20,000; shorten it, or leave it out"),
    ("an answer that is a number", "answer", 7,
     "answer: expected text, got a number (7); quote it if it is meant as text"),
    ("an empty question", "question", "", "question: must not be empty; write the question"),
    ("a question too long", "question", "Why? " * 4001,
     "question: is 20,005 characters long; the limit is 20,000; shorten it"),
    ("a category that is a number", "category", 5,
     "category: expected text, got a number (5); quote it if it is meant as text"),
]  # fmt: skip
PROMOTE_ONLY: list[tuple[str, str, Any, str]] = [
    ("an answer that is an object", "answer", {"text": "Yes"},
     "answer: expected text, got a mapping; point --map answer=PATH at the text it holds"),
    ("a note that is a list", "note", ["late", "rude"],
     "note: expected text, got a list; point --map note=PATH at the text it holds"),
    ("a retrieved document that is a number", "retrieved", [7],
     "retrieved[0]: expected text, got a number (7); quote it if it is meant as text"),
    ("retrieved as a number", "retrieved", 7,
     'retrieved: expected a list, got a number (7); write it as a list: "retrieved": ["…"]'),
    ("a retrieved object naming no document", "retrieved", [{"score": 0.5}],
     "retrieved[0]: expected text, got a mapping; give the document as text, or an object "
     "with one of citation, source, id, doc_id, document"),
    ("an empty trace", "trace", "",
     "trace: must not be empty; write the text, or leave the field out"),
]  # fmt: skip
IMPORT_ONLY: list[tuple[str, str, Any, str]] = [
    ("an answer that is an object", "answer", {"text": "Yes"},
     "answer: expected text, got a mapping; write the text itself in its place"),
    ("must_not_say as one text", "must_not_say", "30 days",
     'must_not_say: expected a list, got text (\'30 days\'); write it as a list: '
     '"must_not_say": ["…"]'),
    ("a key point without its text", "key_points", [{"sources": []}],
     "key_points[0].text: required field is missing; add \"text\": …, the fact, in one "
     "sentence"),
    ("a key point that is a number", "key_points", [3],
     "key_points[0]: expected a mapping of fields, got a number (3); write it as a mapping of "
     "its fields (text, sources)"),
    ("a verified that is no snapshot id", "verified", "last week",
     "verified: text ('last week') does not have the required form ^[0-9a-f]{4,64}$; give a "
     "snapshot's id: 4 to 64 of its hex digits, as the names of the files in snapshots/ begin"),
    ("answerable in quotes", "answerable", "no",
     "answerable: expected true or false, got text ('no'); write true or false, without quotes"),
]  # fmt: skip


def record(field: str, value: Any) -> dict[str, Any]:
    return {"question": QUESTION, "trace": "f-1", field: value}


def promote_file(fmt: str, field: str, value: Any) -> tuple[str, list[str]]:
    rows = [{"question": "Where is my parcel?", "trace": "f-0"}, record(field, value)]
    if fmt == "jsonl":
        return "".join(json.dumps(r) + "\n" for r in rows), []
    if fmt == "array":
        return "[\n" + ",\n".join(json.dumps(r) for r in rows) + "\n]\n", []
    wrapped = [{"run": {"input": r.pop("question"), **r}} for r in rows]  # --map
    paths = ",".join(f"{k}=run.{k}" for k in ("trace", "answer", "category", "retrieved", "note"))
    return "".join(json.dumps(r) + "\n" for r in wrapped), ["--map", f"question=run.input,{paths}"]


def import_file(fmt: str, field: str, value: Any) -> str:
    rows = [{"question": "Where is my parcel?"}, {"question": QUESTION, field: value}]
    if fmt == "jsonl":
        return "".join(json.dumps(r) + "\n" for r in rows)
    if fmt == "langsmith":
        out = []
        for row in rows:
            example: dict[str, Any] = {"inputs": {"question": row.pop("question")}}
            meta = {k: row.pop(k) for k in ("category", "verified") if k in row}
            example["outputs"], example["metadata"] = row, meta
            out.append(json.dumps(example) + "\n")
        return "".join(out)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, ["question", field])
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def refused(cli, repo: Path, args: list[str], line: str, expected: str) -> None:  # type: ignore[no-untyped-def]
    before = (repo / SET).read_bytes()
    result = cli(repo, *args)
    assert result.code == 2, result.out
    assert len(result.err.splitlines()) == 1 and not RAW.search(result.err), result.err
    assert f"{line}: {expected}" in result.err, result.err
    assert (repo / SET).read_bytes() == before


def read_as_is(fmt: str, field: str, value: Any) -> bool:
    """Whether ``fmt`` hands the field's value to the item model as it is: a mapped text
    field that is not text, a LangSmith answer (its one key point when it has none) and
    typed values, and a CSV row's lists, true/false and non-text cells have the reader's
    own sentences (tested with the readers), and an empty cell is no value."""
    if fmt == "mapped":
        return field != "question" and (field == "retrieved" or isinstance(value, str))
    if fmt == "langsmith":
        return field in ("category", "verified") and isinstance(value, str)
    if fmt == "csv":
        return bool(value) and isinstance(value, str) and field not in (
            "question", "must_not_say", "answerable"
        )  # fmt: skip
    return True


PROMOTE = [(fmt, *case) for case in CASES + PROMOTE_ONLY for fmt in ("jsonl", "array", "mapped")
           if read_as_is(fmt, case[1], case[2])]  # fmt: skip


@pytest.mark.parametrize(("fmt", "name", "field", "value", "expected"), PROMOTE,
                         ids=[f"{c[0]}: {c[1]}" for c in PROMOTE])  # fmt: skip
def test_a_promoted_record_is_refused_in_one_sentence_with_the_fix(  # type: ignore[no-untyped-def]
    cli, example: Path, fmt: str, name: str, field: str, value: Any, expected: str
) -> None:
    text, options = promote_file(fmt, field, value)
    (example / "records.jsonl").write_text(text, "utf-8")
    args = ["promote", "records.jsonl", "--set", "acme-support", *options]
    line = "records.jsonl:" + ("3" if fmt == "array" else "2")  # the array opens on line 1
    refused(cli, example, args, line, f"the record {expected}. Nothing was promoted")


IMPORT = [(fmt, *case) for case in CASES + IMPORT_ONLY for fmt in ("jsonl", "langsmith", "csv")
          if read_as_is(fmt, case[1], case[2])]  # fmt: skip


@pytest.mark.parametrize(("fmt", "name", "field", "value", "expected"), IMPORT,
                         ids=[f"{c[0]}: {c[1]}" for c in IMPORT])  # fmt: skip
def test_an_imported_row_is_refused_in_one_sentence_with_the_fix(  # type: ignore[no-untyped-def]
    cli, example: Path, fmt: str, name: str, field: str, value: Any, expected: str
) -> None:
    (example / "rows.txt").write_text(import_file(fmt, field, value), "utf-8")
    args = ["import", "rows.txt", "--set", "acme-support", "--format", fmt]
    line = "rows.txt:" + ("3" if fmt == "csv" else "2")  # the header is line 1
    refused(cli, example, args, line, f"{expected}; fix the row, nothing was imported.")


AS_MAPPED = [
    # (name, field, value as the record gives it, as the draft's origin keeps it)
    ("a trace as a whole number", "trace", 12345, "12345"),
    ("one retrieved document as text", "retrieved", "policies/shipping.md",
     ["policies/shipping.md"]),
    ("retrieved documents as objects", "retrieved", [{"source": "policies/shipping.md"}],
     ["policies/shipping.md"]),
]  # fmt: skip


@pytest.mark.parametrize("mapped", [False, True], ids=["record", "mapped"])
@pytest.mark.parametrize(("field", "value", "kept"), [c[1:] for c in AS_MAPPED],
                         ids=[c[0] for c in AS_MAPPED])  # fmt: skip
def test_a_record_is_read_as_a_mapped_one_is(  # type: ignore[no-untyped-def]
    cli, example: Path, field: str, value: Any, kept: Any, mapped: bool
) -> None:
    """A numeric trace id (a home-grown log's) and one retrieved document given as text
    were taken in a mapped record and refused in one of the failure-record shape."""
    from evalset.sets.setfile import load_set

    row: dict[str, Any] = {"question": QUESTION, field: value}
    options = ["--map", f"question=question,{field}={field}"] if mapped else []
    (example / "records.jsonl").write_text(json.dumps(row) + "\n", "utf-8")
    result = cli(example, "promote", "records.jsonl", "--set", "acme-support", *options,
                 "--json")  # fmt: skip
    assert result.code == 0, result.err
    (added,) = json.loads(result.out)["added"]
    item = next(i for i in load_set(example / SET).items if i.id == added["id"])
    assert item.origin is not None and getattr(item.origin, field) == kept


UNTERMINATED = 'is not valid JSON (a string that starts here is not closed: a " is missing)'
CONTROL = (
    "is not valid JSON (a string holds a control character here, such as a tab or a line "
    "break, which JSON writes as \\t or \\n)"
)
BROKEN = [
    # (name, the line, where the error is, what it says)
    ("a string not closed", '{"question": "Where is my parcel?}', "2:14", UNTERMINATED),
    ("a raw tab in a string", '{"question": "Where\tis my parcel?"}', "2:20", CONTROL),
]


@pytest.mark.parametrize("command", ["promote", "import"])
@pytest.mark.parametrize(("line", "at", "said"), [c[1:] for c in BROKEN],
                         ids=[c[0] for c in BROKEN])  # fmt: skip
def test_json_that_cannot_be_read_is_told_whole(  # type: ignore[no-untyped-def]
    cli, example: Path, line: str, at: str, said: str, command: str
) -> None:
    """Python's reader says 'Unterminated string starting at' and leaves the position to
    the exception: the message stopped short ('(Unterminated string starting at)')."""
    (example / "records.jsonl").write_text(json.dumps({"question": QUESTION}) + "\n" + line + "\n")
    if command == "import":
        args = ["import", "records.jsonl", "--set", "acme-support", "--format", "jsonl"]
        said = f"the row {said}; fix it (jsonl format)"
    else:
        args = ["promote", "records.jsonl", "--set", "acme-support"]
        said = f"the record {said}. Nothing was promoted"
    refused(cli, example, args, f"records.jsonl:{at}", said)
