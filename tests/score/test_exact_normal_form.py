"""The exact judge's normal form (normalise.normalise, judges/exact.py) is the README's rule:
checked against a reference that applies the rule one character at a time, on generated
texts and on a table of the ways one number is written (digit groups with every separator,
digits of other scripts, fractions grouped SI's way, and the look-alikes that are other
numbers), through the ASCII fast path and the Unicode path alike, and once end to end
through `evalset score answers --judge exact`."""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

import pytest
from answers_ws import write_run
from hypothesis import given
from hypothesis import strategies as st
from scoring_ws import make_workspace

from conftest import commit_all, seeded, write_files

SPACES = {c for c in map(chr, range(sys.maxunicode + 1)) if unicodedata.category(c) == "Zs"}
SPACES.discard(" ")
"""Every Unicode space separator but the ASCII space: each sets digit groups apart."""
APOSTROPHES = "'\u2019\u02bc`"
SEPARATORS = {",", "\u066c", *APOSTROPHES, *SPACES}
DIGIT_FORMS = {
    c
    for c in map(chr, range(sys.maxunicode + 1))
    if not c.isdecimal() and any(d.isdecimal() for d in unicodedata.normalize("NFKC", c))
}
"""What NFKC turns into digits, but for the decimal digits themselves: superscripts,
fractions, circled numbers..."""
SIGNS = {"\u066b": ".", "\u066a": "%", "\u0609": "\u2030", "\u060a": "\u2031"}
"""The Arabic decimal separator, and per cent, per mille and per ten thousand signs."""


def _digit_forms_apart(text: str) -> str:
    """A space wherever a digit and a character of DIGIT_FORMS meet."""
    out = []
    for k, c in enumerate(text):
        pair = text[k - 1 : k + 1]
        if len(pair) == 2 and any(d.isdecimal() for d in pair) and set(pair) & DIGIT_FORMS:
            out.append(" ")
        out.append(c)
    return "".join(out)


def _nfkc_but_spaces(text: str) -> str:
    """NFKC of the text between the spaces of SPACES, which stay as they are."""
    out, run = [], ""
    for c in text:
        if c in SPACES:
            out += [unicodedata.normalize("NFKC", run), c]
            run = ""
        else:
            run += c
    return "".join(out) + unicodedata.normalize("NFKC", run)


def _ascii_digits(text: str) -> str:
    """Digits of every script as ASCII; the Arabic signs as SIGNS says."""
    return "".join(str(unicodedata.decimal(c)) if c.isdecimal() else SIGNS.get(c, c) for c in text)


def _grouped(groups: list[str], separator: str, fraction: bool) -> bool:
    """Whether digit groups set apart by one separator are one number: in a fraction, groups
    of three set apart by spaces, the last of one to three; elsewhere a first group of one
    to three and then groups of three, or a first of one or two, then groups of two, then
    a last of three."""
    sizes = [len(g) for g in groups]
    if len(sizes) < 2:
        return False
    if fraction:
        return separator in SPACES and sizes[0] == 3 and set(sizes[1:-1]) <= {3} and sizes[-1] <= 3
    western = sizes[0] <= 3 and set(sizes[1:]) == {3}
    indian = sizes[0] <= 2 and len(sizes) > 2 and set(sizes[1:-1]) == {2} and sizes[-1] == 3
    return western or indian


