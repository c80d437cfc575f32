"""Reading a report file as `evalset score` writes it: JSON, a report's shape, and the digest
that says nobody edited it since.

It lives beside the pin a report carries, below the scoring that writes reports, so that
`evalset check-pin` checks a report exactly as `evalset gate` and `evalset accept` do (a
report whose scores were edited fails all three the same way).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalset.errors import EvalsetError
from evalset.fsio import (
    RepeatedKeyError,
    TextError,
    decode_text,
    json_loads,
    not_json,
    read_input,
)

FORMAT = 1
"""Version of the report's layout."""
DIGEST_MARK = ',\n  "digest": "'
"""What precedes the digest, the report's last key."""
_END = re.compile(r'sha256:[0-9a-f]{64}"\n\}\s*')
"""What follows the mark: the digest, and the end of the report."""


class ReportError(EvalsetError):
    """A file that is not a readable evalset report, or was changed after it was written."""


def is_report(data: Any) -> bool:
    """Whether parsed JSON claims to be an evalset report (its format, or a digest), as
    opposed to a pin alone or another tool's report carrying a pin."""
    return isinstance(data, dict) and ("report" in data or "digest" in data)


def digest_of(body: str) -> str:
    """The digest of a report's text before its digest, line endings read as ``\\n``."""
    if "\r" in body:  # a quick scan: only a checkout that rewrote line endings has one
        body = body.replace("\r\n", "\n")
    return "sha256:" + hashlib.sha256(body.encode()).hexdigest()


def read_report(path: Path) -> tuple[dict[str, Any], str]:
    """A report file, checked: JSON, a report's shape, and its digest. Returns the report
    and its text."""
    try:
        data = read_input(path)
    except FileNotFoundError:
        raise ReportError(f"{path}: no such file; give the path of a report.") from None
    except IsADirectoryError:
        raise ReportError(f"{path}: is a folder; give the path of a report file.") from None
    except OSError as exc:
        raise ReportError(f"{path}: cannot be read ({exc.strerror}).") from None
    return parse_report(path, data)


def parse_report(path: Path, data: bytes) -> tuple[dict[str, Any], str]:
    """``read_report`` of the bytes ``data``, read from ``path`` already."""
    try:  # UTF-16, a NUL byte or bad UTF-8 named as for every other text file
        text = decode_text(data, path, "report").removeprefix("\ufeff")  # saved by an editor
    except TextError as exc:
        raise ReportError(str(exc)) from None
    if not text.strip():
        raise ReportError(empty_report(path))
    try:
        report = json_loads(text, unique_keys=True)
    except RepeatedKeyError as exc:
        raise ReportError(repeated_key(path, text, exc)) from None
    except json.JSONDecodeError as exc:
        raise ReportError(
            f"{path}:{exc.lineno}:{exc.colno}: {not_json(exc)}; give a report written by "
            "`evalset score`."
        ) from None
    except (ValueError, RecursionError):  # numbers too long, nesting too deep
        raise ReportError(
            f"{path}: is not JSON that can be read (too deeply nested, or a number too long); "
            "give a report written by `evalset score`."
        ) from None
    check_report(path, text, report)
    return report, text


def empty_report(path: Path) -> str:
    """The sentence refusing an empty report file ("1:1: Expecting value", as JSON reads it,
    would send the reader looking for a typo)."""
    return f"{path}: is empty; give a report written by `evalset score`."


def repeated_key(path: Path, text: str, exc: RepeatedKeyError) -> str:
    """The sentence refusing a report (``text``) that gives a key twice in one object: JSON
    readers differ on which one they keep (Python's the last, others the first), so the gate
    would read one score and a reviewer's tool another. evalset never writes one. A report
    edited since it was written (a key added after its digest) is refused as edited, as it
    was before keys were checked: ``check_report`` raises. The line is named when the text
    writes the key no third time (an item's metric is in every row)."""
    data = json_loads(text)  # the error's path only: a report read twice costs nothing else
    if is_report(data):
        check_report(path, text, data)
    where = f":{exc.lineno}:{exc.colno}" if exc.certain else ""
    return (
        f"{path}{where}: gives the key {exc.key!r} twice in one object (JSON readers differ "
        "on which they keep); give a report written by `evalset score`."
    )


