"""Hostile text in everything evalset shows: a table of hostile strings, put through every
field that a person or a program outside evalset writes and that a command shows, through
the commands that show them, in each of their output forms.

The strings (``FAMILY``): terminal controls (CSI and OSC sequences, a carriage return,
backspaces, other C0 and C1 controls, bidi overrides and isolates, zero-width characters,
line breaks), markdown that would act in a pull-request comment (pipes, backticks, an HTML
comment, ``<details>``, raw HTML, mentions, issue links, links and images, a heading, rich's
markup), HTML that would act in the page (scripts, a ``</style>``, an attribute break, a
``javascript:`` URL, entities), and a 10,000-character, a blank and an empty value.

The workspace (``hostile_ws``) has one item per string: its question, key point,
must_not_say entry, short answer, trace, note, observed answer, retrieved entries and tag
hold the string after a word naming the field (``FIELDS``); so do its corpus document's name,
its sections' anchors and their text, the run's answers, chunks and contexts, the judge's
messages, the labelled claims, the promoted failures and the imported rows.

The rule per form (README, "Hostile text in output"; ``evalset.display``):

- text (terminal, CI log): no control or format character of the input is written (each is
  escaped, ``\\x1b``, ``\\u202e``), and a line break in a value starts no line;
- ``--format md``: a value opens no HTML or comment, makes no link, image, mention or issue
  link, starts no line, keeps its table row, and the comment stays under GitHub's limit;
- ``--html``: in Chromium, no script runs, nothing but the page is fetched, each value reads
  as text;
- ``--json``: valid JSON holding each value exactly as written.
"""

from __future__ import annotations

import csv
import html
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt

from conftest import GIT_ENV, ROOT, commit_all, make_git_repo, write_files
from evalset.corpus.snapshot import take_snapshot
from evalset.display import (
    MD_LONGEST,
    html_text,
    md_code,
    md_html,
    md_row,
    md_text,
    printable,
)

FAMILY: dict[str, str] = {
    # terminal controls
    "csi": "\x1b[2J\x1b[1;31mred",
    "osc-title": "\x1b]0;new title\x07",
    "osc8-link": "\x1b]8;;http://x.invalid/\x1b\\link\x1b]8;;\x1b\\",
    "carriage-return": "shown\rFORGED-CR",
    "backspace": "abc\b\b\bXYZ",
    "c0": "bell\x07vt\x0bff\x0cus\x1fnul-free",
    "del-c1": "del\x7fcsi\x9b2Jnel\x85",
    "bidi": "abc\u202edcba\u202c \u2066iso\u2069 \u200fmark",
    "zero-width": "z\u200bw\u200cn\u200dj\u2060w\ufeffb\u00ad",
    "line-breaks": "one\nFORGED-LF\u2028FORGED-LS\u2029FORGED-PS",
    "tab": "a\tb",
    # markdown in a comment
    "table-break": "cell | break\n| fake | row |",
    "backticks": "`code` and ``` fence",
    "comment": "<!-- hides the rest",
    "details": "<details open><summary>s</summary>",
    "raw-html": "<b>bold</b><img src=http://x.invalid/p.png>",
    "mention": "@someone and @org/team",
    "issue": "#123 and owner/repo#7 and GH-9",
    "link-image": "![i](http://x.invalid/i.png) [c](http://x.invalid/)",
    "autolink": "https://x.invalid/claim www.x.invalid a@x.invalid mailto:b@x.invalid",
    "heading": "# Heading",
    "emphasis": "**bold** ~~gone~~ _em_ [-x-] {+y+}",
    "rich-markup": "[bold]rich[/bold] [/x]",
    # HTML in the page
    "script": "<script>window.pwned=1</script>",
    "style-break": "</style><script>window.pwned=2</script>",
    "attribute": '" onmouseover="window.pwned=3" x=\'',
    "javascript-url": "javascript:window.pwned=4",
    "entity": "&lt;b&gt; &amp; &#64;someone",
    "img-onerror": "<img src=x onerror=window.pwned=5>",
    # sizes
    "long": "L" * 10_000,
    "blank": "   ",
    "empty": "",
}

INVISIBLE: dict[int, None] = dict.fromkeys(map(ord, "\u00ad\u200b\u2060\ufeff"))
"""Characters a snapshot's text leaves out (for ``str.translate``)."""

CONTROLS = list(FAMILY)[:11]
"""The strings whose characters a terminal acts on."""

