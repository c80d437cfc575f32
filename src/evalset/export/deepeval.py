"""DeepEval: goldens as a JSON array, as ``EvaluationDataset.add_goldens_from_json_file``
reads them: ``input``, ``expected_output`` (the short answer, else the key points),
``context`` (the cited sections' text) and ``additional_metadata`` (id, split, pin)."""

from __future__ import annotations

import json
from typing import Any

from evalset.export.view import View, reference_answer
from evalset.sets.model import item_citations


def write(view: View) -> str:
    goldens = []
    for item in view.items:
        golden: dict[str, Any] = {"input": item.question}
        expected = reference_answer(item)
        if expected is not None:
            golden["expected_output"] = expected
        texts = [view.text_of(c) for c in item_citations(item)]
        if any(texts):
            golden["context"] = [t for t in texts if t]
        golden["additional_metadata"] = view.metadata(item)
        goldens.append(golden)
    return json.dumps(goldens, ensure_ascii=False, indent=2) + "\n"
