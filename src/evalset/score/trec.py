"""TREC mode: standard qrels and run files scored with trec_eval's semantics.

Files are read as trec_eval reads them: whitespace-separated columns, a line whose first
non-blank character is ``#`` is a comment, blank lines are skipped. A qrels line is
``qid iter docno rel`` (exactly four columns; ``rel`` read as trec_eval's ``atol`` reads it,
see ``_relevance``); a run line is ``qid iter docno rank score run_id``
(at least six columns, later ones ignored; the rank column is ignored).

Semantics, as trec_eval 9 computes them:

- each query's retrieved documents are ranked by score, highest first, ties broken by
  document id in reverse byte order;
- a document is relevant when its judgement is >= 1; an unjudged one is not;
- only queries that are in both files are scored, and ``all`` averages over them
  (``num_ret``, ``num_rel``, ``num_rel_ret`` are summed, ``num_q`` counts them); files
  that share no query are refused, as trec_eval refuses them;
- ``P_k`` and ``recall_k`` count the relevant documents in the first k (precision divides
  by k even when fewer were retrieved);
- ``ndcg_cut_k`` uses the judgement as gain, divided by log2(rank + 1), normalised by the
  ideal ranking of every judged relevant document of the query;
- ``gm_map``: per query the log of max(AP, 0.00001), and over queries exp of their mean.

A document retrieved twice for one query, or judged twice, is an error (trec_eval refuses
both too).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from operator import ne
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from evalset.errors import EvalsetError
from evalset.fsio import TextError, decode_text, read_input
from evalset.score.metrics import rank_logs

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
"""trec_eval's default cutoffs for P, recall and ndcg_cut."""
SUMMED = ("num_ret", "num_rel", "num_rel_ret")
MIN_GEO_MEAN = 0.00001
_SPACE = b" \t\n\r\x0b\x0c"
"""What C's isspace() separates columns on (Python's str.split() would split on more)."""


class TrecFileError(EvalsetError):
    """A qrels or run file that cannot be read as TREC columns."""


@dataclass
class Qrels:
    """Judgements, one entry per judged (query, document), in file order."""

    path: Path
    queries: list[bytes]
    docs: list[bytes]
    levels: NDArray[np.int64]

    def judged(self) -> dict[str, dict[str, int]]:
        """``{query: {document: level}}``."""
        out: dict[str, dict[str, int]] = {}
        for q, d, level in zip(self.queries, self.docs, self.levels.tolist(), strict=True):
            out.setdefault(q.decode(), {})[d.decode()] = level
        return out


@dataclass
class Run:
    """Retrieved documents, one entry per line in file order: each entry's query and
    document as an index into ``query_names`` and ``doc_names``, and its score."""

    path: Path
    query_names: list[bytes]
    doc_names: list[bytes]
    queries: NDArray[np.int64]
    docs: NDArray[np.int64]
    scores: NDArray[np.float64]
    """Each entry's score as trec_eval holds it (in single precision)."""
    numbers: NDArray[np.int64]
    """The file line (from 1) of each entry."""


def _codes(values: list[bytes], grouped: bool = False) -> tuple[list[bytes], NDArray[np.int64]]:
    """The distinct values in order of appearance, and each value's index among them. With
    ``grouped`` (a run's queries, as runs are written), a column whose equal values stand
    together is numbered from where the value changes, without a look-up per line."""
    if grouped:
        changes = list(compress(range(1, len(values)), map(ne, values[1:], values)))
        names = [values[k] for k in [0, *changes]] if values else []
        if len(set(names)) == len(names):
            lengths: NDArray[np.int64] = np.diff(np.array([0, *changes, len(values)]))
            return names, np.repeat(np.arange(len(names), dtype=np.int64), lengths)
    names = list(dict.fromkeys(values))
    index = {name: i for i, name in enumerate(names)}
    return names, np.fromiter(map(index.__getitem__, values), np.int64, len(values))


def _numbers(texts: list[bytes]) -> NDArray[np.float64]:
    """Score texts as numbers; NaN where one is not a number."""
    try:
        if _has_underscore(texts):
            raise ValueError
        return np.fromiter(map(float, texts), np.float64, len(texts))
    except ValueError:
        return np.array([_number(t) for t in texts], dtype=np.float64)


