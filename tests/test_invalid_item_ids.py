"""A command given the id of an item the schema refuses says the item is not valid, with
its first problem, where it is and the fix: not that the file has no such item, which sends
the user looking for a typo. Exit 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import ONE_ITEM_HEADER, commit_all
from evalset.errors import EditRefused
from evalset.holdout.split import move
from evalset.sets.editor import edit_set

ITEMS = """\
  - id: q-1
    question: How long is the return window?
    category: direct-lookup
    expected_sources: [d.md]
    key_points:
      - text: 30 days
        sources: [d.md]
  - id: q-2
    question: Who pays for the return shipping?
    category: direct-lookup
    expected_sources: [d.md]
    key_points:
      - text: the customer
        sources: [d.md]
"""
"""Two items of a set `s`: q-1 on lines 6 to 12, q-2 on lines 13 to 19."""

# kind: (the text of q-2 it replaces, with what, the id to name it by, where `evalset
# validate` places its first problem, and that problem as it words it)
KINDS = {
    "wrong type": (
        "  - id: q-2\n    question: Who pays for the return shipping?\n    category: direct-lookup",
        "  - id: q-2\n    question: Who pays for the return shipping?\n    category: 3",
        "q-2",
        "15:5",
        "category: expected text, got a number (3) (quote it if it is meant as text)",
    ),
    "unknown key": (
        "    expected_sources: [d.md]\n    key_points:\n      - text: the customer",
        "    expected_source: [d.md]\n    key_points:\n      - text: the customer",
        "q-2",
        "16:5",
        "expected_source: unknown field 'expected_source' (did you mean 'expected_sources'?)",
    ),
    "bad citation": (
        "    expected_sources: [d.md]\n    key_points:\n      - text: the customer",
        '    expected_sources: ["d.md#"]\n    key_points:\n      - text: the customer',
        "q-2",
        "16:24",
        "expected_sources[0]: citation 'd.md#' ends with '#': name a section or drop the '#'",
    ),
    "id not text": (
        "  - id: q-2\n",
        "  - id: 12\n",
        "12",
        "13:5",
        "id: expected text, got a number (12) (quote it if it is meant as text)",
    ),
}

# command: (its arguments, with ID for the item's id, and how its refusal ends)
COMMANDS = {
    "split --move": (
        ("split", "s", "--move", "ID", "--to", "holdout"),
        "then move it again. Nothing was moved.",
    ),
    "verify": (("verify", "s", "ID"), "then verify again. Nothing was verified."),
    "agreement": (
        ("agreement", "labels.csv", "--judge", "exact", "--set", "s"),
        "then run agreement again (labels.csv:2 labels it).",
    ),
}


def invalid_set(root: Path, kind: str) -> tuple[Path, str]:
    """sets/s.yaml with q-2 made invalid in the way of ``kind``, committed; and q-2's id."""
    old, new, ident, _, _ = KINDS[kind]
    assert ITEMS.count(old) == 1
    path = root / "sets" / "s.yaml"
    path.write_text(ONE_ITEM_HEADER + ITEMS.replace(old, new), encoding="utf-8")
    (root / "labels.csv").write_text(f"id,answer,claim,label\n{ident},who pays,who pays,yes\n")
    commit_all(root, f"a set with an item of {kind}")
    return path, ident


