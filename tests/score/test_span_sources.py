"""Spans are read from the document's source as the snapshot saw it: the working-tree file or
the file at the snapshot's commit, each found under its name in either Unicode form, and
taken only when it hashes as the snapshot recorded. The snapshot does not record the bytes
it read, so where both hash alike and read other text at the span, the span is listed
unresolved with the reason, never guessed. A span (or a source chunk) of markdown cut
inside markup stands for the section whose source range holds it. Each is scored through
`evalset score retrieval` against the same run given as citations."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from scoring_ws import set_text, write_run

from conftest import commit_all, make_git_repo, write_files
from evalset.corpus.snapshot import TakeResult, take_snapshot

LONG = "https://acme.example.com/terms/" + "x" * 80
DOC = f"""\
# Help

## Shipping

Orders ship within two working days.

## Returns

Returns within fourteen days. Read [our terms]({LONG}) first.

## Contact

Write to the support address. We answer every message within one working day, and urgent
ones sooner; say in the subject what it is about, and give your order number if you have one.
"""
ITEMS = {
    "a1": ("lookup", False, ["a.md#shipping"]),
    "a2": ("lookup", False, ["a.md#contact"]),
    "a3": ("lookup", False, ["a.md#help"]),
    "a4": ("lookup", False, ["a.md"]),
}


def _workspace(
    root: Path, files: dict[str, str | bytes], items: Any = ITEMS
) -> tuple[Path, TakeResult]:
    """A git repository whose corpus is committed, then snapshotted at that commit; the set
    (verified against the snapshot) is committed after."""
    repo = make_git_repo(root)
    write_files(
        repo,
        {"evalset.toml": "[validate]\nmin_per_category = 0\n", ".gitignore": "/.evalset/\n"},
    )
    write_files(repo, {f"corpus/{name}": data for name, data in files.items()})
    commit_all(repo, "corpus")
    snapshot = take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset")
    assert snapshot.commit
    write_files(repo, {"sets/docs.yaml": set_text(snapshot.short, items)})
    commit_all(repo, "set")
    return repo, snapshot


def _score(cli: Any, repo: Path, run: list[dict[str, Any]]) -> dict[str, Any]:
    write_run(repo / "run.jsonl", run)
    done = cli(repo, "score", "retrieval", "docs", "run.jsonl", "--json", "--allow-stale")
    assert done.code == 0, done.err
    data: dict[str, Any] = json.loads(done.out)
    return data


def _span(source: str, text: str, doc: str = "a.md") -> dict[str, Any]:
    start = source.index(text)
    return {"doc": doc, "start": start, "end": start + len(text)}


def _same_as_cited(cli: Any, repo: Path, items: Any, chunk: Any, cited: str) -> None:
    """Retrieved for every item of the set (which expect sections at every depth, and the
    whole document), the chunk scores exactly as the citation does."""
    as_chunk = _score(cli, repo, [{"id": ident, "retrieved": [chunk]} for ident in items])
    as_cited = _score(cli, repo, [{"id": ident, "retrieved": [cited]} for ident in items])
    assert as_chunk["unresolved"] == []
    assert [r["metrics"] for r in as_chunk["items"]] == [r["metrics"] for r in as_cited["items"]]
    assert as_chunk["overall"] == as_cited["overall"]


def _shorter_link(repo: Path) -> None:
    """A link target edited in the working tree: the rendered text, and so the snapshot's
    hash, unchanged; every offset after it moved."""
    (repo / "corpus" / "a.md").write_text(DOC.replace(LONG, "https://acme.example.com/t"))


def _crlf(repo: Path) -> None:
    """Line ends as `core.autocrlf` checks them out: one more character per line."""
    (repo / "corpus" / "a.md").write_bytes(DOC.replace("\n", "\r\n").encode())


def _reworded(repo: Path) -> None:
    """Wording changed in the working tree: it no longer hashes as the snapshot recorded,
    so the file at the snapshot's commit is read."""
    (repo / "corpus" / "a.md").write_text(DOC.replace("Write to", "Call"))


def _removed(repo: Path) -> None:
    (repo / "corpus" / "a.md").unlink()


