"""An item's content fingerprint: ``sha256:`` over canonical JSON (sorted keys, no spaces)
of the item without its default values.

So comments, key order, quoting, blank lines, an explicitly written default
(``answerable: true``) and fields that later versions of the format add with a default never
change it, and any change of a label does. Sealed items store it beside their ciphertext, so
it is known without the key. Set fingerprints (``evalset.sets.fingerprint``) are built from
these.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from evalset.sets.model import Item


def canonical(value: Any) -> bytes:
    """Canonical JSON: sorted keys, no spaces, UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def sha256_of(value: Any) -> str:
    """``sha256:`` and the hex digest of ``value``'s canonical JSON."""
    return "sha256:" + hashlib.sha256(canonical(value)).hexdigest()


def item_fingerprint(item: Item) -> str:
    return sha256_of(item.model_dump(mode="json", exclude_defaults=True))
