"""Loading and editing set files: positions, byte-exact round trips, atomic locked writes."""

from __future__ import annotations

import difflib
import multiprocessing
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import EXAMPLE_SET, FIXTURES
from evalset import DELETE, EditRefused, Item, edit_set, load_set
from evalset.errors import SetFileError
from evalset.sets.editor import SetEditor
from evalset.sets.locate import ItemSpans
from evalset.sets.standins import RESERVED

ALL_FIXTURES = [*sorted((FIXTURES / "sets").glob("*.yaml")), EXAMPLE_SET]
BLOCK_FIXTURES = [p for p in ALL_FIXTURES if p.name != "flow.yaml"]


def copy(src: Path, tmp_path: Path) -> Path:
    dst = tmp_path / src.name
    shutil.copy(src, dst)
    return dst


def test_example_loads_with_every_item() -> None:
    loaded = load_set(EXAMPLE_SET)
    assert loaded.schema_findings == []
    assert loaded.header is not None and loaded.header.name == "acme-support"
    assert len(loaded.items) == 44
    first = loaded.items[0]
    assert str(first.expected_sources[0]) == "policies/returns.md#damaged-items"
    assert first.expected_sources[0].section == "damaged-items"


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=lambda p: p.name)
def test_every_fixture_loads_cleanly(path: Path) -> None:
    assert load_set(path).schema_findings == []


def test_positions_point_at_the_field() -> None:
    loaded = load_set(FIXTURES / "sets" / "styles.yaml")
    lines = loaded.text.splitlines()
    line, col = loaded.position(("items", 1, "key_points", 0, "sources", 0))
    assert line is not None and col is not None
    assert lines[line - 1][col - 1 :] == "policies/returns.md#refund-method"
    line, col = loaded.position(("items", 2, "status"))
    assert lines[line - 1][col - 1 :] == "status: draft"  # type: ignore[index]
    line, col = loaded.position(("categories", "multi-hop"))
    assert lines[line - 1].strip().startswith("multi-hop:")  # type: ignore[index]


def test_positions_in_a_flow_style_file_fall_back_to_a_full_parse() -> None:
    loaded = load_set(FIXTURES / "sets" / "flow.yaml")
    assert ItemSpans.scan(loaded.index.lines) is None
    line, col = loaded.position(("items", 0, "category"))
    assert (line, loaded.text[col - 1 :].startswith("category: direct-lookup")) == (1, True)  # type: ignore[operator]


HEADER_PATHS = [("name",), ("evalset",), ("categories",), ("categories", "multi-hop"),
                ("categories", "direct-lookup"), ("description",), ("nothing-here",)]  # fmt: skip


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=lambda p: p.name)
def test_a_header_position_is_the_one_a_whole_parse_gives(path: Path) -> None:
    """Header keys are located in the header alone, without scanning the items; the
    answer is the one a parse of the whole file gives (or its nearest ancestor)."""
    from evalset.sets.locate import TextIndex, _node_position

    text = path.read_text(encoding="utf-8")
    moved = text + "\nextra_after_items: 1\n" if "\nitems:" in text else text
    for source in (text, moved):
        for key in [*HEADER_PATHS, ("extra_after_items",)]:
            index = TextIndex(source)
            quick = index.position(key)
            whole = _node_position(TextIndex(source)._whole, key)
            expected = (whole[0] + 1, whole[1] + 1) if whole else None
            assert quick == expected or whole is None, (key, quick, expected)
            if key[0] in ("name", "categories") and index.items_line:
                assert "spans" not in index.__dict__  # the items were not scanned


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=lambda p: p.name)
def test_load_and_save_of_every_fixture_is_byte_identical(path: Path, tmp_path: Path) -> None:
    target = copy(path, tmp_path)
    before = target.read_bytes()
    loaded = load_set(target)
    with edit_set(target) as editor:
        for item, k in zip(loaded.items, loaded.item_index, strict=True):
            # Setting every field to the value it has is a save that must change nothing.
            editor.update_item(item.id, dict(loaded.raw_items[k]))
        editor.set_header("name", loaded.raw["name"])
    assert target.read_bytes() == before


@pytest.mark.parametrize("path", BLOCK_FIXTURES, ids=lambda p: p.name)
def test_rerendering_an_item_keeps_its_bytes(path: Path) -> None:
    """Even an item that is re-rendered keeps comments, quoting, block scalars and layout,
    padding inside flow brackets included (the fields an edit did not change are written
    as they were)."""
    loaded = load_set(path)
    editor = SetEditor(loaded)
    editor._item_changes = {k: {"zz_marker": "m"} for k in loaded.item_index}
    rendered = editor.render()
    assert rendered.count("zz_marker: m\n") == len(loaded.items)
    rendered = re.sub(r"(?m)^ *zz_marker: m\n", "", rendered)
    assert rendered == loaded.text


