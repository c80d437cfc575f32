"""A question or label of invisible characters only (a zero-width space, a word joiner, a
byte-order mark, a direction mark, a soft hyphen, with or without white space) states
nothing, as one of white space only does: every answer "contains" it, and it shows as an
empty text wherever it is shown. Before, only white space was refused; these came in
through the set file, an import and a promoted record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SET = "sets/acme-support.yaml"
# a text -> the first invisible character it holds, as messages name it
INVISIBLE = {
    "\u200b": "U+200B ZERO WIDTH SPACE",
    "\u2060": "U+2060 WORD JOINER",
    " \ufeff ": "U+FEFF ZERO WIDTH NO-BREAK SPACE",
    "\u200e\u200f": "U+200E LEFT-TO-RIGHT MARK",
    "\n\u200d\t": "U+200D ZERO WIDTH JOINER",
    "\u00ad": "U+00AD SOFT HYPHEN",
}
LABELS = {  # field as validate names it -> the item's YAML with the text in it
    "question": "    question: {text}\n    expected_sources: [policies/returns.md]\n",
    "key_points[0].text": (
        "    question: Can I return a kettle?\n    expected_sources: [policies/returns.md]\n"
        "    key_points: [{{text: {text}}}]\n"
    ),
    "must_not_say[0]": (
        "    question: Can I return a kettle?\n    expected_sources: [policies/returns.md]\n"
        "    must_not_say: [{text}]\n"
    ),
    "answer": (
        "    question: Can I return a kettle?\n    expected_sources: [policies/returns.md]\n"
        "    answer: {text}\n"
    ),
}


def _said(field: str, text: str) -> str:
    holds = f"holds only white space and invisible characters ({INVISIBLE[text]})"
    if field == "question":
        return f"{holds}; give the question the user asked"
    return f"{holds}, which states nothing; write the text or remove it"


@pytest.mark.parametrize("field", list(LABELS))
@pytest.mark.parametrize("text", list(INVISIBLE), ids=[repr(t) for t in INVISIBLE])
def test_validate_refuses_a_label_of_invisible_characters(  # type: ignore[no-untyped-def]
    example: Path, cli, text: str, field: str
) -> None:
    path = example / SET
    item = "  - id: q-900\n    category: paraphrased\n    holdout: false\n"
    item += LABELS[field].format(text=json.dumps(text))
    path.write_text(path.read_text() + item)
    done = cli(example, "validate", "acme-support", "--json")
    found = [f for f in json.loads(done.out)["findings"] if f["severity"] == "error"]
    assert [(f["item"], f["field"], f["message"]) for f in found] == [
        ("q-900", field, _said(field, text))
    ]


@pytest.mark.parametrize("field", list(LABELS))
@pytest.mark.parametrize("text", list(INVISIBLE), ids=[repr(t) for t in INVISIBLE])
def test_import_refuses_a_row_with_a_label_of_invisible_characters(  # type: ignore[no-untyped-def]
    example: Path, cli, text: str, field: str
) -> None:
    row = {"id": "q-900", "question": "Can I return a kettle?", "category": "paraphrased",
           "expected_sources": ["policies/returns.md"]}  # fmt: skip
    if field == "question":
        row["question"] = text
    elif field == "key_points[0].text":
        row["key_points"] = [{"text": text}]
    elif field == "must_not_say[0]":
        row["must_not_say"] = [text]
    else:
        row["answer"] = text
    (example / "rows.jsonl").write_text(json.dumps(row) + "\n")
    before = (example / SET).read_bytes()
    done = cli(example, "import", "rows.jsonl", "--set", "acme-support", "--format", "jsonl")
    assert (done.code, done.err) == (
        2,
        f"evalset: rows.jsonl:1: {field}: {_said(field, text)}; fix the row, nothing was "
        "imported.\n",
    )
    assert (example / SET).read_bytes() == before


@pytest.mark.parametrize("text", list(INVISIBLE), ids=[repr(t) for t in INVISIBLE])
def test_promote_refuses_a_record_whose_question_is_invisible(  # type: ignore[no-untyped-def]
    example: Path, cli, text: str
) -> None:
    (example / "records.jsonl").write_text(json.dumps({"question": text, "trace": "t-1"}) + "\n")
    before = (example / SET).read_bytes()
    done = cli(example, "promote", "records.jsonl", "--set", "acme-support")
    assert done.code == 2, done.err
    assert done.err.startswith(
        f"evalset: records.jsonl:1: the record question: {_said('question', text)}."
    ), done.err
    assert (example / SET).read_bytes() == before
