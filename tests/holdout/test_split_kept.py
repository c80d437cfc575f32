"""`split` says that items assigned before keep their side, whatever the ratio asks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

KEPT = (
    "item(s) assigned before keep their side: the target applies to unassigned items only "
    "(to move one: `evalset split acme-support --move ITEM --to SIDE --force`)"
)

CASES = [
    # (name, split first, the split's options, items kept)
    ("the example, 2 unassigned", False, [], 40),
    ("all assigned", True, [], 42),
    ("all assigned, another ratio", True, ["--ratio", "0.25"], 42),
    ("all assigned, a dry run", True, ["--ratio", "0.5", "--dry-run"], 42),
]


@pytest.mark.parametrize(("first", "options", "kept"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_split_says_how_many_items_keep_their_side(  # type: ignore[no-untyped-def]
    cli, example: Path, first: bool, options: list[str], kept: int
) -> None:
    if first:
        assert cli(example, "split", "acme-support").code == 0
    report = cli(example, "split", "acme-support", *options, "--dry-run", "--json")
    assert json.loads(report.out)["kept"] == kept
    result = cli(example, "split", "acme-support", *options)
    assert result.code == 0, result.err
    assert result.out.splitlines()[1] == f"  {kept} {KEPT}"


def test_a_set_with_no_side_given_yet_says_nothing_of_kept_items(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from conftest import EXAMPLE_SET, make_git_repo

    repo = make_git_repo(tmp_path / "fresh")
    (repo / "sets").mkdir()
    text = EXAMPLE_SET.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines(keepends=True) if "holdout:" not in line]
    (repo / "sets" / "acme-support.yaml").write_text("".join(lines), encoding="utf-8")
    result = cli(repo, "split", "sets/acme-support.yaml", "--dry-run")
    assert result.code == 0, result.err
    assert "keep their side" not in result.out
