"""A name is the same name in either Unicode form: "ü" typed as one character (NFC) or as
"u" and a combining diaeresis (NFD, as macOS file systems stored file names and as text
converted from PDFs often holds). A table of file-name forms and citation forms goes
through snapshot, validate, stale, verify and scoring; a citation typed either way finds a
document named either way, and a run naming it either way is credited."""

from __future__ import annotations

import json
import subprocess
import unicodedata
from pathlib import Path

import pytest

from conftest import SET_HEADER, commit_all, write_files
from evalset.corpus.manifest import (
    SnapshotStore,
    document_line,
    id_of_digests,
    manifest_text,
    row_digest,
)
from evalset.corpus.revision import document_versions
from evalset.corpus.snapshot import take_snapshot


def nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


FORMS = {"nfc": nfc, "nfd": nfd}
CITED = ("gebühren.md#karte", "rückgabe.html#rückgabe-frist", "policy.md#rückgabe")


def _corpus(form: str, fee: str = "Keine Gebühr.") -> dict[str, str]:
    name = FORMS[form]
    return {
        f"corpus/{name('gebühren.md')}": f"# Gebühren\n\n## Karte\n\n{fee}\n",
        f"corpus/{name('rückgabe.html')}": (
            f'<html><body><h1>Rückgabe</h1><h2 id="{name("rückgabe-frist")}">Frist</h2>'
            "<p>Innerhalb von 14 Tagen.</p></body></html>\n"
        ),
        "corpus/policy.md": f"# Policy\n\n## {nfd('Rückgabe')}\n\nKostenlos.\n",
    }


def _set(cite: str, snapshot: str) -> str:
    items = ""
    for n, citation in enumerate(CITED, 1):
        shown = FORMS[cite](citation)
        items += (
            f"  - id: q-{n:03}\n"
            f"    question: Frage {n}?\n"
            f"    category: direct-lookup\n"
            f"    expected_sources: [{shown}]\n"
            f"    key_points:\n"
            f"      - text: Fakt {n}\n"
            f"        sources: [{shown}]\n"
            f"    verified: {snapshot}\n"
        )
    return SET_HEADER + items


def _snapshot(repo: Path) -> str:
    return take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset").short


@pytest.mark.parametrize("files", ["nfc", "nfd"])
@pytest.mark.parametrize("cite", ["nfc", "nfd"])
def test_a_name_in_either_form_is_the_same_name(
    corpus_repo: Path,
    cli,  # type: ignore[no-untyped-def]
    files: str,
    cite: str,
) -> None:
    write_files(corpus_repo, _corpus(files))
    snap = _snapshot(corpus_repo)
    (corpus_repo / "sets" / "docs.yaml").write_text(_set(cite, snap), "utf-8")

    checked = json.loads(cli(corpus_repo, "validate", "docs", "--json").out)
    assert [f["message"] for f in checked["findings"] if f["severity"] == "error"] == []
    assert cli(corpus_repo, "stale").code == 0
    assert cli(corpus_repo, "verify", "docs", "q-001").code == 0

    other = FORMS["nfd" if cite == "nfc" else "nfc"]  # the run names them the other way
    lines = [{"id": "q-001", "retrieved": [other(CITED[0])]},
             {"id": "q-002", "retrieved": [{"doc": other("rückgabe.html"),
                                            "text": "Innerhalb von 14 Tagen."}]},
             {"id": "q-003", "retrieved": ["policy.md", other(CITED[2])]}]  # fmt: skip
    run = corpus_repo / "run.jsonl"
    run.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    scored = cli(corpus_repo, "score", "retrieval", "docs", str(run), "--json")
    assert scored.code == 0, scored.err
    report = json.loads(scored.out)
    assert [(i["id"], i["first_rank"]) for i in report["items"]] == [
        ("q-001", 1), ("q-002", 1), ("q-003", 2)
    ]  # fmt: skip

    for path in (corpus_repo / "corpus").glob("*.md"):  # the fee changed: one stale item
        path.unlink()
    write_files(corpus_repo, _corpus(files, fee="Zwei Euro."))
    _snapshot(corpus_repo)
    stale = json.loads(cli(corpus_repo, "stale", "--json").out)
    assert [(i["id"], c["citation"], c["status"]) for i in stale["items"] for c in i["citations"]
            ] == [("q-001", nfc(CITED[0]), "changed")]  # fmt: skip