FIELDS = {
    # field: the word its values start with
    "question": "Question",
    "key_point": "KeyPoint",
    "must_not_say": "MustNot",
    "answer": "ShortAnswer",
    "trace": "Trace",
    "note": "Note",
    "observed_answer": "Observed",
    "origin_retrieved": "OriginRetrieved",
    "tag": "Tag",
    "doc": "Doc",  # a document's file name: Doc07-….html
    "section": "Sec",  # an anchor: SecC07-… (changed), SecG07-… (deleted), SecM07-… (moved)
    "corpus_text": "CorpusText",
    "run_path": "runs/run-",
    "report_path": "reports/rep-",
    "run_answer": "RunAnswer",
    "run_citation": "RunCitation",
    "chunk_text": "ChunkText",
    "context": "Context",
    "judge_message": "JudgeSays",
    "label_claim": "LabelClaim",
    "failure": "Promoted",
    "failure_trace": "ptrace",
    "imported": "Imported",
    "edited": "Edited",  # a value as a later commit changed it (diff)
}


def item_id(name: str) -> str:
    """The item of a string: h07-bidi (items list in the order of FAMILY)."""
    return f"h{list(FAMILY).index(name):02d}-{name}"


def value(field: str, name: str) -> str:
    return f"{FIELDS[field]} {name}: {FAMILY[name]}"


def _name_part(text: str, limit: int = 40) -> str:
    """``text`` as part of a file name or an anchor: no '/', '#', '\\' or white space."""
    kept = "".join(c for c in text if c not in "/#\\\0" and not c.isspace())
    return kept[:limit]


def doc_name(n: int, name: str) -> str:
    return f"Doc{n:02d}-{_name_part(FAMILY[name])}.html"


def anchor(kind: str, n: int, name: str) -> str:
    return f"Sec{kind}{n:02d}-{_name_part(FAMILY[name], 60)}"


RICH_DOC = "m[/x]y.html"
"""A document whose id holds rich's closing tag "[/x]" (a folder "m[" with a file "x]y")."""
RUN = "runs/run-" + _name_part(FAMILY["csi"] + FAMILY["bidi"] + "|<b>`@bob") + ".jsonl"
REPORT = "reports/rep-" + _name_part(FAMILY["osc-title"] + FAMILY["zero-width"]) + ".json"


def _html_doc(n: int, name: str, version: int) -> str:
    """The document of item ``n``: a section that changes, one deleted and one renamed
    (``version`` 2)."""
    text = html.escape(FAMILY[name])

    def heading(kind: str) -> str:
        return f'<h2 id="{html.escape(anchor(kind, n, name))}">Heading {n}</h2>'

    changed = f"CorpusText {name}: {text} words one two " + ("three" if version == 1 else "four")
    parts = [heading("C"), f"<p>{changed}</p>"]
    if version == 1:
        parts += [heading("G"), f"<p>CorpusText {name}: {text} deleted {n} soon gone</p>"]
    parts += [heading("M") if version == 1 else heading("N"), f"<p>Moved {n} {text} text</p>"]
    return "\n".join(parts) + "\n"


def _item(n: int, name: str, snapshot: str, edited: bool = False) -> dict[str, Any]:
    """Item ``n``, each of its texts holding string ``name``; ``edited``: every text as a
    later commit changed it ("Edited NAME: … (field)")."""
    doc = doc_name(n, name)
    cited = [f"{doc}#{anchor(kind, n, name)}" for kind in "CGM"]
    if name == "rich-markup":
        cited.append(RICH_DOC)

    def text(field: str) -> str:
        return f"{value('edited', name)} ({field})" if edited else value(field, name)

    return {
        "id": item_id(name),
        "question": text("question"),
        "category": "lookup",
        "expected_sources": cited,
        "key_points": [{"text": text("key_point"), "sources": cited[:2]}],
        "must_not_say": [text("must_not_say")],
        "answer": text("answer"),
        "holdout": False,
        "verified": snapshot,
        "origin": {
            "kind": "production",
            "trace": text("trace"),
            "note": text("note"),
            "observed_answer": text("observed_answer"),
            "retrieved": [text("origin_retrieved")],
        },
        "tags": [text("tag")],
    }


def _set(snapshot: str, edited: bool = False) -> str:
    data = {
        "evalset": 1,
        "name": "hostile",
        "description": FAMILY["blank"] if edited else "A set of hostile strings",
        "categories": {"lookup": FAMILY["empty"] if edited else "one section"},
        "items": [_item(n, name, snapshot, edited) for n, name in enumerate(FAMILY)],
    }
    return json.dumps(data, indent=1)  # JSON is YAML


