"""Which retrieved entries are credited with which expected sources.

At ``section`` granularity an entry matches an expected source when it is that section or one
of its subsections (a section includes its subsections), and an expected whole document
(``doc``) is matched by the document or any part of it. At ``document`` granularity an entry
matches when it names an expected document. Entries are taken in rank order; each is
credited with one expected source that no earlier entry was credited with, the most specific
one first (the source it is, then the deepest section holding it, the whole document last).
An entry credited with nothing is not relevant, and so is a repeat (an entry standing only
for citations earlier entries stood for, one by one or together), even where an item expects
both a section and the section holding it: the same section retrieved twice finds nothing
new. So no metric can pass 1, and
a retriever gains nothing by repeating itself. With plain citations and no subsections this
is trec_eval's binary relevance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from evalset.corpus.outline import Outlines
from evalset.score.metrics import Granularity
from evalset.sets.citations import Citation


@dataclass
class Targets:
    """An item's expected sources, keyed by what matches them."""

    count: int
    """How many expected sources (documents, at document granularity)."""
    exact: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """A retrieved citation (or document, at document granularity) -> the expected sources
    it matches, the most specific first."""
    documents: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """A document -> the expected whole documents any part of it matches."""


class Matcher:
    """Builds the targets of items against one snapshot (subsections come from it)."""

    def __init__(self, outlines: Outlines, granularity: Granularity) -> None:
        self.outlines = outlines
        self.granularity = granularity
        self._keys: dict[Citation, list[tuple[str, tuple[int, int]]]] = {}
        self.outline_unknown: dict[Citation, tuple[frozenset[str] | None, str]] = {}
        """Expected sections some deeper sections of whose document may or may not lie
        inside them: those sections (None: every deeper one, when the document's text
        cannot be read), and why. Such a section retrieved can be neither credited nor
        refused credit (the caller refuses the run)."""

    def targets(self, expected: Sequence[Citation]) -> Targets:
        """An item's targets; a source listed twice counts once (`validate` warns about it):
        counted twice, it could never all be found, and recall would stop at a half."""
        if len(set(expected)) != len(expected):
            expected = list(dict.fromkeys(expected))
        if self.granularity == "document":
            docs = list(dict.fromkeys(c.doc for c in expected))
            return Targets(len(docs), {doc: (i,) for i, doc in enumerate(docs)})
        ranked: dict[str, list[tuple[tuple[int, int], int]]] = {}
        documents: dict[str, list[int]] = {}
        for i, source in enumerate(expected):
            if source.section is None:
                documents.setdefault(source.doc, []).append(i)
                continue
            for key, order in self._keys.get(source) or self.keys(source):
                ranked.setdefault(key, []).append((order, i))
        exact = {
            key: (found[0][1],) if len(found) == 1 else tuple(i for _, i in sorted(found))
            for key, found in ranked.items()
        }
        return Targets(len(expected), exact, {d: tuple(ids) for d, ids in documents.items()})

    def keys(self, source: Citation) -> list[tuple[str, tuple[int, int]]]:
        """The retrieved citations an expected section matches, each with its order among
        an item's candidates: the section itself first, then the sections inside it (the
        deeper the section holding them, the sooner)."""
        found = self._keys.get(source)
        if found is None:
            doc, section = source
            assert section is not None
            found = [(f"{doc}#{section}", (0, 0))]
            inner = self.inside(source)
            if inner:
                depth = -self.outlines.level(doc, section)
                found += [(f"{doc}#{part}", (1, depth)) for part in inner]
            self._keys[source] = found
        return found

    def inside(self, source: Citation) -> list[str]:
        """The sections inside an expected section (itself excluded), from the snapshot."""
        doc, section = source
        assert section is not None
        view = self.outlines.view(doc) if self.outlines.snapshot else None
        if view is None and self.outlines.deeper(doc, section):
            why = self.outlines.unreadable.get(doc, "its text cannot be read")
            self.outline_unknown[source] = (None, why)
        if view is None or section not in view.parts:
            return []
        if view.uncertain:
            level = view.parts[section].level
            unsure = frozenset(
                s for s in view.uncertain if s != section and view.parts[s].level > level
            )
            if unsure or section in view.uncertain:
                deeper = unsure or frozenset(
                    p.id for p in view.parts.values() if p.level > level
                )  # the expected section's own place is unsure: so is all it holds
                self.outline_unknown[source] = (
                    deeper,
                    f"the snapshot's text of {doc} holds the heading and text of "
                    f"{', '.join(sorted(view.uncertain)[:3])} in more than one place that fits "
                    "(an empty section whose heading is a word of another's text, or two "
                    "sections alike); give each such section a line of its own text, or "
                    "another heading, then snapshot again",
                )
        return [s for s in view.inside(section) if s != section]


def candidates(targets: Targets, citations: Sequence[str], granularity: Granularity) -> list[int]:
    """The expected sources an entry standing for ``citations`` matches, most specific
    first."""
    found: list[int] = []
    for text in citations:
        if granularity == "document":
            found.extend(targets.exact.get(text.partition("#")[0], ()))
            continue
        found.extend(targets.exact.get(text, ()))
        if targets.documents:
            found.extend(targets.documents.get(text.partition("#")[0], ()))
    return found


def credited_ranks(
    targets: Targets, entries: Sequence[Sequence[str]], granularity: Granularity
) -> list[int]:
    """The ranks (from 1) of the entries credited with an expected source; ``entries[r]``
    holds the citations entry r + 1 stands for (one, usually; none when unresolved)."""
    credited: set[int] = set()
    ranks: list[int] = []
    seen: set[str] = set()
    for rank, citations in enumerate(entries, 1):
        if seen.issuperset(citations):  # a repeat (of sections earlier entries stood for,
            continue  # one by one or together) finds nothing new
        seen.update(citations)
        for i in candidates(targets, citations, granularity):
            if i not in credited:
                credited.add(i)
                ranks.append(rank)
                break
        if len(credited) == targets.count:
            break
    return ranks


def credited_ranks_plain(targets: Targets, entries: Sequence[str]) -> list[int]:
    """``credited_ranks`` at section granularity for entries that are all plain citations,
    looking up only the few citations that match anything (the common case, kept fast): an
    item expects a handful of sections, a run retrieves tens of entries for it."""
    exact = targets.exact
    if targets.documents:
        return credited_ranks(targets, [(e,) for e in entries], "section")
    found = exact.keys() & entries
    if not found:
        return []
    hits = sorted((entries.index(text) + 1, exact[text]) for text in found)  # repeats: none
    # (the ranks differ, so the candidates are never compared)
    credited: set[int] = set()
    ranks: list[int] = []
    for rank, candidates in hits:
        for i in candidates:
            if i not in credited:
                credited.add(i)
                ranks.append(rank)
                break
    return ranks
