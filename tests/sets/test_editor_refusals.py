"""What an edit transaction (`edit_set`, `SetEditor`) refuses, on real files in real git
repositories: each refusal is one sentence, and the file is left as it was."""

from __future__ import annotations

import threading
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from evalset.errors import EditRefused, SetFileError
from evalset.holdout.seal import seal_set
from evalset.sets.citations import Citation
from evalset.sets.editor import DELETE, edit_set
from evalset.sets.lock import set_lock
from evalset.sets.model import KeyPoint
from evalset.sets.setfile import load_set

NOT_TEXT = "question: error: expected text, got a number (5) (quote it if it is meant as text)"


def example_set(repo: Path) -> Path:
    return repo / "sets" / "acme-support.yaml"


def refused(path: Path, why: str) -> str:
    return (
        f"{path}: the edit was refused because the result would be invalid ({why}); the file "
        "is unchanged."
    )


@pytest.mark.parametrize("how", ["replace_item", "replace_at", "restore_at"])
def test_a_replaced_item_is_validated_as_an_updated_one(example: Path, how: str) -> None:
    path = example_set(example)
    before = path.read_bytes()
    with pytest.raises(EditRefused) as caught, edit_set(path) as editor:
        if how == "replace_item":
            editor.replace_item("q-001", {"id": "q-001", "question": 5, "status": "active"})
        elif how == "replace_at":
            editor.replace_at(0, {"id": "q-001", "question": 5, "status": "active"})
        else:
            editor.restore_at(0, "  - id: q-001\n    question: 5\n    status: active\n")
    assert str(caught.value) == refused(path, f"item q-001: {NOT_TEXT}")
    assert path.read_bytes() == before


def test_a_replaced_item_keeps_the_rules_of_an_item(example: Path) -> None:
    path = example_set(example)
    before = path.read_bytes()
    with pytest.raises(EditRefused) as caught, edit_set(path) as editor:
        entry = {"id": "q-001", "question": "Is it?", "category": "nonsense", "status": "draft"}
        editor.replace_item("q-001", entry)
    assert str(caught.value) == refused(
        path,
        "item q-001: category: error: category 'nonsense' is not declared in the "
        "set's categories (declare it under `categories:` in the header)",
    )
    assert path.read_bytes() == before


