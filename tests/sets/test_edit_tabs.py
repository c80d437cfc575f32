"""A tab before a comment blocks no edit, though the YAML library that edits refuses it, and
every line the edit does not change comes back byte for byte, escapes in a quoted value
on that line included: through each command that edits an item (retire, verify, split
--move, promote) and new."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from evalset.sets.setfile import load_set

HEADER = "evalset: 1\nname: s\ncategories:\n  direct-lookup: one section\nitems:\n"
FIRST = """\
  - id: q-1
    question: How long is the return window?
    category: direct-lookup
    expected_sources: [d.md]
    key_points:
      - text: 30 days
        sources: [d.md]
    holdout: false
"""
EDITED = """\
  - id: q-2
    question: What does shipping cost?
    category: direct-lookup
{layout}    expected_sources: [d.md]
    key_points:
      - text: 5 euros
        sources: [d.md]
    origin: {{kind: production, trace: tr-1}}
    status: active
    holdout: false
"""
LAYOUTS = {
    "a tab after a plain value, before a comment": "    answer: 5 euros\t# the price page\n",
    "a tab after a quoted value, before a comment": '    answer: "5 euros"\t# the price page\n',
    "escapes in a quoted value with a tab before its comment": (
        '    answer: "5 \\u20ac \\x2d euros"\t# the price page\n'
    ),
    "a tab in a quoted value and before its comment": '    answer: "5\teuros"\t# c\n',
    "a comment line indented with a tab": "    answer: 5 euros\n\t# from the price page\n",
}
"""Each inserted in item q-2 after its category."""


def _with(layout: str) -> str:
    return HEADER + FIRST + EDITED.format(layout=LAYOUTS[layout])


COMMANDS = {
    "retire": (["retire", "s", "q-2", "--reason", "no longer sold"], "    status:"),
    "verify": (["verify", "s", "q-2"], None),
    "split --move": (
        ["split", "s", "--move", "q-2", "--to", "holdout", "--force", "--reason", "r"],
        "    holdout:",
    ),
    "promote": (["promote", "-", "--set", "s"], "    origin:"),
    "new": (["new", "s", "-q", "Do you ship to Iceland?"], None),
}
"""Each command's arguments, and the line of q-2 it rewrites (None: it only adds lines)."""


@pytest.fixture
def repo(one_doc_repo: Path) -> Path:
    return one_doc_repo


def _values(path: Path) -> dict[str, object]:
    """q-2 as the file reads it, but for the fields the edits change."""
    item = next(i for i in load_set(path).items if i.id == "q-2")
    changed = {"status", "holdout", "holdout_moves", "origin", "verified"}
    return item.model_dump(exclude=changed)


@pytest.mark.parametrize("command", COMMANDS, ids=COMMANDS.keys())
@pytest.mark.parametrize("layout", LAYOUTS, ids=LAYOUTS.keys())
def test_an_edit_goes_through_a_tab_and_keeps_every_line_it_does_not_change(  # type: ignore[no-untyped-def]
    cli, repo: Path, layout: str, command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = repo / "sets" / "s.yaml"
    path.write_bytes(_with(layout).encode())
    assert cli(repo, "validate", "s").code == 0
    before, values = path.read_bytes(), _values(path)
    args, rewritten = COMMANDS[command]
    if command == "promote":  # a near duplicate of q-2: its trace goes to q-2's origin
        failure = {"question": "What does shipping cost?", "trace": "tr-9"}
        monkeypatch.setattr("sys.stdin", _stdin(json.dumps(failure) + "\n"))
    result = cli(repo, *args)
    assert result.code == 0, result.err
    after = path.read_bytes()
    assert after != before
    old, new = before.decode().splitlines(True), after.decode().splitlines(True)
    for op, i1, i2, _, _ in difflib.SequenceMatcher(None, old, new).get_opcodes():
        if op in ("replace", "delete"):
            assert rewritten is not None, (op, old[i1:i2])
            assert all(line.startswith(rewritten) for line in old[i1:i2]), old[i1:i2]
    assert _values(path) == values


def _stdin(text: str):  # type: ignore[no-untyped-def]
    import io

    return io.TextIOWrapper(io.BytesIO(text.encode()), encoding="utf-8")


def test_stand_ins_are_the_same_whatever_was_read_before() -> None:
    """The item as the library writes it unedited is compared with it edited, field by
    field: one text must get the same stand-ins each time it is read."""
    from evalset.sets.standins import StandIns

    quoted = "a tab after a quoted value, before a comment"
    text, other = (
        "items:\n" + EDITED.format(layout=LAYOUTS[name])
        for name in (quoted, "a tab in a quoted value and before its comment")
    )
    fresh = StandIns(text).take_out(text)
    reused = StandIns(text)
    reused.take_out(other)
    assert reused.take_out(text) == fresh
    assert reused.put_back(fresh) == text
