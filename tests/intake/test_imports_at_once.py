"""Imports run at the same moment end as if run one after the other."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import GIT_ENV, write_files
from evalset.sets.setfile import load_set


def _rows(tag: str, count: int) -> str:
    """``count`` rows whose questions share no word with each other's or the set's."""
    words = (" ".join(f"{tag}{n}w{k}" for k in range(6)) for n in range(count))
    return "".join(json.dumps({"question": f"what about {w}?"}) + "\n" for w in words)


def _imports(repo: Path, *sources: str) -> list[tuple[int, str, str]]:
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "evalset", "import", source, "--set", "brand-new",
             "--format", "jsonl", "--json"],
            cwd=repo, env={**os.environ, **GIT_ENV}, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True,
        )
        for source in sources
    ]  # fmt: skip
    outputs = [p.communicate(timeout=120) for p in procs]
    return [(p.returncode, out, err) for p, (out, err) in zip(procs, outputs, strict=True)]


def test_two_imports_that_create_one_new_set_at_once_keep_the_rows_of_both(
    example: Path,
) -> None:
    # The long import decides while the short one creates the set and adds its row: it must
    # then add its rows to that set, not write a new set over it.
    write_files(example, {"long.jsonl": _rows("m", 1000), "short.jsonl": _rows("s", 1)})
    done = _imports(example, "long.jsonl", "short.jsonl")
    assert [code for code, _, _ in done] == [0, 0], done
    assert len(load_set(example / "sets" / "brand-new.yaml").items) == 1001
    assert sorted(json.loads(out)["created"] for _, out, _ in done) == [False, True]


def test_the_same_import_twice_at_once_adds_its_rows_once(example: Path) -> None:
    write_files(example, {"rows.jsonl": _rows("r", 60)})
    done = _imports(example, "rows.jsonl", "rows.jsonl")
    assert [code for code, _, _ in done] == [0, 0], done
    assert len(load_set(example / "sets" / "brand-new.yaml").items) == 60
    added = sorted(len(json.loads(out)["added"]) for _, out, _ in done)
    assert added == [0, 60]
