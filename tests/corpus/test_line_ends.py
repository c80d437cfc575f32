"""Markdown documents whose lines end in a carriage return alone (as classic Mac OS editors
and some exporters save them), or in CRLF, or in a mix: each reads as its twin with line
feeds, in both hash modes. CommonMark takes a lone CR for a line end, but the parser did not
in every construct: a CR file's front matter was read as a heading (`title-x`), and a
fenced code block's `# lines` as headings, so converting a file's line ends changed its
sections, and `stale` reported items citing it deleted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SET_HEADER, commit_all, set_item, write_files
from evalset.corpus import markdown

# name -> (document with line feeds, its section ids)
DOCS = {
    "front-matter.md": ("---\ntitle: x\n---\n# Refunds\n\nFive days.\n", ["refunds"]),
    "fence.md": ("# Setup\n\n```sh\n# not a heading\nmake\n```\n\nDone.\n", ["setup"]),
    "tilde-fence.md": ("# Setup\n\n~~~\n# nor this\n~~~\n", ["setup"]),
    "setext.md": ("Title\n=====\n\nText.\n\nPart\n----\n\nMore.\n", ["title", "part"]),
    "indented-code.md": ("# Code\n\n    # indented, code\n\nAfter.\n", ["code"]),
    "quote-and-list.md": ("# Q\n\n> # in a quote\n\n- a\n- b\n\n1. c\n", ["q", "in-a-quote"]),
    "table.md": ("# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n", ["t"]),
}
ENDS = {"CRLF": "\r\n", "CR": "\r", "a mix": None}


def _saved(text: str, end: str | None) -> str:
    if end is not None:
        return text.replace("\n", end)
    lines = text.split("\n")  # each line in turn ends in LF, CRLF and CR
    return "".join(line + ("\n", "\r\n", "\r")[k % 3] for k, line in enumerate(lines[:-1]))


@pytest.mark.parametrize("mode", ["rendered", "source"])
@pytest.mark.parametrize("ends", list(ENDS))
def test_a_markdown_file_reads_the_same_whatever_its_line_ends(mode: str, ends: str) -> None:
    for name, (text, ids) in DOCS.items():
        saved = _saved(text, ENDS[ends])
        twin = markdown.sections(text, mode)  # type: ignore[arg-type]
        assert list(twin.sections) == ids, name
        assert markdown.sections(saved, mode) == twin, name  # type: ignore[arg-type]
        ranges, found = markdown.heading_ranges(text), markdown.heading_ranges(saved)
        assert [r[2:] for r in found] == [r[2:] for r in ranges], name  # levels and titles
        if ENDS[ends] == "\r":  # one character for one: the same offsets
            assert found == ranges, name


@pytest.mark.parametrize("mode", ["rendered", "source"])
@pytest.mark.parametrize("ends", list(ENDS))
def test_converting_line_ends_changes_no_snapshot_and_makes_nothing_stale(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, mode: str, ends: str
) -> None:
    (corpus_repo / "evalset.toml").write_text(
        f'hash = "{mode}"\n[validate]\nmin_per_category = 0\n'
    )
    write_files(corpus_repo, {f"corpus/{name}": text for name, (text, _) in DOCS.items()})
    done = cli(corpus_repo, "snapshot", "--json")
    assert done.code == 0, done.err
    first = json.loads(done.out)["id"]
    cited = [f"{name}#{ident}" for name, (_, ids) in DOCS.items() for ident in ids]
    write_files(corpus_repo, {"sets/docs.yaml": SET_HEADER + set_item("q-1", *cited)})
    assert cli(corpus_repo, "verify", "docs", "--all").code == 0
    commit_all(corpus_repo, "line feeds")

    saved = {f"corpus/{n}": _saved(text, ENDS[ends]).encode() for n, (text, _) in DOCS.items()}
    write_files(corpus_repo, saved)  # type: ignore[arg-type]
    done = cli(corpus_repo, "snapshot", "--json")
    assert (done.code, json.loads(done.out)["id"], done.err) == (0, first, "")
    commit_all(corpus_repo, ends)
    done = cli(corpus_repo, "stale", "--json")
    assert (done.code, json.loads(done.out)["items"]) == (0, []), done.out
    done = cli(corpus_repo, "snapshot", "--rev", "HEAD", "--json")  # as git holds them
    assert (done.code, json.loads(done.out)["id"]) == (0, first), done.err
    assert cli(corpus_repo, "validate").code == 0
    status = json.loads(cli(corpus_repo, "status", "--json").out)
    assert status["sets"][0]["stale"] == 0
