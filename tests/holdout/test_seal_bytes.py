"""Seal then unseal gives back every item's bytes: key order, list styles, dates, quoting,
comments and line breaks; edits made with the key are kept; items sealed by evalset 0.1
(content only) still open."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyrage import x25519

from conftest import write_files
from evalset.sets.setfile import load_set

DOC = "# Returns\n\n## Window\n\nYou may return items within 30 days of delivery.\n"
HEADER = """\
# yaml-language-server: $schema=../schemas/evalset.schema.json
evalset: 1
name: docs
categories:
  direct-lookup: a fact   # stated in one section
items:
"""
TUNING = """\
  - id: q-1
    question: How long is the return window for most items?
    category: direct-lookup
    expected_sources: [returns.md#window]
    key_points:
      - text: Items can be returned within 30 days
        sources: [returns.md#window]
    holdout: false
"""
# Every way of writing an item that a re-rendering would lose.
HOLDOUT = """\
  # Asked by a customer on the phone; keep the wording.
  - question: "Within how many days may I send an order back?"   # verbatim
    id: q-2
    category: direct-lookup
    expected_sources:
      - returns.md#window
    key_points:
      - text: 'Returns are accepted within 30 days of delivery'
        sources: [returns.md#window]
    must_not_say: [the window is 14 days]
    origin: {kind: production, date: 2026-11-30}
    tags:   [returns, window]
    holdout: true
    # reviewed twice
"""


@pytest.fixture
def key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str]:
    identity = x25519.Identity.generate()
    path = tmp_path / "holdout.key"
    path.write_text(f"{identity}\n")
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    return path, str(identity.to_public())


def _workspace(repo: Path, newline: str = "\n") -> Path:
    write_files(repo, {"corpus/returns.md": DOC})
    path = repo / "sets" / "docs.yaml"
    text = (
        HEADER
        + TUNING
        + "\n"
        + HOLDOUT
        + "\n"
        + TUNING.replace("q-1", "q-3").replace("most items", "most things")
    )
    path.write_bytes(text.replace("\n", newline).encode())
    return path


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_seal_then_unseal_gives_back_every_byte(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, newline: str
) -> None:
    path = _workspace(corpus_repo, newline)
    original = path.read_bytes()
    sealed = cli(corpus_repo, "seal", "docs", "--recipient", key[1])
    assert sealed.code == 0, sealed.err
    text = path.read_text()
    for secret in ("Within how many days", "keep the wording", "reviewed twice", "14 days"):
        assert secret not in text
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    result = cli(corpus_repo, "unseal", "docs")
    assert result.code == 0, result.err
    assert path.read_bytes() == original


def test_an_edit_with_the_key_is_made_as_in_the_plain_item(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Verifying a sealed item with the key, then unsealing, gives the file that verifying
    the plain item gives."""
    import shutil

    path = _workspace(corpus_repo)
    assert cli(corpus_repo, "snapshot").code == 0
    plain = tmp_path / "plain"
    shutil.copytree(corpus_repo, plain)
    assert cli(plain, "verify", "docs", "q-2").code == 0
    expected = (plain / "sets" / "docs.yaml").read_bytes()

    assert cli(corpus_repo, "seal", "docs", "--recipient", key[1]).code == 0
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    verified = cli(corpus_repo, "verify", "docs", "q-2")
    assert verified.code == 0, verified.err
    snapshot = json.loads(cli(corpus_repo, "status", "--json").out)["newest"]["snapshot"]
    # The stub shows the snapshot (staleness without the key), nothing of the text.
    monkeypatch.delenv("EVALSET_AGE_IDENTITY")
    stub = load_set(path).sealed[0]
    assert (stub.id, stub.verified) == ("q-2", snapshot)
    assert "reviewed twice" not in path.read_text()
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    assert cli(corpus_repo, "unseal", "docs").code == 0
    assert path.read_bytes() == expected
    assert f"verified: {snapshot}" in path.read_text()


def test_an_item_sealed_by_evalset_0_1_still_opens_and_unseals(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """evalset 0.1 sealed the item's JSON alone, and its stub showed no `verified`."""
    import pyrage

    path = _workspace(corpus_repo)
    content = {
        "id": "q-2",
        "question": "Within how many days may I send an order back?",
        "category": "direct-lookup",
        "expected_sources": ["returns.md#window"],
        "key_points": [{"text": "Returns are accepted within 30 days of delivery",
                        "sources": ["returns.md#window"]}],
        "must_not_say": ["the window is 14 days"],
        "origin": {"kind": "production", "date": "2026-11-30"},
        "tags": ["returns", "window"],
        "holdout": True,
    }  # fmt: skip
    armored = pyrage.encrypt(
        json.dumps(content, sort_keys=True).encode(),
        [x25519.Recipient.from_str(key[1])],
        armored=True,
    ).decode()
    from evalset.sets.content import item_fingerprint
    from evalset.sets.model import Item

    fingerprint = item_fingerprint(Item.model_validate(content), 1)
    block = "\n".join("        " + line for line in armored.strip().splitlines())
    stub = (
        "  - id: q-2\n    category: direct-lookup\n    holdout: true\n    status: active\n"
        f"    sealed:\n      fingerprint: {fingerprint}\n      recipients:\n"
        f"        - {key[1]}\n      age: |\n{block}\n"
    )
    text = path.read_text()
    path.write_text(text[: text.index("  # Asked")] + stub + text[text.index("\n  - id: q-3") :])
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    assert cli(corpus_repo, "validate", "docs").code == 0
    result = cli(corpus_repo, "unseal", "docs")
    assert result.code == 0, result.err
    loaded = load_set(path)
    item = next(i for i in loaded.items if i.id == "q-2")
    assert item.model_dump(mode="json", exclude_defaults=True) == content


@pytest.mark.parametrize(
    "text",
    [
        "  - id: q-2\n    question: Another question entirely?\n    holdout: true\n",
        "  - id: q-2\n    holdout: true\n  - id: q-9\n    question: Planted?\n",
        "  - id: q-2\n    holdout: true\nname: planted\n",
        "- id: q-2\n  holdout: true\n",
        "{not: [an, item",
    ],
    ids=["other-content", "two-items", "top-level-key", "other-indent", "not-yaml"],
)
def test_a_sealed_text_that_is_not_the_item_is_not_written_back(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    """Anyone with the public key can seal: a payload whose text is not exactly its item,
    laid out as one entry, is unsealed from its content instead."""
    import pyrage

    from evalset.sets.content import FINGERPRINT_FORMAT, item_fingerprint
    from evalset.sets.model import Item

    path = _workspace(corpus_repo)
    content = Item.model_validate(
        {"id": "q-2", "question": "Within how many days may I send an order back?",
         "category": "direct-lookup", "expected_sources": ["returns.md#window"],
         "key_points": [{"text": "Returns are accepted within 30 days",
                         "sources": ["returns.md#window"]}], "holdout": True}
    )  # fmt: skip
    payload = {"evalset_sealed": 2, "item": content.model_dump(mode="json"), "text": text}
    armored = pyrage.encrypt(
        json.dumps(payload).encode(), [x25519.Recipient.from_str(key[1])], armored=True
    ).decode()
    block = "\n".join("        " + line for line in armored.strip().splitlines())
    stub = (
        "  - id: q-2\n    category: direct-lookup\n    holdout: true\n    status: active\n"
        f"    sealed:\n      fingerprint: {item_fingerprint(content)}\n"
        f"      fingerprint_format: {FINGERPRINT_FORMAT}\n      recipients:\n"
        f"        - {key[1]}\n      age: |\n{block}\n"
    )
    original = path.read_text()
    path.write_text(
        original[: original.index("  # Asked")] + stub + original[original.index("\n  - id: q-3") :]
    )
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    result = cli(corpus_repo, "unseal", "docs")
    assert result.code == 0, result.err
    after = path.read_text()
    assert "planted" not in after.lower() and "Another question" not in after
    loaded = load_set(path)
    assert [i.id for i in loaded.items] == ["q-1", "q-2", "q-3"]
    assert next(i for i in loaded.items if i.id == "q-2") == content


def test_a_long_comment_in_a_sealed_item_survives_an_edit_with_the_key(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The editor reads long comments as placeholders; they go back before the text is
    sealed again, so the unsealed item is the plainly edited one."""
    import shutil

    long = "# " + "n" * 5_000
    path = _workspace(corpus_repo)
    path.write_text(path.read_text().replace("    id: q-2\n", f"    id: q-2\n    {long}\n"))
    assert cli(corpus_repo, "snapshot").code == 0
    plain = tmp_path / "plain"
    shutil.copytree(corpus_repo, plain)
    assert cli(plain, "verify", "docs", "q-2").code == 0
    expected = (plain / "sets" / "docs.yaml").read_bytes()
    assert long.encode() in expected

    assert cli(corpus_repo, "seal", "docs", "--recipient", key[1]).code == 0
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    assert cli(corpus_repo, "verify", "docs", "q-2").code == 0
    assert cli(corpus_repo, "unseal", "docs").code == 0
    assert path.read_bytes() == expected