def _join_groups(text: str) -> str:
    """Digit groups joined where they form one number; an apostrophe between digits that
    form none is a space. Read left to right, one character at a time."""
    out, k = [], 0
    while k < len(text):
        c = text[k]
        before = text[k - 2 : k] if k >= 2 else ""
        if c.isdecimal() and not (k and text[k - 1].isdecimal()):
            fraction = len(before) == 2 and before[0].isdecimal() and before[1] == "."
            after_separator = len(before) == 2 and before[0].isdecimal() and before[1] in SEPARATORS
            groups, separator, j = [], "", k
            while True:  # the run of digit groups with one separator
                start = j
                while j < len(text) and text[j].isdecimal():
                    j += 1
                groups.append(text[start:j])
                if (
                    j + 1 < len(text)
                    and text[j] in SEPARATORS
                    and text[j] == (separator or text[j])
                    and text[j + 1].isdecimal()
                ):
                    separator = text[j]
                    j += 1
                else:
                    break
            if not after_separator and _grouped(groups, separator, fraction):
                out.append("".join(groups))
                k = j
            else:
                out.append(groups[0])
                k += len(groups[0])
        elif c in APOSTROPHES and 0 < k < len(text) - 1:
            out.append(" " if text[k - 1].isdecimal() and text[k + 1].isdecimal() else c)
            k += 1
        else:
            out.append(c)
            k += 1
    return "".join(out)


def _leading_points(text: str) -> str:
    """A 0 before each point that starts a number: one before a digit, after neither a
    letter, a digit nor another point."""
    out = []
    for k, c in enumerate(text):
        after = text[k - 1] if k else ""
        if c == "." and text[k + 1 : k + 2].isdecimal() and not (after.isalnum() or after == "."):
            out.append("0")
        out.append(c)
    return "".join(out)


def _sign_may_follow(c: str) -> bool:
    """Whether a number's sign may follow ``c``: a space, an opening bracket or quote of any
    script (Unicode categories Ps and Pi), an operator, a comma or a colon."""
    opening = unicodedata.category(c) in ("Ps", "Pi")
    return c.isspace() or opening or c in "([{=<>:,;|+*~\u2248\u2264\u2265\u201c\u2018\u00ab"


def _signs(text: str) -> str:
    """Each hyphen-minus or minus sign as "-" where it is a number's sign (before a digit,
    at the start or after a space, an opening bracket or quote, an operator, a comma or a
    colon; after an ASCII quote or backtick that stands where a sign may, as ``"-5"``), as a
    space elsewhere."""
    out = []
    for k, c in enumerate(text):
        if c in "-\u2212":
            after = text[k - 1] if k else " "
            opens = _sign_may_follow(after) or (
                after in "\"'`" and _sign_may_follow(text[k - 2] if k > 1 else " ")
            )
            sign = text[k + 1 : k + 2].isdecimal() and opens
            out.append("-" if sign else " ")
        else:
            out.append(c)
    return "".join(out)


def _canonical_number(token: str) -> str:
    sign, digits = ("-", token[1:]) if token.startswith("-") else ("", token)
    if digits.count(".") > 1:
        return token
    whole, _, fraction = digits.partition(".")
    whole, fraction = whole.lstrip("0") or "0", fraction.rstrip("0")
    number = f"{whole}.{fraction}" if fraction else whole
    return number if number == "0" else sign + number


def reference_normalise(text: str) -> str:
    """The normal form as the README words it, one step at a time, number words always
    through text2num (no short cut for texts without them, none for ASCII)."""
    from text_to_num import alpha2digit

    text = _nfkc_but_spaces(_digit_forms_apart(text))
    text = _join_groups(_leading_points(_ascii_digits(text).casefold()))
    text = "".join(unicodedata.normalize("NFKC", c) if c in SPACES else c for c in text)
    text = _signs(text)
    for c in APOSTROPHES:
        text = text.replace(c, "")
    # characters that show nothing, and the vowel points of Hebrew and Arabic, by name
    for c in "\u00ad\u200b\u200c\u200d\u2060\ufeff\u0640":
        text = text.replace(c, "")
    text = "".join(
        c
        for c in text
        if not (
            unicodedata.category(c) == "Mn"
            and ("HEBREW" in unicodedata.name(c, "") or "ARABIC" in unicodedata.name(c, ""))
            and ("\u0591" <= c <= "\u05c7" or "\u064b" <= c <= "\u065f" or c == "\u0670")
        )
    )
    for c in "\u2010\u2011\u2012\u2013\u2014\u2015/\u2044\u2215":
        text = text.replace(c, " ")
    text = alpha2digit(text, "en", threshold=0)
    tokens, k = [], 0
    while k < len(text):
        c = text[k]
        if c.isdecimal() or c == "-":  # digits, with dots between digit runs; a sign
            end = k + 1
            while end < len(text) and (
                text[end].isdecimal()
                or (text[end] == "." and end + 1 < len(text) and text[end + 1].isdecimal())
            ):
                end += 1
            tokens.append(
                _canonical_number(text[k:end])
                if text[k:end].lstrip("-")[0] == "0" or "." in text[k:end]
                else text[k:end]
            )
            k = end
        elif c.isalnum() and c != "_":  # a word: letters (and other non-decimal alphanumerics)
            end = k  # and the combining marks after them (Hindi's vowel signs)
            while end < len(text) and (
                (text[end].isalnum() and not text[end].isdecimal())
                or unicodedata.category(text[end]).startswith("M")
            ):
                end += 1
            tokens.append(text[k:end])
            k = end
        else:  # one symbol, %, ‰ or ‱ (kept); punctuation, space and the rest (dropped)
            if c in "%\u2030\u2031" or unicodedata.category(c).startswith("S"):
                tokens.append(c)
            k += 1
    return " ".join(tokens)


