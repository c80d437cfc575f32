"""Snapshot manifests: content-addressed records of a corpus, one document per line.

A manifest records every document's hash and each section's hash, title and level (and,
for small corpora, its normalised text), the corpus path and the git commit it was read at.
Its id is a sha256 over the canonical document/section table, so the same content always
gets the same id; the table is hashed per document, so the id can be updated one document
at a time.

Texts and table rows are hashed with XXH3-128, chosen for speed: it is about six times
faster than BLAKE2b, which had been a fifth of a cold snapshot's time. These hashes detect
change; they are not signatures. Format 1 manifests hashed with BLAKE2b-128; they are still
read, their hashes recomputed from the text they store (``_upgraded``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from xxhash import xxh3_128_hexdigest

from evalset.corpus.names import citable, nfc
from evalset.corpus.newest import NOT_LOOKED, Current, Newest, choose, ordered
from evalset.corpus.sections import HashMode, Sections
from evalset.corpus.table import (
    Document,
    LazyDocuments,
    indexed,
    save_index,
    split_lines,
    whole_level,
)
from evalset.errors import EvalsetError
from evalset.fsio import (
    NotAFile,
    as_path,
    conflict_line,
    json_loads,
    open_found,
    read_found,
)

FORMAT = 2
"""Version of the manifest layout and its hashes (1: BLAKE2b-128, 2: XXH3-128)."""
SHORT = 12
"""Ids are shown as their first 12 hex digits."""
TEXT_LIMIT = 20_000_000
"""Below this many bytes of corpus, section text is stored in the manifest (config store_text)."""


HASHED = {"rendered": "the rendered text of sections", "source": "the source of sections"}
"""What a snapshot of each ``hash`` mode hashes, as messages say it."""


class SnapshotError(EvalsetError):
    """A snapshot cannot be taken, found or read."""


def hash_text(text: str) -> str:
    return xxh3_128_hexdigest(text.encode())


def _blake2b(data: bytes) -> str:
    """The hash of format 1 manifests."""
    import hashlib  # here: loading OpenSSL costs commands that compute no id ~15 ms

    return hashlib.blake2b(data, digest_size=16).hexdigest()


EMPTY = hash_text("")


def document_entry(parsed: Sections, store_text: bool) -> Document:
    sections: dict[str, Any] = {}
    for ident, section in parsed.sections.items():
        entry: dict[str, Any] = {
            "hash": hash_text(section.text),
            "level": section.level,
            "title": section.title,
        }
        if store_text:
            entry["text"] = section.text
        sections[ident] = entry
    document: Document = {"hash": hash_text(parsed.text), "sections": sections}
    if store_text:
        document["text"] = parsed.text
    return document


json_string = json.encoder.encode_basestring
"""The JSON string encoder ``json.dumps(..., ensure_ascii=False)`` uses, in C."""


def document_record(doc: str, parsed: Sections, store_text: bool) -> tuple[str, str]:
    """A document's manifest line and row digest, equal to ``document_line`` and
    ``row_digest`` of its ``document_entry`` but written directly: no dictionaries, one
    hash per section, keys in the order ``json.dumps(sort_keys=True)`` gives."""
    hashed = sorted(
        (ident, hash_text(section.text), section) for ident, section in parsed.sections.items()
    )
    whole = hash_text(parsed.text)
    if store_text:
        fields = [
            f'{json_string(ident)}: {{"hash": "{h}", "level": {section.level}, '
            f'"text": {json_string(section.text)}, "title": {json_string(section.title)}}}'
            for ident, h, section in hashed
        ]
        tail = f', "text": {json_string(parsed.text)}}}'
    else:
        fields = [
            f'{json_string(ident)}: {{"hash": "{h}", "level": {section.level}, '
            f'"title": {json_string(section.title)}}}'
            for ident, h, section in hashed
        ]
        tail = "}"
    line = f'{json_string(doc)}: {{"hash": "{whole}", "sections": {{{", ".join(fields)}}}{tail}'
    row = "\t".join([doc, whole, *(f"{ident}={h}" for ident, h, _ in hashed)]) + "\n"
    return line, xxh3_128_hexdigest(row.encode())


def _row(doc: str, entry: Document) -> bytes:
    parts = [doc, entry["hash"]]
    parts.extend(f"{sid}={s['hash']}" for sid, s in sorted(entry["sections"].items()))
    return ("\t".join(parts) + "\n").encode()


def row_digest(doc: str, entry: Document) -> str:
    """Digest of one document's row of the table: its hash and its sections' ids and hashes."""
    return xxh3_128_hexdigest(_row(doc, entry))


def id_of_digests(digests: dict[str, str]) -> str:
    """sha256 over the row digests, concatenated in the order of their documents' names
    (each row digest covers its document's name). A table kept in that order gets its id
    from one pass over one string (see ``id_of_ordered``)."""
    return id_of_ordered("".join([digests[doc] for doc in sorted(digests)]))


def id_of_ordered(digests: str) -> str:
    """``id_of_digests`` of the row digests already concatenated in name order."""
    import hashlib

    return hashlib.sha256(digests.encode()).hexdigest()


def _id_v1(digests: dict[str, str]) -> str:
    """The id of format 1: sha256 over the sorted ``doc<TAB>row digest`` lines."""
    import hashlib

    table = "".join([f"{doc}\t{digests[doc]}\n" for doc in sorted(digests)])
    return hashlib.sha256(table.encode()).hexdigest()


def table_id(documents: Mapping[str, Document]) -> str:
    """The content id of a document table."""
    return id_of_digests({doc: row_digest(doc, entry) for doc, entry in documents.items()})


def document_line(doc: str, entry: Document) -> str:
    """A document's line in the manifest (without the separating comma)."""
    value = json.dumps(entry, sort_keys=True, ensure_ascii=False)
    return f"{json.dumps(doc, ensure_ascii=False)}: {value}"


def parse_line(line: str) -> tuple[str, Document]:
    ((doc, entry),) = json.loads("{" + line + "}").items()
    return doc, entry


def manifest_head(about: dict[str, Any], empty: bool = False) -> bytes:
    """A manifest's first two lines: the header, and the start of the document table."""
    header = '{"about": ' + json.dumps(about, sort_keys=True) + ","
    return (header + ('\n"documents": {}}\n' if empty else '\n"documents": {\n')).encode()


MANIFEST_TAIL = b"\n}}\n"


def manifest_text(about: dict[str, Any], body: str) -> bytes:
    """Deterministic JSON: the header on the first line, then the document lines ``body``
    (one per document, sorted, joined by ``,\\n``)."""
    if not body:
        return manifest_head(about, empty=True)
    return b"".join([manifest_head(about), body.encode(), MANIFEST_TAIL])


@dataclass
class Snapshot:
    """A corpus manifest."""

    id: str
    created: str
    corpus: str
    commit: str | None
    rev: str | None
    hash_mode: HashMode
    documents: Mapping[str, Document] = field(default_factory=dict)
    path: Path | None = None

    @property
    def short(self) -> str:
        return self.id[:SHORT]

    @cached_property
    def by_hash(self) -> dict[str, list[str]]:
        """What each non-empty text hash is the text of: sections (``doc#id``) and
        documents (``doc``), in the manifest's order; only those a citation can name."""
        found: dict[str, list[str]] = {}
        for doc, entry in self.documents.items():
            if not citable(doc):  # ``doc#id`` would read back as another citation, or none
                continue
            if entry["hash"] != EMPTY:
                found.setdefault(entry["hash"], []).append(doc)
            for sid, part in entry["sections"].items():
                if part["hash"] != EMPTY and citable(doc, sid):
                    found.setdefault(part["hash"], []).append(f"{doc}#{sid}")
        return found

    def about(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "corpus": self.corpus,
            "created": self.created,
            "hash": self.hash_mode,
            "id": self.id,
            "rev": self.rev,
            "version": FORMAT,
        }

    def render(self) -> str:
        lines = (document_line(doc, self.documents[doc]) for doc in sorted(self.documents))
        return manifest_text(self.about(), ",\n".join(lines)).decode()


def _corrupt(path: Path, why: str) -> SnapshotError:
    return SnapshotError(
        f"{path}: is not a readable snapshot manifest ({why}); restore it from git, or run "
        "`evalset snapshot` on the corpus it recorded to write it again."
    )


def _check_about(path: Path, about: Any) -> dict[str, Any]:
    if not isinstance(about, dict) or "id" not in about:
        raise _corrupt(path, "no header")
    version = about.get("version")
    if not isinstance(version, int) or version > FORMAT:
        raise SnapshotError(
            f"{path}: was written by a newer evalset (snapshot format {version}, this one "
            f"reads {FORMAT}); upgrade evalset."
        )
    return about


def not_a_manifest(refused: NotAFile) -> SnapshotError:
    """A name in the snapshots folder that is no file (a FIFO, a folder, a socket, a link
    to nothing): refused, never opened, so that no command waits on it."""
    return SnapshotError(refused.sentence("snapshot manifest"))


def read_about(path: Path) -> dict[str, Any]:
    """The header of a manifest, reading only its first line."""
    try:
        with open(open_found(path), encoding="utf-8") as f:
            first = f.readline()
    except NotAFile as exc:
        raise not_a_manifest(exc) from None
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot be read ({exc.strerror}).") from None
    except UnicodeDecodeError:
        raise _corrupt(path, "not UTF-8") from None
    if conflict_line(first) is not None:
        raise _corrupt(path, "an unresolved merge conflict at line 1")
    try:
        about = json_loads(first.rstrip().removesuffix(",") + "}")["about"]
    except (ValueError, KeyError, TypeError):
        raise _corrupt(path, "the first line is not the snapshot header") from None
    return _check_about(path, about)


def read_snapshot(path: Path, verify: bool = True, index_dir: Path | None = None) -> Snapshot:
    """A manifest; ``verify`` checks its integrity: its id is recomputed from its document
    table (a truncated or hand-edited manifest fails, naming the file and how to make it
    again). A manifest checked before and unchanged since (same size, mtime and inode) is
    not checked again: with ``index_dir``, the verdict and an index of where each document's
    line lies are kept there (and the index spares a large manifest being parsed at all)."""
    if index_dir is not None:
        found = indexed(path, index_dir)
        if found is not None:
            return _snapshot(path, *found)
    try:
        data = read_found(path)
    except NotAFile as exc:
        raise not_a_manifest(exc) from None
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot be read ({exc.strerror}).") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise _corrupt(path, "not UTF-8") from None
    split = split_lines(text)
    documents: Mapping[str, Document]
    about: Any
    if split is not None:
        about, documents = split
        split[1].source = path
    else:
        line = conflict_line(text)
        if line is not None:
            raise _corrupt(path, f"an unresolved merge conflict at line {line}")
        try:
            parsed = json_loads(text)
        except ValueError as exc:
            raise _corrupt(path, f"invalid JSON: {exc}") from None
        if not isinstance(parsed, dict) or not isinstance(parsed.get("documents"), dict):
            raise _corrupt(path, "no documents table")
        about, documents = parsed.get("about"), parsed["documents"]
    ascii_table = split is not None and len(data) == len(text)
    if ascii_table:
        # Character offsets are byte offsets: hold bytes, as a manifest read through its
        # index does, so that raw values of either kind of read compare equal.
        table = split[1]  # type: ignore[index]
        documents = LazyDocuments(data, table.names, table.bounds, source=path)
    snap = _snapshot(path, about, documents, verify)
    if index_dir is not None and verify:
        if ascii_table:
            save_index(path, index_dir, about, table.names, table.bounds)
        else:
            save_index(path, index_dir, about, None, None)
    return snap


def _snapshot(
    path: Path, about: Any, documents: Mapping[str, Document], verify: bool = False
) -> Snapshot:
    about = _check_about(path, about)
    legacy = about["version"] < FORMAT
    if verify:
        problem = _mismatch(about["id"], documents, legacy)
        if problem is not None:
            raise _corrupt(path, problem)
    if legacy:
        documents = _upgraded(path, about, documents)
    documents = _names_in_nfc(documents)
    snap = Snapshot(
        about["id"],
        about.get("created", ""),
        about.get("corpus", ""),
        about.get("commit"),
        about.get("rev"),
        about.get("hash", "rendered"),
        documents,
        path,
    )
    if path.stem != snap.id:
        raise SnapshotError(
            f"{path}: holds snapshot {str(snap.id)[:SHORT]}, not the one its name says (was it "
            f"renamed?); rename it to {snap.id}.json, or restore it from git."
        )
    return snap


def _names_in_nfc(documents: Mapping[str, Document]) -> Mapping[str, Document]:
    """The table with its document names in Unicode NFC, as snapshots name documents since
    ``evalset.corpus.names``: a manifest written before may hold a decomposed name."""
    names = documents.names if isinstance(documents, LazyDocuments) else list(documents)
    if all(map(str.isascii, names)) or all(nfc(name) == name for name in names):
        return documents
    if isinstance(documents, LazyDocuments):
        return documents.renamed([nfc(name) for name in names])
    return {nfc(name): entry for name, entry in documents.items()}


def _entries(documents: Mapping[str, Document]) -> Iterator[tuple[str, Any]]:
    """Each document and its entry, parsed afresh for a lazy table (so that checking a large
    manifest keeps none of it in memory)."""
    if isinstance(documents, LazyDocuments):
        for doc in documents.names:
            raw = documents.raw(doc)
            try:
                yield doc, json_loads(raw if raw is not None else "")
            except ValueError:
                yield doc, None
        return
    yield from documents.items()


def _mismatch(ident: Any, documents: Mapping[str, Document], legacy: bool) -> str | None:
    """What is wrong with a table that should hash to ``ident`` (with stored texts, small
    corpora only, hashing to what the manifest says, the way its format hashes them), or
    None when nothing is."""
    if not isinstance(ident, str):
        return "its header has no id"
    digest = _blake2b if legacy else xxh3_128_hexdigest
    rows: dict[str, str] = {}
    for doc, entry in _entries(documents):
        if not _well_formed(entry):
            return f"the line of document {doc!r} is damaged"
        rows[doc] = digest(_row(doc, entry))
        if "text" in entry and digest(entry["text"].encode()) != entry["hash"]:
            return f"the text of document {doc!r} does not match its hash"
        for section in entry["sections"].values():
            if "text" in section and digest(section["text"].encode()) != section["hash"]:
                return f"a section text of document {doc!r} does not match its hash"
    if len(rows) != len(documents):
        return "it names a document twice"
    if (_id_v1 if legacy else id_of_digests)(rows) != ident:
        return "its content does not match its id (truncated or edited by hand?)"
    return None


def _well_formed(entry: Any) -> bool:
    if not isinstance(entry, dict) or not isinstance(entry.get("hash"), str):
        return False
    sections = entry.get("sections")
    if not isinstance(sections, dict):
        return False
    if "text" in entry and not isinstance(entry["text"], str):
        return False
    for section in sections.values():
        if not isinstance(section, dict) or not isinstance(section.get("hash"), str):
            return False
        if "text" in section and not isinstance(section["text"], str):
            return False
        if not whole_level(section):
            return False
    return True


def _upgraded(
    path: Path, about: dict[str, Any], documents: Mapping[str, Document]
) -> Mapping[str, Document]:
    """The table of a format 1 manifest with every hash computed as format 2 computes it,
    from the text it stores (as each document is parsed, for a lazy table). A document
    without stored text (a large corpus) cannot be compared with later snapshots: that is
    a clear error when it is reached."""

    def upgrade(doc: str, entry: Document) -> Document:
        sections = entry["sections"].values()
        if "text" not in entry or any("text" not in section for section in sections):
            raise SnapshotError(
                f"{path}: was written by an earlier evalset with other hashes (snapshot "
                f"format {about['version']}) and stores no text of {doc!r} to hash again; take "
                f"it again with `evalset snapshot --rev {about.get('commit') or 'COMMIT'}` and "
                "put the new id in place of this one in the sets that name it."
            )
        entry["hash"] = hash_text(entry["text"])
        for section in sections:
            section["hash"] = hash_text(section["text"])
        return entry

    if isinstance(documents, LazyDocuments):
        return LazyDocuments(documents.text, documents.names, documents.bounds, upgrade)
    return {doc: upgrade(doc, entry) for doc, entry in documents.items()}


class SnapshotStore:
    """The manifests in a workspace's ``snapshots/`` folder, found by id prefix."""

    def __init__(
        self,
        folder: Path,
        verify: bool = True,
        state_dir: Path | None = None,
        current: Callable[[set[str]], Current] | None = None,
    ) -> None:
        self.folder = as_path(folder, "SnapshotStore", "the snapshots folder", "snapshots")
        self.verify = verify
        """Check each manifest against its id when it is first read (~0.3 s per 50,000
        documents; with ``state_dir``, once per change of the file)."""
        self.index_dir = state_dir / "manifests" if state_dir is not None else None
        """Where manifests' indexes are kept (in the workspace's git-ignored state folder)."""
        self.current = current
        """What the working tree's corpus is, given the ids of the manifests (see
        ``evalset.corpus.current.workspace_store``); without it, "newest" follows the
        history and ``created`` rules only (``evalset.corpus.newest``)."""
        self._loaded: dict[str, Snapshot] = {}
        self._resolved: dict[str, str] = {}
        self._newest: Newest | None = None
        self._order: list[str] | None = None

    def ids(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.json"))

    def resolve(self, prefix: str) -> str | None:
        """The full id for a unique prefix; None when nothing matches."""
        if prefix in self._resolved:
            return self._resolved[prefix]
        matches = [i for i in self.ids() if i.startswith(prefix)]
        if len(matches) > 1:
            raise SnapshotError(
                f"{self.folder}: snapshot prefix {prefix!r} is ambiguous "
                f"({', '.join(m[:SHORT] for m in matches)}); give more digits."
            )
        if not matches:
            return None  # not remembered: the snapshot may be taken later
        self._resolved[prefix] = matches[0]
        return matches[0]

    def get(self, prefix: str) -> Snapshot | None:
        ident = self.resolve(prefix)
        if ident is None:
            return None
        if ident not in self._loaded:
            path = self.folder / f"{ident}.json"
            self._loaded[ident] = read_snapshot(path, self.verify, self.index_dir)
        return self._loaded[ident]

    def newest_id(self, skip_damaged: bool = False) -> str | None:
        """The id of the newest snapshot (``newest_choice``)."""
        choice = self.newest_choice(skip_damaged)
        return choice.id if choice else None

    def newest_choice(self, skip_damaged: bool = False, with_corpus: bool = True) -> Newest | None:
        """The newest snapshot and why: the corpus as it is now, else the latest commit in
        git's history, else the one recorded last (``evalset.corpus.newest``); worked out
        once per store. ``skip_damaged`` passes over a manifest whose header cannot be read
        (the snapshot command, which may write it again) instead of refusing;
        ``with_corpus=False`` leaves the working tree out (the snapshot command, which is
        reading it)."""
        if self._newest is not None and not skip_damaged and with_corpus:
            return self._newest
        abouts: dict[str, dict[str, Any]] = {}
        for ident in self.ids():
            try:
                abouts[ident] = read_about(self.folder / f"{ident}.json")
            except SnapshotError:
                if skip_damaged:
                    continue
                raise
        current = NOT_LOOKED
        if abouts and with_corpus and self.current is not None:
            current = self.current(set(abouts))
        repo = self.folder if self.folder.is_dir() else None
        choice = choose(abouts, current, repo)
        if not skip_damaged and with_corpus:
            self._newest = choice
        return choice

    def newest(self) -> Snapshot | None:
        ident = self.newest_id()
        return self.get(ident) if ident else None

    def in_order(self) -> list[str]:
        """Every snapshot's id, oldest first, by the history and ``created`` rules of
        ``evalset.corpus.newest`` (the working tree's corpus aside); worked out once."""
        if self._order is None:
            abouts = {ident: read_about(self.folder / f"{ident}.json") for ident in self.ids()}
            self._order = ordered(abouts, self.folder if self.folder.is_dir() else None)
        return self._order


@dataclass
class Changes:
    """What changed between two snapshots, by document and section."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    """doc -> {"added": [...], "removed": [...], "changed": [...]} section ids."""

    def to_json(self) -> dict[str, Any]:
        return {"added": self.added, "removed": self.removed, "changed": self.changed}

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)


def compare(old: Snapshot, new: Snapshot) -> Changes:
    changes = Changes()
    changes.added = sorted(set(new.documents) - set(old.documents))
    changes.removed = sorted(set(old.documents) - set(new.documents))
    for doc in sorted(set(old.documents) & set(new.documents)):
        before, after = old.documents[doc], new.documents[doc]
        a, b = before["sections"], after["sections"]
        # the document's text alone does not tell: a heading moved up or down a level
        # leaves it as it was, and changes which sections hold which
        if before["hash"] == after["hash"] and a == b:
            continue
        entry = {
            "added": sorted(set(b) - set(a)),
            "removed": sorted(set(a) - set(b)),
            "changed": sorted(
                s
                for s in set(a) & set(b)
                if a[s]["hash"] != b[s]["hash"]
                or a[s].get("level") != b[s].get("level")
                or str(a[s].get("title")).split() != str(b[s].get("title")).split()
            ),
        }
        if any(entry.values()) or before["hash"] != after["hash"]:
            changes.changed[doc] = entry
    return changes
