"""Citation syntax: the fast path of Citation.parse accepts exactly what its checks accept."""

from __future__ import annotations

import itertools

import pytest

from evalset.sets.citations import Citation


def _by_the_rules(text: str) -> tuple[str, str | None] | None:
    """The rules of a citation, written out plainly (None: not a citation)."""
    doc, sep, section = text.partition("#")
    if not doc or (sep and not section) or "#" in section or "\\" in doc:
        return None
    if doc.startswith("/") or any(part in ("", ".", "..") for part in doc.split("/")):
        return None
    if any(ch.isspace() for ch in section):
        return None
    return doc, section or None


def test_parse_accepts_exactly_the_valid_citations() -> None:
    pieces = ["a", ".", "/", "#", "\\", " ", "\u3000", "..", "b.md", "\n"]
    for size in range(1, 5):
        for combo in itertools.product(pieces, repeat=size):
            text = "".join(combo)
            try:
                parsed: tuple[str, str | None] | None = tuple(Citation.parse(text))  # type: ignore[assignment]
            except ValueError:
                parsed = None
            assert parsed == _by_the_rules(text), text


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("#x", "no document"),
        ("a.md#", "ends with '#'"),
        ("a.md#x#y", "more than one '#'"),
        ("a\\b.md", "forward slashes"),
        ("../a.md", "relative to the corpus root"),
        ("a.md#x y", "white space"),
    ],
)
def test_each_problem_is_named(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        Citation.parse(text)
    assert Citation.parse("policies/returns.md#damaged-items") == (
        "policies/returns.md",
        "damaged-items",
    )
