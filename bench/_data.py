"""Deterministic generators of realistic eval-set data for the benchmarks (no downloads)."""

from __future__ import annotations

import json
import random
import string

_OPENERS = [
    "how long do i have to",
    "can i",
    "is it possible to",
    "what happens if i",
    "why can't i",
    "do you",
    "when will you",
    "how do i",
    "where can i",
    "who should i contact to",
    "what is the fee to",
    "is there a limit to how often i can",
    "what do i need to",
    "how much does it cost to",
    "should i",
]
_VERBS = [
    "return",
    "exchange",
    "cancel",
    "track",
    "repair",
    "insure",
    "ship",
    "replace",
    "register",
    "refund",
    "resell",
    "gift",
    "store",
    "recycle",
    "upgrade",
    "rent",
    "reserve",
    "collect",
    "pay for",
    "split the cost of",
    "claim warranty on",
    "report damage to",
    "change the address for",
]
_ADJECTIVES = [
    "damaged",
    "used",
    "opened",
    "personalised",
    "refurbished",
    "discounted",
    "second",
    "large",
    "fragile",
    "heavy",
    "digital",
    "engraved",
    "broken",
    "missing",
    "late",
    "wrong",
    "expensive",
    "imported",
    "preordered",
    "bundled",
    "faulty",
    "scratched",
    "unopened",
    "custom",
    "seasonal",
]
_PLACES = [
    "norway",
    "switzerland",
    "the uk",
    "germany",
    "france",
    "spain",
    "italy",
    "poland",
    "sweden",
    "denmark",
    "ireland",
    "austria",
    "belgium",
    "portugal",
    "finland",
    "greece",
    "a parcel locker",
    "a po box",
    "my office",
    "a pickup point",
    "my holiday address",
    "a hotel",
    "a neighbour",
]
_TAILS = [
    "after {n} days",
    "without the receipt",
    "if i paid with a gift card",
    "during a sale",
    "as a gold member",
    "with express delivery",
    "if the box was crushed",
    "after it was opened",
    "when the courier was late",
    "using pay in 3",
    "before it ships",
    "once it is packed",
    "if i bought it as a guest",
    "with a business vat number",
    "after the warranty ended",
]


def _product(rng: random.Random) -> str:
    kind = rng.choice(
        [
            "blender",
            "laptop",
            "jacket",
            "sofa",
            "lamp",
            "kettle",
            "monitor",
            "tent",
            "drill",
            "stroller",
            "camera",
            "router",
            "mattress",
            "watch",
            "speaker",
            "printer",
            "bike",
        ]
    )
    model = "".join(rng.choices(string.ascii_lowercase, k=2)) + str(rng.randint(10, 9999))
    return f"{kind} {model}"


_CONTEXT = [
    "i ordered last week",
    "my partner bought for me",
    "that arrived yesterday",
    "from the black friday sale",
    "for my daughter",
    "with two missing screws",
    "that smells of smoke",
    "which was a wedding present",
    "still in the shop bag",
    "that i assembled myself",
    "whose invoice shows the wrong name",
    "with a dead pixel",
    "which came without a manual",
    "that never charged",
    "for our office",
]


def question(rng: random.Random) -> str:
    """One customer question, built from several optional parts so that questions vary
    in length and wording the way real ones do."""
    parts = [rng.choice(_OPENERS), rng.choice(_VERBS)]
    article = rng.choice(["a", "the", "my", "this"])
    parts.append(f"{article} {rng.choice(_ADJECTIVES)} {_product(rng)}")
    if rng.random() < 0.5:
        parts.append(rng.choice(_CONTEXT))
    if rng.random() < 0.5:
        parts.append(f"to {rng.choice(_PLACES)}")
    if rng.random() < 0.6:
        parts.append(rng.choice(_TAILS).format(n=rng.randint(2, 90)))
    if rng.random() < 0.3:
        parts.insert(0, rng.choice(["hi,", "hello,", "quick question:", "sorry,", "help!"]))
    text = " ".join(parts)
    return text[0].upper() + text[1:] + "?"


def questions(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    seen: set[str] = set()
    out: list[str] = []
    while len(out) < n:
        q = question(rng)
        if q not in seen:
            seen.add(q)
            out.append(q)
    return out


def perturb(q: str, rng: random.Random, edits: int) -> str:
    """A near duplicate of ``q``: case/punctuation change plus ``edits`` word edits
    (insert, delete, substitute or swap neighbours)."""
    words = q.rstrip("?").split()
    for _ in range(edits):
        op = rng.choice(["insert", "delete", "substitute", "swap"])
        i = rng.randrange(len(words))
        if op == "insert":
            words.insert(i, rng.choice(["please", "really", "actually", "still", "also", "now"]))
        elif op == "delete" and len(words) > 5:
            del words[i]
        elif op == "swap" and i + 1 < len(words):
            words[i], words[i + 1] = words[i + 1], words[i]
        else:
            words[i] = rng.choice(["an", "the", "my", "this", "that", "our"])
    text = " ".join(words)
    return rng.choice([text.lower(), text.upper(), text.capitalize()]) + rng.choice(
        ["?", "", "!", " ?"]
    )


def set_yaml(n_items: int, seed: int = 11) -> str:
    """A set file of ``n_items`` items of about 1 KB each, in the layout users write."""
    rng = random.Random(seed)
    docs = [f"policies/topic-{d:03d}.md" for d in range(200)]
    out = [
        "# yaml-language-server: $schema=../schemas/evalset.schema.json\n",
        "evalset: 1\nname: bench\ndescription: Generated benchmark set\ncategories:\n",
        "  direct-lookup: a fact stated in one section\n  multi-hop: needs two or more sections\n",
        "items:\n",
    ]
    for i, q in enumerate(questions(n_items, seed)):
        doc = rng.choice(docs)
        sec_a, sec_b = f"{doc}#section-{rng.randint(1, 8)}", f"{doc}#section-{rng.randint(1, 8)}"
        points = "".join(
            f"      - text: {' '.join(rng.choices(_ADJECTIVES + _VERBS, k=14))}\n"
            f"        sources: [{sec_a}]\n"
            for _ in range(4)
        )
        out.append(
            f"  - id: q-{i:06d}\n"
            f"    question: {json.dumps(q)}\n"
            f"    category: {rng.choice(['direct-lookup', 'multi-hop'])}\n"
            f"    expected_sources: [{sec_a}, {sec_b}]\n"
            f"    key_points:\n{points}"
            f"    must_not_say:\n      - {' '.join(rng.choices(_ADJECTIVES, k=10))}\n"
            f"    answer: {rng.randint(1, 90)} days\n"
            f"    holdout: {'true' if rng.random() < 0.2 else 'false'}\n"
            f"    tags: [{rng.choice(_VERBS).replace(' ', '-')}, generated]\n"
        )
    return "".join(out)
