"""``--format md`` and ``--json`` each choose what a command prints: given both, the command
says so rather than dropping one without a word."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

RUN = str(Path(__file__).resolve().parents[2] / "examples" / "runs" / "acme-support-bm25.jsonl")
COMMANDS = {
    "stale": ("stale",),
    "stale of a set": ("stale", "acme-support"),
    "diff": ("diff", "acme-support", "HEAD"),
    "score retrieval": ("score", "retrieval", "acme-support", RUN, "--allow-stale"),
    "score answers": ("score", "answers", "acme-support", RUN, "--allow-stale", "--judge", "exact"),
}


@pytest.mark.parametrize("command", list(COMMANDS))
def test_a_comment_and_a_json_document_are_not_both_asked_for(
    example: Path, cli: Any, command: str
) -> None:
    both = cli(example, *COMMANDS[command], "--format", "md", "--json")
    assert both.code == 2, both.err
    assert "--format md prints a comment and --json a JSON document; give one of them" in both.err
    comment = cli(example, *COMMANDS[command], "--format", "md")
    assert comment.code in (0, 1), comment.err  # 1: stale items found
    assert comment.out.lstrip().startswith(("#", "**", "|", "No ")), comment.out[:200]
