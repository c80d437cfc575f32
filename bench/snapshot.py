"""Corpus snapshots and staleness at scale.

Run: python bench/snapshot.py [--docs 50000] [--no-dvc]

Generates a corpus of markdown documents (~6 KB each, nested folders, 3-8 sections with
sub-sections), commits it to a git repository, and measures in the same run:

- baselines: `sha256sum` over every file, `git status` on the tree, `dvc add` of the corpus;
- `evalset snapshot` cold (no cache, 3 runs), unchanged (4 runs), and after 10 documents
  changed (3 rounds), each run right after a run of its baseline: this machine's speed drifts
  within minutes, so each ratio is the median of the ratios of those pairs;
- `evalset stale` for a 10,000-item set against that snapshot (best of 4), after one more
  document had its headings renamed (where the cited section's text went is looked for in
  the whole snapshot); it includes the walk that finds the corpus as it is now among the
  snapshots (the newest);
- peak memory (max RSS) of each evalset run.

Targets: cold <= 3x sha256sum; unchanged <= 4x git status; 10 changed <= 5x git status;
stale < 1 s; peak memory < 1 GB.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# The dvc add baseline must not reach the network: DVC would send its usage analytics.
os.environ["DVC_NO_ANALYTICS"] = "1"
sys.path.insert(0, str(Path(__file__).parent))
from _bytecode import compile_evalset

WORDS = [
    "order",
    "return",
    "refund",
    "delivery",
    "parcel",
    "courier",
    "warranty",
    "repair",
    "invoice",
    "payment",
    "card",
    "account",
    "customer",
    "policy",
    "section",
    "days",
    "within",
    "business",
    "item",
    "product",
    "shipping",
    "express",
    "standard",
    "free",
    "damaged",
    "defective",
    "photo",
    "label",
    "warehouse",
    "store",
    "credit",
    "gift",
    "voucher",
    "points",
    "member",
    "tier",
    "claim",
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "is",
    "for",
    "on",
    "with",
    "by",
    "at",
    "from",
    "as",
    "be",
    "this",
    "that",
    "you",
    "your",
    "we",
    "our",
    "may",
    "must",
    "can",
    "not",
    "only",
    "if",
    "when",
    "after",
    "before",
    "until",
    "each",
    "every",
    "any",
    "all",
    "no",
    "more",
    "than",
    "less",
    "per",
]


def _paragraph(rng: random.Random, n: int) -> str:
    words = rng.choices(WORDS, k=n)
    lines, line = [], []
    for w in words:
        line.append(w)
        if len(line) >= 12:
            lines.append(" ".join(line))
            line = []
    if line:
        lines.append(" ".join(line))
    return "\n".join(lines).capitalize() + "."


def document(rng: random.Random, n: int) -> str:
    out = [f"# Policy document {n}\n", _paragraph(rng, 40) + "\n"]
    for s in range(rng.randint(3, 8)):
        out.append(f"## Section {s} {rng.choice(WORDS)} {rng.choice(WORDS)}\n")
        for _ in range(rng.randint(1, 3)):
            out.append(_paragraph(rng, rng.randint(40, 110)) + "\n")
        if rng.random() < 0.5:
            out.append(f"### Detail {s}\n")
            out.append(
                "\n".join(f"- {_paragraph(rng, 12)}" for _ in range(rng.randint(2, 6))) + "\n"
            )
    return "\n".join(out)


def generate(root: Path, docs: int) -> int:
    rng = random.Random(42)
    total = 0
    for n in range(docs):
        folder = root / f"area-{n % 20:02d}" / f"topic-{n % 250:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        text = document(rng, n)
        (folder / f"doc-{n:06d}.md").write_text(text, encoding="utf-8")
        total += len(text.encode())
    return total


def run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[float, int]:
    """Wall time and the child's peak RSS (KB) of one command."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)} failed:\n{done.stdout}\n{done.stderr}")
    return elapsed, max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)


def best(cmd: list[str], cwd: Path, runs: int = 3) -> float:
    return min(run(cmd, cwd)[0] for _ in range(runs))


SHA256SUM = ["sh", "-c", "find corpus -type f -print0 | xargs -0 sha256sum > /dev/null"]
GIT_STATUS = ["git", "status", "--short"]


