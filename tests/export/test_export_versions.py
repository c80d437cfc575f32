"""Exports never mix corpus versions: stale items are refused (named) unless --allow-stale;
each context is the text its item was verified against; the pin names the newest
snapshot, whose text is every context of an item that is not stale, and lists the stale
items exported anyway."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import commit_all, write_files

OLD = "# Shipping\n\n## Costs\n\nShipping is free from 50 euros.\n\n## Time\n\nTwo days.\n"
NEW = OLD.replace("from 50 euros", "from 60 euros")
SET = """\
evalset: 1
name: docs
categories:
  direct-lookup: a fact
items:
  - id: q-1
    question: From which order value is shipping free?
    category: direct-lookup
    expected_sources: [shipping.md#costs]
    key_points:
      - text: Shipping is free from 50 euros
        sources: [shipping.md#costs]
    holdout: false
    verified: {first}
  - id: q-2
    question: How long does delivery take?
    category: direct-lookup
    expected_sources: [shipping.md#time]
    key_points:
      - text: Delivery takes two days
        sources: [shipping.md#time]
    holdout: false
    verified: {second}
"""


def _snapshot(cli, repo: Path) -> str:  # type: ignore[no-untyped-def]
    result = cli(repo, "snapshot", "--json")
    assert result.code == 0, result.err
    return str(json.loads(result.out)["snapshot"])


@pytest.fixture(params=[True, False], ids=["stored-text", "no-stored-text"])
def two_versions(request, cli, corpus_repo: Path) -> tuple[Path, str, str]:  # type: ignore[no-untyped-def]
    """q-1 verified against the old corpus (its section changed since: stale), q-2 against
    the new one (its section did not change, and it was verified later)."""
    if not request.param:
        config = corpus_repo / "evalset.toml"
        config.write_text("store_text = false\n" + config.read_text())
    write_files(corpus_repo, {"corpus/shipping.md": OLD})
    commit_all(corpus_repo, "old policy")
    first = _snapshot(cli, corpus_repo)
    write_files(corpus_repo, {"corpus/shipping.md": NEW})
    commit_all(corpus_repo, "new policy")
    second = _snapshot(cli, corpus_repo)
    write_files(corpus_repo, {"sets/docs.yaml": SET.format(first=first, second=second)})
    return corpus_repo, first, second


def _rows(text: str) -> dict[str, dict]:  # type: ignore[type-arg]
    return {row["evalset_id"]: row for row in map(json.loads, text.splitlines())}


def test_a_stale_item_is_refused_by_name(cli, two_versions) -> None:  # type: ignore[no-untyped-def]
    repo, _, second = two_versions
    result = cli(repo, "export", "docs", "--format", "ragas")
    assert result.code == 1 and result.out == ""  # a finding about the set, as release says
    assert result.err.strip() == (
        "evalset: sets/docs.yaml: cannot export 1 stale item(s) of docs (q-1): their labels "
        f"were checked against other text than the newest snapshot {second} has; review them "
        "(`evalset stale docs`, then `evalset verify docs ITEM…`), or pass --allow-stale to "
        "export them with the text they were verified against."
    )


def test_contexts_are_the_text_each_item_was_verified_against(cli, two_versions) -> None:  # type: ignore[no-untyped-def]
    repo, first, second = two_versions
    result = cli(repo, "export", "docs", "--format", "ragas", "--allow-stale")
    assert result.code == 0, result.err
    assert "1 stale item(s) exported with the text they were verified against (q-1)" in result.err
    rows = _rows(result.out)
    # q-1's reference says 50 euros, and so does its context: the text it was checked against.
    assert rows["q-1"]["reference_contexts"] == ["Shipping is free from 50 euros."]
    assert rows["q-2"]["reference_contexts"] == ["Two days."]
    # a Ragas file has no pin: each row names the snapshot it is of, as the note says (it
    # said "the pin lists them", of a file without one)
    assert (rows["q-1"]["verified"], rows["q-2"]["verified"]) == (first, second)
    assert "each row's `verified` names the snapshot it is of" in result.err
    jsonl = cli(repo, "export", "docs", "--format", "jsonl", "--allow-stale", "-o", "x.jsonl")
    assert "; the pin lists them under `stale`" in jsonl.err
    pin = json.loads(
        cli(repo, "export", "docs", "--format", "jsonl", "--allow-stale").out.splitlines()[0]
    )["evalset"]
    assert pin["snapshot"] == second and pin["stale"] == {"q-1": first}


def test_items_verified_against_different_snapshots_that_agree(cli, two_versions) -> None:  # type: ignore[no-untyped-def]
    """Once q-1 is re-verified, q-2's older verification still holds: its text is the same
    in both snapshots, so the newest one is the pin's, and nothing is listed as stale."""
    repo, first, second = two_versions
    path = repo / "sets" / "docs.yaml"
    path.write_text(SET.format(first=second, second=first).replace("50 euros", "60 euros"))
    result = cli(repo, "export", "docs", "--format", "jsonl")
    assert result.code == 0, result.err
    rows = [json.loads(line) for line in result.out.splitlines()]
    assert {r["verified"] for r in rows} == {first, second}
    assert all(r["evalset"]["snapshot"] == second and "stale" not in r["evalset"] for r in rows)
    ragas = _rows(cli(repo, "export", "docs", "--format", "ragas").out)
    assert ragas["q-1"]["reference_contexts"] == ["Shipping is free from 60 euros."]
    assert ragas["q-2"]["reference_contexts"] == ["Two days."]
