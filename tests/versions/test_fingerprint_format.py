"""What is an item's content (fingerprinted) and what is provenance (not), and releases
tagged with the fingerprints of format 1, which counted provenance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import GIT_ENV, ROOT, SET_HEADER, commit_all, git, set_item, write_files
from evalset.sets.content import FINGERPRINT_FORMAT
from evalset.sets.editor import edit_set
from evalset.sets.fingerprint import item_fingerprints, set_fingerprint
from evalset.sets.setfile import SetFile, load_set, parse_set
from evalset.versions.pin import pin_of
from evalset.versions.release import _tag_message

BASE = (
    "evalset: 1\nname: fp\ndescription: A set\ncategories:\n  a: kind a\nitems:\n"
    "  - id: x-1\n    question: What is the return window?\n    category: a\n"
    "    expected_sources: [doc.md#returns]\n"
    "    key_points:\n      - text: Fourteen days\n        sources: [doc.md#returns]\n"
    "    holdout: false\n"
    "    verified: 0123456789ab\n"
    "    origin: {kind: production, trace: tr-1, date: 2026-11-30}\n"
    "    tags: [returns, window]\n"
)

PROVENANCE_CHANGES = [
    ("tags: [returns, window]", "tags: [returns]"),
    ("trace: tr-1,", "trace: tr-1, traces: [tr-2],"),
    ("date: 2026-11-30", "date: 2026-12-01"),
    ("kind: production", "kind: imported"),
    ("verified: 0123456789ab", "verified: abcdef012345"),
    (
        "    holdout: false\n",
        "    holdout: false\n    holdout_moves: [{to: tuning, date: 2026-12-01}]\n",
    ),
    ("description: A set", "description: The same set, described better"),
    ("name: fp\n", "name: fp\nsnapshot: 0123456789ab\n"),
]


@pytest.mark.parametrize(("old", "new"), PROVENANCE_CHANGES)
def test_provenance_and_bookkeeping_change_no_fingerprint(old: str, new: str) -> None:
    before = parse_set(BASE, Path("fp.yaml"))
    after = parse_set(BASE.replace(old, new, 1), Path("fp.yaml"))
    assert not after.schema_findings, after.schema_findings
    assert after.text != before.text
    assert set_fingerprint(after) == set_fingerprint(before)
    assert item_fingerprints(after) == item_fingerprints(before)
    # Format 1 counted them: that is why releases made with it are checked in format 1.
    if "description" not in old and "name" not in old:
        assert set_fingerprint(after, 1) != set_fingerprint(before, 1)


def test_the_pin_names_its_fingerprint_format() -> None:
    pin = pin_of(parse_set(BASE, Path("fp.yaml")), None)
    assert pin["fingerprint_format"] == FINGERPRINT_FORMAT == 2


def test_the_pin_says_what_the_fingerprints_say() -> None:
    """The pin computes each item's fingerprint once and builds the set's from them: the
    same values as computed on their own, and the same verdict on a release's content."""
    loaded = parse_set(BASE, Path("fp.yaml"))
    pin = pin_of(loaded, None)
    assert pin["fingerprint"] == set_fingerprint(loaded)
    per_item = {i: fp.removeprefix("sha256:")[:16] for i, fp in item_fingerprints(loaded).items()}
    assert pin["item_fingerprints"] == per_item
    header = f"name: fp\nversion: 1.0.0\nfingerprint: {set_fingerprint(loaded)}\n"
    released = BASE.replace("name: fp\n", header, 1)
    assert pin_of(parse_set(released, Path("fp.yaml")), None)["version"] == "1.0.0"
    edited = parse_set(released.replace("Fourteen days", "Ten days"), Path("fp.yaml"))
    assert pin_of(edited, None)["version"] == "1.0.0+modified"


