"""An edit adds or changes the fields it means to and leaves the layout of the item's other
fields as the user wrote it, through every command that edits an item: the YAML library
rewrites a whole item (a plain question folded over lines put on one, a list indented
deeper than the file's others moved back), so the fields it did not change are written as
they were, and a `-` on a line of its own stays there. A flow-style item (``- {id: …}``)
keeps its line, a comment after its brace, and the text of each value it did not change."""

from __future__ import annotations

import datetime as dt
import difflib
import json
import re
from pathlib import Path

import pytest
from test_edit_kept_text import HEADER

from evalset.sets.setfile import load_set, parse_set

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
Q2 = """\
  - id: q-2
    question: How long is the return window?
    category: direct-lookup
    expected_sources: [d.md]
    key_points: [{text: 30 days, sources: [d.md]}]
"""
"""q-2's lines before the ones a layout adds."""
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
    "a literal block last, whose last line looks like a comment": Q2
    + """\
    answer: |
      thirty days
      # from legal
""",
    "a kept block last, ending in blank lines": Q2
    + """\
    must_not_say:
      - |+
        sixty days


""",
    "a flow list over lines, with a comment and its bracket at the key's column": """\
  - id: q-2
    question: How long is
      the return window?
    category: direct-lookup
    expected_sources: [
      d.md,  # the policy page
    ]
    key_points: [{text: 30 days, sources: [d.md]}]
""",
    "a comment far to the right of another field": Q2
    + """\
    answer: thirty days                                                             # legal
""",
    "a dash on a line of its own": """\
  -
    id: q-2
    question: "How long is the \\u0072eturn window?"
    category: direct-lookup
    expected_sources: [d.md]
    key_points: [{text: 30 days, sources: [d.md]}]
""",
    "a dash on a line of its own, a comment after it, CRLF": """\
  -   # imported\r
    id: q-2\r
    question: How long is\r
      the return window?\r
    category: direct-lookup\r
    expected_sources: [d.md]\r
    key_points: [{text: 30 days, sources: [d.md]}]\r
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


ESCAPED_FLOW = {
    "escapes in a double-quoted question": (
        '  - {id: q-2, question: "How long is the \\u0072eturn\\twindow?", category: '
        "direct-lookup, expected_sources: [d.md], key_points: [{text: 30 days, sources: "
        "[d.md]}]}\n"
    ),
    "a single-quoted question and escapes in a nested value": (
        "  - {id: q-2, question: 'How long is the ''return'' window?', category: "
        'direct-lookup, expected_sources: ["d\\x2emd"], key_points: [{text: "30\\x20days", '
        "sources: [d.md]}]}  # imported\n"
    ),
    "over two lines": (
        '  - {id: q-2, question: "How long is the \\u0072eturn window?",\n'
        "     category: direct-lookup, expected_sources: [d.md], key_points: [{text: 30 days, "
        "sources: [d.md]}]}\n"
    ),
}
"""Flow-style items whose values the YAML library would write otherwise than they are."""


@pytest.mark.parametrize("command", ["retire", "verify", "split"])
@pytest.mark.parametrize("item", ESCAPED_FLOW.values(), ids=ESCAPED_FLOW.keys())
def test_an_edit_of_a_flow_style_item_keeps_the_values_it_did_not_change(  # type: ignore[no-untyped-def]
    cli, repo: Path, item: str, command: str
) -> None:
    path = repo / "sets" / "s.yaml"
    path.write_text(HEADER + OTHER + item, "utf-8")
    before = path.read_text("utf-8")
    before_item = _item(before.encode())
    result = cli(repo, *_edits()[command][0])
    assert result.code == 0, result.err
    after = path.read_text("utf-8")
    quoted = r"""(?:question|expected_sources|text): ("[^"]*"|'.*?'(?=,)|\[[^]]*\])"""
    for value in re.findall(quoted, item):
        assert value in after, value  # written as it was
    after_item = _item(after.encode())
    assert {"retire": "status", "verify": "verified", "split": "holdout"}[command] in after_item
    assert {k: v for k, v in after_item.items() if k in before_item} == before_item


@pytest.fixture
def repo(one_doc_repo: Path) -> Path:
    return one_doc_repo


def _write(repo: Path, item: str) -> Path:
    path = repo / "sets" / "s.yaml"
    path.write_bytes((HEADER + OTHER + item).encode())
    assert load_set(path).items[1].question == QUESTION
    return path


def _item(data: bytes) -> dict[str, object]:
    """q-2 as the file ``data`` holds it, read as a set file's item is."""
    item: dict[str, object] = parse_set(data.decode(), Path("s.yaml")).raw_items[1]
    return item


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
            rf"    status: retired  # retired {today}: no longer sold",
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
    added_keys = ("status", "verified", "holdout")
    after = {k: v for k, v in _item(path.read_bytes()).items() if k not in added_keys}
    assert after == _item(before)  # every value as it was
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


