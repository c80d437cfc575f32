"""`evalset stale --judge`: the claims of the example's stale items re-checked against the
new policy text, beside the word diff and in --json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import ROOT, commit_all, make_git_repo


def _example(tmp_path: Path) -> Path:
    repo = make_git_repo(tmp_path / "clone")
    for name in ("corpus", "sets", "snapshots", "examples"):
        shutil.copytree(ROOT / name, repo / name)
    for name in ("pyproject.toml", ".gitignore"):
        shutil.copy(ROOT / name, repo / name)
    commit_all(repo, "a fresh clone")
    return repo


def test_stale_with_a_judge_says_which_claims_broke(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    repo = _example(tmp_path)
    judge = "command:examples/judges/keywords.py"
    done = cli(repo, "stale", "acme-support", "--judge", judge, "--json")
    assert done.code == 1
    items = {item["id"]: item for item in json.loads(done.out)["items"]}
    # q-003: free shipping moved from €50 to €60, so both its key points broke
    assert [c["status"] for c in items["q-003"]["claims"]["key_points"]] == [
        "no_longer_supported",
        "no_longer_supported",
    ]
    # q-011: the section was only renamed; its claims still hold at the new place
    q011 = items["q-011"]["claims"]
    assert [c["status"] for c in q011["key_points"]] == ["supported", "supported"]
    assert q011["must_not_say"] == [
        {"index": 0, "status": "not_asserted", "text": "the refund is instant",
         "note": "checked at policies/returns.md#when-you-get-your-money-back, where its text "
                 "is now"}
    ]  # fmt: skip
    # q-012 is a holdout item: its key point by index only
    assert items["q-012"]["claims"]["key_points"] == [{"index": 0, "status": "not_found"}]
    text = cli(repo, "stale", "acme-support", "--judge", judge)
    assert text.code == 1
    assert (
        "  claims (judge command:examples/judges/keywords.py):\n"
        "    key point 1: NO LONGER SUPPORTED: Standard shipping is free on orders of €50 or more"
    ) in text.out
    # nothing is marked verified
    assert "verified: 301688de6b37" in (repo / "sets" / "acme-support.yaml").read_text()
    plain = cli(repo, "stale", "acme-support", "--json")
    assert "claims" not in json.loads(plain.out)["items"][0]


def test_a_now_asserted_must_not_say_entry(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    repo = _example(tmp_path)
    set_file = repo / "sets" / "acme-support.yaml"
    text = set_file.read_text(encoding="utf-8")
    # q-003 says nothing about €60 yet: a must_not_say the new policy now states
    marker = "  - id: q-003\n"
    start = text.index(marker)
    end = text.index("  - id: q-004\n")
    block = text[start:end]
    if "must_not_say" not in block:
        block = block.replace(
            "    tags: [shipping]\n",
            "    must_not_say:\n      - Standard "
            "shipping is free on orders of €60 or more\n    tags: [shipping]\n",
        )
    set_file.write_text(text[:start] + block + text[end:], encoding="utf-8")
    done = cli(repo, "stale", "acme-support", "--judge", "command:examples/judges/keywords.py",
               "--json")  # fmt: skip
    q003 = next(i for i in json.loads(done.out)["items"] if i["id"] == "q-003")
    assert q003["claims"]["must_not_say"][0]["status"] == "now_asserted"
