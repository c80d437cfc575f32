"""Where a set's questions point: tuning/holdout counts per category and per cited document,
and the categories and corpus documents no active item covers."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from evalset.config import Workspace
from evalset.corpus.manifest import Snapshot
from evalset.sets.setfile import SetFile

SPLITS = ("tuning", "holdout", "unassigned")


def category_table(loaded: SetFile) -> dict[str, dict[str, int]]:
    """Active items (sealed ones included) per category and split: declared categories
    first, in their order, then any others."""
    from evalset.sets.model import side

    counts: Counter[tuple[str, str]] = Counter(
        (item.category or "(none)", side(item.holdout))
        for item in loaded.entries
        if item.status == "active"
    )
    declared = list(loaded.header.categories) if loaded.header else []
    order = declared + sorted({c for c, _ in counts} - set(declared))
    return {c: {s: counts[(c, s)] for s in SPLITS} for c in order}


@dataclass
class Coverage:
    """One set's coverage. Counts are of active items; sealed items count per category only,
    their citations being unreadable without the key."""

    categories: dict[str, dict[str, int]] = field(default_factory=dict)
    documents: dict[str, dict[str, int]] = field(default_factory=dict)
    """Cited document -> active items citing it, by split."""
    empty_categories: list[str] = field(default_factory=list)
    """Declared categories with no active item."""
    corpus: list[str] | None = None
    """The corpus documents (newest snapshot, else the corpus folder); None when unknown."""
    uncited: list[str] = field(default_factory=list)
    """Corpus documents no active item cites (none in the clear, when ``sealed``: a sealed
    item may)."""
    sealed: int = 0
    """Sealed active items, whose citations are not counted."""

    def to_json(self) -> dict[str, Any]:
        return {
            "categories": self.categories,
            "documents": self.documents,
            "empty_categories": self.empty_categories,
            "corpus_documents": len(self.corpus) if self.corpus is not None else None,
            "uncited_documents": self.uncited,
            "sealed_items_not_counted": self.sealed,
        }


def corpus_documents(
    workspace: Workspace | None, newest: Snapshot | None = None
) -> list[str] | None:
    """Documents of the newest snapshot (``newest``, when the caller has it), else of the
    corpus folder, else None."""
    if workspace is None:
        return None
    if newest is None:
        from evalset.corpus.current import workspace_store

        newest = workspace_store(workspace).newest()
    if newest is not None:
        return sorted(newest.documents)
    if not workspace.corpus_dir.is_dir():
        return None
    from evalset.corpus.walk import scan

    return sorted(scan(workspace.corpus_dir).files)


def coverage(loaded: SetFile, corpus: list[str] | None) -> Coverage:
    from evalset.sets.model import item_citations, side

    result = Coverage(corpus=corpus, categories=category_table(loaded))
    result.sealed = sum(1 for stub in loaded.sealed if stub.status == "active")
    by_document: Counter[tuple[str, str]] = Counter()
    for item in loaded.items:
        if item.status == "active":
            for doc in dict.fromkeys(c.doc for c in item_citations(item)):
                by_document[(doc, side(item.holdout))] += 1
    declared = list(loaded.header.categories) if loaded.header else []
    result.empty_categories = [c for c in declared if not sum(result.categories[c].values())]
    for doc in sorted({d for d, _ in by_document}):
        result.documents[doc] = {s: by_document[(doc, s)] for s in SPLITS}
    if corpus is not None:
        result.uncited = [doc for doc in corpus if doc not in result.documents]
    return result
