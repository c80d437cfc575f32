"""How text that people and programs outside evalset wrote is shown in each output form.

Much of what evalset prints was written elsewhere: a question an end user asked, turned into
a draft by `evalset promote`; an answer of the system under test; a document's file name or
heading anchor; a judge program's message. Each output form shows such text as text, never
as something the form acts on:

- the terminal (and a CI log): ``printable`` writes every character that is not shown as
  itself (control characters, line breaks and tabs included; Unicode format characters,
  which reorder or hide text: bidi overrides and isolates, zero-width spaces and joiners;
  line and paragraph separators) as its escape, ``\\x1b``, ``\\n``, ``\\u202e``, as Python's
  ``repr`` writes it. ``evalset.cli.output`` applies it to every line it prints.
- a pull-request comment (``--format md``): ``md_text`` and ``md_code`` show a value as
  plain text or as inline code, so that it opens no HTML (nor comments, which would hide the
  rest of the comment), no link or image, mentions no one, links no issue, and stays in its
  table cell; ``md_row`` writes a table row. A value longer than ``MD_LONGEST`` characters
  is cut there, so that one value cannot push a comment past GitHub's size limit, and
  ``md_fit`` says how many rows of a long list fit in ``COMMENT_LONGEST`` characters (the
  writer says how many it left out and which command lists them all).
- the HTML page: ``html_text``, printable and HTML-escaped.
- ``--json``: the text exactly as written (JSON escapes the control characters); the reader
  is a program.

Text without such characters is shown as it is, in every form.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

ESCAPED_CATEGORIES = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))
"""Unicode categories ``printable`` escapes: controls, format characters, lone surrogates,
line and paragraph separators."""


def printable(text: str) -> str:
    """``text`` with every character of ``ESCAPED_CATEGORIES`` written as its escape."""
    if text.isprintable():  # the common case, in C
        return text
    return "".join(map(_printable_char, text))


@lru_cache(maxsize=1024)
def _printable_char(char: str) -> str:
    if char.isprintable() or unicodedata.category(char) not in ESCAPED_CATEGORIES:
        return char  # a space other than U+0020 (no-break, ideographic) is shown as itself
    return char.encode("unicode_escape", "backslashreplace").decode("ascii")


def html_text(text: str) -> str:
    """``text`` as the text of an HTML element or the value of a quoted attribute."""
    from html import escape  # only for a page: it loads HTML's named entities

    return escape(printable(text))


MD_LONGEST = 1000
"""The longest value a comment shows whole; a longer one is cut there and ends with "…"
(the report holds it whole)."""

COMMENT_LONGEST = 60_000
"""The most characters evalset writes in a comment: GitHub takes 65,536, and a CI job may
add a title or a link around it. A list too long for it (the stale citations of a large
policy update, the changes of a rewritten set) is cut after its last row that fits."""


def md_length(lines: Sequence[str]) -> int:
    """The characters ``lines`` take in a comment, a line break after each."""
    return sum(map(len, lines)) + len(lines)


def md_left_out(what: str, command: str) -> list[str]:
    """The lines that end a comment cut by ``md_fit``: ``what`` was left out, and
    ``command`` shows it all. (``md_fit`` is given ``COMMENT_LONGEST - LEFT_OUT_ROOM``.)"""
    return ["", f"… {what} left out to keep this comment within GitHub's size limit: "
            f"`{command}` shows them all."]  # fmt: skip


LEFT_OUT_ROOM = 300
"""Characters a cut comment keeps for ``md_left_out``'s lines."""


def md_fit(blocks: Sequence[str], room: int) -> int:
    """How many of ``blocks`` (each a table row, or a ``<details>`` block's lines joined,
    kept whole), from the first, fit in ``room`` characters of a comment."""
    used = 0
    for count, block in enumerate(blocks):
        used += len(block) + 1
        if used > room:
            return count
    return len(blocks)


