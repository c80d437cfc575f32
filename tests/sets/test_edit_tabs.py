"""A tab where YAML allows one (after a value, on a line of white space alone, inside a plain
text, before a comment) blocks no edit, though the YAML library that edits refuses every
one of them, and every line the edit does not change comes back byte for byte: through
each command that edits an item (retire, verify, split --move, promote) and new. A layout
whose tab the editor still cannot keep is refused with its line and column."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from conftest import ONE_ITEM as FIRST
from conftest import ONE_ITEM_HEADER as HEADER
from evalset.sets.setfile import load_set

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
    "a tab after a plain value": "    answer: 5 euros\t\n",
    "spaces and tabs after a plain value": "    answer: 5 euros \t \t\n",
    "a tab after a double-quoted value": '    answer: "5 euros"\t\n',
    "a tab after a single-quoted value": "    answer: '5 euros'\t\n",
    "a line of a tab alone": "    answer: 5 euros\n\t\n",
    "a line of spaces and a tab": "    answer: 5 euros\n    \t  \n",
    "a tab inside a plain text": "    answer: 5\teuros\n",
    "a tab after a quoted value, before a comment": '    answer: "5 euros"\t# the price page\n',
    "escapes in a quoted value with a tab before its comment": (
        '    answer: "5 \\u20ac \\x2d euros"\t# the price page\n'
    ),
    "a tab in a quoted value and before its comment": '    answer: "5\teuros"\t# c\n',
    "a tab between a key and its colon": "    answer\t: 5 euros\n",
    "a tab after a list entry's dash": "    must_not_say:\n      -\tfree shipping\n",
    "a tab after a key's colon and a space": "    answer: \t5 euros\n",
    "a tab after an anchor": "    answer: &price\t5 euros\n",
    "tabs in a plain text over lines": "    answer: 5\t\n      \teuros\n\t\n      a parcel\n",
    "a tab after a flow list": "    tags: [shipping]\t\n",
    "a tab in a block text and after it": "    answer: |\n      5\teuros\t\n\t\n    tags: [a]\t\n",
    "a tab after the item's own dash": "",  # see _with
    "a tab on the line the edit changes": "",  # and on every line it changes: see _with
}
"""Each inserted in item q-2 after its category; the last two put a tab after its ``-`` and
after the lines that the edits change instead."""


def _with(layout: str) -> str:
    text = EDITED.format(layout=LAYOUTS[layout])
    if layout == "a tab after the item's own dash":
        text = text.replace("  - id: q-2", "  -\tid: q-2")
    if layout == "a tab on the line the edit changes":
        for line in ("status: active", "holdout: false", "origin: {kind: production, trace: tr-1}"):
            text = text.replace(line + "\n", line + "\t\n")
    return HEADER + FIRST + text


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


def test_a_tab_the_editor_cannot_keep_is_refused_with_its_line_and_column(  # type: ignore[no-untyped-def]
    cli, repo: Path
) -> None:
    """A plain text going on over a line that starts with a quote, a tab after it: the
    editor's line scan takes the quote for a quoted text's."""
    path = repo / "sets" / "s.yaml"
    layout = '    answer: 5\n      "euros\t\n      a parcel\n'
    path.write_bytes((HEADER + FIRST + EDITED.format(layout=layout)).encode())
    assert cli(repo, "validate", "s").code == 0
    before = path.read_bytes()
    result = cli(repo, "retire", "s", "q-2", "--reason", "gone")
    assert result.code == 2
    assert result.err.startswith(f"evalset: {Path('sets/s.yaml')}:18:13: the edit was refused")
    assert "write spaces for the tab there" in result.err
    assert path.read_bytes() == before


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