PIECES = [
    "thirty", "Thirty", "THIRTY", "30", "30.0", "030", "thirty-five", "35", "one hundred and "
    "twenty", "120", "1,000", "1000", "1\u00a0000", "1\u202f000", "1,0000", "nought", "zero",
    "0", "_thirty", "x_one", "twentieth", "first", "days", "Days", "day's", "don't", "€4.95",
    "4.950", "%", "50%", "2.0.1",
    "\uff54\uff48\uff49\uff52\uff54\uff59", "\uff11\uff10\uff10", "ﬁve", "straße",
    "STRASSE", "e\u0301", "\u00e9", "I don't know", "I DO NOT KNOW", "no information about",
    " ", "  ", "\t", "\n",
    "\u00a0", "\u2009", ",", ".", "!", "-", "/", "'", "\u2019", "—", "_", "someone", "often",
    # digit groups, digits of other scripts, and what looks like them
    "1", "12", "00", "000", "345", "1'000", "1\u2019000", "1\u2009000", "1\u2007000", "5'10",
    "1,00,000", "0.000\u20091", "\u0663\u0660", "\u0969\u0966", "\u0663\u066c\u0660\u0660\u0660",
    "\u0661\u066b\u0665", "\u066a", "\uff0c", "\u3000", "\u1680", "\u066c", "`",
    "\u00b3", "\u00bd", "\u2030", "\u2460", "\u2082", "\u0609", "\u2044",
    # signs and leading points, and the hyphens that are neither
    "-5", "\u22125", ".5", "-.5", ".5%", "-0", "2-3", "COVID-19", "No.5", "...5", "\u2212",
    # quotes and brackets that open, close, or both
    '"', "\u201e", "\u300c", "\u300d", "(", ")",
    # words with combining marks; vowel points that may be left out; what shows nothing
    "किताब", "कुतुब", "\u093f", "\u0940\u0938", "புத்தகம்", "كِتَاب", "كتاب", "\u0640", "\u064e",
    "שָׁלוֹם", "שלום", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", "\u200c", "\u200b",
    "\u00ad", "inter\u00adnational",
]  # fmt: skip


@seeded(300)
@given(
    parts=st.lists(st.sampled_from(PIECES), max_size=8),
    joins=st.lists(
        st.sampled_from(["", " ", "  ", "\u00a0", "-", ",", "'", ".", "\u2009"]),
        min_size=8,
        max_size=8,
    ),
)
def test_the_exact_normal_form_is_the_readme_rule(parts: list[str], joins: list[str]) -> None:
    from evalset.score.normalise import normalise

    text = "".join(p + j for p, j in zip(parts, joins, strict=False))
    assert normalise(text) == reference_normalise(text), text


