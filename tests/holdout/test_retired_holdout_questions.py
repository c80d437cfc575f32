"""A holdout question the set no longer uses (retired, or deleted since its last release)
stays held out for every command that gives an item a side: no one tuning prompts has seen
it. Before, `split` and `promote` put a new copy of it in tuning, `import` took a tuning
row asking it, and `split --move` put a copy there; `validate` called that a leak only
until the retirement was released, and then said nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import GIT_ENV, SET_HEADER, commit_all, write_files

CORPUS = {"corpus/policy.md": "# Policy\n\n## Returns\n\nReturn within 14 days of delivery.\n"}
SOURCE = "policy.md#returns"
HELD = "How long is the window for sending back a parcel?"
COPY = "How long is the window for sending back a parcel, please?"


def entry(ident: str, question: str, holdout: bool) -> str:
    return (
        f"  - id: {ident}\n    question: {question}\n    category: direct-lookup\n"
        f"    holdout: {str(holdout).lower()}\n"
        f"    expected_sources: [{SOURCE}]\n    key_points:\n"
        f"      - text: The fact {ident} asks about\n        sources: [{SOURCE}]\n"
    )


RELEASED = (
    entry("q-1", HELD, True)
    + entry("q-2", "Which courier picks up the returned goods?", False)
    + entry("q-3", "Can a voucher be exchanged for cash at the till?", False)
)


def _retire(path: Path) -> None:
    text = path.read_text()
    at = text.index("    holdout: true\n", text.index("  - id: q-1\n"))
    path.write_text(text[:at] + "    status: retired\n" + text[at:])


def _delete(path: Path) -> None:
    text = path.read_text()
    start = text.index("  - id: q-1\n")
    path.write_text(text[:start] + text[text.index("  - id: q-2\n") :])


# How q-1, holdout at release 0.1.0, left the set: (edit, released since). (A deletion
# released is forgotten: the last release is what a deleted item is looked for in.)
GONE = {
    "retired": (_retire, False),
    "retired, and the retirement released": (_retire, True),
    "deleted": (_delete, False),
}


@pytest.fixture(params=list(GONE))
def gone(  # type: ignore[no-untyped-def]
    request: pytest.FixtureRequest, corpus_repo: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A set released as 0.1.0 with q-1 in the holdout, which then left it (committed, and
    released as 0.2.0 where the case says so), in a workspace whose split ratio is 0: every
    item gets tuning unless a question it repeats holds it in the holdout. Returns the
    workspace."""
    for name, value in GIT_ENV.items():  # the release commits and tags in-process
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    edit, released = GONE[request.param]
    write_files(corpus_repo, CORPUS)
    (corpus_repo / "evalset.toml").write_text(
        "[split]\nratio = 0\n[validate]\nmin_per_category = 0\n"
    )
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(SET_HEADER + RELEASED)
    assert cli(corpus_repo, "snapshot").code == 0
    assert cli(corpus_repo, "verify", "docs", "--all").code == 0
    commit_all(corpus_repo, "a set")
    assert cli(corpus_repo, "release", "docs", "--bump", "minor").code == 0
    edit(path)
    commit_all(corpus_repo, "q-1 is no longer used")
    if released:
        done = cli(corpus_repo, "release", "docs", "--bump", "minor")
        assert done.code == 0, done.err
    return corpus_repo


def _side(root: Path, ident: str) -> bool | None:
    from evalset.sets.setfile import load_set

    loaded = load_set(root / "sets" / "docs.yaml")
    return next(e.holdout for e in loaded.entries if e.id == ident)


def _split(root: Path, cli) -> str:  # type: ignore[no-untyped-def]
    with (root / "sets" / "docs.yaml").open("a") as out:
        out.write(f"  - id: copy\n    question: {COPY}\n    category: direct-lookup\n"
                  "    status: draft\n")  # fmt: skip
    done = cli(root, "split", "docs")
    assert done.code == 0, done.err
    return "copy"


def _promote(root: Path, cli) -> str:  # type: ignore[no-untyped-def]
    record = {"question": COPY, "trace": "t-1", "category": "direct-lookup"}
    (root / "failures.jsonl").write_text(json.dumps(record) + "\n")
    done = cli(root, "promote", "failures.jsonl", "--set", "docs", "--json")
    assert done.code == 0, done.err
    (added,) = json.loads(done.out)["added"]
    return str(added["id"])


def _import_unassigned(root: Path, cli) -> str:  # type: ignore[no-untyped-def]
    row = {"id": "copy", "question": COPY, "category": "direct-lookup"}
    (root / "rows.jsonl").write_text(json.dumps(row) + "\n")
    assert cli(root, "import", "rows.jsonl", "--set", "docs", "--format", "jsonl").code == 0
    done = cli(root, "split", "docs")
    assert done.code == 0, done.err
    return "copy"


# The commands that give a new copy of q-1's question a side.
ASSIGN = {"split": _split, "promote": _promote, "import, then split": _import_unassigned}


