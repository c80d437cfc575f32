"""The fast paths of answer scoring give exactly what the README's definitions give."""

from __future__ import annotations


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