@seeded(300)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["1", "12", "000", "345", "00", "0", ".", ",", "'", "`", " "]),
            st.sampled_from(["thirty", "one hundred", "07.50", "2.0.1", "x", "don't"]),
            st.characters(max_codepoint=127),
        ),
        max_size=16,
    ).map("".join)
)
def test_ascii_text_has_the_same_tokens_through_either_path(text: str) -> None:
    """A letter that is not ASCII, set apart by a space, sends a text down the Unicode path
    and adds its one token: the rest must read as on the ASCII path."""
    from evalset.score.normalise import normalise

    assert text.isascii()
    assert normalise(f"{text} \u00e9") == f"{normalise(text)} \u00e9".lstrip()
    assert normalise(text) == reference_normalise(text)


def test_the_group_separators_are_every_unicode_space_but_the_ascii_one() -> None:
    from evalset.score import normalise as module

    assert set(module._SPACES) == SPACES


def test_every_character_nfkc_makes_digits_is_kept_apart_from_digits() -> None:
    import re

    from evalset.score import normalise as module

    forms = re.compile(f"[{module._DIGIT_FORMS}]")
    assert {c for c in map(chr, range(sys.maxunicode + 1)) if forms.fullmatch(c)} == DIGIT_FORMS


SAME = [
    ("1000 euros", [
        "1,000 euros", "1'000 euros", "1\u2019000 euros", "1\u02bc000 euros",
        *(f"1{space}000 euros" for space in sorted(SPACES)),
        "\uff11\uff0c\uff10\uff10\uff10 euros", "1\uff0c000 euros", "1\ufe50000 euros",
        "\u0661\u0660\u0660\u0660 euros", "\u0661\u066c\u0660\u0660\u0660 euros",
        "\u0967,\u0966\u0966\u0966 euros", "one thousand euros",
    ]),
    ("1000000", ["1,000,000", "1\u00a0000\u00a0000", "1'000'000", "10,00,000"]),
    ("100000", ["1,00,000", "\u0967,\u0966\u0966,\u0966\u0966\u0966"]),
    ("12345678", ["1,23,45,678", "12,345,678", "12\u202f345\u202f678"]),
    ("1234567", ["12,34,567", "1,234,567"]),
    ("1234.5", ["1,234.50", "1\u2009234.5", "\u0661\u066c\u0662\u0663\u0664\u066b\u0665"]),
    ("0.0001", ["0.000\u20091", "0.000\u00a0100"]),
    ("3.14159265", ["3.141\u2009592\u200965"]),
    ("30 days", ["\u0663\u0660 days", "\u0969\u0966 days", "\u09e9\u09e6 days",
                 "\u0e53\u0e50 days", "\uff13\uff10 days", "thirty days", "30.0 days",
                 "030 days"]),
    ("50 %", ["50%", "\u0665\u0660\u066a", "\uff15\uff10\uff05"]),
    ("5 \u2030", ["5\u2030", "\u0665\u0609"]),
    ("1/2", ["\u00bd", "1\u20442", "1\u22152"]),
    ("1 1/2 days", ["1\u00bd days", "1 \u00bd days"]),
    ("10 3", ["10\u00b3", "10 \u00b3", "10\u2083"]),  # an exponent, a footnote: not 103
    ("-5 degrees", ["\u22125 degrees", "-5.0 degrees", "-05 degrees", "(-5) degrees",
                    "\u2212\u0665 degrees", "\uff0d5 degrees"]),
    ("0.5 %", [".5%", "0.50%", "(.5%)", "\u066b\u0665\u066a", "\uff0e5%"]),
    ("-0.5", ["-.5", "\u2212.5", "-0.50", "\u2212\u066b\u0665"]),
    ("0", ["-0", "\u22120", "-0.0", "-.0", "-00"]),
    ("-1000", ["-1,000", "\u22121\u202f000", "-1'000"]),
    ("0.0001", [".000\u20091", ".0001"]),
    ("0.5 0", [".5,000"]),  # as 0.5,000: a fraction is not grouped by commas
    ("2 3", ["2-3", "2\u22123", "2 - 3", "2 -- 3"]),  # a range: the hyphen after a digit
    ("covid 19", ["COVID-19", "covid\u221219", "Covid - 19"]),  # after a letter
    ("30 % 50 %", ["30%-50%", "30% - 50%"]),  # after a unit, a symbol or a closing mark
    ("5 \u00b0 10 \u00b0", ["5\u00b0-10\u00b0"]), ("555 123 4567", ["(555)-123-4567"]),
    ("5 10", ['5"-10"', "5'-10'", "5\u2019-10\u2019", "[5]-[10]"]), ("1 2", ["1)-2)"]),
    ("-5", ["[-5]", "{-5}", ":-5", ",-5", "\u201c-5\u201d", "\u00ab-5\u00bb"]),
    # after an opening quote or bracket of any kind: ASCII quotes where a sign may stand
    ("-5", ['"-5"', "'-5'", "`-5`", '("-5")', '["-5"]', ': "-5"', "\u201c'-5'\u201d",
            "\u201e-5\u201c", "\u201a-5\u2018", "\u2039-5\u203a", "\u300c-5\u300d",
            "\u300e-5\u300f", "\u27e8-5\u27e9", '"\u22125"', '"-5.0"']),
    ("-0.5 %", ['"-.5%"', "'-0.5 %'"]),
    ("no 5", ["No.5", "no. 5"]),  # a point after a letter is no decimal point
    ("wait 5", ["wait...5", "wait\u20265"]),  # nor one after a point (an ellipsis)
]  # fmt: skip
"""The same number, written each way: each spelling's tokens are its first column's."""

