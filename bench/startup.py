"""Start-up cost: `evalset --version` and `evalset status` on the shipped example.

Run: python bench/startup.py   (from the repository root)

Baselines, measured in the same run: a bare `python -c pass` and `git status` in the same
folder. Target: each evalset command under 0.5 s.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _bytecode import compile_evalset
from _cli import takes_no_options

ROOT = Path(__file__).resolve().parent.parent
RUNS = 7


def timed(cmd: list[str]) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=ROOT, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    takes_no_options(__doc__)
    print(compile_evalset())
    python = timed([sys.executable, "-c", "pass"])
    git = timed(["git", "status", "--short"])
    version = timed([sys.executable, "-m", "evalset", "--version"])
    status = timed([sys.executable, "-m", "evalset", "status"])
    print(f"baseline python -c pass: {python:.3f} s;  git status: {git:.3f} s")
    print(
        f"evalset --version: {version:.3f} s = {version / python:.1f}x python start-up "
        "(target < 0.5 s)"
    )
    print(
        f"evalset status:    {status:.3f} s = {status / python:.1f}x python start-up "
        "(target < 0.5 s)"
    )
    ok = version < 0.5 and status < 0.5
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