JUDGE = """\
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    a = {"id": r["id"]}
    if r["op"] == "entails" and ("MustNot" in r["claim"] or "must_not_say" in r["claim"]):
        a["error"] = "JudgeSays: cannot decide " + r["claim"]
    elif r["op"] == "entails":
        a["verdict"] = r["claim"] in r["text"]
        a["reason"] = "because " + r["claim"]
    elif r["op"] == "refuses":
        a["verdict"] = False
    else:
        a["statements"] = [s for s in r["text"].split(". ") if s]
    print(json.dumps(a), flush=True)
"""


BROKEN_JUDGES = {
    # a judge that fails: what it says is in the one sentence evalset prints
    # (it lets evalset read its error output before it exits, which is then complete)
    "crash.py": "import sys, time\nsys.stdin.readline()\nsys.stderr.write({said!r})\n"
    "sys.stderr.flush()\ntime.sleep(0.3)\nsys.exit(3)\n",
    "garbage.py": "import sys\nsys.stdin.readline()\nprint('JudgeSays ' + {said!r}, flush=True)\n"
    "sys.stdin.readline()\n",
}
JUDGE_SAYS = " ".join(FAMILY[name] for name in CONTROLS) + " JudgeSays: its last words"


def _evalset(cwd: Path, *args: str) -> None:
    exe = Path(sys.executable).with_name("evalset")
    done = subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, **GIT_ENV})  # fmt: skip
    assert done.returncode in (0, 1), done.stderr


def _run_lines(names: list[str], hit: bool = False) -> str:
    lines = []
    for n, name in enumerate(FAMILY):
        if name not in names:
            continue
        retrieved: list[Any] = [
            f"{FIELDS['run_citation']}-{name}-{_name_part(FAMILY[name])}.md#x",
            {
                "doc": f"Chunk{n:02d}-{_name_part(FAMILY[name])}.md",
                "text": value("chunk_text", name),
            },
        ]
        if hit:
            retrieved.insert(0, f"{doc_name(n, name)}#{anchor('C', n, name)}")
        answer = FAMILY[name] if name in ("blank", "empty") else value("run_answer", name)
        lines.append({"id": item_id(name), "retrieved": retrieved, "answer": answer,
                      "contexts": [value("context", name)]})  # fmt: skip
    return "".join(json.dumps(line) + "\n" for line in lines)


