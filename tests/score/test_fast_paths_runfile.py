"""Reading a run file (``runfile.read_run``: one scanner call per line, citations checked
once per distinct text, the ``plain`` flag) gives what ``json.loads`` of each line and the
documented rules give, on generated run files (seeded: the same cases on every run)."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import seeded
from evalset.fsio import long_number_at

# --- run files (runfile.read_run) -------------------------------------------------------------

GOOD_CITATIONS = ["a.md", "a.md#x", "b/c.md#y-z", "é.md#ü"]
BAD_CITATIONS = ["/abs.md", "a.md#", "a.md#x y", "a\\b.md", "#x", "a.md#x#y", "a/../b.md"]
CHUNKS = [{"doc": "a.md", "text": "some text"}, {"doc": "a.md", "start": 0, "end": 3}]
BAD_ENTRIES = [{"doc": ""}, {"doc": "a.md#x", "text": "t"}, {"doc": "a.md"}, {"doc": "a.md",
               "text": " "}, {}, ["a.md"], [], 1, 1.0, True, None]  # fmt: skip
ENTRIES = st.one_of(
    st.sampled_from(GOOD_CITATIONS),
    st.sampled_from(BAD_CITATIONS),
    st.sampled_from(CHUNKS),
    st.sampled_from(BAD_ENTRIES),
)
ABSENT = object()


@st.composite
def run_objects(draw: st.DrawFn) -> object:
    """A run line's value: mostly objects with every key right or wrong in some way."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.sampled_from([3, [1], "text", None, True, 1.5, []]))
    obj: dict[str, object] = {}
    choices = {
        "id": ["q1", "q1", "q2", "q3", "", 7, None, ABSENT],
        "trial": [ABSENT, ABSENT, 0, 1, 2, -1, True, 1.0, "1"],
        "latency_ms": [ABSENT, ABSENT, 5, 0.5, -1, "fast", math.nan, math.inf],
        "cost": [ABSENT, ABSENT, 0.001, None, -0.5],
        "answer": [ABSENT, ABSENT, "an answer", "", 3, ["x"], "\U0001f600", "\ud800", "x\udc00"],
        "contexts": [ABSENT, ABSENT, ["a passage"], [], [1], "one"],
        "metadata": [ABSENT, ABSENT, {"any": [1, 2]}, {"\udfff": 1}],
        "retreived": [ABSENT, ABSENT, ABSENT, ABSENT, ABSENT, []],
    }
    for key, values in choices.items():
        value = draw(st.sampled_from(values))
        if value is not ABSENT:
            obj[key] = value
    shape = draw(st.integers(0, 9))
    if shape == 0:
        obj["retrieved"] = draw(st.sampled_from(["a.md", None, {"doc": "a.md"}]))
    elif shape < 9:
        pool = st.sampled_from(GOOD_CITATIONS) if shape < 5 else ENTRIES
        obj["retrieved"] = draw(st.lists(pool, max_size=6))
    return obj


BLANKS = ["", " ", "\t", "\r", "  \t ", "\x0c", "\xa0", "\u2028", "\x1c"]
BROKEN = ["{", "x", '{"id": "q1"} {"id": "q2"}', '{"id": "q1",}', "[" * 3000, "1" * 5000,
          '{"id": "q1", "retrieved": ["a.md"]', "\ufeff{}", "NaN",
          '{"id": "q1", "retrieved": []}\r{"id": "q2", "retrieved": []}',  # a lone CR
          '{"id": "q1", "retrieved": []} \r {}', "{\r", '{"id": "q1",\r', "[1,\r2]\r3"]  # fmt: skip