def check_report(path: Path, text: str, data: Any) -> None:
    """Refuse a report (``data``, parsed from ``text``) that is not of a report's shape or
    whose digest does not match its text."""
    problem = _shape_problem(data)
    if problem:
        raise ReportError(
            f"{path}: is not an evalset report ({problem}); give a report written by "
            "`evalset score`."
        )
    normalised = text.replace("\r\n", "\n")
    mark = normalised.rfind(DIGEST_MARK)
    # the digest covers all that comes before it, and nothing may come after it but the end
    # of the report: keys added there would replace the digested ones as the report is read
    if (
        mark < 0
        or not _END.fullmatch(normalised, mark + len(DIGEST_MARK))
        or digest_of(normalised[:mark]) != data["digest"]
    ):
        raise ReportError(
            f"{path}: was changed after `evalset score` wrote it (its content no longer "
            "matches its digest); score the run again rather than editing the report."
        )


def _shape_problem(data: Any) -> str | None:
    """What makes ``data`` no report evalset wrote, for the keys the commands reading a
    report use (gate, accept, check-pin): each must be of its kind, since a digest proves
    only that nobody edited the file, not that evalset wrote it."""
    if not isinstance(data, dict):
        return "it is not a JSON object"
    about = data.get("report")
    if not isinstance(about, dict) or "format" not in about:
        return 'it has no "report" format'
    fmt = about["format"]
    if type(fmt) is not int or fmt < 1:
        return f"its report format {fmt!r} is none evalset writes"
    if fmt > FORMAT:
        return f"format {fmt!r}: written by a newer evalset; upgrade evalset"
    for key, kind in (
        ("evalset", dict),
        ("definitions", dict),
        ("categories", dict),
        ("items", list),
        ("digest", str),
    ):
        if not isinstance(data.get(key), kind):
            return f'it has no "{key}" {_KINDS[kind]}'
    return (
        _fields_problem(about, "report", _REPORT)
        or _fields_problem(data, "", _TOP)
        or _fields_problem(data["evalset"], "evalset", _PIN, ("set", "fingerprint"))
        or _version_problem(data["evalset"].get("version"))
        or _fingerprints_problem(data["evalset"].get("item_fingerprints"))
        or _judge_problem(data.get("judge"))
        or _definitions_problem(data["definitions"])
        or _rows_problem(data["items"])
    )


_KINDS: dict[Any, str] = {dict: "object", list: "list", str: "text", int: "whole number",
                          type(None): "null"}  # fmt: skip
_TEXT_OR_NULL = (str, type(None))
_REPORT: Mapping[str, tuple[type, ...]] = {"kind": (str,)}
_TOP: Mapping[str, tuple[type, ...]] = {"snapshot": _TEXT_OR_NULL}
_PIN = {"set": (str,), "fingerprint": (str,), "version": _TEXT_OR_NULL,
        "fingerprint_format": (int,)}  # fmt: skip
_ROW = {"id": (str,), "trial": (int,), "category": (str,), "split": (str,),
        "first_rank": (int, type(None)), "metrics": (dict,)}  # fmt: skip
"""Per key of an object a reader of reports uses, the kinds its value may have."""


def _kind_of(value: Any) -> str:
    return {bool: "a boolean", float: "a number", int: "a number", str: "text",
            list: "a list", dict: "an object", type(None): "null"}[type(value)]  # fmt: skip