@pytest.fixture(scope="module")
def hostile_ws(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The workspace, stale (its corpus changed since the items were verified), with a
    release before an edit of every item; ``before`` is a copy taken before the snapshot
    of the changed corpus."""
    root = tmp_path_factory.mktemp("hostile")
    repo = make_git_repo(root / "repo")
    docs = {f"corpus/{doc_name(n, name)}": _html_doc(n, name, 1)
            for n, name in enumerate(FAMILY)}  # fmt: skip
    write_files(repo, {
        "evalset.toml": "[validate]\nmin_per_category = 0\n",
        ".gitignore": "/.evalset/\n",
        f"corpus/{RICH_DOC}": "<h2>Rich</h2><p>A document rich reads as markup.</p>\n",
        **docs,
    })  # fmt: skip
    first = take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset").short
    write_files(repo, {"sets/hostile.yaml": _set(first)})
    commit_all(repo, "hostile")
    _evalset(repo, "release", "hostile", "--bump", "minor")
    write_files(repo, {"sets/hostile.yaml": _set(first, edited=True)})
    write_files(repo, {f"corpus/{doc_name(n, name)}": _html_doc(n, name, 2)
                       for n, name in enumerate(FAMILY)})  # fmt: skip
    commit_all(repo, "edited items, changed corpus")
    before = root / "before"
    shutil.copytree(repo, before, symlinks=True)
    take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset")
    commit_all(repo, "snapshot of the changed corpus")

    names = list(FAMILY)
    failures = [{"question": value("failure", name), "trace": value("failure_trace", name),
                 "answer": value("run_answer", name), "note": value("note", name),
                 "retrieved": [value("origin_retrieved", name)]}
                for name in names if name not in ("blank", "empty")]  # fmt: skip
    promoted = f"{value('edited', 'csi')} (trace)"  # the trace of an item
    failures.append({"question": "A question promoted before?", "trace": promoted})
    failures.append({"question": 5, "note": value("note", "bidi")})
    rows = [{"question": value("imported", name)} for name in names if FAMILY[name].strip()]
    rows.append({"id": item_id("csi"), "question": value("imported", "csi") + " (other)"})
    with (repo / "labels.csv").open("w", encoding="utf-8", newline="") as f:
        labels = csv.writer(f)
        labels.writerow(["id", "answer", "claim", "label"])
        for name in names:
            labels.writerow([item_id(name), value("run_answer", name),
                             value("label_claim", name), "yes"])  # fmt: skip
            labels.writerow([item_id(name), value("run_answer", name),
                             value("must_not_say", name), "no"])  # fmt: skip
    write_files(repo, {
        RUN: _run_lines(names),
        "runs/hits.jsonl": _run_lines(names, hit=True),
        "judge.py": JUDGE,
        **{name: script.format(said=JUDGE_SAYS) for name, script in BROKEN_JUDGES.items()},
        "failures.jsonl": "".join(json.dumps(f) + "\n" for f in failures),
        "rows.jsonl": "".join(json.dumps(r) + "\n" for r in rows),
    })  # fmt: skip
    _evalset(repo, "score", "retrieval", "hostile", "runs/hits.jsonl", "--allow-stale",
             "-o", "reports/baseline.json")  # fmt: skip
    _evalset(repo, "score", "retrieval", "hostile", RUN, "--allow-stale", "-o", REPORT)
    return {"repo": repo, "before": before}


JUDGE_SPEC = f"command:{sys.executable} judge.py"

ALL = list(FAMILY)
SET_TEXT = ["question", "key_point", "must_not_say", "answer", "note", "tag", "trace",
            "observed_answer", "origin_retrieved"]  # fmt: skip
"""Every text of an item: the release has them, the working tree has them edited."""

CASES: list[tuple[str, list[str], str, list[str]]] = [
    # (id, arguments, form, fields the output must show)
    ("validate", ["validate", "broken.yaml"], "text", ["doc", "section"]),
    ("validate-json", ["validate", "broken.yaml", "--json"], "json", ["doc", "section"]),
    ("status", ["status"], "text", []),
    ("status-coverage", ["status", "--coverage"], "text", ["doc"]),
    ("status-json", ["status", "--coverage", "--json"], "json", ["doc"]),
    ("stale", ["stale", "--judge", JUDGE_SPEC], "text",
     ["doc", "section", "corpus_text", "edited", "judge_message"]),
    ("stale-md", ["stale", "--format", "md"], "md", ["doc", "section", "corpus_text"]),
    ("stale-json", ["stale", "--judge", JUDGE_SPEC, "--json"], "json",
     ["doc", "section", "corpus_text", "judge_message"]),
    ("verify", ["verify", "hostile", item_id("csi")], "text", ["doc/csi", "section/csi"]),
    ("verify-json", ["verify", "hostile", item_id("bidi"), "--json"], "json",
     ["doc/bidi", "section/bidi"]),
    ("diff", ["diff", "hostile"], "text", [*SET_TEXT, "edited"]),
    ("diff-md", ["diff", "hostile", "--format", "md"], "md", [*SET_TEXT, "edited"]),
    ("diff-json", ["diff", "hostile", "--json"], "json", [*SET_TEXT, "edited"]),
    ("log", ["log", "hostile"], "text", []),
    ("log-json", ["log", "hostile", "--json"], "json", []),
    ("promote", ["promote", "failures.jsonl", "--set", "hostile", "--dry-run",
                 "--skip-invalid"], "text", ["edited/csi"]),
    ("promote-json", ["promote", "failures.jsonl", "--set", "hostile", "--dry-run",
                      "--skip-invalid", "--json"], "json", ["edited/csi"]),
    ("import", ["import", "rows.jsonl", "--set", "hostile", "--format", "jsonl",
                "--dry-run"], "text", []),
    ("import-json", ["import", "rows.jsonl", "--set", "hostile", "--format", "jsonl",
                     "--dry-run", "--json"], "json", []),
    ("score-retrieval", ["score", "retrieval", "hostile", RUN, "--allow-stale"], "text",
     ["run_path", "doc", "section", "run_citation"]),
    ("score-retrieval-md", ["score", "retrieval", "hostile", RUN, "--allow-stale", "--format",
                            "md"], "md", ["run_path", "doc", "section", "run_citation"]),
    ("score-retrieval-json", ["score", "retrieval", "hostile", RUN, "--allow-stale", "--json"],
     "json", ["run_path", "doc", "section", "run_citation", "chunk_text"]),
    ("score-retrieval-html", ["score", "retrieval", "hostile", RUN, "--allow-stale", "--html",
                              "page.html"], "html", ["run_path", "doc", "section",
                                                     "run_citation"]),
    ("score-answers", ["score", "answers", "hostile", RUN, "--allow-stale", "--judge",
                       JUDGE_SPEC, "--labels", "labels.csv"], "text",
     ["run_path", "run_answer", "doc", "run_citation"]),
    ("score-answers-md", ["score", "answers", "hostile", RUN, "--allow-stale", "--judge",
                          JUDGE_SPEC, "--format", "md"], "md",
     ["run_path", "run_answer", "doc", "run_citation"]),
    ("score-answers-json", ["score", "answers", "hostile", RUN, "--allow-stale", "--judge",
                            JUDGE_SPEC, "--json"], "json",
     ["run_path", "run_answer", "judge_message", "doc", "run_citation"]),
    ("score-answers-html", ["score", "answers", "hostile", RUN, "--allow-stale", "--judge",
                            JUDGE_SPEC, "--html", "page.html"], "html",
     ["run_path", "run_answer", "doc", "run_citation"]),
    *((f"judge-{program[:-3]}{form}", ["score", "answers", "hostile", RUN, "--allow-stale",
       "--judge", f"command:{sys.executable} {program}", *extra], form[1:] or "text",
       [] if extra else ["judge_message/csi"])
      for program in BROKEN_JUDGES for form, extra in (("", []), ("-json", ["--json"]))),
    ("gate", ["gate", "reports/baseline.json", REPORT, "--allow-snapshot-change"], "text",
     ["report_path"]),
    ("gate-json", ["gate", "reports/baseline.json", REPORT, "--allow-snapshot-change",
                   "--json"], "json", []),
    ("agreement", ["agreement", "labels.csv", "--judge", JUDGE_SPEC], "text",
     ["label_claim", "judge_message"]),
    ("agreement-json", ["agreement", "labels.csv", "--judge", JUDGE_SPEC, "--json"], "json",
     ["label_claim", "judge_message"]),
    ("check-pin", ["check-pin", REPORT], "text", ["report_path"]),
    ("check-pin-json", ["check-pin", REPORT, "--json"], "json", []),
    ("export", ["export", "hostile", "--format", "jsonl", "--allow-stale"], "data",
     ["edited", "doc", "section"]),
    ("pin", ["pin", "hostile"], "json", []),
]  # fmt: skip
"""Every command that shows text from outside, in each of its forms."""


def _broken_set() -> str:
    """A set whose citations do not resolve (in no workspace folder: `validate PATH`)."""
    items = [{"id": f"b{n}", "question": value("question", name), "category": "lookup",
              "expected_sources": [f"{doc_name(n, name)}#{anchor('X', n, name)}"],
              "key_points": [{"text": value("key_point", name),
                              "sources": [f"{doc_name(n, name)}#{anchor('C', n, name)}"]}],
              "holdout": False}
             for n, name in enumerate(FAMILY)]  # fmt: skip
    return json.dumps({"evalset": 1, "name": "broken", "categories": {"lookup": "x"},
                       "items": items})  # fmt: skip


@pytest.fixture
def ws(hostile_ws: dict[str, Path], tmp_path: Path) -> Path:
    """A copy of the workspace for one command (some write: caches, reports)."""
    repo = tmp_path / "repo"
    shutil.copytree(hostile_ws["repo"], repo, symlinks=True)
    (repo / "broken.yaml").write_text(_broken_set(), encoding="utf-8")
    return repo


# --- the checks, one per form -----------------------------------------------------------

_ESCAPED = ("Cc", "Cf", "Cs", "Zl", "Zp")


def _unshown(text: str, allowed: str = "\n") -> list[str]:
    """The characters of ``text`` a terminal would act on, or that hide or reorder text."""
    return sorted({repr(c) for c in text if c not in allowed
                   and unicodedata.category(c) in _ESCAPED})  # fmt: skip


def check_terminal(text: str) -> None:
    assert not _unshown(text), f"written to the terminal as they are: {_unshown(text)}"
    for line in text.splitlines():
        assert not line.startswith("FORGED"), f"a value started a line: {line!r}"


SHOWN_NAMES = ALL[:10]
"""The strings every listing shows (a comment lists 20 misses, agreement 10 rows)."""
PATHS = {"run_path": RUN, "report_path": REPORT}


def _wanted(fields: list[str]) -> Iterator[tuple[str, str, str, str]]:
    """(field, string name, a start of what the output shows, the value as written) for
    each field, over the strings each listing shows; "field/name": that string only."""
    for spec in fields:
        field, _, only = spec.partition("/")
        for n, name in enumerate(ALL):
            if (only and name != only) or (not only and name not in SHOWN_NAMES):
                continue
            if field in PATHS:
                yield field, name, FIELDS[field], PATHS[field]
            elif field == "doc":
                yield field, name, f"Doc{n:02d}-", doc_name(n, name)
            elif field == "section":
                yield field, name, "Sec", _name_part(FAMILY[name], 60)
            elif field == "run_citation":
                written = f"{FIELDS[field]}-{name}-{_name_part(FAMILY[name])}.md#x"
                yield field, name, f"{FIELDS[field]}-{name}-", written
            elif field == "chunk_text":
                yield field, name, f"Chunk{n:02d}-", value(field, name)
            elif field == "corpus_text":  # as snapshots keep text: white space collapsed,
                # and the characters that render as nothing (soft hyphen, zero-width space,
                # word joiner, byte-order mark) left out
                nfc = unicodedata.normalize("NFC", value(field, name))
                written = " ".join(nfc.translate(INVISIBLE).split())
                yield field, name, f"{FIELDS[field]} {name}:", written
            elif field == "judge_message":  # on a claim, which says which string
                yield field, name, FIELDS[field], f"{FIELDS[field]}: cannot decide "
            else:
                yield field, name, f"{FIELDS[field]} {name}:", value(field, name)


def check_shown(text: str, fields: list[str], how: Any = printable) -> None:
    """Each of ``fields`` reached the output: the test shows what it means to."""
    for field, name, start, _ in _wanted(fields):
        assert how(start) in text, f"the output does not show the {field} of {name}"


_MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
_TEMPLATE_HTML = re.compile(r"</?(?:details|summary|code)>")
_REFERENCES = re.compile(r"(?<![\w@`])@[A-Za-z0-9]|#\d|\bGH-\d")
_AUTOLINKS = re.compile(r"\b(?:https?|ftp)://|\bwww\.|\b(?:mailto|xmpp):|\w@[\w-]+\.\w")
"""What GitHub links in text though no markdown link is written (its autolinks)."""


def check_markdown(text: str) -> None:
    """A comment in which no value acts: see the module's docstring."""
    check_terminal(text)
    assert len(text) <= 65_536, f"a comment of {len(text)} characters: GitHub takes 65,536"
    tokens = _MD.parse(text)
    headings = 0
    for token in tokens:
        assert token.type not in ("hr", "code_block", "fence"), token
        headings += token.type == "heading_open"
        if token.type == "html_block":
            assert "<" not in _TEMPLATE_HTML.sub("", token.content), token.content
        texts = [""]  # the runs of text between other inline tokens, as GitHub sees them
        for child in token.children or []:
            assert child.type not in ("image", "link_open"), f"a value made a link: {token}"
            if child.type == "html_inline":
                assert _TEMPLATE_HTML.fullmatch(child.content), f"HTML: {child.content!r}"
            if child.type == "text":
                texts[-1] += child.content
            elif child.type != "softbreak":
                texts.append("")
        for run in texts:
            found = _REFERENCES.search(run)
            assert not found, f"a mention or issue link: {run!r}"
            found = _AUTOLINKS.search(run)
            assert not found, f"a link GitHub would make: {run!r}"
    assert headings <= 1, "a value made a heading"
    # every row of every table has the cells of its header, and no line leaves its table
    lines = text.split("\n")
    tables = [t.map for t in tokens if t.type == "table_open" and t.map]
    in_tables = {k for start, end in tables for k in range(start, end)}
    for k, line in enumerate(lines):
        if line.startswith("|"):
            assert k in in_tables, f"a table row outside its table: {line!r}"
    for start, end in tables:
        cells = [len(re.split(r"(?<!\\)\|", lines[k])) for k in range(start, end)]
        assert len(set(cells)) == 1, f"a row with more cells: {lines[start:end]}"


def _strings(document: Any) -> Iterator[str]:
    if isinstance(document, str):
        yield document
    elif isinstance(document, dict):
        for key, item in document.items():
            yield key
            yield from _strings(item)
    elif isinstance(document, list):
        for item in document:
            yield from _strings(item)


def check_json(text: str, fields: list[str]) -> None:
    """Valid JSON, holding each value exactly as written (reports cut long ones: their
    start)."""
    strings = "\n\x00".join(_strings(json.loads(text)))
    for field, name, _, written in _wanted(fields):
        assert written[:150] in strings, f"the {field} of {name} is not as written"


# --- the table ----------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "form", "fields"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])  # fmt: skip
def test_what_a_command_shows_is_text_in_its_form(
    ws: Path,
    cli: Any,
    request: pytest.FixtureRequest,
    args: list[str],
    form: str,
    fields: list[str],
) -> None:
    done = cli(ws, *args)
    assert done.code in (0, 1, 2), done.err
    assert "internal error" not in done.err
    if form == "text":
        check_terminal(done.out + done.err)
        check_shown(done.out + done.err, fields)
    elif form == "md":
        check_markdown(done.out)
        check_terminal(done.err)
        check_shown(done.out, fields, md_text)
    elif form == "json":
        check_json(done.out, fields)
    elif form == "data":
        check_terminal(done.err)
        rows = [json.loads(line) for line in done.out.split("\n") if line]
        check_json(json.dumps(rows), fields)
    else:
        check_terminal(done.out + done.err)
        check_page(request.getfixturevalue("browser"), ws / "page.html", fields)


def check_page(browser: Any, path: Path, fields: list[str]) -> None:
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri())
    page.locator("td").first.hover()  # an onmouseover, had one been written
    assert requests == [path.as_uri()], "the page fetched something"
    assert page.evaluate("window.pwned") is None, "a script ran"
    shown = page.evaluate("document.body.innerText")
    assert not _unshown(shown, "\n\t"), "the page holds characters that hide or reorder text"
    check_shown(" ".join(shown.split()), fields)
    page.close()


