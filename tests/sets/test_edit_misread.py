"""Text the YAML library that edits writes otherwise than it reads it, or than evalset reads
it: an edit keeps the text of every field and header key it did not change, so their values
stay as they were; where the library's text is all there is, the edit is refused rather
than change a value silently.

Before, a folded text (``>``) whose line starts with a tab gained a blank line when an edit
of its item (or of the header: every release writes one) rewrote it, changing its value;
and a header holding a tab anywhere was rewritten whole by a header edit, dropping a
comment in a flow mapping and the escapes of quoted texts."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalset.sets.editor import edit_set
from evalset.sets.setfile import load_set

ITEM = """\
  - id: q-001
    question: {question}
    category: a
    answerable: false  # kept
"""

FOLDED = {
    "a tab leading a line": ">\n      Which of these\n      \tis right?\n",
    "a tab leading the last line, kept": ">+\n      Which of these\n      \tis right?\n\n",
    "a tab leading a line, stripped": ">-\n      Which of these\n      \tis right?\n",
    "a tab leading two lines": ">\n      Which\n      \tof these\n      \tis right?\n",
    "a tab leading a line after a blank line": ">\n      Which of these\n\n      \tis right?\n",
}


def _set(header_extra: str = "", question: str = "Q?\n") -> str:
    return (
        "evalset: 1\nname: s\n" + header_extra + "categories:\n  a: x  # the only one\n"
        "items:\n" + ITEM.format(question=question.rstrip("\n"))
    )


@pytest.mark.parametrize("layout", FOLDED)
def test_a_folded_text_of_the_item_edited_keeps_its_text_and_value(
    tmp_path: Path, layout: str
) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(_set(question=FOLDED[layout]))
    before = load_set(path).items[0].question
    text = path.read_text()
    with edit_set(path) as editor:
        editor.update_item("q-001", {"status": "retired"})
    assert load_set(path).items[0].question == before
    assert path.read_text() == text.replace(
        "answerable: false  # kept\n", "answerable: false  # kept\n    status: retired\n"
    )


@pytest.mark.parametrize("layout", FOLDED)
def test_a_folded_header_text_keeps_its_text_and_value_when_the_header_is_edited(
    tmp_path: Path, layout: str
) -> None:
    path = tmp_path / "s.yaml"
    description = FOLDED[layout].replace("\n      ", "\n  ")
    path.write_text(_set(header_extra=f"description: {description}"))
    before = load_set(path).header
    assert before is not None
    text = path.read_text()
    with edit_set(path) as editor:
        editor.set_header("version", "0.1.0")
    after = load_set(path).header
    assert after is not None and after.description == before.description
    assert path.read_text() == text.replace("items:\n", "version: 0.1.0\nitems:\n")


HEADERS_WITH_A_TAB = {
    "a tab inside the description": "description: Support\tset\n",
    "a tab after the description": "description: Support set\t\n",
    "a tab before a comment": "description: Support set\t# for the shop\n",
    "tabs inside and after": "description: D\tE\t\n",
}
"""Each with the rest of the header laid out as the library would not write it: a comment
inside a flow mapping, a quoted text with escapes, a deeper indent."""


@pytest.mark.parametrize("header", HEADERS_WITH_A_TAB)
def test_a_header_holding_a_tab_keeps_every_key_the_edit_did_not_change(
    tmp_path: Path, header: str
) -> None:
    path = tmp_path / "s.yaml"
    text = (
        "evalset: 1\nname: s\n" + HEADERS_WITH_A_TAB[header] + 'owner: "Caf\\u00e9 \\x2d team"\n'
        "categories: {a: first kind,  # keep this comment\n  b: second kind}\n"
        "tags:\n    - deep\nitems:\n" + ITEM.format(question="Q?")
    )
    path.write_text(text)
    with edit_set(path) as editor:
        editor.set_header("version", "0.1.0")
    assert path.read_text() == text.replace("items:\n", "version: 0.1.0\nitems:\n")
