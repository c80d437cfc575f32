"""A cited parent section includes its subsections; stale says which of them changed, with a
word diff each, and `--json` carries the texts and diffs so CI comments can show them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SET_HEADER, commit_all, set_item, verified_items, write_files
from evalset.corpus.snapshot import take_snapshot

V1 = (
    "# Policy\n\n## Returns\n\nYou can return most items.\n\n"
    "### Damaged items\n\nDamaged items can be returned within 30 days.\n\n"
    "### Standard returns\n\nOther items within 14 days, unused.\n\n"
    "## Exchanges\n\nWe do not swap items directly; return the item and reorder it.\n\n"
    "## Gift cards\n\nGift cards expire after three years.\n"
)
V2 = V1.replace("within 30 days.", "within 60 days, with a photo.").replace(
    "## Exchanges\n\nWe do not swap items directly; return the item and reorder it.",
    "## Swapping an item\n\nWe do not swap items directly; return the item and reorder it online.",
)


def snapshot(repo: Path, store_text: bool | None = None) -> str:
    return take_snapshot(
        repo, "corpus", repo / "snapshots", repo / ".evalset", store_text=store_text
    ).short


def setup(repo: Path, v2: str = V2, store_text: bool | None = None) -> None:
    write_files(repo, {"corpus/policy.md": V1})
    commit_all(repo, "v1")
    old = snapshot(repo, store_text)
    items = (
        set_item("parent", "policy.md#returns")
        + set_item("child", "policy.md#standard-returns")
        + set_item("gone", "policy.md#exchanges")
    )
    (repo / "sets" / "docs.yaml").write_text(SET_HEADER + verified_items(items, old))
    write_files(repo, {"corpus/policy.md": v2})
    commit_all(repo, "v2")
    snapshot(repo, store_text)


def test_a_parent_citation_says_which_subsection_changed(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    setup(corpus_repo)
    result = cli(corpus_repo, "stale")
    assert result.code == 1
    lines = result.out.splitlines()
    assert "  changed    policy.md#returns (in #damaged-items)" in lines
    assert (
        "      #damaged-items: Damaged items can be returned within [-30 days.-] "
        "{+60 days, with a photo.+}"
    ) in lines
    assert "item child" not in result.out  # a sibling subsection that did not change is ok

    document = json.loads(cli(corpus_repo, "stale", "--json").out)
    parent = next(i for i in document["items"] if i["id"] == "parent")
    (citation,) = parent["citations"]
    assert citation["diff"].startswith("You can return most items. Damaged items")
    assert citation["changed_in"] == [
        {
            "section": "policy.md#damaged-items",
            "status": "changed",
            "old": "Damaged items can be returned within 30 days.",
            "new": "Damaged items can be returned within 60 days, with a photo.",
            "diff": "Damaged items can be returned within [-30 days.-] {+60 days, with a photo.+}",
        }
    ]


def test_own_text_and_added_subsections_are_named(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    v2 = V1.replace("You can return most items.", "You can return almost every item.").replace(
        "## Exchanges", "### Final sale\n\nSale items cannot be returned.\n\n## Exchanges"
    )
    setup(corpus_repo, v2)
    document = json.loads(cli(corpus_repo, "stale", "--json").out)
    parent = next(i for i in document["items"] if i["id"] == "parent")
    parts = parent["citations"][0]["changed_in"]
    assert [(p["section"], p["status"]) for p in parts] == [
        ("policy.md#returns", "changed"),
        ("policy.md#final-sale", "added"),
    ]
    assert parts[0]["diff"] == "You can return [-most items.-] {+almost every item.+}"
    assert parts[1]["old"] is None and parts[1]["new"] == "Sale items cannot be returned."
    text = cli(corpus_repo, "stale").out
    assert "  changed    policy.md#returns (in #returns (own text), #final-sale)" in text
    assert "      #final-sale (added): Sale items cannot be returned." in text


def test_deleted_shows_the_old_text_who_cites_it_and_the_best_candidate(
    corpus_repo: Path, cli
) -> None:  # type: ignore[no-untyped-def]
    setup(corpus_repo)
    text = cli(corpus_repo, "stale").out.splitlines()
    assert ("  deleted    policy.md#exchanges (similar: policy.md#swapping-an-item)") in text
    assert "      was: We do not swap items directly; return the item and reorder it." in text
    assert "      cited by key point 1: The fact gone asks about" in text
    assert (
        "      against policy.md#swapping-an-item: We do not swap items directly; return the "
        "item and reorder [-it.-] {+it online.+}"
    ) in text
    document = json.loads(cli(corpus_repo, "stale", "--json").out)
    gone = next(i for i in document["items"] if i["id"] == "gone")
    (citation,) = gone["citations"]
    assert citation["old_text"] == "We do not swap items directly; return the item and reorder it."
    assert citation["candidate"]["citation"] == "policy.md#swapping-an-item"
    assert citation["candidate"]["diff"].endswith("reorder [-it.-] {+it online.+}")
    assert citation["cited_by"] == {
        "expected_sources": True,
        "key_points": [{"index": 0, "text": "The fact gone asks about"}],
    }


def test_markdown_carries_the_same_details(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    setup(corpus_repo)
    md = cli(corpus_repo, "stale", "--format", "md").out
    assert "| docs | `parent` | `policy.md#returns` | changed | in #damaged-items |" in md
    assert "<details><summary>parent: policy.md#returns (changed)</summary>" in md
    assert "#damaged-items: Damaged items can be returned within ~~30 days.~~ **60 days" in md
    assert "<details><summary>gone: policy.md#exchanges (deleted)</summary>" in md
    assert "against policy.md#swapping-an-item:" in md


@pytest.mark.parametrize("store_text", [False])
def test_subsections_from_git_when_snapshots_store_no_text(
    corpus_repo: Path, cli, store_text: bool
) -> None:  # type: ignore[no-untyped-def]
    setup(corpus_repo, store_text=store_text)
    text = cli(corpus_repo, "stale").out
    assert "  changed    policy.md#returns (in #damaged-items)" in text
    assert "{+60 days, with a photo.+}" in text


def test_a_holdout_items_key_points_are_not_printed(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """stale reports go to CI logs and pull-request comments that tuners read."""
    setup(corpus_repo)
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("  - id: gone\n", "  - id: gone\n    holdout: true\n"))
    out = cli(corpus_repo, "stale").out + cli(corpus_repo, "stale", "--format", "md").out
    assert "The fact gone asks about" not in out
    assert "cited by key point 1: (a holdout item: not shown)" in out
    document = json.loads(cli(corpus_repo, "stale", "--json").out)
    gone = next(i for i in document["items"] if i["id"] == "gone")
    assert gone["citations"][0]["cited_by"]["key_points"] == [{"index": 0}]


# The same boilerplate subsection under two sections (anchors numbered in document order):
# which one changed under the cited section. (the edit of V_ALIKE, the parts of #returns)
V_ALIKE = (
    "# Policy\n\n## Returns\n\nReturn within 14 days.\n\n### Exceptions\n\nNone.\n\n"
    "## Shipping\n\nShips in 2 days.\n\n### Exceptions\n\nNone.\n"
)
ALIKE_EDITS = {
    "the returns' exceptions": (
        ("None.\n\n## Shipping", "Sale items cannot be returned.\n\n## Shipping"),
        [("policy.md#exceptions", "changed")],
    ),
    "the returns' own text": (
        ("within 14 days", "within 30 days"),
        [("policy.md#returns", "changed")],
    ),
}


@pytest.mark.parametrize("edit", ALIKE_EDITS)
def test_a_subsection_repeated_under_another_section_is_not_taken_for_one(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, edit: str
) -> None:
    """Before, subsections were found by their text inside the parent's: the shipping's
    `### Exceptions` (`exceptions-1`), alike, was said removed from #returns."""
    (old, new), parts = ALIKE_EDITS[edit]
    write_files(corpus_repo, {"corpus/policy.md": V_ALIKE})
    verified = snapshot(corpus_repo)
    item = set_item("parent", "policy.md#returns")
    (corpus_repo / "sets" / "docs.yaml").write_text(SET_HEADER + verified_items(item, verified))
    write_files(corpus_repo, {"corpus/policy.md": V_ALIKE.replace(old, new, 1)})
    snapshot(corpus_repo)
    (citation,) = json.loads(cli(corpus_repo, "stale", "--json").out)["items"][0]["citations"]
    assert [(p["section"], p["status"]) for p in citation["changed_in"]] == parts