@pytest.fixture
def sealed(example: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch) -> Path:
    """The example set with its holdout sealed to ``key``, read without the key."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    path = example_set(example)
    seal_set(path, [key[1]])
    return path


@pytest.mark.parametrize("how", ["update_item", "replace_item", "replace_at", "restore_at"])
def test_a_sealed_item_is_not_replaced_without_the_key(sealed: Path, how: str) -> None:
    before = sealed.read_bytes()
    k = next(i for i, e in enumerate(load_set(sealed).raw_items) if e["id"] == "q-004")
    entry = {"id": "q-004", "question": "In clear?", "holdout": True, "status": "draft"}
    with pytest.raises(EditRefused) as caught, edit_set(sealed) as editor:
        if how == "update_item":
            editor.update_item("q-004", {"question": "In clear?"})
        elif how == "replace_item":
            editor.replace_item("q-004", entry)
        elif how == "replace_at":
            editor.replace_at(k, entry)
        else:
            editor.restore_at(k, "  - id: q-004\n    question: In clear?\n    holdout: true\n")
    assert str(caught.value) == (
        f"{sealed}: item 'q-004' is sealed; set EVALSET_AGE_IDENTITY to the age key file to "
        "change it (it is sealed again to the same recipients)."
    )
    assert sealed.read_bytes() == before


def test_with_the_key_a_replaced_holdout_item_is_sealed_again(
    sealed: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    question = "How long is the legal guarantee on a refurbished product?"
    entry = {"id": "q-004", "question": question, "holdout": True, "status": "draft"}
    moved = {"id": "q-009", "question": "Now tuning?", "holdout": False, "status": "draft",
             "holdout_moves": [{"to": "tuning", "date": "2026-12-01"}]}  # fmt: skip
    with edit_set(sealed) as editor:
        editor.replace_item("q-004", entry)
        editor.replace_item(moved["id"], moved)  # a holdout item moved to tuning
    text = sealed.read_text()
    assert question not in text and "Now tuning?" in text
    opened = load_set(sealed)
    k = opened.item_index[[i.id for i in opened.items].index("q-004")]
    assert opened.opened[k].sealed.recipients == [key[1]]
    assert opened.items[opened.item_index.index(k)].question == question
    monkeypatch.delenv("EVALSET_AGE_IDENTITY")
    assert "q-004" in [stub.id for stub in load_set(sealed).sealed]


def changed_on_disk(path: Path, what: str = "changed") -> str:
    return (
        f"{path}: the file {what} on disk during the edit (another program wrote it after the "
        "edit began), so the edit was refused rather than undo that change; nothing was "
        "written. Run the edit again on the file as it is now."
    )


def test_an_edit_does_not_undo_a_change_made_on_disk_meanwhile(example: Path) -> None:
    path = example_set(example)
    theirs = path.read_text().replace("damaged item?", "broken item?")
    with pytest.raises(EditRefused) as caught, edit_set(path) as editor:
        editor.update_item("q-014", {"tags": ["api-edit"]})
        path.write_text(theirs)  # an editor's save, a `git pull`, while the edit is open
    assert str(caught.value) == changed_on_disk(path)
    assert path.read_text() == theirs
    assert not list(example.rglob("*.tmp"))


def test_an_edit_does_not_bring_back_a_file_removed_meanwhile(example: Path) -> None:
    path = example_set(example)
    with pytest.raises(EditRefused) as caught, edit_set(path) as editor:
        editor.update_item("q-014", {"tags": ["api-edit"]})
        path.unlink()
    assert str(caught.value) == changed_on_disk(path)
    assert not path.exists()


def test_a_created_set_does_not_replace_one_created_meanwhile(tmp_path: Path) -> None:
    path = tmp_path / "new.yaml"
    header = "evalset: 1\nname: new\ncategories:\n  a: one\nitems: []\n"
    theirs = header.replace("one", "theirs")
    with pytest.raises(EditRefused) as caught, edit_set(path, create=header) as editor:
        editor.append_items([{"id": "a-1", "question": "Why?", "status": "draft"}])
        path.write_text(theirs)
    assert str(caught.value) == changed_on_disk(path, "was created")
    assert path.read_text() == theirs


def test_a_file_written_again_unchanged_meanwhile_is_edited(example: Path) -> None:
    path = example_set(example)
    with edit_set(path) as editor:
        editor.update_item("q-014", {"tags": ["api-edit"]})
        path.write_bytes(path.read_bytes())  # saved again as it was
    assert {item.id: item for item in load_set(path).items}["q-014"].tags == ["api-edit"]


def test_a_header_edit_that_breaks_items_it_did_not_touch_is_refused(example: Path) -> None:
    path = example_set(example)
    before = path.read_bytes()
    with pytest.raises(EditRefused) as caught, edit_set(path) as editor:
        editor.set_header("categories", {"direct-lookup": "a fact stated in one section"})
    assert str(caught.value) == refused(
        path,
        "item q-013: category: error: category 'paraphrased' is not declared "
        "in the set's categories (declare it under `categories:` in the header)",
    )
    assert path.read_bytes() == before
    with edit_set(path) as editor:  # a category no item uses may go
        categories = dict(load_set(path).raw["categories"])
        editor.set_header("categories", {**categories, "spare": "unused"})
    with edit_set(path) as editor:
        editor.set_header("categories", categories)
    assert path.read_bytes() == before


def test_a_set_is_not_renamed_away_from_its_file_in_a_sets_folder(
    example: Path, tmp_path: Path
) -> None:
    path = example_set(example)
    before = path.read_bytes()
    with pytest.raises(EditRefused) as caught, edit_set(path) as editor:
        editor.set_header("name", "other")
    assert str(caught.value) == refused(
        path,
        "name: error: the set is named 'other', but its file 'acme-support.yaml': "
        "commands find a set by its file, and pins and release tags by its name (rename the "
        "file to other.yaml, or set `name: acme-support`)",
    )
    assert path.read_bytes() == before
    loose = tmp_path / "loose.yaml"  # outside a workspace, no command finds it by its name
    loose.write_bytes(before)
    with edit_set(loose) as editor:
        editor.set_header("name", "other")
    assert load_set(loose).name == "other"


def test_a_set_is_not_created_from_an_invalid_header(example: Path) -> None:
    path = example / "sets" / "new.yaml"
    header = "evalset: 1\nname: new\nitems: []\n"
    with pytest.raises(EditRefused) as caught, edit_set(path, create=header) as editor:
        editor.append_items([{"id": "a-1", "question": "Why?", "status": "draft"}])
    missing = (
        "categories: error: required field is missing (add `categories: …`, the kinds of "
        "question this set must cover: name -> what it means)"
    )
    assert str(caught.value) == refused(path, missing)
    assert not path.exists()
    with edit_set(path, create="evalset: 1\nname: new\ncategories: {a: one}\nitems: []\n") as e:
        e.append_items([{"id": "a-1", "question": "Why?", "status": "draft"}])
    assert [item.id for item in load_set(path).items] == ["a-1"]


ARRIVING = {"id": "q-777", "question": "Is a new holdout question sealed?", "status": "draft"}


@pytest.mark.parametrize("unsealed", [False, True], ids=["sealed", "unsealed-for-an-edit"])
def test_a_holdout_item_written_into_a_sealed_holdout_is_sealed(
    sealed: Path,
    key: tuple[Path, str],
    monkeypatch: pytest.MonkeyPatch,
    unsealed: bool,
) -> None:
    """As `promote` and `import` seal the holdout items they add: in plain text, the next
    commit would write them into git history. Sealing takes the public key only."""
    from conftest import commit_all
    from evalset.holdout.seal import unseal_set

    commit_all(sealed.parents[1], "sealed")
    if unsealed:  # unsealed to edit: sealed to the keys it has at HEAD
        monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
        unseal_set(sealed)
        monkeypatch.delenv("EVALSET_AGE_IDENTITY")
    moved = {"holdout": True, "holdout_moves": [{"to": "holdout", "date": "2024-05-01"}]}
    with edit_set(sealed) as editor:
        editor.append_items([{**ARRIVING, "holdout": True}])
        editor.update_item("q-001", moved)
        tuning = {**ARRIVING, "id": "q-778", "question": "Is a tuning question kept?"}
        editor.append_items([{**tuning, "holdout": False}])
    text = sealed.read_text()
    assert ARRIVING["question"] not in text and tuning["question"] in text
    assert "How long do I have to return a damaged item?" not in text
    stubs = {stub.id: stub for stub in load_set(sealed).sealed}
    assert stubs["q-777"].sealed.recipients == stubs["q-001"].sealed.recipients == [key[1]]
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    opened = {item.id: item for item in load_set(sealed).items}
    assert opened["q-777"].question == ARRIVING["question"]
    assert opened["q-001"].holdout_moves[0].to == "holdout"
    unseal_set(sealed)  # gives back the text each was written with
    assert sealed.read_text().endswith(
        "\n  - id: q-777\n    question: Is a new holdout question sealed?\n    status: draft\n"
        "    holdout: true\n\n  - id: q-778\n    question: Is a tuning question kept?\n"
        "    status: draft\n    holdout: false\n"
    )


def test_a_holdout_item_is_written_in_plain_text_where_the_holdout_is_not_sealed(
    example: Path,
) -> None:
    path = example_set(example)
    with edit_set(path) as editor:
        editor.append_items([{**ARRIVING, "holdout": True}])
    assert ARRIVING["question"] in path.read_text()
    assert load_set(path).sealed == []


def test_a_second_edit_of_a_file_in_the_same_thread_is_refused_at_once(example: Path) -> None:
    path = example_set(example)
    link = example / "linked.yaml"
    link.symlink_to(path)
    start = time.monotonic()
    with edit_set(path) as outer:
        outer.update_item("q-001", {"tags": ["outer"]})
        for name in (path, link):
            with pytest.raises(SetFileError) as caught, edit_set(name):
                pass
            assert str(caught.value) == (
                f"{name}: is already being edited in this process (an edit_set or set_lock of "
                "it is still open here), and a second edit would wait for the first to end; "
                "make the changes in that one edit_set, or pass the lock held to "
                "edit_set(path, held=...)."
            )
    assert time.monotonic() - start < 30  # not the 60 s the lock would be waited for
    assert {item.id: item.tags for item in load_set(path).items}["q-001"] == ["outer"]
    with set_lock(path) as held:
        with pytest.raises(SetFileError, match="already being edited"), edit_set(path):
            pass
        with edit_set(path, held=held) as editor:
            editor.update_item("q-001", {"tags": ["held"]})
    with edit_set(path) as editor:  # free again
        editor.update_item("q-001", {"tags": ["after"]})


def test_a_second_edit_outside_a_workspace_is_refused_at_once_too(
    example: Path, tmp_path: Path
) -> None:
    """Outside a workspace the lock is taken on the file's folder; the same thread taking
    it again would wait for itself there as well."""
    outside = tmp_path / "loose"
    outside.mkdir()
    path = outside / "s.yaml"
    path.write_bytes(example_set(example).read_bytes())
    start = time.monotonic()
    with edit_set(path) as outer:
        outer.update_item("q-001", {"tags": ["outer"]})
        with pytest.raises(SetFileError, match="already being edited"), edit_set(path):
            pass
    assert time.monotonic() - start < 30
    assert {item.id: item.tags for item in load_set(path).items}["q-001"] == ["outer"]
    assert sorted(p.name for p in outside.iterdir()) == ["s.yaml"]


def test_another_thread_waits_for_the_lock_as_another_process_does(example: Path) -> None:
    path = example_set(example)
    errors: list[str] = []

    def edit() -> None:
        try:
            with edit_set(path, timeout=1):
                pass
        except SetFileError as exc:
            errors.append(str(exc))

    with edit_set(path):
        thread = threading.Thread(target=edit)
        thread.start()
        thread.join()
    assert errors == [
        f"{path}: another evalset command is editing it (lock held for 1 s); try again when "
        "it has finished."
    ]
    thread = threading.Thread(target=edit)
    thread.start()
    thread.join()
    assert len(errors) == 1  # the lock is free once the edit has ended


def test_outside_a_workspace_one_thread_edits_two_sets_of_one_folder_and_others_wait(
    example: Path, tmp_path: Path
) -> None:
    """Outside a workspace the lock is an flock on the folder. Before, it was recorded as
    held under the folder, so an edit of a second set of that folder inside the first (an
    item moved from one set to the other) was refused as "already being edited", and the
    outer edit lost; another thread must still wait, as another process does."""
    outside = tmp_path / "loose"
    outside.mkdir()
    a, b = outside / "a.yaml", outside / "b.yaml"
    a.write_bytes(example_set(example).read_bytes())
    b.write_bytes(example_set(example).read_bytes())
    errors: list[str] = []

    def edit(path: Path) -> None:
        try:
            with edit_set(path, timeout=1) as other:
                other.update_item("q-002", {"tags": ["other"]})
        except SetFileError as exc:
            errors.append(str(exc))

    with edit_set(a) as outer:
        outer.update_item("q-001", {"tags": ["outer"]})
        with edit_set(b) as inner:
            inner.update_item("q-001", {"tags": ["inner"]})
            with pytest.raises(SetFileError, match="already being edited"), edit_set(a):
                pass
        thread = threading.Thread(target=edit, args=(b,))
        thread.start()
        thread.join()
    assert errors == [
        f"{b}: another evalset command is editing it or a set beside it (lock held for 1 s); "
        "try again when it has finished."
    ]
    tags = {p.name: {i.id: i.tags for i in load_set(p).items} for p in (a, b)}
    assert (tags["a.yaml"]["q-001"], tags["b.yaml"]["q-001"]) == (["outer"], ["inner"])
    edit(b)  # the folder is free once the outer edit has ended
    assert len(errors) == 1
    assert sorted(p.name for p in outside.iterdir()) == ["a.yaml", "b.yaml"]


NOT_AN_ID = "an item's id is text, such as 'q-014', not"
NOT_A_MAPPING = (
    "update_item() takes the changes as a mapping of field names to new values, such as "
    "{'tags': ['returns']}, not a list"
)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda e: e.update_item("q-001", [("tags", ["x"])]), NOT_A_MAPPING),
        (
            lambda e: e.append_items({"id": "q-900", "question": "Why?", "status": "draft"}),
            "append_items() takes a list of items, not a dict: append_items([item]) appends one",
        ),
        (
            lambda e: e.append_items(["q-900"]),
            "append_items() takes items as mappings of field names to values or as Item "
            "objects, not a str",
        ),
        (
            lambda e: e.append_items(None),
            "append_items() takes a list of items, not a NoneType: append_items([item]) "
            "appends one",
        ),
        (
            lambda e: e.append_items(5),
            "append_items() takes a list of items, not an int: append_items([item]) appends one",
        ),
        *[
            (
                lambda e, given=given: e.replace_item("q-001", given),
                "replace_item() takes the new entry as a mapping of field names to values or "
                f"as an Item, not {kind}",
            )
            for given, kind in ((None, "a NoneType"), ("question: x", "a str"), (5, "an int"))
        ],
        # before: AttributeError: 'NoneType' object has no attribute 'casefold'
        (lambda e: e.update_item(None, {"tags": ["x"]}), f"{NOT_AN_ID} a NoneType"),
        (lambda e: e.edit_item(1, lambda item: None), f"{NOT_AN_ID} an int"),
        (lambda e: e.replace_item(["q-001"], {"id": "q-001"}), f"{NOT_AN_ID} a list"),
    ],
    ids=["update-with-pairs", "append-one-mapping", "append-text", "append-none", "append-int",
         "replace-none", "replace-text", "replace-int", "update-none-id", "edit-int-id",
         "replace-list-id"],
)  # fmt: skip
def test_arguments_of_the_wrong_kind_are_refused_with_a_sentence(
    example: Path, call: Any, message: str
) -> None:
    path = example_set(example)
    before = path.read_bytes()
    with pytest.raises(TypeError) as caught, edit_set(path) as editor:
        call(editor)
    assert str(caught.value) == message
    assert path.read_bytes() == before


def no_form(where: str, value: str, kind: str) -> str:
    return (
        f"{where}: {value} cannot be written in a set file (YAML has no form for {kind}); give "
        "it as text, a number, true or false, a date, or a list or mapping of these. The file "
        "is unchanged."
    )


@pytest.mark.parametrize(
    ("call", "where", "value", "kind"),
    [
        (lambda e: e.update_item("q-001", {"question": Path("x")}),
         "item 'q-001': question", "PosixPath('x')", "a PosixPath"),
        (lambda e: e.update_item("q-001", {"key_points": [{"text": "T", "sources": [Decimal(1)]}]}),
         "item 'q-001': key_points[0].sources[0]", "Decimal('1')", "a Decimal"),
        (lambda e: e.append_items([{"id": "q-900", "question": Path("x"), "status": "draft"}]),
         "new item 'q-900': question", "PosixPath('x')", "a PosixPath"),
        (lambda e: e.set_header("categories", {"a": Path("x")}),
         "categories.a", "PosixPath('x')", "a PosixPath"),
        (lambda e: e.replace_item("q-001", {"id": "q-001", "question": Path("x")}),
         "item 'q-001': question", "PosixPath('x')", "a PosixPath"),
    ],
    ids=["update", "update-deep", "append", "header", "replace"],
)  # fmt: skip
def test_a_value_yaml_cannot_hold_is_refused_naming_its_field(
    example: Path, call: Any, where: str, value: str, kind: str
) -> None:
    path = example_set(example)
    before = path.read_bytes()
    with pytest.raises(EditRefused) as caught, edit_set(path) as editor:
        call(editor)
    assert str(caught.value) == no_form(f"{path}: {where}", value, kind)
    assert path.read_bytes() == before


HUGE = 10**5000
"""A whole number past the 4,300 digits Python reads and prints: written, it could not be
read back (before, every edit function raised a bare ValueError naming nothing)."""
NO_NUMBER = (
    "a whole number of more than 4,300 digits cannot be written (it would not be read back); "
    "give it as text. The file is unchanged."
)
SURROGATE = (
    "the value to write holds U+DCFF, a lone surrogate (the byte \\xff), which is not text a "
    "set file can hold; write it as UTF-8. The file is unchanged."
)
NEW = {"id": "q-900", "question": "Why?", "status": "draft"}


# Values the YAML library writes but a set file cannot hold, through every function that
# takes values: before, bytes and sets were refused as the file's own tags ("remove the
# tag"), and a lone surrogate as "is a quote left unclosed?" at a line the user never wrote.
@pytest.mark.parametrize(
    ("call", "where", "why"),
    [
        (lambda e: e.update_item("q-001", {"answer": HUGE}), "item 'q-001': answer", NO_NUMBER),
        (lambda e: e.append_items([{**NEW, "tags": [HUGE]}]), "new item 'q-900': tags[0]",
         NO_NUMBER),
        (lambda e: e.append_items([{**NEW, "id": HUGE}]),
         "new item a number of more than 4,300 digits: id", NO_NUMBER),
        (lambda e: e.set_header("version", HUGE), "version", NO_NUMBER),
        (lambda e: e.replace_item("q-001", {**NEW, "id": "q-001", "answer": HUGE}),
         "item 'q-001': answer", NO_NUMBER),
        (lambda e: e.update_item("q-001", {"answer": "30 days \udcff"}), "item 'q-001': answer",
         SURROGATE),
        (lambda e: e.append_items([{**NEW, "question": "Why \udcff?"}]),
         "new item 'q-900': question", SURROGATE),
        (lambda e: e.set_header("description", "\udcff"), "description", SURROGATE),
        (lambda e: e.update_item("q-001", {"answer": b"30 days"}), "item 'q-001': answer",
         "b'30 days' cannot be written in a set file (a set file holds no bytes); give it as "
         "text, a number, true or false, a date, or a list or mapping of these. The file is "
         "unchanged."),
        (lambda e: e.update_item("q-001", {"tags": {"a"}}), "item 'q-001': tags",
         "{'a'} cannot be written in a set file (a set file holds no set); give it as text, a "
         "number, true or false, a date, or a list or mapping of these. The file is "
         "unchanged."),
        # keys that are no text are checked as values too (and then refused by the schema)
        (lambda e: e.update_item("q-001", {"origin": {HUGE: 1}}), "item 'q-001': origin",
         NO_NUMBER),
        (lambda e: e.update_item("q-001", {"origin": {"redactions": {(HUGE,): 1}}}),
         "item 'q-001': origin.redactions[0]", NO_NUMBER),
        (lambda e: e.update_item("q-001", {"origin": {("\udcff",): 1}}),
         "item 'q-001': origin[0]", SURROGATE),
        (lambda e: e.update_item("q-001", {"origin": {b"EMAIL": 1}}), "item 'q-001': origin",
         "b'EMAIL' cannot be written in a set file (a set file holds no bytes); give it as "
         "text, a number, true or false, a date, or a list or mapping of these. The file is "
         "unchanged."),
    ],
    ids=["update-huge", "append-huge", "append-huge-id", "header-huge", "replace-huge",
         "update-surrogate", "append-surrogate", "header-surrogate", "bytes", "set",
         "key-huge", "tuple-key-huge", "tuple-key-surrogate", "key-bytes"],
)  # fmt: skip
def test_a_value_a_set_file_cannot_hold_is_refused_naming_its_field(
    example: Path, call: Any, where: str, why: str
) -> None:
    path = example_set(example)
    before = path.read_bytes()
    with pytest.raises(EditRefused) as caught, edit_set(path) as editor:
        call(editor)
    assert str(caught.value) == f"{path}: {where}: {why}"
    assert path.read_bytes() == before


def test_a_number_of_4300_digits_is_written_and_a_key_that_is_no_text_refused(
    example: Path,
) -> None:
    """Before, 4,216 to 4,300 digits were refused as "more than 4,300 digits": such a number
    is written and read back, and the schema says what is wrong with it (an answer is
    text)."""
    path = example_set(example)
    before = path.read_bytes()
    longest = int("7" * 4300)  # as many digits as Python reads back
    with pytest.raises(EditRefused) as caught, edit_set(path) as editor:
        editor.update_item("q-001", {"answer": longest})
    assert "item q-001: answer: error: expected text, got a number (7777" in str(caught.value)
    assert path.read_bytes() == before
    with pytest.raises(EditRefused) as caught, edit_set(path) as editor:
        editor.update_item("q-001", {"origin": {(1, 2): "x"}})  # before: a bare TypeError
    assert "item q-001: origin.(1, 2): error: keys should be strings, got tuple" in str(
        caught.value
    )
    assert path.read_bytes() == before


def test_models_inside_mappings_are_written_as_their_data(example: Path) -> None:
    """Before, a KeyPoint inside a mapping given to append_items or replace_item was refused
    as an object the YAML library cannot represent, though one given at the top was written."""
    path = example_set(example)
    point = KeyPoint(text="Ten euros", sources=[Citation.parse("policies/returns.md")])
    entry = {"question": "What does it cost?", "category": "direct-lookup",
             "expected_sources": ["policies/returns.md"], "key_points": [point],
             "status": "draft", "holdout": False}  # fmt: skip
    with edit_set(path) as editor:
        editor.append_items([{"id": "q-900", **entry}])
        editor.replace_item("q-041", {"id": "q-041", **entry})
    items = {item.id: item for item in load_set(path).items}
    assert items["q-900"].key_points == items["q-041"].key_points == [point]


def test_a_value_yaml_cannot_hold_written_by_an_item_edit_is_refused(example: Path) -> None:
    path = example_set(example)
    before = path.read_bytes()
    with pytest.raises(EditRefused) as caught, edit_set(path) as editor:
        editor.edit_item("q-001", lambda item: item.update(answer=Path("y")))
    assert str(caught.value) == (
        f"{path}: the edit was refused because it writes a value a set file cannot hold "
        "(cannot represent an object: PosixPath('y')); give text, numbers, true or false, "
        "dates, lists and mappings. The file is unchanged."
    )
    assert path.read_bytes() == before


def test_values_yaml_can_hold_are_written(example: Path) -> None:
    path = example_set(example)
    with edit_set(path) as editor:
        editor.update_item("q-001", {"tags": ("a", "b"), "answer": "30 days"})
        editor.update_item("q-002", {"tags": DELETE})
    items = {item.id: item for item in load_set(path).items}
    assert items["q-001"].tags == ["a", "b"] and items["q-002"].tags == []


# An edit that moves an item between tuning and holdout without recording the move was
# written, and `validate` then called the set invalid; q-004 is held out at HEAD, q-001 is
# tuning.
MOVES = {
    "to tuning": ("q-004", {"holdout": False}, "move from holdout to tuning since HEAD",
                  "`evalset split acme-support --move q-004 --to tuning --force` moves an "
                  "item and records the move"),
    "to holdout": ("q-001", {"holdout": True}, "move from tuning to holdout since HEAD",
                   "`evalset split acme-support --move q-001 --to holdout --force` moves an "
                   "item and records the move"),
    "unassigned": ("q-004", {"holdout": DELETE}, "lose the holdout assignment it had at HEAD "
                   "(holdout: true)", "keep `holdout: true`"),
}  # fmt: skip


@pytest.mark.parametrize("how", ["update_item", "replace_item", "edit_item"])
@pytest.mark.parametrize("move", list(MOVES))
def test_a_move_between_splits_without_its_record_is_refused(
    example: Path, move: str, how: str
) -> None:
    path = example_set(example)
    before = path.read_bytes()
    ident, changes, what, fix = MOVES[move]
    with pytest.raises(EditRefused) as caught, edit_set(path) as editor:
        if how == "update_item":
            editor.update_item(ident, changes)
        elif how == "replace_item":
            (item,) = [i for i in load_set(path).items if i.id == ident]
            entry = item.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
            entry.update(changes)
            editor.replace_item(ident, {k: v for k, v in entry.items() if v is not DELETE})
        else:

            def edit(item: Any) -> None:
                if changes["holdout"] is DELETE:
                    del item["holdout"]
                else:
                    item["holdout"] = changes["holdout"]

            editor.edit_item(ident, edit)
    assert str(caught.value) == (
        f"{path}: the edit was refused because item {ident!r} would {what} without a recorded "
        f"move; {fix}. The file is unchanged."
    )
    assert path.read_bytes() == before


def test_a_move_with_its_record_and_a_flag_put_back_are_written(example: Path) -> None:
    path = example_set(example)
    # q-004's flag (the first held out) flipped by hand, which an edit of another item
    # leaves to `validate`
    path.write_text(path.read_text().replace("holdout: true", "holdout: false", 1))
    assert holdout_flags(path)["q-004"] is False
    with edit_set(path) as editor:
        editor.update_item(
            "q-001",
            {"holdout": True, "holdout_moves": [{"to": "holdout", "date": "2026-12-01"}]},
        )
    assert holdout_flags(path)["q-001"] is True
    with edit_set(path) as editor:  # put back: no move at all since HEAD
        editor.update_item("q-004", {"holdout": True})
    assert holdout_flags(path)["q-004"] is True


def holdout_flags(path: Path) -> dict[str, bool | None]:
    return {i.id: i.holdout for i in load_set(path).items}


CATEGORIES = {
    "direct-lookup": "a fact stated in one section",
    "paraphrased": "asked in other words than the documents use",
    "multi-hop": "needs two or more sections",
    "out-of-scope": "the corpus cannot answer; the system must decline",
    "injection": "tries to override instructions (direct or via a planted document)",
}


def test_a_sealed_item_s_category_is_checked_without_the_key(sealed: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A sealed item shows its category. Before, without the key, a header edit could drop
    a category only sealed items use (validate with the key then failed), and validate did
    not check a sealed item's category at all."""
    text = sealed.read_text()
    at = text.index("  - id: q-004")
    stub = text[at:].replace("category: direct-lookup", "category: rare", 1)
    sealed.write_text(
        text[:at].replace("categories:\n", "categories:\n  rare: asked once a year\n", 1) + stub
    )
    before = sealed.read_bytes()
    with pytest.raises(EditRefused) as caught, edit_set(sealed) as editor:
        editor.set_header("categories", CATEGORIES)
    assert "item q-004: category: error: category 'rare' is not declared" in str(caught.value)
    assert sealed.read_bytes() == before
    sealed.write_text(sealed.read_text().replace("  rare: asked once a year\n", ""))
    found = cli(sealed.parent.parent, "validate", "acme-support")
    assert found.code == 1
    assert "item q-004: category: error: category 'rare' is not declared" in found.out