def _has_underscore(texts: list[bytes]) -> bool:
    """Whether a text has an ``_``, which Python reads between digits (``1_0`` is 10) and C
    does not."""
    return b"_" in b"".join(texts)


def _as_trec_evals(scores: NDArray[np.float64]) -> NDArray[np.float64]:
    """Scores as trec_eval holds them: in a C ``float`` (single precision), so scores that
    differ only beyond its precision are ties, and one beyond its range is infinite."""
    with np.errstate(over="ignore"):
        return scores.astype(np.float32).astype(np.float64)


def default_measures(cutoffs: Sequence[int] = CUTOFFS) -> list[str]:
    """The measures TREC mode computes, in trec_eval's order of printing."""
    names = ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec"]
    names.append("recip_rank")
    names += [f"P_{k}" for k in cutoffs]
    names += [f"recall_{k}" for k in cutoffs]
    names += [f"ndcg_cut_{k}" for k in cutoffs]
    return names


def _read(path: Path, kind: str) -> bytes:
    try:
        data = read_input(path)
    except FileNotFoundError:
        raise TrecFileError(f"{path}: no such file; give the path of the {kind} file.") from None
    except IsADirectoryError:
        raise TrecFileError(f"{path}: is a folder; give the path of the {kind} file.") from None
    except OSError as exc:
        raise TrecFileError(f"{path}: cannot be read ({exc.strerror}).") from None
    try:  # UTF-16, a NUL byte or bad UTF-8 named as for every other text file
        decode_text(data, path, f"TREC {kind} file")
    except TextError as exc:
        raise TrecFileError(str(exc)) from None
    if _BOM in data:  # no part of the first id: an editor's mark, on each of files joined
        data = data.removeprefix(_BOM).replace(b"\n" + _BOM, b"\n")
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):  # LF-only: one scan
        _lone_carriage_return(data, path, kind)
    return data


_LONE_CR = re.compile(rb"\r[ \t\r\x0b\x0c]*[^ \t\r\n\x0b\x0c]")
"""A carriage return with more columns after it before the line feed."""


def _lone_carriage_return(data: bytes, path: Path, kind: str) -> None:
    """Refuse a carriage return that ends a line without a line feed (classic Mac OS line
    ends): trec_eval reads it as a space, so the next line would become ignored columns of
    this one (a run scored on its first line alone) or a line of too many columns."""
    found = _LONE_CR.search(data)
    if found is not None:
        line = data.count(b"\n", 0, found.start()) + 1
        raise TrecFileError(
            f"{path}:{line}: ends a line with a carriage return alone, which joins it to the "
            f"next (trec_eval reads it as a space); save the {kind} file with LF or CRLF line "
            "ends (for example `tr '\\r' '\\n'`)."
        )


_BOM = "\ufeff".encode()


_OTHER_CONTROL = bytes(c for c in range(33) if c not in _SPACE)
"""Control characters that C's isspace() does not count as white space."""


@dataclass
class _Columns:
    """The columns of a file's content lines (comments and blank lines left out)."""

    tokens: list[bytes]
    """Every column of every content line, in order."""
    counts: NDArray[np.int64]
    """Columns per content line."""
    numbers: NDArray[np.int64]
    """The line number (from 1) of each content line."""

    def column(self, j: int) -> list[bytes]:
        """Column ``j`` of every line (each line has more than ``j`` columns)."""
        if (self.counts == self.counts[0]).all():
            return self.tokens[j :: int(self.counts[0])]
        starts = np.concatenate(([0], np.cumsum(self.counts)[:-1])) + j
        return [self.tokens[i] for i in starts.tolist()]


