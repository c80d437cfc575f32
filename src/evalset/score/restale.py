"""Re-checking the claims of stale items with a judge (`evalset stale --judge J`).

For each stale item, every key point is checked against the text its sources have now,
and every must_not_say entry against the text of all the item's citations now; each also
against the text the item was verified on, so that what changed stands out:

Key points: ``supported`` (the new text still asserts it), ``no_longer_supported`` (the
verified text asserted it, the new text does not: re-read it first), ``not_found`` (the
judge finds it in neither text, so it says nothing about the change), ``unknown`` (no text
to check: a section gone without a similar one, texts not stored; or the judge could not
decide).

must_not_say entries: ``now_asserted`` (the new text asserts it and the verified text did
not: a policy change may have made the wrong answer right), ``asserted`` (both texts do),
``not_asserted`` (the new text does not), ``unknown`` (as above).

A citation that moved is checked at its new place; one deleted, against its most similar
section when there is one (said in ``note``). Nothing is marked verified: the reviewer
starts from the claims that broke. A holdout item's claims are shown by index only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalset.corpus.manifest import Snapshot, SnapshotStore
from evalset.score.judges.base import Request, Verdict
from evalset.score.judges.runner import Judging, Result, outcome_text
from evalset.sets.model import Item, hidden_judge_error
from evalset.sets.setfile import load_set
from evalset.staleness.stale import CitationStatus, ItemStatus, StaleReport


@dataclass
class ClaimCheck:
    kind: str
    """``key_point`` or ``must_not_say``."""
    index: int
    text: str | None
    """None for a holdout item."""
    status: str
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {"index": self.index, "status": self.status}
        if self.text is not None:
            found["text"] = self.text
        if self.note:
            found["note"] = self.note
        return found


@dataclass
class ItemClaims:
    set: str
    id: str
    key_points: list[ClaimCheck] = field(default_factory=list)
    must_not_say: list[ClaimCheck] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "key_points": [c.to_json() for c in self.key_points],
            "must_not_say": [c.to_json() for c in self.must_not_say],
        }


_Claim = tuple[str, int, str, str | None, str | None, str]
"""kind, index, claim, text when verified, text now, note."""


def _section_text(snap: Snapshot | None, citation: str) -> str | None:
    if snap is None:
        return None
    doc, _, section = citation.partition("#")
    entry = snap.documents.get(doc)
    if entry is None:
        return None
    part = entry if not section else entry["sections"].get(section)
    text = part.get("text") if part is not None else None
    return text if isinstance(text, str) else None


def _texts(
    status: ItemStatus, store: SnapshotStore, newest: Snapshot
) -> tuple[dict[str, str | None], dict[str, str | None], dict[str, str]]:
    """Per citation of the item: its text when verified, its text now, and a note."""
    old_snap = store.get(status.verified) if status.verified else None
    old: dict[str, str | None] = {}
    new: dict[str, str | None] = {}
    notes: dict[str, str] = {}
    for c in status.citations:
        old[c.citation] = c.old_text or _section_text(old_snap, c.citation)
        new[c.citation] = _now(c, newest, notes)
    return old, new, notes


def _now(c: CitationStatus, newest: Snapshot, notes: dict[str, str]) -> str | None:
    if c.status == "moved" and c.new:
        notes[c.citation] = f"checked at {c.new}, where its text is now"
        return _section_text(newest, c.new)
    if c.status == "deleted":
        if c.candidates and c.candidate_text is not None:
            notes[c.citation] = f"the section is gone; checked against {c.candidates[0]}"
            return c.candidate_text
        notes[c.citation] = "the section is gone and nothing like it exists"
        return None
    return c.new_text or _section_text(newest, c.citation)


def _joined(texts: dict[str, str | None], citations: list[str]) -> str | None:
    found = [texts.get(c) for c in citations]
    known = [t for t in found if t]
    return "\n\n".join(known) if known else None


def recheck(
    report: StaleReport, store: SnapshotStore, judging: Judging
) -> dict[tuple[str, str], ItemClaims]:
    """The claims of every stale item of ``report``, checked by the judge."""
    newest = store.newest()
    if newest is None or not report.items:
        return {}
    items: dict[tuple[str, str], Item] = {}
    for path in dict.fromkeys(s.file for s in report.items):
        loaded = load_set(path)
        items.update({(loaded.name, i.id): i for i in loaded.items})
    plans: list[tuple[ItemStatus, Item, list[_Claim]]] = []
    requests: list[Request] = []
    hidden: list[Request] = []
    for status in report.items:
        item = items.get((status.set, status.id))
        if item is None:
            continue
        old, new, notes = _texts(status, store, newest)
        every = [c.citation for c in status.citations]
        claims = []
        for k, point in enumerate(item.key_points):
            sources = [str(c) for c in point.sources] or every
            note = "; ".join(notes[c] for c in sources if c in notes)
            claims.append(("key_point", k, point.text, _joined(old, sources),
                           _joined(new, sources), note))  # fmt: skip
        note = "; ".join(dict.fromkeys(notes.values()))
        for k, entry in enumerate(item.must_not_say):
            claims.append(("must_not_say", k, entry, _joined(old, every), _joined(new, every),
                           note))  # fmt: skip
        for _, _, claim, before, after, _ in claims:
            asked = [Request("entails", t, claim) for t in (before, after) if t]
            requests += asked
            if item.holdout:  # a broken judge's output may quote the claim
                hidden += asked
        plans.append((status, item, claims))
    results = judging.run(requests, hidden)
    found: dict[tuple[str, str], ItemClaims] = {}
    for status, item, claims in plans:
        out = ItemClaims(status.set, status.id)
        for kind, k, claim, before, after, note in claims:
            was = _decide(results, before, claim)
            now = _decide(results, after, claim)
            shown = None if item.holdout else claim
            problem = next((r for r in (was, now) if isinstance(r, str)), None)
            if problem and item.holdout:
                # What a judge says of a claim may quote it, as a model's reply can.
                problem = hidden_judge_error(True)
            said = problem or note or None
            if kind == "key_point":
                out.key_points.append(ClaimCheck(kind, k, shown, _key_point(was, now), said))
            else:
                out.must_not_say.append(ClaimCheck(kind, k, shown, _entry(was, now), said))
        found[(status.set, status.id)] = out
    return found


def _decide(results: dict[Request, Result], text: str | None, claim: str) -> bool | str | None:
    """True/False; None when there is no text; the failure's text when the judge failed."""
    if not text:
        return None
    result = results.get(Request("entails", text, claim))
    if isinstance(result, Verdict):
        return result.value
    return outcome_text(result) if result is not None else "not judged"


