"""Citation syntax: the fast path of Citation.parse accepts exactly what its checks accept."""

from __future__ import annotations

import itertools
import re

import pytest

from evalset.sets.citations import CITATION_PATTERN, Citation


def _by_the_rules(text: str) -> tuple[str, str | None] | None:
    """The rules of a citation, written out plainly (None: not a citation)."""
    doc, sep, section = text.partition("#")
    if not doc or (sep and not section) or "#" in section or "\\" in doc:
        return None
    if doc[0].isspace():
        return None
    if doc.startswith("/") or any(part in ("", ".", "..") for part in doc.split("/")):
        return None
    if any(ch.isspace() for ch in section):
        return None
    return doc, section or None


PIECES = ["a", ".", "/", "#", "\\", " ", "\u3000", "..", "b.md", "\n", "\t"]


def _texts() -> list[str]:
    return ["".join(c) for size in range(1, 5) for c in itertools.product(PIECES, repeat=size)]


def test_parse_accepts_exactly_the_valid_citations() -> None:
    for text in _texts():
        try:
            parsed: tuple[str, str | None] | None = tuple(Citation.parse(text))  # type: ignore[assignment]
        except ValueError:
            parsed = None
        assert parsed == _by_the_rules(text), text


def test_the_json_schema_pattern_refuses_only_what_parse_refuses() -> None:
    """Editors check set files against the JSON Schema's pattern: it accepts every citation
    that validates, and refuses what parse refuses but for the parts of a path (an empty,
    '.' or '..' part), which a pattern does not check."""
    pattern = re.compile(CITATION_PATTERN.removeprefix("^").removesuffix("$"))
    for text in _texts():
        valid = _by_the_rules(text) is not None
        matched = pattern.fullmatch(text) is not None
        if valid:
            assert matched, text
        elif matched:
            doc = text.partition("#")[0]
            assert any(part in ("", ".", "..") for part in doc.split("/")), text


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("#x", "no document"),
        ("a.md#", "ends with '#'"),
        ("a.md#x#y", "more than one '#'"),
        ("a\\b.md", "forward slashes"),
        ("../a.md", "relative to the corpus root"),
        ("a.md#x y", "white space"),
        (" a.md", "starts with white space"),
        ("\u00a0a.md#x", "starts with white space"),
    ],
)
def test_each_problem_is_named(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        Citation.parse(text)
    assert Citation.parse("policies/returns.md#damaged-items") == (
        "policies/returns.md",
        "damaged-items",
    )
