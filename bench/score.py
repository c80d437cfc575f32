"""Scoring speed: set mode, TREC mode and chunk resolution, each paired with its baseline.

Run: python bench/score.py [--items 10000] [--docs 50000] [--chunks 100000] [--runs 3]

Generates its own data (no downloads):

- a workspace of 2,000 markdown documents (8 sections each, two of them nested), its
  snapshot, a set of ``--items`` items verified against it (1-3 expected sections each, a
  fifth of them held out, four categories) committed to git, and a run of 3 trials per
  item with 20 citations each; the same data as TREC qrels and a TREC run (one query per
  item and trial);
- a workspace of ``--docs`` documents (section text stored in the snapshot) and a run of
  ``--chunks`` chunks given as text: most are passages of a section as rendered, a fifth
  are markdown source (markup to remove), a twentieth were cleaned by the "retriever" (found
  by overlap).

Measures, in the same run and each next to its baseline:

1. `evalset score retrieval SET RUN -o report.json`, the whole process, against the whole
   process of pytrec_eval-terrier (trec_eval's C code) reading the TREC files, computing the
   same measures (success, recip_rank, P, recall, ndcg_cut at 1,3,5,10, map) and printing
   `{"all", "per_query"}` as JSON. Target: no slower. The library's phases are shown too;
   validating the set and computing its pin are what `evalset validate` and `evalset pin`
   cost on their own.
2. `evalset score retrieval --qrels --run --json` on the TREC files, whole process, against
   the same pytrec_eval process computing trec_eval's default measures of TREC mode.
   Target: no slower.
3. Resolving the chunks against the large snapshot (the library's resolver, with the cycle
   collector paused as the command pauses it: the documents it reads are hundreds of
   thousands of objects, which the collector's passes would walk again and again), and the
   whole `evalset score retrieval` of that run. Target: resolution < 10 s.

Each timing is the median of ``--runs`` runs, evalset's and the baseline's alternating: other
processes share the machine, so single figures are noisy.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _bytecode import compile_evalset

WORDS = [
    "order", "return", "refund", "delivery", "parcel", "courier", "warranty", "repair",
    "invoice", "payment", "card", "account", "customer", "policy", "days", "within",
    "business", "item", "product", "shipping", "express", "standard", "free", "damaged",
    "defective", "photo", "label", "warehouse", "store", "credit", "gift", "voucher", "points",
    "member", "tier", "claim", "the", "a", "of", "to", "and", "in", "is", "for", "on", "with",
    "by", "we", "you", "your", "our", "can", "must", "may", "not",
]  # fmt: skip
CATEGORIES = ("direct-lookup", "paraphrased", "multi-hop", "injection")
SECTIONS = ("overview", "eligibility", "how-it-works", "fees", "time-limits", "exceptions",
            "contact", "history")  # fmt: skip
TRIALS = 3
RETRIEVED = 20
CUTOFFS = (1, 3, 5, 10)

BASELINE = """
import json, sys
import pytrec_eval
qrels, run = {}, {}
with open(sys.argv[1]) as f:
    for line in f:
        q, _, d, rel = line.split()
        qrels.setdefault(q, {})[d] = int(rel)
with open(sys.argv[2]) as f:
    for line in f:
        q, _, d, _, score, _ = line.split()
        run.setdefault(q, {})[d] = float(score)
measures = set(sys.argv[3].split(";"))
per_query = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
names = next(iter(per_query.values()))
overall = {m: pytrec_eval.compute_aggregated_measure(m, [v[m] for v in per_query.values()])
           for m in names}
