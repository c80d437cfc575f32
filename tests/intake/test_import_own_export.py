"""A set's own export, imported back, is compared with the set as its format shows the
items: nothing a format cannot carry is taken for a difference (a Ragas row runs the key
points together and has no must_not_say or answer), while a change of what it does carry is
a conflict. Ragas rows always arrive as drafts to review."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, make_git_repo
from evalset.sets.setfile import load_set

FORMATS = ["jsonl", "csv", "langsmith", "ragas"]


def example_copy(tmp_path: Path) -> Path:
    """A copy of the example workspace: corpus, snapshots and the set."""
    repo = make_git_repo(tmp_path / "copy")
    for folder in ("corpus", "snapshots", "sets"):
        shutil.copytree(ROOT / folder, repo / folder)
    (repo / "evalset.toml").write_text('sets = "sets"\ncorpus = "corpus"\n')
    return repo


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return example_copy(tmp_path)


def exported(cli, repo: Path, fmt: str) -> Path:  # type: ignore[no-untyped-def]
    out = repo.parent / f"export.{fmt}"
    result = cli(repo, "export", "acme-support", "--allow-stale", "--split", "all",
                 "--format", fmt, "-o", str(out))  # fmt: skip
    assert result.code == 0, result.err
    return out


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_sets_own_export_imported_back_is_there_already(cli, workspace: Path, fmt: str) -> None:  # type: ignore[no-untyped-def]
    source = exported(cli, workspace, fmt)
    rows = len([line for line in source.read_text().splitlines() if line.strip()])
    rows -= 1 if fmt == "csv" else 0  # the header
    skipped = imported_back(cli, workspace, source, fmt)
    assert set(skipped.values()) == {"the set has this item already"}
    assert len(skipped) == rows


def imported_back(cli, workspace: Path, source: Path, fmt: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """Import ``source`` into the example set, which it must leave as it was, adding nothing
    and finding no conflict: the rows skipped, with why."""
    path = workspace / "sets" / "acme-support.yaml"
    before = path.read_bytes()
    result = cli(workspace, "import", str(source), "--set", "acme-support", "--format", fmt,
                 "--json")  # fmt: skip
    assert result.code == 0, result.out + result.err
    report = json.loads(result.out)
    assert (report["added"], report["conflicts"]) == ([], {})
    assert path.read_bytes() == before
    skipped: dict[str, str] = report["skipped"]
    return skipped


RAGAS_EDITS = [
    ("reference", "Damaged items can be returned within 60 days.", "key_points"),
    ("category", "paraphrased", "category"),
    ("split", "holdout", "holdout"),
    ("answerable", False, "answerable, expected_sources, key_points"),
    ("reference_context_ids", ["policies/returns.md"], "expected_sources, key_points"),
    ("user_input", "How long do I have to send back a broken item?", "question"),
]


@pytest.mark.parametrize(("key", "value", "fields"), RAGAS_EDITS, ids=[e[0] for e in RAGAS_EDITS])
def test_a_ragas_row_changed_in_what_it_carries_is_a_conflict(  # type: ignore[no-untyped-def]
    cli, workspace: Path, key: str, value: object, fields: str
) -> None:
    source = exported(cli, workspace, "ragas")
    rows = [json.loads(line) for line in source.read_text().splitlines()]
    row = next(r for r in rows if r["evalset_id"] == "q-001")
    source.write_text(json.dumps({**row, key: value}) + "\n")
    path = workspace / "sets" / "acme-support.yaml"
    before = path.read_bytes()
    result = cli(workspace, "import", str(source), "--set", "acme-support", "--format", "ragas")
    assert result.code == 1, result.out + result.err
    assert f"conflict q-001: line 1: the set has q-001 with other content ({fields})" in result.out
    assert path.read_bytes() == before


def test_ragas_rows_arrive_as_drafts_whatever_labels_they_carry(cli, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    source = exported(cli, workspace, "ragas")
    kept = [json.loads(line) for line in source.read_text().splitlines()]
    result = cli(workspace, "import", str(source), "--set", "brought", "--format", "ragas",
                 "--json")  # fmt: skip
    assert result.code == 0, result.out + result.err
    report = json.loads(result.out)
    assert sorted(report["drafts"]) == sorted(report["added"]) == sorted(r["evalset_id"]
                                                                         for r in kept)  # fmt: skip
    items = load_set(workspace / "sets" / "brought.yaml").items
    assert {i.status for i in items} == {"draft"}
    declines = next(i for i in items if not i.answerable)  # labels kept, for the review
    assert declines.key_points == [] and declines.category
    assert cli(workspace, "validate", "brought").code == 0


def test_key_points_longer_together_than_a_text_may_be_come_back_from_ragas(  # type: ignore[no-untyped-def]
    cli, workspace: Path
) -> None:
    """A Ragas reference runs an item's key points together: two of 12,000 characters made
    one of 24,000, longer than an item's text may be. Before, the set's own export was
    refused on import ("fix the row"), and a row of the item's id with other content
    crashed the comparison."""
    from evalset.sets.editor import edit_set

    path = workspace / "sets" / "acme-support.yaml"
    item = next(i for i in load_set(path).items if i.id == "q-001")
    sources = [str(c) for c in item.key_points[0].sources]
    long = [f"{'Damaged items may be returned. ' * 387}Point {n}" for n in (1, 2)]
    with edit_set(path) as editor:
        editor.update_item("q-001", {"key_points": [{"text": t, "sources": sources} for t in long]})
    before = path.read_bytes()
    source = exported(cli, workspace, "ragas")
    done = cli(workspace, "import", str(source), "--set", "acme-support", "--format", "ragas",
               "--json")  # fmt: skip
    assert done.code == 0, done.out + done.err
    assert json.loads(done.out)["added"] == [] and path.read_bytes() == before
    row = next(json.loads(line) for line in source.read_text().splitlines()
               if json.loads(line)["evalset_id"] == "q-001")  # fmt: skip
    source.write_text(json.dumps({**row, "reference": "Within 30 days."}) + "\n")
    done = cli(workspace, "import", str(source), "--set", "acme-support", "--format", "ragas")
    assert done.code == 1 and "conflict q-001: line 1" in done.out, done.out + done.err
    source.write_text(json.dumps(row) + "\n")  # into a new set: the key points, as prose
    brought = cli(workspace, "import", str(source), "--set", "brought", "--format", "ragas")
    assert brought.code == 0, brought.err
    again = next(i for i in load_set(workspace / "sets" / "brought.yaml").items if i.id == "q-001")
    assert " ".join(p.text for p in again.key_points) == " ".join(t.rstrip(".") + "." for t in long)


HOSTILE = {
    "carriage return": "\r",
    "CR LF": "\r\n",
    "line feed": "\n",
    "vertical tab": "\x0b",
    "form feed": "\x0c",
    "file, group, record and unit separators": "\x1c\x1d\x1e\x1f",
    "next line": "\x85",
    "line and paragraph separators": "\u2028\u2029",
    "other C0 controls": "\x01\x07\x08\x1b",
    "delete and C1 controls": "\x7f\x80\x9f",
    "byte order mark": "\ufeff",
    "zero-width space and joiner": "\u200b\u200d",
    "right-to-left override": "\u202e",
    "quotes": '"\'""',
    "separators": ",;\t|",
    "an emoji": "\U0001f600",
    "a formula mark": "=",
}
"""Characters a CSV writer or reader may take for structure, or drop."""


@pytest.mark.parametrize("char", list(HOSTILE.values()), ids=list(HOSTILE))
def test_every_character_survives_the_csv_round_trip(cli, workspace: Path, char: str) -> None:  # type: ignore[no-untyped-def]
    """Whatever text the set holds, import reads back its own CSV export: the rows are the
    set's items, with the same content."""
    from evalset.sets.editor import edit_set

    path = workspace / "sets" / "acme-support.yaml"
    with edit_set(path) as editor:
        editor.update_item("q-001", {
            "question": f"{char}Can I return {char} a damaged item?{char}",
            "answer": f"{char}yes{char}",
            "must_not_say": [f"{char}never{char}"],
        })  # fmt: skip
    source = exported(cli, workspace, "csv")
    before = path.read_bytes()
    result = cli(workspace, "import", str(source), "--set", "acme-support", "--format", "csv",
                 "--json")  # fmt: skip
    assert result.code == 0, result.out + result.err
    report = json.loads(result.out)
    assert (report["added"], report["conflicts"]) == ([], {})
    assert report["skipped"]["q-001"] == "the set has this item already"
    assert path.read_bytes() == before


