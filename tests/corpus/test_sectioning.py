"""Sectioning: GitHub anchors, CommonMark headings, rendered-text hashing, HTML and text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalset.corpus import html, markdown, normalise, sectioner_for, slugify, text
from evalset.corpus.manifest import hash_text


def ids(source: str) -> list[str]:
    return list(markdown.sections(source).sections)


@pytest.mark.parametrize(
    ("heading", "anchor"),
    [
        ("## *What is not Allowed*", "what-is-not-allowed"),
        ("## _What is not Allowed_", "what-is-not-allowed"),
        ("### 3. Payment & Billing", "3-payment--billing"),
        ("## Größe & Rückgabe", "größe--rückgabe"),
        ("## Délais de livraison", "délais-de-livraison"),
        ("## 配送について", "配送について"),
        ("## Fast 🚀 delivery", "fast--delivery"),
        ("## The `returns` API", "the-returns-api"),
        ("## See [the policy](http://example.com/p) now", "see-the-policy-now"),
        ("## snake_case and-dash", "snake_case-and-dash"),
        ("   ## Indented three spaces", "indented-three-spaces"),
        ("## Closing hashes ##", "closing-hashes"),
    ],
)
def test_section_ids_are_githubs_anchors(heading: str, anchor: str) -> None:
    assert ids(heading + "\n\ntext\n") == [anchor]


def test_repeated_headings_are_numbered_in_order() -> None:
    assert ids("## FAQ\na\n## FAQ\nb\n## FAQ\nc\n") == ["faq", "faq-1", "faq-2"]


def test_headings_as_commonmark_defines_them() -> None:
    source = (
        "---\ntitle: Front matter\n---\n"
        "Preamble.\n\n"
        "Setext one\n==========\n\nx\n\n"
        "Setext two\n----------\n\ny\n\n"
        "    ## four spaces is a code block\n\n"
        "```\n## inside a fence\n```\n\n"
        "#hashtag is not a heading\n"
    )
    parsed = markdown.sections(source)
    assert list(parsed.sections) == ["setext-one", "setext-two"]
    assert [s.level for s in parsed.sections.values()] == [1, 2]
    assert "Front matter" not in parsed.text and "title" not in parsed.text
    assert parsed.text.startswith("Preamble. Setext one x Setext two y")
    assert "## inside a fence" in parsed.sections["setext-two"].text


def test_a_section_includes_its_subsections_but_not_its_own_heading() -> None:
    parsed = markdown.sections("intro\n# A\na1\n## B\nb1\n### C\nc1\n## D\nd1\n# E\ne1\n")
    sections = {k: v.text for k, v in parsed.sections.items()}
    assert sections == {
        "a": "a1 B b1 C c1 D d1",
        "b": "b1 C c1",
        "c": "c1",
        "d": "d1",
        "e": "e1",
    }
    assert parsed.text == "intro A a1 B b1 C c1 D d1 E e1"


def test_rendered_text_drops_markup() -> None:
    parsed = markdown.sections(
        '# T\n\n* a **bold** [link](http://x.example/y "t")\n* `code` <b>html</b>\n\n'
        "| k | v |\n|---|---|\n| 1 | 2 |\n\n1. one\n2. two\n"
    )
    assert parsed.sections["t"].text == "a bold link code html k v 1 2 one two"


def test_source_hash_mode_keeps_markup() -> None:
    rendered = markdown.sections("# T\n\n- *a*\n", "rendered").sections["t"].text
    source = markdown.sections("# T\n\n- *a*\n", "source").sections["t"].text
    assert (rendered, source) == ("a", "- *a*")


def test_html_sections_use_id_attributes_first() -> None:
    parsed = html.sections(
        "<html><head><title>Hidden</title><style>h1{}</style></head><body>"
        "<p>Intro</p><h1>Rewards</h1><p>Join <b>free</b>.</p>"
        "<h2 id='earn'>Earning points</h2><p>1 point per &euro;1.</p>"
        "<h3>Silver &amp; Gold</h3><p>Tiers.</p><script>var x = '<h2>no</h2>';</script>"
        "</body></html>"
    )
    assert {k: v.text for k, v in parsed.sections.items()} == {
        "rewards": "Join free. Earning points 1 point per €1. Silver & Gold Tiers.",
        "earn": "1 point per €1. Silver & Gold Tiers.",
        "silver--gold": "Tiers.",
    }
    assert "Hidden" not in parsed.text


def test_plain_text_is_one_section_the_whole_document() -> None:
    parsed = text.sections("LINE ONE\n\n  line   two\n")
    assert (parsed.text, parsed.sections) == ("LINE ONE line two", {})


def test_formats_are_chosen_by_extension() -> None:
    assert sectioner_for("a/b.MD") is markdown.sections
    assert sectioner_for("x.htm") is html.sections
    assert sectioner_for("notes.txt") is text.sections
    assert sectioner_for("scan.pdf") is None
    assert slugify("Already-a-slug") == "already-a-slug"


# --- properties -------------------------------------------------------------------------

_word = st.text(alphabet="abcdefghijklmnopqrstuvwxyzéü", min_size=1, max_size=8)
_para = st.lists(_word, min_size=1, max_size=12)
_doc = st.lists(
    st.tuples(st.integers(1, 4), st.lists(_para, min_size=0, max_size=3)), min_size=1, max_size=6
)


def _render(doc: list[tuple[int, list[list[str]]]], style: dict[str, object]) -> str:
    out = []
    for n, (level, paras) in enumerate(doc):
        title = f"heading {n}"
        if style["setext"] and level <= 2:
            out.append(f"{title}\n{'=' if level == 1 else '-'}{'=-'[level - 1] * 5}\n")
        else:
            out.append(f"{' ' * int(style['indent'])}{'#' * level} {title}\n")  # type: ignore[call-overload]
        for p, words in enumerate(paras):
            if style["list"] and p % 2:
                out.append("\n".join(f"{style['bullet']} {w}" for w in words) + "\n")
            else:
                width = int(style["wrap"])  # type: ignore[call-overload]
                lines = [" ".join(words[i : i + width]) for i in range(0, len(words), width)]
                if style["emphasis"] and len(lines[0].split()) > 1:
                    first, rest = lines[0].split(" ", 1)
                    lines[0] = f"{style['emphasis']}{first}{style['emphasis']} {rest}"
                out.append("\n".join(lines) + "\n")
            out.append("\n")
    return "\n".join(out)


_styles = st.fixed_dictionaries(
    {
        "setext": st.booleans(),
        "indent": st.integers(0, 3),
        "list": st.booleans(),
        "bullet": st.sampled_from(["-", "*", "+"]),
        "wrap": st.integers(1, 12),
        "emphasis": st.sampled_from(["", "*", "_", "**", "__"]),
    }
)


def _hashes(source: str) -> tuple[str, dict[str, str]]:
    parsed = markdown.sections(source)
    return hash_text(parsed.text), {k: hash_text(v.text) for k, v in parsed.sections.items()}


@settings(max_examples=60, deadline=None)
@given(_doc, _styles, _styles)
def test_reformatting_never_changes_a_hash(doc, first, second) -> None:  # type: ignore[no-untyped-def]
    # Bullets vs paragraphs are structure, not formatting: keep that choice the same.
    second = {**second, "list": first["list"]}
    assert _hashes(_render(doc, first)) == _hashes(_render(doc, second))


@settings(max_examples=60, deadline=None)
@given(_doc, _styles, st.data())
def test_a_word_change_changes_its_section_and_ancestors_only(doc, style, data) -> None:  # type: ignore[no-untyped-def]
    candidates = [
        (s, p, w)
        for s, (_, paras) in enumerate(doc)
        for p, para in enumerate(paras)
        for w in range(len(para))
    ]
    if not candidates:
        return
    s, p, w = data.draw(st.sampled_from(candidates))
    changed = [(level, [list(x) for x in paras]) for level, paras in doc]
    changed[s][1][p][w] = changed[s][1][p][w] + "x"
    doc_before, before = _hashes(_render(doc, style))
    doc_after, after = _hashes(_render(changed, style))
    ids_in_order = list(before)
    touched = ids_in_order[s]
    ancestors, level = set(), doc[s][0]
    for k in range(s - 1, -1, -1):
        if doc[k][0] < level:
            ancestors.add(ids_in_order[k])
            level = doc[k][0]
    assert doc_before != doc_after
    for ident in ids_in_order:
        assert (before[ident] != after[ident]) == (ident == touched or ident in ancestors), ident


def test_inline_markup_does_not_split_words() -> None:
    assert markdown.sections("# T\n\nun**believ**able, `x`y.\n").sections["t"].text == (
        "unbelievable, xy."
    )
    assert html.sections("<h1>T</h1><p>Join <b>free</b>.</p>").sections["t"].text == "Join free."


# --- the fast paths equal their plain definitions ----------------------------------------

_messy = st.lists(
    st.sampled_from(
        [
            " ",
            "  ",
            "\n",
            "\t",
            "\r",
            "\x0b",
            "\x1c",
            "\xa0",
            "\u3000",
            "\u00ad",
            "\u200b",
            "\ufeff",
            "\x00",
            "a",
            "bc",
            "é",
            "e\u0301",
            "<p>",
            "</p>\n",
            "</li>\n</ul>\n",
            "<hr />",
            "<em>",
            "</em>",
            "<td>",
            "<br />\n",
            "<div",
            ">",
            "&amp;",
            "&#32;",
            "&lt;",
            "&nbsp;",
        ]
    ),
    max_size=60,
).map("".join)


@settings(max_examples=300, deadline=None)
@given(_messy)
def test_normalise_is_split_and_join(value: str) -> None:
    import unicodedata

    nfc = unicodedata.normalize("NFC", value)
    shown = "".join(ch for ch in nfc if ch not in "\u00ad\u200b\u2060\ufeff")
    assert normalise(value) == " ".join(shown.split())


@settings(max_examples=300, deadline=None)
@given(_messy)
def test_fast_rendered_text_equals_its_definition(value: str) -> None:
    import html as entities
    import re

    inline = markdown._INLINE_TAG.sub("", value)
    assert markdown._plain(value) == normalise(
        entities.unescape(re.sub(r"<[^>\x00]*>", " ", inline))
    )


_block = st.sampled_from(
    [
        "# Title",
        "## Größe & Rückgabe",
        "### 3. Payment",
        "text *em* and **strong**",
        "- a\n- b",
        "| a | b |\n|---|---|\n| 1 | 2 |",
        "```\ncode  block\n```",
        "<div>raw</div>",
        "> quote",
        "Setext\n---",
        "a\x00b",
        "&amp; &#169;",
        "[link](http://x)",
        "    indented code",
        "FAQ",
        "## FAQ",
        "## FAQ",
        "1. one\n2. two",
        "<h2>raw heading</h2>",
        "---\ntitle: x\n---",
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_block, max_size=12), st.booleans())
def test_manifest_records_equal_their_json_definition(blocks: list[str], store: bool) -> None:
    from evalset.corpus.manifest import document_entry, document_line, document_record, row_digest

    parsed = markdown.sections("\n\n".join(blocks))
    entry = document_entry(parsed, store)
    assert document_record("d/ü.md", parsed, store) == (
        document_line("d/ü.md", entry),
        row_digest("d/ü.md", entry),
    )


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=40))
def test_ascii_slugs_follow_the_character_rule(title: str) -> None:
    from evalset.corpus.sections import _keeps

    kept = "".join(ch for ch in title.strip().lower() if _keeps(ch))
    assert slugify(title) == kept.replace(" ", "-")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(max_size=20), max_size=8))
def test_slugs_of_many_titles_are_each_title_s_slug(titles: list[str]) -> None:
    from evalset.corpus.sections import slugify_all

    assert slugify_all(titles) == [slugify(title) for title in titles]
    normalised = [" ".join(title.split()) for title in titles]
    assert slugify_all(normalised) == [slugify(title) for title in normalised]


def test_formats_named_by_their_specs_are_the_registered_ones() -> None:
    from evalset.corpus import format_specs, registry, use_formats

    try:
        use_formats(format_specs())
        assert sectioner_for("a/b.md") is markdown.sections
        assert format_specs() == tuple(sorted(format_specs()))
        use_formats([".md=evalset.corpus.nowhere:sections"])  # gone: the entry points again
        assert sectioner_for("x.htm") is html.sections and len(format_specs()) == len(registry())
    finally:
        use_formats(None)


_with_html = st.sampled_from(
    [
        "# Title",
        "## Payment date",
        "Cards are charged on the 10<sup>th</sup> of each month.",
        "<!-- TODO ask\nfinance -->",
        "Window: 30 days. <!-- priority > normal, checked by Ann -->",
        "<!-- one line -->",
        "text *em* and **strong** `code <b>`",
        "<div>raw <b>block</b></div>",
        "&amp; &#169; &lt;tag&gt;",
        "<span class=x>inline</span> words",
        "```\n<h2>in code</h2>\n```",
        "- a <i>b</i>\n- c",
        "a\x00b",
        "Refunds ![take thirty](x.png) days.",  # an image's alt text: shown by neither path
        "## ![icon](t.png) Shipping",
        "- <!-- an open comment, ended by its list item",
        "> <!-- a note in a quote",
        "<div>\n<!--\n</div>",
        "<div>Note</div> orders < 50 EUR, <em>5 < 6</em> foo_bar_baz",  # a bare < is text
        "<table><tr><td>Orders < 50</td><td>12.95</td></tr></table>",
        "Refunds are ~~not~~ available, <s>or</s> <DEL>were</DEL>.",  # struck: not text
        "Non<wbr>refundable, the <INS>new</INS>list, 1<SUP>st</SUP>.",
    ]
)


def _event_path(text: str) -> tuple[str, list[tuple[str, int, str, str]]]:
    preamble, headings = markdown._headings(text)
    return markdown._plain("".join(preamble)), [
        (t, lv, a, markdown._plain("".join(body))) for t, lv, a, body in headings
    ]


@settings(max_examples=300, deadline=None)
@given(st.lists(_with_html, max_size=10))
def test_both_markdown_paths_read_a_document_alike(blocks: list[str]) -> None:
    """A document with a raw HTML heading anywhere takes the event stream; before, that
    path read `10<sup>th</sup>` as "10 th" and kept a comment's words, so adding a raw
    heading in one section changed the text of the others."""
    text = "\n\n".join(blocks)
    fast = markdown._headings_from_html(text)
    if fast is not None:
        assert fast == _event_path(text)


@pytest.mark.parametrize(
    "comment",
    [
        "<!-- priority > normal, checked by Ann -->",
        "<!-- multi\nline > note -->",
        "<!-- a -->",
        "<!-- old layout: <h3>Opening hours</h3> -->",
    ],
)
def test_an_html_comment_is_no_text_whatever_it_holds(comment: str) -> None:
    for raw in ("", '\n\n<h3 id="hours">Hours</h3>\n'):  # either path
        parsed = markdown.sections(f"# T\n\nWindow: 30 days. {comment}\n{raw}")
        assert parsed.sections["t"].text.startswith("Window: 30 days.")
        assert "Ann" not in parsed.text and "note" not in parsed.text and "-->" not in parsed.text


# Pages whose head is closed as a browser closes it: by `</head>`, or, the end tag being
# optional, by the first element a head does not hold. (page, its text, its sections)
HEADS = {
    "closed": ("<head><title>T</title></head><body><h1>W</h1><p>2 years</p>",
               "W 2 years", {"w": "2 years"}),
    "no-end-tag": ("<html><head><meta charset=utf-8><title>T</title><body><h1>W</h1>"
                   "<p>2 years</p>", "W 2 years", {"w": "2 years"}),
    "no-body-tag": ("<head><title>T</title><link rel=x><h1 id=a>W</h1><p>b</p>", "W b",
                    {"a": "b"}),
    "scripts-in-head": ("<head><style>h1{}</style><script>var h = 1</script><title>T</title>"
                        "<h2>A</h2>b", "A b", {"a": "b"}),
    "no-head": ("<h1>W</h1><p>c</p>", "W c", {"w": "c"}),
    # the head's start tag is optional too: a title is never content
    "no-head-tag": ("<!DOCTYPE html><html lang=en><meta charset=utf-8><title>T (2025)</title>"
                    "<h1>W</h1><p>c</p>", "W c", {"w": "c"}),
    # text ends the head, as an element does
    "text-ends-head": ("<html><head><meta charset=utf-8><title>T</title>\nReturn in 14 days."
                       "\n<h1>E</h1><p>f</p>", "Return in 14 days. E f", {"e": "f"}),
    # inline elements are no word boundary; struck text is not text (50 became 55)
    "inline": ("<h1>Re<wbr>turns</h1><p>5<del>0</del><ins>5</ins> <label>days</label> "
               "<img src=x alt=y>ok</p>", "Returns 55 days ok", {"returns": "55 days ok"}),
}  # fmt: skip


@pytest.mark.parametrize(("page", "text", "parts"), HEADS.values(), ids=HEADS.keys())
def test_an_html_head_ends_where_a_browser_ends_it(
    page: str, text: str, parts: dict[str, str]
) -> None:
    """Before, a page leaving out the optional `</head>` was all head: no section, no text,
    so no edit of it was ever a change."""
    parsed = html.sections(page)
    assert parsed.text == text
    assert {k: s.text for k, s in parsed.sections.items()} == parts


# Edits a reader sees, and edits of markup alone, in a markdown and an HTML document: (the
# reader of the format, the hash mode, the section's source before and after, whether the
# section changed). Before: a `<` in raw HTML swallowed the text up to the next `>`, struck
# text was text (striking "not" changed nothing), markdown's raw inline tags were a short
# list, case-sensitive, and an HTML section in source mode was hashed on its rendered text.
EDITS = {
    "md: a number after a bare < in a table": (
        markdown, "rendered", "<table><tr><td>Orders < 50 EUR</td><td>12.95</td></tr></table>",
        "<table><tr><td>Orders < 80 EUR</td><td>12.95</td></tr></table>", True,
    ),
    "md: a bare < in a div": (
        markdown, "rendered", "<div>Orders < 50 EUR cost 12.95.</div>",
        "<div>Orders < 50 EUR cost 14.95.</div>", True,
    ),
    "md: a word unstruck": (
        markdown, "rendered", "Refunds are ~~not~~ available.", "Refunds are not available.", True,
    ),
    "md: a word struck with raw HTML": (
        markdown, "rendered", "Refunds are not available.", "Refunds are <s>not</s> available.",
        True,
    ),
    "html: a word unstruck": (
        html, "rendered", "<p>Refunds are <del>not</del> available.</p>",
        "<p>Refunds are not available.</p>", True,
    ),
    "html: a word struck": (
        html, "rendered", "<p>Refunds are not available.</p>",
        "<p>Refunds are <strike>not</strike> available.</p>", True,
    ),
    "md: inline tags taken away or in capitals": (
        markdown, "rendered", "Non<wbr>refundable: the <ins>new</ins>list, 1<SUP>st</SUP>.",
        "Nonrefundable: the newlist, 1<sup>st</sup>.", False,
    ),
    "md: a tag's case": (markdown, "rendered", "Pay <EM>now</EM>.", "Pay <em>now</em>.", False),
    "html: a link's target, in source mode": (
        html, "source", '<p>Use <a href="/eu.pdf">the form</a>.</p>',
        '<p>Use <a href="/uk.pdf">the form</a>.</p>', True,
    ),
    "html: white space, in source mode": (
        html, "source", "<p>Use the form.</p>", "<p>Use   the\nform.</p>", False,
    ),
    # characters that render as nothing are no words (before: each made its section changed)
    "html: a soft hyphen entity": (
        html, "rendered", "<p>Nonrefundable.</p>", "<p>Non&shy;refundable.</p>", False,
    ),
    "md: a soft hyphen entity": (
        markdown, "rendered", "Nonrefundable.", "Non&shy;refundable.", False,
    ),
    "md: a soft hyphen, zero-width space, word joiner, inner BOM": (
        markdown, "rendered", "Non-refundable items.",
        "Non-re\u00adfund\u200ba\u2060ble \ufeffitems.", False,
    ),
    "md: a soft hyphen, in source mode": (
        markdown, "source", "Nonrefundable.", "Non\u00adrefundable.", False,
    ),
    "md: a zero-width joiner is kept": (
        markdown, "rendered", "Nonrefundable.", "Non\u200drefundable.", True,
    ),
    "html: a zero-width non-joiner is kept": (
        html, "rendered", "<p>Nonrefundable.</p>", "<p>Non&zwnj;refundable.</p>", True,
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", EDITS)
def test_an_edit_changes_a_section_exactly_when_a_reader_sees_it(case: str) -> None:
    reader, mode, before, after, changed = EDITS[case]
    head = "# Doc\n\n## Part\n\n" if reader is markdown else "<h1>Doc</h1><h2>Part</h2>"
    tail = "\n\n## Other\n\nx\n" if reader is markdown else "<h2>Other</h2><p>x</p>"
    old = reader.sections(head + before + tail, mode).sections["part"]
    new = reader.sections(head + after + tail, mode).sections["part"]
    assert (old.text != new.text) is changed, (old.text, new.text)


def test_a_bare_less_than_reads_alike_in_both_markdown_paths() -> None:
    """A raw <h3> elsewhere sends a document down the event path: a section with a bare `<`
    in raw HTML read otherwise there, so an edit of another section changed it."""
    doc = ("# D\n\n## Express\n\n<div>Note</div> orders < 50 EUR cost 12.95 EUR\n\n"
           "Ask <em>support</em>.\n\n## Other\n\nx\n")  # fmt: skip
    plain = markdown.sections(doc).sections["express"]
    other = markdown.sections(doc.replace("\nx\n", "\nx <h3>aside</h3>\n")).sections["express"]
    assert plain.text == other.text == "Note orders < 50 EUR cost 12.95 EUR Ask support."
