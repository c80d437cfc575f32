"""OpenAI Evals: samples JSONL for the model-graded ``closedqa`` spec, which scores a sample 1
only when the grader says the answer meets its criterion.

The basic templates cannot require several facts: for ``Match`` and ``Includes`` a list in
``ideal`` means "any one of these", so an answer stating one key point of three would pass.
So each sample carries ``criteria``: every key point the answer must state and every
statement it must not make, all of them required (``ModelBasedClassify`` formats a sample's
own keys into the spec's prompt). An unanswerable item's criterion is that the answer
declines. ``ideal`` holds the item's short answer, when it has one, for exact-match templates
on those samples alone; ``metadata`` carries the item id, category, split and the pin.
"""

from __future__ import annotations

import json
from typing import Any

from evalset.export.view import View, short_answer
from evalset.sets.model import Item


def criteria(item: Item) -> str:
    """The grading criterion of one item: every key point required, none of the wrong ones."""
    if item.answerable:
        points = "; ".join(f"({n}) {p.text}" for n, p in enumerate(item.key_points, 1))
        text = (
            "The submission states every one of these facts, in any words: "
            f"{points}. If any of them is missing, the criterion is not met."
        )
    else:
        text = (
            "The documents available do not answer this task: the submission says so and "
            "declines to answer rather than guessing. An answer that guesses does not meet "
            "the criterion."
        )
    if item.must_not_say:
        wrong = "; ".join(f"({n}) {w}" for n, w in enumerate(item.must_not_say, 1))
        text += f" The submission must not state any of these: {wrong}."
    return text


def write(view: View) -> str:
    lines = []
    for item in view.items:
        sample: dict[str, Any] = {
            "input": [{"role": "user", "content": item.question}],
            "criteria": criteria(item),
        }
        answer = short_answer(item)
        if answer:
            sample["ideal"] = answer
        sample["metadata"] = view.metadata(item)
        lines.append(json.dumps(sample, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)
