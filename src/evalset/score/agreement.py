"""Checking a judge against people: a label file of human verdicts, the judge's verdicts on
the same claims, their agreement and Cohen's kappa with its interval, per category.

The label file is CSV with a header and the columns ``id,answer,claim,label`` (others are
ignored): for the item ``id``, a person read ``answer`` and decided whether it asserts
``claim``, ``yes`` or ``no``. The judge decides ``entails(answer, claim)`` for each row
(cached verdicts are reused), and the two are compared.

Cohen's kappa is (p_o - p_e) / (1 - p_e): p_o the share of rows where judge and person
agree, p_e the share expected by chance from how often each says yes. Its 95% interval is
kappa +/- z * se with the large-sample standard error of Fleiss, Cohen and Everitt (1969),
clipped to [-1, 1]; with few rows the normal approximation is rough, so the number of rows
is printed beside it. Kappa is undefined (null) when judge and person each said only one
and the same verdict (p_e = 1). Its interval is left out (null) where that standard error
is 0 however few the rows: when the two agreed on every row (or disagreed on every row,
kappa -1), and when one of them said only yes or only no (kappa is then 0, whatever the
other said).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalset.corpus.names import nfc
from evalset.display import told_apart
from evalset.errors import CannotOpen, EvalsetError
from evalset.export.csv import records, sheet
from evalset.export.rows import RowError
from evalset.fsio import TextError, decode_text, read_input
from evalset.score.intervals import Z
from evalset.score.judges.base import JudgeFailed, Request, Verdict
from evalset.score.judges.runner import Judging
from evalset.sets.model import hidden_judge_error, labels_shown
from evalset.sets.setfile import SetFile

COLUMNS = ("id", "answer", "claim", "label")
MAX_CLAIM = 20_000


class LabelsError(EvalsetError):
    """A label file that cannot be read, or whose rows are not what a label file holds."""


class LabelsMissing(LabelsError, CannotOpen):
    """A label file that cannot be opened."""


@dataclass(frozen=True)
class Label:
    line: int
    id: str
    answer: str
    claim: str
    label: bool

    @property
    def request(self) -> Request:
        return Request("entails", self.answer, self.claim)


@dataclass(frozen=True)
class Kappa:
    """Agreement of two raters on yes/no over n rows."""

    n: int
    agreement: float | None
    kappa: float | None
    low: float | None
    high: float | None
    se: float | None
    confusion: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "n": self.n,
            "agreement": self.agreement,
            "kappa": self.kappa,
            "low": self.low,
            "high": self.high,
            "se": self.se,
            "confusion": self.confusion,
        }


def cohen_kappa(judge: Sequence[bool], human: Sequence[bool], z: float = Z) -> Kappa:
    """Cohen's kappa of two yes/no raters with its large-sample 95% interval."""
    n = len(judge)
    cells = {
        "judge_yes_human_yes": 0,
        "judge_yes_human_no": 0,
        "judge_no_human_yes": 0,
        "judge_no_human_no": 0,
    }
    for j, h in zip(judge, human, strict=True):
        cells[f"judge_{'yes' if j else 'no'}_human_{'yes' if h else 'no'}"] += 1
    if n == 0:
        return Kappa(0, None, None, None, None, None, cells)
    p = [
        [cells["judge_yes_human_yes"] / n, cells["judge_yes_human_no"] / n],
        [cells["judge_no_human_yes"] / n, cells["judge_no_human_no"] / n],
    ]
    rows = [p[0][0] + p[0][1], p[1][0] + p[1][1]]  # the judge's marginals
    cols = [p[0][0] + p[1][0], p[0][1] + p[1][1]]  # the person's
    agreed = cells["judge_yes_human_yes"] + cells["judge_no_human_no"]
    judge_yes = cells["judge_yes_human_yes"] + cells["judge_yes_human_no"]
    human_yes = cells["judge_yes_human_yes"] + cells["judge_no_human_yes"]
    # n * n * p_e, a whole number: kappa from the counts, rounded once, is the nearest float
    # to its exact value, so a table whose kappa is 3/4 meets --min-kappa 0.75 (from p_o and
    # p_e, each rounded first, it came out 0.7499999999999999 and was refused as below it)
    chance = judge_yes * human_yes + (n - judge_yes) * (n - human_yes)
    observed = agreed / n
    expected = chance / (n * n)
    if chance == n * n:
        return Kappa(n, observed, None, None, None, None, cells)
    kappa = (n * agreed - chance) / (n * n - chance)
    # Fleiss, Cohen & Everitt (1969): the large-sample variance of kappa
    diagonal = sum(p[i][i] * (1 - (rows[i] + cols[i]) * (1 - kappa)) ** 2 for i in range(2))
    off = (1 - kappa) ** 2 * sum(
        p[i][j] * (cols[i] + rows[j]) ** 2 for i in range(2) for j in range(2) if i != j
    )
    variance = (diagonal + off - (kappa - expected * (1 - kappa)) ** 2) / (n * (1 - expected) ** 2)
    if _no_interval(cells) is not None or variance <= 1e-12:  # 0: no interval
        return Kappa(n, observed, kappa, None, None, None, cells)
    se = math.sqrt(max(variance, 0.0))
    return Kappa(n, observed, kappa, max(-1.0, kappa - z * se), min(1.0, kappa + z * se), se, cells)


