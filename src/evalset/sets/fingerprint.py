"""Set fingerprints: what names the exact content a score was measured on.

The set fingerprint is ``sha256:`` over canonical JSON of the header's content and of the
active items sorted by id, each given as ``[id, item fingerprint]`` (see
``evalset.sets.content``, which says which fields are content and which provenance). So
comments, key order, quoting, blank lines, explicitly written defaults and provenance never
change it, and any change of a label does. Drafts and retired items are not part of the
released content.

Item fingerprints let results of two runs on different set versions be compared on the
items that did not change.

Every function takes the fingerprint ``fmt`` (see ``FINGERPRINT_FORMAT``); releases tagged
with format 1 are checked in format 1. A holdout item sealed by evalset 0.1 stores a format-1
fingerprint, so a set holding one that the key does not open is fingerprinted in format 1
(``newest_format``) until it is sealed again.
"""

from __future__ import annotations

from evalset.errors import EvalsetError
from evalset.sets.content import (
    FINGERPRINT_FORMAT,
    FORMATS,
    header_content,
    item_fingerprint,
    sha256_of,
)
from evalset.sets.model import Item
from evalset.sets.setfile import SetFile, as_loaded


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


def newest_format(loaded: SetFile) -> int:
    """The newest fingerprint format that can be computed for ``loaded``: the current one,
    unless an active item stays sealed with a fingerprint of an older format."""
    formats = [s.sealed.fingerprint_format for s in loaded.sealed if s.status == "active"]
    return min([FINGERPRINT_FORMAT, *formats])


def _format(loaded: SetFile, fmt: int | None) -> int:
    """``fmt``, or the newest the set allows for None; a format that does not exist is
    refused rather than taken for the one its number is closest to."""
    if fmt is None:
        return newest_format(loaded)
    if isinstance(fmt, bool) or not isinstance(fmt, int):
        raise TypeError(
            f"fmt must be a fingerprint format, a whole number ({', '.join(map(str, FORMATS))}), "
            f"or None for the newest; got {type(fmt).__name__} {fmt!r}"
        )
    if fmt not in FORMATS:
        raise ValueError(
            f"fingerprint format {fmt} does not exist: give {' or '.join(map(str, FORMATS))}, "
            "or None for the newest"
        )
    return fmt


def item_fingerprints(loaded: SetFile, fmt: int | None = None) -> dict[str, str]:
    """``{item id: sha256:…}`` for every active item, sorted by id; a sealed item gives the
    fingerprint stored with it, so the key is not needed."""
    loaded = as_loaded(loaded, "item_fingerprints")
    fmt = _format(loaded, fmt)
    _require_valid(loaded)
    found = {item.id: item_fingerprint(item, fmt) for item in released_items(loaded)}
    for stub in loaded.sealed:
        if stub.status != "active":
            continue
        if stub.sealed.fingerprint_format != fmt:
            from evalset.sets.sealed import key_to_open

            raise InvalidSet(
                f"{loaded.path}: sealed item {stub.id!r} stores a fingerprint of format "
                f"{stub.sealed.fingerprint_format}, and format {fmt} is asked for; "
                f"{key_to_open(one=True)} so that it can be computed."
            )
        found[stub.id] = stub.sealed.fingerprint
    return dict(sorted(found.items()))


def set_fingerprint(
    loaded: SetFile, fmt: int | None = None, per_item: dict[str, str] | None = None
) -> str:
    """The content fingerprint of a set (see the module docstring); ``fmt`` defaults to
    ``newest_format(loaded)``. ``per_item``: its ``item_fingerprints`` in that format, when
    the caller has them already (they are most of the work)."""
    loaded = as_loaded(loaded, "set_fingerprint")
    fmt = _format(loaded, fmt)
    _require_valid(loaded)
    assert loaded.header is not None
    if per_item is None:
        per_item = item_fingerprints(loaded, fmt)
    items = [[ident, fp] for ident, fp in per_item.items()]
    return sha256_of({"header": header_content(loaded.header, fmt), "items": items})
