"""An edit of a flow-style item (``- {id: q-1, …}  # approved``) keeps the white space
between its closing brace and its comment as written.

Before, every edit but retire (which rewrites the comment) wrote one space there, as the
YAML library does: ``}  # approved`` became ``} # approved``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import commit_all, write_files

HEADER = "evalset: 1\nname: s\ncategories:\n  direct-lookup: one section\nitems:\n"
ITEM = (
    "  - {{id: q-00{n}, question: {question}, category: "
    "direct-lookup, expected_sources: [d.md], key_points: [{{text: The document part {n}, "
    "sources: [d.md]}}], origin: {{kind: production, trace: tr-{n}}}}}{gap}# approved{end}"
)
QUESTIONS = [
    "How long do I have to return a damaged item",
    "Do you ship parcels to Iceland",
    "Which warranty covers a cracked phone screen",
]
GAPS = {"two spaces": "  ", "one space": " ", "four spaces": "    ", "a tab": "\t"}
ENDINGS = {"LF": "\n", "CRLF": "\r\n"}
EDITS = {
    "retire": (("retire", "s", "q-002", "--reason", "gone"), "status: retired"),
    "verify": (("verify", "s", "q-002"), "verified: "),
    "split": (("split", "s"), "holdout: "),
    "promote": (("promote", "f.jsonl", "--set", "s"), "traces: [tr-9]"),
}


@pytest.mark.parametrize("ending", ENDINGS)
@pytest.mark.parametrize("edit", EDITS)
@pytest.mark.parametrize("gap", GAPS)
def test_an_edit_keeps_the_space_before_a_flow_items_comment(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli, gap: str, edit: str, ending: str
) -> None:
    end = ENDINGS[ending]
    lines = [ITEM.format(n=n, question=QUESTIONS[n - 1], gap=GAPS[gap], end=end) for n in (1, 2, 3)]
    before = HEADER.replace("\n", end) + "".join(lines)
    write_files(one_doc_repo, {"sets/s.yaml": before.encode()})
    record = {"question": QUESTIONS[1], "trace": "tr-9"}
    write_files(one_doc_repo, {"f.jsonl": json.dumps(record) + "\n"})
    commit_all(one_doc_repo, "set")
    args, added = EDITS[edit]
    done = cli(one_doc_repo, *args)
    assert done.code == 0, done.err
    after = (one_doc_repo / "sets" / "s.yaml").read_bytes().decode()
    was, now = before.splitlines(keepends=True), after.splitlines(keepends=True)
    if edit != "split":  # split gives every item a side
        assert now[:6] + now[7:] == was[:6] + was[7:]  # all but q-002's line, as it was
    changed = now[6]
    assert added in changed
    note = "# approved; retired " if edit == "retire" else "# approved" + end
    assert "}" + GAPS[gap] + note in changed