# A holdout question leaking into tuning (a near duplicate on the other side of the split)
# was written by an edit, and `validate` then called the set invalid. q-001 is tuning
# ("How long do I have to return a damaged item?"), q-004 holdout.
LEAKS = {
    "a tuning question reworded": lambda e: e.update_item(
        "q-001", {"question": "How long is the legal guarantee on products, please?"}
    ),
    "a holdout question reworded": lambda e: e.update_item(
        "q-004", {"question": "How long do I have to return a damaged item, please?"}
    ),
    "a new holdout item": lambda e: e.append_items(
        [
            {
                "id": "q-900",
                "question": "How long do I have to return a damaged item now?",
                "holdout": True,
                "status": "draft",
            }
        ]
    ),
    "a move with its record": lambda e: (
        # both tuning, near duplicates (a warning); then one moved into the holdout
        e.update_item(
            "q-002", {"question": "How long do I have to return a damaged item, please?"}
        ),
        e.update_item(
            "q-001", {"holdout": True, "holdout_moves": [{"to": "holdout", "date": "2026-12-01"}]}
        ),
    ),
}


@pytest.mark.parametrize("edit", LEAKS)
def test_an_edit_that_leaks_a_holdout_question_is_refused(example: Path, edit: str) -> None:
    path = example_set(example)
    before = path.read_bytes()
    with pytest.raises(EditRefused) as caught, edit_set(path) as editor:
        LEAKS[edit](editor)
    assert "would be near duplicates while one of them is holdout and the other tuning: the " in (
        str(caught.value)
    )
    assert str(caught.value).endswith(
        "the holdout question would leak; reword one of them, or put both on the same side. "
        "The file is unchanged."
    )
    assert path.read_bytes() == before


