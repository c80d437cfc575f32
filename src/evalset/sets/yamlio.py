"""Reading YAML text fast and safely, with a located one-sentence error for every failure.

yaml-rs (Rust) parses a 10 MB set in about a third of a second; ruamel.yaml, which we
use for round-trip edits, needs tens of seconds for the same file. So every command reads
with yaml-rs, and ruamel.yaml only ever sees the few small regions an edit or an error
message needs (see ``locate.py``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml_rs

from evalset.errors import SetFileError

MAX_ALIAS_EVENTS = 100_000
"""Aliases may replay at most this many parse events: a 'billion laughs' file fails fast."""

_POSITION = re.compile(r"line (\d+), column (\d+)")
_DOC_MARKER = re.compile(r"^(---|\.\.\.)(\s|$)", re.MULTILINE)


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def read_text(path: Path, what: str = "set file") -> str:
    """Read a text file as UTF-8, refusing folders, binary content and bad encodings."""
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise SetFileError(f"{path}: is a folder, not a {what}; name a .yaml file in it.") from None
    except FileNotFoundError:
        raise SetFileError(f"{path}: no such file; check the path or the set name.") from None
    except OSError as exc:
        raise SetFileError(f"{path}: cannot be read ({exc.strerror}).") from None
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = line_col(data[:nul].decode("utf-8", "replace"), nul)
        raise SetFileError(
            f"{path}:{line}:{col}: contains a NUL byte, so it is not a text file; "
            "remove the byte or restore the file from git."
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", "replace")
        line, col = line_col(prefix, len(prefix))
        raise SetFileError(
            f"{path}:{line}:{col}: is not valid UTF-8 (byte 0x{data[exc.start]:02x}); "
            "save the file as UTF-8."
        ) from None
    return text.removeprefix("\ufeff")


_LEADING_TAB = re.compile(r"^[ ]*\t", re.MULTILINE)


def _syntax_message(path: Path, detail: str, text: str) -> str:
    reason = detail.strip().splitlines()[-1].strip() if detail.strip() else "syntax error"
    where = _POSITION.search(detail)
    loc = f"{path}:{where.group(1)}:{where.group(2)}" if where else str(path)
    tab = _LEADING_TAB.search(text) if "tab" in reason else None
    if tab:
        # Point at the tab itself; the parser reports where it noticed the problem.
        line, col = line_col(text, tab.end() - 1)
        loc = f"{path}:{line}:{col}"
    if "tab" in reason:
        return f"{loc}: is indented with a tab; YAML indents with spaces only, so replace the tab."
    if "quoted scalar" in reason or "quote" in reason:
        return f"{loc}: not valid YAML ({reason}); is a quote left unclosed?"
    return f"{loc}: not valid YAML ({reason}); fix the syntax there."


def parse_yaml(text: str, path: Path) -> Any:
    """Parse one YAML document with yaml-rs (YAML 1.2 core schema, dates left as text)."""
    try:
        return yaml_rs.loads(
            text,
            parse_datetime=False,
            duplicate_key_policy=yaml_rs.DuplicateKeyPolicy.Error,
            alias_limits=yaml_rs.AliasLimits(max_total_replayed_events=MAX_ALIAS_EVENTS),
        )
    except yaml_rs.YAMLDecodeError as exc:
        detail = str(exc)
    if "alias" in detail and "limit" in detail:
        raise SetFileError(
            f"{path}: its YAML aliases expand to more than {MAX_ALIAS_EVENTS:,} nodes "
            "(an alias bomb?); write the values out instead of using aliases."
        )
    duplicate = re.match(r"duplicate mapping key: (.*)", detail)
    if duplicate:
        from evalset.sets.locate import locate_duplicate_key

        where = locate_duplicate_key(text)
        loc = f"{path}:{where[0]}:{where[1]}" if where else str(path)
        raise SetFileError(
            f"{loc}: key {duplicate.group(1)} appears twice in the same mapping; keep one of them."
        )
    raise SetFileError(_syntax_message(path, detail, text))


def parse_mapping(text: str, path: Path, what: str = "set file") -> dict[str, Any]:
    """Parse a file that must hold one YAML mapping."""
    data = parse_yaml(text, path)
    if data is None:
        raise SetFileError(
            f"{path}: is empty; a {what} needs at least `evalset: 1`, `name:` and `categories:` "
            "(`evalset init` writes one)."
        )
    if isinstance(data, list) and _DOC_MARKER.search(text):
        raise SetFileError(f"{path}: holds more than one YAML document; keep one set per file.")
    if not isinstance(data, dict):
        kind = "a list" if isinstance(data, list) else f"a {type(data).__name__}"
        raise SetFileError(
            f"{path}: the top level is {kind}, but a {what} is a mapping with "
            "`evalset`, `name`, `categories` and `items`; see sets/ in the example workspace."
        )
    return data