def _fields_problem(
    found: dict[str, Any],
    where: str,
    kinds: Mapping[str, tuple[type, ...]],
    needed: tuple[str, ...] = (),
) -> str | None:
    """The first key of ``kinds`` whose value is of none of its kinds (``needed``: keys that
    must be there)."""
    for key, allowed in kinds.items():
        if key not in found:
            if key in needed:
                return f'{where or "it"} has no "{key}"'
            continue
        if type(found[key]) not in allowed:
            wanted = " or ".join(_KINDS[k] for k in allowed)
            return f"{where}.{key} is {_kind_of(found[key])}, not {wanted}".lstrip(".")
    return None


_VERSION = re.compile(r"\d+\.\d+\.\d+(\+modified)?")
"""A pin's version as evalset writes it: the version a set's header may name (a release), or
that with ``+modified`` (a working copy that differs from it)."""


def _version_problem(version: Any) -> str | None:
    """A version evalset never writes (``v0.1.0``, ``0.1.0-rc1``, ``0.1.0+x``): the gate
    read it as no release, and compared the report without checking its pin."""
    if version is None or _VERSION.fullmatch(version):
        return None
    return f'evalset.version {version!r} is none evalset writes ("X.Y.Z", "X.Y.Z+modified" or null)'


def _fingerprints_problem(found: Any) -> str | None:
    if found is None:
        return None
    if not isinstance(found, dict) or not all(isinstance(v, str) for v in found.values()):
        return "evalset.item_fingerprints is not an object of texts"
    return None


def _judge_problem(judge: Any) -> str | None:
    if judge is None:
        return None
    if not isinstance(judge, dict):
        return f"judge is {_kind_of(judge)}, not an object"
    return _fields_problem(judge, "judge", {"name": (str,), "version": _TEXT_OR_NULL}, ("name",))


def _definitions_problem(definitions: dict[str, Any]) -> str | None:
    for name, definition in definitions.items():
        if not isinstance(definition, dict) or definition.get("kind") not in ("rate", "mean"):
            return f"metric {name!r} has no kind"
        if definition.get("better", "higher") not in ("higher", "lower"):
            return f'metric {name!r}: better is neither "higher" nor "lower"'
        problem = _fields_problem(definition, f"definitions.{name}", {"family": (str,)})
        if problem:
            return problem
    return None


def _rows_problem(rows: list[Any]) -> str | None:
    first: dict[tuple[str, int], int] = {}
    category_of: dict[str, int] = {}
    """Per item, its first row: the category the gate compares it in."""
    for k, row in enumerate(rows):
        if not isinstance(row, dict) or not isinstance(row.get("metrics"), dict):
            return f"items[{k}] is not an item row with metrics from 0 to 1"
        if "category" in row and row["category"] is None:
            # evalset scores active items only, and an active item has a category: a gate
            # would compare this one in no category, only in its overall row, which never fails
            named = f" (item {row['id']!r})" if isinstance(row.get("id"), str) else ""
            return f"items[{k}].category is null{named}: every item evalset scores has a category"
        problem = _fields_problem(row, f"items[{k}]", _ROW, ("id", "trial", "category", "split"))
        if problem:
            return problem
        if row["trial"] < 0:
            return f"items[{k}].trial is {row['trial']}, not a whole number from 0"
        if not all(type(v) in (int, float) and 0 <= v <= 1 for v in row["metrics"].values()):
            # every metric is a share or a mean of shares: NaN, infinity, 1e308 are none
            return f"items[{k}] is not an item row with metrics from 0 to 1"
        at = category_of.setdefault(row["id"], k)
        if rows[at]["category"] != row["category"]:
            return (
                f"items[{k}] gives item {row['id']!r} category {row['category']!r}, but "
                f"items[{at}] {rows[at]['category']!r}: an item has one category in every "
                "trial"
            )
        key = (row["id"], row["trial"])
        if key in first:  # a gate would average both rows in: the item would count twice
            return (
                f"items[{k}] repeats item {key[0]!r} trial {key[1]} of items[{first[key]}]; a "
                "report has one row per item and trial"
            )
        first[key] = k
    return None