def test_edit_changes_only_the_item_it_targets(tmp_path: Path) -> None:
    target = copy(EXAMPLE_SET, tmp_path)
    before = target.read_text()
    with edit_set(target) as editor:
        editor.update_item("q-014", {"verified": "3f9a1c2b7d4e", "tags": DELETE})
    after = target.read_text()
    diff = [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), n=0)
        if line[:1] in "+-" and line[:3] not in ("+++", "---")
    ]
    assert diff == [
        "-    verified: 301688de6b37",
        "-    tags: [shipping]",
        "+    verified: 3f9a1c2b7d4e",
    ]
    assert load_set(target).items[13].verified == "3f9a1c2b7d4e"


def test_a_replaced_value_keeps_its_flow_or_block_style(tmp_path: Path) -> None:
    target = copy(EXAMPLE_SET, tmp_path)
    before = target.read_text()
    with edit_set(target) as editor:
        editor.update_item("q-014", {"tags": ["shipping", "customs"]})
        editor.update_item("q-022", {"expected_sources": ["policies/returns.md#refund-method"]})
    q014 = (
        "      - you must pay customs duties on delivery\n    holdout: false\n"
        "    verified: 301688de6b37\n"
    )
    assert target.read_text() == before.replace(
        q014 + "    tags: [shipping]\n", q014 + "    tags: [shipping, customs]\n"
    ).replace(
        "    expected_sources:\n      - policies/returns.md#refund-method\n"
        "      - policies/returns.md#refund-timing\n",
        "    expected_sources:\n      - policies/returns.md#refund-method\n",
    )


def test_append_follows_the_file_layout(tmp_path: Path) -> None:
    target = copy(FIXTURES / "sets" / "styles.yaml", tmp_path)
    before = target.read_text()
    new = Item(id="s-4", question="A new question?", category="multi-hop", status="draft")
    with edit_set(target) as editor:
        editor.append_items([new])
    after = target.read_text()
    assert after == before.replace(
        "  status: draft\n",
        "  status: draft\n- id: s-4\n  question: A new question?\n  category: multi-hop\n"
        "  status: draft\n",
    )


def test_append_into_an_empty_set_and_blank_line_separated_sets(tmp_path: Path) -> None:
    target = copy(FIXTURES / "sets" / "empty-items.yaml", tmp_path)
    with edit_set(target) as editor:
        editor.append_items([{"id": "a", "question": "First?", "status": "draft"}])
    with edit_set(target) as editor:
        editor.append_items([{"id": "b", "question": "Second?", "status": "draft"}])
    assert target.read_text().endswith(
        "items:\n  - id: a\n    question: First?\n    status: draft\n"
        "  - id: b\n    question: Second?\n    status: draft\n"
    )
    spaced = copy(EXAMPLE_SET, tmp_path)
    with edit_set(spaced) as editor:
        editor.append_items([{"id": "q-900", "question": "Spaced?", "status": "draft"}])
    assert spaced.read_text().endswith(
        "    holdout: false\n\n  - id: q-900\n    question: Spaced?\n    status: draft\n"
    )


def test_header_edit_keeps_comments_and_puts_new_keys_in_format_order(tmp_path: Path) -> None:
    target = copy(FIXTURES / "sets" / "styles.yaml", tmp_path)
    before = target.read_text()
    with edit_set(target) as editor:
        editor.set_header("snapshot", "3f9a1c2b7d4e")
    assert target.read_text() == before.replace(
        'description: "Double-quoted description"\n',
        'description: "Double-quoted description"\nsnapshot: 3f9a1c2b7d4e\n',
    )
    with edit_set(target) as editor:
        editor.set_header("snapshot", "4db5fdbcf4f4")
    assert "snapshot: 4db5fdbcf4f4\ncategories:" in target.read_text()


def test_flow_style_file_is_edited_by_a_full_round_trip(tmp_path: Path) -> None:
    target = copy(FIXTURES / "sets" / "flow.yaml", tmp_path)
    with edit_set(target) as editor:
        editor.update_item("f-1", {"holdout": True})
    assert load_set(target).items[0].holdout is True


