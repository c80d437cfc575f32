"""No command shows a holdout item's labels where the people tuning prompts read.

Terminal and CI logs, pull-request comments (``--format md``), ``--json``, report files,
HTML pages and exports of the tuning split all reach them. The workspace here is the
example with every label of each holdout item marked (``LEAKMARK_<field>_<id>``: question,
key points and their sources, expected sources, must_not_say, answer, provenance); each
command runs in each of its output forms, on the plain set and on the sealed set with and
without the key, and no marker may appear in what it prints or writes.

Not leaks, and so not checked here: the set file itself, which `new`, `seal`, `unseal` and
edits write; `export --split holdout` and `--split all`, which ask for the holdout (used
below to show the markers are readable at all); and citations in `stale` and `verify`,
which a maintainer needs to re-check them (README, `evalset stale`). A holdout item's
citations are also named by `validate` findings about them, for the same reason.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pyrage import x25519

from conftest import ROOT, commit_all, git, make_git_repo
from evalset.sets.editor import edit_set
from evalset.sets.setfile import load_set

NAME = "acme-support"
MARK = re.compile(r"leakmark_([a-z0-9]+)_(q-\d+)", re.IGNORECASE)
SOURCE = "src"
"""The marker kind of a citation: section names carry it (`leak.md#leakmark_src_q-004`)."""
MODES = ("plain", "sealed-with-key", "sealed-without-key")

ECHO_JUDGE = """\
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    said = request.get("claim") or request.get("text") or ""
    print(json.dumps({"id": request["id"], "error": "cannot judge: " + said}), flush=True)
"""
"""A judge whose every failure quotes what it was asked, as a model's reply can."""


def _evalset(repo: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "EVALSET_AGE_IDENTITY"}
    done = subprocess.run([sys.executable, "-m", "evalset", *args], cwd=repo, env=env,
                          capture_output=True, text=True, check=True)  # fmt: skip
    return done.stdout


def _mark(path: Path, snapshot: str) -> list[Any]:
    """Put a marker into every label of every holdout item; they cite their own section of
    leak.md besides their own sources, and were verified against ``snapshot``."""
    held = [item for item in load_set(path).items if item.holdout]
    with edit_set(path) as editor:
        for item in held:
            i = item.id
            own = [f"leak.md#leakmark_src_{i}"] if item.answerable else []
            points = [
                {"text": f"LEAKMARK_kp{n}_{i} {p.text}", "sources": [*map(str, p.sources), *own]}
                for n, p in enumerate(item.key_points)
            ]
            editor.update_item(i, {
                "question": f"{item.question} LEAKMARK_question_{i}",
                "expected_sources": [*map(str, item.expected_sources), *own],
                "key_points": points,
                "must_not_say": [f"LEAKMARK_mns{n}_{i} {t}"
                                 for n, t in enumerate(item.must_not_say or ["it is free"])],
                "answer": f"LEAKMARK_answer_{i} {item.answer or 'no'}",
                "origin": {"kind": "production", "trace": f"LEAKMARK_trace_{i}",
                           "observed_answer": f"LEAKMARK_observed_{i}",
                           "note": f"LEAKMARK_note_{i}", "retrieved": [f"LEAKMARK_retrieved_{i}"]},
                "verified": snapshot,
            })  # fmt: skip
    return [item for item in load_set(path).items if item.holdout]


def _build(repo: Path) -> list[Any]:
    """The example workspace, its holdout items marked and stale: the section each cites
    in leak.md changed (q-004, …), was deleted (q-009) or renamed with its text (q-012)."""
    make_git_repo(repo)
    for folder in ("corpus", "sets", "snapshots"):
        shutil.copytree(ROOT / folder, repo / folder)
    config = 'sets = "sets"\ncorpus = "corpus"\nsnapshots = "snapshots"\n[split]\nratio = 0.2\n'
    (repo / "evalset.toml").write_text(config, "utf-8")
    (repo / ".gitignore").write_text("/.evalset/\n", "utf-8")
    ids = [item.id for item in load_set(repo / "sets" / f"{NAME}.yaml").items if item.holdout]
    leak = "# Leak\n\n" + "".join(f"## LEAKMARK_src_{i}\n\n{i}, first wording.\n\n" for i in ids)
    (repo / "corpus" / "leak.md").write_text(leak, "utf-8")
    snapshot = json.loads(_evalset(repo, "snapshot", "--json"))["snapshot"]
    held = _mark(repo / "sets" / f"{NAME}.yaml", snapshot)
    commit_all(repo, "holdout marked")
    leak = leak.replace("## LEAKMARK_src_q-012", "## Renamed").replace("first", "second")
    leak = leak.replace("q-012, second", "q-012, first")
    leak = re.sub(r"## LEAKMARK_src_q-009\n\n.*?\n\n", "", leak)
    (repo / "corpus" / "leak.md").write_text(leak, "utf-8")
    _evalset(repo, "snapshot")
    commit_all(repo, "leak.md changed")
    return held