def test_a_leak_the_file_had_does_not_block_other_edits(example: Path) -> None:
    path = example_set(example)
    text = path.read_text()
    leaked = "How long is the legal guarantee on products, please?"
    path.write_text(text.replace("How long do I have to return a damaged item?", leaked, 1))
    with edit_set(path) as editor:
        editor.update_item("q-001", {"tags": ["kept"]})
        editor.update_item("q-002", {"question": "Can I cancel an order after paying for it?"})
    assert {i.id: i.tags for i in load_set(path).items}["q-001"] == ["kept"]


# An item the schema refused was left out of the checks between items, so an edit that made
# it valid was not checked against them: a leak, or a move without its record, that had been
# hidden was written, and `validate` then called the set invalid.
HIDDEN = {
    "a leak": (
        "How long do I have to return a damaged item?",
        "How long is the legal guarantee on products, please?",
        "would be near duplicates while one of them is holdout and the other tuning",
    ),
    "a move without its record": (
        "    holdout: false\n    verified: 301688de6b37\n    tags: [returns]\n",
        "    holdout: true\n    verified: 301688de6b37\n    tags: [returns]\n",
        "item 'q-001' would move from tuning to holdout since HEAD without a recorded move",
    ),
}


@pytest.mark.parametrize("hidden", HIDDEN)
def test_an_edit_that_makes_an_item_valid_is_checked_between_items(
    example: Path, hidden: str
) -> None:
    old, new, said = HIDDEN[hidden]
    path = example_set(example)
    text = path.read_text()
    # q-001 made invalid (an empty tag), and then given what validate cannot see in it
    text = text.replace("    tags: [returns]\n", '    tags: [returns, ""]\n', 1)
    old = old.replace("tags: [returns]", 'tags: [returns, ""]')
    new = new.replace("tags: [returns]", 'tags: [returns, ""]')
    assert text.count(old) >= 1
    path.write_text(text.replace(old, new, 1))
    before = path.read_bytes()
    with pytest.raises(EditRefused) as caught, edit_set(path) as editor:
        editor.update_item("q-001", {"tags": ["returns"]})
    assert said in str(caught.value)
    assert path.read_bytes() == before


def test_an_edit_leaves_alone_a_leak_validate_does_not_look_for(tmp_path: Path) -> None:
    """More questions alike than validate compares one by one are said to be so (a
    warning), and the leaks among them not looked for: an edit refuses none of them either."""
    from evalset.sets.neardup import MAX_BUCKET
    from evalset.sets.validate import validate

    items = "".join(
        f"  - id: q-{i:04d}\n    question: how much does widget w{i:04d} cost to ship abroad\n"
        "    category: c\n    answerable: false\n    holdout: false\n"
        for i in range(MAX_BUCKET + 1)
    )
    path = tmp_path / "s.yaml"
    path.write_text(f"evalset: 1\nname: s\ncategories:\n  c: x\nitems:\n{items}")
    question = "how much does widget zzz cost to ship abroad"
    with edit_set(path) as editor:
        editor.append_items(
            [
                {
                    "id": "q-new",
                    "question": question,
                    "category": "c",
                    "answerable": False,
                    "holdout": True,
                }
            ]
        )
    findings = validate([path]).findings
    assert not [f for f in findings if f.severity == "error"]
    assert any("too many to compare one by one" in f.message for f in findings)
