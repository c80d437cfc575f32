"""Validation and editing of a generated 10,000-item (~10 MB) set.

Run: python bench/validate.py

Baseline, measured in the same run: the floor of reading the same data as JSON
(json.loads) plus validating it with the same pydantic models. Targets: `evalset validate`
cold (a fresh process) at most 3 s and warm at most 3x the floor; editing one item and
appending 10 items through the API at most 3 s each, with untouched bytes unchanged.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _bytecode import compile_evalset
from _data import set_yaml
from evalset import EvalSet, edit_set
from evalset.sets.validate import validate
from evalset.sets.yamlio import parse_mapping

ITEMS = 10_000


def best_of(fn, runs: int = 3) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    print(compile_evalset())
    folder = Path(tempfile.mkdtemp(prefix="evalset-bench-"))
    path = folder / "bench.yaml"
    text = set_yaml(ITEMS)
    path.write_text(text, encoding="utf-8")
    data = parse_mapping(text, path)
    as_json = json.dumps(data)
    print(f"set: {ITEMS:,} items, {len(text.encode()) / 1e6:.1f} MB")

    floor = best_of(lambda: EvalSet.model_validate(json.loads(as_json)))
    cold_runs = []
    for _ in range(3):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "evalset", "validate", str(path)], capture_output=True
        )
        cold_runs.append(time.perf_counter() - start)
    assert done.returncode in (0, 1), done.stderr.decode()
    cold = statistics.median(cold_runs)
    warm = best_of(lambda: validate([path]))
    print(f"baseline floor (json.loads + pydantic): {floor:.2f} s")
    print(f"evalset validate, cold process: {cold:.2f} s   (target <= 3 s)")
    print(
        f"evalset validate, warm:         {warm:.2f} s = {warm / floor:.1f}x floor   (target <= 3x)"
    )

    before = path.read_text(encoding="utf-8").splitlines()
    start = time.perf_counter()
    with edit_set(path) as editor:
        editor.update_item("q-005000", {"verified": "3f9a1c2b7d4e"})
    edit_one = time.perf_counter() - start
    after = path.read_text(encoding="utf-8").splitlines()
    changed = [i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b]
    assert len(after) == len(before) + 1 and len(changed) > 0
    assert after[: changed[0]] == before[: changed[0]]
    assert after[changed[0] + 1 :] == before[changed[0] :]  # one line inserted, nothing else

    new = [
        {"id": f"new-{n}", "question": f"Appended question number {n}?", "status": "draft"}
        for n in range(10)
    ]
    before = path.read_text(encoding="utf-8")
    start = time.perf_counter()
    with edit_set(path) as editor:
        editor.append_items(new)
    append_ten = time.perf_counter() - start
    assert path.read_text(encoding="utf-8").startswith(before)
    print(
        f"edit one item (locked, re-validated, atomic): {edit_one:.2f} s = "
        f"{edit_one / floor:.1f}x floor   (target <= 3 s; other lines unchanged: yes)"
    )
    print(
        f"append 10 items:                              {append_ten:.2f} s = "
        f"{append_ten / floor:.1f}x floor   (target <= 3 s; existing bytes unchanged: yes)"
    )
    ok = cold <= 3 and warm <= 3 * floor and edit_one <= 3 and append_ten <= 3
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
