"""`verify` refused over citations points at the command that explains them: `stale` for a
citation that resolved in the item's snapshot and no longer does, `validate` for one that
never resolved (an unverified item's, a typo), so neither sends the user back to the other."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import commit_all

SET = Path("sets/acme-support.yaml")
VALIDATE = "`evalset validate acme-support` names them"
STALE = "`evalset stale` shows what changed"


def unverified_with_a_missing_document(text: str) -> str:
    head, tail = text.split("  - id: q-002", 1)
    head = head.replace("    verified: 301688de6b37\n", "")
    return head.replace("policies/returns.md#damaged-items", "policies/sizes.md") + (
        "  - id: q-002" + tail
    )


def verified_with_a_misspelt_section(text: str) -> str:
    head, tail = text.split("  - id: q-002", 1)
    return head.replace("#damaged-items", "#damaged-itemz") + "  - id: q-002" + tail


CASES = [
    # (name, edit of the set, items to verify, the pointer)
    ("unverified, a document never there", unverified_with_a_missing_document, ["q-001"],
     VALIDATE),
    ("verified, a section misspelt", verified_with_a_misspelt_section, ["q-001"], VALIDATE),
    ("verified, a section gone since", None, ["q-011"], STALE),
    ("both", verified_with_a_misspelt_section, ["q-001", "q-011"], f"{VALIDATE} and {STALE}"),
]  # fmt: skip


@pytest.mark.parametrize(("edit", "ids", "pointer"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_verify_points_at_the_command_that_names_the_bad_citations(  # type: ignore[no-untyped-def]
    cli, example: Path, edit, ids: list[str], pointer: str
) -> None:
    if edit is not None:
        (example / SET).write_text(edit((example / SET).read_text("utf-8")), "utf-8")
        commit_all(example, "an edit")
    before = (example / SET).read_bytes()
    result = cli(example, "verify", "acme-support", *ids)
    assert result.code == 2
    assert result.err.rstrip().endswith(f"; fix the citations first ({pointer}).")
    assert (example / SET).read_bytes() == before
