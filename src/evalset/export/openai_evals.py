"""OpenAI Evals: samples JSONL for the basic templates (Match, Includes, FuzzyMatch).

Each line has ``input`` in chat format (one user message) and ``ideal``: the short answer,
else the list of key points. Unanswerable items have no ideal answer for these templates
and are left out (the export says so). Extra keys are allowed; ``metadata`` carries the
item id and the pin.
"""

from __future__ import annotations

import json

from evalset.export.view import View


def write(view: View) -> str:
    lines = []
    for item in view.items:
        if not item.answerable:
            view.skipped[item.id] = "unanswerable: no ideal answer for Match/Includes"
            continue
        ideal: str | list[str] = item.answer or [p.text for p in item.key_points]
        sample = {
            "input": [{"role": "user", "content": item.question}],
            "ideal": ideal,
            "metadata": view.metadata(item),
        }
        lines.append(json.dumps(sample, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)