# --- the browser ----------------------------------------------------------------------------

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium package")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync"]  # fmt: skip
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=flags, headless=True)
        yield launched
        launched.close()


# --- the snapshot of a changed corpus: document names and anchors ----------------------


@pytest.mark.parametrize("form", ["text", "json"])
def test_a_snapshot_names_changed_documents_and_sections_as_text(
    hostile_ws: dict[str, Path], tmp_path: Path, cli: Any, form: str
) -> None:
    repo = tmp_path / "before"
    shutil.copytree(hostile_ws["before"], repo, symlinks=True)
    done = cli(repo, "snapshot", *(["--json"] if form == "json" else []))
    assert done.code == 0, done.err
    if form == "json":
        check_json(done.out, ["doc", "section/csi"])
    else:
        check_terminal(done.out + done.err)
        check_shown(done.out, ["doc", "section"])


# --- on a terminal: colour, rich's tables ----------------------------------------------------


def on_terminal(
    cwd: Path, *args: str, env: dict[str, str] | None = None, typed: bytes = b""
) -> tuple[int, str]:
    """Run `evalset ARGS` with a pseudo-terminal as its input and output (``typed`` is typed
    on it, ``env`` added to the environment); its exit status and output."""
    exe = Path(sys.executable).with_name("evalset")
    leader, follower = pty.openpty()
    environ = {**os.environ, **GIT_ENV, "COLUMNS": "250", "TERM": "xterm-256color"}
    environ.pop("NO_COLOR", None)
    process = subprocess.Popen([str(exe), *args], cwd=cwd, stdin=follower, stdout=follower,
                               stderr=follower, env={**environ, **(env or {})})  # fmt: skip
    os.close(follower)
    if typed:
        os.write(leader, typed)
    out = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            process.kill()
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the program exited and the terminal is closed
            break
        if not chunk:
            break
        out += chunk
    os.close(leader)
    return process.wait(), out.decode("utf-8", "replace")