def _columns(data: bytes) -> _Columns:
    """Columns as trec_eval splits them (on C's isspace), counted per line with array
    operations: one ``bytes.split`` for the tokens, and the positions where tokens start,
    counted between new lines. A line whose first token starts with ``#`` is a comment."""
    tokens = data.split()
    raw = np.frombuffer(data, dtype=np.uint8)
    if data.translate(None, _OTHER_CONTROL) != data:  # rare: a byte below 32 that is no space
        filled = np.isin(raw, np.frombuffer(_SPACE, dtype=np.uint8), invert=True)
    else:
        filled = raw > 32
    # a token starts where a filled byte follows white space (compared as booleans: taking
    # differences of the whole file as integers took five times as long)
    starts = np.flatnonzero(filled[1:] > filled[:-1]) + 1
    if len(filled) and filled[0]:
        starts = np.concatenate(([0], starts))
    newlines = np.flatnonzero(raw == 10)
    # tokens before each line's end, so the tokens of line i are [before[i], before[i+1])
    before = np.searchsorted(starts, np.concatenate(([0], newlines + 1, [len(raw) + 1])))
    counts = np.diff(before)
    lines = np.flatnonzero(counts)
    counts, first = counts[lines], before[lines]
    comment = raw[starts[first]] == ord("#")
    if comment.any():
        keep = np.repeat(~comment, counts)
        tokens = list(compress(tokens, keep.tolist()))
        lines, counts = lines[~comment], counts[~comment]
    return _Columns(tokens, counts.astype(np.int64), lines.astype(np.int64) + 1)


def _first_bad(columns: _Columns, wrong: NDArray[np.bool_]) -> tuple[int, int]:
    at = int(np.flatnonzero(wrong)[0])
    return int(columns.numbers[at]), int(columns.counts[at])


def read_qrels(path: Path) -> Qrels:
    """A qrels file: ``qid iter docno rel`` per line."""
    columns = _columns(_read(path, "qrels"))
    if not len(columns.counts):
        raise TrecFileError(f"{path}: holds no judgement; a qrels line is `qid 0 docno rel`.")
    if (columns.counts != 4).any():
        line, count = _first_bad(columns, columns.counts != 4)
        raise TrecFileError(
            f"{path}:{line}: has {count} column(s); a qrels line has 4 "
            "(query, iteration, document, relevance)."
        )
    queries, docs, rels = columns.column(0), columns.column(2), columns.column(3)
    try:
        if _has_underscore(rels):  # "0_1" is 1 to Python, 0 to atol()
            raise ValueError
        levels = np.array(rels).astype(np.int64)
    except (ValueError, OverflowError):  # decimals, exponents, numbers beyond a C long
        levels = np.array(
            [_relevance(r, path, int(n)) for r, n in zip(rels, columns.numbers, strict=True)],
            dtype=np.int64,
        )
    if len(set(zip(queries, docs, strict=True))) != len(queries):
        _duplicate(path, queries, docs, columns.numbers, "judges", "keep one judgement")
    return Qrels(path, queries, docs, levels)


_LEADING_INTEGER = re.compile(rb"[+-]?[0-9]+")
LONG = 2**63
"""A C long has 64 bits here: glibc's atol() gives its largest or smallest value for a
number beyond them."""


def _relevance(text: bytes, path: Path, line: int) -> int:
    """A judgement as trec_eval's atol() reads it: its leading integer (``2.7`` is 2, ``1e3``
    is 1), held within a C long as glibc holds it; a number without one is 0 (``.5``, and
    ``.5e1`` too: atol stops at the point). What is not a number is refused, not read as
    0."""
    found = _LEADING_INTEGER.match(text)
    if found is not None:
        if len(found.group().lstrip(b"+-").lstrip(b"0")) > 19:  # beyond a C long (and past
            return -LONG if text.startswith(b"-") else LONG - 1  # what int() may read)
        return max(-LONG, min(LONG - 1, int(found.group())))
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise TrecFileError(
            f"{path}:{line}: relevance {text.decode()!r} is not a number; the fourth column of "
            "a qrels line is the judgement (0 not relevant, 1 or more relevant)."
        )
    return 0


def _duplicate(
    path: Path,
    queries: list[bytes],
    docs: list[bytes],
    numbers: NDArray[np.int64],
    verb: str,
    fix: str,
) -> None:
    seen: set[tuple[bytes, bytes]] = set()
    for q, d, line in zip(queries, docs, numbers.tolist(), strict=True):
        if (q, d) in seen:
            raise TrecFileError(
                f"{path}:{line}: {verb} document {d.decode()!r} for query {q.decode()!r} a "
                f"second time; {fix}."
            )
        seen.add((q, d))


