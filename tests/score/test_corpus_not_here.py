"""A run whose chunks need the documents' text, where the snapshot stores none and the corpus
is not in the checkout, is refused with the fix: scored, its chunks would be misses that a
checkout with the corpus scores otherwise. Where the text can still be read (git holds the
documents at the snapshot's commit), the chunks resolve as ever."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from scoring_ws import GUIDE, set_text, write_run

from conftest import commit_all, make_git_repo, write_files
from evalset.corpus.snapshot import take_snapshot

CHUNK = {"doc": "guide.md", "text": "Damaged items can be returned"}


def _workspace(root: Path, committed: bool) -> Path:
    """A workspace whose snapshot stores no text; the corpus committed to git, or kept out
    of it (git-ignored, as a corpus kept elsewhere by hand)."""
    repo = make_git_repo(root)
    ignored = "" if committed else "/corpus/\n"
    write_files(
        repo,
        {
            "evalset.toml": "store_text = false\n[validate]\nmin_per_category = 0\n",
            ".gitignore": f"/.evalset/\n{ignored}",
            "corpus/guide.md": GUIDE,
            "corpus/faq.md": "# FAQ\n\n## Contact\n\nCall us.\n\n## Hours\n\nNine to five.\n",
        },
    )
    commit_all(repo, "corpus")
    snapshot = take_snapshot(
        repo, "corpus", repo / "snapshots", repo / ".evalset", store_text=False
    ).short
    items = {"a1": ("lookup", False, ["guide.md#returns"])}
    write_files(repo, {"sets/docs.yaml": set_text(snapshot, items)})
    commit_all(repo, "set")
    return repo


def _gone(repo: Path, how: str) -> None:
    if how == "moved away":
        shutil.move(repo / "corpus", repo.parent / "elsewhere")
    else:  # deleted
        shutil.rmtree(repo / "corpus")


def _score(cli, repo: Path, run: list[dict], output: Path):  # type: ignore[no-untyped-def,type-arg]
    write_run(repo / "run.jsonl", run)
    return cli(repo, "score", "retrieval", "docs", "run.jsonl", "-o", str(output))


@pytest.mark.parametrize("how", ["moved away", "deleted"])
def test_chunks_are_refused_when_the_corpus_is_not_here(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, how: str
) -> None:
    repo = _workspace(tmp_path / "repo", committed=False)
    _gone(repo, how)
    report = tmp_path / "report.json"
    result = _score(cli, repo, [{"id": "a1", "retrieved": [CHUNK]}], report)
    assert result.code == 2, result.out + result.err
    said = result.err.strip()
    assert said.startswith("evalset: run.jsonl:1: 1 chunk(s) of guide.md cannot be resolved")
    assert "the corpus folder is not here; bring it back" in said and "then score again" in said
    assert said.count("\n") == 0 and "Traceback" not in said
    assert not report.exists()
    # a run of the section itself needs no text: it is scored (one of its subsection would
    # be refused too: whether it lies inside cannot be told without the text)
    result = _score(cli, repo, [{"id": "a1", "retrieved": ["guide.md#returns"]}], report)
    assert result.code == 0, result.err
    assert json.loads(report.read_text())["items"][0]["first_rank"] == 1


@pytest.mark.parametrize("how", ["moved away", "deleted"])
def test_chunks_resolve_from_git_when_the_corpus_is_not_here(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, how: str
) -> None:
    repo = _workspace(tmp_path / "repo", committed=True)
    _gone(repo, how)
    subprocess.run(["git", "status", "--short"], cwd=repo, check=True, capture_output=True)
    report = tmp_path / "report.json"
    result = _score(cli, repo, [{"id": "a1", "retrieved": [CHUNK]}], report)
    assert result.code == 0, result.err
    data = json.loads(report.read_text())
    assert data["unresolved"] == [] and data["items"][0]["first_rank"] == 1