def _committed_link(repo: Path) -> None:
    """The shorter link committed after the snapshot: its commit still holds the long one."""
    _shorter_link(repo)
    commit_all(repo, "a shorter link")


EDITS = {
    "none": lambda repo: None,
    "a shorter link": _shorter_link,
    "a shorter link, committed": _committed_link,
    "CRLF line ends": _crlf,
    "reworded": _reworded,
    "removed": _removed,
}

# (edit of the working tree after the snapshot, the span's text in the snapshot's source,
# the section it lies in, whether the span resolves: False where the working-tree file and
# the file at the snapshot's commit both hash as recorded and read at the span text that
# stands for other sections)
TAIL = "x" * 20 + ") first."
"""The end of Returns' link: read 85 characters on in the shorter file, it is in Contact."""
CASES = [
    ("none", "Orders ship within two", "a.md#shipping", True),
    ("none", "Write to the support", "a.md#contact", True),
    ("none", TAIL, "a.md#returns", True),
    # the sources agree before the edited link; after it, they read other text, which
    # stands for the same section (Contact, both), or not (Returns, and Contact)
    ("a shorter link", "Orders ship within two", "a.md#shipping", True),
    ("a shorter link", "Write to the support", "a.md#contact", True),
    ("a shorter link", TAIL, "a.md#returns", False),
    ("a shorter link, committed", "Orders ship within two", "a.md#shipping", True),
    ("a shorter link, committed", "Write to the support", "a.md#contact", True),
    ("a shorter link, committed", TAIL, "a.md#returns", False),
    # the checkout's own line ends (core.autocrlf) of the commit's file: the working tree's
    # file is the source (offsets counted in the commit's text move by a character a line)
    ("CRLF line ends", "# Help", "a.md#help", True),
    ("CRLF line ends", "Orders ship within two", "a.md#shipping", True),
    # one source alone hashes as recorded, or is there at all: the commit's
    ("reworded", "Write to the support", "a.md#contact", True),
    ("removed", "Write to the support", "a.md#contact", True),
]


@pytest.mark.parametrize(
    ("edit", "text", "cited", "resolves"), CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES]
)
def test_a_span_is_read_as_the_snapshot_read_the_source_or_listed_unresolved(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, edit: str, text: str, cited: str, resolves: bool
) -> None:
    """Before, the working-tree file was read whenever it hashed as the snapshot recorded:
    after a link target edit (which `status` does not call a change), the span over
    Contact read Returns' text and scored as a miss, with exit 0 and nothing said."""
    repo, snapshot = _workspace(tmp_path / "repo", {"a.md": DOC})
    EDITS[edit](repo)
    span = _span(DOC, text)
    if resolves:
        _same_as_cited(cli, repo, ITEMS, span, cited)
        return
    data = _score(cli, repo, [{"id": "a1", "retrieved": [span]}])
    [entry] = data["unresolved"]
    assert entry["chunk"] == span and entry["rank"] == 1
    assert snapshot.commit is not None
    assert entry["reason"] == (
        "the source of a.md differs between the working-tree file and the file at the "
        f"snapshot's commit {snapshot.commit[:12]} in bytes that snapshot {snapshot.short} "
        "does not record (its hash leaves out markup such as link targets, line breaks and "
        "line ends), and the span's offsets read other text in each, which stands for "
        "other sections, so it is not guessed; restore the file from that commit, or commit "
        "it and take a new snapshot, so that the two agree, or give the chunk as text"
    )
    assert data["items"][0]["first_rank"] is None
    if text != TAIL:  # given as text, the same chunk resolves (TAIL is markup: its text is
        _same_as_cited(cli, repo, ITEMS, {"doc": "a.md", "text": text}, cited)  # in one only)


