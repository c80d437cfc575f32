"""DeepEval: goldens as a JSON array, as ``EvaluationDataset.add_goldens_from_json_file``
reads them: ``input``, ``expected_output`` (every key point as a sentence; the short answer
for an item without key points), ``context`` (the cited sections' text), ``name`` (the item
id), ``additional_metadata`` (id, category, split, tags, pin) and ``custom_column_key_values``
(id, category and split as text, for filtering in Confident AI).

An unanswerable item's expected output says that a correct response declines
(``DECLINES``), and its context is an empty list rather than missing, so metrics that need
them score it instead of raising ``MissingTestCaseParamsError``.
"""

from __future__ import annotations

import json
from typing import Any

from evalset.export.view import View, reference_answer, split_of
from evalset.sets.model import item_citations


def write(view: View) -> str:
    goldens = []
    for item in view.items:
        golden: dict[str, Any] = {"input": item.question, "name": item.id}
        expected = reference_answer(item)
        if expected is not None:
            golden["expected_output"] = expected
        texts = [view.context(item, c) for c in item_citations(item)]
        golden["context"] = [t for t in texts if t]
        golden["additional_metadata"] = view.metadata(item)
        golden["custom_column_key_values"] = {
            "evalset_id": item.id,
            "category": item.category or "",
            "split": split_of(item) or "",
        }
        goldens.append(golden)
    return json.dumps(goldens, ensure_ascii=False, indent=2) + "\n"
