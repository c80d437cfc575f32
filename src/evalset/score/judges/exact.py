"""The ``exact`` judge: normalised containment, no model.

A text asserts a claim when the claim's normalised tokens occur in it, whole and in order
(``evalset.score.normalise``). That is right for short extractive facts ("30 days",
"€4.95") and wrong for anything said in other words: a key point written as a sentence is
almost never repeated word for word by a good answer, so coverage measured this way is far
too low. Check it against people (`evalset agreement`) before trusting its numbers.

An answer refuses when it contains one of a few fixed phrases (``REFUSALS``: "I don't know",
"I cannot answer", "no information about", "I can't share"...). It cannot split text into
statements, so faithfulness is not scored with it. Its verdicts are not cached: deciding is
cheaper than looking up.
"""

from __future__ import annotations

import re
from functools import lru_cache

from evalset.score.judges.base import Judge, Verdict
from evalset.score.normalise import normalise

REFUSALS = tuple(
    normalise(phrase)
    for phrase in (
        "I don't know",
        "I do not know",
        "I cannot answer",
        "I can't answer",
        "I cannot help with",
        "I can't help with",
        "I am unable to",
        "I'm unable to",
        "I am not able to",
        "I'm not able to",
        "I could not find",
        "I couldn't find",
        "I cannot find",
        "I can't find",
        "no information about",
        "no information on",
        "not in the documents",
        "the documents do not say",
        "the documents don't say",
        "I don't have information",
        "I do not have information",
        "I don't have any information",
        "I do not have any information",
        "cannot provide that",
        "can't provide that",
        "not something I can answer",
        "I cannot share",
        "I can't share",
        "I will not share",
        "I won't share",
        "I cannot disclose",
        "I can't disclose",
        "I will not disclose",
        "I won't disclose",
    )
)
"""Phrases whose presence (normalised) marks an answer as declining."""


class ExactJudge(Judge):
    """Normalised containment; honest only for short extractive facts."""

    name = "exact"
    version = "6"
    """Raised when what counts as the same text changes (2: digit groups, scripts' digits;
    3: declining to share or disclose; 4: a number's sign and a point before its first
    digit; 5: a sign after an opening quote, ``"-5"``; 6: a word keeps its combining marks,
    and characters that show nothing split no word), so that a report says which rules its
    verdicts followed."""
    cacheable = False
    description = (
        "normalised containment (case, punctuation, white space and number words ignored): "
        "fit only for short extractive facts, not for claims an answer may word differently"
    )

    def entails(self, text: str, claim: str) -> Verdict:
        needle = _padded(claim)
        return YES if needle != "  " and needle in _padded(text) else NO

    def refuses(self, answer: str) -> Verdict:
        return YES if _REFUSAL.search(_padded(answer)) else NO


YES, NO = Verdict(True), Verdict(False)
"""The only two verdicts this judge gives (verdicts are immutable: shared, not rebuilt)."""
_REFUSAL = re.compile("|".join(re.escape(f" {phrase} ") for phrase in REFUSALS))
"""Any refusal phrase, as whole tokens of a padded normal form (one search, not one per
phrase)."""


@lru_cache(maxsize=65536)
def _padded(text: str) -> str:
    """The normalised text between two spaces: its tokens are found whole by ``in``. An
    answer is compared with each of its item's claims, so it is normalised once."""
    return f" {normalise(text)} "