LINES = (
    "# Help\n\n## Intro\n\nLine one.\nLine two.\nLine three.\nLine four.\nLine five.\n"
    "Line six.\nLine seven.\nLine eight.\nLine nine.\nLine ten.\nLine eleven.\n"
    "Line twelve.\n\n## Returns\n\nReturn within fourteen days.\nKeep the box.\nAsk for a "
    "[label](https://acme.example.com/return-labels-for-parcels).\n\n## Shipping\n\n"
    "Orders ship within two days.\n"
)
LINES_ITEMS = {
    "a1": ("lookup", False, ["a.md#intro"]),
    "a2": ("lookup", False, ["a.md#returns"]),
    "a3": ("lookup", False, ["a.md#shipping"]),
    "a4": ("lookup", False, ["a.md#help"]),
}
CUT_LINK = "Keep the box.\nAsk for a [label](https://acme.exa"
# (how the chunk counts line ends: "lf" offsets as Python's text mode reads the file, "crlf"
# as a binary read or Node counts them, or a text with either line ends; its text in LINES;
# the section it stands for, or None: the two readings stand for other sections)
CRLF_CASES = [
    ("lf", "Line three.", "a.md#intro"),  # the readings agree
    # the other reads "hin fourteen ", placed by where it lies: the same section, found
    # another way (before, that was taken for a disagreement)
    ("lf", "Keep the box.", "a.md#returns"),
    ("lf", "Return within fourteen days.", None),  # 19 lines on, the other starts in Intro
    ("crlf", "Return within fourteen days.", "a.md#returns"),  # the other is later: agrees
    ("lf", "Orders ship within two days.", None),  # the other starts in Returns
    ("crlf", "Orders ship within two days.", "a.md#shipping"),  # past the end of the other
    ("crlf", "Orders ship within two days.\n", "a.md#shipping"),
    ("text lf", CUT_LINK, "a.md#returns"),  # placed where it is found
    ("text crlf", CUT_LINK, "a.md#returns"),
]


@pytest.mark.parametrize("checkout", [False, True], ids=["committed CRLF", "autocrlf"])
@pytest.mark.parametrize(
    ("kind", "text", "cited"), CRLF_CASES, ids=[f"{c[0]}: {c[1]!r}" for c in CRLF_CASES]
)
def test_a_span_of_a_file_with_crlf_line_ends_is_read_counting_them_either_way(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, checkout: bool, kind: str, text: str, cited: str | None
) -> None:
    """Python's text mode, which most retrievers' loaders read files in, reads a CRLF line
    end as one character; a binary read, or Node, as two. Before, only the second was read:
    a span counted the first way read text a character a line earlier, and stood for another
    section without a word (43 of 450 windows over the example's policies); nor was a chunk
    given with LF line ends found in the source to place it."""
    crlf = LINES.replace("\n", "\r\n").encode()
    repo, _ = _workspace(
        tmp_path / "repo", {"a.md": LINES.encode() if checkout else crlf}, LINES_ITEMS
    )
    (repo / "corpus" / "a.md").write_bytes(crlf)  # (as git checks it out with autocrlf)
    source = LINES.replace("\n", "\r\n") if kind.endswith("crlf") else LINES
    written = text.replace("\n", "\r\n") if kind.endswith("crlf") else text
    chunk = {"doc": "a.md", "text": written} if kind.startswith("text") else _span(source, written)
    if cited is not None:
        _same_as_cited(cli, repo, LINES_ITEMS, chunk, cited)
        return
    data = _score(cli, repo, [{"id": "a2", "retrieved": [chunk]}])
    [entry] = data["unresolved"]
    assert entry["reason"] == (
        "a.md has CRLF line ends, and the span's offsets read other text counting each as two "
        "characters (as a binary read or Node counts them) than as one (as Python's text mode "
        "reads the file), which stands for other sections, so it is not guessed; give the "
        "chunk as text"
    )


UNITS = (
    "# Hilfe \U0001f600\n\n## Karte\n\n\U0001f600\U0001f600 Die Gebühr beträgt fünf Euro.\n\n"
    "## Bar\n\nNur bar.\n"
)
UNITS_ITEMS = {"a1": ("lookup", False, ["a.md#karte"]), "a2": ("lookup", False, ["a.md#bar"])}


