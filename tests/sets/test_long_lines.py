"""Long comment lines: ruamel.yaml builds a comment one character at a time, so positions
and edits hand it regions whose long comments are taken out (and, for edits, put back).
Finding positions and edited files must be exactly what they are with short comments.
Long values: an edit writes each on one line, however long, and it reads back as it was."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from evalset.sets import locate
from evalset.sets.editor import edit_set
from evalset.sets.locate import LONG_LINE, shorten_long_comments
from evalset.sets.setfile import load_set
from evalset.sets.validate import validate

LONG = "x" * 200_000
HEAD = "evalset: 1\nname: q\ncategories:\n  a: a\nitems:\n"
ITEM = (
    "  - id: q-{i}\n"
    "    question: Question number {i} here?\n"
    "    category: a\n"
    "    expected_sources: [d.md]\n"
    "    key_points:\n"
    "      - text: fact {i}\n"
    "        sources: [d.md]\n"
)
WHERE = {
    "first line": (f"# {{c}}\n{HEAD}{ITEM.format(i=1)}", "categroy"),
    "in the header": (HEAD.replace("categories:", "# {c}\ncategories:") + ITEM.format(i=1), "x"),
    "in an item": (HEAD + ITEM.format(i=1).replace("    category", "    # {c}\n    category"), "x"),
    "after a value": (HEAD + ITEM.format(i=1).replace("category: a", "category: a  # {c}"), "x"),
    "in a key point": (
        HEAD + ITEM.format(i=1).replace("        sources", "        # {c}\n        sources"),
        "x",
    ),
}


def _findings(path: Path, text: str) -> list[tuple[Any, ...]]:
    path.write_text(text, encoding="utf-8")
    report = validate([path])
    return [(f.line, f.col, f.item, f.field, f.message) for f in report.findings]


@pytest.mark.parametrize("where", WHERE)
def test_positions_are_those_of_short_comments(tmp_path: Path, where: str) -> None:
    template, _ = WHERE[where]
    # an unknown field deep in the item and one at its top: both need positions
    point = "      - text: fact 1\n"
    broken = template.replace(point, point + "        sourcse: []\n")
    broken = broken.replace("    category: a", "    categroy: a", 1)
    short = _findings(tmp_path / "short.yaml", broken.replace("{c}", "short"))
    long = _findings(tmp_path / "long.yaml", broken.replace("{c}", LONG))
    assert short == long and len(short) >= 3


def test_ruamel_never_sees_a_long_comment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What makes positions linear in the length of a comment line."""
    seen: list[int] = []
    load = YAML.load

    def spy(self: Any, stream: Any) -> Any:
        seen.append(max(map(len, str(stream).split("\n"))))
        return load(self, stream)

    monkeypatch.setattr(YAML, "load", spy)
    template, _ = WHERE["first line"]
    _findings(tmp_path / "s.yaml", template.replace("{c}", LONG).replace("category", "categroy"))
    assert seen and max(seen) <= LONG_LINE


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("edit", ["item", "header"])
def test_edits_keep_long_comments_byte_for_byte(tmp_path: Path, where: str, edit: str) -> None:
    template, _ = WHERE[where]
    text = template.replace("categroy", "category").replace("{c}", LONG)
    path = tmp_path / "set.yaml"
    path.write_bytes(text.encode())
    with edit_set(path) as editor:
        if edit == "item":
            editor.update_item("q-1", {"tags": ["t"]})
        else:
            editor.set_header("description", "changed")
    after = path.read_text(encoding="utf-8")
    assert LONG in after and "evalset-long-comment" not in after
    if edit == "item":
        assert after.replace("    tags:\n      - t\n", "").replace("    tags: [t]\n", "") == text
    else:
        assert after.replace("description: changed\n", "") == text


def test_a_long_line_in_a_block_scalar_or_a_quoted_one_is_left_as_content(tmp_path: Path) -> None:
    question = "'Why " + "y" * 2_000 + " #not a comment?'"
    block = "    origin:\n      note: |\n        # " + "z" * 2_000 + "\n        second line\n"
    text = HEAD + ITEM.format(i=1).replace("Question number 1 here?", question) + block
    path = tmp_path / "set.yaml"
    path.write_bytes(text.encode())
    with edit_set(path) as editor:
        editor.update_item("q-1", {"tags": ["t"]})
    after = path.read_text(encoding="utf-8")
    assert question in after and "# " + "z" * 2_000 + "\n" in after
    assert after.replace("    tags:\n      - t\n", "") == text


ESCAPED = {"tab": "\t", "SOH": "\x01", "LS": "\u2028"}
"""Characters a double-quoted YAML text holds escaped: ``\\t``, ``\\x01``, ``\\L`` (a line
break to the writer)."""


@pytest.mark.parametrize("char", ESCAPED.values(), ids=list(ESCAPED))
def test_a_value_longer_than_any_line_width_is_written_on_one_line(
    tmp_path: Path, char: str
) -> None:
    """A tag (its length has no limit) written escaped over more than a million columns.
    Before, the editor folded a line at 2**20 columns, and a fold right after an escape
    (here, after each character) was written as a bare line break, read back as a space."""
    tag = char * 600_000 + " and more"
    path = tmp_path / "set.yaml"
    path.write_text(HEAD + ITEM.format(i=1), encoding="utf-8")
    with edit_set(path) as editor:
        editor.update_item("q-1", {"tags": [tag]})
    after = path.read_text(encoding="utf-8")
    assert after.startswith(HEAD + ITEM.format(i=1) + "    tags:\n      - ")
    assert after.count("\n") == (HEAD + ITEM.format(i=1)).count("\n") + 2  # the tag: one line
    (item,) = load_set(path).items
    assert item.tags == [tag]


def test_shorten_keeps_every_line_and_column_before_a_comment() -> None:
    text = f"a: 1\n# {LONG}\nb: 'x' # {LONG}\nc: 2  # {LONG}\r\nd: 3\n"
    short = shorten_long_comments(text)
    assert short.split("\n")[1] == "#"
    assert short.split("\n")[2] == f"b: 'x' # {LONG}"  # a quote before it: left alone
    assert short.split("\n")[3] == "c: 2  #\r"
    kept: dict[str, str] = {}
    placeholders = shorten_long_comments(text, kept)
    assert len(kept) == 1  # the same comment twice: one placeholder stands for both
    other: dict[str, str] = dict(kept)
    shorten_long_comments(text.replace(f"c: 2  # {LONG}", f"c: 2  # {LONG}!"), other)
    assert len(other) == 2 and other.keys() >= kept.keys()  # kept adds up across regions
    restored = placeholders
    for placeholder, comment in kept.items():
        restored = restored.replace(placeholder, comment)
    assert restored == text
    assert shorten_long_comments("a: 1  # short\n") == "a: 1  # short\n"
    assert locate.PLACEHOLDER.format(0) in placeholders
