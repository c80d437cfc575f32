"""A manifest's document lines are read by orjson where it reads them as json does: every
line gives the value ``json_loads`` gives, or fails as it fails."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from evalset.corpus.table import read_entry
from evalset.fsio import json_loads


def line(level: str = "2", extra: str = "", text: str = '"Keep receipts."') -> str:
    section = f'{{"hash": "x1", "title": "Returns", "level": {level}, "text": "Keep receipts."}}'
    return f'{{"hash": "d1", "text": {text}, "sections": {{"returns": {section}{extra}}}}}'


LINES = [
    line(),  # as evalset writes it
    line("99999999999999999999999"),  # beyond 64 bits: orjson would read a float
    line("18446744073709551615"),  # the largest 64-bit unsigned integer
    line("-9223372036854775809"),  # just below the smallest 64-bit integer
    line("2.0"),  # a float where an integer belongs
    line("1e400"),  # beyond a double: json reads infinity, orjson refuses
    line("NaN"),
    line("true"),
    line("null"),
    line("[2]"),
    line(extra=', "faq": {"hash": "h", "level": 123456789012345678901234567890}'),
    line(extra=', "faq": {"weight": 12345678901234567890123}'),  # a key of a plug-in
    line(text='"\\ud800"'),  # a lone surrogate escape: not text
    line(text='"\\ud83d\\ude00"'),  # a pair: an emoji
    line(text="12345678901234567890123"),  # the document's text a number
    line(text="1.5"),
    '{"hash": "d1", "text": "t", "sections": {}, "size": 123456789012345678901234}',
    '{"hash": "d1", "text": "t", "sections": []}',
    '{"hash": "d1", "sections": {"a": {"level": 1, "title": "A"}}}',  # no text stored
    '{"hash": "d1", "text": "t", "sections": {"a": 5}}',
    '{"hash": "d1", "text": "t", "sections": {"a": {"level": 1, "level": 2}}}',
    "[1, 2]",
    "12345678901234567890123",
    '"text"',
    '{"hash" ,, garbage',
    "[" * 5000,
    "",
    "\ufeff{}",
    '{"a": 1}\n',
]


def outcome(read: Any, raw: str | bytes) -> tuple[str, str]:
    try:
        value = read(raw)
    except ValueError as exc:
        return "error", type(exc).__name__ + ": " + str(exc)
    return "value", repr(value)  # repr: 1 and 1.0 and True differ, and so does nan


@pytest.mark.parametrize("raw", LINES)
@pytest.mark.parametrize("as_bytes", [False, True], ids=["text", "bytes"])
def test_a_document_line_reads_as_json_loads_reads_it(raw: str, as_bytes: bool) -> None:
    given_raw: str | bytes = raw.encode("utf-8", "surrogatepass") if as_bytes else raw
    assert outcome(read_entry, given_raw) == outcome(json_loads, given_raw)


def test_invalid_utf8_fails_as_json_loads_fails() -> None:
    raw = line(text='"\xff"').encode("latin-1")
    assert outcome(read_entry, raw) == outcome(json_loads, raw)


numbers = st.one_of(
    st.integers(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=False, allow_infinity=False),
)
scalars = st.one_of(st.none(), st.booleans(), st.text(), numbers)
sections = st.dictionaries(
    st.text(min_size=1, max_size=8),
    st.one_of(
        st.fixed_dictionaries(
            {"hash": st.text(), "title": st.text(), "level": numbers, "text": st.text()}
        ),
        st.dictionaries(st.sampled_from(["hash", "title", "level", "text", "x"]), scalars),
    ),
    max_size=4,
)


@given(
    st.fixed_dictionaries(
        {"hash": scalars, "sections": sections},
        optional={"text": scalars, "other": scalars},
    )
)
def test_any_entry_reads_as_json_loads_reads_it(entry: dict[str, Any]) -> None:
    raw = json.dumps(entry)
    for given_raw in (raw, raw.encode("utf-8", "surrogatepass")):
        assert outcome(read_entry, given_raw) == outcome(json_loads, given_raw)
