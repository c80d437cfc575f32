"""The set-file merge driver, through real `git merge` runs and on its own."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import GIT_ENV, SET_HEADER, commit_all, git, set_item
from evalset.sets.setfile import load_set
from evalset.sets.validate import validate
from evalset.versions.merge import merge_sets

SET = "sets/docs.yaml"


def merge(repo: Path, branch: str) -> subprocess.CompletedProcess[str]:
    # git runs the driver as `evalset merge-driver …`, found on PATH as any tool is.
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    env = {**os.environ, **GIT_ENV, "PATH": path}
    return subprocess.run(
        ["git", "merge", "--no-edit", branch], cwd=repo, env=env, capture_output=True, text=True
    )


@pytest.fixture
def branched(corpus_repo: Path, cli) -> Path:  # type: ignore[no-untyped-def]
    """A workspace with the merge driver registered, a three-item set on `main`, and a
    branch `other` started from it."""
    result = cli(corpus_repo, "init", "--git-hooks")
    assert result.code == 0, result.err
    assert "set     git config merge.evalset.driver" in result.out
    items = "".join(set_item(f"q-{n}", "policy.md") for n in (1, 2, 3))
    (corpus_repo / SET).write_text("# the support set\n" + SET_HEADER + items)
    commit_all(corpus_repo, "base")
    git(corpus_repo, "branch", "other")
    return corpus_repo


def edit(repo: Path, old: str, new: str) -> None:
    path = repo / SET
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def append(repo: Path, item: str) -> None:
    path = repo / SET
    path.write_text(path.read_text() + item)


def test_init_registers_the_driver(branched: Path) -> None:
    attributes = (branched / ".gitattributes").read_text()
    assert "sets/*.yaml merge=evalset" in attributes
    driver = git(branched, "config", "merge.evalset.driver")
    assert driver.strip().endswith("; evalset merge-driver %O %A %B %P")
    assert sys.executable not in driver  # a moved or rebuilt environment does not break it


def test_different_items_merge_without_conflict(branched: Path) -> None:
    git(branched, "checkout", "-q", "other")
    append(branched, set_item("q-theirs", "policy.md"))
    edit(branched, "Question q-1 about the policy?", "Question q-1, as they put it?")
    commit_all(branched, "theirs: a new item, q-1 reworded")
    git(branched, "checkout", "-q", "main")
    append(branched, set_item("q-ours", "policy.md"))
    edit(branched, "The fact q-2 asks about", "The fact q-2 asks about, edited here")
    commit_all(branched, "ours: a new item, q-2's key point edited")

    done = merge(branched, "other")
    assert done.returncode == 0, done.stdout + done.stderr
    text = (branched / SET).read_text()
    assert text.startswith("# the support set\n")
    assert "Question q-1, as they put it?" in text
    assert "The fact q-2 asks about, edited here" in text
    ids = [item.id for item in load_set(branched / SET).items]
    assert ids == ["q-1", "q-2", "q-3", "q-ours", "q-theirs"]
    assert text.count("# cited here too") == 5  # every comment survives
    assert validate([branched / SET]).ok()


def test_the_same_field_changed_on_both_sides_is_a_conflict(branched: Path) -> None:
    git(branched, "checkout", "-q", "other")
    edit(branched, "Question q-3 about the policy?", "Question q-3, their wording?")
    commit_all(branched, "theirs")
    git(branched, "checkout", "-q", "main")
    edit(branched, "Question q-3 about the policy?", "Question q-3, our wording?")
    append(branched, set_item("q-ours", "policy.md"))
    commit_all(branched, "ours")

    done = merge(branched, "other")
    assert done.returncode != 0
    assert "conflict in item q-3: question" in done.stderr + done.stdout
    text = (branched / SET).read_text()
    assert "<<<<<<< ours (item q-3: question; evalset merge)" in text
    assert "Question q-3, our wording?" in text and "Question q-3, their wording?" in text
    assert "q-ours" in text  # the rest of the merge is done
    assert git(branched, "diff", "--name-only", "--diff-filter=U").split() == [SET]


BASE = SET_HEADER + set_item("a", "d.md") + set_item("b", "d.md")


def test_different_fields_of_one_item_merge() -> None:
    ours = BASE.replace("Question a about", "Question a (ours) about")
    theirs = BASE.replace("The fact a asks", "The fact a (theirs) asks")
    result = merge_sets(BASE, ours, theirs, Path(SET))
    assert result is not None and result.clean
    assert "Question a (ours) about" in result.text and "The fact a (theirs) asks" in result.text


def test_deleted_on_one_side_changed_on_the_other_is_a_conflict() -> None:
    ours = SET_HEADER + set_item("b", "d.md")  # a deleted
    theirs = BASE.replace("Question a about", "Question a (theirs) about")
    result = merge_sets(BASE, ours, theirs, Path(SET))
    assert result is not None
    assert result.conflicts == ["item a: deleted on our side, changed on theirs"]


# ours, where item a went: the conflict names the new id when one new item is a's but for
# one field (a rename with an edit, which `_renames` does not find), else says "deleted"
GONE = {
    "deleted": (SET_HEADER + set_item("b", "d.md"), "deleted"),
    "renamed and edited": (
        BASE.replace("id: a\n", "id: a2\n").replace("Question a about", "Question a2 about"),
        "deleted (or given the id a2 and edited)",
    ),
    "deleted, another item added": (
        SET_HEADER + set_item("b", "d.md") + set_item("c", "e.md"),
        "deleted",
    ),
}


@pytest.mark.parametrize(("ours", "said"), GONE.values(), ids=GONE.keys())
def test_an_item_gone_on_one_side_and_changed_on_the_other_says_where(ours: str, said: str) -> None:
    theirs = BASE.replace("The fact a asks", "The fact a (theirs) asks")
    result = merge_sets(BASE, ours, theirs, Path(SET))
    assert result is not None
    assert result.conflicts == [f"item a: {said} on our side, changed on theirs"]
    assert f"<<<<<<< ours (item a: {said} on our side, changed on theirs; evalset merge)" in (
        result.text
    )


def test_a_deletion_merges_with_an_unrelated_edit() -> None:
    ours = SET_HEADER + set_item("b", "d.md")
    theirs = BASE.replace("Question b about", "Question b (theirs) about")
    result = merge_sets(BASE, ours, theirs, Path(SET))
    assert result is not None and result.clean
    assert "id: a" not in result.text and "Question b (theirs) about" in result.text


def test_header_keys_merge_one_by_one() -> None:
    ours = BASE.replace("name: docs\n", "name: docs\ndescription: ours\n")
    theirs = BASE.replace("  direct-lookup: a fact\n", "  direct-lookup: a fact\n  other: b\n")
    result = merge_sets(BASE, ours, theirs, Path(SET))
    assert result is not None and result.clean
    assert "description: ours" in result.text and "other: b" in result.text
    clash = merge_sets(BASE, ours, BASE.replace("name: docs\n", "name: docs\ndescription: x\n"),
                       Path(SET))  # fmt: skip
    assert clash is not None and clash.conflicts == ["header: description"]


def test_an_unreadable_side_falls_back_to_a_line_merge() -> None:
    assert merge_sets(BASE, "items: [", BASE, Path(SET)) is None


def _three(tmp_path: Path, base: bytes, ours: bytes, theirs: bytes) -> tuple[Path, Path, Path]:
    paths = []
    for name, data in (("base", base), ("ours", ours), ("theirs", theirs)):
        path = tmp_path / f"{name}.yaml"
        path.write_bytes(data)
        paths.append(path)
    return paths[0], paths[1], paths[2]


BYTES_BASE = (SET_HEADER + set_item("q-1", "a.md") + set_item("q-2", "a.md")).encode()


def test_a_set_added_on_both_branches_merges_item_by_item(branched: Path) -> None:
    """git passes an empty base for a file both sides added: the items of either side are
    kept as items, not set against each other in one block that reads as one item."""
    new = "sets/faq.yaml"
    header = SET_HEADER.replace("name: docs", "name: faq")
    git(branched, "checkout", "-q", "other")
    (branched / new).write_text(header + set_item("q-1", "policy.md"))
    commit_all(branched, "faq, one item")
    git(branched, "checkout", "-q", "main")
    (branched / new).write_text(header + set_item("q-2", "policy.md"))
    commit_all(branched, "faq, another item")
    done = merge(branched, "other")
    assert done.returncode == 0, done.stdout + done.stderr
    assert [item.id for item in load_set(branched / new).items] == ["q-2", "q-1"]


def test_a_line_break_change_on_one_side_is_kept(tmp_path: Path) -> None:
    from evalset.versions.merge import merge_driver

    theirs = BYTES_BASE.replace(b"\n", b"\r\n")  # they converted the file to CRLF
    ours = BYTES_BASE.replace(b"Question q-2", b"Reworded q-2")  # we reworded an item
    base, mine, their = _three(tmp_path, BYTES_BASE, ours, theirs)
    result = merge_driver(base, mine, their, "sets/docs.yaml")
    assert result.clean
    assert mine.read_bytes() == ours.replace(b"\n", b"\r\n")


def test_a_side_that_is_not_utf8_gets_gits_line_merge_with_markers(tmp_path: Path) -> None:
    from evalset.versions.merge import merge_driver

    ours = BYTES_BASE.replace(b"Question q-1", b"Question \xe9 q-1")  # saved as Latin-1
    theirs = BYTES_BASE.replace(b"Question q-1", b"Other q-1")
    base, mine, their = _three(tmp_path, BYTES_BASE, ours, theirs)
    result = merge_driver(base, mine, their, "sets/docs.yaml")
    assert result.conflicts == [
        "the whole file, merged by git line by line, as it could not be merged item by item "
        "(ours is not UTF-8)"
    ]
    merged = mine.read_bytes()
    assert b"<<<<<<< ours" in merged and b">>>>>>> theirs" in merged
    assert b"Question \xe9 q-1" in merged and b"Other q-1" in merged


# A holdout item sealed on one branch, and changed in the clear on the other: no merge can
# put the change into the sealed content (that takes the key), so the item is a conflict.
# (what the other branch does to q-2, held out)
PLAIN_CHANGES = {
    "its category": (
        "q-2 about the policy?\n    category: direct-lookup",
        "q-2 about the policy?\n    category: other",
    ),
    "its question": ("Question q-2 about", "Question q-2, reworded, about"),
    "its key point": ("The fact q-2 asks about", "The fact q-2 is about"),
}


@pytest.mark.parametrize("sealing", ["ours", "theirs"])
@pytest.mark.parametrize("change", PLAIN_CHANGES.values(), ids=PLAIN_CHANGES.keys())
def test_a_seal_and_a_change_in_the_clear_are_a_conflict(  # type: ignore[no-untyped-def]
    branched: Path,
    cli,
    key: tuple[Path, str],
    sealing: str,
    change: tuple[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    for ident in ("q-1", "q-2", "q-3"):  # alike questions: all on one side
        edit(branched, f"  - id: {ident}\n", f"  - id: {ident}\n    holdout: true\n")
    edit(branched, "categories:\n", "categories:\n  other: anything else\n")
    commit_all(branched, "a holdout")
    git(branched, "branch", "-f", "other")
    sealer, changer = ("main", "other") if sealing == "ours" else ("other", "main")
    git(branched, "checkout", "-q", sealer)
    assert cli(branched, "seal", "docs", "-r", key[1]).code == 0
    commit_all(branched, "sealed")
    git(branched, "checkout", "-q", changer)
    edit(branched, *change)
    commit_all(branched, "q-2 changed in the clear")
    git(branched, "checkout", "-q", "main")
    done = merge(branched, "other")
    assert done.returncode != 0, done.stdout + done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("evalset merge:")]
    side = "our" if sealing == "ours" else "their"
    assert said == [
        f"evalset merge: {SET}: conflict in item q-2: sealed (or sealed again) on {side} side "
        "and changed on the other; unseal it with the key, make the change, and seal it again"
    ]


# how each branch came to hold the same holdout sealed: both sealed it, or both added the
# same item (as promote adds a record's draft) to a holdout sealed before they branched
SEALED_ALIKE = {
    "both sealed it": "seal",
    "both added the same sealed item": "append",
}


@pytest.mark.parametrize("how", SEALED_ALIKE)
def test_the_same_content_sealed_on_both_sides_merges(  # type: ignore[no-untyped-def]
    branched: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """Each sealing writes its own ciphertext, so the two sides differed in every sealed
    item: a conflict per item that said to unseal and redo a change nobody made (or, for an
    item added on both sides, to renumber one, which would make two of one record)."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    for ident in ("q-1", "q-2", "q-3"):
        edit(branched, f"  - id: {ident}\n", f"  - id: {ident}\n    holdout: true\n")
    if SEALED_ALIKE[how] == "append":
        assert cli(branched, "seal", "docs", "-r", key[1]).code == 0
    commit_all(branched, "a holdout")
    git(branched, "branch", "-f", "other")
    texts = {}
    for branch in ("main", "other"):
        git(branched, "checkout", "-q", branch)
        if SEALED_ALIKE[how] == "seal":
            assert cli(branched, "seal", "docs", "-r", key[1]).code == 0
        else:
            append(branched, set_item("q-4", "policy.md") + "    holdout: true\n")
            assert cli(branched, "seal", "docs").code == 0  # q-4, to the holdout's keys
        commit_all(branched, f"sealed on {branch}")
        texts[branch] = (branched / SET).read_text()
    assert texts["main"] != texts["other"]  # the ciphertexts differ
    git(branched, "checkout", "-q", "main")
    done = merge(branched, "other")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "conflict" not in done.stderr
    assert (branched / SET).read_text() == texts["main"]  # ours kept: it opens as theirs
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    assert cli(branched, "validate", "docs").code == 0
    opened = load_set(branched / SET)
    assert {i.id for i in opened.items} >= {"q-1", "q-2", "q-3"}