sys.stdout.write(json.dumps({"all": overall, "per_query": per_query}))
"""
SET_MEASURES = "success.1,3,5,10;recip_rank;P.1,3,5,10;recall.1,3,5,10;ndcg_cut.1,3,5,10;map"
TREC_MEASURES = "num_q;num_ret;num_rel;num_rel_ret;map;gm_map;Rprec;recip_rank;P;recall;ndcg_cut"


def paragraph(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(WORDS) for _ in range(words))
    return text[0].upper() + text[1:] + "."


def document(rng: random.Random, d: int) -> tuple[str, dict[str, str]]:
    """A markdown document and, per section id, a passage of its rendered text."""
    out = [f"# Topic {d}\n\n{paragraph(rng, 20)}\n"]
    passages: dict[str, str] = {}
    for k, name in enumerate(SECTIONS):
        level = "###" if k in (2, 5) else "##"  # two sections nested in the one before
        title = name.replace("-", " ").capitalize()
        first, second, marked = paragraph(rng, 18), paragraph(rng, 22), rng.choice(WORDS)
        out.append(f"\n{level} {title}\n\n{first} Note **{marked}** well.\n\n{second}\n")
        passages[name] = f"{marked}\n{second}"
    return "".join(out), passages


def make_workspace(root: Path, docs: int, seed: int) -> dict[str, dict[str, str]]:
    from evalset.corpus.snapshot import take_snapshot

    rng = random.Random(seed)
    (root / "corpus").mkdir(parents=True)
    (root / "sets").mkdir()
    (root / "evalset.toml").write_text(
        "store_text = true\n[validate]\nmin_per_category = 0\n", encoding="utf-8"
    )
    passages = {}
    for d in range(docs):
        folder = root / "corpus" / f"area-{d % 50:02d}"
        folder.mkdir(exist_ok=True)
        text, found = document(rng, d)
        (folder / f"doc-{d:05d}.md").write_text(text, encoding="utf-8")
        passages[f"area-{d % 50:02d}/doc-{d:05d}.md"] = found
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    take_snapshot(root, "corpus", root / "snapshots", root / ".evalset", store_text=True)
    return passages


def write_set(root: Path, items: int, docs: list[str], seed: int) -> list[list[str]]:
    """The set file; returns each item's expected citations."""
    from evalset.corpus.manifest import SnapshotStore

    rng = random.Random(seed)
    snapshot = SnapshotStore(root / "snapshots").newest_id()
    assert snapshot is not None
    out = ["evalset: 1\nname: bench\ncategories:\n"]
    out += [f"  {c}: generated\n" for c in CATEGORIES]
    out.append("items:\n")
    expected = []
    syllables = ["ka", "lo", "mi", "re", "su", "ta", "ne", "po", "vi", "da", "fe", "gu"]
    vocabulary = sorted({a + b + c for a in syllables for b in syllables for c in syllables})
    for i in range(items):  # ten words of 1,728: no two are near duplicates
        question = "How do I " + " ".join(rng.sample(vocabulary, 10)) + "?"
        cited = [f"{rng.choice(docs)}#{rng.choice(SECTIONS)}" for _ in range(rng.randint(1, 3))]
        cited = list(dict.fromkeys(cited))
        expected.append(cited)
        listed = ", ".join(cited)
        out.append(
            f"  - id: q-{i:06d}\n    question: {json.dumps(question)}\n"
            f"    category: {CATEGORIES[i % 4]}\n    expected_sources: [{listed}]\n"
            f"    key_points:\n      - text: The fact question {i} asks about\n"
            f"        sources: [{listed}]\n"
            f"    holdout: {'true' if i % 5 == 0 else 'false'}\n"
            f"    verified: {snapshot[:12]}\n"  # checked against it: staleness is judged
        )
    (root / "sets" / "bench.yaml").write_text("".join(out), encoding="utf-8")
    # committed, as a team's set is: validation compares its holdout flags with HEAD's
    identity = ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run(["git", "add", "sets", "evalset.toml"], cwd=root, check=True)
    subprocess.run(["git", *identity, "commit", "-qm", "bench set"], cwd=root, check=True)
    return expected