def _no_interval(cells: dict[str, int]) -> str | None:
    """Why kappa has no large-sample interval on a table, or None: its variance is 0 when
    the two agreed on every row, and when one of them gave one verdict only (kappa is then 0
    whatever the other said), however few the rows. (It is also 0 when they disagreed on
    every row, each saying yes as often as no: kappa is -1.)"""
    judge_yes = cells["judge_yes_human_yes"] + cells["judge_yes_human_no"]
    human_yes = cells["judge_yes_human_yes"] + cells["judge_no_human_yes"]
    n = sum(cells.values())
    for who, yes in (("the person", human_yes), ("the judge", judge_yes)):
        if yes in (0, n):
            return f"{who} said only {'yes' if yes else 'no'}"
    if cells["judge_yes_human_no"] == cells["judge_no_human_yes"] == 0:
        return "they agreed on every row"
    return None


def kappa_figure(kappa: float, below: float | None = None) -> str:
    """Kappa to two decimals, or as many as it takes to read as what it is: a kappa short of
    1 (or -1) never as 1.00, and one below ``below`` (the --min-kappa it failed) never as
    that bound ("kappa 0.70 is below --min-kappa 0.7" said the opposite of itself)."""
    if below is not None and not kappa < below:
        below = None  # (it meets the bound: two decimals can show that)
    for digits in range(2, 17):
        text = f"{kappa:.{digits}f}"
        shown = float(text)
        if (abs(shown) != 1 or abs(kappa) == 1) and (below is None or shown < below):
            return text
    return repr(kappa)


def share_text(share: float) -> str:
    """A share of rows as a percentage, whole, or with as many decimals as it takes not to
    read as all or none of them when it is neither (249 of 250 agreed: 99.6%, not 100%)."""
    for digits in range(15):
        text = f"{share:.{digits}%}"
        shown = float(text[:-1])
        if (shown != 100 or share == 1) and (shown != 0 or share == 0):
            return text
    return f"{share:%}"


def kappa_text(found: dict[str, Any], below: float | None = None) -> str:
    """Kappa with its interval, as the outputs print it; ``found`` holds ``kappa``, ``low``,
    ``high`` and, where known, ``confusion``; ``below``: as ``kappa_figure`` takes it."""
    kappa = found["kappa"]
    if kappa is None:
        return "undefined (one verdict only)"
    if found["low"] is None or found["high"] is None:
        why = _no_interval(found["confusion"]) if found.get("confusion") else None
        if why is None:
            why = (
                "they disagreed on every row"
                if kappa == -1
                else "they agreed on every row, or one of them gave one verdict only"
            )
        return f"{kappa_figure(kappa, below)} (no interval: {why})"
    return f"{kappa_figure(kappa, below)} [{found['low']:.2f}, {found['high']:.2f}]"


