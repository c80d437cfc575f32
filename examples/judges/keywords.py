#!/usr/bin/env python3
"""An example judge for `evalset score answers --judge command:...`: content words, no model.

It speaks evalset's judge protocol: one JSON request per line on standard input, one JSON
answer per line on standard output, in order (README, "Scoring answers"). A text asserts a
claim when it holds every number of the claim and at least three quarters of the claim's
content words (lower case, a crude stem, common words left out). An answer declines when it
says it cannot answer. Statements are the text's sentences.

Replace the three functions below by calls to your model or service: the protocol stays.
Only the standard library is used, so any Python 3 runs it.
"""

import json
import re
import sys

STOP = set(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "you",
        "your",
        "we",
        "our",
        "i",
        "my",
        "me",
        "can",
        "could",
        "may",
        "might",
        "must",
        "will",
        "would",
        "should",
        "do",
        "does",
        "did",
        "not",
        "no",
        "than",
        "then",
        "so",
        "if",
        "there",
        "their",
        "they",
        "them",
        "he",
        "she",
        "his",
        "her",
        "have",
        "has",
        "had",
        "also",
        "only",
        "just",
        "any",
        "all",
        "each",
        "per",
        "within",
        "after",
        "before",
        "up",
        "out",
        "into",
        "over",
    ]
)
NUMBERS = {
    "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "fourteen": "14", "thirty": "30", "sixty": "60",
    "forty-five": "45", "hundred": "100",
}  # fmt: skip
DECLINE = re.compile(
    r"\b(i (do not|don't|cannot|can't|could not|couldn't) (know|answer|help|find|share)|"
    r"(do not|don't) have (any )?information|no information|not able to (answer|help)|"
    r"unable to (answer|help))",
    re.I,
)


def words(text):
    out = []
    for word in re.findall(r"[a-z0-9€%.:]+", text.lower().replace("-", " ")):
        word = word.strip(".:")
        word = NUMBERS.get(word, word)
        if not word or word in STOP:
            continue
        for ending in ("ing", "ed", "es", "s"):
            if len(word) > 4 and word.endswith(ending):
                word = word[: -len(ending)]
                break
        out.append(word)
    return out


def entails(text, claim):
    have = set(words(text))
    wanted = words(claim)
    if not wanted:
        return False, "the claim has no content words"
    numbers = [w for w in wanted if any(c.isdigit() for c in w)]
    missing_numbers = [n for n in numbers if n not in have]
    if missing_numbers:
        return False, f"missing {', '.join(missing_numbers)}"
    found = sum(1 for w in wanted if w in have)
    share = found / len(wanted)
    return share >= 0.75, f"{found} of {len(wanted)} content words"


def refuses(text):
    return bool(DECLINE.search(text)), None


def statements(text):
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


for line in sys.stdin:
    request = json.loads(line)
    op, answer = request["op"], {"id": request["id"]}
    if op == "entails":
        answer["verdict"], answer["reason"] = entails(request["text"], request["claim"])
    elif op == "refuses":
        answer["verdict"], _ = refuses(request["text"])
    elif op == "statements":
        answer["statements"] = statements(request["text"])
    else:
        answer["error"] = f"unknown op {op!r}"
    print(json.dumps(answer), flush=True)
