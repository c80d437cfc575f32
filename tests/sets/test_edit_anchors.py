"""YAML anchors and aliases inside an item stay as written when an edit changes the item.

Before, an anchor on a mapping or a list that no alias used (``- &faq`` on an item, written
on a line of its own or on a flow-style item) was dropped by every edit of that item
(retire, verify, split): the YAML library writes such an anchor only when an alias uses it.
A merge key (``<<: *kp``), which YAML 1.2 readers such as evalset's take for a key, is
named as one, with the fix, not called an unknown field to remove."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml as pyyaml
from ruamel.yaml import YAML

from conftest import commit_all, write_files
from evalset.sets.yamlio import parse_yaml

HEADER = "evalset: 1\nname: s\ncategories:\n  direct-lookup: one section\nitems:\n"
REST = (
    "    question: What does the document say\n"
    "    category: direct-lookup\n"
    "    expected_sources: [d.md]\n"
    "    key_points:\n"
    "      - text: The document\n"
    "        sources: [d.md]\n"
)
ITEMS = {
    "an anchor on the item, on the line of its dash": "  - &one\n    id: q-001\n" + REST,
    "an anchor on the item, before its first key": "  - &one id: q-001\n" + REST,
    "an anchor on the item's key points": "  - id: q-001\n"
    + REST.replace("key_points:", "key_points: &kp"),
    "an anchor and its alias": "  - id: q-001\n"
    + REST.replace("sources: [d.md]\n    key", "sources: &src [d.md]\n    key").replace(
        "sources: [d.md]\n", "sources: *src\n"
    ),
    "an anchor on a flow-style item": "  - &one {id: q-001, question: What does the document "
    "say, category: direct-lookup, expected_sources: [d.md], key_points: [{text: The "
    "document, sources: [d.md]}]}\n",
}
EDITS = {
    "retire": (("retire", "s", "q-001", "--reason", "gone"), "status: retired"),
    "verify": (("verify", "s", "q-001"), "verified: "),
    "split": (("split", "s"), "holdout: false"),
}


@pytest.mark.parametrize("edit", EDITS)
@pytest.mark.parametrize("layout", ITEMS)
def test_an_edit_keeps_the_anchors_and_aliases_of_the_item(  # type: ignore[no-untyped-def]
    one_doc_repo: Path, cli, layout: str, edit: str
) -> None:
    before = HEADER + ITEMS[layout]
    write_files(one_doc_repo, {"sets/s.yaml": before})
    commit_all(one_doc_repo, "set")
    args, added = EDITS[edit]
    done = cli(one_doc_repo, *args)
    assert done.code == 0, done.err
    after = (one_doc_repo / "sets" / "s.yaml").read_text()
    kept = before.removesuffix("}\n") if before.endswith("}\n") else before
    assert after.startswith(kept), after
    assert added in after[len(kept) :] and after[len(kept) :].count("\n") == 1
    readings = [
        YAML(typ="rt", pure=True).load(after),
        parse_yaml(after, Path("s.yaml")),
        pyyaml.safe_load(after),
    ]
    assert len({json.dumps(r, sort_keys=True) for r in readings}) == 1


def test_a_merge_key_is_named_with_its_fix(one_doc_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    item = "  - id: q-001\n" + REST.replace(
        "      - text: The document\n        sources: [d.md]\n",
        "      - &kp\n        text: The document\n        sources: [d.md]\n"
        "      - <<: *kp\n        text: The document again\n",
    )
    write_files(one_doc_repo, {"sets/s.yaml": HEADER + item})
    done = cli(one_doc_repo, "validate", "s")
    assert done.code == 1
    assert done.out.splitlines()[0] == (
        "sets/s.yaml:14:9: item q-001: key_points[1].<<: error: a YAML merge key (`<<: *name`), "
        "which YAML 1.2 readers do not merge (write out the fields it would merge in its "
        "place: readers that merge and readers that do not read this item differently)"
    )
