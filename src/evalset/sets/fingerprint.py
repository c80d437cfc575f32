"""Fingerprints, version numbers and pins: what names the exact content a score was measured on.

An item's fingerprint is ``sha256:`` over canonical JSON (sorted keys, no spaces) of its
model without default values; the set fingerprint is ``sha256:`` over canonical JSON of the
header (without ``version``/``fingerprint``) and of the active items sorted by id, each
given as ``[id, item fingerprint]``. So comments, key order, quoting, blank lines, an
explicitly written default (``answerable: true``) and fields that later versions of the
format add with a default never change it, and any change of a label does. Drafts and
retired items are not part of the released content.

Item fingerprints let results of two runs on different set versions be compared on the
items that did not change.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalset.errors import EvalsetError
from evalset.sets.model import Item
from evalset.sets.setfile import SetFile, parse_set

ITEM_DIGITS = 16
"""Item fingerprints in a pin are the first 16 hex digits of the item's sha256."""


class InvalidSet(EvalsetError):
    """A set whose content cannot be fingerprinted because it does not pass the schema."""


def _canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _sha256(value: Any) -> str:
    return "sha256:" + hashlib.sha256(_canonical(value)).hexdigest()


def released_items(loaded: SetFile) -> list[Item]:
    """The items a release holds: the active ones, sorted by id."""
    return sorted((i for i in loaded.items if i.status == "active"), key=lambda i: i.id)


def _require_valid(loaded: SetFile) -> None:
    if loaded.header is None or loaded.schema_findings:
        first = loaded.schema_findings[0] if loaded.schema_findings else None
        raise InvalidSet(
            f"{loaded.path}: cannot be fingerprinted while it does not pass the schema"
            f"{f' ({first})' if first else ''}; run `evalset validate` and fix it."
        )


def item_fingerprint(item: Item) -> str:
    return _sha256(item.model_dump(mode="json", exclude_defaults=True))


def item_fingerprints(loaded: SetFile) -> dict[str, str]:
    """``{item id: sha256:…}`` for every active item, sorted by id; a sealed item gives the
    fingerprint stored with it, so the key is not needed."""
    _require_valid(loaded)
    found = {item.id: item_fingerprint(item) for item in released_items(loaded)}
    for stub in loaded.sealed:
        if stub.status == "active":
            found[stub.id] = stub.sealed.fingerprint
    return dict(sorted(found.items()))


def set_fingerprint(loaded: SetFile) -> str:
    """The content fingerprint of a set (see the module docstring)."""
    _require_valid(loaded)
    assert loaded.header is not None
    header = loaded.header.model_dump(
        mode="json", exclude={"version", "fingerprint"}, exclude_defaults=True
    )
    items = [[ident, fp] for ident, fp in item_fingerprints(loaded).items()]
    return _sha256({"header": header, "items": items})


@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int
    patch: int

    @classmethod
    def parse(cls, text: str) -> Version | None:
        match = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)", text.strip())
        return cls(*(int(g) for g in match.groups())) if match else None

    def bump(self, part: str) -> Version:
        if part == "major":
            return Version(self.major + 1, 0, 0)
        if part == "minor":
            return Version(self.major, self.minor + 1, 0)
        return Version(self.major, self.minor, self.patch + 1)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


def counts(loaded: SetFile) -> dict[str, Any]:
    """Item counts of the released content: total, holdout, per declared category."""
    items = [item for item in loaded.entries if item.status == "active"]
    per_category = Counter(item.category for item in items)
    declared = list(loaded.header.categories) if loaded.header else []
    extra = sorted(c for c in per_category if c is not None and c not in declared)
    return {
        "total": len(items),
        "holdout": sum(bool(item.holdout) for item in items),
        "categories": {c: per_category[c] for c in declared + extra},
    }


def pin_of(
    loaded: SetFile, snapshot: str | None, rev: str | None = None, items: bool = True
) -> dict[str, Any]:
    """The pin of a set's content: what a report carries to name what it ran on.

    ``version`` is the header's released version when the content still has the released
    fingerprint, ``X.Y.Z+modified`` when it does not, and None for a set never released."""
    from evalset import __version__

    fingerprint = set_fingerprint(loaded)
    assert loaded.header is not None
    version = loaded.header.version
    if version is not None and loaded.header.fingerprint != fingerprint:
        version = f"{version}+modified"
    per_item = item_fingerprints(loaded)
    pin: dict[str, Any] = {
        "set": loaded.header.name,
        "version": version,
        "fingerprint": fingerprint,
        "snapshot": snapshot,
        "items": counts(loaded),
        "items_digest": _sha256(per_item),
        "tool": f"evalset {__version__}",
    }
    if rev is not None:
        pin["rev"] = rev
    if items:
        pin["item_fingerprints"] = {
            ident: fp.removeprefix("sha256:")[:ITEM_DIGITS] for ident, fp in per_item.items()
        }
    return pin


def parse_set_text(text: str, path: Path, where: str) -> SetFile:
    """A set file's text read from history; ``where`` names the revision in errors."""
    from evalset.errors import SetFileError

    try:
        return parse_set(text, path)
    except SetFileError as exc:
        raise SetFileError(f"{exc} (at {where})") from None
