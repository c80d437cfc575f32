"""Answer scoring speed: the exact judge over a large run, and a remote judge's throughput.

Run: python bench/answers.py [--items 10000] [--runs 3] [--concurrency 1,4,16,32]

Generates its own data (no downloads): a workspace of 2,000 markdown documents and its
snapshot (as bench/score.py makes them), a set of ``--items`` items (two key points each,
a must_not_say entry on half, a short answer on a third, one in ten unanswerable), and a
run of 3 trials per item whose answers state some key points, in other words or verbatim,
with number words, some declining and some asserting a must_not_say entry.

Measures, in the same run and each next to its baseline:

1. `evalset score answers SET RUN --judge exact -o report.json`, the whole process. Target:
   under 2 s. Baselines: `evalset score retrieval` of the same items (the same set loading,
   validation, pinning and staleness check, then retrieval's scoring), and `evalset validate`
   of the set (what loading and checking the set costs on its own). The library's phases
   are shown too.
2. The openai judge against the fake OpenAI-compatible endpoint of the tests
   (tests/fake_openai.py), run in its own process on the loopback and answering each
   request after 50 ms, at several concurrency limits: requests per second against the bound
   concurrency / latency. Target: within 20% of it.

3. The command judge, with the tests' stub program answering each request after 50 ms
   (``STUB_DELAY``), at the same concurrency limits (copies of the program): requests per
   second against the same bound. Its own start-up (a Python interpreter per copy) is
   counted.

Each timing of 1. is the median of ``--runs`` runs, alternating with its baselines: other
processes share the machine (2 cores here), so single figures are noisy.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evalset.score.judges.base import Judge

sys.path.insert(0, str(Path(__file__).parent))
from _bytecode import compile_evalset
from score import CATEGORIES, SECTIONS, make_workspace, timed

TRIALS = 3
LATENCY = 0.05
NUMBERS = {14: "fourteen", 30: "thirty", 60: "sixty", 7: "seven", 45: "forty-five"}
SERVER = """
import sys, time
sys.path.insert(0, sys.argv[1])
from fake_openai import FakeServer
server = FakeServer()
server.delay = float(sys.argv[2])
with server:
    print(server.url, flush=True)
    sys.stdin.read()
