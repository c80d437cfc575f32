"""Holdout sides compared with the last release, and with HEAD for the items added since."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import GIT_ENV, SET_HEADER, commit_all, write_files
from evalset.errors import EditRefused
from evalset.sets.editor import DELETE, edit_set

CORPUS = {"corpus/policy.md": "# Policy\n\n## Returns\n\nReturn within 14 days of delivery.\n"}
SOURCE = "policy.md#returns"


def entry(ident: str, question: str, holdout: bool | None) -> str:
    side = "" if holdout is None else f"    holdout: {str(holdout).lower()}\n"
    return (
        f"  - id: {ident}\n    question: {question}\n    category: direct-lookup\n{side}"
        f"    expected_sources: [{SOURCE}]\n    key_points:\n"
        f"      - text: The fact {ident} asks about\n        sources: [{SOURCE}]\n"
    )


RELEASED = (
    entry("q-1", "How long is the window for sending back a parcel?", True)
    + entry("q-2", "Which courier picks up the returned goods?", False)
    + entry("q-3", "Can a voucher be exchanged for cash at the till?", False)
)
ADDED = {  # added after the release, committed with their sides
    "q-9": ("Which carrier delivers parcels to the islands?", True),
    "q-10": ("Are refunds paid back to the original card?", False),
}


@pytest.fixture
def since(corpus_repo: Path, cli, monkeypatch: pytest.MonkeyPatch) -> Path:  # type: ignore[no-untyped-def]
    """A set released as 0.1.0, then given two items (q-9 holdout, q-10 tuning) committed
    since; returns the set file."""
    for key, value in GIT_ENV.items():  # the release commits and tags in-process
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    write_files(corpus_repo, CORPUS)
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(SET_HEADER + RELEASED)
    assert cli(corpus_repo, "snapshot").code == 0
    assert cli(corpus_repo, "verify", "docs", "--all").code == 0
    commit_all(corpus_repo, "a set")
    assert cli(corpus_repo, "release", "docs", "--bump", "minor").code == 0
    with path.open("a") as out:
        out.write("".join(entry(i, q, h) for i, (q, h) in ADDED.items()))
    assert cli(corpus_repo, "verify", "docs", "--all").code == 0
    commit_all(corpus_repo, "two items since the release")
    return path


def _flag_edit(path: Path, ident: str, edit: str) -> None:
    """Flip (``flip``) or delete (``drop``) the committed holdout flag of ``ident``."""
    holdout = ADDED[ident][1]
    flag = f"    holdout: {str(holdout).lower()}\n"
    text = path.read_text()
    at = text.index(flag, text.index(f"  - id: {ident}\n"))
    new = f"    holdout: {str(not holdout).lower()}\n" if edit == "flip" else ""
    path.write_text(text[:at] + new + text[at + len(flag) :])


@pytest.mark.parametrize("edit", ["flip", "drop"])
@pytest.mark.parametrize("ident", list(ADDED))
def test_an_item_added_since_the_release_keeps_its_committed_side(  # type: ignore[no-untyped-def]
    since: Path, cli, ident: str, edit: str
) -> None:
    """Before, the hand-flip check compared with the last release only: an item added since
    had no side there, so flipping it (or taking its side away) by hand was no error for
    `validate`, `seal` or `release`, although `split --move` refuses the same move."""
    root = since.parents[1]
    was = ADDED[ident][1]
    _flag_edit(since, ident, edit)
    edited = since.read_bytes()
    result = cli(root, "validate", "docs")
    assert result.code == 1, result.out
    if edit == "flip":
        now = "tuning" if was else "holdout"
        wanted = (
            f"item {ident}: holdout: error: moved from {'holdout' if was else 'tuning'} to "
            f"{now} since HEAD without a recorded move"
        )
    else:
        wanted = f"item {ident}: error: lost its holdout assignment (holdout: {str(was).lower()})"
        wanted += " since HEAD"
    assert wanted in result.out
    assert "release 0.1.0" not in result.out  # the items the release has are compared with it
    refused = cli(root, "split", "docs")
    assert refused.code == 2 and f"item {ident} " in refused.err and "since HEAD" in refused.err
    assert since.read_bytes() == edited


@pytest.mark.parametrize("ident", list(ADDED))
def test_an_edit_flipping_an_item_added_since_the_release_is_refused(  # type: ignore[no-untyped-def]
    since: Path, ident: str
) -> None:
    before = since.read_bytes()
    was = ADDED[ident][1]
    for changes in ({"holdout": not was}, {"holdout": DELETE}):
        refused = pytest.raises(EditRefused, match=f"item '{ident}' would .* (since|at) HEAD")
        with refused, edit_set(since) as editor:
            editor.update_item(ident, changes)
        assert since.read_bytes() == before
    with edit_set(since) as editor:  # a side the release has is still compared with it
        editor.update_item("q-3", {"question": "Can a voucher be swapped for cash at the till?"})


def test_a_recorded_move_or_the_side_put_back_is_no_error(since: Path, cli) -> None:  # type: ignore[no-untyped-def]
    root = since.parents[1]
    committed = since.read_bytes()
    _flag_edit(since, "q-9", "flip")
    since.write_bytes(committed)
    assert cli(root, "validate", "docs").code == 0
    moved = cli(root, "split", "docs", "--move", "q-9", "--to", "tuning", "--force")
    assert moved.code == 0, moved.err
    result = cli(root, "validate", "docs")
    assert result.code == 0 and "holdout-move" not in result.out, result.out


def test_an_item_sealed_at_head_written_plain_into_tuning_is_a_move(  # type: ignore[no-untyped-def]
    since: Path, cli, key: tuple[Path, str]
) -> None:
    """Without the key, HEAD's sealed q-9 shows its side: the plain q-9 in tuning that
    replaced it by hand is an unrecorded move (and `seal` refuses the set)."""
    root = since.parents[1]
    assert cli(root, "seal", "docs", "--recipient", key[1]).code == 0
    commit_all(root, "sealed")
    text = since.read_text()
    start = text.index("  - id: q-9\n")
    end = text.index("  - id: q-10\n")
    since.write_text(text[:start] + entry("q-9", ADDED["q-9"][0], False) + text[end:])
    result = cli(root, "validate", "docs", "--skip-sealed")
    assert result.code == 1
    assert "item q-9: holdout: error: moved from holdout to tuning since HEAD" in result.out
    sealed = cli(root, "seal", "docs")
    assert sealed.code == 2 and "moved from holdout to tuning since HEAD" in sealed.err


# A holdout item written again under another id in tuning (the old one deleted or retired)
# passed validate and release: no move check sees a new id. q-1 is holdout at 0.1.0.
AGAIN = {
    "deleted, the same question": (
        "How long is the window for sending back a parcel?", "delete", True),
    "retired, asked otherwise": (
        "How long is the window for sending back a parcel, please?", "retire", True),
    "deleted, another question": (
        "Is gift wrapping offered for parcels sent abroad?", "delete", False),
}  # fmt: skip


@pytest.mark.parametrize("again", AGAIN)
def test_a_holdout_question_written_again_in_tuning_is_a_leak(  # type: ignore[no-untyped-def]
    cli, since: Path, again: str
) -> None:
    question, how, leaked = AGAIN[again]
    head, *items = since.read_text().split("  - id: ")
    (first,) = [k for k, item in enumerate(items) if item.startswith("q-1\n")]
    if how == "delete":
        del items[first]
    else:
        items[first] = items[first].replace("\n", "\n    status: retired\n", 1)
    since.write_text("  - id: ".join([head, *items]) + entry("q-20", question, False))
    assert cli(since.parent.parent, "verify", "docs", "q-20").code == 0
    done = cli(since.parent.parent, "validate", "docs")
    said = (
        "item q-20: question: error: near duplicate of item 'q-1', which was holdout at "
        "release 0.1.0 and is no longer: the holdout question has leaked into tuning"
    )
    assert (said in done.out) == leaked, done.out
    assert "window for sending" not in done.out  # the holdout question is not quoted
    assert (done.code == 1) == leaked


def test_an_item_moved_to_tuning_with_its_record_is_no_copy_of_itself(  # type: ignore[no-untyped-def]
    cli, since: Path
) -> None:
    """Before, q-1 moved to tuning as the README shows (`split --move --force`), then
    reworded, was called a leak of itself, and so was a new tuning item asking it."""
    repo = since.parent.parent
    assert cli(repo, "split", "docs", "--move", "q-1", "--to", "tuning", "--force").code == 0
    text = since.read_text().replace("sending back a parcel?", "sending back a parcel, please?", 1)
    since.write_text(text + entry("q-20", "How long is the window for sending back a parcel?",
                                  False))  # fmt: skip
    assert cli(repo, "verify", "docs", "q-20").code == 0
    done = cli(repo, "validate", "docs")
    assert "which was holdout at" not in done.out, done.out
