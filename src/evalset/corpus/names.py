"""Names in one Unicode form: document paths and section anchors are compared in NFC.

The same name can be written two ways: "ü" as one character (NFC, what keyboards type) or
as "u" and a combining diaeresis (NFD, what macOS file systems long stored, and what text
converted from a PDF often holds). The two look alike everywhere and compare unequal, so a
citation typed by hand would miss a document whose file name was decomposed, and a "did you
mean" would offer what looks like the very name given. evalset therefore takes every name
in NFC: a snapshot's document ids and anchors, citations in sets, imports and run files;
the file on disk or in git keeps its own name and is found through its NFC form
(``same_name``). Two files whose names differ only in form cannot both be documents.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Iterable


def nfc(name: str) -> str:
    """``name`` in Unicode NFC (an ASCII name as it is, without a look at its characters)."""
    return name if name.isascii() else unicodedata.normalize("NFC", name)


def same_name(name: str, names: Iterable[str]) -> str | None:
    """The one of ``names`` that is ``name`` in another Unicode form, if any."""
    wanted = nfc(name)
    return next((other for other in names if nfc(other) == wanted), None)


def uncitable(doc: str) -> str | None:
    """Why no citation can name the document ``doc`` (a snapshot warns about it), or None.
    A citation is ``doc#section``, cut at its first ``#``; a backslash and a leading space
    are refused in citations, as Windows separators and copy-paste slips."""
    if "#" in doc:
        why = "holds '#', where a citation splits a document from its section"
    elif "\\" in doc:
        why = "holds '\\', which a citation may not"
    elif doc[:1].isspace():
        why = "starts with a space, which a citation may not"
    else:
        return None
    return f"{doc}: its path {why}, so no item can cite it; rename it"


def case_alike(folder: str, names: Iterable[str]) -> list[str]:
    """A warning for each two of ``names`` (files and folders of the corpus folder
    ``folder``, '' for its top) that differ only in letter case: a clone on a file system
    that ignores case (macOS's, Windows') holds one of them, so its snapshot differs."""
    seen: dict[str, str] = {}
    notes = []
    for name in sorted(names):
        first = seen.setdefault(name.casefold(), name)
        if first != name:
            a, b = (f"{folder}/{n}" if folder else n for n in (first, name))
            notes.append(
                f"{a} and {b}: their names differ only in letter case, so a clone on a file "
                "system that ignores case (macOS's, Windows') holds only one of them; rename one"
            )
    return notes


_NOT_IN_ANCHORS = re.compile(r"[\s#]")


def citable(doc: str, section: str | None = None) -> bool:
    """Whether a citation can name the document ``doc`` (its section ``section``, when
    given): neither ``uncitable`` nor ``uncitable_sections`` has anything to say of it. Only
    such a place is offered as where a cited text went, since ``doc#section`` of another
    would read back as some other citation, or as none."""
    if uncitable(doc) is not None:
        return False
    return section is None or (section != "" and _NOT_IN_ANCHORS.search(section) is None)


def uncitable_sections(doc: str, anchors: Iterable[str]) -> str | None:
    """Why no citation can name some sections of ``doc`` (a snapshot warns about it), or
    None: a section id (an HTML heading's own ``id``, say) holding white space or a ``#``,
    which a citation may not."""
    anchors = list(anchors)
    if not _NOT_IN_ANCHORS.search("".join(anchors)):
        return None
    bad = [a for a in anchors if _NOT_IN_ANCHORS.search(a)]
    shown = ", ".join(map(repr, bad[:3])) + (f" and {len(bad) - 3} more" if len(bad) > 3 else "")
    return (
        f"{doc}: the section id(s) {shown} hold white space or '#', which a citation may not, "
        "so no item can cite those sections; change the ids (an HTML heading's `id`)"
    )


def unanchored(doc: str, titles: Iterable[str]) -> str | None:
    """Why no citation can name the sections under some headings of ``doc`` (a snapshot
    warns about it), or None: a heading of no letter or digit (``!!!``, an emoji) gives the
    empty anchor, as on GitHub, where its link is the page's top."""
    shown = list(map(repr, titles))
    if not shown:
        return None
    listed = ", ".join(shown[:3]) + (f" and {len(shown) - 3} more" if len(shown) > 3 else "")
    return (
        f"{doc}: the heading(s) {listed} hold no letter or digit, so they give no anchor and "
        "no item can cite their sections (only the document, or a section above them); put "
        "a word in them"
    )


class DocumentNames:
    """The documents of a snapshot, to find the one a name not among them means when it is
    written otherwise: with folders before the document's path in the corpus (a path from
    the repository's root, ``corpus/policies/returns.md``, as a retriever may keep it), or
    in other letter case. A scorer still counts such a name as no document (a guess is never
    taken for what a run retrieved); its notes name the document meant, and the fix."""

    def __init__(self, documents: Collection[str]) -> None:
        self.documents = documents
        self._folded: dict[str, str | None] | None = None

    def meant(self, doc: str) -> str | None:
        """The document ``doc`` means: ``doc`` itself when it is one; else the first of its
        tails (``policies/returns.md``, then ``returns.md``) that is one; else the one
        document that is ``doc``, or one of its tails, in other letter case. None when
        there is none, or when several differ from it only in case."""
        parts = doc.split("/")
        tails = ["/".join(parts[k:]) for k in range(len(parts))]
        found = next((t for t in tails if t in self.documents), None)
        if found is not None:
            return found
        folded = self._by_case()
        return next((f for t in tails if (f := folded.get(t.casefold()))), None)

    def _by_case(self) -> dict[str, str | None]:
        """Each document's case-folded name -> the document (None: two or more share it)."""
        if self._folded is None:
            self._folded = {}
            for doc in self.documents:
                key = doc.casefold()
                self._folded[key] = None if key in self._folded else doc
        return self._folded
