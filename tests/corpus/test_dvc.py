"""Corpora tracked by DVC: snapshots at revisions and old text read through DVC."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, SET_HEADER, commit_all, dvc, set_item, write_files

POLICY_V1 = "# Policy\n\n## Returns\n\nReturn within 14 days of delivery.\n"
POLICY_V2 = "# Policy\n\n## Returns\n\nReturn within 30 days of delivery.\n"


def test_dvc_tracked_corpus(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    # Text is not stored in snapshots here, so the old wording must come through DVC.
    (corpus_repo / "evalset.toml").write_text(
        "store_text = false\n[validate]\nmin_per_category = 0\n"
    )
    dvc(corpus_repo, "init", "-q")
    write_files(corpus_repo, {"corpus/policy.md": POLICY_V1})
    dvc(corpus_repo, "add", "-q", "corpus")
    first = commit_all(corpus_repo, "corpus v1 (dvc)")
    assert "corpus" in (corpus_repo / ".gitignore").read_text()  # really not in git

    write_files(corpus_repo, {"corpus/policy.md": POLICY_V2})
    dvc(corpus_repo, "add", "-q", "corpus")
    second = commit_all(corpus_repo, "corpus v2 (dvc)")

    old = json.loads(cli(corpus_repo, "snapshot", "--rev", first, "--json").out)
    new = json.loads(cli(corpus_repo, "snapshot", "--rev", second, "--json").out)
    assert (old["commit"], new["commit"]) == (first, second)
    assert new["changes"]["changed"] == {
        "policy.md": {"added": [], "removed": [], "changed": ["policy", "returns"]}
    }
    # The working tree agrees with the second revision.
    assert json.loads(cli(corpus_repo, "snapshot", "--json").out)["snapshot"] == new["snapshot"]

    (corpus_repo / "sets" / "docs.yaml").write_text(
        SET_HEADER + set_item("q-1", "policy.md#returns", verified=old["snapshot"])
    )
    result = cli(corpus_repo, "stale")
    assert result.code == 1
    assert "      Return within [-14-] {+30+} days of delivery." in result.out


def test_dvc_repro_runs_the_example_pipeline(tmp_path: Path) -> None:
    """The repository's own dvc.yaml, on a fresh clone of the example workspace."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    # Work on the tree as it is now (the test may run before a commit).
    for name in ("dvc.yaml", "corpus", "sets", "snapshots", "examples", "pyproject.toml", ".dvc"):
        src, dst = ROOT / name, clone / name
        if src.is_dir():
            shutil.rmtree(dst, ignore_errors=True)
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("tmp", "cache"))
        elif src.exists():
            shutil.copy(src, dst)

    def tracked() -> dict[Path, bytes]:
        return {p: p.read_bytes() for d in ("snapshots", "sets") for p in (clone / d).iterdir()}

    before = tracked()
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [str(Path(sys.executable).with_name("dvc")), "repro"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    for stage in ("snapshot", "validate", "stale", "score"):
        assert f"Running stage '{stage}'" in done.stdout
    report = json.loads((clone / "reports" / "stale.json").read_text())
    assert [item["id"] for item in report["items"]] == [
        "q-003",
        "q-011",
        "q-012",
        "q-022",
        "q-025",
        "q-029",
    ]
    assert tracked() == before  # an unchanged corpus adds no snapshot and edits no set
    scored = json.loads((clone / "reports" / "score.json").read_text())
    assert scored["evalset"]["set"] == "acme-support" and scored["counts"]["scored"] == 32
    assert (clone / "reports" / "score.html").read_text().startswith("<!DOCTYPE html>")
    # the example's own config turns DVC's analytics off: a user's `dvc repro` (without the
    # tests' DVC_NO_ANALYTICS) sends nothing over the network either
    shown = subprocess.run(
        [str(Path(sys.executable).with_name("dvc")), "config", "core.analytics"],
        cwd=clone, env=env, capture_output=True, text=True,
    )  # fmt: skip
    assert shown.stdout.strip() == "false", shown.stderr


def _dvc_corpus(repo: Path) -> tuple[str, str]:
    """A DVC-tracked corpus of two versions, each committed (snapshots store no text, so
    old wording must come through DVC); returns the two commits."""
    (repo / "evalset.toml").write_text("store_text = false\n[validate]\nmin_per_category = 0\n")
    dvc(repo, "init", "-q")
    write_files(repo, {"corpus/policy.md": POLICY_V1})
    dvc(repo, "add", "-q", "corpus")
    first = commit_all(repo, "corpus v1 (dvc)")
    write_files(repo, {"corpus/policy.md": POLICY_V2})
    dvc(repo, "add", "-q", "corpus")
    return first, commit_all(repo, "corpus v2 (dvc)")


def test_a_dvc_cache_without_a_revisions_content_is_named_with_the_fetch(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli
) -> None:
    """As after `dvc gc`, or in a clone before `dvc fetch`: the revision is fine, the cache
    lacks its content; snapshot --rev says so (not an internal error, nor "check the
    revision"), and stale says it rather than blame uncommitted changes."""
    first, _ = _dvc_corpus(corpus_repo)
    old = json.loads(cli(corpus_repo, "snapshot", "--rev", first, "--json").out)["snapshot"]
    (corpus_repo / "sets" / "docs.yaml").write_text(
        SET_HEADER + set_item("q-1", "policy.md#returns", verified=old[:12])
    )
    assert cli(corpus_repo, "snapshot").code == 0
    assert "[-14-] {+30+}" in cli(corpus_repo, "stale").out  # read through DVC's cache
    shutil.rmtree(corpus_repo / ".dvc" / "cache")
    result = cli(corpus_repo, "stale")
    assert result.code == 1
    assert (
        f"(no text to compare: at commit {first[:10]}, where snapshot {old[:12]} was taken, "
        f"policy.md is tracked by DVC, and the DVC cache does not hold that version: `dvc fetch "
        f"--rev {first}` (or `dvc pull`) brings it; only the hashes differ)"
    ) in result.out
    exported = cli(corpus_repo, "export", "docs", "--split", "all", "--format", "ragas",
                   "--allow-stale", "-o", "out.jsonl")  # fmt: skip
    assert exported.code == 0, exported.err
    assert "; a corpus DVC tracks is read from its cache: `dvc fetch` (or `dvc pull`)" in (
        exported.out + exported.err
    )
    shutil.rmtree(corpus_repo / ".dvc" / "tmp", ignore_errors=True)  # its index of the cache
    result = cli(corpus_repo, "snapshot", "--rev", first)
    assert result.code == 2
    assert result.err.startswith("evalset: ")
    assert f"is not in the DVC cache; run `dvc fetch --rev {first}` (or `dvc pull`) to bring it, " \
        "then snapshot again.\n" in result.err  # fmt: skip


def test_a_dvc_project_in_a_subfolder_of_the_repository_is_read_at_a_revision(  # type: ignore[no-untyped-def]
    git_repo: Path, cli
) -> None:
    """`dvc init --subdir`, a monorepo's layout: the workspace and its DVC project lie in a
    folder below the git repository's top."""
    project = git_repo / "proj"
    (project / "corpus").mkdir(parents=True)
    (project / "sets").mkdir()
    (project / "evalset.toml").write_text("[validate]\nmin_per_category = 0\n")
    write_files(project, {"corpus/policy.md": POLICY_V1})
    dvc(project, "init", "-q", "--subdir")
    dvc(project, "add", "-q", "corpus")
    first = commit_all(git_repo, "a project in a subfolder")
    here = json.loads(cli(project, "snapshot", "--json").out)["snapshot"]
    result = cli(project, "snapshot", "--rev", first, "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["snapshot"] == here


def test_dvc_pointer_files_in_the_corpus_are_passed_over_without_a_word(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli
) -> None:
    """DVC tracking documents one by one keeps a .dvc file beside each: not a document of
    a format evalset lacks, so no warning on every snapshot."""
    dvc(corpus_repo, "init", "-q")
    write_files(corpus_repo, {"corpus/policy.md": POLICY_V1, "corpus/notes.txt": "x\n"})
    dvc(corpus_repo, "add", "-q", "corpus/policy.md")
    assert (corpus_repo / "corpus" / "policy.md.dvc").is_file()
    result = cli(corpus_repo, "snapshot")
    assert result.code == 0, result.err
    assert ".dvc" not in result.out + result.err
    first = commit_all(corpus_repo, "one document tracked by dvc")
    result = cli(corpus_repo, "snapshot", "--rev", first)
    assert result.code == 0, result.err
    assert ".dvc" not in result.out + result.err


def test_export_names_the_fetch_for_a_dvc_project_inside_the_corpus_folder(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli
) -> None:
    """The DVC project may be the corpus folder itself (`dvc init --subdir` there), below
    the workspace: export's note on contexts it could not read still names `dvc fetch`."""
    (corpus_repo / "evalset.toml").write_text(
        "store_text = false\n[validate]\nmin_per_category = 0\n"
    )
    corpus = corpus_repo / "corpus"
    write_files(corpus_repo, {"corpus/policy.md": POLICY_V1})
    dvc(corpus, "init", "-q", "--subdir")
    dvc(corpus, "add", "-q", "policy.md")
    first = commit_all(corpus_repo, "corpus v1, its own DVC project")
    old = json.loads(cli(corpus_repo, "snapshot", "--rev", first, "--json").out)["snapshot"]
    (corpus_repo / "sets" / "docs.yaml").write_text(
        SET_HEADER + set_item("q-1", "policy.md#returns", verified=old[:12])
    )
    write_files(corpus_repo, {"corpus/policy.md": POLICY_V2})
    dvc(corpus, "add", "-q", "policy.md")
    commit_all(corpus_repo, "corpus v2")
    assert cli(corpus_repo, "snapshot").code == 0
    shutil.rmtree(corpus / ".dvc" / "cache")
    shutil.rmtree(corpus / ".dvc" / "tmp", ignore_errors=True)
    exported = cli(corpus_repo, "export", "docs", "--split", "all", "--format", "ragas",
                   "--allow-stale", "-o", "out.jsonl")  # fmt: skip
    assert exported.code == 0, exported.err
    assert "exported with empty contexts" in exported.out + exported.err
    assert "; a corpus DVC tracks is read from its cache: `dvc fetch` (or `dvc pull`)" in (
        exported.out + exported.err
    )