def test_a_nul_character_is_refused_by_the_csv_export_not_by_import(cli, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    """Before, the CSV export wrote the NUL byte (exit 0), and import refused its own export
    as no text file. No CSV reader takes one back, so the export refuses it, naming the
    item; JSONL escapes it."""
    from evalset.sets.editor import edit_set

    path = workspace / "sets" / "acme-support.yaml"
    with edit_set(path) as editor:
        editor.update_item("q-001", {"question": "Can I return\x00 a damaged item?"})
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "\\0" in text)
    out = workspace.parent / "export.csv"
    done = cli(workspace, "export", "acme-support", "--allow-stale", "--format", "csv",
               "-o", str(out))  # fmt: skip
    assert done.code == 2
    assert done.err == (
        f"evalset: sets/acme-support.yaml:{line}:5: item q-001: question holds a NUL "
        "character (U+0000), which a CSV file cannot carry (`evalset import`, as most "
        "programs, takes a file holding one for no text file); remove it from the item, or "
        "export as jsonl, which escapes it.\n"
    )
    assert not out.exists()
    source = exported(cli, workspace, "jsonl")
    back = cli(workspace, "import", str(source), "--set", "acme-support", "--format", "jsonl",
               "--json")  # fmt: skip
    assert back.code == 0, back.err
    assert json.loads(back.out)["skipped"]["q-001"] == "the set has this item already"


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "langsmith"])
def test_a_sealed_sets_own_export_imported_back_without_the_key_is_there_already(  # type: ignore[no-untyped-def]
    cli, workspace: Path, fmt: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The holdout exported, then sealed: without the key, each holdout row was a conflict
    ("sealed, so its content cannot be compared without the key"), exit 1, though the
    fingerprint a sealed item shows tells its content."""
    from pyrage import x25519

    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    out = tmp_path / f"holdout.{fmt}"
    done = cli(workspace, "export", "acme-support", "--allow-stale", "--split", "holdout",
               "--format", fmt, "-o", str(out))  # fmt: skip
    assert done.code == 0, done.err
    key = str(x25519.Identity.generate().to_public())
    assert cli(workspace, "seal", "acme-support", "--recipient", key).code == 0
    skipped = imported_back(cli, workspace, out, fmt)
    assert len(skipped) == 9
    assert set(skipped.values()) == {
        "the set has this item already (sealed, the same content by its fingerprint)"
    }
