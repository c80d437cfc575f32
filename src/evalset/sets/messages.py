"""One sentence for each kind of schema error pydantic reports, with a hint where one helps."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from evalset.sets.model import (
    HIDDEN,
    ID_PATTERN,
    HoldoutMove,
    Item,
    KeyPoint,
    Origin,
    SetHeader,
    not_a_date,
)

_MODELS: dict[str, type[BaseModel]] = {
    "item": Item,
    "key_points": KeyPoint,
    "origin": Origin,
    "holdout_moves": HoldoutMove,
}
LABELS = frozenset({"question", "key_points", "must_not_say", "answer", "origin"})
"""An item's fields whose text a message about a holdout item does not quote (citations, in
expected_sources and key points' sources, are named as `evalset stale` names them)."""


def describe(value: Any, hidden: bool = False) -> str:
    """A value as a message names it; ``hidden``: text, a number or true/false is named
    by its kind only (a holdout item's answer may well be a number: ``answer: 72``)."""
    if isinstance(value, str) and hidden:
        return f"text {HIDDEN}"
    if isinstance(value, bool):
        return f"true/false {HIDDEN if hidden else f'({str(value).lower()})'}"
    if isinstance(value, (int, float)):
        return f"a number {HIDDEN if hidden else f'({value})'}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"text ({shown!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return "nothing (null)" if value is None else type(value).__name__


def fields_of(loc: tuple[str | int, ...], is_item: bool) -> list[str]:
    """The field names allowed at ``loc`` (for did-you-mean on unknown fields)."""
    return list(_model_at(loc, is_item).model_fields)


def _model_at(loc: tuple[str | int, ...], is_item: bool) -> type[BaseModel]:
    """The model whose field ``loc`` names."""
    model: type[BaseModel] = Item if is_item else SetHeader
    for step in loc[:-1]:
        if isinstance(step, str) and step in _MODELS:
            model = _MODELS[step]
    return model


def _optional(loc: tuple[str | int, ...], is_item: bool) -> bool:
    """Whether the field ``loc`` names may be left out."""
    name = next((step for step in reversed(loc) if isinstance(step, str)), None)
    fields = _model_at(loc, is_item).model_fields
    return name not in fields or not fields[name].is_required() or loc[-1] != name


def error_loc(err: Mapping[str, Any]) -> tuple[str | int, ...]:
    """Where a pydantic error is, as field names and list indices only: the steps pydantic
    adds for the validators of a union (``is-instance[Citation]``) mean nothing to a user."""
    return tuple(step for step in err["loc"] if not (isinstance(step, str) and "[" in step))


def error_text(err: Mapping[str, Any]) -> str:
    """pydantic's message for an error, a validator's own sentence without the ``Value
    error, `` pydantic puts before it."""
    if err["type"] == "value_error" and (err.get("ctx") or {}).get("error") is not None:
        return str(err["ctx"]["error"])
    return str(err["msg"])


DATE_ERRORS = frozenset(
    ("date_type", "date_parsing", "date_from_datetime_parsing", "date_from_datetime_inexact")
)
"""pydantic's errors for a value that is not a date, whose own messages ("Input should be a
valid date or datetime, input is too short") name neither the form a date takes nor the fix."""
DATE_FIX = "write it as YYYY-MM-DD"


PATTERN_FIXES = {
    ID_PATTERN: "use ASCII letters, digits, '.', '_' and '-' only",
    r"^[0-9a-f]{4,64}$": (
        "give a snapshot's id: 4 to 64 of its hex digits, as the names of the files in "
        "snapshots/ begin"
    ),
    r"^[A-Z][A-Z0-9_]*$": "use capitals, digits and '_', beginning with a capital (EMAIL)",
    r"^\d+\.\d+\.\d+$": "write it as MAJOR.MINOR.PATCH (1.2.0)",
}
"""The fix for a text that does not have the form a pattern asks, by pattern."""


_TEXT_FIXES: dict[type, str] = {
    list: "write it as one text",
    dict: "write the text itself in its place",
}
"""The fix for a list or a mapping where text is expected."""


def field_message(err: Mapping[str, Any], held: bool = False) -> str:
    """A pydantic error in a row or record brought from elsewhere (an item, a failure
    record), not in a set file: ``schema_message``'s sentence with its fix after a
    semicolon, in JSON's words, the form such rows are read in."""
    text, hint = schema_message(err, is_item=True, held=held, syntax="json")
    return f"{text}; {hint}" if hint else text


def schema_message(
    err: Mapping[str, Any], is_item: bool, held: bool = False, syntax: str = "yaml"
) -> tuple[str, str | None]:
    """One sentence for a pydantic error, and a hint. ``held``: the error is in a holdout
    item, whose labels it must not quote (findings reach CI logs, which the people tuning
    prompts read); the file, line and column still say where to look. ``syntax``: what an
    example in a hint is written in, ``yaml`` (a set file) or ``json`` (a row or record)."""
    kind, value, loc = err["type"], err.get("input"), tuple(err["loc"])
    ctx = err.get("ctx") or {}
    hidden = held and bool(loc) and loc[0] in LABELS
    if kind == "extra_forbidden":
        name = str(loc[-1])
        fields = fields_of(loc, is_item)
        if name in fields:  # a field of items, on a sealed item (which shows only its counts')
            return f"field {name!r} is not one a sealed item shows", (
                "it belongs in the sealed content: `evalset unseal` with the key, then seal again"
            )
        if name == "<<":  # read as a key by YAML 1.2 readers, evalset's among them
            return "a YAML merge key (`<<: *name`), which YAML 1.2 readers do not merge", (
                "write out the fields it would merge in its place: readers that merge and "
                "readers that do not read this item differently"
            )
        # a closer match than difflib's default asks: 'colour' is not a typo of 'holdout'
        close = difflib.get_close_matches(name, fields, n=1, cutoff=0.7)
        return f"unknown field {name!r}", (
            f"did you mean {close[0]!r}?"
            if close
            else f"remove it; the fields here are {', '.join(fields)}"
        )
    if kind == "missing":
        return "required field is missing", _missing_fix(loc, is_item, syntax)
    if kind in ("string_type", "str_type"):
        scalar = isinstance(value, (int, float, bool))
        return f"expected text, got {describe(value, hidden)}", (
            "quote it if it is meant as text" if scalar else _TEXT_FIXES.get(type(value))
        )
    if kind in ("bool_type", "bool_parsing"):
        return f"expected true or false, got {describe(value, hidden)}", (
            "write true or false, without quotes"
        )
    if kind == "list_type":
        field = loc[-1] if loc and isinstance(loc[-1], str) else None
        plain = isinstance(value, str) and re.fullmatch(r"[\w./#-]{1,80}", value) is not None
        shown = value if plain and not hidden else "…"  # what reads back as one entry
        example = (
            f'"{field}": ["{shown}"]'
            if syntax == "json"
            else f"`{field}: [{shown}]`, or one `- ` entry per line under it"
        )
        return f"expected a list, got {describe(value, hidden)}", (
            f"write it as a list: {example}"
            if field is not None and isinstance(value, (str, int, float))
            else None
        )
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        own = kind != "dict_type" and bool(loc)  # a model's fields, which can be named
        names = ", ".join(fields_of((*loc, ""), is_item)) if own else ""
        return f"expected a mapping of fields, got {describe(value, hidden)}", (
            f"write it as a mapping of its fields ({names})" if own else None
        )
    if kind == "string_pattern_mismatch":
        pattern = str(ctx.get("pattern"))
        if value == "":
            return "must not be empty", _empty_fix(loc, is_item)
        fix = PATTERN_FIXES.get(pattern)
        if fix is not None and pattern == ID_PATTERN and isinstance(value, str) and not hidden:
            mended = "-".join(value.split())  # a name written as words: 'Direct lookup'
            fix += f", such as {mended!r}" if re.fullmatch(ID_PATTERN, mended) else ""
        return f"{describe(value, hidden)} does not have the required form {pattern}", fix
    if kind == "string_too_long":
        return (
            f"is {len(str(value)):,} characters long; the limit is {ctx.get('max_length'):,}",
            "shorten it" + (", or leave it out" if _optional(loc, is_item) else ""),
        )
    if kind == "string_too_short":
        return "must not be empty", _empty_fix(loc, is_item)
    if kind in ("int_type", "int_parsing", "int_from_float"):
        return f"expected a whole number, got {describe(value, hidden)}", (
            "write the number without quotes" if isinstance(value, str) else None
        )
    if kind == "literal_error":
        expected = str(ctx.get("expected", ""))
        if isinstance(value, str) and value.strip() == expected:
            return (
                f"expected the number {expected}, got text ({value!r})",
                f"write it without quotes: `{loc[-1]}: {expected}`",
            )
        if loc and loc[-1] == "holdout" and expected == "True":  # a sealed item's stub
            return (
                f"{describe(value, hidden)} is not allowed: a sealed item is a holdout item",
                "to move it to tuning, set EVALSET_AGE_IDENTITY to the key and run `evalset "
                "split SET --move ID --to tuning --force`, which records the move",
            )
        expected = {"True": "true", "False": "false"}.get(expected, expected)  # as YAML says
        choices = "use" if " or " not in expected else "use one of"
        return f"{describe(value, hidden)} is not allowed; {choices} {expected}", None
    if kind == "value_error":
        return error_text(err), None
    if kind in DATE_ERRORS:
        return (f"{describe(value, True)} is not a date" if hidden else not_a_date(value)), DATE_FIX
    if kind == "too_short":
        return "must not be empty", None
    return f"{err['msg'].rstrip('.').lower()}, got {describe(value, hidden)}", None


def _missing_fix(loc: tuple[str | int, ...], is_item: bool, syntax: str) -> str | None:
    """The fix for a required field left out: add it, and what it holds (its description's
    first sentence)."""
    name = loc[-1] if loc and isinstance(loc[-1], str) else None
    field = _model_at(loc, is_item).model_fields.get(name) if name else None
    if field is None:
        return None
    about = " ".join((field.description or "").split()).split(". ")[0].rstrip(".")
    about = re.sub(r"\s*\([^()]*\)$", "", about)  # "(not white space only)": said elsewhere
    added = f'"{name}": …' if syntax == "json" else f"`{name}: …`"
    return f"add {added}" + (f", {about[0].lower()}{about[1:]}" if about else "")


def _empty_fix(loc: tuple[str | int, ...], is_item: bool) -> str:
    """The fix for an empty text."""
    if _optional(loc, is_item):
        return "write the text, or leave the field out"
    return f"write the {loc[-1]}"