def _long(letter: str) -> str:
    return letter * 1100


# Comments on lines over 1,000 characters, which the editor reads as placeholders while the
# YAML library has a region (see locate.shorten_long_comments): each item edited keeps its
# own (a placeholder stood for the last one read in every item), whether it is a comment on
# the line the edit changes or a line of a block scalar that looks like one, and whether the
# items are edited one region at a time or the file is rewritten whole (an item laid out
# unlike the first, `-   id:`).
LONG_COMMENTS = {
    "comments after a value": Q2
    + """\
    status: active   # {a}
  - id: q-3
    question: How long is the return window for gifts?
    category: direct-lookup
    expected_sources: [d.md]
    key_points: [{text: 30 days, sources: [d.md]}]
    status: active   # {b}
""",
    "block scalar lines, the file rewritten whole": """\
  -   id: q-2
      question: How long is the return window?
      category: direct-lookup
      expected_sources: [d.md]
      key_points: [{text: 30 days, sources: [d.md]}]
      answer: |
        thirty days # {a}
  - id: q-3
    question: How long is the return window for gifts?
    category: direct-lookup
    expected_sources: [d.md]
    key_points: [{text: 30 days, sources: [d.md]}]
    answer: |
      thirty days # {b}
""",
}


@pytest.mark.parametrize("command", ["retire", "split"])
@pytest.mark.parametrize("items", LONG_COMMENTS.values(), ids=LONG_COMMENTS.keys())
def test_long_comments_stay_with_their_items(  # type: ignore[no-untyped-def]
    cli, repo: Path, items: str, command: str
) -> None:
    path = repo / "sets" / "s.yaml"
    path.write_text(
        HEADER + OTHER + items.replace("{a}", _long("a")).replace("{b}", _long("b")), "utf-8"
    )
    before = load_set(path)
    args = (
        ["retire", "s", "q-2", "q-3", "--reason", "gone"] if command == "retire" else ["split", "s"]
    )
    result = cli(repo, *args)
    assert result.code == 0, result.err
    text = path.read_text("utf-8")
    assert text.count(_long("a")) == text.count(_long("b")) == 1
    assert text.index(_long("a")) < text.index("id: q-3") < text.index(_long("b"))
    after = load_set(path)
    assert [i.answer for i in after.items] == [i.answer for i in before.items]


def test_retiring_an_item_of_a_flow_list_with_comments_keeps_them(cli, repo: Path) -> None:  # type: ignore[no-untyped-def]
    path = repo / "sets" / "s.yaml"
    path.write_text(
        HEADER.replace("items:\n", "items: [\n")
        + "  # the first item\n"
        + "  "
        + FLOW.strip().removeprefix("- ")
        + "\n]\n",
        "utf-8",
    )
    result = cli(repo, "retire", "s", "q-2", "--reason", "gone")
    assert result.code == 0, result.err
    assert "# the first item" in path.read_text("utf-8")
    assert load_set(path).items[0].status == "retired"


def test_an_edit_whose_item_would_not_read_back_as_edited_is_refused() -> None:
    """The last check before writing: each item edited in place reads back from the new
    text as the YAML library wrote it edited, whatever text was kept around it."""
    from evalset.errors import EditRefused
    from evalset.sets.editor import SetEditor, _check

    text = HEADER + OTHER + LAYOUTS["a plain question folded over lines"]
    before = parse_set(text, Path("s.yaml"))
    editor = SetEditor(before)
    editor.update_item("q-2", {"tags": ["returns"]})
    rendered = editor.render()
    _check(before, parse_set(rendered, Path("s.yaml")), editor)  # as written: fine
    spoiled = rendered.replace("      the return window?", "      the refund window?")
    with pytest.raises(EditRefused, match="item 'q-2' would not read back as edited"):
        _check(before, parse_set(spoiled, Path("s.yaml")), editor)


def test_an_item_opened_by_a_dash_on_its_own_line_is_edited(cli, repo: Path) -> None:  # type: ignore[no-untyped-def]
    """`-` alone on a line, the item's keys under it: the file's first item, whose layout
    the editor writes every item it edits in (it wrote them unreadable, and refused)."""
    path = _write(repo, LAYOUTS["a plain question folded over lines"])
    text = path.read_text().replace("  - id: q-1\n", "  -\n    id: q-1\n")
    path.write_text(text)
    before = [_item(path.read_bytes()), parse_set(text, Path("s.yaml")).raw_items[0]]
    for ident in ("q-2", "q-1"):
        result = cli(repo, "retire", "s", ident, "--reason", "gone")
        assert result.code == 0, result.err
    after = parse_set(path.read_text(), Path("s.yaml")).raw_items
    assert [{k: v for k, v in i.items() if k != "status"} for i in after[::-1]] == before
    assert [i["status"] for i in after] == ["retired", "retired"]