_COLOUR = re.compile(r"\x1b\[[0-9;]*m")


@pytest.mark.parametrize(
    "args",
    [["status", "--coverage"], ["stale", "hostile"], ["validate", "broken.yaml"],
     ["score", "retrieval", "hostile", RUN, "--allow-stale"]],
    ids=["status-coverage", "stale", "validate", "score-retrieval"],
)  # fmt: skip
def test_on_a_terminal_only_evalset_colours(ws: Path, args: list[str]) -> None:
    """On a terminal, the only escape codes are evalset's colours (and rich's, in tables):
    none comes from the input, and a "[/x]" in a document's name is no markup of rich's."""
    code, out = on_terminal(ws, *args)
    assert code in (0, 1), out
    assert "internal error" not in out
    if args[0] == "stale":
        assert "\x1b[31m\x1b[9m" in out  # the word diff is coloured, removed words struck
    plain = _COLOUR.sub("", out).replace("\r\n", "\n")
    check_terminal(plain)
    if args[0] == "status":
        assert printable(RICH_DOC) in plain


# --- each form's helper over the whole family ------------------------------------------


@pytest.mark.parametrize("name", list(FAMILY))
def test_each_form_shows_each_string_as_text(name: str) -> None:
    text = FAMILY[name]
    check_terminal(printable(text))
    assert printable(printable(text)) == printable(text)  # printing twice changes nothing
    row = md_row([md_text(text), md_code(text)])
    check_markdown(f"| a | b |\n|---|---|\n{row}\n{row}\n")
    for shown in (md_text(text), md_code(text)):
        check_markdown(f"Before {shown} after, {shown}.\n")
    check_markdown(f"<details><summary>{md_html(text)}</summary>\n\nx\n\n</details>\n")
    page = html_text(text)
    assert "<" not in page and '"' not in page and "'" not in page
    assert html.unescape(page) == printable(text)
    if name in CONTROLS:
        assert printable(text) != text