def test_invalid_edit_is_refused_and_the_file_is_untouched(tmp_path: Path) -> None:
    target = copy(EXAMPLE_SET, tmp_path)
    before = target.read_bytes()
    refused = pytest.raises(EditRefused, match=r"item q-001: question: error: expected text")
    with refused, edit_set(target) as editor:
        editor.update_item("q-001", {"question": 42})
    assert target.read_bytes() == before
    refused = pytest.raises(EditRefused, match="would duplicate an item id")
    with refused, edit_set(target) as editor:
        editor.append_items([{"id": "q-001", "question": "Again?", "status": "draft"}])
    assert target.read_bytes() == before
    with pytest.raises(EditRefused, match="has no item 'q-999'"), edit_set(target) as editor:
        editor.update_item("q-999", {"holdout": True})
    assert target.read_bytes() == before
    assert not list(tmp_path.glob(".*.tmp"))


def _append_many(path: str, worker: int, count: int) -> None:
    for n in range(count):
        with edit_set(path) as editor:
            editor.append_items(
                [
                    {
                        "id": f"w{worker}-{n}",
                        "question": f"Worker {worker} item {n}",
                        "status": "draft",
                    }
                ]
            )


def test_concurrent_writers_never_lose_a_row(tmp_path: Path) -> None:
    target = copy(FIXTURES / "sets" / "minimal.yaml", tmp_path)
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_append_many, args=(str(target), w, 5)) for w in range(4)]
    for proc in workers:
        proc.start()
    for proc in workers:
        proc.join(60)
        assert proc.exitcode == 0
    ids = [item.id for item in load_set(target).items]
    assert len(ids) == 21 and len(set(ids)) == 21


def _names_of_one_file(tmp_path: Path, in_workspace: bool) -> list[Path]:
    """A set file and three other names for it: a link beside it, a link in another
    folder, and its path through a linked folder."""
    root = tmp_path / "ws"
    (root / "sets").mkdir(parents=True)
    if in_workspace:
        (root / "evalset.toml").write_text('sets = "sets"\n', "utf-8")
    real = copy(FIXTURES / "sets" / "minimal.yaml", root / "sets")
    (root / "sets" / "alias.yaml").symlink_to(real)
    (root / "other").mkdir()
    (root / "other" / "minimal.yaml").symlink_to(real)
    (root / "linked-sets").symlink_to(root / "sets", target_is_directory=True)
    return [
        real,
        root / "sets" / "alias.yaml",
        root / "other" / "minimal.yaml",
        root / "linked-sets" / "minimal.yaml",
    ]


@pytest.mark.parametrize("in_workspace", [True, False], ids=["workspace", "no-workspace"])
def test_every_name_of_a_set_file_takes_the_same_edit_lock(
    tmp_path: Path, in_workspace: bool
) -> None:
    names = _names_of_one_file(tmp_path, in_workspace)
    for holder in names:
        for other in names:
            busy = pytest.raises(SetFileError, match="is already being edited in this process")
            with edit_set(holder), busy, edit_set(other, timeout=0.05):
                pass


OUTSIDE_EDITS = {
    "new": ["new", "{}", "-q", "Can I pay with a voucher?"],
    "retire": ["retire", "{}", "q-014", "--reason", "withdrawn"],
    "split --move": ["split", "{}", "--move", "q-001", "--to", "holdout", "--force"],
    "promote": ["promote", "{failures}", "--set", "{}"],
    "import": ["import", "{rows}", "--set", "{}", "--format", "jsonl"],
}


@pytest.mark.parametrize("edit", OUTSIDE_EDITS)
def test_an_edit_outside_a_workspace_leaves_no_file_beside_the_set(  # type: ignore[no-untyped-def]
    cli, set_copy: Path, tmp_path: Path, edit: str
) -> None:
    """Outside a workspace the lock is the set's folder's own (an flock), not a lock file
    that would stay beside the user's file for good."""
    failures = tmp_path / "failures.jsonl"
    failures.write_text('{"question": "Do you deliver on Sundays?", "trace": "tr-1"}\n')
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"question": "Do you deliver on Sundays?"}\n')
    before = set_copy.read_bytes()
    args = [a.format(str(set_copy), failures=failures, rows=rows) for a in OUTSIDE_EDITS[edit]]
    result = cli(tmp_path, *args)
    assert result.code == 0, result.err
    assert set_copy.read_bytes() != before
    assert sorted(p.name for p in set_copy.parent.iterdir()) == [set_copy.name]


def test_two_set_files_of_one_name_in_two_folders_are_edited_at_once(tmp_path: Path) -> None:
    (tmp_path / "evalset.toml").write_text('sets = "sets"\n', "utf-8")
    first, second = (tmp_path / "sets" / "a", tmp_path / "sets" / "b")
    for folder in (first, second):
        folder.mkdir(parents=True)
        copy(FIXTURES / "sets" / "minimal.yaml", folder)
    with edit_set(first / "minimal.yaml"), edit_set(second / "minimal.yaml", timeout=0.05):
        pass


