"""Every command over a corpus of hostile inputs (tests/data/hostile/, described by its
cases.toml): exit 1 or 2 (0 only where a command merely shows an invalid set), one sentence
on stderr, no traceback or internal error, nothing a hostile input holds leaked into a
message, and every file as it was after a command that refused (exit 2).

New commands join the table of their input kind in COMMANDS; new inputs join cases.toml."""

from __future__ import annotations

import shutil
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT, commit_all, make_git_repo

HOSTILE = Path(__file__).resolve().parent / "data" / "hostile"
CASES = tomllib.loads((HOSTILE / "cases.toml").read_text(encoding="utf-8"))["case"]

SET = "sets/hostile.yaml"
"""Where a hostile set file is put in the workspace."""
GOOD_FAILURES = '{"question": "Can I pay for a gift card with a voucher?", "trace": "t-1"}\n'
GOOD_ROWS = '{"question": "Can I pay for a gift card with a voucher?"}\n'
GOOD_ANSWERS = '{"id": "q-1", "answer": "You can."}\n'
GOOD_RUN = '{"id": "q-1", "retrieved": ["policies/returns.md"]}\n'
GOOD_LABELS = "id,answer,claim,label\nq-1,You can.,You can,yes\n"
KEY = "age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p"

COMMANDS: dict[str, list[list[str]]] = {
    # {input} is the hostile file's place in the workspace.
    "set": [
        ["validate", "{input}"],
        ["validate", "{input}", "--json"],
        ["validate"],
        ["validate", "--skip-sealed"],
        ["status"],
        ["status", "--coverage", "--json"],
        ["stale", "{input}"],
        ["stale", "{input}", "--skip-sealed"],
        ["stale", "--fix-moved"],
        ["verify", "{input}", "q-1"],
        ["verify", "{input}", "--all"],
        ["split", "{input}"],
        ["split", "{input}", "--dry-run", "--json"],
        ["split", "{input}", "--move", "q-1", "--to", "holdout", "--force"],
        ["seal", "{input}", "--recipient", KEY],
        ["unseal", "{input}"],
        ["export", "{input}", "--format", "jsonl"],
        ["export", "{input}", "--format", "jsonl", "--allow-stale"],
        ["export", "{input}", "--split", "all", "--format", "ragas", "-o", "out.jsonl"],
        ["release", "{input}", "--bump", "minor"],
        ["pin", "{input}"],
        ["diff", "{input}", "HEAD"],
        ["log", "{input}"],
        ["new", "{input}", "--question", "Can I pay for a gift card with a voucher?"],
        ["retire", "{input}", "q-1", "--reason", "superseded"],
        ["promote", "good-failures.jsonl", "--set", "{input}"],
        ["import", "good-rows.jsonl", "--set", "{input}", "--format", "jsonl"],
        ["score", "retrieval", "{input}", "good-run.jsonl"],
        ["score", "answers", "{input}", "good-answers.jsonl", "--judge", "exact"],
        ["agreement", "good-labels.csv", "--judge", "exact", "--set", "{input}"],
        ["stale", "{input}", "--judge", "exact"],
    ],
    "failures": [
        ["promote", "{input}", "--set", "acme-support"],
        ["promote", "{input}", "--set", "acme-support", "--dry-run", "--json"],
        ["promote", "{input}", "--set", "acme-support", "--skip-invalid"],
    ],
    "rows": [
        ["import", "{input}", "--set", "acme-support", "--format", "jsonl"],
        ["import", "{input}", "--set", "brand-new", "--format", "jsonl", "--dry-run"],
    ],
    "report": [["check-pin", "{input}"], ["check-pin", "{input}", "--json"]],
    "run": [
        ["score", "retrieval", "acme-support", "{input}", "--allow-stale", "-o", "out.json"],
        ["score", "retrieval", "acme-support", "{input}", "--allow-stale", "--json"],
        ["score", "answers", "acme-support", "{input}", "--judge", "exact", "--allow-stale"],
    ],
    "trec": [["score", "retrieval", "--qrels", "{input}", "--run", "{input}", "--json"]],
    "score-report": [
        ["gate", "{input}", "{input}"],
        ["gate", "{input}", "{input}", "--json"],
        ["accept", "{input}"],
    ],
    "manifest": [
        ["validate"],
        ["status"],
        ["stale"],
        ["verify", "acme-support", "q-003"],
        ["export", "acme-support", "--format", "ragas"],
        ["export", "acme-support", "--format", "ragas", "--allow-stale"],
        ["pin", "acme-support"],
        ["release", "acme-support", "--bump", "minor"],
    ],
}
MANIFEST = "snapshots/0e183dc93927eb7392a5cb9b22cf7e11dd2a041fa9b47adb62c9b9f8c9d69afb.json"
"""The example's newest snapshot, which a hostile manifest replaces."""
SHOWS = {"status", "stale", "verify", "split", "unseal", "diff", "log", "promote", "import",
         "new", "retire", "agreement"}  # fmt: skip
