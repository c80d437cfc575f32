"""Corpus documents in the encodings their authors' tools save: UTF-16 with a byte-order
mark (Windows "Unicode" text), HTML pages that declare a legacy encoding. Each reads as the
same text its UTF-8 twin holds, so saving a document again in another encoding changes no
snapshot and makes no item stale, and a retriever's chunk of it resolves; what cannot be
read exactly is said, naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SET_HEADER, commit_all, set_item, write_files

WORDS = "Die Karte kostet 5 \u20ac \u2013 \u201ef\u00fcr alle\u201c."
"""With characters that windows-1252 holds above 0x7f (the euro sign, the dash, the quotes),
and latin-1 does not."""
DOC = f"# Gebühren\n\n## Karte\n\n{WORDS}\n"
PAGE = (
    "<html><head>{meta}<title>Preise</title></head><body><h1>Preise</h1>"
    f'<h2 id="karte">Karte</h2><p>{WORDS}</p></body></html>\n'
)
META = '<meta charset="utf-8">'

# name: the same document as an author's tool saves it, and the codec that reads it
SAVED = {
    "utf-8 with a mark (md)": ("doc.md", DOC.encode("utf-8-sig"), "utf-8-sig"),
    "utf-16 le with a mark (md)": ("doc.md", DOC.encode("utf-16"), "utf-16"),
    "utf-16 be with a mark (txt)": (
        "doc.txt", b"\xfe\xff" + DOC.encode("utf-16-be"), "utf-16",
    ),
    "utf-16 with a mark, CRLF (md)": (
        "doc.md", DOC.replace("\n", "\r\n").encode("utf-16"), "utf-16",
    ),
    "windows-1252, meta charset": (
        "page.html", PAGE.format(meta='<meta charset="windows-1252">').encode("cp1252"), "cp1252",
    ),
    "iso-8859-1 label, as browsers read it (windows-1252)": (
        "page.html",
        PAGE.format(
            meta='<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">'
        ).encode("cp1252"),
        "cp1252",
    ),
    "windows-1252, XML declaration": (
        "page.htm",
        ('<?xml version="1.0" encoding="windows-1252"?>\n' + PAGE.format(meta="")).encode(
            "cp1252"
        ),
        "cp1252",
    ),
    "declared windows-1252, but UTF-8": (
        "page.html", PAGE.format(meta='<meta charset="windows-1252">').encode(), "utf-8",
    ),
    "utf-16 page with a mark": ("page.html", PAGE.format(meta=META).encode("utf-16"), "utf-16"),
}  # fmt: skip


def _utf8_twin(name: str) -> bytes:
    return (DOC if not name.endswith(("html", "htm")) else PAGE.format(meta=META)).encode()


def _snapshot(repo: Path, cli) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    done = cli(repo, "snapshot", "--json")
    assert done.code == 0, done.err
    return json.loads(done.out)["id"], done.err


@pytest.mark.parametrize("saved", list(SAVED))
def test_a_document_saved_in_another_encoding_changes_nothing(
    corpus_repo: Path,
    cli,  # type: ignore[no-untyped-def]
    saved: str,
) -> None:
    name, data, codec = SAVED[saved]
    write_files(corpus_repo, {f"corpus/{name}": _utf8_twin(name)})
    twin, _ = _snapshot(corpus_repo, cli)
    cited = name if name.endswith(".txt") else f"{name}#karte"  # (text has no headings)
    write_files(corpus_repo, {"sets/docs.yaml": SET_HEADER + set_item("q-1", cited)})
    assert cli(corpus_repo, "verify", "docs", "--all").code == 0
    commit_all(corpus_repo, "UTF-8")

    write_files(corpus_repo, {f"corpus/{name}": data})
    again, warned = _snapshot(corpus_repo, cli)
    assert again == twin and "warning" not in warned, warned
    stale = cli(corpus_repo, "stale", "--json")
    assert stale.code == 0 and json.loads(stale.out)["items"] == [], stale.out
    # A retriever's chunk of it, as text and as offsets into its text (as it was decoded).
    start = data.decode(codec).removeprefix("\ufeff").index(WORDS[17:])
    span = {"doc": name, "start": start, "end": start + 10}
    run = {"id": "q-1", "retrieved": [{"doc": name, "text": WORDS}, span]}
    (corpus_repo / "run.jsonl").write_text(json.dumps(run) + "\n")
    done = cli(corpus_repo, "score", "retrieval", "docs", "run.jsonl", "--json")
    assert done.code == 0, done.err
    report = json.loads(done.out)
    assert report["unresolved"] == [], report["unresolved"]
    assert report["overall"]["hit@1"]["value"] == 1.0


# name: a document that cannot be read exactly, and what is said of it
UNREADABLE = {
    "windows-1252 markdown (no declaration)": (
        "doc.md", DOC.encode("cp1252"), "doc.md: is not valid UTF-8 (byte 5); read with"
    ),
    "windows-1252 page, no declaration": (
        "page.html", PAGE.format(meta="").encode("cp1252"), "page.html: is not valid UTF-8"
    ),
    "utf-16 without a mark": (
        "doc.txt", DOC.encode("utf-16-le"), "doc.txt: looks like UTF-16 without a byte-order"
    ),
    "binary": ("doc.md", b"\x89PNG\r\n\x1a\n\x00\x00", "doc.md: looks binary (NUL bytes)"),
}  # fmt: skip


@pytest.mark.parametrize("case", list(UNREADABLE))
def test_what_cannot_be_read_exactly_is_said(corpus_repo: Path, cli, case: str) -> None:  # type: ignore[no-untyped-def]
    name, data, said = UNREADABLE[case]
    write_files(corpus_repo, {f"corpus/{name}": data})
    done = cli(corpus_repo, "snapshot")
    assert done.code == 0 and said in done.err, done.err