@pytest.mark.parametrize("in_workspace", [True, False], ids=["workspace", "no-workspace"])
def test_writers_through_links_and_the_real_name_never_lose_a_row(
    tmp_path: Path, in_workspace: bool
) -> None:
    names = _names_of_one_file(tmp_path, in_workspace)
    ctx = multiprocessing.get_context("spawn")
    workers = [
        ctx.Process(target=_append_many, args=(str(names[w % len(names)]), w, 5)) for w in range(4)
    ]
    for proc in workers:
        proc.start()
    for proc in workers:
        proc.join(60)
        assert proc.exitcode == 0
    ids = [item.id for item in load_set(names[0]).items]
    assert len(ids) == 21 and len(set(ids)) == 21
    assert all(name.is_symlink() for name in names[1:3])


_safe_text = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")).filter(
        lambda c: ord(c) not in RESERVED  # refused in text to write (test_edit_kept_text)
    ),
    min_size=1,
    max_size=60,
).filter(lambda s: s.strip() == s and s.strip())


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    fixture=st.sampled_from(BLOCK_FIXTURES),
    position=st.integers(min_value=0, max_value=1000),
    question=_safe_text,
    append=st.booleans(),
)
def test_editing_or_appending_one_item_leaves_every_other_line_unchanged(
    tmp_path_factory: pytest.TempPathFactory,
    fixture: Path,
    position: int,
    question: str,
    append: bool,
) -> None:
    target = copy(fixture, tmp_path_factory.mktemp("prop"))
    # The first item turns `items: []` into `items:`; nothing else may change.
    before = [ln if ln != "items: []" else "items:" for ln in target.read_text().splitlines()]
    loaded = load_set(target)
    if not loaded.items:
        append = True
    with edit_set(target) as editor:
        if append:
            editor.append_items([{"id": "new-item", "question": question, "status": "draft"}])
        else:
            item = loaded.items[position % len(loaded.items)]
            editor.update_item(item.id, {"question": question})
    after = target.read_text().splitlines()
    reloaded = load_set(target)
    changed = "new-item" if append else loaded.items[position % len(loaded.items)].id
    assert next(i for i in reloaded.items if i.id == changed).question == question
    # Every line outside the one edited item is kept, in order.
    spans = ItemSpans.scan(target.read_text().splitlines(keepends=True))
    assert spans is not None
    k = [i.id for i in reloaded.items].index(changed)
    start, end = spans.starts[k], spans.ends[k]
    outside = after[:start] + after[end:]
    matcher = difflib.SequenceMatcher(a=before, b=outside, autojunk=False)
    for tag, _, _, j1, j2 in matcher.get_opcodes():
        assert tag != "replace"
        assert tag != "insert" or not "".join(outside[j1:j2]).strip()  # blank separators only
    assert len(before) - len(outside) <= (0 if append else end - start + 2)


