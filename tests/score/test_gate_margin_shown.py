"""The gate shows the margin it was given, every digit of it: it printed it with ``:g`` (six
significant digits), so a margin just short of a drop read as the drop itself, and the gate
said `difference -0.3125 [...], a drop beyond the margin 0.3125`. The regression lines and
the `failed:` line now show the margin as given (as short as it reads), and each shown
difference reads beyond the shown margin."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from scoring_ws import RUN, score_ws, write_run

__all__ = ["score_ws"]

# multi falls from 1/2 to 0 at hit@1 (m1 retrieves nothing): a drop of 0.5
HALF = [{**x, "retrieved": []} if x["id"] == "m1" else x for x in RUN]
# m1 misses hit@1 in one trial of 400: multi falls from 0.5 to 0.49875, a drop of 0.00125
TRIALS = 400
SMALL_BASE = [{**x, "trial": k} for x in RUN for k in range(TRIALS)]
SMALL = [{**x, "retrieved": []} if (x["id"], x["trial"]) == ("m1", 0) else x for x in SMALL_BASE]

CASES = {
    # (run, margin, the margin as shown)
    "just short of a half": ("half", "0.49999999999", "0.49999999999"),
    "a hair short of a half": ("half", "0.4999999", "0.4999999"),
    "well short of a half": ("half", "0.25", "0.25"),
    "the default": ("half", None, "0.03"),
    "just short of 0.00125": ("small", "0.00124999999", "0.00124999999"),
    "short of 0.00125 by 1e-8": ("small", "0.00124999", "0.00124999"),
    "0.0012": ("small", "0.0012", "0.0012"),
}


def _score(repo: Path, cli, run: list[dict[str, Any]], name: str) -> Path:  # type: ignore[no-untyped-def]
    write_run(repo / f"{name}.jsonl", run)
    done = cli(repo, "score", "retrieval", "docs", f"{name}.jsonl", "-o", f"reports/{name}.json")
    assert done.code == 0, done.err
    return repo / "reports" / f"{name}.json"


@pytest.mark.parametrize(("runs", "margin", "shown"), CASES.values(), ids=CASES.keys())
def test_the_margin_is_shown_as_given_and_each_regression_beyond_it(  # type: ignore[no-untyped-def]
    score_ws: Path, cli, runs: str, margin: str | None, shown: str
) -> None:
    base_run, current_run = (RUN, HALF) if runs == "half" else (SMALL_BASE, SMALL)
    base = _score(score_ws, cli, base_run, "base")
    current = _score(score_ws, cli, current_run, "current")
    args = ["gate", str(base), str(current), "--metric", "hit@1"]
    done = cli(score_ws, *args, *(["--margin", margin] if margin is not None else []))
    assert done.code == 1, done.out
    found = re.findall(r"^REGRESSION multi hit@1: .* \(difference ([-+\d.]+) \[.*\]\), a drop "
                       r"beyond the margin (\S+)$", done.out, re.M)  # fmt: skip
    assert len(found) == 1, done.out
    ((difference, margin_shown),) = found
    assert margin_shown == shown
    assert -float(difference) > float(margin_shown), done.out
    assert done.out.rstrip().endswith(f"failed: 1 regression(s) beyond the margin {shown}")