def test_a_manifest_written_with_decomposed_names_reads_in_nfc(
    corpus_repo: Path,
    cli,  # type: ignore[no-untyped-def]
) -> None:
    """A snapshot recorded before names were taken in NFC keeps its file and its id; its
    documents answer to their NFC names, and the corpus as it is counts as unchanged."""
    write_files(corpus_repo, _corpus("nfd"))
    _snapshot(corpus_repo)
    (path,) = (corpus_repo / "snapshots").glob("*.json")
    data = json.loads(path.read_text("utf-8"))
    documents = {nfd(doc): entry for doc, entry in data["documents"].items()}
    ident = id_of_digests({doc: row_digest(doc, entry) for doc, entry in documents.items()})
    body = ",\n".join(document_line(doc, documents[doc]) for doc in sorted(documents))
    path.unlink()
    old = corpus_repo / "snapshots" / f"{ident}.json"
    old.write_bytes(manifest_text(dict(data["about"], id=ident), body))
    (corpus_repo / "sets" / "docs.yaml").write_text(_set("nfc", ident[:12]), "utf-8")

    snap = SnapshotStore(corpus_repo / "snapshots").get(ident)
    assert snap is not None and nfc("gebühren.md") in snap.documents
    checked = json.loads(cli(corpus_repo, "validate", "docs", "--json").out)
    assert [f for f in checked["findings"] if f["severity"] == "error"] == []
    taken = cli(corpus_repo, "snapshot")
    assert f"no change since {ident[:12]}" in taken.out
    assert cli(corpus_repo, "stale").code == 0


# name -> (two paths, one document id; the names told apart, escaped; file or folder)
ALIKE = {
    "two files": ((f"{nfc('gebühren.md')}", f"{nfd('gebühren.md')}"),
                  ("'geb\\xfchren.md'", "'gebu\\u0308hren.md'"), "file"),
    "two folders": ((f"{nfc('Gebühren')}/a.md", f"{nfd('Gebühren')}/a.md"),
                    ("'Geb\\xfchren'", "'Gebu\\u0308hren'"), "folder"),
}  # fmt: skip


@pytest.mark.parametrize("rev", [False, True], ids=["working tree", "--rev"])
@pytest.mark.parametrize("alike", list(ALIKE))
def test_two_files_named_alike_in_two_forms_are_refused(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, alike: str, rev: bool
) -> None:
    """Whether the names differ in the file's name or in a folder's, and whether the
    corpus is read from the working tree or at a revision: `--rev` kept one of two files
    in folders named alike, without a word."""
    paths, forms, kind = ALIKE[alike]
    write_files(corpus_repo, {f"corpus/{paths[0]}": "# A\n", f"corpus/{paths[1]}": "# B\n"})
    commit_all(corpus_repo, "two forms")
    taken = cli(corpus_repo, "snapshot", *(["--rev", "HEAD"] if rev else []))
    assert taken.code == 2
    assert f"the same {kind} name written in two Unicode forms" in taken.err
    for form in forms:  # which file is which
        assert form in taken.err
    assert f"so both would be document '{nfc(paths[0])}'" in taken.err
    assert not list((corpus_repo / "snapshots").glob("*.json"))


def test_text_at_a_commit_is_found_under_its_name_in_either_form(corpus_repo: Path) -> None:
    """A document's text at a snapshot's commit, when git holds it under its decomposed
    name and the working tree no longer has it."""
    write_files(corpus_repo, _corpus("nfd"))
    commit_all(corpus_repo, "corpus")
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=corpus_repo, capture_output=True,
                            text=True, check=True).stdout.strip()  # fmt: skip
    (corpus_repo / "corpus" / nfd("gebühren.md")).unlink()
    found = list(document_versions(corpus_repo, "corpus", commit, nfc("gebühren.md"), "rendered"))
    assert [entry["sections"]["karte"]["text"] for entry in found] == ["Keine Gebühr."]