KEEP_BLANK = """\
  - id: q-{n}
    question: How long is the return window, case {n}?
    category: direct-lookup
    expected_sources: [d.md]
    key_points: [{{text: 30 days, sources: [d.md]}}]
    status: active
    answer: |+
      thirty

"""
# Items edited together whose values the editor must not mix up or cut: a kept block scalar
# last in the item (the library ended the file's document after it, `...`), a flow item with
# a long comment after its brace, an answer quoting a placeholder's old spelling.
TOGETHER = {
    "kept blocks last, the file's last item among them": KEEP_BLANK.format(n=2)
    + KEEP_BLANK.format(n=3),
    "a flow item with a long comment": FLOW
    + "  # checked by legal "
    + "k" * 1100
    + "\n"
    + KEEP_BLANK.format(n=3),
    "a placeholder's spelling in another item's text": KEEP_BLANK.format(n=2).replace(
        "    answer: |+\n      thirty\n\n", "    answer: b  # " + "k" * 1100 + "\n"
    )
    + KEEP_BLANK.format(n=3).replace(
        "|+\n      thirty\n\n", "'see #~evalset-long-comment-0~ and #~evalset-long-comment-1~'\n"
    ),
}


@pytest.mark.parametrize("items", TOGETHER.values(), ids=TOGETHER.keys())
def test_items_edited_together_each_keep_their_values_and_comments(  # type: ignore[no-untyped-def]
    cli, repo: Path, items: str
) -> None:
    path = repo / "sets" / "s.yaml"
    path.write_text(HEADER + OTHER + items, "utf-8")
    before = parse_set(path.read_text("utf-8"), Path("s.yaml")).raw_items
    result = cli(repo, "retire", "s", "q-2", "q-3", "--reason", "gone")
    assert result.code == 0, result.err
    text = path.read_text("utf-8")
    after = parse_set(text, Path("s.yaml")).raw_items
    assert [{k: v for k, v in i.items() if k != "status"} for i in after] == [
        {k: v for k, v in i.items() if k != "status"} for i in before
    ]
    assert [i.get("status") for i in after] == [None, "retired", "retired"]
    assert "\n...\n" not in text and "evalset-long-comment" not in text.replace(
        "'see #~evalset-long-comment-0~ and #~evalset-long-comment-1~'", ""
    )
    if "checked by legal" in items:
        assert text.count("k" * 1100 + "; retired ") == 1


# The last lines of an item's last value that look blank or like comments are its text: an
# item appended after it, or an edit of it, leaves its value whole.
LAST_VALUES = {
    "a block ending in a comment-like line": "    answer: |\n      thirty\n\n      # legal\n",
    "a kept block ending in blank lines": "    answer: |+\n      thirty\n\n\n",
    "a quoted text whose last line looks like a comment": '    answer: "thirty\n      # legal"\n',
}


@pytest.mark.parametrize("command", ["new", "retire"])
@pytest.mark.parametrize("last", LAST_VALUES.values(), ids=LAST_VALUES.keys())
def test_an_item_s_last_value_stays_whole(cli, repo: Path, last: str, command: str) -> None:  # type: ignore[no-untyped-def]
    path = _write(repo, LAYOUTS["a list indented deeper than the others"] + last)
    before = parse_set(path.read_text("utf-8"), Path("s.yaml")).raw_items
    args = ["new", "s", "--question", "Is there a fee?"] if command == "new" else [
        "retire", "s", "q-2", "--reason", "gone"]  # fmt: skip
    result = cli(repo, *args)
    assert result.code == 0, result.err
    after = parse_set(path.read_text("utf-8"), Path("s.yaml")).raw_items
    assert [{k: v for k, v in i.items() if k != "status"} for i in after[:2]] == before
    assert len(after) == (3 if command == "new" else 2)


# Headers as people write them: what a header edit (release writes version and fingerprint;
# verify --from-header drops `snapshot`) keeps of the keys it does not change.
HEADERS = {
    "flow categories with a comment": (
        "evalset: 1\nname: s\ncategories: {direct-lookup: a fact,   # the common kind\n"
        "    paraphrased: other words}\n"
    ),
    "a folded description": (
        "evalset: 1\nname: s   \ndescription: a plain\n  multi-line description   # end\n"
        "categories:\n    direct-lookup: a fact\n    paraphrased: other words\n"
    ),
    "comments between keys": (
        "# the set's header\nevalset: 1\n\n# who owns it\nname: s\ncategories:\n"
        "  direct-lookup: a fact   # kept\n  paraphrased: other words\n"
    ),
    "mixed line breaks": (
        "evalset: 1\nname: s\r\ndescription: d\r\ncategories:\r\n  direct-lookup: a fact\r\n"
        "  paraphrased: other words\n"
    ),
}
HEADER_ITEMS = "items:\n  - id: q-1\n    question: Can I return it?\n    status: draft\n"


