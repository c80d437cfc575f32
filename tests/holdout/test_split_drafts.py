"""Drafts never take holdout slots: shares are computed over active items."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalset.holdout.split import plan_split
from evalset.sets.model import Item
from evalset.sets.setfile import parse_set
from evalset.sets.validate import check_set


def item(ident: str, status: str = "active", holdout: bool | None = None) -> Item:
    return Item(
        id=ident,
        question=f"Question {ident}?",
        category="lookup",
        status=status,  # type: ignore[arg-type]
        holdout=holdout,
    )


def test_a_pre_assigned_draft_does_not_fill_the_holdout_slot() -> None:
    """Five active items and one holdout draft at 20 %: one active item must be held out,
    because the draft may never be completed."""
    items = [item(f"a-{n}") for n in range(5)] + [item("d-1", "draft", holdout=True)]
    plan = plan_split(items, 0.2)
    assert len(plan.holdout) == 1 and plan.holdout[0].startswith("a-")
    assert plan.shares == {"lookup": (1, 5)}


def test_drafts_get_sides_that_keep_the_ratio_once_active() -> None:
    items = [item(f"a-{n}", holdout=n == 0) for n in range(4)] + [
        item(f"d-{n}", "draft") for n in range(6)
    ]
    plan = plan_split(items, 0.2)
    # 10 items at 20 %: two holdout in all, one of them active already.
    assert [i for i in plan.holdout if i.startswith("d-")] != []
    assert len(plan.holdout) == 1 and len(plan.tuning) == 5
    assert plan.shares == {"lookup": (1, 4)}


def test_validate_warns_when_only_a_draft_is_holdout() -> None:
    text = (
        "evalset: 1\nname: docs\ncategories:\n  lookup: a fact\nitems:\n"
        + "".join(
            f"  - id: a-{n}\n    question: Question a-{n}?\n    category: lookup\n"
            "    answerable: false\n    holdout: false\n"
            for n in range(5)
        )
        + "  - id: d-1\n    question: A draft?\n    category: lookup\n    status: draft\n"
        "    holdout: true\n"
    )
    findings = check_set(parse_set(text, Path("docs.yaml")))
    assert [f.message for f in findings if f.rule == "coverage"] == [
        "category 'lookup' has no active holdout item, so tuning on it cannot be checked"
    ]


@pytest.mark.parametrize(
    ("side", "hint"),
    [
        ("", "run `evalset split`, which gives its items without a side one"),
        ("    holdout: false\n", "add items of this kind and run `evalset split` (it gives a "
         "side only to items without one), or move an item the tuners have not seen with "
         "`evalset split docs --move ID --to holdout --force --reason ...`"),
    ],
    ids=["items without a side", "every item in tuning"],
)  # fmt: skip
def test_no_holdout_in_a_category_is_told_a_fix_that_works(side: str, hint: str) -> None:
    """Every item in tuning already, the hint said to run split (which gives a side only to
    items without one, so did nothing) or to mark an item `holdout: true` by hand (an error:
    a move without its record)."""
    text = "evalset: 1\nname: docs\ncategories:\n  lookup: a fact\nitems:\n" + "".join(
        f"  - id: a-{n}\n    question: Question a-{n}?\n    category: lookup\n"
        f"    answerable: false\n{side}"
        for n in range(5)
    )
    findings = [f for f in check_set(parse_set(text, Path("docs.yaml"))) if f.rule == "coverage"]
    assert len(findings) == 1 and (findings[0].hint or "").startswith(hint)