def read_labels(path: Path, loaded: SetFile) -> tuple[list[Label], str]:
    """The rows of a label file, checked against the set; and the file's sha256."""
    try:
        data = read_input(path)
    except FileNotFoundError:
        raise LabelsMissing(f"{path}: no such file; give the path of the label file.") from None
    except IsADirectoryError:
        raise LabelsMissing(f"{path}: is a folder; give the path of the label file.") from None
    except OSError as exc:
        raise LabelsMissing(f"{path}: cannot be read ({exc.strerror}).") from None
    try:
        text = decode_text(data, path, "label file").removeprefix("\ufeff")
    except TextError as exc:  # UTF-16 named as such, a NUL byte or bad UTF-8 located
        raise LabelsError(str(exc)) from None
    if text.lstrip()[:1] in ("{", "["):
        raise LabelsError(
            f"{path}:1: is JSON, not a CSV label file (a run file?); give a CSV file whose "
            f"header is {','.join(COLUMNS)}."
        )
    try:
        return _labels(path, text, loaded), "sha256:" + hashlib.sha256(data).hexdigest()
    except RowError as exc:  # read as import reads CSV: a quote left open, one not doubled
        raise LabelsError(f"{path}:{exc.line}: {exc.problem}.") from None


def label_key(ident: str, answer: str, claim: str) -> tuple[str, str, str]:
    """What a label is of, as a person reads it: white space collapsed (a spreadsheet's
    trailing space, CRLF inside a cell) and one Unicode form. Two rows with one key are one
    label given twice; a run's answer and a key point find their label by it."""
    return ident, " ".join(nfc(answer).split()), " ".join(nfc(claim).split())


def _labels(path: Path, text: str, loaded: SetFile) -> list[Label]:
    """The labelled rows of the label file's ``text``, read strictly (``records``): each
    named by the line it starts on."""
    found = sheet(text)
    rows = records(found, text)
    start, header = next(rows, (1 + found.skipped, []))
    if not header:
        raise LabelsError(f"{path}: is empty; the first line is the header {','.join(COLUMNS)}.")
    names = [h.strip().lower() for h in header]
    for column in COLUMNS:
        if names.count(column) > 1:  # which of them is meant cannot be told
            raise LabelsError(f"{path}:{start}: names the column {column!r} twice; keep one.")
        if column not in names:
            raise LabelsError(
                f"{path}:{start}: has no column {column!r} (columns: "
                f"{_shown(names)}); the header must name {','.join(COLUMNS)}."
            )
    where = {c: names.index(c) for c in COLUMNS}
    ids = {item.id for item in loaded.items} | {stub.id for stub in loaded.sealed}
    seen: dict[tuple[str, str, str], int] = {}
    labels: list[Label] = []
    for line, row in rows:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise LabelsError(f"{path}:{line}: has {len(row)} field(s), the header "
                              f"{len(header)}; quote fields that hold {found.shown()} (the "
                              "separator).")  # fmt: skip
        ident, answer, claim, label = (row[where[c]] for c in COLUMNS)
        ident = ident.strip()
        if ident not in ids:
            invalid = loaded.not_valid(ident)
            if invalid is not None:
                raise LabelsError(f"{invalid}, then run agreement again ({path}:{line} labels it).")
            close = loaded.nearest_id(ident)
            hint = (
                f"did you mean {close!r}?{told_apart(ident, close)}"
                if close is not None
                else "check the id"
            )
            raise LabelsError(
                f"{path}:{line}: item {ident!r} is not in set {loaded.name} ({hint}); "
                "label only the set's items."
            )
        verdict = label.strip().lower()
        if verdict not in ("yes", "no"):
            raise LabelsError(
                f"{path}:{line}: label {label!r} is not yes or no; write yes when the answer "
                "asserts the claim, no when it does not."
            )
        for name, value in (("answer", answer), ("claim", claim)):
            if not value.strip():
                raise LabelsError(f"{path}:{line}: has an empty {name}; give the {name} "
                                  "the person judged.")  # fmt: skip
        key = label_key(ident, answer, claim)
        if key in seen:
            raise LabelsError(
                f"{path}:{line}: repeats the id, answer and claim of line {seen[key]}; keep "
                "one label per answer and claim."
            )
        seen[key] = line
        labels.append(Label(line, ident, answer, claim, verdict == "yes"))
    if not labels:
        raise LabelsError(f"{path}: holds no labelled row; add rows of {','.join(COLUMNS)}.")
    return labels