def _inputs(folder: Path, held: list[Any]) -> None:
    """What commands read besides the workspace: a run, labels (the holdout's claims first,
    where the text lists disagreements), failures and rows that repeat holdout questions,
    the judge that quotes, and the three sides of a merge that conflicts in q-004."""
    folder.mkdir()
    shutil.copy(ROOT / "examples" / "runs" / f"{NAME}-bm25.jsonl", folder / "run.jsonl")
    shutil.copy(ROOT / "examples" / "runs" / f"{NAME}-hybrid.jsonl", folder / "run2.jsonl")
    example = list(csv.reader(io.StringIO((ROOT / "examples/labels/acme-support.csv").read_text())))
    ours = [[i.id, "An answer.", p.text, "yes"] for i in held for p in i.key_points]
    out = io.StringIO()
    csv.writer(out).writerows([example[0], *ours, *example[1:]])
    (folder / "labels.csv").write_text(out.getvalue(), "utf-8")
    plain = [i.question.rsplit(" LEAKMARK_", 1)[0] for i in held]
    (folder / "failures.jsonl").write_text("".join(
        json.dumps({"question": q, "trace": f"t-{n}", "answer": "one year",
                    "category": "direct-lookup"}) + "\n" for n, q in enumerate(plain)
    ), "utf-8")  # fmt: skip
    (folder / "rows.jsonl").write_text("".join(
        json.dumps({"inputs": {"question": q}, "reference_outputs": {"answer": "x"}}) + "\n"
        for q in plain
    ), "utf-8")  # fmt: skip
    (folder / "judge.py").write_text(ECHO_JUDGE, "utf-8")