OTHER = [
    ("1,5", "15"), ("1,5", "1.5"), ("1,50", "150"), ("0,5", "0.5"),  # a comma is no decimal sign
    ("1 000", "1000"),  # the ASCII space is a word break
    ("1,0000", "10000"), ("1,000,00", "100000"), ("1234,567", "1234567"), ("1,2,345", "12345"),
    ("1,000\u00a0000", "1000000"),  # one separator throughout
    ("5'10", "510"), ("5\u201910", "510"),  # an apostrophe between numbers that are not grouped
    ("1\u2019000'30", "100030"), ("1,000'30", "100030"), ("0.000\u00a01'5", "0.00015"),
    ("0.5,000", "0.5000"), ("1.000,5", "1000.5"),  # no groups in a fraction but SI's spaces
    ("0.000,1", "0.0001"), ("0.000'1", "0.0001"), ("0.5\u00a0000", "0.5000"),
    ("0.0001\u00a0000", "0.0001000"), ("v1.2,345", "v1.2345"),
    ("\u0661\u060c\u0660\u0660\u0660", "1000"),  # the Arabic comma separates a list
    ("1\u3001000", "1000"),  # so does the ideographic comma
    ("10\u00b3", "103"), ("1\u00bd", "11/2"), ("30\u00b9", "301"),  # NFKC made them one number
    ("5\u2030", "5"), ("5\u2030", "5%"),  # per mille is neither nothing nor per cent
    ("-5", "5"), ("\u22125", "5"), ("-5%", "5%"), ("-5", "- 5"),  # a sign is part of its number
    (".5", "5"), (".5%", "5%"), ("-.5", "0.5"), ("-.5", "-5"),  # so is a point before it
    ("0.5 %", "5%"), ("-5", "2-5"), ("-1,000", "1000"), ("= -5", "= 5"), ("=-5", "= 5"),
]  # fmt: skip
"""Look-alikes: each pair's texts are different numbers, and must not have the same tokens."""


@pytest.mark.parametrize(
    ("one", "other"), [(base, spelling) for base, spellings in SAME for spelling in spellings]
)
def test_every_spelling_of_a_number_has_its_tokens(one: str, other: str) -> None:
    from evalset.score.normalise import contains, normalise

    assert normalise(other) == normalise(one) == reference_normalise(other), other
    assert contains(f"it is {other} in all", one) and contains(f"({one})", other)