"""


def write_set(root: Path, items: int, docs: list[str], seed: int) -> list[dict[str, object]]:
    from evalset.corpus.manifest import SnapshotStore

    rng = random.Random(seed)
    snapshot = SnapshotStore(root / "snapshots").newest_id()
    assert snapshot is not None
    out = ["evalset: 1\nname: bench\ncategories:\n"]
    out += [f"  {c}: generated\n" for c in CATEGORIES] + ["  refuse: generated\n", "items:\n"]
    syllables = ["ka", "lo", "mi", "re", "su", "ta", "ne", "po", "vi", "da", "fe", "gu"]
    vocabulary = sorted({a + b + c for a in syllables for b in syllables for c in syllables})
    facts = []
    for i in range(items):
        question = "How do I " + " ".join(rng.sample(vocabulary, 10)) + "?"
        days = rng.choice(list(NUMBERS))
        item: dict[str, object] = {"days": days, "answerable": i % 10 != 9}
        head = f"  - id: q-{i:06d}\n    question: {json.dumps(question)}\n"
        tail = f"    holdout: {'true' if i % 5 == 0 else 'false'}\n    verified: {snapshot[:12]}\n"
        if not item["answerable"]:
            out.append(head + "    category: refuse\n    answerable: false\n" + tail)
            facts.append(item)
            continue
        cited = f"{rng.choice(docs)}#{rng.choice(SECTIONS)}"
        words = rng.sample(vocabulary, 4)
        item["points"] = [f"Items of kind {words[0]} can be sent back within {days} days",
                          f"A {words[1]} {words[2]} label is required"]  # fmt: skip
        item["wrong"] = f"{words[3]} orders are never refunded" if i % 2 else None
        out.append(
            head + f"    category: {CATEGORIES[i % 4]}\n    expected_sources: [{cited}]\n"
            "    key_points:\n"
            + "".join(f"      - text: {p}\n        sources: [{cited}]\n" for p in item["points"])
            + (f"    must_not_say:\n      - {item['wrong']}\n" if item["wrong"] else "")
            + (f"    answer: {days} days\n" if i % 3 == 0 else "")
            + tail
        )
        facts.append(item)
    (root / "sets" / "bench.yaml").write_text("".join(out), encoding="utf-8")
    return facts


def write_run(root: Path, facts: list[dict[str, object]], seed: int) -> None:
    rng = random.Random(seed)
    lines = []
    for i, item in enumerate(facts):
        for trial in range(TRIALS):
            if not item["answerable"]:
                answer = rng.choice(["I don't know.", "It is sunny today."])
            elif rng.random() < 0.1:
                answer = "I'm sorry, I could not find that in the documents."
            else:
                points = list(item["points"])  # type: ignore[call-overload]
                said = [p for p in points if rng.random() < 0.7]
                text = " ".join(f"{p}." for p in said) or "Please contact us."
                if rng.random() < 0.5:  # a number in words
                    text = text.replace(f"{item['days']} days", f"{NUMBERS[item['days']]} days")  # type: ignore[index]
                if item.get("wrong") and rng.random() < 0.1:
                    text += f" Note that {item['wrong']}."
                answer = text
            line = {"id": f"q-{i:06d}", "trial": trial, "answer": answer}
            lines.append(json.dumps(line))
    (root / "run.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def phases(root: Path) -> list[tuple[str, float]]:
    from evalset.config import find_workspace
    from evalset.corpus.manifest import SHORT, SnapshotStore
    from evalset.score import answers
    from evalset.score.judges.exact import ExactJudge
    from evalset.score.judges.runner import Judging
    from evalset.score.retrieval import require_valid, stale_items
    from evalset.score.runfile import read_run
    from evalset.sets.setfile import load_set
    from evalset.versions.pin import pin_of

    ws = find_workspace(root)
    path = root / "sets" / "bench.yaml"
    out = []
    start = time.perf_counter()
    loaded = load_set(path)
    out.append(("load the set", time.perf_counter() - start))
    store = SnapshotStore(ws.snapshots_dir, state_dir=ws.state_dir)
    start = time.perf_counter()
    require_valid(loaded, ws, store, path)
    out.append(("validate it", time.perf_counter() - start))
    start = time.perf_counter()
    snap = store.newest()
    stale = stale_items(loaded, store, snap, ws.root)
    newest = store.newest_id()
    pin_of(loaded, newest[:SHORT] if newest else None)
    out.append(("staleness and pin", time.perf_counter() - start))
    start = time.perf_counter()
    run = read_run(root / "run.jsonl")
    rows, _ = answers._rows(run, loaded, False)
    out.append(("read the run", time.perf_counter() - start))
    start = time.perf_counter()
    judging = Judging(ExactJudge())
    answers._judge(rows, judging)
    out.append((f"judge ({judging.usage.calls} decisions)", time.perf_counter() - start))
    start = time.perf_counter()
    from evalset.score.answer_report import build_report
    from evalset.score.answers import AnswerOptions

    report = build_report(
        loaded, run, rows, __import__("collections").Counter(), snap.short if snap else None,
        lambda: ({}, stale), judging, None, None, None, AnswerOptions(),
    )  # fmt: skip
    report.render()
    out.append(("aggregate and render", time.perf_counter() - start))
    return out


def rate(judge: Judge, requests_per: float) -> tuple[int, int, float]:
    """(concurrency, requests, requests per second) of ``judge`` asked about as many
    requests as ``requests_per`` seconds at its bound allow (at least 20); closes it."""
    from evalset.score.judges.base import Request
    from evalset.score.judges.runner import Judging

    c = judge.concurrency
    n = max(int(c / LATENCY * requests_per), 20)
    requests = [Request("entails", f"text {c} {k}", f"text {c} {k}") for k in range(n)]
    start = time.perf_counter()
    Judging(judge).run(requests)
    elapsed = time.perf_counter() - start
    judge.close()
    return c, n, n / elapsed


def throughput(concurrency: list[int], requests_per: float) -> list[tuple[int, int, float]]:
    """(concurrency, requests, requests per second) of the openai judge on the fake server."""
    from evalset.score.judges.openai_chat import OpenAIJudge, OpenAISettings

    tests = Path(__file__).resolve().parent.parent / "tests"
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(tests), str(LATENCY)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert server.stdout is not None and server.stdin is not None
    url = server.stdout.readline().strip()
    os.environ["BENCH_KEY"] = "sk-bench"
    found = []
    try:
        for c in concurrency:
            settings = OpenAISettings(model="fake", base_url=url, api_key_env="BENCH_KEY",
                                      concurrency=c, retries=0)  # fmt: skip
            judge = OpenAIJudge(settings, Path.cwd())
            judge.entails("warm", "warm")  # the connection pool's first connection
            found.append(rate(judge, requests_per))
    finally:
        server.stdin.close()
        server.wait(timeout=10)
    return found


def command_throughput(concurrency: list[int], requests_per: float) -> list[tuple[int, int, float]]:
    """(concurrency, requests, requests per second) of the command judge running that many
    copies of the tests' stub program, each answering after ``LATENCY``."""
    from evalset.score.judges.command import CommandJudge

    stub = Path(__file__).resolve().parent.parent / "tests" / "score" / "data" / "stub_judge.py"
    os.environ["STUB_DELAY"] = str(LATENCY)
    found = []
    try:
        for c in concurrency:
            judge = CommandJudge([sys.executable, str(stub)], Path.cwd(), concurrency=c)
            found.append(rate(judge, requests_per))
    finally:
        del os.environ["STUB_DELAY"]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--concurrency", default="1,4,16,32")
    parser.add_argument("--seconds", type=float, default=2.0, help="per concurrency level")
    args = parser.parse_args()
    print(compile_evalset())
    evalset = str(Path(sys.executable).with_name("evalset"))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        start = time.perf_counter()
        passages = make_workspace(root, 2000, seed=1)
        facts = write_set(root, args.items, sorted(passages), seed=2)
        write_run(root, facts, seed=3)
        retrieval_run = root / "retrieval.jsonl"
        pool = [f"{d}#{s}" for d in sorted(passages) for s in SECTIONS]
        rng = random.Random(4)
        retrieval_run.write_text("".join(
            json.dumps({"id": f"q-{i:06d}", "trial": t, "retrieved": rng.sample(pool, 5)}) + "\n"
            for i, item in enumerate(facts) if item["answerable"] for t in range(TRIALS)
        ), encoding="utf-8")  # fmt: skip
        print(f"data: {args.items} items x {TRIALS} trials, generated in "
              f"{time.perf_counter() - start:.1f} s")  # fmt: skip
        ours = [evalset, "score", "answers", "bench", "run.jsonl", "--judge", "exact", "-o",
                "answers.json"]  # fmt: skip
        retrieval = [evalset, "score", "retrieval", "bench", "retrieval.jsonl", "-o", "r.json"]
        validate = [evalset, "validate", "bench"]
        timings: dict[str, list[float]] = {"answers": [], "retrieval": [], "validate": []}
        for _ in range(args.runs):
            timings["answers"].append(timed(ours, root))
            timings["retrieval"].append(timed(retrieval, root))
            timings["validate"].append(timed(validate, root))
        a, r, v = (statistics.median(timings[k]) for k in ("answers", "retrieval", "validate"))
        print(f"\n1. score answers --judge exact, {args.items} items x {TRIALS} trials, whole "
              f"process (median of {args.runs}):")  # fmt: skip
        print(f"   evalset score answers        {a:6.2f} s   (target < 2 s)")
        print(f"   evalset score retrieval      {r:6.2f} s   baseline: the same set, retrieval")
        print(
            f"   evalset validate             {v:6.2f} s   baseline: loading and checking the set"
        )
        report = json.loads((root / "answers.json").read_text())
        overall = {
            k: round(e["value"], 3) for k, e in report["overall"].items() if e["value"] is not None
        }
        print(f"   overall: {overall}")
        print("   library phases:")
        for name, seconds in phases(root):
            print(f"     {name:<28} {seconds:6.2f} s")
    levels = [int(c) for c in args.concurrency.split(",")]
    print(
        f"\n2. the openai judge against the fake endpoint answering after {LATENCY * 1000:.0f} ms:"
    )
    print("   concurrency  requests  requests/s  bound c/latency  share of the bound")
    for c, n, rate in throughput(levels, args.seconds):
        bound = c / LATENCY
        print(f"   {c:>11}  {n:>8}  {rate:>10.1f}  {bound:>15.1f}  {rate / bound:>17.0%}")
    print(f"\n3. the command judge, copies of a program answering after {LATENCY * 1000:.0f} ms:")
    print("   copies       requests  requests/s  bound c/latency  share of the bound")
    for c, n, rate in command_throughput(levels, args.seconds):
        bound = c / LATENCY
        print(f"   {c:>11}  {n:>8}  {rate:>10.1f}  {bound:>15.1f}  {rate / bound:>17.0%}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
