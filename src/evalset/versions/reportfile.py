"""Reading a report file as `evalset score` writes it: JSON, a report's shape, and the digest
that says nobody edited it since.

It lives beside the pin a report carries, below the scoring that writes reports, so that
`evalset check-pin` checks a report exactly as `evalset gate` and `evalset accept` do (a
report whose scores were edited fails all three the same way).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from evalset.errors import EvalsetError
from evalset.fsio import TextError, decode_text, json_loads, read_input

FORMAT = 1
"""Version of the report's layout."""
DIGEST_MARK = ',\n  "digest": "'
"""What precedes the digest, the report's last key."""


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
    try:  # UTF-16, a NUL byte or bad UTF-8 named as for every other text file
        text = decode_text(data, path, "report").removeprefix("\ufeff")  # saved by an editor
    except TextError as exc:
        raise ReportError(str(exc)) from None
    try:
        data = json_loads(text)
    except json.JSONDecodeError as exc:
        raise ReportError(
            f"{path}:{exc.lineno}:{exc.colno}: is not valid JSON ({exc.msg}); give a report "
            "written by `evalset score`."
        ) from None
    except (ValueError, RecursionError):  # numbers too long, nesting too deep
        raise ReportError(
            f"{path}: is not JSON that can be read (too deeply nested, or a number too long); "
            "give a report written by `evalset score`."
        ) from None
    check_report(path, text, data)
    return data, text


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
    if mark < 0 or digest_of(normalised[:mark]) != data["digest"]:
        raise ReportError(
            f"{path}: was changed after `evalset score` wrote it (its content no longer "
            "matches its digest); score the run again rather than editing the report."
        )


def _shape_problem(data: Any) -> str | None:
    if not isinstance(data, dict):
        return "it is not a JSON object"
    about = data.get("report")
    if not isinstance(about, dict) or "format" not in about:
        return 'it has no "report" format'
    if not isinstance(about["format"], int) or about["format"] > FORMAT:
        return f"format {about['format']!r}: written by a newer evalset; upgrade evalset"
    for key, kind in (
        ("evalset", dict),
        ("definitions", dict),
        ("categories", dict),
        ("items", list),
        ("digest", str),
    ):
        if not isinstance(data.get(key), kind):
            what = {dict: "object", list: "list", str: "text"}[kind]
            return f'it has no "{key}" {what}'
    for name, definition in data["definitions"].items():
        if not isinstance(definition, dict) or definition.get("kind") not in ("rate", "mean"):
            return f"metric {name!r} has no kind"
    for k, row in enumerate(data["items"]):
        if (
            not isinstance(row, dict)
            or not isinstance(row.get("id"), str)
            or not isinstance(row.get("metrics"), dict)
            or not all(type(v) in (int, float) and 0 <= v <= 1 for v in row["metrics"].values())
        ):  # every metric is a share or a mean of shares: NaN, infinity, 1e308 are none
            return f"items[{k}] is not an item row with metrics from 0 to 1"
    return None