def not_valid(kind: str, then: str, file: str = "sets/s.yaml") -> str:
    """The sentence refusing q-2 made invalid in the way of ``kind``."""
    _, _, ident, where, problem = KINDS[kind]
    return (
        f"{file}:{where}: item {ident!r} is not valid: {problem}; fix it (`evalset validate "
        f"s` lists the problems), {then}"
    )


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_command_given_an_invalid_items_id_says_it_is_not_valid(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli, command: str, kind: str
) -> None:
    """Before, `split --move` and `agreement` said the file has no such item (or the labels
    that it is not in the set), and `verify` gave the finding without saying what it means."""
    path, ident = invalid_set(one_doc_repo, kind)
    before = path.read_bytes()
    args, then = COMMANDS[command]
    result = cli(one_doc_repo, *(ident if a == "ID" else a for a in args))
    assert (result.code, result.err) == (2, f"evalset: {not_valid(kind, then)}\n")
    assert path.read_bytes() == before


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("dry_run", [False, True], ids=["import", "import --dry-run"])
def test_an_imported_row_of_an_invalid_items_id_is_a_conflict_that_says_why(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli, kind: str, dry_run: bool
) -> None:
    """Before, the whole import was refused: "the edit was refused because it would
    duplicate an item id", naming neither the id nor the item. The row is a conflict, as a
    row whose id a valid item has with other content is; the other rows are added."""
    path, ident = invalid_set(one_doc_repo, kind)
    before = path.read_bytes()
    rows = one_doc_repo / "rows.jsonl"
    row = {"question": "Is shipping free on returns of gifts?", "category": "direct-lookup"}
    rows.write_text(
        json.dumps({"id": ident, **row}) + "\n" + json.dumps({"id": "q-3", **row}) + "\n"
    )
    result = cli(one_doc_repo, "import", "rows.jsonl", "--set", "s", "--format", "jsonl",
                 *(["--dry-run"] if dry_run else []))  # fmt: skip
    assert result.code == 1, result.err
    conflict = f"  conflict {ident}: line 1: {not_valid(kind, 'then import again')}\n"
    assert conflict in result.out
    if dry_run:
        assert path.read_bytes() == before
    else:
        text = path.read_text()
        assert text.startswith(before.decode()) and "  - id: q-3\n" in text
        assert text.count(f"id: {ident}\n") == 1


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("dry_run", [False, True], ids=["promote", "promote --dry-run"])
def test_a_promoted_record_of_an_invalid_items_id_is_refused_saying_why(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli, kind: str, dry_run: bool
) -> None:
    """Before, promote said "the edit was refused because it would duplicate an item id"
    (and its dry run that it would add the draft): whether the record is the item the
    schema refuses cannot be told until it is fixed."""
    path, ident = invalid_set(one_doc_repo, kind)
    before = path.read_bytes()
    record = {"question": "Is shipping free on returns of gifts?", "trace": ident}
    (one_doc_repo / "failures.jsonl").write_text(json.dumps(record) + "\n")
    result = cli(one_doc_repo, "promote", "failures.jsonl", "--set", "s", "--id-from", "trace",
                 *(["--dry-run"] if dry_run else []))  # fmt: skip
    then = (
        f"then promote again (the record of failures.jsonl:1 would be item {ident!r}; nothing "
        "was promoted)."
    )
    assert (result.code, result.err) == (2, f"evalset: {not_valid(kind, then)}\n")
    assert path.read_bytes() == before


# command: (its arguments, with ID for the id typed, and its refusal with HINT for the hint)
TYPO_COMMANDS = {
    "verify": (
        ("verify", "s", "ID"),
        "evalset: sets/s.yaml: has no item 'q-22'HINT; check the id. Nothing was verified.",
    ),
    "split --move": (
        ("split", "s", "--move", "ID", "--to", "holdout"),
        "evalset: sets/s.yaml: has no item 'q-22'HINT; check the id.",
    ),
    "retire": (
        ("retire", "s", "ID", "--reason", "gone"),
        "evalset: sets/s.yaml: has no item 'q-22'HINT; nothing was retired.",
    ),
    "agreement": (
        ("agreement", "typo.csv", "--judge", "exact", "--set", "s"),
        "evalset: typo.csv:2: item 'q-22' is not in set s (HINT); label only the set's items.",
    ),
}


@pytest.mark.parametrize("command", list(TYPO_COMMANDS))
def test_a_typo_of_an_invalid_items_id_is_pointed_at_it(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli, command: str
) -> None:
    """ "Did you mean" looks at every id the file holds: before, `verify` and `agreement`
    suggested valid items alone, and `split --move` and the editor suggested nothing. The
    id suggested is then said to be not valid, with the fix."""
    path, _ = invalid_set(one_doc_repo, "wrong type")
    (one_doc_repo / "typo.csv").write_text("id,answer,claim,label\nq-22,who pays,who pays,yes\n")
    before = path.read_bytes()
    args, refusal = TYPO_COMMANDS[command]
    result = cli(one_doc_repo, *("q-22" if a == "ID" else a for a in args))
    hint = "did you mean 'q-2'?"
    expected = refusal.replace("(HINT)", f"({hint})").replace("HINT", f" ({hint})")
    assert (result.code, result.err) == (2, expected + "\n")
    assert path.read_bytes() == before
    with pytest.raises(EditRefused) as refused, edit_set(path) as editor:
        editor.update_item("q-22", {"category": "direct-lookup"})
    assert str(refused.value) == f"{path}: has no item 'q-22' ({hint}); check the id."


def test_the_sentence_is_the_same_through_the_library(one_doc_repo: Path) -> None:
    path, ident = invalid_set(one_doc_repo, "wrong type")
    before = path.read_bytes()
    with pytest.raises(EditRefused) as refused:
        move(path, ident, "holdout", force=False)
    then = "then move it again. Nothing was moved."
    assert str(refused.value) == not_valid("wrong type", then, str(path))
    assert path.read_bytes() == before


