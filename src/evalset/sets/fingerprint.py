"""Set fingerprints: what names the exact content a score was measured on.

The set fingerprint is ``sha256:`` over canonical JSON of the header (without
``version``/``fingerprint``) and of the active items sorted by id, each given as ``[id, item
fingerprint]`` (see ``evalset.sets.content``). So comments, key order, quoting, blank lines
and explicitly written defaults never change it, and any change of a label does. Drafts and
retired items are not part of the released content.

Item fingerprints let results of two runs on different set versions be compared on the
items that did not change.
"""

from __future__ import annotations

from evalset.errors import EvalsetError
from evalset.sets.content import item_fingerprint, sha256_of
from evalset.sets.model import Item
from evalset.sets.setfile import SetFile


class InvalidSet(EvalsetError):
    """A set whose content cannot be fingerprinted because it does not pass the schema."""


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
    from collections import Counter

    repeated = sorted(i for i, n in Counter(e.id for e in loaded.entries).items() if n > 1)
    if repeated:  # one id would stand for two items in the item fingerprints
        raise InvalidSet(
            f"{loaded.path}: cannot be fingerprinted while the id {repeated[0]!r} is used by "
            "more than one item; give each item its own id (`evalset validate` lists them)."
        )


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
    return sha256_of({"header": header, "items": items})
