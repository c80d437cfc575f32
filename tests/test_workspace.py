"""`evalset init` in real git repositories, and finding sets by name."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import commit_all, git, make_git_repo, write_files
from evalset import UnknownSet, find_workspace
from evalset.sets.validate import validate
from evalset.workspace import resolve_set, set_paths


def test_init_scaffolds_a_valid_workspace(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(git_repo, "init", "--name", "support-bot")
    assert result.code == 0
    assert result.out.splitlines() == [
        "created evalset.toml",
        "created sets/support-bot.yaml",
        "created snapshots/.gitkeep",
        "created dvc.yaml",
        "created .gitignore",
        "created schemas/evalset.schema.json",
        "created schemas/config.schema.json",
        "created schemas/failure.schema.json",
        "created .gitattributes",
        "set     git config merge.evalset.driver",
    ]
    assert git(git_repo, "config", "merge.evalset.name").strip() == (
        "evalset set files, merged by item id"
    )
    workspace = find_workspace(git_repo)
    report = validate(set_paths(workspace))
    assert report.errors == []
    assert (git_repo / ".gitignore").read_text() == "/.evalset/\n/reports/*\n!/reports/accepted/\n"
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-qm", "scaffold")  # everything init writes can be committed


def test_init_never_overwrites(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (git_repo / "dvc.yaml").write_text("stages: {}\n")
    (git_repo / ".gitignore").write_text("*.pyc")
    assert cli(git_repo, "init", "--name", "x").code == 0
    assert (git_repo / "dvc.yaml").read_text() == "stages: {}\n"
    assert (git_repo / ".gitignore").read_text() == (
        "*.pyc\n/.evalset/\n/reports/*\n!/reports/accepted/\n"
    )
    set_file = git_repo / "sets" / "x.yaml"
    set_file.write_text(set_file.read_text() + "# mine\n")
    before = {
        p: p.read_bytes() for p in git_repo.rglob("*") if p.is_file() and ".git" not in p.parts
    }
    second = cli(git_repo, "init", "--name", "x", "--json")
    assert second.code == 0
    assert '"created": []' in second.out
    after = {
        p: p.read_bytes() for p in git_repo.rglob("*") if p.is_file() and ".git" not in p.parts
    }
    assert after == before


def test_init_uses_an_existing_pyproject_table(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (git_repo / "pyproject.toml").write_text('[tool.evalset]\nsets = "sets"\n')
    assert cli(git_repo, "init").code == 0
    assert not (git_repo / "evalset.toml").exists()
    assert (git_repo / "sets" / "repo.yaml").exists()  # named after the folder


def test_init_outside_git_is_refused(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(tmp_path, "init")
    assert result.code == 2
    assert result.err.strip() == (
        f"evalset: {tmp_path.resolve()}: is not inside a git repository; run `git init` first."
    )
    assert list(tmp_path.iterdir()) == []


def test_sets_are_found_by_name_with_a_suggestion(workspace: Path) -> None:
    ws = find_workspace(workspace)
    assert resolve_set(ws, "acme-support").name == "acme-support.yaml"
    with pytest.raises(
        UnknownSet, match=r"has no set named 'acme-suport' \(did you mean 'acme-support'\?\)"
    ):
        resolve_set(ws, "acme-suport")


@pytest.mark.parametrize("here", ["corpus", "reports", "acme-support"])
def test_a_set_name_is_the_set_though_a_file_or_folder_here_bears_it(  # type: ignore[no-untyped-def]
    workspace: Path, cli, monkeypatch: pytest.MonkeyPatch, here: str
) -> None:
    """A set named like a folder of the workspace, or a stray file in the current folder,
    is still found by its name; a name with a suffix or a slash is a path."""
    monkeypatch.chdir(workspace)
    ws = find_workspace(workspace)
    text = (workspace / "sets" / "acme-support.yaml").read_text(encoding="utf-8")
    (workspace / "sets" / f"{here}.yaml").write_text(
        text.replace("name: acme-support", f"name: {here}"), encoding="utf-8"
    )
    if not (workspace / here).exists():
        (workspace / here).write_text("notes\n", encoding="utf-8")
    assert resolve_set(ws, here) == Path("sets") / f"{here}.yaml"
    assert resolve_set(ws, f"./{here}") == Path(f"./{here}")
    result = cli(workspace, "pin", here)
    assert result.code == 0, result.err
    assert json.loads(result.out)["set"] == here


def test_init_waits_while_another_git_command_writes_the_git_config(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    import threading
    import time

    lock = git_repo / ".git" / "config.lock"  # as another init's `git config` holds it
    lock.write_text("")
    threading.Timer(0.5, lock.unlink).start()
    start = time.monotonic()
    result = cli(git_repo, "init")
    assert result.code == 0, result.err
    assert time.monotonic() - start >= 0.5
    driver = subprocess.run(
        ["git", "config", "merge.evalset.driver"], cwd=git_repo, capture_output=True, text=True
    )
    assert driver.stdout.endswith("evalset merge-driver %O %A %B %P\n")


def test_init_names_a_git_config_lock_that_stays(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (git_repo / ".git" / "config.lock").write_text("")  # left by a git command that was killed
    result = cli(git_repo, "init")
    assert result.code == 2
    assert len(result.err.splitlines()) == 1
    assert "its config is locked (" in result.err and ".git/config.lock exists)" in result.err
    assert result.err.endswith("delete that file and run `evalset init --git-hooks`.\n")
    (git_repo / ".git" / "config.lock").unlink()
    assert cli(git_repo, "init", "--git-hooks").code == 0


SETS_MISSING = "no such folder, but {config} names it as the folder of the set files"
SETS_NOT_A_FOLDER = "is not a folder, but {config} names it as the folder of the set files"

# A sets folder that is not there: (config file, its text, the folder named, the problem,
# the key to check as the message names it).
BAD_SETS_FOLDERS = {
    "typo": ("evalset.toml", 'sets = "set"\n', "set", SETS_MISSING, "`sets`"),
    "typo-pyproject": (
        "pyproject.toml",
        '[tool.evalset]\nsets = "set"\n',
        "set",
        SETS_MISSING,
        "`sets` under [tool.evalset]",
    ),
    "nested-missing": (
        "evalset.toml",
        'sets = "evals/sets"\n',
        "evals/sets",
        SETS_MISSING,
        "`sets`",
    ),
    "a-file": ("evalset.toml", 'sets = "dvc.yaml"\n', "dvc.yaml", SETS_NOT_A_FOLDER, "`sets`"),
    "the-set-file": (
        "evalset.toml",
        'sets = "sets/s1.yaml"\n',
        "sets/s1.yaml",
        SETS_NOT_A_FOLDER,
        "`sets`",
    ),
}

# Every command that lists the workspace's sets or finds one by name.
SET_COMMANDS = {
    "validate": ["validate"],
    "validate-json": ["validate", "--json"],
    "validate-name": ["validate", "s1"],
    "status": ["status"],
    "status-json": ["status", "--json"],
    "stale": ["stale"],
    "verify": ["verify", "s1", "--all"],
    "release": ["release", "s1", "--bump", "patch"],
    "pin": ["pin", "s1"],
    "log": ["log", "s1"],
    "diff": ["diff", "s1"],
    "export": ["export", "s1", "--format", "jsonl"],
    "new": ["new", "s1", "--question", "Do you ship to Iceland?"],
    "split": ["split", "s1"],
    "import-new-set": ["import", "rows.csv", "--set", "s2", "--format", "csv"],
    "score": ["score", "retrieval", "s1", "run.json"],
}


@pytest.mark.parametrize("command", SET_COMMANDS.values(), ids=SET_COMMANDS.keys())
@pytest.mark.parametrize(
    ("config", "text", "folder", "problem", "key"),
    BAD_SETS_FOLDERS.values(),
    ids=BAD_SETS_FOLDERS.keys(),
)
def test_a_sets_folder_that_is_not_there_is_named_by_every_command(  # type: ignore[no-untyped-def]
    git_repo: Path,
    cli,
    config: str,
    text: str,
    folder: str,
    problem: str,
    key: str,
    command: list[str],
) -> None:
    header = "evalset: 1\nname: s1\ncategories:\n  direct-lookup: a fact\nitems: []\n"
    write_files(
        git_repo,
        {
            config: text,
            "sets/s1.yaml": header,
            "dvc.yaml": "stages: {}\n",
            "rows.csv": "question\nDo you ship to Iceland?\n",
            "run.json": "{}\n",
        },
    )
    commit_all(git_repo, "a workspace whose config names the wrong sets folder")
    before = sorted(p for p in git_repo.rglob("*") if ".git" not in p.relative_to(git_repo).parts)
    result = cli(git_repo, *command)
    assert result.code == 2, result.out
    message = (
        f'{folder}: {problem.format(config=config)} (sets = "{folder}"); check {key} in {config}'
        + (", or create the folder if the name is right." if problem == SETS_MISSING else ".")
    )
    if "--json" in command:  # the error is the JSON document
        assert json.loads(result.out) == {"error": message, "exit_code": 2}
    else:
        assert (result.out, result.err) == ("", f"evalset: {message}\n")
    after = sorted(p for p in git_repo.rglob("*") if ".git" not in p.relative_to(git_repo).parts)
    assert after == before
    assert git(git_repo, "status", "--porcelain") == ""


# A sets folder with nothing to check: (its files, the sets folder the configuration names).
EMPTY_SETS_FOLDERS = {
    "empty": ({}, "sets"),
    "other-files-only": ({"sets/README.md": "# Sets\n", "sets/s1.yaml.bak": "x\n"}, "sets"),
    "a-subfolder-only": ({"sets/old/s1.yaml": "evalset: 1\n"}, "sets"),
    "configured": ({"evalset.toml": 'sets = "evals"\n', "evals/notes.txt": "x\n"}, "evals"),
}


@pytest.mark.parametrize(("files", "folder"), EMPTY_SETS_FOLDERS.values(),
                         ids=EMPTY_SETS_FOLDERS.keys())  # fmt: skip
def test_validate_warns_that_a_sets_folder_without_set_files_checked_nothing(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, files: dict[str, str], folder: str
) -> None:
    write_files(corpus_repo, files)
    (corpus_repo / folder).mkdir(exist_ok=True)
    warning = (
        f"{folder}: warning: holds no set file (.yaml or .yml), so nothing was checked "
        "(`evalset init` writes a first set there; check `sets` in the configuration if the "
        "sets are elsewhere)"
    )
    done = cli(corpus_repo, "validate")
    assert (done.code, done.out) == (0, f"{warning}\n0 error(s), 1 warning(s) in 0 file(s)\n")
    strict = cli(corpus_repo, "validate", "--strict")
    assert (strict.code, strict.out.splitlines()[0]) == (1, warning)
    report = json.loads(cli(corpus_repo, "validate", "--json", "--strict").out)
    assert (report["ok"], report["files"], report["warnings"]) == (False, [], 1)
    assert report["findings"][0]["rule"] == "no-sets"
    assert report["findings"][0]["file"] == folder


# Folders a configuration names before `init` runs: (config file, its text, the sets folder,
# the snapshots folder).
CONFIGURED_FOLDERS = {
    "pyproject-sets": ("pyproject.toml", '[tool.evalset]\nsets = "evals"\n', "evals", "snapshots"),
    "evalset-toml-sets": ("evalset.toml", 'sets = "evals"\n', "evals", "snapshots"),
    "nested": (
        "evalset.toml",
        'sets = "qa/evals/sets"\nsnapshots = "qa/snaps"\n',
        "qa/evals/sets",
        "qa/snaps",
    ),
    "odd-names": (
        "pyproject.toml",
        '[tool.evalset]\nsets = "evals:2"\nsnapshots = "snap #1"\n',
        "evals:2",
        "snap #1",
    ),
    "defaults": ("pyproject.toml", "[tool.evalset]\n", "sets", "snapshots"),
}


@pytest.mark.parametrize(
    ("config", "text", "sets", "snapshots"),
    CONFIGURED_FOLDERS.values(),
    ids=CONFIGURED_FOLDERS.keys(),
)
def test_init_writes_into_the_folders_the_configuration_names(  # type: ignore[no-untyped-def]
    git_repo: Path, cli, config: str, text: str, sets: str, snapshots: str
) -> None:
    from ruamel.yaml import YAML

    (git_repo / config).write_text(text, "utf-8")
    result = cli(git_repo, "init", "--name", "support")
    assert result.code == 0, result.err
    said = result.out.splitlines()
    assert said[:2] == [f"created {sets}/support.yaml", f"created {snapshots}/.gitkeep"]
    assert f"kept    {config} (exists)" in said
    set_file = git_repo / sets / "support.yaml"
    schema = set_file.read_text("utf-8").splitlines()[0].split("$schema=")[1]
    assert (set_file.parent / schema).resolve() == git_repo / "schemas" / "evalset.schema.json"
    assert [p.name for p in (git_repo / sets).iterdir()] == ["support.yaml"]
    pipeline = YAML(typ="safe").load((git_repo / "dvc.yaml").read_text("utf-8"))["stages"]
    assert pipeline["validate"]["deps"] == [sets, snapshots]
    assert pipeline["stale"]["deps"] == [sets, snapshots]
    assert list(pipeline["snapshot"]["outs"][0]) == [snapshots]
    routed = git(git_repo, "check-attr", "merge", "--", f"{sets}/support.yaml")
    assert routed.endswith(": merge: evalset\n")
    for command in (["validate"], ["validate", "support"], ["status"]):
        done = cli(git_repo, *command)
        assert done.code == 0, done.err
        assert "no sets in" not in done.out
    assert json.loads(cli(git_repo, "status", "--json").out)["sets"][0]["name"] == "support"
    again = json.loads(cli(git_repo, "init", "--name", "support", "--json").out)
    assert again["created"] == []
    assert not (git_repo / "sets").exists() or sets == "sets"


# Workspaces that have sets already: (config file and text or None for init's own, the set
# files there).
WITH_SETS = {
    "one-set": (None, ["sets/s1.yaml"]),
    "two-sets": (None, ["sets/a.yaml", "sets/b.yml"]),
    "configured-folder": (("pyproject.toml", '[tool.evalset]\nsets = "evals"\n'), ["evals/x.yaml"]),
}


@pytest.mark.parametrize(("config", "present"), WITH_SETS.values(), ids=WITH_SETS.keys())
def test_init_again_without_a_name_adds_no_set(  # type: ignore[no-untyped-def]
    git_repo: Path, cli, config: tuple[str, str] | None, present: list[str]
) -> None:
    if config is not None:
        (git_repo / config[0]).write_text(config[1], "utf-8")
    else:
        assert cli(git_repo, "init", "--name", "first").code == 0
        (git_repo / "sets" / "first.yaml").unlink()
    header = "evalset: 1\nname: {}\ncategories:\n  direct-lookup: a fact\nitems: []\n"
    write_files(git_repo, {p: header.format(Path(p).stem) for p in present})
    folder = (git_repo / present[0]).parent
    result = cli(git_repo, "init", "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert sorted(p.name for p in folder.iterdir()) == sorted(Path(p).name for p in present)
    assert {str(git_repo / p) for p in present} <= set(report["kept"])
    assert not [p for p in report["created"] if Path(p).parent == folder]
    said = cli(git_repo, "init").out
    for p in present:
        assert f"kept    {p} (exists)" in said
    assert json.loads(cli(git_repo, "validate", "--json").out)["files"] == sorted(present)


def test_init_with_the_name_of_a_yml_set_keeps_it(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    assert cli(git_repo, "init", "--name", "s1").code == 0
    (git_repo / "sets" / "s1.yaml").rename(git_repo / "sets" / "s1.yml")
    result = cli(git_repo, "init", "--name", "s1")
    assert result.code == 0, result.err
    assert "kept    sets/s1.yml (exists)" in result.out.splitlines()
    assert sorted(p.name for p in (git_repo / "sets").iterdir()) == ["s1.yml"]  # no twin


# Something in the way of a file init writes: (what is made, a file or a folder; the
# message's subject and problem).
IN_THE_WAY = {
    "schemas-a-file": (
        "schemas",
        "file",
        "schemas: is a file, where `evalset init` makes a folder for schemas/evalset.schema.json",
    ),
    "sets-a-file": (
        "sets",
        "file",
        "sets: is a file, where `evalset init` makes a folder for sets/s1.yaml",
    ),
    "snapshots-a-file": (
        "snapshots",
        "file",
        "snapshots: is a file, where `evalset init` makes a folder for snapshots/.gitkeep",
    ),
    "dvc-yaml-a-folder": (
        "dvc.yaml",
        "folder",
        "dvc.yaml: is a folder, where `evalset init` writes a file",
    ),
    "schema-a-folder": (
        "schemas/config.schema.json",
        "folder",
        "schemas/config.schema.json: is a folder, where `evalset init` writes a file",
    ),
    "gitignore-a-folder": (
        ".gitignore",
        "folder",
        ".gitignore: is a folder, where `evalset init` writes a file",
    ),
    "gitattributes-a-folder": (
        ".gitattributes",
        "folder",
        ".gitattributes: is a folder, where `evalset init` writes a file",
    ),
}


@pytest.mark.parametrize(("made", "kind", "problem"), IN_THE_WAY.values(), ids=IN_THE_WAY.keys())
@pytest.mark.parametrize("args", [["--name", "s1"], ["--name", "s1", "--corpus", "docs"]])
def test_init_that_cannot_write_a_file_writes_none(  # type: ignore[no-untyped-def]
    git_repo: Path, cli, made: str, kind: str, problem: str, args: list[str]
) -> None:
    if kind == "file":
        (git_repo / made).write_text("in the way\n", "utf-8")
    else:
        (git_repo / made).mkdir(parents=True)
    before = sorted(p for p in git_repo.rglob("*") if ".git" not in p.relative_to(git_repo).parts)
    result = cli(git_repo, "init", *args)
    assert result.code == 2
    assert (result.out, result.err) == (
        "",
        f"evalset: {problem}; move or rename it, then run `evalset init` again (it wrote "
        "nothing).\n",
    )
    after = sorted(p for p in git_repo.rglob("*") if ".git" not in p.relative_to(git_repo).parts)
    assert after == before
    unset = subprocess.run(["git", "config", "--local", "merge.evalset.driver"], cwd=git_repo)
    assert unset.returncode == 1  # not registered either


def test_init_git_hooks_with_gitattributes_a_folder_registers_nothing(  # type: ignore[no-untyped-def]
    git_repo: Path, cli
) -> None:
    assert cli(git_repo, "init").code == 0
    git(git_repo, "config", "--unset", "merge.evalset.driver")
    (git_repo / ".gitattributes").unlink()
    (git_repo / ".gitattributes").mkdir()
    result = cli(git_repo, "init", "--git-hooks")
    assert result.code == 2
    assert result.err.startswith(
        "evalset: .gitattributes: is a folder, where `evalset init --git-hooks` writes a file; "
        "move or rename it, then run `evalset init --git-hooks` again (it wrote nothing)."
    )
    unset = subprocess.run(["git", "config", "--local", "merge.evalset.driver"], cwd=git_repo)
    assert unset.returncode == 1


# `.dvc` files and a `dvc.lock` that are not what DVC writes: none of them tracks the corpus.
ODD_DVC_FILES = {
    "a-date-that-does-not-exist": ("corpus.dvc", "outs:\n- path: corpus\n  md5: 2024-02-30\n"),
    "outs-a-number": ("corpus.dvc", "outs: 5\n"),
    "outs-text": ("corpus.dvc", "outs: corpus\n"),
    "outs-a-mapping": ("corpus.dvc", "outs: {path: corpus}\n"),
    "path-a-list": ("corpus.dvc", "outs:\n- path: [corpus]\n"),
    "not-yaml": ("corpus.dvc", "outs: [\n"),
    "a-list": ("corpus.dvc", "- corpus\n"),
    "deep": ("corpus.dvc", "outs: " + "[" * 5000 + "]" * 5000 + "\n"),
    "lock-stages-a-list": ("dvc.lock", "stages:\n- outs: [{path: corpus}]\n"),
    "lock-outs-a-number": ("dvc.lock", "stages:\n  get:\n    outs: 5\n"),
}


@pytest.mark.parametrize(("name", "text"), ODD_DVC_FILES.values(), ids=ODD_DVC_FILES.keys())
def test_an_odd_dvc_file_tracks_nothing_and_breaks_nothing(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, name: str, text: str
) -> None:
    from evalset.corpus.tracked import dvc_file_of, not_pulled

    make_git_repo(tmp_path)
    (tmp_path / name).write_text(text, "utf-8")
    assert dvc_file_of(tmp_path / "corpus") is None
    assert not_pulled(tmp_path / "corpus") is None
    (tmp_path / "evalset.toml").write_text("", "utf-8")
    (tmp_path / "sets").mkdir()
    done = cli(tmp_path, "status")
    assert done.code == 0, done.err


# A snapshots setting that names no folder: (what is there, the setting). A missing folder
# is a workspace with no snapshot yet; these are mistakes. Before, `snapshot` failed with an
# internal error (exit 3) and `stale` passed, "no snapshot yet", having compared nothing.
BAD_SNAPSHOT_FOLDERS = {
    "a-file": ("file", "dvc.yaml"),
    "a-dangling-link": ("dangling", "snapshots"),
    "a-link-to-a-file": ("link-to-file", "snapshots"),
}
SNAPSHOT_COMMANDS = {
    "snapshot": ["snapshot"],
    "stale": ["stale"],
    "stale-json": ["stale", "--json"],
    "status": ["status"],
    "validate": ["validate"],
    "verify": ["verify", "s1", "--all"],
    "pin": ["pin", "s1"],
}


@pytest.mark.parametrize("command", SNAPSHOT_COMMANDS.values(), ids=SNAPSHOT_COMMANDS.keys())
@pytest.mark.parametrize(("what", "folder"), BAD_SNAPSHOT_FOLDERS.values(),
                         ids=BAD_SNAPSHOT_FOLDERS.keys())  # fmt: skip
def test_a_snapshots_setting_that_names_no_folder_is_one_sentence(  # type: ignore[no-untyped-def]
    git_repo: Path, cli, what: str, folder: str, command: list[str]
) -> None:
    header = "evalset: 1\nname: s1\ncategories:\n  direct-lookup: a fact\nitems: []\n"
    config = f'sets = "sets"\ncorpus = "corpus"\nsnapshots = "{folder}"\n'
    files = {"evalset.toml": config, "sets/s1.yaml": header, "corpus/a.md": "# A\n\nText.\n"}
    write_files(git_repo, {**files, "dvc.yaml": "stages: {}\n"})
    if what == "dangling":
        (git_repo / folder).symlink_to(git_repo / "nowhere")
    elif what == "link-to-file":
        (git_repo / folder).symlink_to(git_repo / "dvc.yaml")
    result = cli(git_repo, *command)
    assert result.code == 2, result.out
    message = (
        f"{folder}: is not a folder, but evalset.toml names it as the folder of the "
        f'snapshots (snapshots = "{folder}"); check `snapshots` in evalset.toml.'
    )
    if "--json" in command:
        assert json.loads(result.out) == {"error": message, "exit_code": 2}
    else:
        assert (result.out, result.err) == ("", f"evalset: {message}\n")


# Names that YAML or TOML read as something else than the text given, through init: the
# workspace it writes must be valid, and its dvc.yaml a pipeline of text paths. Before,
# `name: 2024` was a number (validate failed at once), `- null` no path for DVC, and a DEL
# in --corpus made an evalset.toml no command could read.
@pytest.mark.parametrize("name", ["2024", "true", "null", "1e3", "0x1F", "1.0", "~"])
def test_init_writes_names_yaml_would_read_as_another_type(  # type: ignore[no-untyped-def]
    git_repo: Path, cli, name: str
) -> None:
    from ruamel.yaml import YAML

    folder = name if name != "~" else "tilde"
    done = cli(git_repo, "init", "--name", "s" if name == "~" else name, "--corpus", folder)
    assert done.code == 0, done.err
    assert cli(git_repo, "validate").code == 0
    stage = YAML(typ="safe").load((git_repo / "dvc.yaml").read_text())["stages"]["snapshot"]
    assert all(isinstance(p, str) for p in stage["deps"]) and folder in stage["deps"]


def test_init_escapes_what_toml_refuses_and_refuses_a_name_no_file_can_have(  # type: ignore[no-untyped-def]
    git_repo: Path, cli
) -> None:
    done = cli(git_repo, "init", "--name", "demo", "--corpus", "docs\x7f")
    assert done.code == 0, done.err
    assert cli(git_repo, "status").code == 0  # its evalset.toml reads
    other = make_git_repo(git_repo.parent / "other")
    long = cli(other, "init", "--name", "x" * 300)
    assert long.code == 2 and "is 300 bytes long" in long.err
    assert sorted(p.name for p in other.iterdir()) == [".git"]  # nothing left behind


def test_init_keeps_crlf_ignore_files_crlf_and_adds_no_line_they_have(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Before, a line ending in CRLF never matched: init added `/.evalset/` again, in LF."""
    (git_repo / ".gitignore").write_bytes(b"node_modules/\r\n/.evalset/\r\n")
    assert cli(git_repo, "init", "--name", "demo").code == 0
    data = (git_repo / ".gitignore").read_bytes()
    assert data.count(b"/.evalset/") == 1 and data.startswith(b"node_modules/\r\n/.evalset/\r\n")
    assert b"\n" not in data.replace(b"\r\n", b"")  # every line ends as the file's did