@pytest.mark.parametrize(
    "data",
    [UNITS.encode(), b"\xef\xbb\xbf" + UNITS.encode(), UNITS.encode("utf-16")],
    ids=["UTF-8", "UTF-8 with a byte-order mark", "UTF-16"],
)
@pytest.mark.parametrize(("text", "cited"), [("Nur bar.", "a.md#bar"), ("Die Geb", "a.md#karte")])
def test_offsets_count_the_code_points_of_the_text_without_its_byte_order_mark(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, data: bytes, text: str, cited: str
) -> None:
    """As the README says: not bytes, not UTF-16 units (the emoji before count one each),
    and no byte-order mark, whichever encoding the document was saved in."""
    repo, _ = _workspace(tmp_path / "repo", {"a.md": data}, UNITS_ITEMS)
    _same_as_cited(cli, repo, UNITS_ITEMS, _span(UNITS, text), cited)


GEBUEHREN = "# Gebühren\n\n## Karte\n\nDie Kartengebühr beträgt fünf Euro.\n\n## Bar\n\nBar.\n"
NFC, NFD = "gebühren.md", unicodedata.normalize("NFD", "gebühren.md")


@pytest.mark.parametrize("removed", [False, True], ids=["working tree", "git"])
@pytest.mark.parametrize("named", [NFC, NFD], ids=["run names NFC", "run names NFD"])
def test_a_span_finds_a_document_whose_file_name_is_decomposed(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, removed: bool, named: str
) -> None:
    """The file is named in NFD on disk and in git (as macOS stored names); its id is NFC.
    Before, every span of it was unresolved ("the source of gebühren.md as snapshot … saw
    it could not be read"), while its citations and text chunks resolved."""
    items = {"a1": ("lookup", False, [f"{NFC}#karte"])}
    repo, _ = _workspace(tmp_path / "repo", {NFD: GEBUEHREN}, items)
    if removed:  # read from git, at the snapshot's commit
        (repo / "corpus" / NFD).unlink()
    span = _span(GEBUEHREN, "Die Kartengebühr beträgt", named)
    _same_as_cited(cli, repo, items, span, f"{NFC}#karte")
    data = _score(cli, repo, [{"id": "a1", "retrieved": [span]}])
    assert data["items"][0]["first_rank"] == 1


CUT = """\
---
owner: legal-team
---

Lies das zuerst: über Gebühren, Rückgabe und Versand. 返品について。

# Help

## Returns

Items bought on **sale** (im Schlußverkauf) can be returned within *fourteen days*, and
[gift cards](https://acme.example.com/gift-cards) cannot. Ask
<a href="https://acme.example.com/support">support</a> for a label.

### Damaged

Send a [photo](https://acme.example.com/photos/damage) of the damage to the support team.

## Shipping

Orders ship within two working days from the
[warehouse](https://acme.example.com/warehouse).
"""
CUT_ITEMS = {
    "a1": ("lookup", False, ["a.md#returns"]),
    "a2": ("lookup", False, ["a.md#damaged"]),
    "a3": ("lookup", False, ["a.md#shipping"]),
    "a4": ("lookup", False, ["a.md"]),
    "m1": ("lookup", False, ["a.md#help"]),
}


def _cut(start: str, length: int) -> tuple[int, int]:
    at = CUT.index(start)
    return at, at + length


# (how the chunk is given, its start and length in CUT, the citation it scores as), for a
# chunk cut inside markup, as a fixed-size chunker of the source cuts; the characters
# before them that UTF-8 writes in several bytes keep the parser's offsets (bytes) from
# being taken for the span's (characters)
CUTS = [
    ("span", _cut("Items bought", 120), "a.md#returns"),  # inside a link's target
    ("text", _cut("Items bought", 120), "a.md#returns"),
    ("span", _cut("[gift cards](https", 40), "a.md#returns"),  # mostly a link's target
    ("span", _cut("cannot. Ask\n<a href", 28), "a.md#returns"),  # inside an HTML tag
    ("text", _cut("cannot. Ask\n<a href", 28), "a.md#returns"),
    ("span", _cut("Send a [photo](https", 30), "a.md#damaged"),  # the subsection alone
    ("span", _cut("for a label.\n\n### Damaged", 60), "a.md#returns"),  # and its parent
    ("span", _cut("owner: legal", 45), "a.md"),  # front matter and text before any heading
    ("text", _cut("owner: legal", 45), "a.md"),
    ("span", _cut("the support team.\n\n## Shipping", 100), "a.md#help"),
    ("span", _cut("from the\n[warehouse](https", 40), "a.md#shipping"),
    # the blank line before a heading is in the range of the section before it: a chunk
    # starting with it is placed by what it holds, as the exact step reads it
    ("span", _cut("\n\n### Damaged\n\nSend a [photo](https", 40), "a.md#damaged"),
    ("text", _cut("\n\n### Damaged\n\nSend a [photo](https", 40), "a.md#damaged"),
    (
        "span",
        _cut("\n## Shipping\n\nOrders ship within two working days from the\n[w", 80),
        "a.md#shipping",
    ),
]


