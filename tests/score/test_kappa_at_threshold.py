"""A kappa that is exactly the --min-kappa a team chose meets it. Computed from p_o and p_e,
each rounded to a float first, the kappa of a table whose exact kappa is 3/4 came out
0.7499999999999999, and `agreement --min-kappa 0.75` failed with "kappa 0.75 [...] is below
--min-kappa 0.75". Kappa is now (n * agreed - chance) / (n * n - chance) from the whole
counts, rounded once, so it is the float nearest its exact value: the one 0.75 is read as.
The tables are the smallest (with cells up to 11) whose exact kappa is each threshold and
whose kappa rounded twice fell below it; Fraction is the exact reference."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from answers_ws import make_answers_ws

from evalset.score.agreement import cohen_kappa

# threshold: (judge yes & person yes, judge yes & person no, judge no & person yes, both no)
TABLES = {
    "0.2": (1, 0, 4, 5),
    "0.4": (1, 0, 1, 1),
    "0.75": (2, 0, 1, 9),
    "0.8": (3, 0, 1, 8),
    "0.9": (9, 0, 1, 10),
}


def exact_kappa(a: int, b: int, c: int, d: int) -> Fraction:
    n = a + b + c + d
    observed = Fraction(a + d, n)
    expected = Fraction((a + b) * (a + c) + (c + d) * (b + d), n * n)
    return (observed - expected) / (1 - expected)


def rows(a: int, b: int, c: int, d: int) -> tuple[list[bool], list[bool]]:
    judge = [True] * (a + b) + [False] * (c + d)
    human = [True] * a + [False] * b + [True] * c + [False] * d
    return judge, human


@pytest.mark.parametrize(("threshold", "table"), TABLES.items(), ids=TABLES.keys())
def test_kappa_is_the_float_nearest_its_exact_value(threshold: str, table: tuple[int, ...]) -> None:
    assert exact_kappa(*table) == Fraction(threshold)
    assert cohen_kappa(*rows(*table)).kappa == float(threshold)


def label_file(a: int, b: int, c: int, d: int) -> str:
    """Rows the exact judge decides as the table says: it says yes when the claim's word is
    in the answer."""
    lines = ["id,answer,claim,label"]
    cells = [(True, "yes")] * a + [(True, "no")] * b + [(False, "yes")] * c + [(False, "no")] * d
    for k, (said, label) in enumerate(cells):
        claim = f"alpha{k}" if said else f"omega{k}"
        lines.append(f"k1,the parcel code is alpha{k},{claim},{label}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("threshold", "table"), TABLES.items(), ids=TABLES.keys())
def test_agreement_passes_a_kappa_equal_to_min_kappa(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, threshold: str, table: tuple[int, ...]
) -> None:
    repo = make_answers_ws(tmp_path / "repo")
    (repo / "labels.csv").write_text(label_file(*table), encoding="utf-8")
    args = ("agreement", "labels.csv", "--judge", "exact", "--set", "qa", "--min-kappa")
    done = cli(repo, *args, threshold)
    assert done.code == 0, done.out
    assert f"ok: kappa is at least {threshold}" in done.out
    # and a hair above it is still below: the comparison itself is not loosened
    above = cli(repo, *args, str(float(threshold) + 1e-9))
    assert above.code == 1, above.out
    assert "is below --min-kappa" in above.out
