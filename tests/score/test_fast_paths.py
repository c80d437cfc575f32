"""Every fast path of scoring gives exactly what its plain reference gives: the reference is
written out here, in the fewest obvious lines, and both are fed generated inputs, the
hostile and edge ones included (seeded: the same cases on every run)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalset.score.report import number_texts, row_texts


def seeded(examples: int) -> settings:
    """The same ``examples`` generated cases on every run, however long each takes."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# --- numbers as JSON writes them (report.number_texts, report.row_texts) ---------------------


EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, 1 / 3, 2 / 3, 0.1 + 0.2, 1e-7, 1e-5, 1e16, 1e17, 5e-324,
         2.2250738585072014e-308, 1.7976931348623157e308, math.nan, math.inf, -math.inf,
         1 / math.log2(3), math.nextafter(1 / 3, 1), math.nextafter(1 / 3, 0),
         math.nextafter(1.0, 0), math.nextafter(0.0, 1)]  # fmt: skip
NUMBERS = st.one_of(st.sampled_from(EDGES), st.floats(allow_nan=True, allow_infinity=True))


@seeded(300)
@given(st.lists(st.lists(NUMBERS, min_size=3, max_size=3), max_size=30))
def test_number_texts_are_json_dumps_of_each_number(rows: list[list[float]]) -> None:
    """Negative zero beside zero, NaN and infinities, subnormals, neighbours in the last bit:
    each number is written as ``json.dumps`` writes it, in any shape."""
    values = np.array(rows, dtype=np.float64).reshape(len(rows), 3)
    assert number_texts(values).tolist() == [[json.dumps(v) for v in row] for row in rows]
    cube = values.reshape(len(rows), 1, 3)
    assert number_texts(cube).ravel().tolist() == [json.dumps(v) for row in rows for v in row]
    flat = values.ravel()
    assert number_texts(flat).tolist() == [json.dumps(v) for v in flat.tolist()]
    columns = values.T.tolist()
    assert number_texts(values.T).tolist() == [[json.dumps(v) for v in col] for col in columns]


@seeded(300)
@given(
    st.lists(
        st.lists(st.sampled_from([0.0, -0.0, 1.0, 0.5, math.nan, 1e-7]), min_size=2, max_size=2),
        max_size=30,
    ),
    st.integers(0, 3),
)
def test_row_texts_are_json_dumps_of_each_row(rows: list[list[float]], width: int) -> None:
    """Rows that differ in one column only (or only in the sign of a zero) are formatted as
    themselves; a width of 0 repeats the template."""
    values = np.array([row[:width] + row[: max(0, width - 2)] for row in rows], dtype=np.float64)
    values = values.reshape(len(rows), width)
    names = [f"m{j}" for j in range(width)]
    template = "{" + ", ".join(f'"{n}": %s' for n in names) + "}"
    expected = [json.dumps(dict(zip(names, row, strict=True))) for row in values.tolist()]
    assert row_texts(values, template) == expected


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
          '{"id": "q1", "retrieved": ["a.md"]', "\ufeff{}", "NaN"]  # fmt: skip


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
    from evalset.score.runfile import Chunk, _entry_problem, _problem

    lines: list[tuple[object, ...]] = []
    invalid: list[tuple[int, str]] = []
    first: dict[tuple[str, int], int] = {}
    for n, line in enumerate(text.removeprefix("\ufeff").split("\n"), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            invalid.append((n, f"is not JSON (column {exc.colno}: {exc.msg})"))
            continue
        except (ValueError, RecursionError):
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


@seeded(400)
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


# --- the bootstrap (intervals.resample_means) ---------------------------------------------------


def _plain_bootstrap(values: np.ndarray, group: str, resamples: int, block: int) -> np.ndarray:
    """The bootstrap by its definition: the same seeded draws (``block`` resamples per call
    of the generator), each resample's rows picked out and averaged in floating point."""
    from evalset.score.intervals import SEED, _rng

    n = len(values)
    rng = _rng(SEED, group)
    kind = np.uint16 if n <= 1 << 16 else np.int64
    draws = np.concatenate(
        [rng.integers(0, n, size=(min(block, resamples - s), n), dtype=kind)
         for s in range(0, resamples, block)]
    )  # fmt: skip
    means: np.ndarray = values[draws.astype(np.int64)].mean(axis=1)
    return means


COLUMN_KINDS = ["unit", "negative", "scores", "tiny", "zeros", "large", "one-value"]


@st.composite
def bootstrap_cases(draw: st.DrawFn) -> tuple[np.ndarray, int]:
    n = draw(st.sampled_from([1, 2, 3, 7, 64, 65, 299, 1000]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    columns = []
    for kind in draw(st.lists(st.sampled_from(COLUMN_KINDS), min_size=1, max_size=4)):
        columns.append({
            "unit": rng.random(n), "negative": rng.random(n) - 0.5,
            "scores": rng.choice([0.0, 1 / 3, 0.5, 2 / 3, 1.0], n), "tiny": rng.random(n) * 1e-12,
            "zeros": np.zeros(n), "large": rng.normal(0, 1e6, n), "one-value": np.full(n, 0.1),
        }[kind])  # fmt: skip
    return np.column_stack(columns), draw(st.sampled_from([1, 2, 63, 64, 65, 130, 200]))


@seeded(60)
@given(bootstrap_cases())
def test_resampled_means_are_the_plain_bootstraps_means(case: tuple[np.ndarray, int]) -> None:
    """Fixed point, whole-number draws counted per item and one matrix product per block of
    64 resamples: the means of the same resamples averaged plainly, to ~1e-12 of the
    column's largest value (the fixed point's unit)."""
    from evalset.score.intervals import DRAWN_ROWS, resample_means

    values, resamples = case
    found = resample_means(values, "category:x", resamples)
    plain = _plain_bootstrap(values, "category:x", resamples, DRAWN_ROWS)
    n = len(values)
    unit = np.abs(values).max(axis=0) * (n + 2) * 2.0**-52  # the fixed point's unit, and more
    assert (np.abs(found - plain) <= unit + 1e-300).all()
    assert (np.abs(found - plain) <= 1e-12 * np.abs(values).max(axis=0) + 1e-300).all()


@pytest.mark.xfail(
    strict=True,
    reason="numpy draws 16-bit integers two from each 32-bit word and drops a half word left "
    "at the end of a call: the resamples (and intervals) of up to 65,536 items depend on "
    "DRAWN_ROWS; making them independent of it changes every report's intervals",
)
@seeded(20)
@given(bootstrap_cases())
def test_resampled_means_do_not_depend_on_how_the_draws_are_split(
    case: tuple[np.ndarray, int],
) -> None:
    """The resamples drawn in one go, or 64 or 1 at a time, are the same resamples."""
    values, resamples = case
    resamples = max(resamples, 130)
    one_go = _plain_bootstrap(values, "category:x", resamples, resamples)
    for block in (1, 64):
        assert (_plain_bootstrap(values, "category:x", resamples, block) == one_go).all()