def read_run(path: Path) -> Run:
    """A run file: ``qid iter docno rank score run_id`` per line."""
    columns = _columns(_read(path, "run"))
    if not len(columns.counts):
        raise TrecFileError(
            f"{path}: holds no result; a run line is `qid Q0 docno rank score run`."
        )
    if (columns.counts < 6).any():
        line, count = _first_bad(columns, columns.counts < 6)
        raise TrecFileError(
            f"{path}:{line}: has {count} column(s); a run line has 6 (query, iteration, "
            "document, rank, score, run name)."
        )
    texts = columns.column(4)
    scores = _numbers(texts)
    if not np.isfinite(scores).all():
        at = int(np.flatnonzero(~np.isfinite(scores))[0])
        what = "not a finite number" if _number(texts[at].strip(b"+-")) == math.inf else (
            "not a number")  # fmt: skip
        raise TrecFileError(
            f"{path}:{columns.numbers[at]}: score {_shown(texts[at])} is {what}; the "
            "fifth column of a run line is the score (higher is retrieved first)."
        )
    query_names, queries = _codes(columns.column(0), grouped=True)
    doc_names, docs = _codes(columns.column(2))
    keys = queries * len(doc_names) + docs
    ordered = np.sort(keys)
    if (ordered[1:] == ordered[:-1]).any():
        order = np.argsort(keys, kind="stable")
        again = order[1:][keys[order][1:] == keys[order][:-1]]
        at = int(again.min())
        raise TrecFileError(
            f"{path}:{columns.numbers[at]}: retrieves document "
            f"{doc_names[docs[at]].decode()!r} for query {query_names[queries[at]].decode()!r} "
            "a second time; a run lists each document once per query."
        )
    return Run(path, query_names, doc_names, queries, docs, _as_trec_evals(scores), columns.numbers)


def _number(text: bytes) -> float:
    if b"_" in text:  # not a number to C (its atof() would stop at the "_")
        return math.nan
    try:
        return float(text)
    except ValueError:
        return math.nan


@dataclass
class TrecResult:
    """Per query and over all queries, each measure's value."""

    measures: list[str]
    queries: list[str]
    values: NDArray[np.float64]
    """queries x measures (without num_q)."""
    all: dict[str, float | int]

    @property
    def per_query(self) -> dict[str, dict[str, float | int]]:
        names = self.measures[1:]
        return {
            q: {m: int(v) if m in SUMMED else v for m, v in zip(names, row, strict=True)}
            for q, row in zip(self.queries, self.values.tolist(), strict=True)
        }

    def to_json(self) -> dict[str, Any]:
        return {"all": self.all, "per_query": self.per_query}

    def to_json_text(self) -> str:
        """``to_json()`` as indented JSON, each query on one line, written without building
        the nested dictionaries (a run of 30,000 queries has a million values): each
        distinct value is formatted once."""
        from evalset.score.report import number_texts

        names = self.measures[1:]
        template = "{" + ", ".join(f"{json.dumps(m)}: %s" for m in names) + "}"
        texts = number_texts(self.values)
        for j, m in enumerate(names):
            if m in SUMMED:  # counts print as integers
                texts[:, j] = self.values[:, j].astype(np.int64).astype(str)
        head = json.dumps({"all": self.all}, indent=2)[:-2]
        rows = [
            f"    {json.dumps(q, ensure_ascii=False)}: {template % tuple(row)}"
            for q, row in zip(self.queries, texts.tolist(), strict=True)
        ]
        if not rows:
            return f'{head},\n  "per_query": {{}}\n}}'
        body = ",\n".join(rows)
        return f'{head},\n  "per_query": {{\n{body}\n  }}\n}}'