@dataclass
class Agreement:
    """A judge's agreement with people on a label file."""

    path: Path
    sha256: str
    set: str
    judge: dict[str, Any]
    overall: Kappa
    categories: dict[str, Kappa] = field(default_factory=dict)
    errors: list[dict[str, Any]] = field(default_factory=list)
    rows: int = 0
    min_kappa: float | None = None
    disagreements: list[dict[str, Any]] = field(default_factory=list)

    @property
    def measured(self) -> bool:
        """Whether the judge decided any labelled claim (every call may have failed)."""
        return self.overall.n > 0 or not self.errors

    @property
    def ok(self) -> bool:
        if not self.measured:  # nothing to stand on, whatever --min-kappa says
            return False
        if self.min_kappa is None:
            return True
        kappa = self.overall.kappa
        return kappa is not None and kappa >= self.min_kappa

    def summary(self) -> dict[str, Any]:
        """What a report of `score answers` records about the agreement it relied on."""
        return {
            "labels": {"path": str(self.path), "sha256": self.sha256, "rows": self.rows},
            "n": self.overall.n,
            "agreement": self.overall.agreement,
            "kappa": self.overall.kappa,
            "low": self.overall.low,
            "high": self.overall.high,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "set": self.set,
            "labels": {"path": str(self.path), "sha256": self.sha256, "rows": self.rows},
            **self.overall.to_json(),
            "categories": {name: k.to_json() for name, k in self.categories.items()},
            "errors": self.errors,
            "disagreements": self.disagreements,
            "min_kappa": self.min_kappa,
            "ok": self.ok,
        }


def agreement(
    path: Path,
    loaded: SetFile,
    judging: Judging,
    min_kappa: float | None = None,
    read: tuple[list[Label], str] | None = None,
) -> Agreement:
    """Run the judge on every labelled claim and compare (see the module docstring).
    ``read``: the labels of ``path`` and its sha256, as ``read_labels`` gave them (a file
    is read once: a stream gives its rows only once)."""
    labels, sha = read if read is not None else read_labels(path, loaded)
    # People label holdout items too, but this output reaches the people tuning prompts: a
    # held-out item's claim (one of its key points) and what the judge said of it (a model's
    # reply may quote the claim, and so may a broken judge's output) are not shown, as in
    # the reports of `score answers`; nor an item's in no split yet, which `split` may yet
    # put in the holdout.
    holdout = {item.id: item.holdout for item in loaded.items}
    held = {i for i, side in holdout.items() if not labels_shown(side)}
    held |= {s.id for s in loaded.sealed}
    results = judging.run(
        (label.request for label in labels), [lab.request for lab in labels if lab.id in held]
    )
    category = {item.id: item.category or "(none)" for item in loaded.items}
    judged: list[tuple[Label, bool]] = []
    errors = []
    for label in labels:
        outcome = results.get(label.request)
        if isinstance(outcome, Verdict):
            judged.append((label, outcome.value))
        else:
            text = str(outcome) if isinstance(outcome, JudgeFailed) else "no verdict"
            if label.id in held:
                text = hidden_judge_error(holdout.get(label.id, True))
            errors.append({"line": label.line, "id": label.id, "error": text})
    overall = cohen_kappa([j for _, j in judged], [lab.label for lab, _ in judged])
    names = list(dict.fromkeys(category.get(lab.id, "(sealed)") for lab, _ in judged))
    categories = {}
    for name in names:
        members = [(lab, j) for lab, j in judged if category.get(lab.id, "(sealed)") == name]
        categories[name] = cohen_kappa([j for _, j in members], [lab.label for lab, _ in members])
    disagreements = [
        {"line": lab.line, "id": lab.id, "claim": None if lab.id in held else lab.claim,
         "human": lab.label, "judge": j} | (_hidden(holdout.get(lab.id, True)) if lab.id in held
                                              else {})
        for lab, j in judged
        if j != lab.label
    ]  # fmt: skip
    return Agreement(
        path,
        sha,
        loaded.name,
        {**judging.judge.describe(), "usage": judging.usage.to_json()},
        overall,
        categories,
        errors,
        len(labels),
        min_kappa,
        disagreements,
    )


def _shown(names: list[str]) -> str:
    """A header's column names as a message shows them: the first few, each kept short (a
    file that is not a label file can have a first line of any length)."""
    if not names:
        return "none"
    cut = [n if len(n) <= 30 else n[:29] + "…" for n in names[:8]]
    return ", ".join(cut) + (f", … ({len(names)} in all)" if len(names) > 8 else "")


def _hidden(holdout: bool | None) -> dict[str, Any]:
    """What a disagreement row says in place of a claim that is not shown, and why: a
    holdout (or sealed) item's, or one in no split yet."""
    return {"hidden": True, "split": "holdout" if holdout else "none"}