def test_findings_past_the_parse_budget_point_at_their_field(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import evalset.sets.locate as locate

    monkeypatch.setattr(locate, "MAX_REGION_PARSES", 0)
    loaded = load_set(FIXTURES / "sets" / "styles.yaml")
    line, col = loaded.position(("items", 1, "key_points", 0, "sources", 0))
    assert (line, col) == (29, 3)  # the item's `key_points:` line, found by line scan


# -- line breaks, byte-order marks and links: an edit changes only what it means to ----------


def _edited_bytes(data: bytes, tmp_path: Path, name: str = "set.yaml") -> tuple[bytes, bytes]:
    """The file's bytes after tagging q-014 and appending an item, and the bytes the same
    edit gives on the LF version of the file."""
    results = []
    for raw in (data, data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")):
        path = tmp_path / f"{len(results)}-{name}"
        path.write_bytes(raw)
        with edit_set(path) as editor:
            editor.update_item("q-014", {"tags": ["edited"]})
            editor.append_items([{"id": "q-new", "question": "A new one?", "status": "draft"}])
        with edit_set(path) as editor:
            editor.set_header("description", "Edited description")
        results.append(path.read_bytes())
    return results[0], results[1]


@pytest.mark.parametrize("newline", [b"\r\n", b"\r"], ids=["crlf", "cr"])
def test_edits_keep_the_files_line_breaks(tmp_path: Path, newline: bytes) -> None:
    original = EXAMPLE_SET.read_bytes().replace(b"\n", newline)
    edited, lf = _edited_bytes(original, tmp_path)
    assert edited == lf.replace(b"\n", newline)
    assert b"\n" not in edited.replace(b"\r\n", b"") if newline == b"\r\n" else b"\n" not in edited
    loaded = load_set(tmp_path / "0-set.yaml")
    assert loaded.items[13].tags == ["edited"] and loaded.header is not None
    assert loaded.header.description == "Edited description"


def test_edits_of_a_file_with_mixed_line_breaks_keep_every_untouched_line(
    tmp_path: Path,
) -> None:
    lines = EXAMPLE_SET.read_bytes().split(b"\n")
    mixed = b"".join(line + (b"\r\n" if n % 3 == 0 else b"\n") for n, line in enumerate(lines[:-1]))
    path = tmp_path / "mixed.yaml"
    path.write_bytes(mixed)
    with edit_set(path) as editor:
        editor.update_item("q-014", {"tags": ["edited"]})
    old = mixed.decode().splitlines(keepends=True)
    new = path.read_bytes().decode().splitlines(keepends=True)
    changed = [line for line in difflib.ndiff(old, new) if line[:1] in "+-"]
    assert len(changed) == 2 and changed[0].startswith("-     tags: [")
    assert changed[1].rstrip("\r\n") == "+     tags: [edited]"


def test_edits_keep_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + EXAMPLE_SET.read_bytes())
    with edit_set(path) as editor:
        editor.update_item("q-014", {"tags": ["edited"]})
    plain = copy(EXAMPLE_SET, tmp_path)
    with edit_set(plain) as editor:
        editor.update_item("q-014", {"tags": ["edited"]})
    assert path.read_bytes() == b"\xef\xbb\xbf" + plain.read_bytes()


def test_line_separators_inside_values_are_not_line_breaks(tmp_path: Path) -> None:
    text = EXAMPLE_SET.read_text().replace(
        "# yaml-language-server", "# a comment with a\u2028separator and a form\x0cfeed\n#", 1
    )
    path = tmp_path / "separators.yaml"
    path.write_text(text, encoding="utf-8")
    plain = copy(EXAMPLE_SET, tmp_path)
    for target in (path, plain):
        with edit_set(target) as editor:
            editor.update_item("q-014", {"tags": ["edited"]})
    after = path.read_text(encoding="utf-8")
    assert after.split("\n", 1)[0] == text.split("\n", 1)[0]
    assert after.split("\n", 2)[2] == plain.read_text().split("\n", 1)[1]


def test_an_edit_writes_through_a_symlinked_set_file(tmp_path: Path) -> None:
    real = copy(EXAMPLE_SET, tmp_path)
    (tmp_path / "sets").mkdir()
    link = tmp_path / "sets" / "linked.yaml"
    link.symlink_to(real)
    with edit_set(link) as editor:
        editor.update_item("q-014", {"tags": ["edited"]})
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert load_set(real).items[13].tags == ["edited"]
    assert not list(tmp_path.glob(".*.tmp")) and not list((tmp_path / "sets").glob(".*.tmp"))


def test_an_edit_by_a_repeated_id_is_refused(tmp_path: Path) -> None:
    text = EXAMPLE_SET.read_text().replace("id: q-015", "id: q-014", 1)
    path = tmp_path / "repeated.yaml"
    path.write_text(text)
    with pytest.raises(EditRefused) as refused, edit_set(path) as editor:
        editor.update_item("q-014", {"tags": ["edited"]})
    message = str(refused.value)
    assert "the id 'q-014' is used by more than one item (line" in message
    assert message.endswith("The file is unchanged.")
    assert path.read_text() == text


def test_an_alias_to_another_items_anchor_is_an_error_and_refuses_its_edit(
    tmp_path: Path,
) -> None:
    text = (
        "evalset: 1\nname: aliases\ncategories: {a: b}\nitems:\n"
        "  - id: q-1\n    question: &q How long do I have?\n    category: a\n"
        "    answerable: false\n"
        "  - id: q-2\n    question: *q\n    category: a\n    answerable: false\n"
    )
    path = tmp_path / "aliases.yaml"
    path.write_text(text)
    findings = [str(f) for f in load_set(path).schema_findings]
    assert findings == [
        f"{path}:10:15: item q-2: error: uses the alias *q of an anchor in item 'q-1' (write "
        "the value out: items are edited, sealed and merged one at a time)"
    ]
    with pytest.raises(EditRefused) as refused, edit_set(path) as editor:
        editor.update_item("q-2", {"tags": ["edited"]})
    assert "item 'q-2' cannot be edited on its own (found undefined alias 'q')" in str(
        refused.value
    )
    with edit_set(path) as editor:  # the item that holds the anchor can still be edited
        editor.update_item("q-1", {"tags": ["edited"]})
    assert "&q How long do I have?" in path.read_text()
