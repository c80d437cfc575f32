"""Verdicts kept on disk, so that scoring an unchanged run again asks the judge nothing.

A verdict is keyed by the judge's name and version (its prompts, its program's code), the
kind of request, the sha256 of the text and the claim. The cache is one SQLite file in the
workspace's ``.evalset/`` (git-ignored). Like every cache there it is untrusted: a file
that is not a database, a table of another shape, a value that is not a verdict as evalset
writes it, or a path that is a link or a folder means a miss (the judge is asked again),
never a crash, a wrong verdict or a file written elsewhere.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import stat
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from evalset.config import ensure_state_dir
from evalset.fsio import finite_number, json_loads
from evalset.score.judges.base import Outcome, Request, Statements, Verdict

FILE = "verdicts.sqlite3"
_LARGEST = sys.float_info.max
"""The largest count a judge's answer may give, as ``finite_number`` bounds it: a report's
totals are summed as floats."""
SCHEMA = 1
_BATCH = 500


def request_key(judge_key: str, request: Request) -> str:
    """The cache key of one request to one judge version."""
    text = hashlib.sha256(request.text.encode("utf-8", "surrogatepass")).hexdigest()
    raw = json.dumps([SCHEMA, judge_key, request.op, text, request.claim], ensure_ascii=False)
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()


def encode(outcome: Outcome) -> str:
    if isinstance(outcome, Verdict):
        data: dict[str, Any] = {"v": outcome.value}
        extra = {"r": outcome.reason, "c": outcome.cost, "t": outcome.tokens}
    else:
        data = {"s": list(outcome.items)}
        extra = {"c": outcome.cost, "t": outcome.tokens}
    data.update({k: v for k, v in extra.items() if v is not None})
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def decode(text: Any) -> Outcome | None:
    """A stored value as evalset writes it, or None for anything else."""
    if not isinstance(text, str):
        return None
    try:
        data = json_loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not data.keys() <= {"v", "s", "r", "c", "t"}:
        return None
    cost, tokens, reason = data.get("c"), data.get("t"), data.get("r")
    if cost is not None and (not finite_number(cost) or cost < 0):
        return None
    if tokens is not None and (
        isinstance(tokens, bool) or not isinstance(tokens, int) or tokens < 0 or tokens > _LARGEST
    ):
        return None  # a count as evalset takes one from a judge (finite_number's bound)
    if reason is not None and not isinstance(reason, str):
        return None
    if "v" in data and "s" not in data and isinstance(data["v"], bool):
        return Verdict(data["v"], reason, cost, tokens)
    items = data.get("s")
    if (
        "v" not in data
        and reason is None
        and isinstance(items, list)
        and all(isinstance(s, str) for s in items)
    ):
        return Statements(tuple(items), cost, tokens)
    return None


class VerdictCache:
    """The verdict cache of a workspace; every failure of the file makes it a no-op."""

    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / FILE
        self.db: sqlite3.Connection | None = None
        with contextlib.suppress(OSError):
            ensure_state_dir(state_dir)
            self.db = self._open()

    def _open(self) -> sqlite3.Connection | None:
        try:
            mode = self.path.lstat().st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            if stat.S_ISLNK(mode):  # never write through a link to somewhere else
                self.path.unlink()
            else:
                return None
        for _ in range(2):
            try:
                db = sqlite3.connect(self.path, timeout=10, check_same_thread=False)
                db.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, value TEXT)")
                db.execute("SELECT key, value FROM verdicts LIMIT 1").fetchall()
                return db
            except sqlite3.Error:  # not a database, or a table of another shape: start over
                with contextlib.suppress(OSError, sqlite3.Error, UnboundLocalError):
                    db.close()
                with contextlib.suppress(OSError):
                    self.path.unlink()
        return None

    def get_many(self, keys: Iterable[str]) -> dict[str, Outcome]:
        found: dict[str, Outcome] = {}
        if self.db is None:
            return found
        wanted = list(dict.fromkeys(keys))
        try:
            for start in range(0, len(wanted), _BATCH):
                part = wanted[start : start + _BATCH]
                marks = ",".join("?" * len(part))
                rows = self.db.execute(
                    f"SELECT key, value FROM verdicts WHERE key IN ({marks})", part
                ).fetchall()
                for key, value in rows:
                    outcome = decode(value)
                    if outcome is not None and isinstance(key, str):
                        found[key] = outcome
        except sqlite3.Error:
            return {}
        return found

    def put_many(self, entries: Iterable[tuple[str, Outcome]]) -> None:
        if self.db is None:
            return
        rows = [(key, encode(outcome)) for key, outcome in entries]
        if not rows:
            return
        try:
            with self.db:
                self.db.executemany(
                    "INSERT OR REPLACE INTO verdicts (key, value) VALUES (?, ?)", rows
                )
        except sqlite3.Error:
            self.db = None  # a cache that cannot be written only costs speed

    def close(self) -> None:
        if self.db is not None:
            with contextlib.suppress(sqlite3.Error):
                self.db.close()
            self.db = None
