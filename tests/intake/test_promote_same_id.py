"""`evalset promote` of a record whose id an item has already: the trace is kept."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import commit_all, write_files
from evalset.intake.importer import question_id
from evalset.sets.setfile import load_set

SET = Path("sets/acme-support.yaml")
ASKED = "Do you ship parcels to Iceland?"
REWORDED = "Which countries outside the EU do you deliver to?"
ID = question_id(ASKED)


def reviewed_draft(example: Path, cli: Any, status: str) -> None:
    """A draft promoted from trace tr-1 and reworded in review (so its id is the hash of a
    question it no longer holds), with ``status``, committed."""
    write_files(example, {"first.jsonl": json.dumps({"question": ASKED, "trace": "tr-1"}) + "\n"})
    assert cli(example, "promote", "first.jsonl", "--set", "acme-support").code == 0
    text = (example / SET).read_text(encoding="utf-8")
    asked = f"question: {ASKED}\n    status: draft\n"
    assert asked in text
    text = text.replace(asked, f"question: {REWORDED}\n    status: {status}\n")
    (example / SET).write_text(text, encoding="utf-8")
    commit_all(example, "review")


# status of the reworded item, the new record's trace -> reason, its traces after, written
CASES: list[tuple[str, str | None, str, list[str], bool]] = [
    ("draft", "tr-2", f"{ID} exists already; trace added to its origin.traces", ["tr-2"], True),
    ("retired", "tr-2", f"{ID} exists already; trace added to its origin.traces", ["tr-2"], True),
    ("draft", None, f"{ID} exists already", [], False),
    ("draft", "tr-1", f"trace already promoted as {ID}", [], False),
    ("retired", "tr-1", f"{ID} exists already with this trace", [], False),
]


@pytest.mark.parametrize(("status", "trace", "reason", "traces", "written"), CASES)
def test_a_record_whose_id_exists_adds_its_trace_to_that_item(  # type: ignore[no-untyped-def]
    example: Path, cli, status: str, trace: str | None, reason: str, traces: list[str],
    written: bool,
) -> None:  # fmt: skip
    reviewed_draft(example, cli, status)
    record = {"question": ASKED, **({"trace": trace} if trace else {})}
    write_files(example, {"again.jsonl": json.dumps(record) + "\n"})
    before = (example / SET).read_bytes()
    result = cli(example, "promote", "again.jsonl", "--set", "acme-support", "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert (report["added"], report["written"]) == ([], written)
    assert report["skipped"] == [{"line": 1, "trace": trace, "item": ID, "reason": reason}]
    assert report["traces_appended"] == ({ID: traces} if traces else {})
    item = next(i for i in load_set(example / SET).items if i.id == ID)
    assert item.origin is not None and (item.origin.trace, item.origin.traces) == ("tr-1", traces)
    assert item.question == REWORDED and item.status == status
    if not written:
        assert (example / SET).read_bytes() == before
    again = json.loads(cli(example, "promote", "again.jsonl", "--set", "acme-support",
                           "--json").out)  # fmt: skip
    assert (again["added"], again["traces_appended"], again["written"]) == ([], {}, False)


def test_a_dry_run_says_the_trace_would_be_added_and_writes_nothing(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    reviewed_draft(example, cli, "draft")
    write_files(example, {"again.jsonl": json.dumps({"question": ASKED, "trace": "tr-2"}) + "\n"})
    before = (example / SET).read_bytes()
    result = cli(example, "promote", "again.jsonl", "--set", "acme-support", "--dry-run")
    assert result.code == 0, result.err
    assert f"  line 1 (trace tr-2): {ID} exists already; trace would be added to its " in result.out
    assert (example / SET).read_bytes() == before
