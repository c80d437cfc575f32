"""Finding positions and edits in set files with very long comment lines.

Run: python bench/long_lines.py

Each file holds a comment line of 0.8, 8 and 20 MB (at the top, where the header's findings
are located, and inside the item an edit rewrites) and findings that need positions. Baseline,
measured in the same run: `sha256sum` of the same file, the cost of reading it once. Target:
`evalset validate` and an edit grow linearly with the line (the 20 MB file at most 25x the
0.8 MB one, as its size is), not with its square.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _bytecode import compile_evalset
from _cli import takes_no_options

SIZES = (800_000, 8_000_000, 20_000_000)
HEAD = "evalset: 1\nname: q\ncategories:\n  a: a\nitems:\n"
ITEM = (
    "  - id: q-1\n    question: Question number one here?\n    categroy: a\n"
    "    # {c}\n    expected_sources: [d.md]\n    key_points:\n      - text: fact\n"
    "        sources: [d.md]\n        sourcse: []\n"
)
EDIT = (
    "import sys\nfrom evalset.sets.editor import edit_set\n"
    "with edit_set(sys.argv[1]) as e:\n    e.set_header('description', 'edited')\n"
)


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=False)
    return time.perf_counter() - start


def main() -> int:
    takes_no_options(__doc__)
    print(compile_evalset())
    evalset = str(Path(sys.executable).with_name("evalset"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in SIZES:
            comment = "x" * size
            path = Path(tmp) / f"set-{size}.yaml"
            path.write_text(f"# {comment}\n{HEAD}{ITEM.format(c=comment)}", encoding="utf-8")
            baseline = timed(["sha256sum", str(path)])
            check = timed([evalset, "validate", str(path)])
            fixed = path.with_name(f"edit-{size}.yaml")
            fixed.write_text(path.read_text().replace("categroy", "category").replace(
                "        sourcse: []\n", ""))  # fmt: skip
            edit = timed([sys.executable, "-c", EDIT, str(fixed)])
            rows.append((size, baseline, check, edit))
            print(f"{size / 1e6:5.1f} MB comment: sha256sum {baseline:.3f} s, validate "
                  f"{check:.3f} s, header edit {edit:.3f} s")  # fmt: skip
    (_, _, first_check, first_edit), (_, _, last_check, last_edit) = rows[0], rows[-1]
    ratio = SIZES[-1] / SIZES[0]
    ok = last_check <= ratio * max(first_check, 0.1) and last_edit <= ratio * max(first_edit, 0.1)
    print(f"20 MB / 0.8 MB: validate {last_check / first_check:.1f}x, edit "
          f"{last_edit / first_edit:.1f}x (size {ratio:.0f}x)")  # fmt: skip
    print("linear: targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
