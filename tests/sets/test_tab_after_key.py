"""A tab after a key's ``:`` (a value aligned with tabs) is named as such, with its fix,
by every command that reads the set, and an edit writes nothing.

Before, the sentence was yaml-rs's own (``':' must be followed by a valid YAML
whitespace``, which a tab is to a person) with "fix the syntax there"."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import commit_all, write_files

HEADER = "evalset: 1\nname: s\ncategories:\n  direct-lookup: one section\nitems:\n"
ITEM = (
    "  - id: q-001\n    question: How long do I have to return a damaged item\n"
    "    category: direct-lookup\n    expected_sources: [d.md]\n    key_points:\n"
    "      - text: The document\n        sources: [d.md]\n"
)
FILES = {
    "an item's value": (HEADER + ITEM.replace("category: ", "category:\t"), "8:14"),
    "a header value": (HEADER.replace("name: s", "name:\ts"), "2:6"),
    "a value in a flow mapping": (
        HEADER + "  - {id: q-001, question:\tHow long, category: direct-lookup}\n",
        "6:26",
    ),
    "an item's value, CRLF": (
        (HEADER + ITEM.replace("category: ", "category:\t")).replace("\n", "\r\n"),
        "8:14",
    ),
}
COMMANDS = {
    "validate": ("validate", "s"),
    "retire": ("retire", "s", "q-001", "--reason", "gone"),
    "new": ("new", "s", "--question", "Do you ship parcels to Iceland"),
    "verify": ("verify", "s", "q-001"),
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("layout", FILES)
def test_a_tab_after_a_key_is_named_with_its_fix(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli, layout: str, command: str
) -> None:
    text, where = FILES[layout]
    write_files(one_doc_repo, {"sets/s.yaml": text.encode()})
    commit_all(one_doc_repo, "set")
    done = cli(one_doc_repo, *COMMANDS[command])
    assert done.code == 2
    assert done.err == (
        f"evalset: sets/s.yaml:{where}: has a tab right after a key's `:`, where YAML readers "
        "(evalset's among them) take only a space; write a space for the tab.\n"
    )
    assert (one_doc_repo / "sets" / "s.yaml").read_bytes() == text.encode()