@pytest.mark.parametrize(("one", "other"), OTHER)
def test_a_look_alike_of_a_number_is_another_number(one: str, other: str) -> None:
    from evalset.score.normalise import normalise

    assert normalise(one) != normalise(other)
    assert normalise(one) == reference_normalise(one)


@seeded(200)
@given(
    answer=st.lists(st.sampled_from(PIECES), max_size=8).map(" ".join),
    claim=st.lists(st.sampled_from(PIECES), max_size=3).map(" ".join),
)
def test_the_exact_judge_decides_as_its_matching_rule(answer: str, claim: str) -> None:
    from evalset.score.judges.exact import REFUSALS, ExactJudge
    from evalset.score.normalise import contains

    def occurs(needle: list[str], tokens: list[str]) -> bool:
        return bool(needle) and any(
            tokens[k : k + len(needle)] == needle for k in range(len(tokens) - len(needle) + 1)
        )

    tokens = reference_normalise(answer).split()
    judge = ExactJudge()
    assert judge.entails(answer, claim).value == occurs(reference_normalise(claim).split(), tokens)
    assert contains(answer, claim) == occurs(reference_normalise(claim).split(), tokens)
    assert judge.refuses(answer).value == any(occurs(p.split(), tokens) for p in REFUSALS)


def test_a_no_break_space_between_thousands_is_dropped_as_a_comma_is() -> None:
    from evalset.score.normalise import contains, normalise

    # NFKC turns both no-break spaces into plain ones: they were kept, splitting the number
    assert normalise("1\u00a0000 euros") == normalise("1\u202f000 euros") == "1000 euros"
    assert contains("the fee is 1\u00a0000 €", "1000 €")


def test_every_number_word_text2num_reads_is_turned_into_digits() -> None:
    from evalset.score.normalise import normalise

    # the check for a number word skipped "nought" and words after an underscore
    assert normalise("nought days") == "0 days"
    assert normalise("plan_thirty days") == normalise("plan_30 days") == "plan 30 days"


# --- end to end: `evalset score answers --judge exact` on a real workspace ------------------

SPELLINGS = {
    # item: (its short answer, [(an answer, whether it holds the short answer)])
    "fee": ("1000 euros", [
        ("The fee is 1,000 euros.", True), ("Es kostet 1'000 euros.", True),
        ("Le tarif est de 1\u202f000 euros.", True), ("It is 1\u2009000 euros.", True),
        ("It is 1\u2007000 euros.", True), ("It is \uff11\uff0c\uff10\uff10\uff10 euros.", True),
        ("\u0661\u066c\u0660\u0660\u0660 euros", True), ("It is 1 000 euros.", False),
        ("It is 1,0000 euros.", False), ("It is 100 euros.", False),
    ]),
    "window": ("30 days", [
        ("\u0663\u0660 days", True), ("\u0969\u0966 days", True), ("thirty days", True),
        ("3,0 days", False), ("300 days", False),
    ]),
    "rate": ("1.5 %", [
        ("It is 1.5%.", True), ("\u0661\u066b\u0665\u066a", True), ("It is 1,5 %.", False),
        ("It is 15 %.", False),
    ]),
    "ratio": ("0.5 \u2030", [("0.5\u2030", True), ("0.5%", False), ("It is 0.5.", False)]),
    "half": ("1 1/2 days", [("1\u00bd days", True), ("11/2 days", False)]),
    "power": ("10 3", [("10\u00b3", True), ("103", False)]),
    "height": ("5 10", [("5'10", True), ("5\u201910", True), ("510", False)]),
    "dose": ("0.0001", [("0.000\u20091", True), ("0.0001", True), ("0.000,1", False)]),
    "percent": ("0.5%", [("The fee is .5%.", True), ("The fee is 0.5 %.", True),
                         ("The fee is 5%.", False), ("The fee is 0.05%.", False)]),
    "short": (".5%", [("The fee is 5%.", False), ("The fee is 0.5%.", True)]),
    "cold": ("-5 degrees", [("It holds -5 degrees.", True), ("It holds \u22125 degrees.", True),
                            ("It holds 5 degrees.", False), ("It holds 2-5 degrees.", False),
                            ('It holds "-5 degrees".', True), ("It holds '-5 degrees'.", True),
                            ("It holds `-5` degrees.", True),
                            ("Es sind \u201e-5 degrees\u201c.", True),
                            ("It holds 5\"-5 degrees.", False)]),
    "warm": ("5 degrees", [('It holds "-5 degrees".', False), ("It holds '-5 degrees'.", False),
                           ("It holds \u300c-5 degrees\u300d.", False),
                           ("It holds 5 degrees.", True), ('It holds "5 degrees".', True)]),
    "range": ("2 3", [("aged 2-3", True), ("aged 2 to 3", False)]),
    "people": ("100000", [("1,00,000 people", True), ("100,000 people", True),
                          ("1,00,00 people", False)]),
}  # fmt: skip