def test_init_inside_gits_own_folder_is_refused(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Before, it wrote a workspace into .git/, where nothing is committed, and a
    `.git/sets/*.yaml` line into the work tree's .gitattributes."""
    before = sorted(p.name for p in git_repo.iterdir())
    done = cli(git_repo / ".git", "init", "--name", "demo")
    assert done.code == 2 and "is inside git's own folder" in done.err
    assert sorted(p.name for p in git_repo.iterdir()) == before
    assert not (git_repo / ".git" / "evalset.toml").exists()


def test_init_names_the_files_it_added_lines_to_as_updated(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Before, `kept .gitignore (exists)`: a file init had changed read as untouched."""
    write_files(git_repo, {".gitignore": "node_modules/\n", ".gitattributes": "* text=auto\n"})
    done = cli(git_repo, "init", "--name", "demo")
    assert "updated .gitignore (the lines it lacked added)" in done.out
    assert "updated .gitattributes (the lines it lacked added)" in done.out
    again = json.loads(cli(git_repo, "init", "--json").out)
    assert again["updated"] == [] and str(git_repo / ".gitignore") in again["kept"]
    assert cli(git_repo, "-C", "", "status").code == 0  # as `git -C ""`: the folder it is in


def test_a_repository_nested_in_a_workspace_is_not_that_workspace(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Before, from the top of a repository nested in another workspace's folder (vendored,
    git-ignored), discovery walked past its .git: `new` wrote into the outer set."""
    assert cli(git_repo, "init", "--name", "outer").code == 0
    commit_all(git_repo, "outer")
    inner = make_git_repo(git_repo / "vendor" / "proj")
    (inner / "evals").mkdir()
    assert cli(inner / "evals", "init", "--name", "inner").code == 0
    commit_all(inner, "inner")
    before = (git_repo / "sets" / "outer.yaml").read_bytes()
    done = cli(inner, "new", "outer", "--question", "Written from the inner repository?")
    assert done.code == 2 and (git_repo / "sets" / "outer.yaml").read_bytes() == before
    status = cli(inner, "status")
    assert status.code == 2 and "the repository has one in evals/" in status.err
    assert cli(inner / "evals", "status").code == 0  # its own workspace, where it is


@pytest.mark.parametrize("key", ["sets", "snapshots"])
def test_folders_outside_the_repository_are_refused_by_init_and_release(  # type: ignore[no-untyped-def]
    git_repo: Path, cli, key: str
) -> None:
    """Before, init made the set outside the repository with a .gitattributes line git
    never matches, and release failed on a raw `git status` command line."""
    (git_repo / "pyproject.toml").write_text(f'[tool.evalset]\n{key} = "../elsewhere"\n')
    done = cli(git_repo, "init", "--name", "demo")
    assert done.code == 2 and f'{key} = "../elsewhere" names ' in done.err
    assert "outside the git repository" in done.err
    assert sorted(p.name for p in git_repo.iterdir()) == [".git", "pyproject.toml"]
    assert not (git_repo.parent / "elsewhere").exists()
    # a workspace configured so by hand: release says so, in a sentence
    (git_repo / "pyproject.toml").write_text("[tool.evalset]\n")
    assert cli(git_repo, "init", "--name", "demo").code == 0
    write_files(git_repo, {"corpus/a.md": "# A\n\nText.\n"})
    assert cli(git_repo, "snapshot").code == 0
    commit_all(git_repo, "a workspace")
    shutil.move(str(git_repo / key), str(git_repo.parent / "elsewhere"))
    (git_repo / "pyproject.toml").write_text(f'[tool.evalset]\n{key} = "../elsewhere"\n')
    release = cli(git_repo, "release", "demo", "--bump", "minor")
    assert release.code == 1 and "lies outside the git repository" in release.err, release.err


def test_init_with_the_sets_folder_at_the_top_writes_no_pipeline_among_the_sets(  # type: ignore[no-untyped-def]
    git_repo: Path, cli
) -> None:
    """Before, dvc.yaml went among the set files, and the new workspace failed validate."""
    (git_repo / "pyproject.toml").write_text('[tool.evalset]\nsets = "."\n')
    done = cli(git_repo, "init", "--name", "demo")
    assert done.code == 0 and "dvc.yaml not written" in done.err
    assert not (git_repo / "dvc.yaml").exists()
    assert cli(git_repo, "validate").code == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a repository to another user takes root")
def test_init_in_a_repository_another_user_owns_writes_nothing_and_says_how(  # type: ignore[no-untyped-def]
    git_repo: Path, cli
) -> None:
    """Before, init wrote every file, then failed on git's "not in a git directory" with no
    safe.directory line (and the `init --git-hooks` it suggested failed the same way)."""
    for folder, _, files in os.walk(git_repo):
        for name in (folder, *(os.path.join(folder, f) for f in files)):
            os.chown(name, 12345, 12345)
    done = cli(git_repo, "init", "--name", "demo")
    assert done.code == 2
    assert f"git config --global --add safe.directory {git_repo}" in done.err
    assert sorted(p.name for p in git_repo.iterdir()) == [".git"]


def test_init_warns_when_the_corpus_holds_the_snapshots(git_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Before, `--corpus .` was taken without a word, and DVC refused the pipeline."""
    done = cli(git_repo, "init", "--name", "demo", "--corpus", ".")
    assert done.code == 0
    assert "the corpus folder (.) holds the snapshots folder (snapshots), so DVC" in done.err


@pytest.mark.parametrize(
    ("config", "text", "key"),
    [("evalset.toml", 'corpus = "docs"\n', "`corpus`"),
     ("pyproject.toml", '[tool.evalset]\ncorpus = "docs"\n', "`corpus`")],
)  # fmt: skip
def test_a_corpus_folder_that_is_not_there_names_its_setting(  # type: ignore[no-untyped-def]
    git_repo: Path, cli, config: str, text: str, key: str
) -> None:
    """Before: "check `corpus` in the config", where the config may be a pyproject.toml."""
    write_files(git_repo, {config: text, "sets/.gitkeep": ""})
    done = cli(git_repo, "snapshot")
    assert done.code == 2
    assert done.err == (
        f"evalset: docs: the corpus folder does not exist, but {config} names it as the folder "
        f'of the documents (corpus = "docs"); put the documents there, or check {key} in '
        f"{config}.\n"
    )
