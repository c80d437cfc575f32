"""Holdout items that arrive in a set whose holdout is sealed (promote, import) are sealed
on arrival, to the set's recipients, and the output says so; without the key, the records
could not be compared with the sealed items, and that is said too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pyrage import x25519

from conftest import write_files
from evalset.sets.setfile import load_set

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
QUESTION = "Can a gift card pay for shipping to the Faroe Islands?"


@pytest.fixture
def sealed(
    cli, corpus_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, str]:  # type: ignore[no-untyped-def]
    identity = x25519.Identity.generate()
    key = tmp_path / "holdout.key"
    key.write_text(f"{identity}\n")
    public = str(identity.to_public())
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    config = corpus_repo / "evalset.toml"
    config.write_text(config.read_text() + "[split]\nratio = 0.9\n")  # arrivals go to holdout
    write_files(corpus_repo, {"corpus/returns.md": "# Returns\n\n## Window\n\n30 days.\n",
                              "sets/docs.yaml": SET})  # fmt: skip
    result = cli(corpus_repo, "seal", "docs", "--recipient", public)
    assert result.code == 0, result.err
    return key, public


def test_promote_into_a_sealed_set_seals_its_holdout_drafts(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, sealed: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    record = {"question": QUESTION, "trace": "tr-1", "category": "direct-lookup"}
    write_files(corpus_repo, {"failures.jsonl": json.dumps(record) + "\n"})
    path = corpus_repo / "sets" / "docs.yaml"
    before = path.read_text()
    dry = cli(corpus_repo, "promote", "failures.jsonl", "--set", "docs", "--dry-run", "--json")
    assert dry.code == 0, dry.err
    planned = json.loads(dry.out)
    assert planned["added"][0]["holdout"] is True and planned["sealed"] == [
        planned["added"][0]["id"]
    ]
    assert planned["unchecked_sealed"] == 1
    assert path.read_text() == before
    result = cli(corpus_repo, "promote", "failures.jsonl", "--set", "docs")
    assert result.code == 0, result.err
    ident = planned["added"][0]["id"]
    assert f"sealed 1 holdout item(s) on arrival ({ident}), as the set's holdout is sealed" in (
        result.out
    )
    assert "note: 1 sealed item(s) could not be compared with the records" in result.err
    text = path.read_text()
    assert QUESTION not in text and "tr-1" not in text
    stub = load_set(path).sealed[-1]
    assert stub.id == ident and stub.status == "draft"
    assert stub.sealed.recipients == [sealed[1]]
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(sealed[0]))
    draft = next(i for i in load_set(path).items if i.id == ident)
    assert draft.question == QUESTION and draft.origin is not None
    assert draft.origin.trace == "tr-1"


def test_import_into_a_sealed_set_seals_its_holdout_rows(  # type: ignore[no-untyped-def]
    cli, corpus_repo: Path, sealed: tuple[Path, str]
) -> None:
    rows = [
        {"id": "q-7", "question": QUESTION, "category": "direct-lookup", "holdout": True},
        {"id": "q-8", "question": "Is there a restocking fee on returns?", "holdout": False},
    ]
    write_files(corpus_repo, {"rows.jsonl": "".join(json.dumps(r) + "\n" for r in rows)})
    result = cli(corpus_repo, "import", "rows.jsonl", "--set", "docs", "--format", "jsonl")
    assert result.code == 0, result.err
    assert "sealed 1 holdout item(s) on arrival (q-7)" in result.out
    text = (corpus_repo / "sets" / "docs.yaml").read_text()
    assert QUESTION not in text and "restocking fee" in text


@pytest.mark.parametrize("with_key", [False, True], ids=["without the key", "with the key"])
def test_promote_without_the_key_leaves_tuning_drafts_unassigned(  # type: ignore[no-untyped-def]
    cli,
    corpus_repo: Path,
    sealed: tuple[Path, str],
    monkeypatch: pytest.MonkeyPatch,
    with_key: bool,
) -> None:
    """Without the key, a draft the split rule put in tuning could repeat a sealed holdout
    question (nothing could compare them), and, once active, go to the tuners with the
    tuning export; `split` leaves such items without a side, and promote now does too."""
    config = corpus_repo / "evalset.toml"
    config.write_text(config.read_text().replace("ratio = 0.9", "ratio = 0.01"))  # tuning
    record = {"question": QUESTION, "trace": "tr-1", "category": "direct-lookup"}
    write_files(corpus_repo, {"failures.jsonl": json.dumps(record) + "\n"})
    if with_key:
        monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(sealed[0]))
    result = cli(corpus_repo, "promote", "failures.jsonl", "--set", "docs", "--json")
    assert result.code == 0, result.err
    added = json.loads(result.out)["added"]
    assert [a["holdout"] for a in added] == [False if with_key else None]
