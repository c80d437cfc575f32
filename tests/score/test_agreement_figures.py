"""Agreement figures never round to read as what they are not. Kappa was printed to two
decimals and the share of rows agreed to whole per cent, so a kappa of 0.6957 failed with
"kappa 0.70 [...] is below --min-kappa 0.7", and 500 of 501 rows agreed read "agreement
100%" (kappa "1.00") above a list of the row they disagreed on. Each now takes as many
decimals as it needs, in `agreement` and in the agreement line of `score answers --labels`.
The tables' kappas are checked against scikit-learn's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from answers_ws import ANSWERS, make_answers_ws, write_run
from sklearn.metrics import cohen_kappa_score

# (judge yes & person yes, judge yes & person no, judge no & person yes, both no), the
# --min-kappa it fails, its kappa as `agreement` prints it, as `score answers` prints it
# (which checks no bound), the share agreed as printed
CASES = {
    "just below 0.7": ((2, 0, 1, 4), "0.7", "0.696", "0.70", "86%"),
    "just below 0.6": ((2, 1, 1, 13), "0.6", "0.595", "0.60", "88%"),
    "just below 0.8": ((8, 1, 1, 10), "0.8", "0.798", "0.80", "90%"),
    "one row of 501 apart": ((250, 1, 0, 250), "0.9999", "0.996", "0.996", "99.8%"),
    "one row of 501 agreed": ((1, 250, 250, 0), "0.5", "-0.996", "-0.996", "0.2%"),
}


def label_file(a: int, b: int, c: int, d: int) -> str:
    """Rows the exact judge decides as the table says (yes when the claim's word is in the
    answer)."""
    lines = ["id,answer,claim,label"]
    cells = [(True, "yes")] * a + [(True, "no")] * b + [(False, "yes")] * c + [(False, "no")] * d
    for k, (said, label) in enumerate(cells):
        lines.append(f"k1,the parcel code is alpha{k},{'alpha' if said else 'omega'}{k},{label}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("table", "bound", "kappa", "unbound", "agreed"), CASES.values(),
                         ids=CASES.keys())  # fmt: skip
def test_agreement_figures_read_as_what_they_are(  # type: ignore[no-untyped-def]
    tmp_path: Path,
    cli,
    table: tuple[int, int, int, int],
    bound: str,
    kappa: str,
    unbound: str,
    agreed: str,
) -> None:
    a, b, c, d = table
    judge = [1] * (a + b) + [0] * (c + d)
    human = [1] * a + [0] * b + [1] * c + [0] * d
    reference = cohen_kappa_score(judge, human)
    assert float(kappa) == round(reference, len(kappa.split(".")[1]))
    assert reference < float(bound)
    repo = make_answers_ws(tmp_path / "repo")
    (repo / "labels.csv").write_text(label_file(*table), encoding="utf-8")
    done = cli(repo, "agreement", "labels.csv", "--judge", "exact", "--set", "qa",
               "--min-kappa", bound)  # fmt: skip
    assert done.code == 1, done.out
    assert re.search(rf"^agreement {re.escape(agreed)}, kappa {re.escape(kappa)} \[", done.out,
                     re.M), done.out  # fmt: skip
    assert re.search(rf"^failed: kappa {re.escape(kappa)} \[.*\] is below --min-kappa "
                     rf"{re.escape(bound)}$", done.out, re.M), done.out  # fmt: skip
    run = write_run(repo / "run.jsonl", ANSWERS)
    scored = cli(repo, "score", "answers", "qa", str(run), "--judge", "exact", "--labels",
                 "labels.csv", "-o", "r.json")  # fmt: skip
    assert scored.code == 0, scored.err
    line = next(x for x in scored.out.splitlines() if x.startswith("agreement with people"))
    assert line.startswith(f"agreement with people: kappa {unbound} ["), line
    assert f"], {agreed} agreed, on " in line, line