@pytest.fixture
def identity(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


CORPUS = {"corpus/policy.md": "# Policy\n\n## Returns\n\nReturn within 14 days of delivery.\n"}
RECORDS = '{"question": "Question q-1 about the policy", "trace": "tr-77"}\n'


def test_a_promoted_duplicate_leaves_the_release_unmodified(
    corpus_repo: Path, cli, identity: None
) -> None:  # type: ignore[no-untyped-def]
    """Promoting a failure whose question duplicates an item appends its trace to that item:
    provenance, so the released set still pins as the release and every item compares."""
    write_files(corpus_repo, CORPUS)
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(SET_HEADER + set_item("q-1", "policy.md#returns"))
    assert cli(corpus_repo, "snapshot").code == 0
    assert cli(corpus_repo, "verify", "docs", "--all").code == 0
    commit_all(corpus_repo, "a set")
    assert cli(corpus_repo, "release", "docs", "--bump", "minor").code == 0
    released = json.loads(cli(corpus_repo, "pin", "docs").out)
    (corpus_repo / "failures.jsonl").write_text(RECORDS.replace("q-1", "q-1?"))
    result = cli(corpus_repo, "promote", "failures.jsonl", "--set", "docs")
    assert result.code == 0, result.err
    assert "tr-77" in path.read_text()  # the trace was recorded on q-1
    now = json.loads(cli(corpus_repo, "pin", "docs").out)
    assert now["version"] == "0.1.0"
    assert now["fingerprint"] == released["fingerprint"]
    assert now["item_fingerprints"] == released["item_fingerprints"]
    report = corpus_repo / "report.json"
    report.write_text(json.dumps({"evalset": now}))
    assert cli(corpus_repo, "check-pin", str(report)).code == 0
    assert json.loads(cli(corpus_repo, "status", "--json").out)["sets"][0]["release"] == "0.1.0"


def _release_as_evalset_0_1(repo: Path) -> dict[str, object]:
    """Release `docs` 0.1.0 as evalset 0.1 did: format-1 fingerprints, in the header and in
    a tag whose pin carries no `fingerprint_format`. Returns that pin."""
    path = repo / "sets" / "docs.yaml"
    loaded = load_set(path)
    old = pin_of(loaded, "0e183dc93927", fmt=1)
    del old["fingerprint_format"]
    old["version"] = "0.1.0"
    with edit_set(path) as editor:
        editor.set_header("version", "0.1.0")
        editor.set_header("fingerprint", old["fingerprint"])
    commit = commit_all(repo, "Release docs 0.1.0")
    git(repo, "tag", "-a", "evalset/docs/v0.1.0", "-m", _tag_message(old, None), commit)
    return old


def test_releases_tagged_in_format_1_keep_working(corpus_repo: Path, cli, identity: None) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, CORPUS)
    path = corpus_repo / "sets" / "docs.yaml"
    item = set_item("q-1", "policy.md#returns", verified="0e183dc93927")
    path.write_text(SET_HEADER + item.replace("    verified", "    tags: [returns]\n    verified"))
    old = _release_as_evalset_0_1(corpus_repo)
    assert set_fingerprint(load_set(path), 1) == old["fingerprint"]
    assert set_fingerprint(load_set(path)) != old["fingerprint"]  # format 2 differs

    # A report pinned by evalset 0.1 checks against its tag.
    report = corpus_repo / "old-report.json"
    report.write_text(json.dumps({"evalset": old}))
    result = cli(corpus_repo, "check-pin", str(report))
    assert result.code == 0, result.err
    # A report pinned today names the same release, in format 2, and checks too.
    new = json.loads(cli(corpus_repo, "pin", "docs").out)
    assert new["version"] == "0.1.0" and new["fingerprint_format"] == 2
    report.write_text(json.dumps({"evalset": {**new, "snapshot": "0e183dc93927"}}))
    assert cli(corpus_repo, "check-pin", str(report)).code == 0
    # status and log read the old tag.
    assert json.loads(cli(corpus_repo, "status", "--json").out)["sets"][0]["release"] == "0.1.0"
    (entry,) = json.loads(cli(corpus_repo, "log", "docs", "--json").out)["releases"]
    assert entry["fingerprint"] == old["fingerprint"] and entry["fingerprint_format"] == 1

    # Provenance edited since (format 1 counted it): still the release, read at its tag.
    with edit_set(path) as editor:
        editor.update_item("q-1", {"tags": ["returns", "refunds"]})
    assert json.loads(cli(corpus_repo, "status", "--json").out)["sets"][0]["release"] == "0.1.0"
    assert json.loads(cli(corpus_repo, "pin", "docs").out)["version"] == "0.1.0"
    # A label edited since: modified, in both.
    path.write_text(path.read_text().replace("The fact q-1", "The reworded fact q-1"))
    assert json.loads(cli(corpus_repo, "status", "--json").out)["sets"][0]["release"] == (
        "0.1.0+modified"
    )
    assert json.loads(cli(corpus_repo, "pin", "docs").out)["version"] == "0.1.0+modified"


def test_a_tag_moved_by_hand_is_still_caught_in_format_1(
    corpus_repo: Path, cli, identity: None
) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, CORPUS)
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(SET_HEADER + set_item("q-1", "policy.md#returns", verified="0e183dc93927"))
    old = _release_as_evalset_0_1(corpus_repo)
    path.write_text(path.read_text().replace("The fact q-1", "Another fact q-1"))
    commit = commit_all(corpus_repo, "edited after the release")
    git(
        corpus_repo, "tag", "-f", "-a", "evalset/docs/v0.1.0", "-m", _tag_message(old, None), commit
    )
    report = corpus_repo / "report.json"
    report.write_text(json.dumps({"evalset": old}))
    result = cli(corpus_repo, "check-pin", str(report))
    assert result.code == 1
    assert "tag evalset/docs/v0.1.0 was created or moved by hand" in result.err


