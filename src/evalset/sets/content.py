"""What an item's content is, and its fingerprint: ``sha256:`` over canonical JSON (sorted
keys, no spaces) of that content without its default values.

An item's **content** is what a score on it depends on: its id, question, category,
answerability, expected sources, key points (text and sources), must_not_say, answer,
holdout side and status. **Provenance and bookkeeping** are left out (``BOOKKEEPING``):
``origin`` (kind, traces, date, observed answer, retrieved, note, redactions), ``verified``
(which snapshot a person last checked it against), ``holdout_moves`` (the record of a
forced move; the side itself is content) and ``tags``. Tags are free labels for filtering:
they change neither what the item asks nor what a correct answer is, so a score on the item
is the same whatever its tags, and retagging must not make a released set ``+modified`` or
drop the item from a comparison of two runs. A header's content is its ``name`` and
``categories``; ``description`` is prose about the system, ``snapshot`` obsolete, and
``version``/``fingerprint`` are what a release writes.

So comments, key order, quoting, blank lines, an explicitly written default
(``answerable: true``), promoting a duplicate failure (a trace appended to
``origin.traces``) or re-verifying never change a fingerprint, and any change of a label
does. Sealed items store theirs beside their ciphertext, so it is known without the key.
Set fingerprints (``evalset.sets.fingerprint``) are built from these.

Format 1 (evalset 0.1) hashed every field, provenance included. It is still computed for
releases whose tags recorded it, so ``check-pin``, ``log`` and ``status`` keep working on
them.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from evalset.sets.model import Item, SetHeader

FINGERPRINT_FORMAT = 2
"""The fingerprint format this version computes; pins and release tags record it."""
FORMATS = (1, 2)
BOOKKEEPING = frozenset({"origin", "verified", "holdout_moves", "tags"})
"""Item fields that are provenance or bookkeeping, not content (format 2 on)."""
HEADER_BOOKKEEPING = frozenset({"description", "snapshot", "version", "fingerprint"})
"""Header fields that are not content (format 2 on); format 1 left out only the last two."""


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""What ``json.dumps`` with these options builds on each call (a set has 10,000 items)."""


def canonical(value: Any) -> bytes:
    """Canonical JSON: sorted keys, no spaces, UTF-8."""
    return _CANONICAL.encode(value).encode()


def sha256_of(value: Any) -> str:
    """``sha256:`` and the hex digest of ``value``'s canonical JSON."""
    return "sha256:" + hashlib.sha256(canonical(value)).hexdigest()


def item_content(item: Item, fmt: int = FINGERPRINT_FORMAT) -> dict[str, Any]:
    """The item as its fingerprint sees it: content fields only, defaults left out."""
    exclude = set(BOOKKEEPING) if fmt >= 2 else set()
    return item.model_dump(mode="json", exclude_defaults=True, exclude=exclude)


def item_fingerprint(item: Item, fmt: int = FINGERPRINT_FORMAT) -> str:
    return sha256_of(item_content(item, fmt))


def header_content(header: SetHeader, fmt: int = FINGERPRINT_FORMAT) -> dict[str, Any]:
    """The header as the set fingerprint sees it."""
    exclude = set(HEADER_BOOKKEEPING) if fmt >= 2 else {"version", "fingerprint"}
    return header.model_dump(mode="json", exclude=exclude, exclude_defaults=True)
