"""A row's citations are checked against the snapshot the row says it was verified against
(`verified`), in every format that carries it: an export with --allow-stale imports into a
new set of a workspace with the same snapshots, and a row whose `verified` snapshot lacks
what it cites is still refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_import_own_export import FORMATS, example_copy, exported

from evalset.sets.setfile import load_set

OLD, NEWEST = "301688de6b37", "0e183dc93927"
STALE = {"q-003", "q-011", "q-012", "q-022", "q-025", "q-029"}
"""The example items verified against OLD whose citations NEWEST lacks."""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return example_copy(tmp_path)


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_export_with_stale_items_imports_into_a_new_set(cli, workspace: Path, fmt: str) -> None:  # type: ignore[no-untyped-def]
    source = exported(cli, workspace, fmt)
    result = cli(workspace, "import", str(source), "--set", "brought", "--format", fmt,
                 "--json")  # fmt: skip
    assert result.code == 0, result.out + result.err
    assert set(json.loads(result.out)["added"]) >= STALE
    items = {i.id: i for i in load_set(workspace / "sets" / "brought.yaml").items}
    assert {items[ident].verified for ident in STALE} == {OLD}
    assert cli(workspace, "validate", "brought").code == 0


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_row_whose_verified_snapshot_lacks_its_citation_is_refused(  # type: ignore[no-untyped-def]
    cli, workspace: Path, fmt: str
) -> None:
    source = exported(cli, workspace, fmt)
    source.write_text(source.read_text("utf-8").replace(OLD, NEWEST), "utf-8")
    result = cli(workspace, "import", str(source), "--set", "brought", "--format", fmt)
    assert result.code == 2
    assert f"in snapshot {NEWEST}" in result.err and "(nothing was imported)" in result.err
    assert not (workspace / "sets" / "brought.yaml").exists()


def test_a_ragas_row_whose_verified_is_not_a_text_is_refused(cli, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    row = {"user_input": "How long do I have?", "evalset_id": "q-900", "verified": 301688}
    source = workspace.parent / "rows.ragas"
    source.write_text(json.dumps(row) + "\n", "utf-8")
    result = cli(workspace, "import", str(source), "--set", "brought", "--format", "ragas")
    assert result.code == 2
    assert result.err == (
        f"evalset: {source}:1: the row has verified 301688, not a text; fix it "
        "(ragas format) and import again (nothing was imported).\n"
    )