def evaluate(qrels: Qrels, run: Run, cutoffs: Sequence[int] = CUTOFFS) -> TrecResult:
    """Score ``run`` against ``qrels`` as trec_eval does (see the module docstring)."""
    measures = default_measures(cutoffs)
    # the queries scored: those in both files, in sorted order, numbered 0..n-1
    run_query = {name: i for i, name in enumerate(run.query_names)}
    judged_names = sorted(set(run.query_names) & set(qrels.queries))
    n = len(judged_names)
    renumber = np.full(len(run.query_names), -1, dtype=np.int64)
    renumber[[run_query[q] for q in judged_names]] = np.arange(n)
    code = renumber[run.queries]
    # each judgement, keyed like the run's entries (query index x documents + document index)
    doc_index = {name: i for i, name in enumerate(run.doc_names)}
    qcode = np.fromiter(map(run_query.get, qrels.queries, repeat(-1)), np.int64)
    qcode = np.where(qcode >= 0, renumber[np.maximum(qcode, 0)], -1)
    dcode = np.fromiter(map(doc_index.get, qrels.docs, repeat(-1)), np.int64)
    width_docs = len(run.doc_names)
    in_run = (qcode >= 0) & (dcode >= 0)
    judged_keys = qcode[in_run] * width_docs + dcode[in_run]
    key_order = np.argsort(judged_keys)
    judged_keys, judged_levels = judged_keys[key_order], qrels.levels[in_run][key_order]
    entry_keys = code * width_docs + run.docs
    at = np.searchsorted(judged_keys, entry_keys).clip(max=max(len(judged_keys) - 1, 0))
    found = (code >= 0) & (len(judged_keys) > 0)
    found &= judged_keys[at] == entry_keys if len(judged_keys) else found
    level = np.where(found, judged_levels[at] if len(judged_keys) else -1, -1)
    # each query's ranking: score descending, ties by document id descending
    order = np.lexsort((-run.scores, code))
    order = order[code[order] >= 0]
    order = _break_ties(order, code, run)
    ranked_q = code[order]
    bounds = np.searchsorted(ranked_q, np.arange(n + 1))
    retrieved = np.diff(bounds)
    ranked_at = np.arange(len(order)) - bounds[ranked_q]  # each entry's rank - 1
    ranked_level = level[order]
    # every judgement of the scored queries: relevant counts, and the ideal gains per query
    scored = qcode >= 0
    relevant = np.bincount(qcode[scored & (qrels.levels >= 1)], minlength=n)
    positive = scored & (qrels.levels > 0)
    pq, pl = qcode[positive], qrels.levels[positive]
    porder = np.lexsort((-pl, pq))
    pq, pl = pq[porder], pl[porder]
    pbounds = np.searchsorted(pq, np.arange(n + 1))
    ideal_at = np.arange(len(pq)) - pbounds[pq]
    values = {m: np.zeros(n) for m in measures[1:]}
    # Queries are scored in groups of like length, each as a matrix as wide as its longest
    # ranking: one matrix for all would be as wide as the longest ranking of the run, and a
    # run with one query of 200,000 documents beside 10,000 short ones would need gigabytes.
    longest = np.maximum(np.maximum(retrieved, np.diff(pbounds)), 1)
    group = np.ceil(np.log2(longest)).astype(np.int64) if n else longest
    for g in np.unique(group).tolist():
        members = np.flatnonzero(group == g)
        row = np.full(n, -1, dtype=np.int64)
        row[members] = np.arange(len(members))
        width = int(longest[members].max())
        levels = np.full((len(members), width), -1, dtype=np.int64)
        mine = row[ranked_q] >= 0
        levels[row[ranked_q[mine]], ranked_at[mine]] = ranked_level[mine]
        ideal = np.zeros((len(members), width), dtype=np.float64)
        theirs = row[pq] >= 0
        ideal[row[pq[theirs]], ideal_at[theirs]] = pl[theirs]
        found_values = _measures(levels, retrieved[members], relevant[members], ideal, cutoffs)
        for m, column in found_values.items():
            values[m][members] = column
    columns = [values[m] for m in measures[1:]]
    matrix = np.column_stack(columns) if n else np.zeros((0, len(columns)))
    everything: dict[str, float | int] = {"num_q": n}
    for m in measures[1:]:  # added up query by query in id order, as trec_eval averages
        if m in SUMMED:
            everything[m] = int(values[m].sum())
        elif m == "gm_map":
            everything[m] = math.exp(float(np.cumsum(values[m])[-1]) / n) if n else 0.0
        else:
            everything[m] = float(np.cumsum(values[m])[-1]) / n if n else 0.0
    return TrecResult(measures, [q.decode() for q in judged_names], matrix, everything)