def _sealed_as_evalset_0_1(cli, example: Path, tmp_path: Path) -> tuple[Path, SetFile]:  # type: ignore[no-untyped-def]
    """Seal the example's holdout as evalset 0.1 did (format-1 fingerprints, no
    `fingerprint_format`); the key file and the set as it was before."""
    from pyrage import x25519

    from evalset.sets.content import item_fingerprint

    identity = x25519.Identity.generate()
    keyfile = tmp_path / "holdout.key"
    keyfile.write_text(f"{identity}\n")
    path = example / "sets" / "acme-support.yaml"
    plain = load_set(path)
    assert cli(example, "seal", "acme-support", "-r", str(identity.to_public())).code == 0
    by_id = {item.id: item for item in plain.items}
    text = path.read_text()
    for stub in load_set(path).sealed:
        text = text.replace(
            f"fingerprint: {stub.sealed.fingerprint}\n      fingerprint_format: 2\n",
            f"fingerprint: {item_fingerprint(by_id[stub.id], 1)}\n",
        )
    assert "fingerprint_format" not in text
    path.write_text(text)
    return keyfile, plain


def test_items_sealed_by_evalset_0_1_keep_their_format_1_fingerprint(  # type: ignore[no-untyped-def]
    cli, example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sealed item stores its fingerprint; one sealed by evalset 0.1 stored format 1 and
    no `fingerprint_format`. Without the key its set is fingerprinted in format 1 (and the
    pin says so); with the key it opens and the set has its format-2 fingerprint."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    keyfile, plain = _sealed_as_evalset_0_1(cli, example, tmp_path)
    path = example / "sets" / "acme-support.yaml"
    sealed = load_set(path)
    assert len(sealed.sealed) == 9
    assert set_fingerprint(sealed) == set_fingerprint(plain, 1)
    assert json.loads(cli(example, "pin", "acme-support").out)["fingerprint_format"] == 1
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(keyfile))
    opened = load_set(path)
    assert not opened.sealed
    assert set_fingerprint(opened) == set_fingerprint(plain)


def test_the_gate_refuses_reports_whose_fingerprints_cannot_be_matched(  # type: ignore[no-untyped-def]
    cli, example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run scored without the key (format 1) and one scored with it (format 2) share no
    item fingerprint: the gate would compare nothing and pass. It refuses, saying why."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    keyfile, _ = _sealed_as_evalset_0_1(cli, example, tmp_path)
    run = str(ROOT / "examples" / "runs" / "acme-support-bm25.jsonl")
    score = ("score", "retrieval", "acme-support", run, "--allow-stale", "-o")
    assert cli(example, *score, "without-key.json").code == 0
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(keyfile))
    assert cli(example, *score, "with-key.json").code == 0
    assert cli(example, "gate", "with-key.json", "with-key.json").code == 0  # one format
    for baseline, current, formats in (
        ("without-key.json", "with-key.json", (2, 1)),
        ("with-key.json", "without-key.json", (1, 2)),
    ):
        done = cli(example, "gate", baseline, current)
        assert done.code == 2, done.out
        assert done.err.startswith(
            f"evalset: {current}: fingerprints items in format {formats[0]}, but the baseline "
            f"{baseline} in format {formats[1]}, so no item can be matched between them"
        )
        assert "EVALSET_AGE_IDENTITY" in done.err and len(done.err.strip().splitlines()) == 1


def test_re_verifying_against_a_new_snapshot_is_releasable(
    corpus_repo: Path, cli, identity: None
) -> None:  # type: ignore[no-untyped-def]
    """verified is bookkeeping, so the fingerprint stays; the release speaks for another
    snapshot, so it is not "nothing to release"."""
    write_files(corpus_repo, CORPUS)
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(SET_HEADER + set_item("q-1", "policy.md#returns"))
    assert cli(corpus_repo, "snapshot").code == 0
    assert cli(corpus_repo, "verify", "docs", "--all").code == 0
    commit_all(corpus_repo, "a set")
    assert cli(corpus_repo, "release", "docs", "--bump", "minor").code == 0
    refused = cli(corpus_repo, "release", "docs", "--bump", "patch")
    assert refused.code == 1 and "has not changed since release 0.1.0" in refused.err
    write_files(corpus_repo, {"corpus/policy.md": CORPUS["corpus/policy.md"] + "More text.\n"})
    assert cli(corpus_repo, "snapshot").code == 0
    assert cli(corpus_repo, "verify", "docs", "q-1").code == 0
    commit_all(corpus_repo, "re-verified against the new corpus")
    result = cli(corpus_repo, "release", "docs", "--bump", "patch", "--json")
    assert result.code == 0, result.err
    released = json.loads(result.out)
    log = json.loads(cli(corpus_repo, "log", "docs", "--json").out)["releases"]
    assert log[0]["fingerprint"] == log[1]["fingerprint"] == released["fingerprint"]
    assert log[0]["snapshot"] != log[1]["snapshot"]
    # checked again, labels untouched: said as such, not as a change of the item
    assert log[1]["summary"] == f"1 re-verified, new corpus snapshot {log[1]['snapshot']}"
    body = git(corpus_repo, "log", "-1", "--format=%b")
    assert "- re-verified: q-1" in body and "- changed q-1" not in body
