"""Every file a command writes where the user says, named where it cannot go.

Each command that writes a user-named file (scoring reports and pages, agreement results,
exports) is run against each kind of target that cannot be written. Each must say so in one
sentence naming the target and the fix, exit 2, and leave no file of the command behind,
the other one it was asked for included.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
RUN = str(EXAMPLES / "runs" / "acme-support-bm25.jsonl")
LABELS = str(EXAMPLES / "labels" / "acme-support.csv")
JUDGE = "--judge", "exact"
SCORED = "acme-support", RUN, "--allow-stale"
BESIDE = "-o", "ok.json", "--html"
"""A report asked for beside a page that cannot be written."""
WRITERS = {
    "score retrieval -o": ("score", "retrieval", *SCORED, "-o"),
    "score retrieval --html": ("score", "retrieval", *SCORED, *BESIDE),
    "score answers -o": ("score", "answers", *SCORED, *JUDGE, "-o"),
    "score answers --html": ("score", "answers", *SCORED, *JUDGE, *BESIDE),
    "agreement -o": ("agreement", LABELS, *JUDGE, "-o"),
    "export -o": ("export", "acme-support", "--allow-stale", "--format", "jsonl", "-o"),
}
TARGETS = {
    # a file where a folder should be, right above the target or further up
    "under a file": (
        "notes.txt/out.json",
        "because notes.txt is a file, not a folder; name "
        "a file in a folder, or move notes.txt away.",
    ),
    "deep under a file": ("notes.txt/a/out.json", "because notes.txt is a file, not a folder"),
    "a folder": ("sets", "is a folder; name a file to write instead."),
    "a name too long": ("n" * 300 + ".json", "is too long a name for the file system"),
    "a folder no one may write": ("/sys/evalset-out.json", "cannot be written"),
    # a folder of a file system that makes no files, which says "no such file"
    "a folder that takes no file": (
        "/proc/evalset-out.json",
        "cannot be written because the folder /proc takes no new files (No such file or "
        "directory); name a file in another folder.",
    ),
    "a process's folder": ("/proc/self/evalset-out.json", "because the folder /proc/self takes"),
    "under a dangling symlink": (
        "gone/out.json",
        "because gone is a symlink to nowhere/at-all, which does not exist; create that "
        "folder, or remove the link.",
    ),
    "deep under a dangling symlink": ("gone/a/out.json", "because gone is a symlink to"),
    # a link to a link to nothing: the first exists (as a link), so creating it would fail
    "under a chain of dangling symlinks": (
        "chain/out.json",
        "because chain is a symlink to hop, a symlink to nowhere/deeper, which does not "
        "exist; create nowhere/deeper, or remove the link.",
    ),
    # a link to a path under a dangling link: what is missing is under where that one leads
    "under a link into a dangling symlink": (
        "nest/out.json",
        "because nest is a symlink to gone/sub, a symlink to nowhere/at-all, which does not "
        "exist; create nowhere/at-all/sub, or remove the link.",
    ),
    "under a loop of symlinks through a folder": (
        "round/out.json",
        "because round is a symlink to over/there, a symlink to round, a loop of links that "
        "leads to no folder; point one of the links at a folder, or remove the link.",
    ),
    # the target itself a link: writing follows it, so the link is named, and where it leads
    "a loop of symlinks": (
        "loop",
        "because it is a symlink to back, a symlink to loop, a loop of links that leads to no "
        "file; point one of the links at the file to write, or remove the link.",
    ),
    "a symlink into a missing folder": (
        "away.json",
        "because it is a symlink to nowhere/x/y.json, which does not exist, and neither does "
        "its folder nowhere/x; create that folder, or remove the link.",
    ),
    "a chain of symlinks into a missing folder": (
        "far.json",
        "because it is a symlink to away.json, a symlink to nowhere/x/y.json, which does not "
        "exist, and neither does its folder nowhere/x; create that folder, or remove the link.",
    ),
    "under a loop of symlinks": (
        "loop/out.json",
        "because loop is a symlink to back, a symlink to loop, a loop of links that leads to "
        "no folder; point one of the links at a folder, or remove the link.",
    ),
}


@pytest.mark.parametrize("target", TARGETS, ids=list(TARGETS))
@pytest.mark.parametrize("writer", WRITERS, ids=list(WRITERS))
def test_a_target_that_cannot_be_written_is_one_sentence_and_nothing_is_left(  # type: ignore[no-untyped-def]
    cli, example: Path, writer: str, target: str
) -> None:
    (example / "notes.txt").write_text("a file\n")
    (example / "gone").symlink_to("nowhere/at-all")
    (example / "chain").symlink_to("hop")
    (example / "hop").symlink_to("nowhere/deeper")
    (example / "loop").symlink_to("back")
    (example / "back").symlink_to("loop")
    (example / "nest").symlink_to("gone/sub")
    (example / "round").symlink_to("over/there")
    (example / "over").symlink_to("round")
    (example / "away.json").symlink_to("nowhere/x/y.json")
    (example / "far.json").symlink_to("away.json")
    path, message = TARGETS[target]
    before = sorted(p.relative_to(example) for p in example.rglob("*") if ".git" not in p.parts)
    result = cli(example, *WRITERS[writer], path)
    assert result.code == 2, (result.out, result.err)
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"evalset: {path}: "), result.err
    assert message in lines[0] and "internal error" not in result.err
    after = sorted(p.relative_to(example) for p in example.rglob("*") if ".git" not in p.parts)
    new = [p for p in after if p not in before and p.parts[0] != ".evalset"]
    assert new == [], new  # ok.json, asked for beside it, is not written either
    assert (example / "notes.txt").read_text() == "a file\n"


def _dead_pid() -> int:
    import subprocess

    done = subprocess.Popen(["true"])
    done.wait()
    return done.pid


def test_a_write_removes_the_temporary_files_killed_writers_left_beside_it(tmp_path: Path) -> None:
    import os

    from evalset.fsio import atomic_write

    dead = _dead_pid()
    left = [
        tmp_path / f".out.json.{dead}.k3x9q0_a.tmp",  # killed writing this file
        tmp_path / f".page.html.{dead}.0f3a9c2e.tmp",  # killed writing another one here
    ]
    kept = [
        tmp_path / f".out.json.{os.getpid()}.zzzzzzzz.tmp",  # a writer that still runs
        tmp_path / ".notes.tmp",  # the user's
        tmp_path / f".draft.{dead}.tmp",  # the user's, shaped otherwise
    ]
    for path in left + kept:
        path.write_text("x")
    atomic_write(tmp_path / "out.json", "{}\n")
    assert (tmp_path / "out.json").read_text() == "{}\n"
    assert [p.exists() for p in left + kept] == [False, False, True, True, True]


def test_init_cut_short_leaves_no_half_written_file_and_completes_when_run_again(
    git_repo: Path,
) -> None:
    import os
    import resource
    import subprocess
    import sys

    def small_files() -> None:  # as on a full disk: no file may pass 64 bytes
        resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))

    def init(limit: bool) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "evalset", "init", "--name", "support"], cwd=git_repo,
            capture_output=True, text=True, preexec_fn=small_files if limit else None,
            env={**os.environ, "GIT_CONFIG_GLOBAL": os.devnull},
        )  # fmt: skip

    cut = init(limit=True)
    assert cut.returncode == 2 and "File too large" in cut.stderr, cut.stderr
    assert len(cut.stderr.splitlines()) == 1
    assert not (git_repo / "evalset.toml").exists()  # not the first 64 bytes of it
    assert not [p for p in git_repo.rglob(".*.tmp")]
    done = init(limit=False)
    assert done.returncode == 0, done.stderr
    assert (
        subprocess.run([sys.executable, "-m", "evalset", "validate"], cwd=git_repo).returncode == 0
    )


# each writer as a user runs it on files of the workspace, and the files it reads
READERS = {
    "score retrieval": (
        ("score", "retrieval", "acme-support", "run.jsonl", "--allow-stale"),
        ("sets/acme-support.yaml", "run.jsonl"),
    ),
    "score answers": (
        ("score", "answers", "acme-support", "run.jsonl", "--allow-stale", "--labels",
         "labels.csv", "--judge", "command:./judge.py"),
        ("sets/acme-support.yaml", "run.jsonl", "labels.csv", "judge.py"),
    ),
    "agreement": (("agreement", "labels.csv", *JUDGE), ("labels.csv", "sets/acme-support.yaml")),
    # the judge's own files: its program, however it is named, and its prompts
    "agreement, command judge": (("agreement", "labels.csv", "--judge", "command:./judge.py"),
                                 ("labels.csv", "judge.py")),
    "score answers, configured judge": (
        ("score", "answers", "acme-support", "run.jsonl", "--allow-stale", "--judge", "kw"),
        ("judge.py",),
    ),
    "score answers, prompts": (
        ("score", "answers", "acme-support", "run.jsonl", "--allow-stale", "--judge", "llm"),
        ("prompts/entails.txt",),
    ),
    "export": (("export", "acme-support", "--allow-stale", "--format", "jsonl"),
               ("sets/acme-support.yaml",)),
}  # fmt: skip
OVERWRITES = [
    (reader, option, read, spelled)
    for reader, (_, inputs) in READERS.items()
    for option in (("-o", "--html") if reader.startswith("score") else ("-o",))
    for read in inputs
    for spelled in ("as given", "spelled otherwise")
]


JUDGES = (
    '[judges.kw]\nkind = "command"\ncommand = "python3 judge.py"\n'
    '[judges.llm]\nkind = "openai"\nmodel = "m"\nbase_url = "http://127.0.0.1:9"\n'
    'api_key = "k"\nprompts = "prompts"\n'
)
"""A command judge and an openai one (never asked: the output is refused first)."""


def test_a_judge_program_is_kept_from_an_output_named_from_a_subfolder(  # type: ignore[no-untyped-def]
    cli, example: Path
) -> None:
    """The judge's program runs from the workspace's folder, wherever the command is run
    from: ``-o ../judge.py`` from ``corpus/`` names it."""
    shutil.copy2(EXAMPLES / "judges" / "keywords.py", example / "judge.py")
    shutil.copy(RUN, example / "run.jsonl")
    kept = (example / "judge.py").read_bytes()
    done = cli(example / "corpus", "score", "answers", "acme-support", "../run.jsonl",
               "--allow-stale", "--judge", "command:./judge.py", "-o", "../judge.py")  # fmt: skip
    assert done.code == 2 and "is the judge's program or prompt" in done.err, done.err
    assert (example / "judge.py").read_bytes() == kept


@pytest.mark.parametrize(("reader", "option", "read", "spelled"), OVERWRITES)
def test_an_output_that_names_a_file_the_command_reads_is_refused_before_any_work(  # type: ignore[no-untyped-def]
    cli, example: Path, reader: str, option: str, read: str, spelled: str
) -> None:
    shutil.copy(RUN, example / "run.jsonl")
    shutil.copy(LABELS, example / "labels.csv")
    shutil.copy2(EXAMPLES / "judges" / "keywords.py", example / "judge.py")
    (example / "prompts").mkdir()
    (example / "prompts" / "entails.txt").write_text("Does {text} assert {claim}?\n")
    with (example / "evalset.toml").open("a", encoding="utf-8") as config:
        config.write(JUDGES)
    command, _ = READERS[reader]
    target = read if spelled == "as given" else f"./sets/../{read}"
    kept = {name: (example / name).read_bytes() for name in READERS[reader][1]}
    before = sorted(p.relative_to(example) for p in example.rglob("*") if ".git" not in p.parts)
    done = cli(example, *command, option, target)
    assert done.code == 2, (done.out, done.err)
    assert done.err.startswith(f"evalset: {Path(target)}: is the "), done.err
    assert len(done.err.strip().splitlines()) == 1 and "name another file" in done.err
    assert {name: (example / name).read_bytes() for name in kept} == kept
    after = sorted(p.relative_to(example) for p in example.rglob("*") if ".git" not in p.parts)
    assert after == before
    assert "calls" not in done.out + done.err  # refused before the judge was asked anything


@pytest.mark.parametrize("scorer", ["retrieval", "answers"])
def test_a_report_and_its_page_in_one_file_are_refused(cli, example: Path, scorer: str) -> None:  # type: ignore[no-untyped-def]
    command = ("score", scorer, *SCORED, *(JUDGE if scorer == "answers" else ()))
    done = cli(example, *command, "-o", "same", "--html", "./same")
    assert done.code == 2, done.err
    assert done.err == (
        "evalset: same: is where the report goes too; give the report and the page "
        "different files.\n"
    )
    assert not (example / "same").exists()


# what the workspace keeps, which no output may replace or join (the age key: named by
# EVALSET_AGE_IDENTITY, so read by any command that meets a sealed item)
KEPT = {
    "the configuration": ("evalset.toml", "is the workspace's configuration this command reads"),
    "the age key file": ("holdout.key", "is the age key file this command reads"),
    "a new set": ("sets/new.yaml", "which holds the set files"),
    "a snapshot": ("snapshots/new.json", "which holds the snapshots"),
    "a document": ("corpus/policies/new.md", "which holds the documents of the corpus"),
    "the local state": (".evalset/report.json", "which holds evalset's caches and locks"),
    "git's files": (".git/info/exclude", "which holds git's own files"),
    "an accepted run": ("reports/accepted/acme-support.json", "which holds the accepted runs"),
    "through a link": ("linked/new.md", "which holds the documents of the corpus"),
}


@pytest.mark.parametrize("kept", KEPT, ids=list(KEPT))
@pytest.mark.parametrize("writer", WRITERS, ids=list(WRITERS))
def test_an_output_that_would_replace_or_join_what_the_workspace_keeps_is_refused(  # type: ignore[no-untyped-def]
    cli, example: Path, monkeypatch: pytest.MonkeyPatch, writer: str, kept: str
) -> None:
    """Before, `export -o "$EVALSET_AGE_IDENTITY"` replaced the only key to a sealed holdout,
    and `-o evalset.toml` the configuration, each with exit status 0."""
    (example / "holdout.key").write_text("# the key\nAGE-SECRET-KEY-1\n", encoding="utf-8")
    (example / "linked").symlink_to(example / "corpus")
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(example / "holdout.key"))
    target, said = KEPT[kept]
    files = {p: p.read_bytes() for p in example.rglob("*") if p.is_file()}
    done = cli(example, *WRITERS[writer], target)
    assert done.code == 2, (done.out, done.err)
    assert done.err.startswith(f"evalset: {target}: ") and said in done.err, done.err
    assert len(done.err.strip().splitlines()) == 1
    assert {p: p.read_bytes() for p in example.rglob("*") if p.is_file()} == files


@pytest.mark.parametrize("length", [120, 200, 250])
def test_a_long_set_name_is_told_as_too_long_or_works(cli, example: Path, length: int) -> None:  # type: ignore[no-untyped-def]
    """Before, a set name the file system takes (its file just under 255 bytes) failed as
    "make .evalset/locks writable": the lock's name added to the file's and passed the
    limit. A name past a set name's own limit is refused by that rule, as the created set
    is validated before it is written."""
    rows = example / "rows.jsonl"
    rows.write_text('{"question": "Is a long name fine?"}\n')
    name = "n" * length
    done = cli(example, "import", str(rows), "--set", name, "--format", "jsonl")
    if length <= 200:
        assert done.code == 0, done.err
        assert (example / "sets" / f"{name}.yaml").is_file()
    else:  # past the limit of a set's name, checked before any file is made for it
        assert done.code == 2 and "is 250 characters long; the limit is 200" in done.err
        assert "writable" not in done.err and len(done.err.strip().splitlines()) == 1
        assert not (example / "sets" / f"{name}.yaml").exists()


def test_an_output_may_not_land_in_the_git_folder_of_a_workspace_in_a_subfolder(  # type: ignore[no-untyped-def]
    cli, example: Path
) -> None:
    """Before, only `<workspace>/.git` was kept: a workspace in a subfolder let `-o
    ../.git/config` replace the repository's configuration, with exit 0."""
    sub = example / "evals"
    sub.mkdir()
    for name in ("corpus", "sets", "snapshots", "evalset.toml"):
        (example / name).rename(sub / name)
    config = (example / ".git" / "config").read_bytes()
    done = cli(sub, "export", "acme-support", "--allow-stale", "--format", "jsonl", "-o",
               "../.git/config")  # fmt: skip
    assert done.code == 2 and "which holds git's own files" in done.err, done.err
    assert (example / ".git" / "config").read_bytes() == config
