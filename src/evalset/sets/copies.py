"""Plain copies of the items other sets of a workspace keep sealed.

A sealed holdout keeps its questions and labels from whoever has the repository without the
key. An export of it (made with the key) imported into another set, or pasted into one,
would write them in plain text again, for a commit to put into git history. A sealed item
shows its content fingerprint, so an exact copy is found without the key; with the key, a
question that is a near duplicate of a sealed one is found too. (Within one set, a holdout
item left plain beside sealed ones and a tuning question near a holdout one are the leak
rules of `validate`.)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from evalset.errors import EvalsetError
from evalset.sets.content import item_fingerprint
from evalset.sets.findings import Finding
from evalset.sets.model import PLACEHOLDER, Item
from evalset.sets.setfile import SetFile, load_set
from evalset.workspace import SET_SUFFIXES

SEALED_MARK = "-----BEGIN AGE ENCRYPTED FILE-----"
"""Written in every sealed item: a set file without it holds none, and is not parsed."""


@dataclass(frozen=True)
class SealedElsewhere:
    """A sealed item of a set file, as the check of another file's items sees it."""

    set: str
    """The name of the set that holds it."""
    id: str
    fingerprint: str
    fingerprint_format: int
    question: str | None
    """Its question, when the key opened it."""


class SealedBeside:
    """The sealed items of the set files beside a set file (in its folder, a workspace's
    sets folder), each file read once: one that holds no sealed item is not parsed, and one
    already loaded (``add``) not read again."""

    def __init__(self) -> None:
        self._by_file: dict[Path, list[SealedElsewhere]] = {}

    def add(self, loaded: SetFile) -> None:
        """Take the sealed items of a set file loaded already."""
        self._by_file[loaded.path.resolve()] = list(_sealed_of(loaded))

    def others(self, path: Path) -> list[SealedElsewhere]:
        """The sealed items of the set files beside ``path`` (opened where the key opens
        them). A file that cannot be read is passed over: its own validation says why."""
        own = path.resolve()
        found: list[SealedElsewhere] = []
        for other in sorted(own.parent.iterdir()):
            if other == own or other.suffix not in SET_SUFFIXES or not other.is_file():
                continue
            if other not in self._by_file:
                self._by_file[other] = _read_sealed(other)
            found.extend(self._by_file[other])
        return found


def _read_sealed(path: Path) -> list[SealedElsewhere]:
    try:
        if SEALED_MARK not in path.read_text(encoding="utf-8", errors="replace"):
            return []
        return list(_sealed_of(load_set(path)))
    except (OSError, EvalsetError):
        return []


def _sealed_of(loaded: SetFile) -> Iterable[SealedElsewhere]:
    opened = dict(zip(loaded.item_index, loaded.items, strict=True))
    for k, stub in sorted(loaded.sealed_forms.items()):
        item = opened.get(k) if k in loaded.opened else None
        yield SealedElsewhere(
            loaded.name,
            stub.id,
            stub.sealed.fingerprint,
            stub.sealed.fingerprint_format,
            item.question if item is not None and item.question != PLACEHOLDER else None,
        )


def copies_of_sealed(
    items: list[Item], sealed: list[SealedElsewhere]
) -> list[tuple[int, SealedElsewhere, bool]]:
    """For the ``items`` that copy a sealed item: (their index in ``items``, the sealed
    item, whether the copy is by its content fingerprint; else by a near-duplicate
    question, which only an opened sealed item shows)."""
    if not sealed or not items:
        return []
    by_print = {(s.fingerprint_format, s.fingerprint): s for s in sealed}
    formats = sorted({s.fingerprint_format for s in sealed})
    found: dict[int, tuple[SealedElsewhere, bool]] = {}
    for n, item in enumerate(items):
        for fmt in formats:
            match = by_print.get((fmt, item_fingerprint(item, fmt)))
            if match is not None:
                found[n] = (match, True)
                break
    asking = [n for n, item in enumerate(items) if n not in found and item.question != PLACEHOLDER]
    near = near_sealed_questions([items[n].question for n in asking], sealed)
    for m, other in near.items():
        found[asking[m]] = (other, False)
    return [(n, s, by_content) for n, (s, by_content) in sorted(found.items())]


def near_sealed_questions(
    questions: list[str], sealed: list[SealedElsewhere]
) -> dict[int, SealedElsewhere]:
    """Index in ``questions`` -> the sealed item whose question it is a near duplicate of
    (the rule of `validate`), among those the key opened."""
    from evalset.sets.neardup import near_duplicates_of

    readable = [s for s in sealed if s.question is not None]
    found: dict[int, SealedElsewhere] = {}
    if not readable or not questions:
        return found
    texts = [str(s.question) for s in readable] + questions
    for a, b in near_duplicates_of(texts, range(len(readable))):
        if a < len(readable) <= b:
            found.setdefault(b - len(readable), readable[a])
    return found


def sealed_copy_findings(loaded: SetFile, others: list[SealedElsewhere]) -> list[Finding]:
    """An error on each plain item of ``loaded`` that copies an item another set file holds
    sealed (``others``, ``SealedBeside.others``; within ``loaded`` itself, the leak rules
    judge)."""
    plain = [(k, item) for k, item in zip(loaded.item_index, loaded.items, strict=True)
             if k not in loaded.opened]  # fmt: skip
    found = []
    for n, other, by_content in copies_of_sealed([item for _, item in plain], others):
        k, item = plain[n]
        what = (
            "the same content (by the fingerprint it shows) as"
            if by_content
            else "a question that is a near duplicate of that of"
        )
        found.append(
            loaded.finding(
                "error",
                ("items", k) if by_content else ("items", k, "question"),
                f"{what} item {other.id!r} of {other.set}, which is sealed there: in plain "
                "text, a commit would write the sealed holdout into git history",
                f"delete this item, or seal {loaded.name}'s holdout to keep it there: "
                f"`evalset seal {loaded.name} --recipient KEY`"
                if item.holdout
                else "delete or reword this item: outside the holdout, no seal hides it",
                "sealed-copy",
            )
        )
    return found