@pytest.mark.parametrize(
    ("kind", "where", "cited"), CUTS, ids=[f"{c[0]}: {CUT[c[1][0] : c[1][1]]!r}" for c in CUTS]
)
def test_a_chunk_cut_inside_markup_stands_for_the_section_whose_source_holds_it(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, kind: str, where: tuple[int, int], cited: str
) -> None:
    """Before, such a chunk was unresolved: its text, with a half link or tag, is not found
    in the snapshot's text even rendered, and the link's words sink its trigram share below
    80% (52 of 106 windows of 60 to 120 characters over one section were)."""
    repo, _ = _workspace(tmp_path / "repo", {"a.md": CUT}, CUT_ITEMS)
    start, end = where
    chunk = (
        {"doc": "a.md", "start": start, "end": end}
        if kind == "span"
        else {"doc": "a.md", "text": CUT[start:end]}
    )
    _same_as_cited(cli, repo, CUT_ITEMS, chunk, cited)


CUT_HTML = """\
<!doctype html>
<html lang="de">
<head>
  <meta charset="utf-8">
  <title>Hilfe: Gebühren, Rückgabe</title>
  <link rel="stylesheet" href="https://acme.example.com/styles/help-centre-main.css">
</head>
<body>
<p>Lies das zuerst: über Gebühren und Versand. 返品について。</p>
<h1>Help</h1>
<h2 id="returns">Returns</h2>
<p>Items bought on <strong class="sale-marker">sale</strong> can be returned within
<em>fourteen days</em>, and <a href="https://acme.example.com/gift-cards/terms">gift
cards</a> cannot.</p>
<h3 id="damaged" class="subsection-heading">Damaged</h3>
<p>Send a <a href="https://acme.example.com/photos/damage">photo</a> of the damage.</p>
<h2 id="shipping">Shipping</h2>
<p>Orders ship within two working days from the
<a href="https://acme.example.com/warehouse">warehouse</a>.</p>
</body>
</html>
"""
CUT_HTML_ITEMS = {
    "a1": ("lookup", False, ["a.html#returns"]),
    "a2": ("lookup", False, ["a.html#damaged"]),
    "a3": ("lookup", False, ["a.html#shipping"]),
    "a4": ("lookup", False, ["a.html"]),
    "m1": ("lookup", False, ["a.html#help"]),
}


def _cut_html(start: str, length: int) -> tuple[int, int]:
    at = CUT_HTML.index(start)
    return at, at + length


def _html_range(start: str, before: int, end: str, after: int) -> tuple[int, int]:
    """From ``before`` characters after where ``start`` begins to ``after`` past where ``end``
    begins."""
    return CUT_HTML.index(start) + before, CUT_HTML.index(end) + after


# As CUTS, of an HTML page: a chunk cut inside a tag, as a fixed-size chunker of the source
# cuts (before, unresolved: its half tag's words sank its trigram share below 80%)
CUTS_HTML = [
    ("span", _cut_html("sale-marker", 50), "a.html#returns"),  # inside a tag's attribute
    ("text", _cut_html("sale-marker", 50), "a.html#returns"),
    ("span", _cut_html('="https://acme.example.com/gift', 45), "a.html#returns"),
    ("span", _cut_html('class="subsection-heading">', 40), "a.html#damaged"),  # a heading's tag
    ("text", _cut_html('class="subsection-heading">', 40), "a.html#damaged"),
    ("span", _cut_html('damage">photo</a> of', 30), "a.html#damaged"),  # a link's tag
    ("span", _cut_html("main.css", 60), "a.html"),  # the head, and text before any heading
    ("text", _cut_html("main.css", 60), "a.html"),
    ("span", _cut_html("the damage.</p>\n<h2 id", 40), "a.html#help"),
    ("span", _cut_html("from the\n<a href", 40), "a.html#shipping"),
    # a section's range one character too far at either end: into the tag that ends the
    # section before, into the next heading's (as markdown's lone "#" reads as nothing)
    ("span", _html_range("<h3 id", 0, '<h2 id="shipping', 1), "a.html#damaged"),
    ("span", _html_range("<h3 id", -2, '<h2 id="shipping', 0), "a.html#damaged"),
    ("span", _html_range("<h3 id", 1, '<h2 id="shipping', 2), "a.html#damaged"),
    ("text", _html_range("<h3 id", -2, '<h2 id="shipping', 2), "a.html#damaged"),
]


