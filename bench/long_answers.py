"""Normalising long answers for exact matching: number words read as digits.

Run: python bench/long_answers.py

`exact` normalises every answer of an item that has a short answer, whatever the judge, and
number words go through text2num, whose time grows with the square of the text it is given
(a 450 KB answer took 18 s, a 12 MB one hours). Answers of 0.1, 0.4 and 1.6 MB are made of
number words only ("one two three ...") and of prose with numbers spelled out. Baseline,
measured in the same run: splitting the same text into words once (`re.findall`). Target:
normalising grows linearly with the answer (the 1.6 MB one at most 24x the 0.1 MB one, 16x
as long, with room for noise), not with its square.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _bytecode import compile_evalset
from _cli import takes_no_options

SIZES = (100_000, 400_000, 1_600_000)
TEXTS = {
    "number words": "one two three ",
    "prose": "The refund takes thirty days, and we ship in two weeks. ",
}


def timed(function, text: str) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    function(text)
    return time.perf_counter() - start


def main() -> int:
    takes_no_options(__doc__)
    print(compile_evalset())
    from evalset.score.normalise import normalise

    ok = True
    for name, unit in TEXTS.items():
        first = last = 0.0
        for size in SIZES:
            text = (unit * (size // len(unit) + 1))[:size]
            baseline = timed(lambda t: re.findall(r"\w+", t), text)
            seconds = timed(normalise.__wrapped__, text)  # not the cache: the work itself
            first = first or seconds
            last = seconds
            print(f"{name:>12}, {size / 1e6:3.1f} MB: words split {baseline:.3f} s, normalised "
                  f"{seconds:.3f} s ({seconds / baseline:.0f}x)")  # fmt: skip
        growth = last / first
        print(f"{name:>12}: 1.6 MB / 0.1 MB = {growth:.1f}x (target <= 24x)")
        ok = ok and growth <= 24
    print("linear: targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
