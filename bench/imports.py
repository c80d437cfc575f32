"""Importing a 30,000-row CSV file into a new set.

Run: python bench/imports.py

Generates a workspace (git, one document, its snapshot) and a CSV file of 30,000 rows in
the columns `evalset export --format csv` writes, each row a complete item citing the
document. Measures, as whole processes, `evalset import --dry-run` (every row read and
checked, nothing written) and the import itself (the new set file written through the
YAML editor, then re-validated).

Baseline, measured in the same run: the floor of writing the same items outside evalset,
reading the file with Python's csv module and dumping the items as one YAML document with
ruamel.yaml, the library evalset writes set files with. No target: the figures show where
an import's time goes (a dry run that re-parsed a small set for every row took 56 s).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _bytecode import compile_evalset
from _cli import takes_no_options

ROWS = 30_000
WORDS = ("order", "return", "refund", "delivery", "parcel", "courier", "warranty", "repair",
         "invoice", "payment", "card", "account", "customer", "policy", "days", "business",
         "item", "product", "shipping", "express")  # fmt: skip
HEADER = ("id,question,category,answerable,answer,key_points,key_point_sources,"
          "expected_sources,must_not_say,tags")  # fmt: skip
SOURCE = "help/gift-cards.md#expiry"

BASELINE = """
import csv, json, sys
from ruamel.yaml import YAML
items = []
with open(sys.argv[1], newline="", encoding="utf-8") as f:
    for row in csv.DictReader(f):
        items.append({
            "id": row["id"], "question": row["question"], "category": row["category"],
            "status": "active", "answerable": row["answerable"] == "true",
            "expected_sources": json.loads(row["expected_sources"]),
            "key_points": [{"text": t, "sources": s} for t, s in zip(
                json.loads(row["key_points"]), json.loads(row["key_point_sources"]))],
        })
with open(sys.argv[2], "w", encoding="utf-8") as f:
    YAML().dump({"evalset": 1, "name": "baseline", "categories": {"lookup": "?"},
                 "items": items}, f)
"""


def main() -> int:
    takes_no_options(__doc__)
    print(compile_evalset())
    with tempfile.TemporaryDirectory(prefix="evalset-bench-") as folder:
        return measure(Path(folder))


def _run(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return elapsed


def _workspace(root: Path) -> Path:
    root.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com"}  # fmt: skip
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "evalset.toml").write_text("[validate]\nmin_per_category = 0\n")
    (root / "sets").mkdir()
    (root / "corpus" / "help").mkdir(parents=True)
    (root / "corpus" / "help" / "gift-cards.md").write_text(
        "# Gift cards\n\n## Expiry\n\nGift cards are valid for three years.\n"
    )
    _run([sys.executable, "-m", "evalset", "snapshot"], root)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(["git", "commit", "-qm", "workspace"], cwd=root, check=True, env=env)
    return root


def _rows(path: Path) -> None:
    import csv
    import random

    draw = random.Random(0)  # questions of ten words drawn at random: no two alike
    with path.open("w", newline="", encoding="utf-8") as f:
        out = csv.writer(f)
        out.writerow(HEADER.split(","))
        for n in range(ROWS):
            question = " ".join(draw.choice(WORDS) for _ in range(10)).capitalize() + "?"
            out.writerow([f"b-{n:05d}", question, "lookup", "true", "",
                          json.dumps(["Gift cards are valid for three years"]),
                          json.dumps([[SOURCE]]), json.dumps([SOURCE]), "[]", "[]"])  # fmt: skip


def measure(folder: Path) -> int:
    root = _workspace(folder / "ws")
    rows = folder / "rows.csv"
    _rows(rows)
    size = rows.stat().st_size / 1e6
    print(f"import of {ROWS:,} CSV rows ({size:.1f} MB) into a new set")
    script = folder / "baseline.py"
    script.write_text(BASELINE)
    floor = _run([sys.executable, str(script), str(rows), str(folder / "baseline.yaml")], root)
    print(f"  csv module + ruamel.yaml dump of the items (baseline): {floor:6.2f} s")
    importing = [sys.executable, "-m", "evalset", "import", str(rows), "--set", "bench",
                 "--format", "csv"]  # fmt: skip
    dry = _run([*importing, "--dry-run"], root)
    print(f"  evalset import --dry-run (read and check every row):  {dry:6.2f} s")
    whole = _run(importing, root)
    written = (root / "sets" / "bench.yaml").stat().st_size / 1e6
    print(f"  evalset import (writes {written:.1f} MB, re-validated):     {whole:6.2f} s"
          f" = {whole / floor:.2f}x baseline")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
