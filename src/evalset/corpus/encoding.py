"""A corpus document's bytes as text, in the encoding its author's tools wrote.

UTF-8 first, whatever the file says: a file that decodes as UTF-8 is UTF-8 (a page that
declares windows-1252 but holds valid UTF-8 is mislabelled, and read as written). Then
what a reader of the file would go by:

- a byte-order mark: UTF-16 as Windows editors save "Unicode" text (Notepad, PowerShell's
  ``Out-File``, exports from Office); the mark is dropped, as UTF-8's is;
- an HTML page's own declaration (``<meta charset>``, ``<meta http-equiv="Content-Type">``
  or an XML declaration, in its first 1,024 bytes, where browsers look), read by WHATWG's
  table of labels (the ``webencodings`` package, html5lib's) as browsers read it:
  ``iso-8859-1`` means windows-1252, whose € and curly quotes a legacy page holds.

Anything else is read as UTF-8 with replacement characters, and said so. The same text is
what sections are hashed from and what chunk offsets count in, so a document saved again
in another encoding, its words unchanged, makes no item stale.
"""

from __future__ import annotations

import re

UTF16_MARKS = (b"\xff\xfe", b"\xfe\xff")
UTF32_LE_MARK = b"\xff\xfe\x00\x00"
PRESCAN = 1024
"""Bytes of a page in which its declaration is looked for (the HTML standard's prescan)."""
_DECLARED = re.compile(
    rb"""<meta\s[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9_.:+-]+)"""
    rb"""|^\s*<\?xml\s[^>]*?encoding\s*=\s*["']([A-Za-z0-9_.:+-]+)""",
    re.IGNORECASE,
)


PAGES = (".html", ".htm", ".xhtml")
"""Documents whose declared encoding counts, by their names (whichever sectioner reads
them)."""


def decode(doc: str, data: bytes) -> tuple[str | None, str | None]:
    """The text of document ``doc`` (its byte-order mark dropped) and a warning when it was
    not read exactly; no text for a file that looks binary."""
    if data.startswith(UTF16_MARKS) and not data.startswith(UTF32_LE_MARK):
        try:
            return data.decode("utf-16"), None  # (the mark tells the byte order)
        except UnicodeDecodeError as exc:
            return data.decode("utf-16", "replace"), _replaced(doc, "UTF-16", exc.start)
    if b"\x00" in data[:8192]:
        if _utf16_unmarked(data):
            return (
                None,
                f"{doc}: looks like UTF-16 without a byte-order mark; skipped (save it as UTF-8)",
            )
        return None, f"{doc}: looks binary (NUL bytes); skipped"
    try:
        return data.decode("utf-8").removeprefix("\ufeff"), None
    except UnicodeDecodeError as exc:
        bad = exc.start
    codec = _declared(data) if doc.lower().endswith(PAGES) else None
    if codec is not None:
        try:
            return data.decode(codec), None
        except UnicodeDecodeError as exc:
            return data.decode(codec, "replace"), _replaced(
                doc, f"{codec}, as it declares,", exc.start
            )
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    return text, _replaced(doc, "UTF-8", bad)


def _replaced(doc: str, encoding: str, at: int) -> str:
    return f"{doc}: is not valid {encoding} (byte {at}); read with replacement characters"


def _declared(data: bytes) -> str | None:
    """The Python codec of the encoding a page declares, by WHATWG's labels; None when it
    declares none, one no browser knows, or UTF-8 (which it is not: the caller tried)."""
    found = _DECLARED.search(data[:PRESCAN])
    if found is None:
        return None
    import webencodings

    encoding = webencodings.lookup((found.group(1) or found.group(2)).decode("ascii"))
    if encoding is None or encoding.name in ("utf-8", "utf-16le", "utf-16be"):
        return None  # (a page that declares UTF-16 but has no mark is ASCII-compatible)
    name: str = encoding.codec_info.name
    return name


def _utf16_unmarked(data: bytes) -> bool:
    """Whether text without a byte-order mark looks like UTF-16 of mostly ASCII: every
    other byte of its start is NUL."""
    head = data[:64]
    odd, even = head[1::2], head[0::2]
    return len(head) >= 4 and (odd.count(0) == len(odd) or even.count(0) == len(even))
