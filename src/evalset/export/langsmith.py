"""LangSmith: dataset examples as JSONL, one ``{"inputs", "reference_outputs", "metadata",
"split"}`` object per line, as ``langsmith.schemas.ExampleCreate`` (what
``Client.create_examples`` takes) names them; the SDK sends ``reference_outputs`` to the API as
``outputs``. Key points keep their sources; metadata carries the id, category, split, tags,
the verified snapshot, the origin and the pin (with the set's categories)."""

from __future__ import annotations

import json
from typing import Any

from evalset.export.rows import (
    RowError,
    agreed,
    holdout_of,
    json_lines,
    listed,
    near_miss,
    shown,
    unread,
)
from evalset.export.view import View, origin_of, split_of


def write(view: View) -> str:
    lines = []
    for item in view.items:
        outputs: dict[str, Any] = {
            "key_points": [
                {"text": p.text, "sources": [str(s) for s in p.sources]} for p in item.key_points
            ],
            "expected_sources": [str(c) for c in item.expected_sources],
            "must_not_say": item.must_not_say,
            "answerable": item.answerable,
        }
        if item.answer:
            outputs["answer"] = item.answer
        metadata = view.metadata(item)
        if item.origin is not None:  # its traces, so that none is promoted again
            metadata["origin"] = origin_of(item)
        metadata["evalset"] = {**metadata["evalset"], "categories": view.categories}
        example = {
            "inputs": {"question": item.question},
            "reference_outputs": outputs,
            "metadata": metadata,
            "split": split_of(item),
        }
        lines.append(json.dumps(example, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)


OUTPUTS = ("key_points", "expected_sources", "must_not_say", "answerable", "answer", "output")
"""The reference outputs read: those ``write`` writes, and ``output``, the key LangSmith
gives a run's output (a dataset made from runs holds the reference answer there), read as
the answer. Any other is refused: a misspelt ``must_not_sya`` would be dropped."""
KEY_POINT = ("text", "sources")
EXAMPLE = ("inputs", "reference_outputs", "outputs", "metadata", "split")
"""The keys of an example read; LangSmith's own others (``id``, ``dataset_id``,
``created_at``, ``attachments``, …) are passed over, but not a near miss of these."""
METADATA = ("evalset_id", "category", "verified", "tags", "origin", "evalset", "split",
            "dataset_split")  # fmt: skip
"""The metadata read. Metadata is any data a user or LangSmith attaches (``ls_provider``,
``revision_id``), passed over; a near miss of one of these is refused."""


def _unread(
    mapping: dict[str, Any], known: tuple[str, ...], line: int, where: str = "", near: bool = False
) -> None:
    """Refuse a key of ``mapping`` not among ``known`` (``near``: only a near miss of one,
    where other keys are allowed) rather than drop what it holds."""
    for key in mapping:
        if key in known or (near and not near_miss(key, known)):
            continue
        raise RowError(line, unread("key", key, known, where))


def _key_points(points: list[Any], line: int, where: str) -> list[dict[str, Any]]:
    """Key points as this module writes them (objects with sources), or as plain texts."""
    found = []
    for k, point in enumerate(points):
        if isinstance(point, str):
            found.append({"text": point})
        elif isinstance(point, dict) and isinstance(point.get("text"), str):
            _unread(point, KEY_POINT, line, f"{where}.key_points[{k}]")
            sources = point.get("sources")
            found.append({"text": point["text"], **({"sources": sources} if sources else {})})
        else:
            raise RowError(line, f"has {where}.key_points[{k}] {shown(point)}; write a text, "
                           'or an object such as {"text": "…", "sources": ["doc"]}')  # fmt: skip
    return found


def _labels(outputs: dict[str, Any], item: dict[str, Any], line: int, where: str) -> None:
    """Take the reference outputs over into ``item``; one of the wrong shape is refused."""
    _unread(outputs, OUTPUTS, line, where)
    points = _key_points(listed(outputs, "key_points", line, where), line, where)
    answer = _answer(outputs, line, where)
    answerable = outputs.get("answerable")
    if answerable is not None and not isinstance(answerable, bool):
        raise RowError(line, f"has {where}.answerable {shown(answerable)}; write true or false "
                       "(not in quotes), or leave it out")  # fmt: skip
    if points:
        item["key_points"] = points
    elif answer is not None and answerable is not False:  # another tool's reference answer
        item["key_points"] = [{"text": answer}]
    for key in ("expected_sources", "must_not_say"):
        values = listed(outputs, key, line, where)
        if values:
            item[key] = values
    if answer is not None and (points or answerable is False):
        item["answer"] = answer  # an unanswerable item's short answer ("no") has no key point
    if answerable is False:
        item["answerable"] = False


def _answer(outputs: dict[str, Any], line: int, where: str) -> str | None:
    """The reference answer: ``answer``, or ``output`` (LangSmith's key for a run's output);
    a row with both is refused, as which is meant cannot be told. One of white space only
    (a run that returned nothing) states nothing: the row has no reference answer."""
    if outputs.get("answer") is not None and outputs.get("output") is not None:
        raise RowError(line, f"has both {where}.answer and {where}.output; keep one of them "
                       "(import reads output as the answer)")  # fmt: skip
    key = "answer" if outputs.get("answer") is not None else "output"
    answer = outputs.get(key)
    if answer is not None and not isinstance(answer, str):
        raise RowError(line, f"has {where}.{key} {shown(answer)}, not a text")
    return answer if answer is None or answer.split() else None


def _metadata(metadata: dict[str, Any], item: dict[str, Any], line: int) -> None:
    """Take the metadata this module writes over into ``item``; a text or a list of texts
    of another type is refused rather than dropped, as is a near miss of a key it reads."""
    _unread(metadata, METADATA, line, "metadata", near=True)
    for key, target in (("evalset_id", "id"), ("category", "category"), ("verified", "verified")):
        value = metadata.get(key)
        if value is not None and not isinstance(value, str):
            raise RowError(line, f"has metadata.{key} {shown(value)}, not a text")
        if value is not None:
            item[target] = value
    tags = listed(metadata, "tags", line, "metadata")
    if tags:
        item["tags"] = tags  # checked as the set's tags are: each a text
    origin = metadata.get("origin")
    if origin is not None and not isinstance(origin, dict):
        raise RowError(line, f"has metadata.origin {shown(origin)}, not a JSON object")
    if origin is not None:
        item["origin"] = origin  # checked as the set's origins are
    if isinstance(metadata.get("evalset"), dict):
        item["evalset"] = metadata["evalset"]


def _side(value: Any, line: int, key: str) -> bool | None:
    """The holdout flag a split names: one name, or a list of them as LangSmith keeps an
    example's splits, which may not name both tuning and holdout."""
    if not isinstance(value, list):
        return holdout_of(value, line, key)
    flags = {holdout_of(name, line, key) for name in value} - {None}
    if len(flags) > 1:
        raise RowError(line, f"has {key} naming both tuning and holdout; keep one of them")
    return flags.pop() if flags else None


BASE = "base"
"""The split LangSmith puts every example in that is put in no other: no side."""


def _without_base(value: Any) -> Any:
    """LangSmith's own split field (``metadata.dataset_split``, which
    ``Client.update_dataset_splits`` writes: a list of split names) without its default
    split, ``base``, which says nothing of a side."""

    def named(name: Any) -> bool:
        return isinstance(name, str) and name.strip().lower() == BASE

    if isinstance(value, list):
        return [name for name in value if not named(name)]
    return None if named(value) else value


def _holdout(example: dict[str, Any], metadata: dict[str, Any], line: int) -> bool | None:
    """The side the example's ``split``, ``metadata.split`` (evalset's exports) or
    ``metadata.dataset_split`` (LangSmith's splits: holdout or tuning, besides its default
    ``base``) names; those that name one must agree. Another split name is refused, as a
    ``split`` of another value is: read as nothing, a held-out example would come in
    unassigned, and `split` would most likely put it in tuning."""
    said = [
        (key, side)
        for key, side in (
            ("split", _side(example.get("split"), line, "split")),
            ("metadata.split", _side(metadata.get("split"), line, "metadata.split")),
            (
                "metadata.dataset_split",
                _side(_without_base(metadata.get("dataset_split")), line, "metadata.dataset_split"),
            ),
        )
        if side is not None
    ]
    for other in said[1:]:
        agreed(said[0], other, line)
    return said[0][1] if said else None


def read(text: str) -> list[tuple[int, dict[str, Any]]]:
    """Examples as item mappings: the question is ``inputs.question`` (or, when there is no
    such key, the only text input); reference outputs (``reference_outputs``, or ``outputs``
    as the API and older SDKs name them) and metadata (``metadata.tags`` included) in the
    shape this module writes are taken over. A reference output or key point key this module
    does not read is refused, as is a key of the example or its metadata that misspells one
    it reads."""
    rows = []
    for number, example in json_lines(text):
        inputs = example.get("inputs") if isinstance(example, dict) else None
        if not isinstance(inputs, dict):
            raise RowError(number, "has no inputs object")
        question = inputs.get("question")
        texts = [v for v in inputs.values() if isinstance(v, str)]
        if "question" in inputs and not isinstance(question, str):
            # not the only text input instead: that is the context or the chat history
            raise RowError(number, f"has inputs.question {shown(question)}, not a text; write "
                           "the question as one text")  # fmt: skip
        if question is None:
            if len(texts) != 1:
                raise RowError(number, "has no inputs.question text")
            question = texts[0]
        _unread(example, EXAMPLE, number, near=True)
        both = example.get("reference_outputs"), example.get("outputs")
        if all(both) and both[0] != both[1]:  # which holds the labels cannot be told
            raise RowError(number, "has both reference_outputs and outputs; keep one of them")
        outputs = example.get("reference_outputs") or example.get("outputs") or {}
        metadata = example.get("metadata") or {}
        if not isinstance(outputs, dict) or not isinstance(metadata, dict):
            raise RowError(number, "has outputs or metadata that is not a JSON object")
        item: dict[str, Any] = {"question": question}
        _metadata(metadata, item, number)
        holdout = _holdout(example, metadata, number)
        if holdout is not None:
            item["holdout"] = holdout
        where = "reference_outputs" if example.get("reference_outputs") else "outputs"
        _labels(outputs, item, number, where)
        rows.append((number, item))
    return rows