@pytest.mark.parametrize("command", ASSIGN)
def test_a_copy_of_a_holdout_question_no_longer_used_goes_to_the_holdout(  # type: ignore[no-untyped-def]
    gone: Path, cli, command: str
) -> None:
    ident = ASSIGN[command](gone, cli)
    assert _side(gone, ident) is True
    done = cli(gone, "validate", "docs")
    assert "leak" not in done.out, done.out


def test_a_tuning_copy_written_by_hand_is_a_leak_for_validate(gone: Path, cli) -> None:  # type: ignore[no-untyped-def]
    with (gone / "sets" / "docs.yaml").open("a") as out:
        out.write(entry("copy", COPY, False))
    assert cli(gone, "verify", "docs", "copy").code == 0
    done = cli(gone, "validate", "docs")
    assert done.code == 1
    assert "item copy: question: error: near duplicate of item 'q-1', " in done.out, done.out
    assert ": the holdout question has leaked into tuning" in done.out


def test_import_refuses_a_tuning_row_asking_it(gone: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = gone / "sets" / "docs.yaml"
    before = path.read_bytes()
    rows = [
        {"id": "q-8", "question": "Is gift wrapping sent abroad?", "split": "tuning"},
        {"id": "copy", "question": COPY, "category": "direct-lookup", "split": "tuning"},
    ]  # fmt: skip
    (gone / "rows.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    for dry in ([], ["--dry-run"]):
        done = cli(gone, "import", "rows.jsonl", "--set", "docs", "--format", "jsonl", *dry)
        assert done.code == 2, done.out
        assert done.err == (
            "evalset: rows.jsonl:2: the row is for tuning, but its question is a near "
            "duplicate of that of item 'q-1', a holdout item the set no longer uses (retired, "
            "or deleted since its last release), whose question no one tuning prompts has "
            "seen: in tuning the row would leak it; give the row the split holdout, or none "
            "for `evalset split` to choose, and import again (nothing was imported).\n"
        )
        assert path.read_bytes() == before


def test_split_refuses_to_move_a_copy_to_tuning(gone: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = gone / "sets" / "docs.yaml"
    with path.open("a") as out:
        out.write(f"  - id: copy\n    question: {COPY}\n    category: direct-lookup\n"
                  "    status: draft\n")  # fmt: skip
    before = path.read_bytes()
    deleted = "  - id: q-1\n" not in path.read_text()
    done = cli(gone, "split", "docs", "--move", "copy", "--to", "tuning")
    assert done.code == 2
    assert done.err.startswith(
        f"evalset: sets/docs.yaml: item copy's question is a near duplicate of q-1's, which is "
        f"holdout {'at the last release (deleted since)' if deleted else '(retired)'}"
        ": moved to tuning, the holdout question would have leaked"
    ), done.err
    assert path.read_bytes() == before


@pytest.mark.parametrize("gone", [k for k in GONE if k.startswith("retired")], indirect=True)
def test_without_the_key_a_sealed_retired_holdout_item_keeps_a_copy_out_of_tuning(  # type: ignore[no-untyped-def]
    gone: Path, cli, key: tuple[Path, str]
) -> None:
    """Its question cannot be read, so whether the new item repeats it cannot be told: the
    item is left unassigned, as beside a sealed holdout item in use."""
    assert cli(gone, "seal", "docs", "--recipient", key[1]).code == 0
    commit_all(gone, "sealed")
    with (gone / "sets" / "docs.yaml").open("a") as out:
        out.write(f"  - id: copy\n    question: {COPY}\n    category: direct-lookup\n")
    done = cli(gone, "split", "docs", "--json")
    assert done.code == 0, done.err
    assert json.loads(done.out)["unchecked"] == ["copy"]
    assert _side(gone, "copy") is None


def test_import_refuses_a_holdout_row_asking_a_retired_tuning_question(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli
) -> None:
    """The other side of the rule: the people tuning prompts saw a retired tuning question
    (`split` keeps its near duplicates in tuning, and `validate` calls one in the holdout a
    leak)."""
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(SET_HEADER + RELEASED)
    assert cli(corpus_repo, "retire", "docs", "q-2", "--reason", "asked otherwise").code == 0
    before = path.read_bytes()
    row = {"question": "Which courier picks up the returned goods, please?", "split": "holdout"}
    (corpus_repo / "rows.jsonl").write_text(json.dumps(row) + "\n")
    done = cli(corpus_repo, "import", "rows.jsonl", "--set", "docs", "--format", "jsonl")
    assert done.code == 2
    assert done.err == (
        "evalset: rows.jsonl:1: the row is for holdout, but its question is a near duplicate "
        "of that of item 'q-2', a retired tuning item, whose question the people tuning "
        "prompts have seen: in the holdout the row would measure nothing; give the row the "
        "split tuning, or none for `evalset split` to choose, and import again (nothing was "
        "imported).\n"
    )
    assert path.read_bytes() == before