def _break_ties(order: NDArray[np.int64], code: NDArray[np.int64], run: Run) -> NDArray[np.int64]:
    """``order`` (by query, then score descending) with each run of equal scores of one query
    put in reverse byte order of document id, as trec_eval breaks ties."""
    q, s = code[order], run.scores[order]
    tie = np.concatenate(([False], (q[1:] == q[:-1]) & (s[1:] == s[:-1]), [False]))
    if not tie.any():
        return order
    edges = np.diff(tie.astype(np.int8))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) + 1
    order = order.copy()
    names, docs = run.doc_names, run.docs
    for a, b in zip(starts.tolist(), ends.tolist(), strict=True):
        group = order[a:b].tolist()
        group.sort(key=lambda i: names[docs[i]], reverse=True)
        order[a:b] = group
    return order


def _measures(
    levels: NDArray[np.int64],
    retrieved: NDArray[np.int64],
    relevant: NDArray[np.int64],
    ideal: NDArray[np.float64],
    cutoffs: Iterable[int],
) -> dict[str, NDArray[np.float64]]:
    """Every measure per query, from the judgement of each ranked document (-1: unjudged),
    the counts, and the ideal gains (each query's positive judgements, highest first)."""
    n, width = levels.shape
    rel = levels >= 1
    cumulative = rel.cumsum(axis=1)
    ranks = np.arange(1, width + 1, dtype=np.float64)
    safe_relevant = np.maximum(relevant, 1).astype(np.float64)
    has_relevant = relevant > 0
    out: dict[str, NDArray[np.float64]] = {
        "num_ret": retrieved.astype(np.float64),
        "num_rel": relevant.astype(np.float64),
        "num_rel_ret": cumulative[:, -1].astype(np.float64),
    }
    # sums run in rank order and each gain is divided by its log, as trec_eval computes them
    precisions = (rel * cumulative / ranks).cumsum(axis=1)[:, -1]
    ap = np.where(has_relevant, precisions / safe_relevant, 0.0)
    out["map"] = ap
    out["gm_map"] = np.array([math.log(v) for v in np.maximum(ap, MIN_GEO_MEAN).tolist()])
    at_r = cumulative[np.arange(n), np.minimum(relevant, width).clip(min=1) - 1]
    out["Rprec"] = np.where(has_relevant, at_r / safe_relevant, 0.0)
    any_rel = cumulative[:, -1] > 0
    out["recip_rank"] = np.where(any_rel, 1.0 / (rel.argmax(axis=1) + 1), 0.0)
    logs = rank_logs(max(width, ideal.shape[1]))
    dcg = (np.where(levels > 0, levels, 0) / logs[:width]).cumsum(axis=1)
    idcg = (ideal / logs[: ideal.shape[1]]).cumsum(axis=1)
    for k in cutoffs:
        hits = cumulative[:, min(k, width) - 1].astype(np.float64)
        out[f"P_{k}"] = hits / k
        out[f"recall_{k}"] = np.where(has_relevant, hits / safe_relevant, 0.0)
        at_k = dcg[:, min(k, width) - 1]
        ideal_k = idcg[:, min(k, idcg.shape[1]) - 1]
        out[f"ndcg_cut_{k}"] = np.where(ideal_k > 0, at_k / np.where(ideal_k > 0, ideal_k, 1), 0)
    return out


def score_trec(qrels_path: Path, run_path: Path, cutoffs: Sequence[int] = CUTOFFS) -> TrecResult:
    """Read and score a qrels and a run file (``evalset score retrieval --qrels --run``);
    files that share no query are refused, as trec_eval refuses them: every measure would
    be 0 over no query (a case slip in the ids, or the run of other topics)."""
    qrels, run = read_qrels(qrels_path), read_run(run_path)
    if set(run.query_names).isdisjoint(qrels.queries):
        raise TrecFileError(
            f"{run_path}: shares no query with {qrels_path} (the run's first is "
            f"{_shown(run.query_names[0])}, the qrels' {_shown(qrels.queries[0])}), so there "
            'is nothing to score (trec_eval stops with "No queries with both results and '
            'relevance info"); give the run and the qrels of the same topics.'
        )
    return evaluate(qrels, run, cutoffs)


def _shown(name: bytes) -> str:
    """A query id (or a score) as a message shows it, a long one clipped."""
    text = repr(name.decode())
    return text if len(text) <= 40 else f"{text[:24]}…"