def test_an_id_not_written_as_text_is_named_by_retire_and_the_editor(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli
) -> None:
    """`id: 12` is the id 12 to whoever types it; before, retire and every edit by id said
    the file has no item '12'."""
    path, ident = invalid_set(one_doc_repo, "id not text")
    before = path.read_bytes()
    result = cli(one_doc_repo, "retire", "s", ident, "--reason", "gone")
    then = "then retire it again; nothing was retired."
    assert (result.code, result.err) == (2, f"evalset: {not_valid('id not text', then)}\n")
    with pytest.raises(EditRefused) as refused, edit_set(path) as editor:
        editor.update_item(ident, {"category": "direct-lookup"})
    then = "then run the command again. The file is unchanged."
    assert str(refused.value) == not_valid("id not text", then, str(path))
    assert path.read_bytes() == before


def test_an_id_two_invalid_items_share_names_the_first(one_doc_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Both are invalid (an unknown key, a number for a category): the first is named; once
    both are fixed, the edit is refused for the id used twice, as it is today."""
    path, _ = invalid_set(one_doc_repo, "wrong type")
    path.write_text(path.read_text().replace("  - id: q-1\n", "  - id: q-2\n    colour: red\n"))
    commit_all(one_doc_repo, "two invalid items of one id")
    before = path.read_bytes()
    result = cli(one_doc_repo, "split", "s", "--move", "q-2", "--to", "holdout")
    assert result.code == 2
    assert result.err.startswith("evalset: sets/s.yaml:7:5: item 'q-2' is not valid: colour: ")
    assert path.read_bytes() == before
    path.write_text(
        before.decode().replace("    colour: red\n", "").replace(": 3\n", ": direct-lookup\n")
    )
    fixed = path.read_bytes()
    result = cli(one_doc_repo, "split", "s", "--move", "q-2", "--to", "holdout")
    assert result.code == 2
    assert "the id 'q-2' is used by more than one item (line 6 and line 13)" in result.err
    assert path.read_bytes() == fixed


def test_an_item_whose_id_is_valid_but_the_set_not_named_is_still_found(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli
) -> None:
    """`evalset verify q-2` (the set left out) points at the set that has q-2, even while q-2
    is invalid; before, an invalid item was not found there either."""
    invalid_set(one_doc_repo, "unknown key")
    result = cli(one_doc_repo, "verify", "q-2")
    assert result.code == 2
    assert "'q-2' is an item of s: name the set first, as in `evalset verify s q-2`." in (
        result.err
    )


SEALED = """\
  - id: q-1
    question: How long is the return window?
    category: direct-lookup
    expected_sources: [d.md]
    key_points:
      - text: 30 days
        sources: [d.md]
    holdout: true
  - id: q-2
    question: Who pays for the return shipping?
    category: direct-lookup
    expected_sources: [d.md]
    key_points:
      - text: the customer
        sources: [d.md]
    holdout: true
"""


@pytest.mark.parametrize("with_key", [False, True], ids=["without the key", "with the key"])
def test_a_sealed_item_the_schema_refuses_is_not_valid_to_every_command(  # type: ignore[no-untyped-def]
    one_doc_repo: Path,
    cli,
    key: tuple[Path, str],
    monkeypatch: pytest.MonkeyPatch,
    with_key: bool,
) -> None:
    """A sealed entry that fails the schema is neither opened by the key nor kept sealed:
    before, `retire` wrote `status: retired` on it, with or without the key (a valid sealed
    item needs the key, and is sealed again), and `split --move` said there was no such item."""
    path = one_doc_repo / "sets" / "s.yaml"
    path.write_text(ONE_ITEM_HEADER + SEALED, encoding="utf-8")
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    assert cli(one_doc_repo, "seal", "s", "--recipient", key[1]).code == 0
    text = path.read_text()
    at = text.index("  - id: q-2\n    category: direct-lookup\n")
    text = text[:at] + text[at:].replace("category: direct-lookup", "category: 3", 1)
    path.write_text(text)
    commit_all(one_doc_repo, "a sealed item with a number for a category")
    line = text[:at].count("\n") + 2
    if with_key:
        monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    before = path.read_bytes()
    problem = (
        f"evalset: sets/s.yaml:{line}:5: item 'q-2' is not valid: category: expected text, "
        "got a number (3) (quote it if it is meant as text); fix it (`evalset validate s` "
        "lists the problems), "
    )
    for args, then in [
        (("split", "s", "--move", "q-2", "--to", "tuning", "--force"),
         "then move it again. Nothing was moved."),
        (("verify", "s", "q-2"), "then verify again. Nothing was verified."),
        (("retire", "s", "q-2", "--reason", "gone"),
         "then run the command again. The file is unchanged."),
    ]:  # fmt: skip
        result = cli(one_doc_repo, *args)
        assert (result.code, result.err) == (2, problem + then + "\n"), args
        assert path.read_bytes() == before
