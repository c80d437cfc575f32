"""An edit adds or changes the fields it means to and leaves the layout of the item's other
fields as the user wrote it, through every command that edits an item: the YAML library
rewrites a whole item (a plain question folded over lines put on one, a list indented
deeper than the file's others moved back), so the fields it did not change are written as
they were. A flow-style item (``- {id: …}``) keeps its line, a comment after its brace."""

from __future__ import annotations

import datetime as dt
import difflib
import re
from pathlib import Path

import pytest

from conftest import commit_all, write_files
from evalset.sets.setfile import load_set

HEADER = "evalset: 1\nname: s\ncategories:\n  direct-lookup: one section\nitems:\n"
OTHER = """\
  - id: q-1
    question: What does shipping cost?
    category: direct-lookup
    expected_sources: [d.md]
    key_points:
      - text: 5 euros
        sources: [d.md]
    holdout: false
"""
QUESTION = "How long is the return window?"
LAYOUTS = {
    "a plain question folded over lines": """\
  - id: q-2
    question: How long is
      the return window?
    category: direct-lookup
    expected_sources: [d.md]
    key_points:
      - text: 30 days
        sources: [d.md]
""",
    "a list indented deeper than the others": """\
  - id: q-2
    question: How long is the return window?
    category: direct-lookup
    expected_sources:
        - d.md
    key_points:
        - text: 30 days
          sources:
              - d.md
""",
    "a double-quoted question broken over lines": """\
  - id: q-2
    question: "How long is the \\
      return window?"
    category: direct-lookup
    expected_sources: [d.md]
    key_points: [{text: 30 days, sources: [d.md]}]
""",
    "comments between the fields, deeper than them": """\
  - id: q-2
    question: >-
      How long is the
      return window?
    # asked in the shop, not online
    category: direct-lookup   # checked
    expected_sources:
    # the policy page
    - d.md
    key_points:
      - text: 30 days  # from legal
        sources: [d.md]
""",
    "CRLF line breaks and a folded question": """\
  - id: q-2\r
    question: How long is\r
      the return window?\r
    category: direct-lookup\r
    expected_sources: [d.md]\r
    key_points:\r
        - text: 30 days\r
          sources: [d.md]\r
""",
}
FLOW = (
    "  - {id: q-2, question: How long is the return window?, category: direct-lookup, "
    "expected_sources: [d.md], key_points: [{text: 30 days, sources: [d.md]}]}"
)
FLOW_LAYOUTS = {
    "a flow-style item": FLOW + "\n",
    "a flow-style item with a comment and a comment line after it": FLOW
    + "  # imported\n  # from the old sheet\n",
}


@pytest.fixture
def repo(corpus_repo: Path, cli) -> Path:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, {"corpus/d.md": "# D\n\nThe document.\n"})
    assert cli(corpus_repo, "snapshot").code == 0
    commit_all(corpus_repo, "corpus")
    return corpus_repo


def _write(repo: Path, item: str) -> Path:
    path = repo / "sets" / "s.yaml"
    path.write_bytes((HEADER + OTHER + item).encode())
    assert load_set(path).items[1].question == QUESTION
    return path


def _added(before: bytes, after: bytes) -> list[str]:
    """The lines ``after`` has that ``before`` has not; fails if any line of ``before`` is
    gone or changed."""
    old = before.decode().splitlines(keepends=True)
    new = after.decode().splitlines(keepends=True)
    added = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new).get_opcodes():
        assert op in ("equal", "insert"), (op, old[i1:i2], new[j1:j2])
        if op == "insert":
            added += new[j1:j2]
    return added


def _edits() -> dict[str, tuple[list[str], str]]:
    """Each command that edits an item: its arguments, and the line it adds (a pattern)."""
    today = dt.date.today().isoformat()
    return {
        "retire": (
            ["retire", "s", "q-2", "--reason", "no longer sold"],
            rf"    status: retired +# retired {today}: no longer sold",
        ),
        "verify": (["verify", "s", "q-2"], r"    verified: [0-9a-f]{12}"),
        "split": (["split", "s"], r"    holdout: (true|false)"),
    }


@pytest.mark.parametrize("command", ["retire", "verify", "split"])
@pytest.mark.parametrize("item", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_an_edit_adds_its_line_and_keeps_every_other_line(  # type: ignore[no-untyped-def]
    cli, repo: Path, item: str, command: str
) -> None:
    path = _write(repo, item)
    before = path.read_bytes()
    args, line = _edits()[command]
    result = cli(repo, *args)
    assert result.code == 0, result.err
    added = _added(before, path.read_bytes())
    newline = "\r\n" if "\r\n" in item else "\n"
    assert len(added) == 1 and re.fullmatch(line + re.escape(newline), added[0]), added
    assert load_set(path).items[1].question == QUESTION
    assert cli(repo, "validate").code == 0


@pytest.mark.parametrize("item", FLOW_LAYOUTS.values(), ids=FLOW_LAYOUTS.keys())
def test_retiring_a_flow_style_item_comments_after_its_brace(  # type: ignore[no-untyped-def]
    cli, repo: Path, item: str
) -> None:
    path = _write(repo, item)
    before = path.read_text()
    today = dt.date.today().isoformat()
    assert cli(repo, "retire", "s", "q-2", "--reason", "no longer sold").code == 0
    said = ("imported; " if "imported" in item else "") + f"retired {today}: no longer sold"
    flow = FLOW.removesuffix("}") + ", status: retired}"
    rest = item.split("\n", 1)[1]
    assert path.read_text() == before.replace(item, f"{flow}  # {said}\n{rest}")
    assert load_set(path).items[1].status == "retired"
