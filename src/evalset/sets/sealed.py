"""Sealed holdout items: their content encrypted in place with age, as set files hold it.

A sealed item keeps ``id``, ``category``, ``holdout``, ``status`` and ``verified`` visible,
so counts, splits, coverage and (while its snapshot is the newest) staleness work for
everyone; the rest is encrypted to the given age recipients (ASCII armor, so the file stays
one readable YAML file). Its fingerprint is stored beside the ciphertext, so sealing never
changes the set's or the item's fingerprint.

What is encrypted (the payload) is JSON: ``{"evalset_sealed": 2, "item": {...}, "text":
"..."}``, the item's content and its text as the set file held it (comments above and
inside it, key order, quoting, list styles, line breaks), so that unsealing gives back the
same bytes. Items sealed by evalset 0.1 hold the content alone (the item's JSON); they
still open, and unseal writes them as the content says.

Commands that need the content read the key from the file named by ``EVALSET_AGE_IDENTITY``
(lines ``AGE-SECRET-KEY-1…`` as ``age-keygen`` writes them, or an OpenSSH private key).
With it, a sealed item loads as a plain item, and an edit of it is sealed again to the
same recipients.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evalset.errors import EditRefused, EvalsetError, SetFileError
from evalset.fsio import json_loads
from evalset.sets.model import Item, SealedItem

IDENTITY_ENV = "EVALSET_AGE_IDENTITY"
VISIBLE = ("id", "category", "holdout", "status", "verified")
"""The fields a sealed item shows."""
PAYLOAD = 2
"""Version of the encrypted payload (1: the item's JSON alone; 2: content and text)."""

_identities: dict[tuple[str, int, int], list[Any]] = {}


class SealError(EvalsetError):
    """A key or recipient is unusable, or sealed content does not open as expected."""


def identity_path() -> str | None:
    return os.environ.get(IDENTITY_ENV) or None


def identities() -> list[Any] | None:
    """The identities of the key file named by ``EVALSET_AGE_IDENTITY``; None when unset."""
    where = identity_path()
    if where is None:
        return None
    path = Path(where).expanduser()
    try:
        st = path.stat()
        cache_key = (str(path), st.st_mtime_ns, st.st_size)
        if cache_key in _identities:
            return _identities[cache_key]
        text = path.read_text(encoding="utf-8").removeprefix("\ufeff")  # saved by an editor
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        raise SealError(
            f"{path}: the key file named by {IDENTITY_ENV} cannot be read ({reason}); "
            f"point {IDENTITY_ENV} at an age key file, or unset it."
        ) from None
    found = _parse_identities(text, path)
    _refuse_committed_key(path)
    _identities[cache_key] = found
    return found


def _refuse_committed_key(path: Path) -> None:
    """Refuse a key file that git tracks: whoever has the repository has the key, and with it
    every sealed item (a key copied into the workspace and added with the rest, say)."""
    from evalset import gitcmd

    try:
        done = gitcmd.run(path.parent, "ls-files", "--error-unmatch", "--", path.name)
    except (OSError, gitcmd.GitUnusable):
        return  # no git here, or a repository git refuses to read: nothing to tell by
    if done.returncode == 0:
        raise SealError(
            f"{path}: the key file named by {IDENTITY_ENV} is tracked by git, so whoever has "
            f"the repository can open every sealed item; remove it from git (`git rm --cached "
            f"{path.name}`), make a new key and seal the holdout to it (the old one stays in "
            "the history), and keep the key outside the repository."
        )


def _parse_identities(text: str, path: Path) -> list[Any]:
    from pyrage import IdentityError, ssh, x25519

    if "PRIVATE KEY-----" in text:
        try:
            return [ssh.Identity.from_buffer(text.encode())]
        except (IdentityError, ValueError) as exc:
            raise SealError(
                f"{path}: not a usable OpenSSH private key ({exc}); use an unencrypted key "
                "or an age key file."
            ) from None
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            found.append(x25519.Identity.from_str(line))
        except (IdentityError, ValueError):
            raise SealError(
                f"{path}:{number}: not an age secret key (expected AGE-SECRET-KEY-1…); "
                "fix the key file (`age-keygen -o FILE` writes one)."
            ) from None
    if not found:
        raise SealError(f"{path}: holds no age secret key; `age-keygen -o FILE` writes one.")
    return found


def recipient(text: str) -> Any:
    """An age (``age1…``) or SSH (``ssh-ed25519 …``, ``ssh-rsa …``) public key."""
    from pyrage import RecipientError, ssh, x25519

    text = text.strip()
    try:
        if text.startswith("ssh-"):
            return ssh.Recipient.from_str(text)
        return x25519.Recipient.from_str(text)
    except (RecipientError, ValueError) as exc:
        if text.upper().startswith("AGE-SECRET-KEY-") or "PRIVATE KEY" in text.upper():
            raise SealError(
                "the recipient given is a secret key, which must not be shared (nor written "
                "into a set); pass the public `age1…` key from the `# public key:` line of the "
                "key file instead."
            ) from None
        # only what looks like a public key is quoted: a value pasted by mistake may be secret
        shown = repr(text[:24]) if text.startswith(("age1", "ssh-")) else "the recipient given"
        raise SealError(
            f"{shown}: not an age public key ({exc}); pass the `age1…` key written on the "
            "`# public key:` line of the key file, or an `ssh-ed25519 …` key."
        ) from None


def bare_recipient(text: str) -> str:
    """A public key as a set records it: an SSH key without the comment after it (``user@host``
    or an address, personal data that every sealed item would carry into git history)."""
    text = text.strip()
    return " ".join(text.split()[:2]) if text.startswith("ssh-") else text


def seal(item: Item, recipients: Iterable[str], text: str | None = None) -> dict[str, Any]:
    """The sealed form of ``item``: a mapping ready to be written in the set file. ``text``
    is the item's text in the set file (with the comments that go with it), sealed with it
    so that ``unseal`` writes it back as it was."""
    import pyrage
    from ruamel.yaml.scalarstring import LiteralScalarString

    from evalset.sets.content import FINGERPRINT_FORMAT, item_fingerprint

    keys = list(dict.fromkeys(r.strip() for r in recipients))
    if not keys:
        raise SealError("no recipient given; pass --recipient with an age public key.")
    if not item.holdout:
        raise SealError(f"item {item.id!r} is not a holdout item; only holdout items are sealed.")
    content = item.model_dump(mode="json", exclude_defaults=True)
    payload: dict[str, Any] = {"evalset_sealed": PAYLOAD, "item": content}
    if text is not None:
        payload["text"] = text
    data = json.dumps(payload, ensure_ascii=False, sort_keys=True).encode()
    armored = pyrage.encrypt(data, [recipient(k) for k in keys], armored=True).decode()
    visible = item.model_dump(mode="json", include=set(VISIBLE), exclude_defaults=True)
    visible["holdout"] = True
    visible["status"] = item.status
    return {
        **visible,
        "sealed": {
            "fingerprint": item_fingerprint(item),
            "fingerprint_format": FINGERPRINT_FORMAT,
            "recipients": keys,
            "age": LiteralScalarString(armored),
        },
    }


def open_sealed(stub: SealedItem, keys: list[Any], where: str) -> tuple[Item, str | None] | None:
    """The plain item of a sealed one, with its text as the set file held it (None for an
    item sealed by evalset 0.1), or None when ``keys`` do not open it. Content that does not
    match what the stub shows raises SealError (``where`` names it)."""
    import pyrage

    from evalset.sets.content import item_fingerprint

    try:
        data = pyrage.decrypt(stub.sealed.age.encode(), keys)
    except pyrage.DecryptError:
        return None
    text: str | None = None
    try:
        payload = json_loads(data)
        if isinstance(payload, dict) and payload.get("evalset_sealed") == PAYLOAD:
            text = payload.get("text")
            if text is not None and not isinstance(text, str):
                raise ValueError("text")
            payload = payload.get("item")
        item = Item.model_validate(payload)
    except (ValueError, ValidationError):
        raise SealError(
            f"{where}: sealed item {stub.id!r} opens to content that is not a valid item; "
            "restore the file from git."
        ) from None
    shown = stub.model_dump(mode="json", include=set(VISIBLE))
    inside = item.model_dump(mode="json", include=set(VISIBLE))
    # Items sealed by evalset 0.1 show no `verified`: nothing to compare.
    changed = [
        f for f in VISIBLE if shown[f] != inside[f] and not (f == "verified" and shown[f] is None)
    ]
    if changed:
        raise SealError(
            f"{where}: sealed item {stub.id!r} shows `{changed[0]}: {shown[changed[0]]}`, "
            f"which differs from its sealed content ({inside[changed[0]]!r}); undo the hand "
            f"edit (`{changed[0]}: {inside[changed[0]]}`), then, to change it, `evalset unseal`, "
            "edit the item and seal again."
        )
    if item_fingerprint(item, stub.sealed.fingerprint_format) != stub.sealed.fingerprint:
        raise SealError(
            f"{where}: sealed item {stub.id!r} has a fingerprint that does not match its "
            "sealed content; undo the hand edit of `sealed.fingerprint`."
        )
    return item, text


def key_to_open(one: bool = False) -> str:
    """The fix for sealed items no key at hand opens (``one``: a single item): set the key,
    or, when one is set already, point it at theirs (telling a user to set what is set
    would leave him nowhere)."""
    where = identity_path()
    if where is None:
        return f"set {IDENTITY_ENV} to the age key file"
    it, was = ("it", "was") if one else ("them", "were")
    return (
        f"point {IDENTITY_ENV} at a key {'it' if one else 'they'} {was} sealed to (the one in "
        f"{where} does not open {it})"
    )


def refused_sealed(path: Path, item_id: str) -> EditRefused:
    return EditRefused(
        f"{path}: item {item_id!r} is sealed; {key_to_open(one=True)} to change it (it is "
        "sealed again to the same recipients)."
    )


def reseal(
    entry: Mapping[str, Any], stub: SealedItem, where: str, text: str | None = None
) -> Mapping[str, Any]:
    """An edited plain mapping of an opened sealed item, sealed again to its recipients
    with its edited ``text``; an item moved out of the holdout stays plain (there is
    nothing left to hide), as the mapping it was edited as."""
    try:
        found = item_of_text(text) if text is not None else None
        if found is None:
            text = None  # unseal writes the content as a new item
        item = found or Item.model_validate(dict(entry))
    except ValidationError as exc:
        first = exc.errors()[0]
        raise EditRefused(
            f"{where}: the edit of sealed item {stub.id!r} was refused because the result "
            f"would be invalid ({'.'.join(map(str, first['loc']))}: {first['msg']}); the file "
            "is unchanged."
        ) from None
    if not item.holdout:
        return entry
    return seal(item, stub.sealed.recipients, text)


def item_of_text(text: str, indent: int | None = None) -> Item | None:
    """The item a sealed text holds, read as the set file would read it; None when it is
    not exactly one valid item laid out as one entry of an items block (at column
    ``indent``, when given), with nothing but comments around it. Sealed content is as
    untrusted as the file: a text that is anything else is not written back (the content
    is)."""
    from evalset.sets.locate import ItemSpans, split_lines
    from evalset.sets.yamlio import parse_mapping

    lines = ["items:\n", *split_lines(text)]
    spans = ItemSpans.scan(lines)
    if spans is None or len(spans.starts) != 1 or spans.block_end != len(lines):
        return None
    if indent is not None and spans.indent != indent:
        return None
    lf = text.replace("\r\n", "\n").replace("\r", "\n")
    try:  # read as the set file is read (YAML 1.2: a NEL is a character, not a break)
        data = parse_mapping("items:\n" + lf, Path("sealed item"))
        items = data["items"]
        if not isinstance(items, list) or len(items) != 1:
            return None
        return Item.model_validate(items[0])
    except (SetFileError, ValidationError, TypeError, KeyError, ValueError):
        return None


def same_item(a: Item, b: Item) -> bool:
    return a.model_dump(mode="json") == b.model_dump(mode="json")


def unchecked_message(ids: list[str], command: str, accepted: bool = False) -> str:
    """What to say about sealed items whose staleness is unknown without the key
    (``accepted``: unchecked, as --skip-sealed asked)."""
    shown = ", ".join(ids[:5]) + (", …" if len(ids) > 5 else "")
    if accepted:
        return (
            f"{len(ids)} sealed item(s) not checked ({shown}): what they cite is sealed, and "
            "they were not verified against the newest snapshot; accepted unchecked "
            "(--skip-sealed)"
        )
    where = identity_path()
    key = (
        f"the key in {IDENTITY_ENV} ({where}) does not open them: use a key they were sealed to"
        if where
        else f"set {IDENTITY_ENV} to the age key file and run `evalset {command}` again, or, "
        "without the key, have its holder verify them against the newest snapshot"
    )
    return (
        f"{len(ids)} sealed item(s) not checked ({shown}): what they cite is sealed, and they "
        f"were not verified against the newest snapshot; {key} (--skip-sealed accepts them "
        "unchecked)"
    )


def sealed_entries(raw_items: object) -> dict[str, list[str]]:
    """The sealed entries of a set file's raw item list, in file order: id -> the
    recipients each was sealed to (read as written: no key needed, nothing validated)."""
    found: dict[str, list[str]] = {}
    for entry in raw_items if isinstance(raw_items, list) else []:
        sealed = entry.get("sealed") if isinstance(entry, dict) else None
        if isinstance(sealed, dict) and isinstance(entry.get("id"), str):
            keys = sealed.get("recipients")
            keys = keys if isinstance(keys, list) else []
            found[entry["id"]] = [k for k in keys if isinstance(k, str)]
    return found


_BEFORE_KEY = re.compile(r"""(?:[ \t]*(?:-[ \t]+)*|.*[{,][ \t]*)["']?""")
_AFTER_KEY = re.compile(r"""["']?[ \t]*:""")


def _may_hold_sealed(text: str) -> bool:
    """Whether a set file's text may hold a sealed entry: a ``sealed:`` key, in block or
    flow style. A filter, so that a text without one is not parsed; only the lines that say
    "sealed" are looked at (a regular expression over a whole large file is slow)."""
    at = text.find("sealed")
    while at >= 0:
        start = text.rfind("\n", 0, at) + 1
        if _BEFORE_KEY.fullmatch(text, start, at) and _AFTER_KEY.match(text, at + 6):
            return True
        at = text.find("sealed", at + 6)
    return False


def committed_seals(path: Path, current: str | None = None) -> dict[str, list[str]] | None:
    """The items sealed in the committed version of a set file (git's HEAD), with the
    recipients each was sealed to, in file order; None outside git, for a file HEAD does not
    hold, or one git holds unreadable. ``current``: the file's text now, when it is known to
    hold no sealed item (a HEAD with the same text holds none either, so it is not parsed)."""
    from evalset.git import Git
    from evalset.gitcmd import GitUnusable
    from evalset.sets.yamlio import parse_mapping

    try:
        git = Git.find(path.resolve().parent)
        text = git.show("HEAD", git.rel(path))
        if text is None:
            return None
        if text == current or not _may_hold_sealed(text):  # the common case: no parse
            return {}
        return sealed_entries(parse_mapping(text, path).get("items"))
    except GitUnusable:
        raise
    except EvalsetError:
        return None


def holdout_recipients(stubs: Mapping[int, SealedItem], path: Path) -> tuple[list[str], str]:
    """The recipients a set's holdout is sealed to, and where they come from: those most of
    its sealed items share (``shared_recipients``; ``set``; ``stubs``: file index -> sealed
    form, see ``SetFile.sealed_forms``), else those sealed at the last commit of ``path``
    (``HEAD``: unsealed since, for an edit), else none (``""``: a holdout that is not
    sealed)."""
    if stubs:
        return forms_recipients(stubs), "set"
    keys = last_recipients(committed_seals(path) or {})
    for key in keys:  # a committed file is as untrusted as the working copy
        recipient(key)
    return (keys, "HEAD") if keys else ([], "")


def last_recipients(seals: Mapping[str, list[str]]) -> list[str]:
    """The recipients a set's holdout is sealed to, from its sealed items (``id ->
    recipients``, in file order): see ``shared_recipients``."""
    return shared_recipients(list(seals.values()))


def forms_recipients(stubs: Mapping[int, SealedItem]) -> list[str]:
    """The recipients a set's holdout is sealed to, from its sealed forms (file index ->
    sealed form, see ``SetFile.sealed_forms``): see ``shared_recipients``."""
    return shared_recipients([stubs[k].sealed.recipients for k in sorted(stubs)])


def shared_recipients(each: Sequence[Sequence[str]]) -> list[str]:
    """The recipients a set's holdout is sealed to, from those of each of its sealed items
    in file order: the ones most of them are sealed to (a change of keys seals every item
    again), of those the ones of the item added last. Not simply the last item's: a branch
    that sealed an arrival to the keys of before a change merges it last, and a hand edit
    of one item's list would redirect every item sealed after it."""
    if not each:
        return []
    counts = Counter(tuple(keys) for keys in each)
    most = max(counts.values())
    return list(next(tuple(keys) for keys in reversed(each) if counts[tuple(keys)] == most))


def sealed_message(count: int) -> str:
    where = identity_path()
    if where:
        return (
            f"{count} sealed item(s) could not be opened with the key in {IDENTITY_ENV} "
            f"({where}); use a key the set was sealed to"
        )
    return (
        f"{count} sealed item(s) could not be checked; set {IDENTITY_ENV} to the age key "
        "file to check them"
    )
