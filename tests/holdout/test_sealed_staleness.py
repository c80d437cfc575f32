"""A sealed holdout never makes a set look clean without being checked: staleness is known
without the key only while the item's visible `verified` is the newest snapshot; otherwise
stale, status and validate say how many sealed items were not checked, and stale and
validate exit 1 unless --skip-sealed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyrage import x25519

from conftest import write_files

V1 = "# Returns\n\n## Window\n\nYou may return items within 30 days.\n"
V2 = "# Returns\n\n## Window\n\nYou may return items within 14 days.\n"
SET = """\
evalset: 1
name: docs
categories:
  direct-lookup: a fact
items:
  - id: q-1
    question: How long is the return window for most items?
    category: direct-lookup
    expected_sources: [returns.md#window]
    key_points:
      - text: Items can be returned within 30 days
        sources: [returns.md#window]
    holdout: false
  - id: q-2
    question: Within how many days may I send an order back?
    category: direct-lookup
    expected_sources: [returns.md#window]
    key_points:
      - text: Returns are accepted within 30 days of delivery
        sources: [returns.md#window]
    holdout: true
"""


@pytest.fixture
def sealed(cli, corpus_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:  # type: ignore[no-untyped-def]
    """A workspace whose one holdout item is verified against the newest snapshot, then
    sealed; returns the key file (EVALSET_AGE_IDENTITY unset)."""
    identity = x25519.Identity.generate()
    key = tmp_path / "holdout.key"
    key.write_text(f"{identity}\n")
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    write_files(corpus_repo, {"corpus/returns.md": V1, "sets/docs.yaml": SET})
    assert cli(corpus_repo, "snapshot").code == 0
    assert cli(corpus_repo, "verify", "docs", "--all").code == 0
    result = cli(corpus_repo, "seal", "docs", "--recipient", str(identity.to_public()))
    assert result.code == 0, result.err
    return key


def test_a_sealed_item_verified_against_the_newest_is_fresh_without_the_key(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, sealed: Path
) -> None:
    stale = cli(corpus_repo, "stale", "--json")
    assert stale.code == 0, stale.out
    assert json.loads(stale.out)["unchecked_sealed"] == {}
    status = json.loads(cli(corpus_repo, "status", "--json").out)["sets"][0]
    assert status["stale"] == 0 and status["unchecked_sealed_items"] == []


def test_a_sealed_item_citing_changed_text_is_never_reported_clean(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, sealed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(corpus_repo, {"corpus/returns.md": V2})
    assert cli(corpus_repo, "snapshot").code == 0
    # q-1 (plain) is stale and says so; q-2 (sealed) cannot be compared without the key.
    stale = cli(corpus_repo, "stale", "--json")
    assert stale.code == 1
    report = json.loads(stale.out)
    assert [i["id"] for i in report["items"]] == ["q-1"]
    assert report["unchecked_sealed"] == {"docs": ["q-2"]}
    assert cli(corpus_repo, "verify", "docs", "q-1").code == 0
    # With the plain item re-verified, the sealed one alone still fails the run.
    stale = cli(corpus_repo, "stale")
    assert stale.code == 1
    assert "0 stale item(s) against snapshot" in stale.out
    assert (
        "docs: 1 sealed item(s) not checked (q-2): what they cite is sealed, and they were not "
        "verified against the newest snapshot; set EVALSET_AGE_IDENTITY to the age key file "
        "and run `evalset stale` again, or, without the key, have its holder verify them "
        "against the newest snapshot (--skip-sealed accepts them unchecked)"
    ) in stale.out
    assert "Returns are accepted" not in stale.out + stale.err
    for args in (["stale"], ["stale", "--format", "md"], ["validate"]):
        accepted = cli(corpus_repo, *args, "--skip-sealed")  # said so, not advised again
        assert accepted.code == 0, (args, accepted.out)
        assert "--skip-sealed accepts them unchecked)" not in accepted.out, args
        assert "exits 1;" not in accepted.out, args
    assert (
        "docs: 1 sealed item(s) not checked (q-2)" in cli(corpus_repo, "stale", "--skip-sealed").out
    )
    assert "accepted unchecked (--skip-sealed)" in cli(corpus_repo, "stale", "--skip-sealed").out
    status = json.loads(cli(corpus_repo, "status", "--json").out)["sets"][0]
    assert status["stale"] == 0 and status["unchecked_sealed_items"] == ["q-2"]
    assert "sealed, not checked without the key: 1" in cli(corpus_repo, "status").out
    validate = cli(corpus_repo, "validate", "--json")
    assert validate.code == 1
    checked = json.loads(validate.out)
    assert (checked["errors"], checked["unchecked_sealed"], checked["ok"]) == (0, 1, False)
    text = cli(corpus_repo, "validate")
    assert text.code == 1 and "; 1 sealed item(s) not checked" in text.out
    assert cli(corpus_repo, "validate", "--skip-sealed").code == 0
    # With the key, the sealed item is compared like any other: it is stale.
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(sealed))
    stale = cli(corpus_repo, "stale", "--json")
    assert stale.code == 1
    assert [i["id"] for i in json.loads(stale.out)["items"]] == ["q-2"]
    assert cli(corpus_repo, "validate").code == 0


def test_a_sealed_item_whose_verified_was_written_by_hand_is_not_checked(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, sealed: Path
) -> None:
    """Before, editing a sealed item's visible `verified:` to the newest snapshot made it
    fresh without the key (stale exit 0, status 0 stale), though what it cites changed;
    `validate` already called the edit an error. Its `verified` vouches for no check."""
    from conftest import commit_all

    commit_all(corpus_repo, "sealed")
    write_files(corpus_repo, {"corpus/returns.md": V2})
    assert cli(corpus_repo, "snapshot").code == 0
    commit_all(corpus_repo, "corpus changed")
    path = corpus_repo / "sets" / "docs.yaml"
    text = path.read_text()
    (old,) = {line.split()[-1] for line in text.splitlines() if "verified:" in line}
    (newest,) = [p.stem[:12] for p in (corpus_repo / "snapshots").glob("*.json")
                 if not p.stem.startswith(old)]  # fmt: skip
    path.write_text(text.replace(f"verified: {old}", f"verified: {newest}"))  # q-2 by hand
    stale = cli(corpus_repo, "stale", "--json")
    assert stale.code == 1, stale.out
    assert json.loads(stale.out)["unchecked_sealed"] == {"docs": ["q-2"]}
    status = json.loads(cli(corpus_repo, "status", "--json").out)["sets"][0]
    assert status["unchecked_sealed_items"] == ["q-2"]


def test_a_hand_edit_of_verified_after_the_key_holder_verified_since_the_release(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, sealed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key holder re-verified q-2 after the release (new sealed content, committed), and
    its visible `verified:` was then edited by hand: compared with the release alone, whose
    sealed content differs, the edit went unseen and the item counted as fresh. The content
    is as HEAD holds it, and HEAD shows another `verified`."""
    from conftest import GIT_ENV, commit_all

    for name, value in GIT_ENV.items():  # the release commits and tags in-process
        monkeypatch.setenv(name, value)
    commit_all(corpus_repo, "sealed")
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(sealed))
    assert cli(corpus_repo, "release", "docs", "--bump", "minor").code == 0
    write_files(corpus_repo, {"corpus/returns.md": V2})
    assert cli(corpus_repo, "snapshot").code == 0
    assert cli(corpus_repo, "verify", "docs", "q-1", "q-2").code == 0  # the key holder
    commit_all(corpus_repo, "verified again")
    monkeypatch.delenv("EVALSET_AGE_IDENTITY")
    before = {p.stem[:12] for p in (corpus_repo / "snapshots").glob("*.json")}
    write_files(corpus_repo, {"corpus/returns.md": V2.replace("14", "7")})
    assert cli(corpus_repo, "snapshot").code == 0
    commit_all(corpus_repo, "the corpus changed again")
    (newest,) = {p.stem[:12] for p in (corpus_repo / "snapshots").glob("*.json")} - before
    path = corpus_repo / "sets" / "docs.yaml"
    text = path.read_text()
    (was,) = {line.split()[-1] for line in text.splitlines() if "verified:" in line}
    path.write_text(text.replace(f"verified: {was}", f"verified: {newest}"))  # by hand
    stale = cli(corpus_repo, "stale", "--json")
    assert stale.code == 1, stale.out
    assert json.loads(stale.out)["unchecked_sealed"] == {"docs": ["q-2"]}