_REFERENCE = (
    r"(?:(?<![\w@])@[A-Za-z0-9][A-Za-z0-9-]*(?:/[A-Za-z0-9][\w.-]*)?|#\d+|\bGH-\d+\b)"
    r"(?:@[\w-]+(?:/[\w.-]+)?|#\d+|GH-\d+)*"
)
"""What GitHub turns into a mention (``@someone``, ``@org/team``; not the "@" of an email
address) or an issue link (``#12``, ``owner/repo#12``, ``GH-12``) wherever it is not code,
with any that directly follows (shown after code, it would start a text of its own)."""
_AUTOLINK = (
    r"(?:\b(?:https?|ftp)://|\bwww\.|\b(?:mailto|xmpp):)[^\s<`]*"
    r"|[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"
)
"""What GitHub turns into a link wherever it is not code, though no markdown link is
written (its autolinks): a URL or a ``www.`` address, and an email address."""
_MD_SYNTAX = (
    r"\\(?=[!-/:-@\[-`{-~])"  # a backslash that would escape what follows it
    r"|[`*~<]"
    r"|(?<![^\W_])_|_(?![^\W_])"  # an underscore that could open or close emphasis
    r"|&(?=#?\w+;)"  # what would be read as an entity (``&#64;`` is an "@")
    r"|\](?=\()"  # the middle of an inline link or image, ``[text](url)``
)
"""What markdown would read in a value. (Patterns are compiled on first use, by ``re``'s
cache: every command prints through this module, few write a comment.)"""
_MD_ENTITIES = {"<": "&lt;", "&": "&amp;"}


def clip(text: str) -> str:
    """A value as a table of a comment or a page shows it: cut at ``MD_LONGEST`` characters
    (the report keeps it whole)."""
    return text if len(text) <= MD_LONGEST else text[:MD_LONGEST] + "…"


def md_text(text: str) -> str:
    """``text`` as plain text in a comment (a paragraph, or with ``md_row`` a table cell):
    markdown's punctuation backslash-escaped where it would mean something, ``<`` and ``&``
    as entities, mentions, issue links, URLs and email addresses (which GitHub would link)
    as code."""
    shown = printable(clip(text))
    out, start = [], 0
    for found in re.finditer(f"{_AUTOLINK}|{_REFERENCE}", shown):
        out += [re.sub(_MD_SYNTAX, _md_escape, shown[start : found.start()]), f"`{found[0]}`"]
        start = found.end()
    out.append(re.sub(_MD_SYNTAX, _md_escape, shown[start:]))
    return "".join(out)


def _md_escape(found: re.Match[str]) -> str:
    mark = found[0]
    if mark == "]":
        return "]\\"  # "[text]\(url)" is no link
    return _MD_ENTITIES.get(mark) or "\\" + mark


def md_code(text: str) -> str:
    """``text`` as inline code in a comment: between enough backticks that none inside ends
    it, with a space inside them where CommonMark would otherwise take one of the text's."""
    shown = printable(clip(text))
    if not shown:
        return ""
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * (longest + 1)
    edges = shown[0] + shown[-1]
    pad = " " if "`" in edges or (edges == "  " and shown.strip()) else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def md_html(text: str) -> str:
    """``text`` inside an HTML block of a comment (a ``<summary>``), where markdown is not
    read: HTML-escaped, mentions, issue links, URLs and email addresses as ``<code>``."""
    from html import escape

    shown = escape(printable(clip(text)), quote=False)
    return re.sub(f"{_AUTOLINK}|{_REFERENCE}", lambda found: f"<code>{found[0]}</code>", shown)


def md_row(cells: Sequence[str]) -> str:
    """One row of a table in a comment, its cells already shown (``md_text``, ``md_code``,
    or evalset's own text): a ``|`` inside a cell is escaped, as GitHub reads it even in
    code."""
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"


def told_apart(given: str, meant: str) -> str:
    """What tells ``given`` from ``meant``, the name a "did you mean" offers for it, when
    nothing shown does: the characters of ``given`` that stand where ``meant`` has others, or
    that it has and ``meant`` has not, all of them beyond ASCII (a non-breaking hyphen for
    ``-``, a Cyrillic ``\\u0430`` for ``a``, a zero-width space), named by code point and name, as
    ``" 'q\\u2011016' has U+2011 NON-BREAKING HYPHEN where 'q-016' has '-'"``. "" where an ASCII
    character differs, or ``given`` only lacks some of ``meant``'s: that difference shows."""
    from difflib import SequenceMatcher

    said = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, given, meant, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        part, theirs = given[i1:i2], meant[j1:j2]
        if not part or part.isascii():
            return ""
        names = " ".join(f"U+{ord(c):04X} {unicodedata.name(c, 'a character')}" for c in part)
        said.append(f"{names} where {meant!r} has {theirs!r}" if theirs else f"{names}, which "
                    f"{meant!r} has not")  # fmt: skip
    if not said:
        return ""
    return f" {printable(repr(given))} has " + ", and ".join(said)