def write_runs(root: Path, expected: list[list[str]], docs: list[str], seed: int) -> None:
    """The JSONL run (3 trials x 20 citations), and the same as TREC qrels and run."""
    rng = random.Random(seed)
    pool = [f"{d}#{s}" for d in docs for s in SECTIONS]
    lines, qrels, trec = [], [], []
    for i, cited in enumerate(expected):
        for trial in range(TRIALS):
            ranked = rng.sample(pool, RETRIEVED + 3)
            for c in cited:  # found about two times in three, somewhere in the list
                if rng.random() < 0.66 and c not in ranked[:RETRIEVED]:
                    ranked[rng.randrange(RETRIEVED)] = c
            ranked = list(dict.fromkeys(ranked))[:RETRIEVED]
            lines.append(json.dumps({"id": f"q-{i:06d}", "trial": trial, "retrieved": ranked}))
            query = f"q-{i:06d}/{trial}"
            qrels += [f"{query} 0 {c} 1\n" for c in cited]
            trec += [
                f"{query} Q0 {c} {k + 1} {RETRIEVED - k} bench\n" for k, c in enumerate(ranked)
            ]
    (root / "run.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "qrels.txt").write_text("".join(qrels), encoding="utf-8")
    (root / "run.txt").write_text("".join(trec), encoding="utf-8")


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed: {done.stderr.decode()[-2000:]}")
    return elapsed


def paired(ours: list[str], theirs: list[str], cwd: Path, runs: int) -> tuple[float, float]:
    a, b = [], []
    for _ in range(runs):
        a.append(timed(ours, cwd))
        b.append(timed(theirs, cwd))
    return statistics.median(a), statistics.median(b)


def phases(root: Path) -> list[tuple[str, float]]:
    """The library's phases of set-mode scoring, timed one after the other, with the cycle
    collector paused as the command pauses it."""
    from evalset.bulk import bulk

    with bulk():
        return _phases(root)


def _phases(root: Path) -> list[tuple[str, float]]:
    from evalset.config import find_workspace
    from evalset.corpus.manifest import SHORT, SnapshotStore
    from evalset.score.retrieval import Options, _score, _stale
    from evalset.score.runfile import read_run
    from evalset.sets.setfile import load_set
    from evalset.sets.validate import check_set, holdout_baseline
    from evalset.versions.pin import pin_of

    ws = find_workspace(root)
    path = root / "sets" / "bench.yaml"
    out = []
    start = time.perf_counter()
    loaded = load_set(path)
    out.append(("load the set", time.perf_counter() - start))
    store = SnapshotStore(ws.snapshots_dir, state_dir=ws.state_dir)
    start = time.perf_counter()
    check_set(loaded, ws.config.validate, store, holdout_baseline(path, loaded.name, loaded))
    out.append(("validate it", time.perf_counter() - start))
    start = time.perf_counter()
    snap = store.newest()
    stale = _stale(loaded, store, snap, ws.root)
    out.append(("check staleness", time.perf_counter() - start))
    start = time.perf_counter()
    newest = store.newest_id()
    pin = pin_of(loaded, newest[:SHORT] if newest else None)
    out.append(("pin it", time.perf_counter() - start))
    start = time.perf_counter()
    run = read_run(root / "run.jsonl")
    out.append(("read the run", time.perf_counter() - start))
    start = time.perf_counter()
    report = _score(loaded, run, snap, ws.root, lambda: (pin, stale), Options())
    out.append(("score, intervals", time.perf_counter() - start))
    start = time.perf_counter()
    (root / "phases.json").write_text(report.render(), encoding="utf-8")
    out.append(("render, write", time.perf_counter() - start))
    return out


def chunk_run(root: Path, passages: dict[str, dict[str, str]], chunks: int, seed: int) -> int:
    """A set of items and a run of ``chunks`` chunks (10 per item), as retrievers return
    them; returns the number of items."""
    rng = random.Random(seed)
    docs = sorted(passages)
    items = max(1, chunks // 10)
    expected = write_set(root, items, docs, seed)
    lines = []
    for i, cited in enumerate(expected):
        entries = []
        for k in range(10):
            doc, section = (cited[k].split("#") if k < len(cited) else
                            (rng.choice(docs), rng.choice(SECTIONS)))  # fmt: skip
            marked, second = passages[doc][section].split("\n")
            words = second.rstrip(".").split()
            start = rng.randrange(max(1, len(words) - 12))
            text = " ".join(words[start : start + 12])
            kind = rng.random()
            if kind < 0.05:  # cleaned by the retriever: lower case, punctuation gone
                text = text.lower().replace(".", "")
            elif kind < 0.25:  # markdown source, markup and all
                text = f"Note **{marked}** well.\n\n{' '.join(words[:12])}"
            entries.append({"doc": doc, "text": text})
        lines.append(json.dumps({"id": f"q-{i:06d}", "retrieved": entries}))
    (root / "chunks.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return items


def resolve_all(root: Path) -> tuple[float, int, int, dict[str, int]]:
    """Time resolving every chunk of the run with the library's resolver."""
    from collections import Counter

    from evalset.bulk import bulk
    from evalset.config import find_workspace
    from evalset.corpus.manifest import SnapshotStore
    from evalset.corpus.outline import Outlines
    from evalset.score.chunks import Resolver
    from evalset.score.runfile import Chunk, read_run

    ws = find_workspace(root)
    run = read_run(root / "chunks.jsonl")
    chunks = [e for line in run.lines for e in line.retrieved or [] if isinstance(e, Chunk)]
    with bulk():  # the cycle collector paused, as `evalset score` pauses it
        start = time.perf_counter()
        snap = SnapshotStore(ws.snapshots_dir, state_dir=ws.state_dir).newest()
        resolver = Resolver(Outlines(snap, ws.root))
        found = [resolver.resolve(c) for c in chunks]
        elapsed = time.perf_counter() - start
    how = Counter(r.how if r.resolved else "unresolved" for r in found)
    return elapsed, len(chunks), len(snap.documents) if snap else 0, dict(how)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=50_000)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(compile_evalset())
    # The generated workspaces take over a gigabyte: they go when the run ends, however it ends.
    with tempfile.TemporaryDirectory(prefix="evalset-bench-score-") as folder:
        return measure(args, Path(folder))


def measure(args: argparse.Namespace, base: Path) -> int:
    python = sys.executable
    evalset = [python, "-m", "evalset", "score", "retrieval"]
    baseline_py = base / "pytrec_baseline.py"
    baseline_py.write_text(BASELINE, encoding="utf-8")

    small = base / "set-mode"
    passages = make_workspace(small, 2_000, seed=1)
    expected = write_set(small, args.items, sorted(passages), seed=2)
    write_runs(small, expected, sorted(passages), seed=3)
    lines = args.items * TRIALS
    print(f"\n1. set mode: {args.items:,} items x {TRIALS} trials x {RETRIEVED} citations "
          f"({lines * RETRIEVED:,} entries), 2,000-document snapshot")  # fmt: skip
    ours, theirs = paired(
        [*evalset, "bench", "run.jsonl", "-o", "report.json"],
        [python, str(baseline_py), "qrels.txt", "run.txt", SET_MEASURES],
        small,
        args.runs,
    )
    print(f"   pytrec_eval-terrier, whole process (baseline): {theirs:6.2f} s")
    print(f"   evalset score retrieval, whole process:        {ours:6.2f} s = "
          f"{ours / theirs:.2f}x baseline   (target <= 1x)")  # fmt: skip
    for name, seconds in phases(small):
        print(f"     {name:<18} {seconds:6.2f} s")

    print(f"\n2. TREC mode: the same data as TREC files ({lines:,} queries)")
    ours_t, theirs_t = paired(
        [*evalset, "--qrels", "qrels.txt", "--run", "run.txt", "--json"],
        [python, str(baseline_py), "qrels.txt", "run.txt", TREC_MEASURES],
        small,
        args.runs,
    )
    print(f"   pytrec_eval-terrier, whole process (baseline): {theirs_t:6.2f} s")
    print(f"   evalset --qrels --run --json, whole process:   {ours_t:6.2f} s = "
          f"{ours_t / theirs_t:.2f}x baseline   (target <= 1x)")  # fmt: skip

    large = base / "chunks"
    start = time.perf_counter()
    passages = make_workspace(large, args.docs, seed=4)
    items = chunk_run(large, passages, args.chunks, seed=5)
    made = time.perf_counter() - start
    print(f"\n3. chunks: {args.chunks:,} chunks as text ({items:,} items x 10) against a "
          f"{args.docs:,}-document snapshot (generated in {made:.0f} s)")  # fmt: skip
    seconds, count, docs, how = resolve_all(large)
    print(f"   resolving them (library):                      {seconds:6.2f} s for {count:,} "
          f"chunks in {docs:,} documents   (target < 10 s)")  # fmt: skip
    print(f"     how they resolved: {how}")
    whole = statistics.median(
        timed([*evalset, "bench", "chunks.jsonl", "-o", "report.json"], large)
        for _ in range(max(1, args.runs - 2))
    )
    print(f"   evalset score retrieval, whole process:        {whole:6.2f} s")
    ok = ours <= theirs and ours_t <= theirs_t and seconds < 10
    print("\ntargets met" if ok else "\nTARGETS MISSED (see above)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
