"""Word diffs of section texts, and where inside a parent section a change happened.

A section's text includes its subsections (it runs to the next heading of the same or a
higher level), so a citation of a parent section changes when only one of its subsections
does. ``subsection_changes`` keeps that rule but says which part changed: the parent's own
text (before its first subsection), or which direct subsection was changed, added or
removed, each with its own old and new text.

Manifests keep sections by id, not in document order, so a subsection is recognised by its
text: a section of a deeper level whose heading and text appear in the parent's text.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evalset.corpus.outline import view_of


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    """Word-level diff as (op, text) runs: op is '=', '-' or '+'."""
    a, b = old.split(), new.split()
    runs: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            runs.append(("=", " ".join(a[i1:i2])))
            continue
        if op in ("delete", "replace"):
            runs.append(("-", " ".join(a[i1:i2])))
        if op in ("insert", "replace"):
            runs.append(("+", " ".join(b[j1:j2])))
    return runs


def diff_text(old: str, new: str) -> str:
    """The whole word diff in wdiff's notation: ``[-removed-]`` and ``{+added+}``."""
    out = []
    for op, text in word_diff(old, new):
        out.append(text if op == "=" else f"[-{text}-]" if op == "-" else f"{{+{text}+}}")
    return " ".join(out)


@dataclass
class PartChange:
    """A change inside a cited section: its own text, or one of its direct subsections."""

    section: str
    """The citation of the part: the cited section itself for its own text."""
    status: str
    """changed, added, removed, or renamed (its heading reworded over the same text)."""
    old: str | None
    new: str | None
    was: str | None = None
    """renamed: the subsection's citation before."""
    heading: tuple[str, str] | None = None
    """renamed: its heading before and now."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"section": self.section, "status": self.status}
        data["old"], data["new"] = self.old, self.new
        if self.old is not None and self.new is not None:
            data["diff"] = diff_text(self.old, self.new)
        if self.was is not None:
            data["was"] = self.was
        if self.heading is not None:
            data["heading"] = {"was": self.heading[0], "now": self.heading[1]}
        return data


def _block(section: Mapping[str, Any]) -> str:
    title, text = section.get("title") or "", section.get("text") or ""
    return f"{title} {text}".strip()


def _children(
    doc: Mapping[str, Any], parent_id: str, parent_text: str
) -> dict[str, Mapping[str, Any]]:
    """The direct subsections of a section: those inside it, by where the document's text
    places each (``evalset.corpus.outline``: a subsection repeated word for word under
    another section, ``### Exceptions`` with the same line under two, is placed by its
    anchor's number), else by their text inside the parent's."""
    sections = doc["sections"]
    view = view_of("", doc) if "text" in doc else None
    if view is not None and view.spans is not None and parent_id in view.parts:
        inside = {
            sid: sections[sid]
            for sid in view.inside(parent_id)
            if sid != parent_id and sections[sid].get("text") is not None
        }
        return {
            sid: section
            for sid, section in inside.items()
            if not any(view.within(sid, oid) for oid in inside if oid != sid)
        }
    level = sections[parent_id].get("level", 0)
    inside = {
        sid: section
        for sid, section in sections.items()
        if sid != parent_id
        and section.get("level", 0) > level
        and section.get("text") is not None
        and _block(section)
        and _block(section) in parent_text
    }
    return {
        sid: section
        for sid, section in inside.items()
        if not any(
            other["level"] < section["level"] and _block(section) in _block(other)
            for oid, other in inside.items()
            if oid != sid
        )
    }


def _own_text(text: str, children: Mapping[str, Mapping[str, Any]]) -> str:
    for child in children.values():
        text = text.replace(_block(child), " ", 1)
    return " ".join(text.split())


def subsection_changes(
    citation: str,
    section_id: str,
    old_doc: Mapping[str, Any] | None,
    new_doc: Mapping[str, Any] | None,
    old_text: str,
    new_text: str,
) -> list[PartChange]:
    """Which parts of a changed parent section changed (see the module docstring); empty
    when the section has no subsections in either version, or their texts are unknown."""
    if old_doc is None or new_doc is None:
        return []
    old_sections, new_sections = old_doc.get("sections", {}), new_doc.get("sections", {})
    if section_id not in old_sections or section_id not in new_sections:
        return []
    before = _children(old_doc, section_id, old_text)
    after = _children(new_doc, section_id, new_text)
    if not before and not after:
        return []
    doc = citation.split("#", 1)[0]
    parts: list[PartChange] = []
    own_old, own_new = _own_text(old_text, before), _own_text(new_text, after)
    if own_old != own_new:
        parts.append(PartChange(citation, "changed", own_old, own_new))
    order = sorted(
        {*before, *after},
        key=lambda sid: (new_text.find(_block(after[sid])) if sid in after else -1, sid),
    )
    for sid in order:
        old_part = before[sid].get("text") if sid in before else None
        new_part = after[sid].get("text") if sid in after else None
        if old_part == new_part:
            continue
        status = (
            "changed"
            if sid in before and sid in after
            else "added"
            if sid in after
            else ("removed")
        )
        parts.append(PartChange(f"{doc}#{sid}", status, old_part, new_part))
    return _renamed(parts, before, after)


def _renamed(
    parts: list[PartChange],
    before: Mapping[str, Mapping[str, Any]],
    after: Mapping[str, Mapping[str, Any]],
) -> list[PartChange]:
    """``parts`` with each subsection removed whose text, not empty, is exactly that of one
    added (its heading reworded, the text kept) told as one part, ``renamed``, where the one
    added was: a person reads "Damaged -> Damaged goods", not the same text twice."""
    added = {p.new: p for p in parts if p.status == "added" and p.new}
    out: list[PartChange] = []
    paired: set[int] = set()
    for part in parts:
        match = added.get(part.old) if part.status == "removed" and part.old else None
        if match is None or id(match) in paired:
            continue
        paired.update((id(match), id(part)))
        old_id, new_id = part.section.split("#", 1)[1], match.section.split("#", 1)[1]
        title = (str(before[old_id].get("title") or ""), str(after[new_id].get("title") or ""))
        match.status, match.old, match.was, match.heading = "renamed", part.old, part.section, title
    for part in parts:
        if id(part) not in paired or part.status == "renamed":
            out.append(part)
    return out