def test_an_item_moved_into_a_holdout_sealed_on_the_other_side_is_a_conflict(  # type: ignore[no-untyped-def]
    branched: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """One branch holds q-4 out (in the clear), the other seals the holdout: each side is
    valid, but the merge would commit q-4's question beside the sealed holdout."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    for ident in ("q-1", "q-2", "q-3"):  # alike questions: all on one side
        edit(branched, f"  - id: {ident}\n", f"  - id: {ident}\n    holdout: true\n")
    append(branched, set_item("q-4", "policy.md").replace(
        "Question q-4 about the policy?", "When do the gift cards expire?"))  # fmt: skip
    commit_all(branched, "a holdout")
    git(branched, "branch", "-f", "other")
    git(branched, "checkout", "-q", "other")
    edit(branched, "  - id: q-4\n", "  - id: q-4\n    holdout: true\n")
    commit_all(branched, "q-4 held out")
    git(branched, "checkout", "-q", "main")
    assert cli(branched, "seal", "docs", "-r", key[1]).code == 0
    commit_all(branched, "sealed")
    done = merge(branched, "other")
    assert done.returncode != 0, done.stdout + done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("evalset merge:")]
    assert said == [
        f"evalset merge: {SET}: conflict in the merged set: q-4: a holdout item in plain text "
        "in a set whose holdout is sealed: a commit would write its question and labels into "
        "git history; each side is valid without the other's change"
    ]


def test_two_key_holders_editing_other_sealed_items_merge_cleanly(  # type: ignore[no-untyped-def]
    branched: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each branch unseals, edits one sealed item and seals again (the README's way): the
    items neither touched keep their committed ciphertext, so the merge has nothing to
    conflict on, and holds both edits."""
    keyfile, public = key
    for ident in ("q-1", "q-2", "q-3"):
        edit(branched, f"  - id: {ident}\n", f"  - id: {ident}\n    holdout: true\n")
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    assert cli(branched, "seal", "docs", "-r", public).code == 0
    commit_all(branched, "sealed")
    git(branched, "branch", "-f", "other")
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(keyfile))
    for branch, ident in (("main", "q-1"), ("other", "q-2")):
        git(branched, "checkout", "-q", branch)
        assert cli(branched, "unseal", "docs").code == 0
        edit(branched, f"The fact {ident} asks about", f"The fact {ident} is about")
        assert cli(branched, "seal", "docs").code == 0
        commit_all(branched, f"{ident} edited")
    git(branched, "checkout", "-q", "main")
    done = merge(branched, "other")
    assert done.returncode == 0, done.stdout + done.stderr
    opened = {item.id: item for item in load_set(branched / SET).items}
    assert opened["q-1"].key_points[0].text == "The fact q-1 is about"
    assert opened["q-2"].key_points[0].text == "The fact q-2 is about"
    assert opened["q-3"].key_points[0].text == "The fact q-3 asks about"


