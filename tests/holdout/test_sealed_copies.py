"""A sealed holdout written out in plain text again, in another set of the workspace.

Before, an export of the sealed holdout (made with the key) imported into a new or a plain
set wrote every holdout item in the clear, with no key needed, and `validate` (so the
pre-commit hook) said nothing of a copy pasted by hand either: a commit put the holdout
into git history."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import ROOT, commit_all
from evalset.sets.findings import Finding
from evalset.sets.setfile import load_set

NAME = "acme-support"
EXAMPLE = ROOT / "sets" / f"{NAME}.yaml"
HOLDOUT = [i for i in load_set(EXAMPLE).items if i.holdout]
FIRST = HOLDOUT[0]


@pytest.fixture
def sealed(cli, example: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch) -> Path:  # type: ignore[no-untyped-def]
    """The example with its holdout sealed and committed, and a plain set `tuners` made
    from its tuning export; the key is not set."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    assert cli(example, "seal", NAME, "--recipient", key[1]).code == 0
    export = ["export", NAME, "--format", "jsonl", "--allow-stale", "--skip-sealed"]
    assert cli(example, *export, "-o", "tuning.jsonl").code == 0
    done = cli(example, "import", "tuning.jsonl", "--set", "tuners", "--format", "jsonl")
    assert done.code == 0, done.err
    (example / "tuning.jsonl").unlink()
    commit_all(example, "sealed, and a set for the tuners")
    return example


def _export(cli, repo: Path, key: Path, fmt: str, monkeypatch: pytest.MonkeyPatch) -> str:  # type: ignore[no-untyped-def]
    """The holdout exported with the key, as its holder would; the key is unset after."""
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key))
    out = f"holdout.{fmt}"
    done = cli(repo, "export", NAME, "--split", "holdout", "--format", fmt, "--allow-stale",
               "-o", out)  # fmt: skip
    assert done.code == 0, done.err
    monkeypatch.delenv("EVALSET_AGE_IDENTITY")
    return out


BY_CONTENT = f"the row is item {FIRST.id!r} of {NAME}, which is sealed there (the same content"
BY_QUESTION = f"the row's question is a near duplicate of that of item {FIRST.id!r} of {NAME}"
# format -> (the key set for the import, what the refusal says). Every row of a Ragas export
# differs from its item (a draft, key points run together), so only its question tells.
FORMATS = {
    "jsonl": (False, BY_CONTENT),
    "csv": (False, BY_CONTENT),
    "langsmith": (False, BY_CONTENT),
    "jsonl, with the key": (True, BY_CONTENT),
    "ragas, with the key": (True, BY_QUESTION),
}
TARGETS = {"a new set": "holdout-copy", "the tuners' plain set": "tuners"}


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", FORMATS)
def test_import_refuses_a_sealed_holdout_into_a_plain_set(  # type: ignore[no-untyped-def]
    cli, sealed: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, case: str,
    target: str,
) -> None:  # fmt: skip
    fmt = case.split(",")[0]
    with_key, said = FORMATS[case]
    source = _export(cli, sealed, key[0], fmt, monkeypatch)
    if with_key:
        monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    before = {p.name: p.read_bytes() for p in (sealed / "sets").iterdir()}
    for dry in ([], ["--dry-run"]):
        done = cli(sealed, "import", source, "--set", TARGETS[target], "--format", fmt, *dry)
        assert done.code == 2, done.out
        assert re.match(rf"evalset: {re.escape(source)}:\d+: ", done.err), done.err
        assert said in done.err, done.err
        assert done.err.endswith(
            f"sets/{TARGETS[target]}.yaml would hold it in plain text, for a commit to write "
            "the sealed holdout into git history; leave the row out, or import it into a set "
            "whose holdout is sealed (nothing was imported).\n"
        )
        assert FIRST.question not in done.err
        assert {p.name: p.read_bytes() for p in (sealed / "sets").iterdir()} == before


