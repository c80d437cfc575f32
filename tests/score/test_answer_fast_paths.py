"""The fast paths of answer scoring give exactly what the README's definitions give."""

from __future__ import annotations


def test_a_no_break_space_between_thousands_is_dropped_as_a_comma_is() -> None:
    from evalset.score.normalise import contains, normalise

    # NFKC turns both no-break spaces into plain ones: they were kept, splitting the number
    assert normalise("1\u00a0000 euros") == normalise("1\u202f000 euros") == "1000 euros"
    assert contains("the fee is 1\u00a0000 €", "1000 €")
