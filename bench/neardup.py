"""Near-duplicate questions: 50,000 generated questions with 2% planted near duplicates.

Run: python bench/neardup.py

Plants are copies of random questions with a case/punctuation change plus one or two word
edits (insert, delete, substitute, swap neighbours). Baseline, measured in the same run:
all-pairs comparison with rapidfuzz (process.cdist, all cores) on a 5,000-question sample,
extrapolated to the full size (it grows with the square of the count). Targets: under 10 s,
recall >= 0.95 on the plants, few unplanted pairs.
"""

from __future__ import annotations

import random
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _cli import takes_no_options
from _data import perturb, questions
from evalset.sets.neardup import allowed_distance, near_duplicate_pairs, normalise

TOTAL = 50_000
PLANTED_SHARE = 0.02


def main() -> int:
    takes_no_options(__doc__)
    rng = random.Random(3)
    n_plants = int(TOTAL * PLANTED_SHARE)
    base = questions(TOTAL - n_plants, seed=5)
    plants: set[tuple[int, int]] = set()
    corpus = list(base)
    for _ in range(n_plants):
        original = rng.randrange(len(base))
        corpus.append(perturb(base[original], rng, edits=rng.choice([1, 2])))
        plants.add((original, len(corpus) - 1))

    from rapidfuzz import fuzz, process

    sample = [normalise(q) for q in corpus[:5_000]]
    start = time.perf_counter()
    process.cdist(sample, sample, scorer=fuzz.ratio, score_cutoff=85, workers=-1)
    sample_time = time.perf_counter() - start
    baseline = sample_time * (TOTAL / len(sample)) ** 2

    start = time.perf_counter()
    found = set(near_duplicate_pairs(corpus))
    elapsed = time.perf_counter() - start
    # Memory in a second, untimed pass: tracing allocations slows Python down several times.
    tracemalloc.start()
    near_duplicate_pairs(corpus)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    recall = len(found & plants) / len(plants)
    unplanted = found - plants
    # Plants of plants' originals pair with each other too; those are true near duplicates.
    originals = {a for a, _ in plants}
    sibling = {(a, b) for a, b in unplanted if a >= len(base) or b >= len(base) or a in originals}
    coincidental = unplanted - sibling
    print(f"questions: {TOTAL:,} ({len(plants):,} planted near duplicates)")
    print(
        f"baseline all-pairs rapidfuzz: {sample_time:.2f} s on 5,000 -> ~{baseline:.0f} s "
        f"estimated for {TOTAL:,}"
    )
    print(
        f"evalset near-duplicate check: {elapsed:.2f} s = {elapsed / baseline:.3f}x baseline "
        f"(target < 10 s), peak traced memory {peak / 1e6:.0f} MB"
    )
    print(f"recall on plants: {recall:.3f} (target >= 0.95)")
    print(
        f"unplanted pairs: {len(unplanted)} ({len(sibling)} among plants of one original, "
        f"{len(coincidental)} coincidental generated questions within "
        f"{allowed_distance(12)} word edits)"
    )
    for a, b in sorted(coincidental)[:3]:
        print(f"  e.g. {corpus[a]!r} ~ {corpus[b]!r}")
    ok = elapsed < 10 and recall >= 0.95
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
