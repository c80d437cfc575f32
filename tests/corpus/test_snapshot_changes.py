"""What `evalset snapshot` lists as changed since the newest snapshot, next to what `stale`
calls changed: a heading reworded over the same text is a changed section in both (before,
snapshot listed nothing while stale said changed), and a document changed outside its
sections says so in words (before: `(sections: text)`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write_files

# name -> (file, before, after, what snapshot lists for it)
CASES = {
    "a heading reworded, its id kept": (
        "it.html", '<h1>IT</h1>\n<h2 id="mfa">MFA: all staff</h2>\n<p>Required.</p>\n',
        '<h1>IT</h1>\n<h2 id="mfa">MFA: contractors only</h2>\n<p>Required.</p>\n',
        ["  ~ it.html (sections: 2 changed)", "      ~ #it", "      ~ #mfa"],
    ),
    "a heading moved down a level": (
        "hr.md", "# HR\n\n## Leave\n\nTen days.\n\n## Parental leave\n\nSix weeks.\n",
        "# HR\n\n## Leave\n\nTen days.\n\n### Parental leave\n\nSix weeks.\n",
        ["  ~ hr.md (sections: 2 changed)", "      ~ #leave", "      ~ #parental-leave"],
    ),
    "text before the first heading": (
        "hr.md", "Read me first.\n\n# HR\n\nTen days.\n", "Read this first.\n\n# HR\n\nTen days.\n",
        ["  ~ hr.md (its text outside sections)"],
    ),
    "a document without headings": (
        "conduct.txt", "Be kind.\n", "Be kind to everyone.\n",
        ["  ~ conduct.txt (its text outside sections)"],
    ),
    "a heading's markup, not its words": (
        "hr.md", "# HR\n\n## Parental *leave*\n\nSix weeks.\n",
        "# HR\n\n## Parental leave\n\nSix weeks.\n", None,
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_snapshot_lists_what_changed_as_stale_judges_it(corpus_repo: Path, cli, case: str) -> None:  # type: ignore[no-untyped-def]
    name, before, after, listed = CASES[case]
    write_files(corpus_repo, {f"corpus/{name}": before})
    assert cli(corpus_repo, "snapshot").code == 0
    write_files(corpus_repo, {f"corpus/{name}": after})
    done = cli(corpus_repo, "snapshot")
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    if listed is None:
        assert "unchanged, already in" in lines[0] or "no change since" in done.out, done.out
        return
    assert lines[1].startswith("since ") and lines[2:] == listed, done.out


def test_verify_without_ids_says_how_to_name_them(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, {"corpus/hr.md": "# HR\n\nTen days.\n"})
    (corpus_repo / "sets" / "docs.yaml").write_text(
        "evalset: 1\nname: docs\ncategories:\n  direct-lookup: one section\nitems: []\n"
    )
    assert cli(corpus_repo, "snapshot").code == 0
    done = cli(corpus_repo, "verify", "docs")
    assert (done.code, done.err) == (2, (
        "evalset: name the items you re-checked (`evalset verify docs ITEM...`), or pass --all "
        "to verify every active item.\n"
    ))  # fmt: skip
