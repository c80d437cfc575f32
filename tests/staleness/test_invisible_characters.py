"""Characters that render as nothing are formatting, not wording.

A soft hyphen (``&shy;``, U+00AD), a zero-width space (U+200B, what ``<wbr>`` is as text),
a word joiner (U+2060) or a byte-order mark inside a text (U+FEFF) added to a section left
its words as a reader sees them, yet the section hashed differently: `snapshot` listed it
changed, and `stale` and `status` called every item citing it stale, with a diff that shows
no change (``[-percent.-] {+per\\xadcent.+}``). ``<wbr>`` itself already changed nothing.
The joiners U+200C and U+200D change how some scripts render, and stay a change.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SET_HEADER, commit_all, set_item, verified_items, write_files

HTML = "<h1>Fees</h1>\n<h2>Card fees</h2>\n<p>{}</p>\n"
MD = "# Fees\n\n## Card fees\n\n{}\n"
BEFORE = "The card fee is two percent."
# name -> (document, its template, the text after the edit, whether it is a change)
CASES = {
    "html: soft hyphen entity": ("f.html", HTML, "The card fee is two per&shy;cent.", False),
    "html: soft hyphen character": ("f.html", HTML, "The card fee is two per\u00adcent.", False),
    "html: zero-width space": ("f.html", HTML, "The card fee is two per&#8203;cent.", False),
    "md: soft hyphen entity": ("f.md", MD, "The card fee is two per&shy;cent.", False),
    "md: zero-width space and word joiner": (
        "f.md", MD, "The card\u200b fee is two per\u2060cent.", False,
    ),
    "md: byte-order mark inside the text": (
        "f.md", MD, "The card fee is \ufefftwo percent.", False,
    ),
    "md: zero-width joiner (kept)": ("f.md", MD, "The card fee is two per\u200dcent.", True),
    "html: zero-width non-joiner (kept)": (
        "f.html", HTML, "The card fee is two per&zwnj;cent.", True,
    ),
    "md: a word changed (control)": ("f.md", MD, "The card fee is three percent.", True),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_an_invisible_character_changes_no_verdict(corpus_repo: Path, cli, case: str) -> None:  # type: ignore[no-untyped-def]
    name, template, after, changed = CASES[case]
    write_files(corpus_repo, {f"corpus/{name}": template.format(BEFORE)})
    first = cli(corpus_repo, "snapshot", "--json")
    assert first.code == 0, first.err
    old = json.loads(first.out)["snapshot"]
    items = set_item("q", f"{name}#card-fees") + set_item("r", name)
    (corpus_repo / "sets" / "docs.yaml").write_text(SET_HEADER + verified_items(items, old))
    commit_all(corpus_repo, "verified")
    write_files(corpus_repo, {f"corpus/{name}": template.format(after)})

    snap = cli(corpus_repo, "snapshot")
    assert snap.code == 0, snap.err
    assert ("unchanged, already in" in snap.out) is not changed, snap.out
    stale = cli(corpus_repo, "stale", "--json")
    assert stale.code == (1 if changed else 0), stale.err
    found = {
        c["citation"]: c["status"]
        for item in json.loads(stale.out)["items"]
        for c in item["citations"]
    }
    expected = "changed" if changed else None
    assert found.get(f"{name}#card-fees") == expected
    assert found.get(name) == expected
    md = cli(corpus_repo, "stale", "--format", "md")
    assert md.code == stale.code
    assert md.out.startswith("### 2 stale item(s)" if changed else "No stale items")
    status = cli(corpus_repo, "status", "--json")
    assert status.code == 0, status.err
    (entry,) = json.loads(status.out)["sets"]
    assert entry["stale"] == (2 if changed else 0)
    verify = cli(corpus_repo, "verify", "docs", "q", "r")
    assert verify.code == 0, verify.err
    assert cli(corpus_repo, "stale").code == 0
