"""`"written"` in the JSON of split, promote and import says whether the set file changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

SET = Path("sets/acme-support.yaml")
QUESTION = "Can I pay for an order with a gift card and a credit card?"
RECORD = json.dumps({"question": QUESTION, "trace": "w1"}) + "\n"
ROW = json.dumps({"question": QUESTION}) + "\n"

CASES = [
    # (name, commands run first, the command, whether it writes the set file)
    ("split assigns", [], ["split", "acme-support"], True),
    ("split with nothing to assign", [["split", "acme-support"]], ["split", "acme-support"], False),
    (
        "split with another ratio, all assigned",
        [["split", "acme-support"]],
        ["split", "acme-support", "--ratio", "0.5"],
        False,
    ),
    ("split --dry-run", [], ["split", "acme-support", "--dry-run"], False),
    (
        "split --move to its side",
        [],
        ["split", "acme-support", "--move", "q-001", "--to", "tuning", "--force"],
        False,
    ),
    ("promote adds", [], ["promote", "records.jsonl", "--set", "acme-support"], True),
    (
        "promote of a trace promoted before",
        [["promote", "records.jsonl", "--set", "acme-support"]],
        ["promote", "records.jsonl", "--set", "acme-support"],
        False,
    ),
    (
        "promote --dry-run",
        [],
        ["promote", "records.jsonl", "--set", "acme-support", "--dry-run"],
        False,
    ),
    (
        "import adds",
        [],
        ["import", "rows.jsonl", "--set", "acme-support", "--format", "jsonl"],
        True,
    ),
    (
        "import of rows there already",
        [["import", "rows.jsonl", "--set", "acme-support", "--format", "jsonl"]],
        ["import", "rows.jsonl", "--set", "acme-support", "--format", "jsonl"],
        False,
    ),
]


@pytest.mark.parametrize(("first", "command", "writes"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_written_is_true_exactly_when_the_set_file_changed(  # type: ignore[no-untyped-def]
    cli, example: Path, first: list[list[str]], command: list[str], writes: bool
) -> None:
    (example / "records.jsonl").write_text(RECORD, encoding="utf-8")
    (example / "rows.jsonl").write_text(ROW, encoding="utf-8")
    for args in first:
        assert cli(example, *args).code == 0
    before = (example / SET).read_bytes()
    result = cli(example, *command, "--json")
    assert result.code == 0, result.err
    changed = (example / SET).read_bytes() != before
    assert (json.loads(result.out)["written"], changed) == (writes, writes)