def _numbers_set(snapshot: str) -> str:
    items = "".join(
        f"""\
  - id: {ident}
    question: What is the {ident}?
    category: lookup
    expected_sources: [guide.md#returns]
    key_points:
      - text: {json.dumps(short)}
        sources: [guide.md#returns]
    answer: {json.dumps(short)}
    holdout: false
    verified: {snapshot}
"""
        for ident, (short, _) in SPELLINGS.items()
    )
    return f"evalset: 1\nname: numbers\ncategories:\n  lookup: one section\nitems:\n{items}"


def test_the_exact_judge_reads_every_spelling_of_a_number_end_to_end(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    repo, snapshot = make_workspace(tmp_path / "repo")
    write_files(repo, {"sets/numbers.yaml": _numbers_set(snapshot)})
    commit_all(repo, "numbers set")
    lines = [
        {"id": ident, "trial": trial, "answer": answer}
        for ident, (_, answers) in SPELLINGS.items()
        for trial, (answer, _) in enumerate(answers)
    ]
    write_run(repo / "run.jsonl", lines)
    done = cli(repo, "score", "answers", "numbers", "run.jsonl", "--judge", "exact", "--json")
    assert done.code == 0, done.err
    rows = {(row["id"], row["trial"]): row for row in json.loads(done.out)["items"]}
    for ident, (_, answers) in SPELLINGS.items():
        for trial, (answer, holds) in enumerate(answers):
            row = rows[(ident, trial)]
            assert row["metrics"]["exact"] == float(holds), answer
            assert row["answer"]["key_points"] == [holds], answer


WORDS = [
    # (two texts, whether they are the same words): before, re's \\w left out the combining
    # marks, so a Hindi word was its consonants (किताब and कुतुब both क त ब), and a soft
    # hyphen or a non-joiner split a word in two
    ("किताब", "कुतुब", False),
    ("किताब", "किताबें", False),
    ("तीस दिन", "तीन दिन", False),
    ("புத்தகம்", "புத்தகம", False),
    ("كِتَاب", "كتاب", True),  # harakat a writer may leave out
    ("كتـــاب", "كتاب", True),  # tatweel only draws a word out
    ("שָׁלוֹם", "שלום", True),  # so do Hebrew's vowel points
    (
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645",
        "\u0645\u06cc\u062e\u0648\u0627\u0647\u0645",
        True,
    ),
    ("inter\u00adnational", "international", True),
    ("zero\u200bwidth", "zerowidth", True),
]


@pytest.mark.parametrize(("one", "other", "same"), WORDS)
def test_a_word_is_its_letters_and_marks_whatever_shows_nothing(
    one: str, other: str, same: bool
) -> None:
    from evalset.score.judges.exact import ExactJudge
    from evalset.score.normalise import contains, normalise

    assert (normalise(one) == normalise(other)) is same
    assert normalise(one) == reference_normalise(one)
    assert contains(f"उत्तर: {one} है", other) is same
    assert ExactJudge().entails(f"— {one} —", other).value is same
