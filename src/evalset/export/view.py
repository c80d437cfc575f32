"""A view of a set for export: the active items of one split, the set's pin, and the text of
the sections they cite. Each format module writes a ``View``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evalset.config import Workspace
from evalset.corpus.manifest import Snapshot, SnapshotStore
from evalset.errors import EvalsetError
from evalset.sets.citations import Citation
from evalset.sets.model import Item
from evalset.sets.setfile import SetFile

SPLITS = ("tuning", "holdout", "all")


class ExportError(EvalsetError):
    """A view cannot be exported as asked."""


class ExportRefused(ExportError):
    """The set cannot be exported as it is (invalid, or with stale items): a finding about
    the set, exit 1, as `release` and `score` refuse it."""

    exit_code = 1


class Unwritable(ExportError):
    """A text of an item that a format cannot carry (a NUL character in a CSV cell), which
    the export names with the set file's position of it."""

    def __init__(self, item: str, field: str, problem: str) -> None:
        super().__init__(f"item {item}: {field}: {problem}")
        self.item, self.field, self.problem = item, field, problem


@dataclass
class View:
    """The rows a format writes, with what it needs to write them."""

    set: str
    split: str
    items: list[Item]
    pin: dict[str, Any]
    """``{"set", "version", "fingerprint", "fingerprint_format", "snapshot"}`` of the set the
    view was taken of."""
    text_of: Callable[[Item, Citation], str | None]
    """The text of a section (or document) an item cites, as the snapshot the item was
    verified against has it (``texts``), when known."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Item id -> why a format could not write it."""
    unknown: dict[str, list[str]] = field(default_factory=dict)
    """Item id -> the citations whose text a format asked for and no snapshot, working
    tree or history here holds (their contexts went out empty)."""
    categories: dict[str, str] = field(default_factory=dict)
    """The set's declared categories (name -> meaning), for formats that carry them."""

    def context(self, item: Item, citation: Citation) -> str | None:
        """``text_of``, remembering a citation whose text is not known (``unknown``)."""
        text = self.text_of(item, citation)
        if text is None:
            self.unknown.setdefault(item.id, []).append(str(citation))
        return text

    def metadata(self, item: Item) -> dict[str, Any]:
        data: dict[str, Any] = {"evalset_id": item.id, "category": item.category}
        data["split"] = split_of(item)
        data["tags"] = list(item.tags)
        if item.verified:
            data["verified"] = item.verified
        data["evalset"] = dict(self.pin)
        return data


def split_of(item: Item) -> str | None:
    """tuning, holdout, or None for an item with no assignment yet (only in ``all``)."""
    return None if item.holdout is None else "holdout" if item.holdout else "tuning"


def origin_of(item: Item) -> dict[str, Any] | None:
    """An item's origin as the exports write it: its non-default fields, and its kind
    always (left out as the default, ``manual`` would come back from an import as
    ``imported``, a row without a kind being another tool's)."""
    if item.origin is None:
        return None
    return {"kind": item.origin.kind, **item.origin.model_dump(mode="json", exclude_defaults=True)}


def select(loaded: SetFile, split: str) -> tuple[list[Item], int]:
    """The active items of a split, and how many active items have no assignment yet (they
    are in no split but ``all``)."""
    if split not in SPLITS:
        raise ExportError(f"{split!r} is not a split; use tuning, holdout or all.")
    active = [item for item in loaded.items if item.status == "active"]
    unassigned = sum(1 for item in active if item.holdout is None)
    if split == "tuning":
        return [item for item in active if item.holdout is False], unassigned
    if split == "holdout":
        return [item for item in active if item.holdout is True], unassigned
    return active, unassigned