ORDINARY = [
    "How long do I have to return a damaged item?",
    "Damaged items can be returned within 30 days (photo required) — 14 days otherwise.",
    "policies/returns.md#damaged-items",
    "support@acme.example, snake_case, x*y, C:\\Users, Q&A, 50 %, [1], a - b",
    "Ça coûte 4,95 €, ñ, 日本語, emoji 🙂, non-breaking\u00a0space",
]


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_shown_as_it_is(text: str) -> None:
    assert printable(text) == text
    assert html_text(text) == html.escape(text)
    assert md_code(text) == f"`{text}`"
    plain = text.replace("*", "\\*")  # the only mark of these that would format
    plain = plain.replace("support@acme.example", "`support@acme.example`")  # GitHub links it
    assert md_text(text) == plain


def test_a_long_value_is_cut_in_a_comment_only() -> None:
    long = FAMILY["long"]
    assert printable(long) == long and html_text(long) == long
    assert md_text(long) == "L" * MD_LONGEST + "…"
    assert md_code(long) == f"`{'L' * MD_LONGEST}…`"


# --- the README's example -------------------------------------------------------------------

README_SECTION = re.compile(r"## Text from outside.*?(?=\n## )", re.S)


def test_the_readme_example_prints_as_written(tmp_path: Path, cli: Any) -> None:
    repo = make_git_repo(tmp_path / "clone")
    for folder in ("corpus", "sets", "snapshots"):
        shutil.copytree(ROOT / folder, repo / folder)
    shutil.copy(ROOT / "pyproject.toml", repo / "pyproject.toml")
    section = README_SECTION.search((ROOT / "README.md").read_text(encoding="utf-8"))
    assert section is not None
    text = " ".join(line.strip() for line in section[0].splitlines())
    line = re.search(r"A run line `(\{.*?\})`", text)
    assert line is not None
    write_files(repo, {"run.jsonl": line[1] + "\n"})
    commit_all(repo, "example")
    blocks = re.findall(r"```console\n(.*?)```", section[0], re.S)
    command, *shown = [row.strip() for row in blocks[0].splitlines() if row.strip()]
    done = cli(repo, *command.removeprefix("$ evalset ").split())
    assert done.code == 0, done.err
    printed = [row.strip() for row in done.out.splitlines()]
    assert [row for row in shown if row != "…"] == printed[printed.index(shown[1]) :][:3]
    row = re.search(r"```markdown\n(.*?)\n\s*```", section[0], re.S)
    assert row is not None
    done = cli(repo, *command.removeprefix("$ evalset ").split(), "--format", "md")
    assert row[1].strip() in done.out.splitlines()