"""Commands that may succeed (exit 0) on a set that is readable but invalid: those that
show it (`validate` is the gate), edits of single items, which re-validate what they
touch and leave the rest as it is, and `agreement`, which reads only ids and categories."""
LENIENT = ("--dry-run", "--skip-invalid")
"""Options under which a command may succeed on input it reports as invalid."""


def _workspace(tmp_path: Path, case: dict[str, str]) -> tuple[Path, str]:
    repo = make_git_repo(tmp_path / "repo")
    for folder in ("corpus", "sets", "snapshots"):
        shutil.copytree(ROOT / folder, repo / folder)
    (repo / "evalset.toml").write_text('sets = "sets"\ncorpus = "corpus"\n', "utf-8")
    (repo / "good-failures.jsonl").write_text(GOOD_FAILURES, "utf-8")
    (repo / "good-rows.jsonl").write_text(GOOD_ROWS, "utf-8")
    (repo / "good-answers.jsonl").write_text(GOOD_ANSWERS, "utf-8")
    (repo / "good-run.jsonl").write_text(GOOD_RUN, "utf-8")
    (repo / "good-labels.csv").write_text(GOOD_LABELS, "utf-8")
    source = HOSTILE / case["file"]
    target = {"set": SET, "manifest": MANIFEST}.get(case["kind"], case["file"])
    shutil.copy(source, repo / target)
    commit_all(repo, "workspace with a hostile input")
    return repo, target


def _files(repo: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(repo)): p.read_bytes()
        for p in sorted(repo.rglob("*"))
        if p.is_file() and ".git" not in p.parts and ".evalset" not in p.parts
    }


def _sentences(err: str) -> list[str]:
    """The error lines of stderr (warnings and notes aside)."""
    return [
        line
        for line in err.splitlines()
        if line.strip() and not line.startswith(("warning:", "note:"))
    ]


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_every_command_over_a_hostile_input(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: dict[str, str]
) -> None:
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    repo, target = _workspace(tmp_path, case)
    for template in COMMANDS[case["kind"]]:
        args = [arg.replace("{input}", target) for arg in template]
        before = _files(repo)
        result = cli(repo, *args)
        shown = f"evalset {' '.join(args)} -> {result.code}\n{result.out[-2000:]}\n{result.err}"
        both = result.out + result.err
        assert result.code in (0, 1, 2), shown
        assert "Traceback" not in both and "internal error" not in both, shown
        if case.get("absent"):
            assert case["absent"] not in both, shown
        if result.code == 2:
            sentences = _sentences(result.err)
            assert len(sentences) == 1 and sentences[0].startswith("evalset: "), shown
        if result.code == 2:  # refused: (exit 1 reports findings, and may fix what it can)
            assert _files(repo) == before, f"a refused command changed a file: {shown}"
        lenient = any(option in args for option in LENIENT)
        if case["expect"] == "unreadable" and not (lenient and result.code == 0):
            assert result.code == 2, shown
            assert case["mentions"] in result.err, shown
            assert Path(target).name in result.err, shown
        elif result.code == 0:
            assert args[0] in SHOWS or lenient, shown
        if case["expect"] == "invalid" and args[0] == "validate" and "--json" not in args:
            assert case["mentions"] in both, shown


