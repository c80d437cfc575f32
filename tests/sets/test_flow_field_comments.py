"""An edit of an item keeps a field it did not change that is a flow list or mapping
written over several lines with a comment after its last entry (``key_points: [`` …
``{…}  # checked`` … ``]``) as written.

Before, the YAML library wrote such a field again with its closing bracket at column 0
(``key_points: [{…} # checked`` then ``]``); the editor could not cut that into fields,
so the whole item was written as the library writes it: the field's layout and the
space before its comment lost, an unindented ``]`` left in the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import commit_all, write_files

HEADER = "evalset: 1\nname: s\ncategories:\n  direct-lookup: one section\nitems:\n"
ITEM = (
    "  - id: q-00{n}\n    question: {question}\n    category: direct-lookup\n"
    "    expected_sources: [d.md]\n{field}"
)
QUESTIONS = ["How long do I have to return a damaged item", "Do you ship parcels to Iceland"]
FIELDS = {
    "key points, a flow list of mappings": (
        "    key_points: [\n      {text: The document, sources: [d.md]}  # checked\n    ]\n"
    ),
    "a flow list inside a key point": (
        "    key_points:\n      - text: The document\n        sources: [\n"
        "          d.md  # checked\n        ]\n"
    ),
    "origin, a flow mapping": (
        "    key_points: [{text: The document, sources: [d.md]}]\n"
        "    origin: {\n      kind: production,\n      trace: tr-1  # checked\n    }\n"
    ),
    "the field before the last": (
        "    key_points: [\n      {text: The document, sources: [d.md]}  # checked\n    ]\n"
        "    answer: thirty days\n"
    ),
}
ENDINGS = {"LF": "\n", "CRLF": "\r\n"}
EDITS = {
    "retire": (("retire", "s", "q-001", "--reason", "gone"), "status: retired"),
    "verify": (("verify", "s", "q-001"), "verified: "),
    "split": (("split", "s"), "holdout: "),
    "split --move": (("split", "s", "--move", "q-001", "--to", "holdout"), "holdout: true"),
}


@pytest.mark.parametrize("ending", ENDINGS)
@pytest.mark.parametrize("edit", EDITS)
@pytest.mark.parametrize("field", FIELDS)
def test_an_edit_keeps_a_flow_field_with_a_comment_inside_as_written(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli, field: str, edit: str, ending: str
) -> None:
    items = "".join(
        ITEM.format(n=n, question=question, field=FIELDS[field])
        for n, question in enumerate(QUESTIONS, 1)
    )
    before = (HEADER + items).replace("\n", ENDINGS[ending])
    write_files(one_doc_repo, {"sets/s.yaml": before.encode()})
    commit_all(one_doc_repo, "set")
    args, added = EDITS[edit]
    done = cli(one_doc_repo, *args)
    assert done.code == 0, done.err
    after = (one_doc_repo / "sets" / "s.yaml").read_bytes().decode()
    # each line of the file is still there, in its order: the edit only added lines
    kept = iter(after.splitlines(keepends=True))
    assert all(line in kept for line in before.splitlines(keepends=True)), after
    assert added in after
    assert "\n]" not in after and "\n}" not in after
    assert cli(one_doc_repo, "validate", "s").code == 0
