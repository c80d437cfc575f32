"""Answer text as exact matching compares it: case, punctuation, white space and number
words do not count.

``normalise`` turns a text into space-separated tokens: Unicode NFKC, case folded,
apostrophes dropped (``don't`` is ``dont``), hyphens and other punctuation as spaces, number
words as digits (``thirty-five`` is ``35``, ``one hundred and twenty`` is ``120``, through
text2num's English rules), thousands separators dropped (``1,000`` is ``1000``), numbers in
one form (``30.0`` is ``30``), and symbols such as ``€`` and ``%`` kept as tokens of their
own. Two texts match when their tokens are equal; one contains another when its tokens
occur in it as a whole, in order (``30 days`` is in ``within 30 days of delivery``, but
``3`` is not in ``30``).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from text_to_num import alpha2digit

_MARKS = str.maketrans(
    {
        **dict.fromkeys("'\u2019\u02bc`"),
        **dict.fromkeys("-\u2010\u2011\u2012\u2013\u2014\u2015\u2212/", " "),
    }
)
"""Apostrophes go (``don't`` is ``dont``); hyphens and slashes separate words."""
_THOUSANDS = re.compile(r"(?<=\d)[,\u202f\u00a0](?=\d{3}(?!\d))")
_TOKEN = re.compile(r"\d+(?:\.\d+)*|[^\W\d_]+|\S", re.UNICODE)
_WORD_NUMBER = re.compile(
    r"(?<![^\W_])(?=[befhmnostz])(zero|nought|one|two|three|four|five|six|seven|eight|nine|"
    r"ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|"
    r"thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|first|"
    r"second|third|fifth|eighth|ninth|twelfth)|tieth"
)
"""Where a number word may be: one starts a word (after a character that is no letter or
digit, an underscore included, as text2num reads it; the look-ahead skips, in C, the words
whose first letter starts none), or ``tieth`` ends one (``twentieth`` and ``fortieth`` start
with no number word; every other ordinal starts with its number)."""


def _number(token: str) -> str:
    """One spelling per number: no leading zeros, no trailing decimal zeros (a version
    number such as 2.0.1 is kept as it is)."""
    if token.count(".") > 1:
        return token
    whole, _, fraction = token.partition(".")
    whole = whole.lstrip("0") or "0"
    fraction = fraction.rstrip("0")
    return f"{whole}.{fraction}" if fraction else whole


@lru_cache(maxsize=65536)
def normalise(text: str) -> str:
    """The tokens of ``text`` as exact matching compares them, joined by single spaces."""
    if text.isascii():  # NFKC changes no ASCII text, and casefold is lower there
        text = text.lower().translate(_MARKS)
    else:
        if "\u202f" in text or "\u00a0" in text:  # before NFKC makes them plain spaces
            text = _THOUSANDS.sub("", text)
        text = unicodedata.normalize("NFKC", text).casefold().translate(_MARKS)
    if "," in text:
        text = _THOUSANDS.sub("", text)
    if _WORD_NUMBER.search(text):  # text2num only where a number word may be
        text = alpha2digit(text, "en", threshold=0)
    return " ".join(_ascii_tokens(text) if text.isascii() else _tokens(text))


def _tokens(text: str) -> list[str]:
    """The tokens of a text already case folded, numbers as digits."""
    return [
        (_number(token) if token[0] == "0" or "." in token else token)
        if token[0].isdigit()
        else token
        for token in _TOKEN.findall(text)
        if token[0].isalnum() or token == "%" or unicodedata.category(token[0])[0] == "S"
    ]  # punctuation (Unicode category P*) separates words and counts for nothing


_ASCII_TOKEN = re.compile(r"\d+(?:\.\d+)*|[A-Za-z]+|[$+<=>^`|~%]", re.ASCII)
"""``_TOKEN`` on ASCII text, keeping only the tokens ``_tokens`` keeps: numbers, words, and
the symbols (Unicode category S) and ``%``; the other punctuation is skipped as it would
be dropped. Most answers are ASCII, and most of normalising them went to that filter."""


def _ascii_tokens(text: str) -> list[str]:
    """``_tokens`` of an ASCII text (the same tokens, found faster)."""
    tokens = _ASCII_TOKEN.findall(text)
    if "0" in text or "." in text:  # a number may have another form
        return [
            _number(token) if token[0].isdigit() and (token[0] == "0" or "." in token) else token
            for token in tokens
        ]
    return tokens


def contains(text: str, part: str) -> bool:
    """Whether the normalised ``part`` occurs in the normalised ``text`` as whole tokens, in
    order. An empty ``part`` is in nothing."""
    needle = normalise(part)
    if not needle:
        return False
    return f" {needle} " in f" {normalise(text)} "