@pytest.mark.parametrize("layout", HEADERS)
def test_a_header_edit_keeps_the_keys_it_does_not_change(tmp_path: Path, layout: str) -> None:
    """Before, the header was written again whole: a comment in a flow mapping dropped, a
    folded description joined, a deeper indent made shallow, CRLF lines made LF."""
    from evalset.sets.editor import edit_set

    header = HEADERS[layout]
    path = tmp_path / "s.yaml"
    path.write_bytes((header + HEADER_ITEMS).encode())
    with edit_set(path) as editor:
        editor.set_header("version", "0.1.0")
        editor.set_header("fingerprint", "sha256:" + "0" * 64)
    after = path.read_bytes().decode()
    added = "version: 0.1.0\nfingerprint: sha256:" + "0" * 64 + "\n"
    assert after.replace(added, "") == header + HEADER_ITEMS, after
    loaded = load_set(path)
    assert loaded.header is not None and loaded.header.version == "0.1.0"


LAST_ITEM = (
    "  - id: q-2\n    question: what is\n      the return window\n      for items?\n"
    "    expected_sources: [a.md#x,   # why this one\n        a.md]\n    status: draft"
)


@pytest.mark.parametrize("form", ["lf", "crlf", "bom"])
def test_the_last_item_of_a_file_without_a_final_line_break_keeps_its_text(
    tmp_path: Path, form: str
) -> None:
    """Before, its fields could not be cut at a line end it lacked: the whole item was
    written again (its folded question joined, the comment in its flow list lost)."""
    from evalset.sets.editor import edit_set

    text = HEADERS["comments between keys"] + HEADER_ITEMS + LAST_ITEM
    if form == "crlf":
        text = text.replace("\n", "\r\n")
    data = (("\ufeff" if form == "bom" else "") + text).encode()
    path = tmp_path / "s.yaml"
    path.write_bytes(data)
    with edit_set(path) as editor:
        editor.update_item("q-2", {"tags": ["t"]})
    newline = "\r\n" if form == "crlf" else "\n"
    assert path.read_bytes() == data + f"{newline}    tags:{newline}      - t".encode()


TRAILING = {
    # the comments after the last item, and how many of their lines are its own (indented
    # under its `-`, with no blank line before them)
    "a comment indented under it": ("    # TODO(ann): add the exception for damaged items\n", 1),
    "comment lines under it": ("    # checked with legal\n      # on 2026-11-30\n", 2),
    "a comment under it, no final line break": ("    # checked with legal", 1),
    "a comment under it, then one at the items' column": (
        "    # checked with legal\n  # the set's last comment\n",
        1,
    ),
    "a comment after a blank line": ("\n    # not its own: after a blank line\n", 0),
    "a comment at the items' column": ("  # the set's last comment\n", 0),
    "a comment under it in a file of CRLF lines": ("    # checked with legal\r\n", 1),
}
ADDING = {
    "new": ["new", "s", "-q", "Do you ship to Iceland?"],
    "promote": ["promote", "failures.jsonl", "--set", "s"],
    "import": ["import", "rows.jsonl", "--set", "s", "--format", "jsonl"],
}


@pytest.mark.parametrize("command", ADDING)
@pytest.mark.parametrize(("trailing", "own"), TRAILING.values(), ids=TRAILING.keys())
def test_new_items_go_after_the_last_item_s_own_comments(  # type: ignore[no-untyped-def]
    cli, repo: Path, trailing: str, own: int, command: str
) -> None:
    """A comment indented under the last item is its own (a whole rewrite of it, as sealing
    makes, takes it along): an item added after the last goes after it, so that it does
    not become the new item's."""
    text = HEADER + OTHER + Q2 + trailing
    if "\r\n" in trailing:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    path = repo / "sets" / "s.yaml"
    path.write_bytes(text.encode())
    question = {"question": "Do you ship to Iceland?", "trace": "tr-1"}
    (repo / "failures.jsonl").write_text(json.dumps(question) + "\n")
    (repo / "rows.jsonl").write_text(json.dumps({"question": question["question"]}) + "\n")
    result = cli(repo, *ADDING[command])
    assert result.code == 0, result.err
    after = path.read_bytes().decode()
    lines = text.splitlines(True)
    cut = len((HEADER + OTHER + Q2).splitlines()) + own
    kept, rest = "".join(lines[:cut]), "".join(lines[cut:])
    assert after.startswith(
        kept if kept.endswith("\n") else kept + ("\r\n" if "\r" in text else "\n")
    )
    assert after.endswith(rest)
    added = after[len(kept) : len(after) - len(rest)]
    assert "  - id: " in added and "Do you ship to Iceland?" in added and "#" not in added
