"""Reading one corpus file: its bytes in one ``read``, sectioned into its manifest line and
row digest (what the snapshot's worker processes do for each file)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from evalset.corpus import HashMode, lfs, sectioner_for
from evalset.corpus.encoding import decode
from evalset.corpus.manifest import (
    document_entry,
    document_record,
)
from evalset.corpus.names import unanchored, uncitable_sections
from evalset.corpus.table import Document
from evalset.fsio import memory_left


@dataclass
class ReadResult:
    """One file read and sectioned: its manifest line, row digest and section count."""

    doc: str
    line: str | None = None
    digest: str | None = None
    sections: int = 0
    warning: str | None = None
    entry: Document | None = None
    with_text: str | None = None
    """The manifest line with the text stored, when both lines were asked for."""
    pointer: bool = False
    """The bytes are a Git LFS pointer, not the document (``warning`` refuses it)."""


def parse_document(
    doc: str,
    data: bytes,
    mode: HashMode,
    store_text: bool | None,
    entry: bool = True,
    path: str | None = None,
) -> ReadResult:
    """Section one document's bytes, decoded as ``evalset.corpus.encoding`` says; binary
    files are skipped and undecodable bytes replaced, with a warning naming the file.
    ``entry=False`` gives only the manifest line and digest; ``store_text=None`` gives the
    line without the text and, in ``with_text``, the line with it (and no entry). ``path``:
    the file, which a refusal of it names (else the document id)."""
    sectioner = sectioner_for(doc)
    if sectioner is None:
        return ReadResult(doc)
    if len(data) >= 1 << 20:
        left = memory_left()
        if left is not None and len(data) * SECTION_FACTOR > left:
            return ReadResult(
                doc,
                warning=f"!{doc}: is {len(data) / 1e6:,.1f} MB, too large to section within "
                f"this process's memory limit ({left / 1e6:,.0f} MB left; ulimit -v); raise "
                "the limit, or split the document",
            )
    if lfs.pointer(data) is not None:
        return ReadResult(doc, warning=f"!{lfs.not_fetched(path or doc)}", pointer=True)
    text, warning = decode(doc, data)
    if text is None:
        return ReadResult(doc, warning=warning)
    parsed = sectioner(text, mode)
    if (note := uncitable_sections(doc, parsed.sections)) is not None:
        warning = f"{warning}; {note}" if warning else note
    if (note := unanchored(doc, parsed.unanchored)) is not None:
        warning = f"{warning}; {note}" if warning else note
    line, digest = document_record(doc, parsed, bool(store_text))
    if store_text is None:
        with_text = document_record(doc, parsed, True)[0]
        return ReadResult(doc, line, digest, len(parsed.sections), warning, None, with_text)
    table = document_entry(parsed, store_text) if entry else None
    return ReadResult(doc, line, digest, len(parsed.sections), warning, table)


SECTION_FACTOR = 16
"""Sectioning a document takes a few times its size (the parser's events, the rendered
text, Python's strings); the margin covers the rest."""


Job = tuple[str, str, HashMode, bool | None, int]
"""A file to read: its path, document id, hash mode, whether to store text (None: make the
lines with and without it), and its size when it was listed."""


ONE_READ = 0x7FFFF000
"""The most one ``read`` returns on Linux."""


def read_bytes(path: str, size: int) -> bytes:
    """A file's bytes in one ``read`` of the size it was listed with (and one byte more, to
    notice growth): half the time of ``open().read()``, which asks for the size again and
    reads twice."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        data = os.read(fd, size + 1)
        if len(data) > size or len(data) >= ONE_READ:  # it grew, or is too large for one read
            parts = [data]
            while chunk := os.read(fd, 1 << 24):
                parts.append(chunk)
            data = b"".join(parts)
    finally:
        os.close(fd)
    return data


def read_file(job: Job) -> ReadResult:
    path, doc, mode, store_text, size = job
    try:
        data = read_bytes(path, size)
    except FileNotFoundError:
        return ReadResult(
            doc,
            warning=f"!{path}: was removed while the snapshot read the corpus (is something "
            "changing it?); run `evalset snapshot` again once it is done",
        )
    except OSError as exc:
        return ReadResult(
            doc,
            warning=f"!{path}: cannot be read ({exc.strerror}); fix its permissions or move "
            "it out of the corpus",
        )
    return parse_document(doc, data, mode, store_text, entry=False, path=path)


ReadRow = tuple[str, str | None, str | None, int, str | None, str | None]


def read_row(job: Job) -> ReadRow:
    """``read_file`` as a tuple (document, line, digest, section count, warning, line with
    the text), which the helpers of ``workers.Shared`` pass back."""
    r = read_file(job)
    return r.doc, r.line, r.digest, r.sections, r.warning, r.with_text