FLOW_BASE = b"""evalset: 1
name: docs
categories:
  direct-lookup: a fact
items: [
  {id: q-1, question: What is the first thing?, category: direct-lookup, status: draft},

  {id: q-2, question: What is the second thing?, category: direct-lookup, status: draft},

  {id: q-3, question: What is the third thing?, category: direct-lookup, status: draft}
]
"""


def _flow_add(ident: str, after: str, question: str) -> bytes:
    line = f"  {{id: {ident}, question: {question}, category: direct-lookup, status: draft}},\n"
    at = FLOW_BASE.index(f"{{id: {after},".encode())
    end = FLOW_BASE.index(b"\n", at) + 1
    return FLOW_BASE[:end] + line.encode() + FLOW_BASE[end:]


@pytest.mark.parametrize(
    ("theirs_id", "clean"), [("q-5", True), ("q-4", False)], ids=["other ids", "one id"]
)
def test_a_line_merge_is_checked_as_a_set_too(tmp_path: Path, theirs_id: str, clean: bool) -> None:
    """Items in flow style cannot be cut into pieces: git's line merge is used. Before, what
    it merged was committed if it read as YAML, a set with one id twice included."""
    from evalset.versions.merge import merge_driver

    ours = _flow_add("q-4", "q-1", "Ours new question four?")
    theirs = _flow_add(theirs_id, "q-2", "Theirs different question?")
    base, mine, their = _three(tmp_path, FLOW_BASE, ours, theirs)
    result = merge_driver(base, mine, their, "sets/docs.yaml")
    assert result.clean == clean, result.conflicts
    if not clean:
        (conflict,) = result.conflicts
        assert conflict.startswith("the merged set (git's line merge): q-4: id 'q-4' is used by ")
        assert conflict.endswith("; each side is valid without the other's change")


