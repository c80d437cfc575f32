"""Sealing and unsealing every holdout item of a set file (`evalset seal`, `evalset unseal`).

The sealed form itself, and opening it with the key, are part of the set-file format
(``evalset.sets.sealed``); these commands rewrite a whole set, round-trip, locked and
atomically.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalset.sets.sealed import SealError, recipient, seal, sealed_message
from evalset.sets.setfile import edit_set


def seal_set(path: Path, recipients: list[str]) -> list[str]:
    """Seal every holdout item of a set file not sealed yet (round-trip, locked, atomic);
    returns their ids. Items sealed already stay as they are."""
    keys = [recipient(r) for r in recipients]  # every key checked before anything is written
    if not keys:
        raise SealError("no recipient given; pass --recipient with an age public key.")
    sealed: list[str] = []
    with edit_set(path) as editor:
        current = editor.current
        for k, item in zip(current.item_index, current.items, strict=True):
            if item.holdout and k not in current.opened:
                editor.replace_item(item.id, seal(item, recipients))
                sealed.append(item.id)
    return sealed


def _flow_short_lists(value: Any) -> Any:
    """Short lists of single words (citations, tags) in flow style, as set files usually
    write them; lists of sentences stay in block style."""
    from ruamel.yaml.comments import CommentedSeq

    if isinstance(value, dict):
        return {k: _flow_short_lists(v) for k, v in value.items()}
    if isinstance(value, list):
        words = value and all(isinstance(v, str) and not any(c.isspace() for c in v) for v in value)
        if words and (len(value) == 1 or len(", ".join(value)) <= 40):
            seq = CommentedSeq(value)
            seq.fa.set_flow_style()
            return seq
        return [_flow_short_lists(v) for v in value]
    return value


def unseal_set(path: Path) -> list[str]:
    """Turn every sealed item back into a plain item; needs the key. Returns their ids."""
    unsealed: list[str] = []
    with edit_set(path) as editor:
        current = editor.current
        if current.sealed:
            raise SealError(f"{path}: {sealed_message(len(current.sealed))}; nothing was unsealed.")
        for k in sorted(current.opened):
            plain = current.plain(k)
            editor.replace_item(plain["id"], _flow_short_lists(plain))
            unsealed.append(plain["id"])
    return unsealed
