"""`evalset diff` prints values as YAML writes them, not as Python reprs."""

from __future__ import annotations

import datetime as dt

from evalset.sets.model import HoldoutMove, Item
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
