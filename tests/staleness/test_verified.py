"""An item counts as verified only against a snapshot that names it: the header's
``snapshot:`` never vouches for an item written after it was recorded."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SET_HEADER, commit_all, set_item, write_files
from evalset.corpus.snapshot import take_snapshot

V1 = {"corpus/policy.md": "# Policy\n\n## Returns\n\nReturn within 14 days of delivery.\n"}
V2 = {"corpus/policy.md": "# Policy\n\n## Returns\n\nReturn within 30 days of delivery.\n"}


def snapshot(repo: Path) -> str:
    return take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset").short


def test_an_item_without_verified_is_unverified_not_changed(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A set adopted against the old corpus by an earlier evalset (header `snapshot:`), and
    an item written today, after the policy changed, without `verified:`: nobody checked it
    against the old text, so it is neither changed nor fresh, but unverified."""
    write_files(corpus_repo, V1)
    old = snapshot(corpus_repo)
    write_files(corpus_repo, V2)
    new = snapshot(corpus_repo)
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(
        SET_HEADER.replace("items:\n", f"snapshot: {old}\nitems:\n")
        + set_item("checked", "policy.md#returns", verified=old)
        + set_item("new", "policy.md#returns")
    )
    stale = json.loads(cli(corpus_repo, "stale", "--json").out)
    assert [item["id"] for item in stale["items"]] == ["checked"]
    assert stale["unverified"] == {"docs": ["new"]}
    text = cli(corpus_repo, "stale").out
    assert "item new" not in text
    assert "1 item(s) of docs not verified against any snapshot, so not compared: new (check " \
        "them, then `evalset verify docs new`)" in text  # fmt: skip
    md = cli(corpus_repo, "stale", "--format", "md").out
    assert "1 item(s) not verified against any snapshot, so not compared: `new`." in md

    validate = cli(corpus_repo, "validate").out
    assert "item new: warning: not verified against any corpus snapshot yet (check it, then " \
        "run `evalset verify docs new`)" in validate  # fmt: skip
    assert f"snapshot: warning: the header's `snapshot: {old}` no longer counts" in validate

    status = json.loads(cli(corpus_repo, "status", "--json").out)["sets"][0]
    assert status["stale_items"] == ["checked"]
    assert status["unverified_items"] == ["new"]
    assert "unverified: 1 (new)" in cli(corpus_repo, "status").out

    assert cli(corpus_repo, "verify", "docs", "new").code == 0
    assert f"    verified: {new}\n" in path.read_text()
    assert json.loads(cli(corpus_repo, "stale", "--json").out)["unverified"] == {}


def test_verify_all_records_the_snapshot_on_every_item(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, V1)
    first = snapshot(corpus_repo)
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(SET_HEADER + set_item("a", "policy.md#returns"))
    result = cli(corpus_repo, "verify", "docs", "--all")
    assert result.code == 0
    assert f"verified every active item (1) against snapshot {first}" in result.out
    assert f"    verified: {first}\n" in path.read_text()
    # An item added afterwards is not covered by the earlier adoption.
    path.write_text(path.read_text() + set_item("b", "policy.md#returns"))
    write_files(corpus_repo, V2)
    snapshot(corpus_repo)
    stale = json.loads(cli(corpus_repo, "stale", "--json").out)
    assert [i["id"] for i in stale["items"]] == ["a"]
    assert stale["unverified"] == {"docs": ["b"]}


def test_from_header_moves_the_snapshot_onto_the_items_that_were_there(
    corpus_repo: Path, cli
) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, V1)
    old = snapshot(corpus_repo)
    path = corpus_repo / "sets" / "docs.yaml"
    header = SET_HEADER.replace("items:\n", f"snapshot: {old}\nitems:\n")
    path.write_text(header + set_item("a", "policy.md#returns"))
    commit_all(corpus_repo, "adopted against the old corpus")
    path.write_text(path.read_text() + set_item("b", "policy.md#returns"))
    commit_all(corpus_repo, "an item written later")
    result = cli(corpus_repo, "verify", "docs", "--from-header")
    assert result.code == 0, result.err
    assert f"moved the header's snapshot {old} onto 1 item(s)" in result.out
    assert "left unverified (added after it was recorded): b" in result.out
    text = path.read_text()
    assert "snapshot:" not in text.split("items:")[0]
    assert text.count(f"verified: {old}") == 1
    assert text.index(f"verified: {old}") < text.index("id: b")


