"""Adding an item by hand and retiring items: the two edits people make most without a tool
that writes the labels for them."""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalset.errors import EditRefused
from evalset.sets.editor import edit_set
from evalset.sets.model import PLACEHOLDER
from evalset.sets.standins import refuse_reserved

_NUMBERED = re.compile(r"^(.*?)(?<!\d)(\d{1,6})$")
"""A numbered id: a prefix, and the one to six digits it ends in."""
HASH_ID = re.compile(r"q-[0-9a-f]{8}")
"""The ids promote and import give: ``q-`` and 8 hex digits of a hash of the question."""


def next_id(ids: list[str]) -> str:
    """A fresh id that continues the set's numbering: the prefix and width most of its
    numbered ids use (``q-007`` -> ``q-008``; on a tie, those of the first in the file),
    one past the highest of them; ``q-001`` for a set without any. An id is numbered when
    it ends in one to six digits; promote's and import's hashes (``HASH_ID``, such as
    ``q-a14b1599``) are not numbering, though some end in digits. The id is one that no
    item has in any case (``Q-008`` takes ``q-008``: tools that compare ids without case
    would take the two for one)."""
    numbered = [m for i in ids if not HASH_ID.fullmatch(i) and (m := _NUMBERED.match(i))]
    if not numbered:
        prefix, width, highest = "q-", 3, 0
    else:
        counts = Counter((m.group(1), len(m.group(2))) for m in numbered)
        (prefix, width), _ = counts.most_common(1)[0]
        highest = max(int(m.group(2)) for m in numbered if m.group(1) == prefix)
    taken = {i.casefold() for i in ids}
    number = highest + 1
    while f"{prefix}{number:0{width}d}".casefold() in taken:
        number += 1
    return f"{prefix}{number:0{width}d}"


def new_item(path: Path, question: str | None = None, category: str | None = None) -> str:
    """Append a draft skeleton with a fresh id: the question (or a placeholder), the category
    when given, and empty expected sources and key points to fill in. Returns its id."""
    with edit_set(path) as editor:
        ids = [entry.get("id") for entry in editor.current.raw_items if isinstance(entry, dict)]
        ident = next_id([i for i in ids if isinstance(i, str)])
        entry: dict[str, Any] = {"id": ident, "question": question or PLACEHOLDER}
        if category:
            entry["category"] = category
        entry.update({"status": "draft", "expected_sources": [], "key_points": []})
        editor.append_items([entry])
    return ident


@dataclass
class Retired:
    retired: list[str] = field(default_factory=list)
    already: list[str] = field(default_factory=list)
    """Items that were retired before."""


def retire(path: Path, ids: list[str], reason: str, today: dt.date | None = None) -> Retired:
    """Set ``status: retired`` on items, with the date and reason as a comment on that line
    (retired items are kept for history; releases and exports leave them out)."""
    if not ids:
        raise EditRefused("name the items to retire.")
    if not reason.strip():
        raise EditRefused("say why the items are retired: --reason TEXT.")
    control = next((c for c in reason if unicodedata.category(c) == "Cc" and not c.isspace()), None)
    if control is not None:
        raise EditRefused(
            f"--reason holds the control character U+{ord(control):04X}, which the comment "
            "that records it cannot hold; write the reason without it. Nothing was retired."
        )
    refuse_reserved(reason, "--reason")
    note = f"{(today or dt.date.today()).isoformat()}: {' '.join(reason.split())}"
    result = Retired()
    with edit_set(path) as editor:
        statuses = {
            entry.get("id"): entry.get("status", "active")
            for entry in editor.current.raw_items
            if isinstance(entry, dict)
        }
        for ident in dict.fromkeys(ids):  # an id named twice is retired (and noted) once
            if ident not in statuses:
                invalid = editor.current.not_valid(ident)  # its id not written as text
                if invalid is not None:
                    raise EditRefused(f"{invalid}, then retire it again; nothing was retired.")
                hint = editor.current.did_you_mean(ident)
                raise EditRefused(f"{path}: has no item {ident!r}{hint}; nothing was retired.")
            if statuses[ident] == "retired":
                result.already.append(ident)
                continue
            editor.edit_item(ident, _retired(note))
            result.retired.append(ident)
    return result


def _retired(note: str) -> Any:
    def edit(entry: Any) -> None:
        entry["status"] = "retired"
        if not hasattr(entry, "yaml_add_eol_comment"):
            return
        token = (entry.ca.items.get("status") or [None, None, None])[2]
        if token is None or not isinstance(getattr(token, "value", None), str):
            # two spaces after the value (the library would line it up with the comment of
            # another field, however far right that is)
            from ruamel.yaml.error import CommentMark
            from ruamel.yaml.tokens import CommentToken

            slots = entry.ca.items.setdefault("status", [None, None, None, None])
            slots[2] = CommentToken(f" # retired {note}", CommentMark(0))
            return
        # The comment the line has, and the comment lines after it (which the YAML library
        # keeps in the same token), are kept: the note is added to the line's own comment.
        first, newline, rest = token.value.partition("\n")
        said = first.strip()
        if said:
            lead = first[: len(first) - len(first.lstrip())]
            token.value = f"{lead}{said}; retired {note}{newline or chr(10)}{rest}"
        else:
            token.value = f"  # retired {note}\n{rest}"

    return edit
