"""A small scoring workspace: a git repository with a corpus whose sections nest, a snapshot
of it, and a set of three categories verified against that snapshot.

guide.md: guide (1) > returns (2) > damaged-returns (3); shipping (2); payments (2)
faq.md:   text before the first heading; faq (1) > contact (2), hours (2)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import commit_all, make_git_repo, write_files
from evalset.corpus.snapshot import take_snapshot

GUIDE = """\
# Guide

Intro text for the guide.

## Returns

Return within 14 days of delivery, unused and in the original box.

### Damaged returns

Damaged items can be returned within **30 days** with a photo of the damage.

## Shipping

Shipping costs 4.95 below fifty euros and is free above.

## Payments

We accept cards, bank transfers and gift cards.
"""

FAQ = """\
Welcome to the frequently asked questions.

# FAQ

## Contact

Call us on weekdays or write to the support address.

## Hours

The shop is open from nine to five, Monday to Saturday.
"""

ITEMS: dict[str, tuple[str, bool, list[str]]] = {
    # id: (category, holdout, expected sources)
    "a1": ("lookup", False, ["guide.md#returns"]),
    "a2": ("lookup", False, ["guide.md#shipping"]),
    "a3": ("lookup", True, ["faq.md#hours"]),
    "m1": ("multi", False, ["guide.md#payments", "faq.md#contact"]),
    "m2": ("multi", True, ["guide.md#damaged-returns", "guide.md#shipping"]),
}


QUESTIONS = {
    "a1": "How long do I have to send something back?",
    "a2": "What does delivery cost me?",
    "a3": "When is the shop open?",
    "m1": "Can I pay by card and whom do I call about it?",
    "m2": "My parcel arrived broken: what now, and who pays the postage?",
    "a4": "Is there an intro to this guide?",
}


def set_text(snapshot: str, items: dict[str, tuple[str, bool, list[str]]] | None = None) -> str:
    out = [
        "evalset: 1\nname: docs\n",
        "categories:\n  lookup: one section\n  multi: two sections\n  refuse: cannot answer\n",
        "items:\n",
    ]
    for ident, (category, holdout, sources) in (items or ITEMS).items():
        cited = ", ".join(sources)
        out.append(
            f"  - id: {ident}\n"
            f"    question: {json.dumps(QUESTIONS[ident])}\n"
            f"    category: {category}\n"
            f"    expected_sources: [{cited}]\n"
            f"    key_points:\n"
            f"      - text: The fact {ident} asks about\n"
            f"        sources: [{cited}]\n"
            f"    holdout: {'true' if holdout else 'false'}\n"
            f"    verified: {snapshot}\n"
        )
    out.append(
        "  - id: r1\n    question: What is the weather on Mars?\n    category: refuse\n"
        f"    answerable: false\n    holdout: false\n    verified: {snapshot}\n"
        "  - id: r2\n    question: Who won the cup final?\n    category: refuse\n"
        f"    answerable: false\n    holdout: true\n    verified: {snapshot}\n"
        "  - id: d1\n    question: A draft question nobody checked yet?\n    status: draft\n"
        "  - id: x1\n    question: An old question kept for history?\n    category: lookup\n"
        "    expected_sources: [guide.md#returns]\n    key_points:\n"
        "      - text: Old fact\n        sources: [guide.md#returns]\n"
        "    status: retired\n    holdout: false\n"
    )
    return "".join(out)


def make_workspace(root: Path) -> tuple[Path, str]:
    repo = make_git_repo(root)
    write_files(
        repo,
        {
            "evalset.toml": "[validate]\nmin_per_category = 0\n",
            ".gitignore": "/.evalset/\n/reports/*\n!/reports/accepted/\n",
            "corpus/guide.md": GUIDE,
            "corpus/faq.md": FAQ,
            "corpus/notes.txt": "Plain notes without any heading.\n",
        },
    )
    snapshot = take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset").short
    write_files(repo, {"sets/docs.yaml": set_text(snapshot)})
    commit_all(repo, "scoring workspace")
    return repo, snapshot


@pytest.fixture
def score_ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "repo")[0]


def write_run(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


RUN: list[dict[str, Any]] = [
    {"id": "a1", "retrieved": ["faq.md#hours", "guide.md#damaged-returns"]},
    {"id": "a2", "retrieved": ["guide.md#shipping", "guide.md#shipping"]},
    {"id": "a3", "retrieved": ["guide.md#returns"]},
    {"id": "m1", "retrieved": ["faq.md#contact", "guide.md", "guide.md#payments"]},
    {"id": "m2", "retrieved": ["guide.md#returns", "guide.md#damaged-returns"]},
    {"id": "r1", "retrieved": []},
    {"id": "d1", "retrieved": ["guide.md"]},
    {"id": "x1", "retrieved": ["guide.md#returns"]},
]
"""The hand-scored run of test_metrics.py."""
