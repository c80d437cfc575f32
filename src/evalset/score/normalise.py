"""Answer text as exact matching compares it: case, punctuation, white space and number
words do not count.

``normalise`` turns a text into space-separated tokens: Unicode NFKC, case folded,
apostrophes dropped (``don't`` is ``dont``), and characters that show nothing (a soft
hyphen, zero-width spaces and joiners) and the vowel points of Hebrew and Arabic, a word
keeping its other combining marks (Hindi's vowel signs), hyphens (but a number's minus
sign) and other punctuation as spaces, number words as digits (``thirty-five`` is ``35``,
``one hundred and twenty`` is ``120``, through text2num's English rules), numbers in one
form (below), and symbols such as ``€`` and ``%`` kept as tokens of their own. Two texts
match when their tokens are equal; one contains another when its tokens occur in it as a
whole, in order (``30 days`` is in ``within 30 days of delivery``, but ``3`` is not in ``30``).

The same number is the same token however its digits are written:

- digits of every script are ASCII digits (``٣٠`` and ``३०`` are ``30``; Unicode category
  Nd); the Arabic decimal separator (U+066B) is a point, its per cent sign (U+066A) ``%``;
- digit groups are joined (``1,000`` is ``1000``) when one separator sets them apart
  throughout: a comma (also the fullwidth one), the Arabic thousands separator, an
  apostrophe (Swiss ``1'000``, also U+2019 and U+02BC) or any Unicode space but the ASCII
  one (no-break, narrow no-break, thin, figure...: category Zs); and the groups are three
  digits after a first of one to three (``1,000,000``), or two after a first of one or two
  with a last of three (Indian ``1,00,000``). After a decimal point, groups of three set
  apart by such a space are one fraction, the last group one to three digits (SI's ``0.000
  1`` is ``0.0001``);
- ``30.0`` is ``30`` and ``030`` is ``30`` (a version such as ``2.0.1`` is kept);
- a point before a digit, after neither a letter, a digit nor another point, starts a
  fraction (``.5`` is ``0.5``, so ``.5%`` is ``0.5 %``, not ``5 %``);
- a minus sign (``-`` or U+2212) before a digit is the number's sign (``-5`` is not ``5``;
  ``-0`` is ``0``) at the start or after a space, an opening bracket or quote of any script,
  an operator, a comma or a colon; after an ASCII quote or backtick, where that quote
  itself follows one of these (``"-5"``, `` `-5` ``); elsewhere, between digits or after a
  letter, a closing mark or a unit, it is a hyphen, as any other (``2-3`` is 2 and 3,
  ``COVID-19`` is ``covid`` and 19, ``5"-10"`` 5 and 10);
- a fraction is its digits either side of a slash, whichever slash (``½`` is ``1/2``), and
  a proportion keeps its sign (``%``, ``‰``, ``‱``; the Arabic ones are these).

Everything else is two numbers or more, never one, so no answer matches a number it does
not state. The ASCII space is a word break (``1 000`` is 1 and 0): prose sets numbers side
by side with it (``the 3 100-metre races`` is not 3100), while typesetting and number
formatting put a no-break or thin space between groups. A comma is no decimal sign (``1,5``
is 1 and 5, the English reading, not 1.5). A run of groups that breaks the pattern anywhere
is not joined at all (``1,0000``, ``1,000,00``, ``1234,567``, mixed separators), nor one
that starts after a point (``0.5,000``). An apostrophe between digits that form no grouped
number separates them (``5'10`` is 5 and 10). A character NFKC makes digits (superscript,
subscript, vulgar fraction, circled number...) is not joined to the digits beside it
(``10³`` is 10 and 3, ``1½`` is 1 and 1/2, not 103 and 11/2).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

import regex
from text_to_num import alpha2digit

from evalset.corpus.sections import SHOWS_NOTHING

_APOSTROPHES = "'\u2019\u02bc`"
_SPACES = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f"
_SPACES += "\u205f\u3000"
"""Unicode's space separators (category Zs) but the ASCII space. Text set by a program, or by
hand with care, puts these between digit groups (the no-break, narrow no-break, thin and
figure spaces most often) and no word break; NFKC would make them plain spaces."""
INVISIBLE = SHOWS_NOTHING + "\u200c\u200d"
"""Characters that show nothing: a soft hyphen, a zero-width space, non-joiner and joiner
(Persian and Indic words hold them, or not, as the writer typed), a word joiner, a
byte-order mark. They are dropped: none splits a word."""
OPTIONAL_MARKS = "".join(
    chr(c)
    for c in [*range(0x0591, 0x05C8), *range(0x064B, 0x0660), 0x0670, 0x0640]
    if unicodedata.category(chr(c)) in ("Mn", "Lm")
)
"""Marks a writer of Hebrew or Arabic may leave out, and most do: Hebrew's vowel points and
cantillation, Arabic's harakat (and its tatweel, which only draws a word out). They are
dropped, so ``كِتَاب`` is ``كتاب``; the vowel signs of Indic scripts are letters' own, and
stay."""
_MARKS = str.maketrans(
    {
        **dict.fromkeys(INVISIBLE + OPTIONAL_MARKS),
        **dict.fromkeys(_APOSTROPHES),
        **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015/\u2044\u2215", " "),
    }
)
"""Apostrophes and characters that show nothing go (``don't`` is ``dont``); hyphens and
slashes (the fraction and division slashes too: ``½`` is ``1/2``) separate words. The ASCII
hyphen-minus and the minus sign are read by ``_MINUS``: either may be a number's sign."""
_SIGN_AFTER = "\\s([{=<>:,;|+*~\u2248\u2264\u2265\u201c\u2018\u00ab"
"""What a number's sign may follow: a space, an opening bracket or quote, an operator, a
comma or a colon (and the start of the text). The opening brackets and quotes of other
scripts (Unicode categories Ps and Pi: ``„-5“``, ``「-5」``) and the ASCII quotes that open
(``"-5"``) are told by ``_opens``."""
_MINUS = re.compile(
    rf"(?<![^{_SIGN_AFTER}])[-\u2212](?=[0-9])"
    r"|(?P<other>[-\u2212](?=[0-9]))|(?P<hyphen>[-\u2212])"
)
"""A minus sign that is a number's sign: before a digit, after what ``_SIGN_AFTER`` lists
(``-5``, ``(-5)``, ``= -5``) or after an opening mark (``other``, as ``_opens`` tells it:
``"-5"``); otherwise a hyphen, which separates words as ``_MARKS`` says: ``2-3``,
``30%-50%``, ``5°-10°``, ``5"-10"`` and ``(555)-123`` are ranges or parts, ``COVID-19`` a
name and its number."""
_OPENING = ("Ps", "Pi")
"""Unicode's opening brackets and initial quotes."""
_QUOTES = "\"'`"
"""The ASCII quotes (and the backtick of a code span): each opens and closes, so one opens
only where a sign could stand itself (``"-5"``, `` `-5` ``); after a digit or a letter it
closes, or is a unit (``5"-10"``: five to ten inches)."""
_SIGN_AFTER_CHARS = frozenset(_SIGN_AFTER.replace("\\s", ""))
_LEADING_POINT = re.compile(r"(?<![^\W_])(?<!\.)\.(?=[0-9])")
"""A decimal point with no digit before it (``.5``, ``-.5``, ``(.5%)``): not after a letter or
a digit (``No.5`` is ``no 5``, ``3.5`` a number already) nor another point (an ellipsis:
``wait...5 minutes`` holds 5)."""
_SEPARATORS = f",\u066c{_APOSTROPHES}{_SPACES}"
"""What may stand between digit groups: a comma, the Arabic thousands separator, an
apostrophe (Swiss ``1'000``) or a space of ``_SPACES``."""
_GROUPED = re.compile(
    rf"[0-9](?:(?:(?<![0-9][0-9])(?<![0-9][.{_SEPARATORS}][0-9])(?:"
    rf"[0-9]{{0,2}}(?P<w>[{_SEPARATORS}])[0-9]{{3}}(?:(?P=w)[0-9]{{3}})*(?![0-9]|(?P=w)[0-9])"
    rf"|[0-9]?(?P<i>[{_SEPARATORS}])[0-9]{{2}}(?:(?P=i)[0-9]{{2}})*(?P=i)[0-9]{{3}}"
    rf"(?![0-9]|(?P=i)[0-9]))"
    rf"|(?<=[0-9]\.[0-9])[0-9]{{2}}(?P<f>[{_SPACES}])(?:[0-9]{{3}}(?P=f))*[0-9]{{1,3}}"
    rf"(?![0-9]|(?P=f)[0-9]))(?:[{_APOSTROPHES}](?=[0-9]))?"
    rf"|[0-9]*[{_APOSTROPHES}](?=[0-9]))"
)
"""A number written in digit groups with one separator throughout, from its first digit
(not after a separator or a point that follows a digit): groups of three after a first of
one to three digits (``1,000,000``), or groups of two after a first of one or two, then a
last of three (Indian ``1,00,000``). Or the fraction after a point in groups of three, the
last of one to three, set apart by a space of ``_SPACES`` (SI's ``0.000 1``). Either may
end in an apostrophe before another digit; else, digits and such an apostrophe (``5'10``,
two numbers). A run that breaks the pattern anywhere (``1,0000``, ``1,000,00``,
``1234,567``, ``0.5,000``) is no one number. Each starts with a digit, so the search skips
ahead to digits (as the first character of the pattern lets it)."""
_NO_SEPARATORS = dict.fromkeys(map(ord, _SEPARATORS))
_SPACE = re.compile(f"([{_SPACES}])")
_SPACE_AS_NFKC = re.compile(f"[{_SPACES.replace(chr(0x1680), '')}]")
"""The spaces NFKC makes plain spaces: all of ``_SPACES`` but the ogham space mark."""
_OTHER_DIGIT = re.compile(r"[^\D0-9]")
"""A decimal digit of another script (Unicode category Nd): NFKC leaves them as they are
but for the fullwidth ones."""
_ARABIC_SIGNS = str.maketrans({"\u066a": "%", "\u066b": ".", "\u0609": "‰", "\u060a": "‱"})
"""The Arabic per cent, per mille and per ten thousand signs and decimal separator, as
``%``, ``‰``, ``‱`` and ``.``."""
_DIGIT_FORMS = (
    "\u00b2\u00b3\u00b9\u00bc-\u00be\u2070\u2074-\u2079\u2080-\u2089\u2150-\u215f\u2189"
    "\u2460-\u249b\u24ea\u3251-\u325f\u32b1-\u32cb\u3358-\u3370\u3378\u3379\u339f-\u33a6"
    "\u33a8\u33af\u33e0-\u33fe\U0001f100-\U0001f10a"
)
"""The characters, other than decimal digits, that NFKC turns into text holding digits
(a regular expression class): superscripts and subscripts, vulgar fractions, circled and
parenthesised numbers, squared units..."""
_DIGIT_FORM = re.compile(f"[{_DIGIT_FORMS}]")
_DIGIT_FORM_EDGE = re.compile(rf"(?<=\d)(?=[{_DIGIT_FORMS}])|(?<=[{_DIGIT_FORMS}])(?=\d)")
"""Where a digit meets one of ``_DIGIT_FORMS``: NFKC would join their digits into another
number (``10³`` would be ``103``, ``1½`` would be 11 over 2)."""
_PER = ("%", "‰", "‱")
"""The signs of a proportion: punctuation that is kept as a token (``5‰`` is not ``5``)."""


def _joined(found: re.Match[str]) -> str:
    """A grouped number without its separators; an apostrophe between digits that make no
    grouped number as a space (``5'10``: 5 and 10, as feet and inches)."""
    text = found[0]
    if text[-1] in _APOSTROPHES:  # before a digit: no number ends with one
        return f"{text[:-1].translate(_NO_SEPARATORS)} "
    return text.translate(_NO_SEPARATORS)


def _ascii_digit(found: re.Match[str]) -> str:
    return str(unicodedata.decimal(found[0]))


_TOKEN = regex.compile(r"-?\d+(?:\.\d+)*|[\p{L}\p{Nl}\p{No}][\p{L}\p{M}\p{Nl}\p{No}]*|\S")
"""A number; a word: a letter (or a numeral that is no digit) and the letters and combining
marks after it (the vowel signs of Hindi, Tamil or Bengali are part of their words: ``re``'s
``\\w`` left them out, and ``किताब`` and ``कुतुब`` were both ``क त ब``); or any other one
character."""
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
    """One spelling per number: no leading zeros, no trailing decimal zeros, no sign on
    zero (a version number such as 2.0.1 is kept as it is)."""
    sign, digits = ("-", token[1:]) if token[0] == "-" else ("", token)
    if digits.count(".") > 1:
        return token
    whole, _, fraction = digits.partition(".")
    whole = whole.lstrip("0") or "0"
    fraction = fraction.rstrip("0")
    number = f"{whole}.{fraction}" if fraction else whole
    return number if number == "0" else sign + number


def _minus(found: re.Match[str]) -> str:
    if found["hyphen"]:
        return " "
    if found["other"]:
        return "-" if _opens(found.string, found.start() - 1) else " "
    return "-"


def _opens(text: str, at: int) -> bool:
    """Whether ``text[at]``, just before a minus sign and a digit, opens what follows, so that
    the minus is the number's sign: an opening bracket or quote of any script (``„``,
    ``「``), or an ASCII quote that stands where a sign could (``"-5"``, ``("-5")``)."""
    mark = text[at]  # (a minus at the start is a sign without asking)
    if unicodedata.category(mark) in _OPENING:
        return True
    if mark not in _QUOTES:
        return False
    before = text[at - 1] if at > 0 else " "
    return (
        before.isspace() or before in _SIGN_AFTER_CHARS or unicodedata.category(before) in _OPENING
    )


@lru_cache(maxsize=65536)
def normalise(text: str) -> str:
    """The tokens of ``text`` as exact matching compares them, joined by single spaces."""
    if text.isascii():  # NFKC changes no ASCII text, and casefold is lower there
        text = text.lower()
        if "." in text:
            text = _LEADING_POINT.sub("0.", text)
        if "," in text or "'" in text or "`" in text:
            text = _GROUPED.sub(_joined, text)
        if "-" in text:
            text = _MINUS.sub(_minus, text)
    else:
        text = _MINUS.sub(_minus, _unicode_form(text))
    text = text.translate(_MARKS)
    if _WORD_NUMBER.search(text):  # text2num only where a number word may be
        text = _digits(text)
    return " ".join(_ascii_tokens(text) if text.isascii() else _tokens(text))


PIECE = 1000
"""Characters of text text2num reads at once: its time grows with the square of the text's
length (a 450 KB answer took 18 s), so a longer text is read in pieces of about this many,
cut between words that no number spelled out can span (``_cut``)."""
_WORDS = re.compile(r"\S+")
_JOINS = frozenset(("and", "a", "an"))
"""Words text2num reads as part of a number (``one hundred and five``, ``a hundred``)."""


def _digits(text: str) -> str:
    """``text`` with its number words as digits (text2num's English rules), read piece by
    piece (see ``PIECE``)."""
    if len(text) <= PIECE:
        whole: str = alpha2digit(text, "en", threshold=0)
        return whole
    pieces: list[str] = []
    start = 0
    while len(text) - start > PIECE:
        cut = _cut(text, start + PIECE)
        pieces.append(alpha2digit(text[start:cut], "en", threshold=0))
        start = cut
    pieces.append(alpha2digit(text[start:], "en", threshold=0))
    return "".join(pieces)


def _cut(text: str, at: int) -> int:
    """Where to end a piece, from ``at`` on: at the white space between two words that are
    neither number words nor words joining them; failing that within ``PIECE`` more
    characters (a text of number words only), before the next word."""
    space = _SPACE_AT.search(text, at)
    if space is None:
        return len(text)
    before = None
    for word in _WORDS.finditer(text, space.start()):
        plain = word[0] not in _JOINS and not _WORD_NUMBER.search(word[0])
        if plain and before is not None:
            return before
        if word.start() - at > PIECE:
            return word.start()
        before = word.end() if plain else None
    return len(text)


_SPACE_AT = re.compile(r"\s")


def _unicode_form(text: str) -> str:
    """A non-ASCII text in NFKC, case folded, its digits ASCII, a zero before a point that
    starts a number, and its grouped numbers joined. NFKC makes the spaces of ``_SPACES``
    plain ones: they are kept until the numbers are read, and only then given their NFKC
    form. A character that NFKC makes digits stays apart from the digits beside it."""
    if _DIGIT_FORM.search(text):
        text = _DIGIT_FORM_EDGE.sub(" ", text)
    spaces = _SPACE.search(text)
    if spaces:
        pieces = _SPACE.split(text)  # text, space, text, ...: NFKC joins nothing across a space
        pieces[::2] = [unicodedata.normalize("NFKC", piece) for piece in pieces[::2]]
        text = "".join(pieces)
    else:
        text = unicodedata.normalize("NFKC", text)
    if _OTHER_DIGIT.search(text):
        text = _OTHER_DIGIT.sub(_ascii_digit, text)
    if "\u066a" in text or "\u066b" in text or "\u0609" in text or "\u060a" in text:
        text = text.translate(_ARABIC_SIGNS)  # before the signs' point is read
    text = text.casefold()
    if "." in text:  # before the groups are read: ``.5,000`` is ``0.5,000``, not grouped
        text = _LEADING_POINT.sub("0.", text)
    text = _GROUPED.sub(_joined, text)
    return _SPACE_AS_NFKC.sub(" ", text) if spaces else text


def _tokens(text: str) -> list[str]:
    """The tokens of a text already case folded, numbers as digits."""
    return [
        (_number(token) if token[0] in "-0" or "." in token else token)
        if token[0].isdigit() or token[0] == "-"
        else token
        for token in _TOKEN.findall(text)
        if token[0].isalnum()
        or token in _PER
        or unicodedata.category(token[0])[0] == "S"
        or (token[0] == "-" and len(token) > 1)  # a number's sign, and the number
    ]  # punctuation (Unicode category P*) separates words and counts for nothing


_ASCII_TOKEN = re.compile(r"-?\d+(?:\.\d+)*|[A-Za-z]+|[$+<=>^`|~%]", re.ASCII)
"""``_TOKEN`` on ASCII text, keeping only the tokens ``_tokens`` keeps: numbers, words, and
the symbols (Unicode category S) and ``%``; the other punctuation is skipped as it would
be dropped. Most answers are ASCII, and most of normalising them went to that filter."""


def _ascii_tokens(text: str) -> list[str]:
    """``_tokens`` of an ASCII text (the same tokens, found faster)."""
    tokens = _ASCII_TOKEN.findall(text)
    if "0" in text or "." in text:  # a number may have another form
        return [
            _number(token)
            if (token[0].isdigit() or token[0] == "-") and (token[0] in "-0" or "." in token)
            else token
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
