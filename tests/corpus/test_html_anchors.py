"""An HTML heading's own `id` is the anchor a browser goes to, wherever the heading is.

Anchors were given in the order of the page, each own id or title slug numbered when an
earlier heading had taken it: a `<h2>FAQ</h2>` above `<h2 id="faq">Questions</h2>` took
`faq`, and the heading whose id it is became `faq-1`, an anchor the page does not have. A
citation `page.html#faq`, copied from the browser, named the other section; and an item
citing it went `changed` when a heading titled like the id was added above it. Now an own
id is kept (its first heading's), and an anchor made from a title is numbered past it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SET_HEADER, commit_all, set_item, write_files
from evalset.corpus import html

# name -> (page, {anchor: the text of its section})
PAGES = {
    "a title's slug above the id": (
        '<h2>FAQ</h2><p>made</p><h2 id="faq">Questions</h2><p>own</p>',
        {"faq-1": "made", "faq": "own"},
    ),
    "the id above a title's slug": (
        '<h2 id="faq">Questions</h2><p>own</p><h2>FAQ</h2><p>made</p>',
        {"faq": "own", "faq-1": "made"},
    ),
    "an id that looks numbered, below repeats": (
        '<h2>FAQ</h2><p>a</p><h2>FAQ</h2><p>b</p><h2 id="faq-1">More</h2><p>own</p>',
        {"faq": "a", "faq-2": "b", "faq-1": "own"},
    ),
    "one id on two headings": (
        '<h2 id="dup">One</h2><p>d</p><h2 id="dup">Two</h2><p>e</p><h2>dup</h2><p>f</p>',
        {"dup": "d", "dup-1": "e", "dup-2": "f"},
    ),
    "an id in other letter case": (
        '<h2>FAQ</h2><p>made</p><h2 id="FAQ">Questions</h2><p>own</p>',
        {"faq": "made", "FAQ": "own"},
    ),
    "repeats without ids, as GitHub numbers them": (
        "<h2>A</h2><p>1</p><h2>A</h2><p>2</p><h2>A-1</h2><p>3</p>",
        {"a": "1", "a-1": "2", "a-1-1": "3"},
    ),
}


@pytest.mark.parametrize("page", list(PAGES))
def test_an_own_id_names_its_heading(page: str) -> None:
    text, anchors = PAGES[page]
    found = html.sections(text).sections
    assert {anchor: part.text for anchor, part in found.items()} == anchors


@pytest.mark.parametrize("page", [p for p in PAGES if "id" in PAGES[p][0]])
def test_a_heading_added_above_an_own_id_leaves_its_citation_ok(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, page: str
) -> None:
    """Each own id is cited as the browser shows it; a heading titled like it is then added
    at the top of the page: snapshot, validate, stale and status see the same sections."""
    text, anchors = PAGES[page]
    own = [a for a in anchors if f'id="{a}"' in text]
    write_files(corpus_repo, {"corpus/page.html": text})
    assert cli(corpus_repo, "snapshot").code == 0
    cited = [f"page.html#{a}" for a in own]
    write_files(corpus_repo, {"sets/docs.yaml": SET_HEADER + set_item("q-1", *cited)})
    assert cli(corpus_repo, "verify", "docs", "--all").code == 0
    commit_all(corpus_repo, "verified")
    for anchor in own:
        added = f"<h2>{anchor}</h2><p>added</p>"
        write_files(corpus_repo, {"corpus/page.html": added + text})
        done = cli(corpus_repo, "snapshot")
        assert done.code == 0, done.err
        assert cli(corpus_repo, "validate").code == 0
        done = cli(corpus_repo, "stale", "--json")
        assert (done.code, json.loads(done.out)["items"]) == (0, []), (anchor, done.out)
        assert json.loads(cli(corpus_repo, "status", "--json").out)["sets"][0]["stale"] == 0