def texts(
    workspace: Workspace | None, store: SnapshotStore | None, newest: Snapshot | None
) -> Callable[[Item, Citation], str | None]:
    """The text of a cited section as the item's labels were checked against it: the text
    the item's ``verified`` snapshot recorded (the newest's for an unverified item). For an
    item that is not stale that is also the newest snapshot's text, since every section it
    cites is the same there; for a stale one exported anyway it is the old text, which its
    reference agrees with. A manifest without stored text is completed from where a text
    with that hash can still be read: the newest snapshot's stored text, the working tree,
    or the snapshot's commit through git or DVC."""
    if workspace is None:
        return lambda item, citation: None
    from evalset.corpus.revision import document_versions
    from evalset.sets.resolve import lookup

    def snapshot_of(item: Item) -> Snapshot | None:
        if not item.verified or store is None:
            return newest
        try:
            return store.get(item.verified) or newest
        except EvalsetError:
            return newest

    def text_of(item: Item, citation: Citation) -> str | None:
        snap = snapshot_of(item)
        part = lookup(snap, citation) if snap is not None else None
        if part is None and newest is not None:  # relabelled since (moved, by its content)
            snap, part = newest, lookup(newest, citation)
        if snap is None or part is None:
            return _working_tree_text(workspace, citation)
        if "text" in part:
            text: str | None = part["text"]
            return text
        same = lookup(newest, citation) if newest is not None else None
        if same is not None and same["hash"] == part["hash"] and "text" in same:
            return str(same["text"])
        for version in document_versions(
            workspace.root, snap.corpus, snap.commit, citation.doc, snap.hash_mode
        ):
            found = (
                version if citation.section is None else version["sections"].get(citation.section)
            )
            if found is not None and found["hash"] == part["hash"]:
                return found.get("text")
        return None

    return text_of


def _working_tree_text(workspace: Workspace, citation: Citation) -> str | None:
    """The text of a citation in the corpus folder (no snapshot knows it)."""
    from evalset.corpus.revision import document_versions

    mode = workspace.config.hash
    found = document_versions(workspace.root, workspace.config.corpus, None, citation.doc, mode)
    entry = next(iter(found), None)
    if entry is None:
        return None
    if citation.section is None:
        return entry.get("text")
    section = entry["sections"].get(citation.section)
    return section.get("text") if section else None


DECLINES = (
    "The documents available do not answer this question; a correct response says so and "
    "declines to answer rather than guessing."
)
"""The reference of an unanswerable item, for tools that score every row against one."""


def short_answer(item: Item) -> str | None:
    """An item's short answer as a tool compares it literally (promptfoo's ``icontains``,
    OpenAI Evals' ``Match`` and ``Includes``, Ragas' ``StringPresence``): without the white
    space around it, which the ``exact`` judge ignores too. An answer written as a block
    scalar (``answer: |``) keeps its final line break, and ``icontains "14 days\\n"`` failed
    answers the judge accepted."""
    return None if item.answer is None else item.answer.strip()


def reference_answer(item: Item) -> str | None:
    """The reference a reference-based metric compares with: the key points as sentences
    (every fact a correct answer must state), the short answer when there are none
    (``short_answer``), and ``DECLINES`` for an item the corpus cannot answer."""
    if not item.answerable:
        return DECLINES
    if item.key_points:
        return " ".join(sentence(p.text) for p in item.key_points)
    return short_answer(item)


_ENDS = ".!?\u2026\u203c\u203d\u2047\u2048\u2049\u3002\uff01\uff1f\uff61\u061f\u06d4\u0964\u0965"
"""What ends a sentence: a full stop, an exclamation or a question mark, an ellipsis, and
their forms in CJK, Arabic and Devanagari text."""
_CLOSERS = "\"')]}\u2019\u201d\u00bb\u203a\u300d\u300f\uff09"
"""What may follow the end of a sentence: closing quotes and brackets (``"Open 9 to 5."``)."""


def sentence(text: str) -> str:
    """A key point as a sentence of a reference: as it is when it ends as one does (``Is it
    open?``, ``Hours vary...``, ``The sign says "Open."``), else with a full stop in place
    of a trailing comma, semicolon or colon. Before, the trailing full stops were
    stripped and one added, giving ``Yes!.`` and ``vary.``."""
    text = text.rstrip()
    last = text.rstrip(_CLOSERS)[-1:]
    if last and last in _ENDS:
        return text
    return text.rstrip(",;:") + "."