@pytest.mark.parametrize(
    ("kind", "where", "cited"),
    CUTS_HTML,
    ids=[f"{c[0]}: {CUT_HTML[c[1][0] : c[1][1]]!r}" for c in CUTS_HTML],
)
def test_a_chunk_cut_inside_html_tags_stands_for_the_section_whose_source_holds_it(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, kind: str, where: tuple[int, int], cited: str
) -> None:
    repo, _ = _workspace(tmp_path / "repo", {"a.html": CUT_HTML}, CUT_HTML_ITEMS)
    start, end = where
    chunk = (
        {"doc": "a.html", "start": start, "end": end}
        if kind == "span"
        else {"doc": "a.html", "text": CUT_HTML[start:end]}
    )
    _same_as_cited(cli, repo, CUT_HTML_ITEMS, chunk, cited)


def test_a_span_is_matched_by_its_text_where_the_headings_are_not_the_snapshots(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path
) -> None:
    """A heading's level changed in the working tree: the document's hash (its rendered
    text) is unchanged, but its sections are not the snapshot's, so where a span lies in
    that source says nothing of the snapshot's sections; the span is matched by its text,
    which a half link keeps from being found."""
    repo, _ = _workspace(tmp_path / "repo", {"a.md": CUT}, CUT_ITEMS)
    (repo / "corpus" / "a.md").write_text(CUT.replace("### Damaged", "#### Damaged"))
    start, end = _cut("[gift cards](https", 40)
    data = _score(
        cli, repo, [{"id": "a1", "retrieved": [{"doc": "a.md", "start": start, "end": end}]}]
    )
    [entry] = data["unresolved"]
    assert entry["reason"].startswith(
        "not found in a.md, and no section holds 80% of its word trigrams (best "
    )


ODD = """\
# Help

## Returns

Return [policy](https://acme.example.com/policy-of-returns) applies.

### ???

Odd [heading](https://acme.example.com/odd-heading-target) here.

## Returns

Second [returns](https://acme.example.com/second-returns-section) text.

Setext title
------------

Setext [body](https://acme.example.com/setext-body-text-here) here.
"""


@pytest.mark.parametrize(
    ("cut", "section"),
    [
        ("Return [policy](https://acme", "returns"),
        # a heading without an anchor (no letter to make one of) is no section of its own:
        # its text is its parent's
        ("Odd [heading](https://acme", "returns"),
        ("Second [returns](https://acme", "returns-1"),  # a repeated heading: the second
        ("Setext [body](https://acme", "setext-title"),
    ],
)
def test_headings_are_matched_to_the_snapshots_sections_in_order(
    tmp_path: Path, cut: str, section: str
) -> None:
    from evalset.config import find_workspace
    from evalset.corpus.manifest import SnapshotStore
    from evalset.corpus.outline import Outlines
    from evalset.score.chunks import Resolver
    from evalset.score.runfile import Chunk

    repo, _ = _workspace(
        tmp_path / "repo", {"a.md": ODD}, {"a1": ("lookup", False, ["a.md#returns"])}
    )
    ws = find_workspace(repo)
    resolver = Resolver(Outlines(SnapshotStore(ws.snapshots_dir).newest(), ws.root))
    start = ODD.index(cut)
    for chunk in (Chunk("a.md", start=start, end=start + len(cut)), Chunk("a.md", text=cut)):
        found = resolver.resolve(chunk)
        assert (found.how, [str(c) for c in found.citations]) == ("position", [f"a.md#{section}"])
