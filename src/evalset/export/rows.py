"""Reading exported rows back (`evalset import`): the error a bad row raises, and JSONL."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Iterator
from typing import Any

from evalset.fsio import json_loads, json_text_lines, not_json


class RowError(ValueError):
    """A row of a file to import that cannot be read: where, and what is wrong."""

    def __init__(self, line: int, problem: str, column: int | None = None) -> None:
        super().__init__(problem)
        self.line = line
        self.column = column
        self.problem = problem


def json_lines(text: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) of each non-empty line of a JSONL text."""
    for number, line in enumerate(json_text_lines(text), 1):
        if not line.strip():
            continue
        try:
            yield number, json_loads(line, unique_keys=True)
        except json.JSONDecodeError as exc:
            raise RowError(number, not_json(exc), exc.colno) from None


SPLITS = ("tuning", "holdout")


def shown(value: Any) -> str:
    """A value of a row as its JSON reads, cut short: for a message, which is one line."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def holdout_of(split: Any, line: int, key: str = "split") -> bool | None:
    """The holdout flag a row's split names: tuning or holdout in any case and spacing (as
    the CSV reader takes them: spreadsheets and people write ``Holdout``), None for no split
    (null or empty). Any other value is refused: read as nothing, a held-out row would come
    in unassigned, and `split` would most likely put it in tuning."""
    if split is None or (isinstance(split, str) and not split.strip()):
        return None
    if isinstance(split, str) and split.strip().lower() in SPLITS:
        return split.strip().lower() == "holdout"
    raise RowError(line, f"has {key} {shown(split)}; write tuning or holdout (in any case), or "
                   "leave it out")  # fmt: skip


def agreed(first: tuple[str, bool | None], second: tuple[str, bool | None], line: int) -> None:
    """Refuse a row whose two fields (name, holdout flag they say) disagree on its side:
    which one is meant cannot be told, and the wrong guess leaks a holdout row."""
    (one, a), (other, b) = first, second
    if a != b:
        sides = {True: "holdout", False: "tuning", None: "unassigned"}
        raise RowError(line, f"has {one} saying {sides[a]} but {other} saying {sides[b]}; keep "
                       "one of them")  # fmt: skip


def listed(mapping: dict[str, Any], key: str, line: int, where: str = "") -> list[Any]:
    """The list under ``key`` of ``mapping`` (named ``where`` in messages; [] when absent);
    any other value is refused: taken as no value, a LangSmith must_not_say written as one
    text vanished without a word."""
    value = mapping.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        name = f"{where}.{key}" if where else key
        raise RowError(line, f"has {name} {shown(value)}, not a list; write a JSON list such as "
                       '["a", "b"]')  # fmt: skip
    return value


NEAR = 0.85
"""How alike a key must be to one a reader takes to be taken for a misspelling of it where
other keys are allowed (LangSmith's metadata): a letter more, less or swapped (``catgory``,
``tag``), or another case; not ``categories`` or ``source``."""


def misspelt(name: str, known: Iterable[str], cutoff: float = 0.6) -> str | None:
    """The one of ``known`` that ``name`` most likely misspells, in any case and spacing (a
    spreadsheet writes ``Answer`` and ``must_not_say ``), or None."""
    close = difflib.get_close_matches(name.strip().lower(), list(known), n=1, cutoff=cutoff)
    return close[0] if close else None


def near_miss(key: str, known: Iterable[str]) -> bool:
    """Whether ``key`` misspells one of ``known``: a letter more, less or swapped, another
    case, a plural (``catgory``, ``Category``, ``Tags``, ``evalset_ids``); not a key that runs
    on past one by a word of its own (``original``, ``category_v2``), which is the user's.
    Two letters swapped are looked for apart: a short key so misspelt is less like the
    key than ``NEAR`` (``spilt`` is 0.8 like ``split``), and a side or a tag read as
    nothing would be dropped without a word."""
    name = key.strip().lower()
    if any(_swapped(name, k) for k in known):
        return True
    close = misspelt(key, known, NEAR)
    if close is None:
        return False
    rest = name.removeprefix(close)
    return rest == name or rest in ("", "s", "es")


def _swapped(name: str, known: str) -> bool:
    """Whether ``name`` is ``known`` with two neighbouring letters swapped."""
    if len(name) != len(known) or name == known:
        return False
    at = [k for k, (a, b) in enumerate(zip(name, known, strict=True)) if a != b]
    return (
        len(at) == 2
        and at[1] == at[0] + 1
        and name[at[0]] == known[at[1]]
        and name[at[1]] == known[at[0]]
    )


def unread(
    kind: str,
    name: str,
    known: Iterable[str],
    where: str = "",
    otherwise: str = "rename it, or remove the key",
    cutoff: float = 0.6,
) -> str:
    """``has the {kind} 'name' in {where}, which import does not read (did you mean 'x'?)``: a
    column or key of a row that no reader takes, with the one of ``known`` it most likely
    misspells, else ``otherwise``. Read as nothing, a misspelt label would be dropped without
    a word."""
    close = misspelt(name, known, cutoff)
    hint = f"did you mean {close!r}?" if close else otherwise
    inside = f" in {where}" if where else ""
    return f"has the {kind} {name!r}{inside}, which import does not read ({hint})"


UNCITED = "_uncited_contexts"
"""The key a reader marks a row with whose contexts are given as text only, with nothing
saying which document it comes from (a Ragas test set's ``reference_contexts`` without
``reference_context_ids``): no section can be cited for them, and the importer says so."""