def test_import_into_the_sealed_set_itself_adds_nothing(  # type: ignore[no-untyped-def]
    cli, sealed: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = _export(cli, sealed, key[0], "jsonl", monkeypatch)
    done = cli(sealed, "import", source, "--set", NAME, "--format", "jsonl")
    assert done.code == 0, done.err
    assert f"added 0 item(s) to sets/{NAME}.yaml" in done.out


def _reworded(text: str) -> str:
    return text.replace(f"question: {FIRST.question}", f"question: Please, {FIRST.question}", 1)


def _in_tuning(text: str) -> str:
    return text.replace("holdout: true", "holdout: false")


# A copy of the example as it was before sealing, pasted into sets/copy.yaml by hand:
# (edit, the key set, the holdout items `validate` finds copied, by content or question).
PASTED = {
    "as it was": (str, False, {i.id: "content" for i in HOLDOUT}),
    "as it was, with the key": (str, True, {i.id: "content" for i in HOLDOUT}),
    "one question reworded": (
        _reworded, False, {i.id: "content" for i in HOLDOUT if i is not FIRST}),
    "one question reworded, with the key": (
        _reworded, True, {i.id: "content" if i is not FIRST else "question" for i in HOLDOUT}),
    "moved into tuning, with the key": (_in_tuning, True, {i.id: "question" for i in HOLDOUT}),
}  # fmt: skip


@pytest.mark.parametrize("case", PASTED)
def test_validate_finds_a_plain_copy_of_another_sets_sealed_items(  # type: ignore[no-untyped-def]
    cli, sealed: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    edit, with_key, copied = PASTED[case]
    text = EXAMPLE.read_text().replace(f"name: {NAME}\n", "name: copy\n", 1)
    (sealed / "sets" / "copy.yaml").write_text(edit(text))
    if with_key:
        monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    # as the pre-commit hook runs it, on the changed file alone
    done = cli(sealed, "validate", "sets/copy.yaml", "--json")
    assert done.code == 1
    found = {
        f["item"]: "content" if f["field"] is None else "question"
        for f in json.loads(done.out)["findings"]
        if f["rule"] == "sealed-copy"
    }
    assert found == copied
    human = cli(sealed, "validate", "sets/copy.yaml")
    assert (
        f"item {FIRST.id}: error: the same content (by the fingerprint it shows) as item "
        f"{FIRST.id!r} of {NAME}, which is sealed there: in plain text, a commit would write "
        "the sealed holdout into git history (delete this item, or seal copy's holdout to "
        "keep it there: `evalset seal copy --recipient KEY`)" in human.out
    ) == (copied.get(FIRST.id) == "content")
    assert FIRST.question not in human.out
    status = json.loads(cli(sealed, "status", "--json").out)  # counts what the gate would
    (copy,) = [s for s in status["sets"] if s["name"] == "copy"]
    errors = sum(f.severity == "error" for f in _findings(sealed))
    assert copy["errors"] == errors >= len(copied)


def _findings(repo: Path) -> list[Finding]:
    from evalset.sets.validate import validate

    return validate([repo / "sets" / "copy.yaml"]).findings


# Where a holdout export is written: (-o, a .gitignore rule, whether the note is given).
WRITTEN = {
    "the clone's root": ("holdout.jsonl", None, True),
    "a folder of the clone": ("exports/holdout.jsonl", None, True),
    "a file git ignores": ("holdout.jsonl", "/holdout.jsonl\n", False),
    "a folder git ignores": ("exports/holdout.jsonl", "/exports/\n", False),
    "outside the repository": ("../holdout.jsonl", None, False),
}


@pytest.mark.parametrize("where", WRITTEN)
def test_a_sealed_holdout_exported_where_git_would_commit_it_is_said(  # type: ignore[no-untyped-def]
    cli, sealed: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    out, rule, told = WRITTEN[where]
    if rule is not None:
        with (sealed / ".gitignore").open("a") as ignore:
            ignore.write(rule)
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    args = ["export", NAME, "--split", "holdout", "--format", "jsonl", "--allow-stale", "-o", out]
    done = cli(sealed, *args)
    assert done.code == 0, done.err
    note = (
        f"note: {out} holds {len(HOLDOUT)} sealed holdout item(s) of {NAME} in plain text, in "
        "the git work tree, and git does not ignore it: delete it after use, or write it "
        "outside the repository, so that no commit takes it\n"
    )
    assert (note in done.err) == told, done.err
    report = json.loads(cli(sealed, *args, "--json").out)
    assert report["sealed_in_work_tree"] == ([i.id for i in HOLDOUT] if told else [])


# A sealed question as a production record or a hand-written item may ask it again.
ASKED = {
    "as it is": FIRST.question,
    "in other case and punctuation": FIRST.question.upper().rstrip("?") + " !",
    "one word more": f"Please, {FIRST.question}",
}


@pytest.mark.parametrize("asked", ASKED)
def test_promote_refuses_a_record_asking_a_sealed_question_into_another_set(  # type: ignore[no-untyped-def]
    cli, sealed: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, asked: str
) -> None:
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    records = [{"question": "Is there a shop in Lisbon?", "trace": "t-1"},
               {"question": ASKED[asked], "trace": "t-2"}]  # fmt: skip
    (sealed / "failures.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    before = {p.name: p.read_bytes() for p in (sealed / "sets").iterdir()}
    for dry in ([], ["--dry-run"]):
        done = cli(sealed, "promote", "failures.jsonl", "--set", "tuners", *dry)
        assert done.code == 2, done.out
        assert done.err == (
            f"evalset: failures.jsonl:2: the record asks what item {FIRST.id!r} of {NAME} asks "
            f"(a near duplicate), and {NAME} holds that item sealed: here the question would "
            f"stand in plain text; promote the record into {NAME}, where it is that item's "
            "duplicate. Nothing was promoted: fix the records, or pass --skip-invalid to "
            "promote the valid ones.\n"
        )
        assert {p.name: p.read_bytes() for p in (sealed / "sets").iterdir()} == before
    done = cli(sealed, "promote", "failures.jsonl", "--set", "tuners", "--skip-invalid", "--json")
    assert done.code == 0, done.err
    assert [a["line"] for a in json.loads(done.out)["added"]] == [1]


@pytest.mark.parametrize("asked", ASKED)
def test_validate_finds_a_sealed_question_written_with_new(  # type: ignore[no-untyped-def]
    cli, sealed: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, asked: str
) -> None:
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    done = cli(sealed, "new", "tuners", "--question", ASKED[asked], "--json")
    assert done.code == 0, done.err
    ident = json.loads(done.out)["id"]
    report = json.loads(cli(sealed, "validate", "sets/tuners.yaml", "--json").out)
    found = [(f["item"], f["field"]) for f in report["findings"] if f["rule"] == "sealed-copy"]
    assert found == [(ident, "question")]