def _key_point(was: bool | str | None, now: bool | str | None) -> str:
    if now is True:
        return "supported"
    if now is not False:
        return "unknown"
    if was is True:
        return "no_longer_supported"
    return "not_found"


def _entry(was: bool | str | None, now: bool | str | None) -> str:
    if now is True:
        return "asserted" if was is True else "now_asserted"
    if now is False:
        return "not_asserted"
    return "unknown"


LABELS = {
    "supported": "still supported",
    "no_longer_supported": "NO LONGER SUPPORTED",
    "not_found": "not found by the judge in the old or new text",
    "now_asserted": "NOW ASSERTED by the new text",
    "asserted": "asserted by the old and the new text",
    "not_asserted": "not asserted",
    "unknown": "not checked",
}


def claim_lines(claims: ItemClaims, judge: str) -> list[str]:
    """What `evalset stale --judge` prints under an item's citations."""
    out = [f"claims (judge {judge}):"]
    for check in [*claims.key_points, *claims.must_not_say]:
        what = "key point" if check.kind == "key_point" else "must_not_say"
        line = f"  {what} {check.index + 1}: {LABELS[check.status]}"
        if check.text is not None:
            line += f": {check.text}"
        if check.note:
            line += f" ({check.note})"
        out.append(line)
    return out