def _read_only(folder: Path) -> bool:
    """Make ``folder`` read-only for everyone, root included (a read-only bind mount);
    False where this machine does not allow it."""
    import subprocess

    folder.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "--bind", str(folder), str(folder)], capture_output=True)
    if done.returncode != 0:
        return False
    done = subprocess.run(
        ["mount", "-o", "remount,bind,ro", str(folder)], capture_output=True, check=False
    )
    if done.returncode != 0:
        subprocess.run(["umount", str(folder)], capture_output=True, check=False)
        return False
    return True


@pytest.mark.parametrize("folder", ["sets", "snapshots", ".evalset"])
def test_a_read_only_folder_is_one_sentence(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, folder: str
) -> None:
    import subprocess

    repo, _ = _workspace(tmp_path, {"file": "failures-not-json.jsonl", "kind": "failures"})
    returns = repo / "corpus" / "policies" / "returns.md"
    returns.write_text(returns.read_text() + "\n## Added\n\nA new section.\n")
    if not _read_only(repo / folder):
        pytest.skip("read-only bind mounts are not allowed here")
    try:
        before = _files(repo)
        for args in (["snapshot"], ["split", "acme-support"], ["verify", "acme-support", "q-003"],
                     ["status"], ["stale", "--no-fail"], ["validate"]):  # fmt: skip
            result = cli(repo, *args)
            shown = f"evalset {' '.join(args)} -> {result.code}\n{result.err}"
            assert result.code in (0, 1, 2), shown
            assert "internal error" not in result.err and "Traceback" not in result.err, shown
            if result.code == 2:
                sentences = _sentences(result.err)
                assert len(sentences) == 1, shown
                if folder == "snapshots" and args[0] == "verify":
                    # The corpus changed and its snapshot could not be written: verifying
                    # would record a snapshot nobody checked against.
                    assert "has changed since the newest snapshot" in sentences[0], shown
                    continue
                assert "writable" in sentences[0] and "Read-only file system" in sentences[0]
            if folder != "snapshots" and args == ["snapshot"]:
                assert result.code == 0, shown  # a read-only cache costs only speed
        if folder == "sets":
            assert {k: v for k, v in _files(repo).items() if k.startswith("sets/")} == {
                k: v for k, v in before.items() if k.startswith("sets/")
            }
    finally:
        subprocess.run(["umount", str(repo / folder)], capture_output=True, check=False)


def _vm_after_import(modules: str) -> int:
    """Address space an evalset process holds once ``modules`` are loaded (native libraries
    reserve much of it up front)."""
    import subprocess

    code = (
        f"import resource, {modules}\n"
        "print(int(open('/proc/self/statm').read().split()[0]) * resource.getpagesize())"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(done.stdout)


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="needs /proc")
@pytest.mark.parametrize("kind", ["set", "corpus document"])
def test_input_too_large_for_the_memory_limit_is_one_sentence(tmp_path: Path, kind: str) -> None:
    """Under `ulimit -v`, the native parsers abort the process when an allocation fails (a
    Rust backtrace, no error to catch): a file too large for what is left is refused first."""
    import resource
    import subprocess

    repo, _ = _workspace(tmp_path, {"file": "failures-not-json.jsonl", "kind": "failures"})
    if kind == "set":
        limit = _vm_after_import("evalset.cli.app, evalset.sets.setfile") + 150_000_000
        item = (
            "  - id: q-{n}\n    question: Question {n} about the policy, in some words?\n"
            "    category: direct-lookup\n    answerable: false\n"
        )
        body = "".join(item.format(n=n) for n in range(200_000))
        (repo / "sets" / "big.yaml").write_text(
            "evalset: 1\nname: big\ncategories:\n  direct-lookup: a fact\nitems:\n" + body
        )
        args = ["validate", "sets/big.yaml"]
        named = "sets/big.yaml: is "
    else:
        (repo / "corpus" / "big.md").write_text("# Big\n\n" + "Words of policy text. " * 3_000_000)
        args = ["snapshot"]
        limit = _vm_after_import("evalset.cli.run, evalset.corpus.snapshot") + 150_000_000
        named = "big.md: is "

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    exe = Path(sys.executable).with_name("evalset")
    done = subprocess.run(
        [str(exe), *args], cwd=repo, capture_output=True, text=True, preexec_fn=limited
    )
    assert done.returncode == 2, done.stderr[-2000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0], done.stderr[-2000:]
    assert "too large to" in lines[0] and "memory limit" in lines[0]