class Paired:
    """Runs of a command, each right after a run of its baseline. This machine's speed
    drifts by a third within minutes, so a ratio is taken per pair (both measured at the
    same speed) and the median of those is reported; the times are the best."""

    def __init__(self, baseline: list[str], name: str) -> None:
        self.baseline, self.name = baseline, name
        self.pairs: list[tuple[float, float]] = []
        self.rss = 0

    def run(self, cmd: list[str], cwd: Path) -> None:
        base = run(self.baseline, cwd)[0]
        took, rss = run(cmd, cwd)
        self.pairs.append((base, took))
        self.rss = max(self.rss, rss)

    @property
    def ratio(self) -> float:
        return statistics.median(took / base for base, took in self.pairs)

    def line(self, target: float) -> str:
        bases = [base for base, _ in self.pairs]
        return (
            f"{min(took for _, took in self.pairs):.2f} s, {self.ratio:.1f}x {self.name} "
            f"(target <= {target:g}x; median of {len(self.pairs)} pairs, {self.name} "
            f"{min(bases):.2f}-{max(bases):.2f} s)"
        )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=50_000)
    parser.add_argument("--no-dvc", action="store_true", help="skip the dvc add baseline")
    args = parser.parse_args()
    print(compile_evalset())
    work = Path(tempfile.mkdtemp(prefix="evalset-snapbench-"))
    repo = work / "repo"
    corpus = repo / "corpus"
    corpus.mkdir(parents=True)
    evalset = [sys.executable, "-m", "evalset"]
    try:
        size = generate(corpus, args.docs)
        print(f"corpus: {args.docs:,} markdown documents, {size / 1e6:.0f} MB")
        (repo / "evalset.toml").write_text("[validate]\nmin_per_category = 0\n")
        env = {
            **os.environ,
            "GIT_AUTHOR_NAME": "b",
            "GIT_AUTHOR_EMAIL": "b@b",
            "GIT_COMMITTER_NAME": "b",
            "GIT_COMMITTER_EMAIL": "b@b",
        }
        # No automatic `git gc`: after a commit of 50,000 new objects it repacks them in the
        # background for a minute, taking one of the two cores from whatever is measured.
        for cmd in (
            ["git", "init", "-q"],
            ["git", "config", "gc.auto", "0"],
            ["git", "add", "-A"],
            ["git", "commit", "-qm", "c"],
        ):
            subprocess.run(cmd, cwd=repo, env=env, check=True)
        os.sync()  # let the generated files settle so that writeback does not skew timings
        cold = Paired(SHA256SUM, "sha256sum")
        for _ in range(3):
            for state in (repo / ".evalset", repo / "snapshots"):  # from nothing
                shutil.rmtree(state, ignore_errors=True)
            cold.run([*evalset, "snapshot"], repo)
        unchanged = Paired(GIT_STATUS, "git status")
        for _ in range(4):
            unchanged.run([*evalset, "snapshot"], repo)
        # A 10,000-item set verified against this snapshot, citing real sections.
        from evalset.corpus.manifest import SnapshotStore

        cold_snapshot = SnapshotStore(repo / "snapshots").newest()
        assert cold_snapshot is not None
        (repo / "sets").mkdir()
        items = ["evalset: 1\nname: big\ncategories:\n  direct-lookup: a fact\nitems:\n"]
        docs = sorted(cold_snapshot.documents)
        for n in range(10_000):
            doc = docs[n % len(docs)]
            section = sorted(cold_snapshot.documents[doc]["sections"])[n % 3]
            items.append(
                f"  - id: q-{n:05d}\n    question: Question {n} about {doc}?\n"
                f"    category: direct-lookup\n    expected_sources: [{doc}#{section}]\n"
                f"    key_points:\n      - text: Fact {n}\n        sources: [{doc}#{section}]\n"
                f"    verified: {cold_snapshot.short}\n"
            )
        (repo / "sets" / "big.yaml").write_text("".join(items))

        rng = random.Random(7)
        cited = [str(corpus / doc) for doc in docs[:10_000]]
        changed = Paired(GIT_STATUS, "git status")
        for _ in range(3):  # three rounds of 10 edits to documents the set cites
            for path in rng.sample(cited, 10):
                with open(path, "a", encoding="utf-8") as f:
                    f.write("\nOne more sentence of policy.\n")
            changed.run([*evalset, "snapshot"], repo)
        # and one document whose headings were renamed: stale looks for where the text of
        # its cited section went, in the whole newest snapshot
        renamed = Path(cited[-1])
        renamed.write_text(re.sub(r"(?m)^(#+) ", r"\1 Renamed ", renamed.read_text("utf-8")))
        subprocess.run([*evalset, "snapshot"], cwd=repo, check=True, capture_output=True)

        stale_time, stale_rss = run([*evalset, "stale", "--no-fail"], repo)
        stale_time = min(stale_time, best([*evalset, "stale", "--no-fail"], repo))
        stale_count = subprocess.run(
            [*evalset, "stale", "--json"], cwd=repo, capture_output=True, text=True
        ).stdout.count('"id": "q-')

        if not args.no_dvc:
            # Last, so that its ~600 MB of copies do not disturb the timings above.
            dvc_copy = work / "dvc"
            shutil.copytree(corpus, dvc_copy / "corpus")
            subprocess.run(["git", "init", "-q"], cwd=dvc_copy, check=True)
            dvc = str(Path(sys.executable).with_name("dvc"))
            subprocess.run([dvc, "init", "-q"], cwd=dvc_copy, check=True)
            os.sync()
            dvc_time, _ = run([dvc, "add", "-q", "corpus"], dvc_copy)
            print(f"baseline dvc add: {dvc_time:.2f} s")

        peak = max(cold.rss, unchanged.rss, changed.rss, stale_rss) / 1024
        best_cold = min(took for _, took in cold.pairs)
        dvc_note = f"; {best_cold / dvc_time:.2f}x dvc add" if not args.no_dvc else ""
        print(f"evalset snapshot, cold:         {cold.line(3)}{dvc_note}")
        print(f"evalset snapshot, unchanged:    {unchanged.line(4)}")
        print(f"evalset snapshot, 10 changed:   {changed.line(5)}")
        print(
            f"evalset stale, 10,000 items:    {stale_time:.2f} s (target < 1 s; "
            f"{stale_count} stale after the edits)"
        )
        print(f"peak memory of evalset runs:    {peak:.0f} MB (target < 1024 MB)")
        ok = (
            cold.ratio <= 3
            and unchanged.ratio <= 4
            and changed.ratio <= 5
            and stale_time < 1
            and peak < 1024
        )
        print("targets met" if ok else "TARGETS MISSED")
        return 0 if ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
