"""`evalset diff` prints values as YAML writes them, not as Python reprs."""

from __future__ import annotations

import datetime as dt

import pytest

from evalset.sets.model import HoldoutMove, Item, Origin
from evalset.versions.diff import item_changes


def test_values_read_as_yaml() -> None:
    old = Item(id="q-1", question="What's the window?", holdout=False, tags=["a"])
    new = old.model_copy(
        update={
            "holdout": True,
            "holdout_moves": [HoldoutMove(to="holdout", date=dt.date(2026, 12, 2))],
            "question": "What's the return window?",
            "answerable": False,
        }
    )
    lines = [str(change) for change in item_changes(old, new)]
    assert lines == [
        "answerable: true -> false",
        "holdout: false -> true",
        "holdout_moves: + {to: holdout, date: '2026-12-02'}",
        "question: 'What''s the window?' -> 'What''s the return window?'",
    ]
    assert not any("True" in line or "False" in line or "{'" in line for line in lines)


@pytest.mark.parametrize("char", ["\t", "\x01", "\u2028"], ids=["tab", "SOH", "LS"])
def test_a_value_longer_than_any_line_width_is_shown_on_one_line(char: str) -> None:
    """A trace (its length has no limit) written escaped over more than a million columns.
    Before, the value was folded at a million columns, and a fold right after an escape
    (here, after each character) was read as a space."""
    from ruamel.yaml import YAML

    trace = char * 600_000 + " and more"
    old = Item(id="q-1", question="What's the window?")
    new = old.model_copy(update={"origin": Origin(kind="production", trace=trace)})
    (line,) = [str(change) for change in item_changes(old, new)]
    assert "\n" not in line and line.startswith("origin: null -> {")
    shown = YAML(typ="safe", pure=True).load(line.removeprefix("origin: null -> "))
    assert (shown["kind"], shown["trace"]) == ("production", trace)