@pytest.mark.parametrize("columns", ["80", "120", "250"])
def test_a_table_on_a_terminal_is_whole_or_plain(example: Path, cli, columns: str) -> None:  # type: ignore[no-untyped-def]
    """Before, rich's measure of a table was capped at the terminal's width, so every table
    "fitted": at 80 columns the metric names read `hit…`, and the intervals were cut at 120.
    Each cell a pipe gets is on a terminal of any width too, whole."""
    shutil.copytree(ROOT / "examples", example / "examples")
    run = "examples/runs/acme-support-bm25.jsonl"
    args = ["score", "retrieval", "acme-support", run, "--allow-stale"]
    assert cli(example, *args, "-o", "bm25.json").code == 0
    hybrid = ["score", "retrieval", "acme-support", run.replace("bm25", "hybrid"), "--allow-stale"]
    assert cli(example, *hybrid, "-o", "hybrid.json").code == 0
    for command in (args, ["gate", "bm25.json", "hybrid.json"]):
        piped = cli(example, *command).out
        code, out = on_terminal(example, *command, env={"COLUMNS": columns})
        assert code in (0, 1), out
        shown = _COLOUR.sub("", out)
        rows = [line for line in piped.splitlines()  # the tables' rows, one metric each
                if re.search(r"\b(hit@|recall@|mrr\b|map\b)", line) and "  " in line.strip()
                and not line.lstrip().startswith("REGRESSION")]  # fmt: skip
        assert rows, piped
        for row in rows:
            for cell in re.split(r"\s{2,}", row.strip()):
                assert cell in shown, (columns, cell)
