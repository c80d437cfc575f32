"""A run names documents and sections in either Unicode form, written as characters or as
JSON's \\u escapes (json.dumps writes them by default): each is credited as the snapshot's
name, in NFC."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

from conftest import commit_all, make_git_repo, write_files
from evalset.corpus.snapshot import take_snapshot

DOC = "# Été\n\nSummer text alpha.\n\n# Other\n\nOther text gamma.\n"


def _workspace(root: Path) -> Path:
    repo = make_git_repo(root)
    write_files(repo, {"evalset.toml": "[validate]\nmin_per_category = 0\n",
                       "corpus/café.md": DOC})  # fmt: skip
    snap = take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset").short
    write_files(
        repo,
        {
            "sets/s.yaml": "evalset: 1\nname: s\ncategories:\n  c1: one\nitems:\n"
            "  - id: a1\n    question: Where is the summer text?\n    category: c1\n"
            "    expected_sources: [café.md#été]\n    key_points:\n"
            "      - text: It is in the summer section\n        sources: [café.md#été]\n"
            f"    holdout: false\n    verified: {snap}\n"
        },
    )
    commit_all(repo, "set")
    return repo


@pytest.mark.parametrize("form", ["NFC", "NFD"])
@pytest.mark.parametrize("escaped", [False, True], ids=["characters", "escapes"])
@pytest.mark.parametrize("chunk", [False, True], ids=["citation", "chunk"])
def test_a_name_in_either_form_is_credited_however_the_file_writes_it(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, form: str, escaped: bool, chunk: bool
) -> None:
    repo = _workspace(tmp_path / "repo")
    doc, section = (unicodedata.normalize(form, name) for name in ("café.md", "été"))
    entry = {"doc": doc, "text": "Summer text alpha."} if chunk else f"{doc}#{section}"
    line = json.dumps({"id": "a1", "retrieved": ["other.md", entry]}, ensure_ascii=escaped)
    assert line.isascii() == escaped
    (repo / "run.jsonl").write_text(line + "\n", encoding="utf-8")
    done = cli(repo, "score", "retrieval", "s", "run.jsonl", "--json")
    assert done.code == 0, done.err
    report = json.loads(done.out)
    assert report["items"][0]["first_rank"] == 2
    assert report["unknown_citations"] == ["other.md"]