@pytest.fixture(scope="module")
def spaces(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The plain workspace, the sealed one (a copy, sealed and committed), the key, inputs."""
    root = tmp_path_factory.mktemp("leaks")
    plain = root / "plain"
    held = _build(plain)
    _inputs(root / "in", held)
    identity = x25519.Identity.generate()
    key = root / "holdout.key"
    key.write_text(f"{identity}\n", "utf-8")
    sealed = root / "sealed"
    shutil.copytree(plain, sealed)
    _evalset(sealed, "seal", NAME, "-r", str(identity.to_public()))
    commit_all(sealed, "sealed")
    set_text = (plain / "sets" / f"{NAME}.yaml").read_text("utf-8")
    answer = next(line for line in set_text.splitlines() if "LEAKMARK_answer_q-004" in line)
    for side in ("ours", "theirs"):
        (root / "in" / f"{side}.yaml").write_text(set_text.replace(answer, f"{answer} {side}"))
    (root / "in" / "base.yaml").write_text(set_text)
    return {"plain": plain, "sealed": sealed, "key": key, "in": root / "in", "held": held}


@pytest.fixture
def space(  # type: ignore[no-untyped-def]
    request: pytest.FixtureRequest, spaces: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    """The workspace of a mode, restored after the test to its last commit."""
    mode = request.param
    repo = spaces["plain" if mode == "plain" else "sealed"]
    if mode == "sealed-with-key":
        monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(spaces["key"]))
    else:
        monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    yield repo
    git(repo, "reset", "-q", "--hard")
    git(repo, "clean", "-fdq")
    for tag in git(repo, "tag").split():
        git(repo, "tag", "-d", tag)


RUN, RUN2, LABELS = "{in}/run.jsonl", "{in}/run2.jsonl", "{in}/labels.csv"
JUDGE = "command:{python} {in}/judge.py"
MD, JSON = ("--format", "md"), ("--json",)
SCORE_R = ("score", "retrieval", NAME, RUN, "--allow-stale")
SCORE_A = ("score", "answers", NAME, RUN, "--allow-stale")

COMMANDS: dict[str, list[tuple[str, ...]]] = {
    "validate": [("validate",), ("validate", *JSON)],
    "status": [("status", "--coverage"), ("status", "--coverage", *JSON)],
    "stale": [("stale",), ("stale", *MD), ("stale", *JSON), ("stale", "--judge", "exact"),
              ("stale", "--judge", JUDGE), ("stale", "--judge", JUDGE, *JSON),
              ("stale", "--judge", JUDGE, *MD), ("stale", "--fix-moved")],
    "verify": [("verify", NAME, "q-004", "q-015"), ("verify", NAME, "--all", *JSON)],
    "snapshot": [("snapshot",), ("snapshot", *JSON)],
    "pin": [("pin", NAME), ("pin", NAME, *JSON)],
    "diff": [("diff", NAME, "HEAD~2"), ("diff", NAME, "HEAD~2", *MD),
             ("diff", NAME, "HEAD~2", *JSON)],
    "log": [("log", NAME), ("log", NAME, *JSON)],
    "release": [("release", NAME, "--bump", "patch"), ("release", NAME, "--bump", "patch", *JSON)],
    "new": [("new", NAME, "-q", "{question}", "--category", "direct-lookup"),
            ("new", NAME, "-q", "{question}", *JSON)],
    "retire": [("retire", NAME, "q-004", "--reason", "gone"),
               ("retire", NAME, "q-004", "--reason", "gone", *JSON)],
    "split": [("split", NAME, "--dry-run"), ("split", NAME, "--dry-run", *JSON),
              ("split", NAME, "--move", "q-004", "--to", "tuning", "--force", "--reason", "x"),
              ("split", NAME, "--move", "q-009", "--to", "tuning", "--force", *JSON)],
    "export": [("export", NAME, "--format", fmt, "--allow-stale", *rest)
               for fmt in ("jsonl", "csv", "ragas", "promptfoo", "deepeval", "langsmith")
               for rest in ((), ("-o", "{out}/export." + fmt, *JSON))],
    "import": [("import", "{in}/rows.jsonl", "--set", NAME, "--format", "langsmith", *rest)
               for rest in (("--dry-run",), (*JSON,), ())],
    "promote": [("promote", "{in}/failures.jsonl", "--set", NAME, *rest)
                for rest in (("--dry-run",), (*JSON,), ())],
    "score retrieval": [SCORE_R, (*SCORE_R, *MD), (*SCORE_R, *JSON),
                        (*SCORE_R, "-o", "{out}/r.json", "--html", "{out}/r.html")],
    "score answers": [(*SCORE_A, "--judge", j, *rest)
                      for j in ("exact", JUDGE)
                      for rest in ((), MD, JSON, ("--labels", LABELS),
                                   ("-o", "{out}/a.json", "--html", "{out}/a.html"))],
    "agreement": [("agreement", LABELS, "--judge", j, *rest)
                  for j in ("exact", JUDGE) for rest in ((), (*JSON, "-o", "{out}/ag.json"))],
    "gate, accept, check-pin": [
        (*SCORE_R, "-o", "reports/run.json"),
        ("score", "retrieval", NAME, RUN2, "--allow-stale", "-o", "reports/run2.json"),
        ("gate", "reports/run.json", "reports/run2.json"),
        ("gate", "reports/run.json", "reports/run2.json", *JSON),
        ("accept", "reports/run.json"), ("accept", "reports/run.json", *JSON),
        ("gate", "reports/run2.json"), ("check-pin", "reports/run.json"),
        ("check-pin", "reports/run.json", *JSON),
    ],
    "merge-driver": [("merge-driver", "{out}/base.yaml", "{out}/ours.yaml",
                      "{out}/theirs.yaml", f"sets/{NAME}.yaml")],
    "schema": [("schema",)],
}  # fmt: skip
"""Each command's runs, in every output form it has; a run that writes a file writes it in
``{out}`` (read afterwards), or in the workspace (``reports/``, read too)."""


def _leaks(texts: dict[str, str], allowed: set[str]) -> list[str]:
    return sorted({f"{where}: {m.group(0)}" for where, text in texts.items()
                   for m in MARK.finditer(text) if m.group(1).lower() not in allowed})  # fmt: skip


@pytest.mark.parametrize("space", MODES, indirect=True)
@pytest.mark.parametrize("command", COMMANDS)
def test_no_holdout_label_reaches_output(  # type: ignore[no-untyped-def]
    cli, space: Path, spaces: dict[str, Any], command: str, tmp_path: Path
) -> None:
    allowed = {SOURCE} if command in ("stale", "verify") else set()
    values = {"in": str(spaces["in"]), "out": str(tmp_path), "python": sys.executable,
              "question": spaces["held"][0].question.rsplit(" LEAKMARK_", 1)[0]}  # fmt: skip
    for side in ("base", "ours", "theirs"):
        shutil.copy(spaces["in"] / f"{side}.yaml", tmp_path / f"{side}.yaml")
    found = []
    for template in COMMANDS[command]:
        args = [a.format(**values) for a in template]
        before = set(tmp_path.iterdir())
        done = cli(space, *args)
        assert done.code in (0, 1, 2), (args, done.err)  # never an internal error
        texts = {"stdout": done.out, "stderr": done.err}
        written = [p for p in tmp_path.iterdir() if p not in before or p.suffix != ".yaml"]
        written += list((space / "reports").rglob("*.json")) if (space / "reports").is_dir() else []
        texts.update({str(p): p.read_text("utf-8", "replace") for p in written if p.is_file()})
        found += [f"{' '.join(args)}: {leak}" for leak in _leaks(texts, allowed)]
        git(space, "checkout", "-q", "--", "sets")  # what an edit wrote is the set file itself
    assert not found, "\n".join(found)


@pytest.mark.parametrize("space", MODES[:2], indirect=True)
def test_the_markers_are_readable_where_the_holdout_is_asked_for(  # type: ignore[no-untyped-def]
    cli, space: Path
) -> None:
    """The check above can fail: every kind of marker is in `export --split holdout`."""
    done = cli(space, "export", NAME, "--split", "holdout", "--format", "jsonl", "--allow-stale")
    assert done.code == 0, done.err
    kinds = {m.group(1).lower() for m in MARK.finditer(done.out)}
    assert kinds >= {"question", "kp0", "kp1", "mns0", "answer", "trace", "observed", "note",
                     "retrieved", SOURCE}, kinds  # fmt: skip


@pytest.mark.parametrize("space", MODES[:1], indirect=True)
def test_a_schema_error_in_a_holdout_item_does_not_quote_it(cli, space: Path) -> None:  # type: ignore[no-untyped-def]
    """Findings go to CI logs: where a holdout item's label has the wrong type, the file,
    line and column say where, and the value is not quoted; a tuning item's still is."""
    path = space / "sets" / f"{NAME}.yaml"
    text = path.read_text("utf-8")
    text = re.sub(r"(?m)^    must_not_say:\n      - (LEAKMARK_mns0_q-004 .*)$",
                  r"    must_not_say: \1", text)  # fmt: skip
    text = re.sub(r"(?m)^    answer: (LEAKMARK_answer_q-009 .*)$", r"    answer: [\1]", text)
    at = text.index("      trace: LEAKMARK_trace_q-020")  # origin: text; the rest, unknown
    start = text.rindex("    origin:\n", 0, at)
    text = (
        text[:start]
        + "    origin: LEAKMARK_note_q-020 seen\n    provenance:\n"
        + text[start + 12 :]
    )
    text = text.replace(
        "    must_not_say:\n      - you have 30 days to return any item\n",
        "    must_not_say: you have 30 days to return any item\n",
    )  # q-002: tuning
    path.write_text(text, "utf-8")
    for args in (
        ("validate",),
        ("validate", *JSON),
        ("export", NAME, "--format", "jsonl"),
        ("score", "retrieval", NAME, str(ROOT / "examples/runs/acme-support-bm25.jsonl")),
    ):
        done = cli(space, *args)
        assert done.code in (1, 2) and "error" in done.out + done.err, (args, done.err)
        assert not MARK.search(done.out + done.err), (args, done.out + done.err)
    text = cli(space, "validate").out
    hidden = "got text (a holdout item: not shown)"
    assert f"item q-004: must_not_say: error: expected a list, {hidden}" in text
    assert "item q-009: answer: error: expected text, got a list" in text
    assert "item q-020: origin: error: expected a mapping of fields, got text (a holdout" in text
    assert "q-002: must_not_say: error: expected a list, got text ('you have 30 days" in text


@pytest.mark.parametrize("space", MODES[:1], indirect=True)
def test_what_stands_in_for_hidden_labels(  # type: ignore[no-untyped-def]
    cli, space: Path, spaces: dict[str, Any]
) -> None:
    """Where a label is hidden, the output says so, and a tuning item's stays readable."""
    labels, judge = (
        str(spaces["in"] / "labels.csv"),
        f"command:{sys.executable} {spaces['in']}/judge.py",
    )
    done = cli(space, "agreement", labels, "--judge", "exact")
    assert "line 2 q-004: judge no, person yes: (a holdout item: not shown)" in done.out, done.out
    found = json.loads(cli(space, "agreement", labels, "--judge", "exact", "--json").out)
    first = found["disagreements"][0]
    assert first["id"] == "q-004" and first["claim"] is None and first["hidden"] is True
    assert any(d["claim"] == "A photo of the damage is required" for d in found["disagreements"])
    failed = json.loads(cli(space, "agreement", labels, "--judge", judge, "--json").out)["errors"]
    assert failed[0]["error"] == "the judge failed (what it said is not shown for a holdout item)"
    assert any(e["error"].startswith("cannot judge: ") for e in failed)  # a tuning item's
    done = cli(space, "stale", "--judge", judge)
    hidden = "not checked (the judge failed (what it said is not shown for a holdout item))"
    assert f"key point 1: {hidden}" in done.out, done.out
    assert "(cannot judge: Standard shipping is free" in done.out  # a tuning item's
    # The judge decided no labelled claim at all: the report says so rather than failing.
    run = str(spaces["in"] / "run.jsonl")
    done = cli(
        space, "score", "answers", NAME, run, "--allow-stale", "--judge", judge, "--labels", labels
    )
    assert done.code == 1 and "agreement with people: not measured, the judge decided none of" \
        in done.out, done.err  # fmt: skip


@pytest.mark.parametrize("flag", ["true", "yes"])
def test_a_holdout_label_that_is_a_number_or_true_false_is_not_quoted(  # type: ignore[no-untyped-def]
    cli, example: Path, flag: str
) -> None:
    """Before, `expected text, got a number (72)` quoted a holdout item's answer: a number is
    a common answer. Text, numbers and true/false alike are named by their kind only, in an
    item held out or meant to be (`holdout: yes`, which the schema refuses); a tuning item's
    stay readable."""
    path = example / "sets" / "acme-support.yaml"
    text = path.read_text("utf-8")
    text = text.replace(
        "    answer: two years\n    holdout: true\n", f"    answer: 72413\n    holdout: {flag}\n", 1
    )  # q-004, holdout
    text = text.replace("      - the guarantee lasts one year\n", "      - 48517\n", 1)
    text = text.replace(
        "      - text: Every product has a two-year legal guarantee of conformity from delivery\n",
        "      - text: true\n",
        1,
    )
    text = text.replace("    answer: 30 days\n", "    answer: 30713\n", 1)  # q-001, tuning
    path.write_text(text, "utf-8")
    for args in (
        ("validate",),
        ("validate", "--json"),
        ("export", "acme-support", "--format", "jsonl"),
    ):
        done = cli(example, *args)
        said = done.out + done.err
        assert done.code in (1, 2) and "72413" not in said and "48517" not in said, said
        assert "true/false (true)" not in said
    said = cli(example, "validate").out
    hidden = "(a holdout item: not shown)"
    assert f"item q-004: answer: error: expected text, got a number {hidden}" in said
    assert f"item q-004: must_not_say[0]: error: expected text, got a number {hidden}" in said
    assert f"item q-004: key_points[0].text: error: expected text, got true/false {hidden}" in said
    assert "item q-001: answer: error: expected text, got a number (30713)" in said