END = "# the end of the set\n"
ENDED = SET_HEADER + set_item("q-1", "a.md") + END


def _appended(ident: str) -> str:
    return ENDED + set_item(ident, "a.md")


# The comment that ends the file, and an item appended below it on one side (where it reads
# as that item's own comment): (ours, theirs, clean, how many times the comment is left).
# Before, both appending gave it twice, and a deletion on the other side was undone.
END_CASES = {
    "both append": (_appended("q-5"), _appended("q-6"), False, None),
    "one deletes it, the other appends": (ENDED.replace(END, ""), _appended("q-6"), False, None),
    "one edits it, the other appends": (
        ENDED.replace("the end", "The end"),
        _appended("q-6"),
        False,
        None,
    ),
    "one appends": (_appended("q-5"), ENDED, True, 1),
    "one appends, the other edits an item": (
        _appended("q-5"),
        ENDED.replace("Question q-1", "Reworded q-1"),
        True,
        1,
    ),
}


@pytest.mark.parametrize("case", END_CASES)
def test_an_item_appended_below_the_end_comment(tmp_path: Path, case: str) -> None:
    from evalset.versions.merge import merge_driver

    ours, theirs, clean, times = END_CASES[case]
    base, mine, their = _three(tmp_path, ENDED.encode(), ours.encode(), theirs.encode())
    result = merge_driver(base, mine, their, "sets/docs.yaml")
    merged = mine.read_text()
    assert result.clean == clean, (result.conflicts, merged)
    if clean:
        assert merged.count(END) == times, merged
        assert "Reworded q-1" in merged or "Reworded" not in theirs
    else:
        assert "<<<<<<< ours" in merged, merged  # git's own markers, as git without the driver