def test_from_header_without_history_is_refused(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, V1)
    old = snapshot(corpus_repo)
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(
        SET_HEADER.replace("items:\n", f"snapshot: {old}\nitems:\n")
        + set_item("a", "policy.md#returns")
    )
    before = path.read_text()
    result = cli(corpus_repo, "verify", "docs", "--from-header")
    assert result.code == 2
    assert f"git has no commit of it whose header names snapshot {old}" in result.err
    assert path.read_text() == before


def test_from_header_refuses_a_snapshot_the_workspace_does_not_have(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, V1)
    snapshot(corpus_repo)
    path = corpus_repo / "sets" / "docs.yaml"
    header = SET_HEADER.replace("items:\n", "snapshot: deadbeef0000\nitems:\n")
    path.write_text(header + set_item("a", "policy.md#returns"))
    commit_all(corpus_repo, "adopted against a snapshot since lost")
    before = path.read_text()
    result = cli(corpus_repo, "verify", "docs", "--from-header")
    assert result.code == 2
    assert result.err == (
        "evalset: sets/docs.yaml: its header names snapshot deadbeef0000, which is not in "
        "snapshots, so the items cannot be said to be verified against it; restore it from git, "
        "or check the items against the newest snapshot and run `evalset verify docs ITEM…` "
        "(nothing was changed).\n"
    )
    assert path.read_text() == before


def test_from_header_needs_the_key_for_sealed_items_that_were_there(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, key: tuple[Path, str], monkeypatch
) -> None:
    """A sealed item's `verified:` is inside its seal: without the key, moving the header's
    snapshot would drop the one record that it was checked."""
    write_files(corpus_repo, V1)
    old = snapshot(corpus_repo)
    path = corpus_repo / "sets" / "docs.yaml"
    header = SET_HEADER.replace("items:\n", f"snapshot: {old}\nitems:\n")
    held = set_item("h", "policy.md#returns") + "    holdout: true\n"
    path.write_text(header + set_item("a", "policy.md#returns") + held)
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    assert cli(corpus_repo, "seal", "docs", "--recipient", key[1]).code == 0
    commit_all(corpus_repo, "adopted, the holdout sealed")
    before = path.read_text()
    result = cli(corpus_repo, "verify", "docs", "--from-header")
    assert result.code == 2
    assert result.err == (
        f"evalset: sets/docs.yaml: 1 sealed item(s) (h) were in the set when its header's "
        f"snapshot {old} was recorded, and cannot take it without the key; set "
        "EVALSET_AGE_IDENTITY to the age key file and run it again (nothing was changed).\n"
    )
    assert path.read_text() == before
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    result = cli(corpus_repo, "verify", "docs", "--from-header")
    assert result.code == 0, result.err
    assert f"moved the header's snapshot {old} onto 2 item(s)" in result.out


def test_before_the_first_snapshot_validate_says_snapshot_then_verify(
    corpus_repo: Path, cli
) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, V1)
    (corpus_repo / "sets" / "docs.yaml").write_text(SET_HEADER + set_item("a", "policy.md#returns"))
    out = cli(corpus_repo, "validate").out
    assert (
        "item a: warning: not verified against any corpus snapshot yet (run `evalset snapshot`, "
        "then `evalset verify docs --all` once the items are checked against it)"
    ) in out


def test_verify_refuses_an_incomplete_draft(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, V1)
    snapshot(corpus_repo)
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(
        SET_HEADER + "  - id: d-1\n    question: Where is my parcel?\n    status: draft\n"
    )
    before = path.read_text()
    result = cli(corpus_repo, "verify", "docs", "d-1")
    assert result.code == 2
    assert (
        "item d-1 cannot be verified while it lacks a category and key points and expected "
        "sources; add them (and `status: active`), then verify it."
    ) in result.err
    assert path.read_text() == before


def test_verify_with_an_item_id_for_a_set_name_suggests_the_set(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, V1)
    snapshot(corpus_repo)
    (corpus_repo / "sets" / "docs.yaml").write_text(SET_HEADER + set_item("q-001", "policy.md"))
    result = cli(corpus_repo, "verify", "q-001")
    assert result.code == 2
    assert (
        "'q-001' is an item of docs: name the set first, as in `evalset verify docs q-001`."
    ) in result.err


def test_release_refuses_unverified_items(corpus_repo: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from conftest import GIT_ENV

    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    write_files(corpus_repo, V1)
    first = snapshot(corpus_repo)
    (corpus_repo / "sets" / "docs.yaml").write_text(
        SET_HEADER + set_item("a", "policy.md#returns", verified=first) + set_item("b", "policy.md")
    )
    commit_all(corpus_repo, "a set, one item unchecked")
    result = cli(corpus_repo, "release", "docs", "--bump", "minor")
    assert result.code == 1
    assert "cannot release docs with 1 item(s) verified against no snapshot (b)" in result.err