@st.composite
def run_texts(draw: st.DrawFn) -> str:
    """A run file: generated lines, with blank, broken and decorated ones among them."""
    lines = []
    for _ in range(draw(st.integers(0, 12))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            lines.append(draw(st.sampled_from(BLANKS)))
            continue
        if kind == 1:
            lines.append(draw(st.sampled_from(BROKEN)))
            continue
        obj = draw(run_objects())
        try:  # a lone surrogate can only be written as an escape
            text = json.dumps(obj, ensure_ascii=draw(st.booleans()))
            text.encode()
        except UnicodeEncodeError:
            text = json.dumps(obj)
        before, after = draw(st.sampled_from([("", ""), ("", ""), ("  ", ""), ("", " \t"),
                                              ("", "\r"), (" ", " \r")]))  # fmt: skip
        lines.append(before + text + after)
    text = "\n".join(lines) + draw(st.sampled_from(["", "\n", "\r\n", "\n\n"]))
    return draw(st.sampled_from(["", "", "\ufeff"])) + text


LONE_SURROGATE = (
    'holds a lone surrogate (a "\\ud800" to "\\udfff" escape without its pair), which is not '
    "text; escape a character beyond U+FFFF as its pair of surrogates, or write it as UTF-8"
)


def _citation_problem(entry: str) -> str | None:
    from evalset.sets.citations import Citation

    try:
        Citation.parse(entry)
    except ValueError as exc:
        return f"is not a citation ({exc})"
    return None


def _plain_run(text: str) -> tuple[list[tuple[object, ...]], list[tuple[int, str]]]:
    """The run file's rules without a fast path: each line is ``json.loads`` of itself, its
    problems are looked for in order (its entries one after the other, each citation parsed
    where it stands) and a line refused for a problem of its own takes no (id, trial) away
    from a later line."""
    from evalset.score.runfile import _LONE_CR as LONE_CR
    from evalset.score.runfile import Chunk, _entry_problem, _problem

    lines: list[tuple[object, ...]] = []
    invalid: list[tuple[int, str]] = []
    first: dict[tuple[str, int], int] = {}
    for n, joined in enumerate(text.removeprefix("\ufeff").split("\n"), 1):
        line = joined.removeprefix("\ufeff")  # (where files saved with one were joined)
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            why = exc.msg
            if why == "Extra data" and "\r" in line[: exc.pos][len(line[: exc.pos].rstrip()) :]:
                why = LONE_CR  # a carriage return alone ended the value's line
            invalid.append((n, f"is not JSON (column {exc.colno}: {why})"))
            continue
        except ValueError:  # an integer too long to read, named with its column
            at = long_number_at(line)
            assert at is not None
            invalid.append((n, f"is not JSON that can be read (column {at + 1}: a number "
                            "too long, of more than 4,300 digits; write it in quotes, as "
                            "text)"))  # fmt: skip
            continue
        except RecursionError:
            invalid.append((n, "is not JSON that can be read (too deeply nested, or a number "
                            "too long)"))  # fmt: skip
            continue
        try:
            json.dumps(obj, ensure_ascii=False).encode()
        except UnicodeEncodeError:
            invalid.append((n, LONE_SURROGATE))
            continue
        problem = _problem(obj, plain=True)  # everything but the retrieved entries
        retrieved = obj.get("retrieved") if problem is None else None
        for k, entry in enumerate(retrieved or []):
            wrong = _citation_problem(entry) if isinstance(entry, str) else _entry_problem(entry)
            if wrong:
                problem = f"item {obj['id']}: retrieved[{k}] {wrong}"
                break
        if problem is None:
            key = (obj["id"], obj.get("trial", 0))
            if key in first:
                problem = (
                    f"repeats item {key[0]} trial {key[1]} of line {first[key]}; number "
                    'repeated runs with "trial"'
                )
            else:
                first[key] = n
        if problem is not None:
            invalid.append((n, problem))
            continue
        plain = all(isinstance(e, str) for e in retrieved or [])
        entries = None if retrieved is None else [
            e if isinstance(e, str)
            else Chunk(e["doc"], text=e["text"]) if e.get("text") is not None
            else Chunk(e["doc"], start=e["start"], end=e["end"])
            for e in retrieved
        ]  # fmt: skip
        lines.append((n, obj["id"], obj.get("trial", 0), entries, obj.get("latency_ms"),
                      obj.get("cost"), obj.get("answer"), plain, obj.get("contexts")))  # fmt: skip
    return lines, sorted(invalid)


@seeded(250)
@given(run_texts())
def test_run_files_are_read_as_each_line_read_on_its_own(tmp_path_factory, text: str) -> None:  # type: ignore[no-untyped-def]
    """Blank and white-space lines, CR LF, a byte-order mark, spaces around a line, values
    that are no object, chunks among citations, entries that cannot be hashed, repeated
    (id, trial) beside refused lines, lone surrogates: ``read_run`` keeps and refuses what
    the plain rules keep and refuse, with the same sentence."""
    from evalset.score.runfile import RunFileError, read_run

    path = tmp_path_factory.mktemp("run") / "run.jsonl"
    path.write_bytes(text.encode("utf-8"))
    lines, invalid = _plain_run(text)
    if not lines and not invalid:
        with pytest.raises(RunFileError, match="holds no run line"):
            read_run(path, skip_invalid=True, defer=True)
        return
    run = read_run(path, skip_invalid=True, defer=True)
    found = [
        (r.line, r.id, r.trial, r.retrieved, r.latency_ms, r.cost, r.answer, r.plain, r.contexts)
        for r in run.lines
    ]
    assert found == lines
    assert run.invalid == invalid


def test_a_line_refused_for_its_citation_takes_no_trial_from_the_next(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Citations are checked once per distinct text, after the other checks: a line refused
    for one still left its (id, trial) taken, so the next line of the same item and trial
    was refused as a repeat; and a chunk's problem was named before a bad citation ahead of
    it."""
    from evalset.score.runfile import read_run

    path = tmp_path / "run.jsonl"
    path.write_text(
        '{"id": "q1", "retrieved": ["a.md#x y"]}\n'
        '{"id": "q1", "retrieved": ["a.md"]}\n'
        '{"id": "q2", "retrieved": ["a.md#", {"doc": ""}]}\n',
        encoding="utf-8",
    )
    run = read_run(path, skip_invalid=True, defer=True)
    assert [(line.line, line.id, line.retrieved) for line in run.lines] == [(2, "q1", ["a.md"])]
    assert run.invalid == [
        (1, "item q1: retrieved[0] is not a citation (citation 'a.md#x y' has white space in "
            "its section id)"),
        (3, "item q2: retrieved[0] is not a citation (citation 'a.md#' ends with '#': name a "
            "section or drop the '#')"),
    ]  # fmt: skip
