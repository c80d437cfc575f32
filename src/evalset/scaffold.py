"""`evalset init`: scaffolding a workspace (config, a first set, snapshots/, the DVC
pipeline, JSON Schemas) and registering the git merge driver for set files. A file that
exists is never overwritten."""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from evalset.config import (
    CONFIG_FILE,
    STATE_DIR,
    Config,
    kept_folder,
    same_folder,
    setting_problem,
    workspace_at,
)
from evalset.errors import EvalsetError
from evalset.fsio import (
    atomic_write,
    check_target,
    create_new,
    dangling_folder,
    make_folders,
    not_a_file,
    read_found,
)
from evalset.git import MERGE_DRIVER, attribute_pattern
from evalset.sets.model import set_name_problem
from evalset.sets.schema import rendered
from evalset.sets.yamlio import read_otherwise
from evalset.workspace import SET_SUFFIXES, display_path

FIRST_SET = """\
# yaml-language-server: $schema={schemas}/evalset.schema.json
evalset: 1
name: {name}
description: What the system under test does, in one sentence
categories:
  direct-lookup: a fact stated in one section
  paraphrased: asked in other words than the documents use
  multi-hop: needs two or more sections
  out-of-scope: the corpus cannot answer; the system must decline
  injection: tries to override instructions (direct or via a planted document)
items: []
"""


CONFIG = """\
# evalset workspace configuration (see the README's Configuration section).
sets = "sets"            # eval-set YAML files
corpus = {corpus}# the documents (git- or DVC-tracked, or neither)
snapshots = "snapshots"  # snapshot manifests, committed to git

[split]
ratio = 0.2              # target holdout share per category

[validate]
min_per_category = 5     # coverage warning threshold
"""


PIPELINE = """\
# evalset pipeline: `dvc repro` snapshots the corpus when it changes, validates the sets,
# and writes the stale report (run `dvc init` once if the repository has no .dvc/ yet).
stages:
  snapshot:
    cmd: evalset snapshot
    deps:
      - {corpus}
    outs:
      - {snapshots}:
          cache: false
          persist: true
  validate:
    cmd: evalset validate
    deps:
      - {sets}
      - {snapshots}
  stale:
    cmd: mkdir -p reports && evalset stale --no-fail --json > reports/stale.json
    deps:
      - {sets}
      - {snapshots}
    outs:
      - reports/stale.json:
          cache: false
"""


def _default_name(folder: str) -> str:
    """A set name from a folder name, made fit for a git tag."""
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", folder)
    name = re.sub(r"\.{2,}", ".", name).strip("-.").removesuffix(".lock").strip("-.")
    return name or "evals"


@dataclass
class InitResult:
    root: Path
    created: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)
    updated: list[Path] = field(default_factory=list)
    """Files that existed and got the lines they lacked (``.gitignore``, ``.gitattributes``):
    changed, so to commit."""
    configured: list[str] = field(default_factory=list)
    """git config keys that were set."""
    warnings: list[str] = field(default_factory=list)


def _git_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


MERGE_ATTRIBUTES = "{sets}/*.yaml merge=evalset\n{sets}/*.yml merge=evalset\n"


INIT, HOOKS = "evalset init", "evalset init --git-hooks"
"""The two commands that write ``.gitattributes``, for saying which to run again."""


def _again(command: str) -> str:
    return f"then run `{command}` again (it wrote nothing)"


_AGAIN = _again(INIT)


@dataclass
class _Appended:
    """A file init adds lines to (``.gitignore``, ``.gitattributes``): its new bytes, None
    when it has every line already."""

    path: Path
    existed: bool
    data: bytes | None


def _appended(
    path: Path, what: str, lines: list[str], dropped: list[str] | None = None, command: str = INIT
) -> _Appended:
    """``path`` with the ``lines`` it lacks added at its end, and the ``dropped`` lines
    taken out. Its other bytes are kept as they are, whatever their encoding (git reads
    these files byte by byte). Refused, in one sentence, when it cannot be read or
    written, or is no file (a named pipe, a socket, a device: ``what`` says what it should
    hold; ``command`` is the one to run again)."""
    again = _again(command)
    if path.is_dir():
        raise EvalsetError(
            f"{display_path(path)}: is a folder, where `{command}` writes a file; move or "
            f"rename it, {again}."
        )
    refused = not_a_file(path)
    shown = display_path(path.parent) / path.name  # the link, not where it points
    if refused is not None and not refused.dangling:
        # git reads it too: a named pipe would keep git (and init) waiting for a writer
        raise EvalsetError(refused.sentence(f"file of {what}", f"remove it, {again}", shown))
    if path.is_symlink():  # lines written through it would go elsewhere, and count for nothing
        raise EvalsetError(
            f"{shown}: is a symlink (to {os.readlink(path)}), and git reads {path.name} only "
            f"as a file of the repository, never through a link; replace the link by a file "
            f"holding the lines you want, {again}."
        )
    try:
        existing = read_found(path) if path.exists() else b""
    except OSError as exc:
        raise EvalsetError(
            f"{display_path(path)}: cannot be read ({exc.strerror}), so `{command}` cannot "
            f"add its lines to it; make it a readable file, {again}."
        ) from None
    raw = existing.decode("utf-8", "surrogateescape").split("\n")
    have = [line.removesuffix("\r") for line in raw]  # a file saved with CRLF line ends
    missing = [line for line in lines if line not in have]
    gone = [line for line in dropped or [] if line in have]
    if not missing and not gone:
        return _Appended(path, True, None)
    if path.is_file():
        check_target(path)  # a read-only file is not replaced
    if gone:
        kept = [line for line, plain in zip(raw, have, strict=True) if plain not in gone]
        existing = "\n".join(kept).encode("utf-8", "surrogateescape")
    end = "\r\n" if b"\r\n" in existing else "\n"  # new lines end as the file's do
    lead = b"" if not existing or existing.endswith(b"\n") else end.encode()
    added = "".join(f"{line}{end}" for line in missing).encode("utf-8", "surrogateescape")
    return _Appended(path, path.exists(), existing + lead + added)


def _attributes(root: Path, sets: str, command: str = INIT) -> _Appended:
    """The ``.gitattributes`` of the repository around ``root``, routing the set files of
    the folder ``sets`` to the merge driver."""
    git_root = _git_root(root)
    if git_root is None:
        raise EvalsetError(f"{root}: is not inside a git repository; run `git init` first.")
    folder = Path(os.path.relpath(root / sets, git_root)).as_posix()
    # A folder at the repository's top is written "/", so that the pattern stays anchored.
    prefix = "" if folder == "." else attribute_pattern(folder)
    wanted = MERGE_ATTRIBUTES.format(sets=prefix).splitlines()
    # The line evalset 0.1 wrote for a folder whose name needs escaping, which git cannot
    # read (it warns about it on every command): replaced by the one it can.
    unreadable = [] if prefix == folder else MERGE_ATTRIBUTES.format(sets=folder).splitlines()
    return _appended(git_root / ".gitattributes", "git attributes", wanted, unreadable, command)


def _write_appended(appended: _Appended, result: InitResult) -> None:
    if appended.data is None:
        result.kept.append(appended.path)
        return
    atomic_write(appended.path, appended.data)
    (result.updated if appended.existed else result.created).append(appended.path)


def install_merge_driver(root: Path, sets: str, result: InitResult, command: str = INIT) -> None:
    """Register the set-file merge driver: ``.gitattributes`` lines (committed, so every clone
    routes set files to it) and ``merge.evalset.*`` in the repository's git config (local to
    each clone, so `evalset init --git-hooks` repeats it after cloning)."""
    attributes = _attributes(root, sets, command)
    _register_driver(root, result)
    _write_appended(attributes, result)


def _register_driver(root: Path, result: InitResult) -> None:
    """``merge.evalset.*`` in the git config of the repository around ``root``."""
    git_root = _git_root(root)
    assert git_root is not None  # checked by the caller
    for key, value in (
        ("merge.evalset.name", "evalset set files, merged by item id"),
        ("merge.evalset.driver", MERGE_DRIVER),
    ):
        _git_config(git_root, key, value)
    result.configured.append("merge.evalset.driver")


def _git_config(git_root: Path, key: str, value: str) -> None:
    """Set a key of the repository's git config. git locks the file while it writes it, and
    refuses to when another git command holds that lock (another init at the same moment):
    it is tried again for a few seconds, then the failure is one sentence."""
    import subprocess
    import time

    for _ in range(60):
        done = subprocess.run(
            ["git", "config", key, value], cwd=git_root, capture_output=True, text=True
        )
        if done.returncode == 0:
            return
        if "could not lock config file" not in done.stderr:
            break
        time.sleep(0.05)
    if "could not lock config file" in done.stderr:  # still, after seconds: a git was stopped
        lock = git_root / ".git" / "config.lock"
        raise EvalsetError(
            f"{git_root}: git could not record the merge driver because its config is locked "
            f"({lock} exists): another git command is writing it, or one was stopped before it "
            "finished; when none is running, delete that file and run `evalset init --git-hooks`."
        )
    detail = " ".join(done.stderr.split()) or f"exit status {done.returncode}"
    raise EvalsetError(
        f"{git_root}: git could not record the merge driver in its config ({detail}); fix "
        "the cause, then run `evalset init --git-hooks`."
    )


def _yaml_path(path: str) -> str:
    """A text (a folder, a set's name) as a YAML scalar: as it is when YAML reads it plain
    as that text, else quoted (a JSON string is a YAML scalar too), so that no name breaks
    a file: ``2024``, ``true`` or ``null`` plain would read as a number, a boolean, nothing,
    and ``yes``, ``_1`` or ``0X1F`` so to some YAML readers (``read_otherwise``)."""
    if re.fullmatch(r"[A-Za-z0-9._/-]+", path):
        from ruamel.yaml import YAML

        if YAML(typ="safe", pure=True).load(path) == path and not read_otherwise(path):
            return path
    return _toml_string(path)


def _toml_string(value: str) -> str:
    """A TOML basic string (JSON's escapes are TOML's; DEL, which JSON leaves as it is and
    TOML refuses, is escaped too)."""
    import json

    return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")


def init_workspace(
    root: Path, name: str | None = None, git_hooks_only: bool = False, corpus: str | None = None
) -> InitResult:
    """Scaffold a workspace in ``root`` (inside a git repository); never overwrites a file.
    ``corpus``: the documents' folder, relative to ``root`` (default ``corpus``); a warning
    says when it does not exist (yet)."""
    root = root.resolve()
    git_root = _git_root(root)
    if git_root is None:
        raise EvalsetError(f"{root}: is not inside a git repository; run `git init` first.")
    from evalset import gitcmd

    # git refusing the repository (another user owns it) is told before anything is written;
    # no git to run at all is told where the merge driver is registered
    with contextlib.suppress(OSError):
        gitcmd.run(root, "rev-parse", "--git-dir")
    if ".git" in root.relative_to(git_root).parts:  # git's own folder: nothing there is tracked
        raise EvalsetError(
            f"{root}: is inside git's own folder ({git_root / '.git'}), where nothing is "
            f"committed; run `evalset init` in the work tree ({git_root}) or a folder of it."
        )
    set_name = name or _default_name(root.name)
    problem = set_name_problem(set_name)
    if problem is not None:
        raise EvalsetError(f"{root}: {problem}; choose another with --name.")
    problem = None if corpus is None else setting_problem("corpus", corpus) or kept_folder(corpus)
    if corpus is not None and problem is None and same_folder(corpus, Config().snapshots):
        problem = f'is the folder of the snapshots (snapshots = "{Config().snapshots}")'
    if problem is not None:  # the configuration written would be one no command can read
        raise EvalsetError(
            f"--corpus {corpus!r}: {problem}; give the folder that holds the documents, {_AGAIN}."
        )
    result = InitResult(root)
    if git_hooks_only:
        from evalset.config import find_workspace

        workspace = find_workspace(root)
        install_merge_driver(workspace.root, workspace.config.sets, result, HOOKS)
        return result
    # A configuration the folder has already is kept, and its folders are the ones written.
    configured = workspace_at(root)
    if configured is None:
        folder = Path(corpus).as_posix() if corpus is not None else "corpus"
        sets, snapshots = Config().sets, Config().snapshots
    else:
        folder, sets = configured.config.corpus, configured.config.sets
        snapshots = configured.config.snapshots
        result.kept.append(configured.config_file)
    where = configured.config_file.name if configured else CONFIG_FILE
    for key, value in (("sets", sets), ("snapshots", snapshots)):
        target = (root / value).resolve()
        if target != git_root and git_root not in target.parents:
            raise EvalsetError(
                f"{root / where}: {key} = {_toml_string(value)} names {target}, outside the git "
                f"repository ({git_root}), which commits, releases and merges set files and "
                f"snapshots; name a folder inside it, {_AGAIN}."
            )
    files: dict[Path, str] = {}
    if configured is None:
        files[root / CONFIG_FILE] = CONFIG.format(corpus=_toml_string(folder).ljust(15) + " ")
    present = _set_files(root / sets, None if name is None else set_name)
    if present:  # a workspace with sets gets no other unless one is named
        result.kept += present
    else:
        schemas_from_sets = Path(os.path.relpath(root / "schemas", root / sets)).as_posix()
        files[root / sets / f"{set_name}.yaml"] = FIRST_SET.format(
            name=_yaml_path(set_name), schemas=schemas_from_sets
        )
    files[root / snapshots / ".gitkeep"] = ""
    corpus_dir, snapshots_dir = (root / folder).resolve(), (root / snapshots).resolve()
    if corpus_dir == snapshots_dir or corpus_dir in snapshots_dir.parents:
        result.warnings.append(
            f"the corpus folder ({folder}) holds the snapshots folder ({snapshots}), so DVC "
            "refuses dvc.yaml's snapshot stage (its dependency would hold its output); give "
            "the documents a folder of their own (`corpus` in the configuration)"
        )
    if (root / sets).resolve() != root:
        files[root / "dvc.yaml"] = PIPELINE.format(
            sets=_yaml_path(sets), corpus=_yaml_path(folder), snapshots=_yaml_path(snapshots)
        )
    else:  # among the set files, every .yaml is read as a set: a pipeline there would fail
        result.warnings.append(
            f"dvc.yaml not written: the sets folder is the workspace's own (sets = "
            f"{_toml_string(sets)}), where every .yaml file is read as a set file; write the "
            "pipeline (README, The DVC pipeline) in a folder outside the sets folder"
        )
    schemas = {root / "schemas" / name: text for name, text in rendered().items()}
    # Everything is checked before anything is written: an init refused half-way would
    # leave files that the next run keeps.
    _check_writable([*files, *schemas])
    # Reports are generated, except the accepted runs the gate compares with (`evalset accept`).
    ignored = _appended(
        root / ".gitignore", "ignore rules", [f"/{STATE_DIR}/", "/reports/*", "!/reports/accepted/"]
    )
    attributes = _attributes(root, sets)
    for path, text in files.items():
        _create(path, text, result)
    _write_appended(ignored, result)
    for path, text in schemas.items():
        _create(path, text, result)
    _write_appended(attributes, result)
    # Last: a git config another git command holds locked is the one failure the checks
    # above cannot foresee, and its message says to run `evalset init --git-hooks`.
    _register_driver(root, result)
    _check_corpus(root, corpus if configured is not None else None, result)
    return result


def _create(path: Path, text: str, result: InitResult) -> None:
    make_folders(path)
    # Created whole or not at all: a half-written file would be kept by the next run.
    (result.created if create_new(path, text) else result.kept).append(path)


def _set_files(folder: Path, name: str | None) -> list[Path]:
    """The set files in ``folder`` (the one named ``name``, when given)."""
    if not folder.is_dir():
        return []
    if name is not None:
        return [p for p in (folder / f"{name}{s}" for s in SET_SUFFIXES) if p.is_file()][:1]
    return sorted(p for p in folder.iterdir() if p.suffix in SET_SUFFIXES and p.is_file())


def _check_writable(targets: list[Path]) -> None:
    """Refuse, in one sentence and before anything is written, a file init could not create:
    a folder where it goes, a file where a folder it goes in should be, or a folder that
    cannot be written to."""
    again = _AGAIN
    for target in targets:
        if target.is_dir():
            raise EvalsetError(
                f"{display_path(target)}: is a folder, where `evalset init` writes a file; "
                f"move or rename it, {again}."
            )
        dangling = dangling_folder(target)
        if dangling is not None:
            link = dangling.link
            shown = display_path(link.parent) / link.name  # the link, not where it points
            raise EvalsetError(
                f"{shown}: is {dangling.points}, where `evalset init` makes a folder for "
                f"{shown / target.relative_to(link)}; {dangling.fix}, {again}."
            )
        folder = target.parent
        while not folder.exists() and not folder.is_symlink():
            folder = folder.parent
        if not folder.is_dir():
            raise EvalsetError(
                f"{display_path(folder)}: is a file, where `evalset init` makes a folder for "
                f"{display_path(target)}; move or rename it, {again}."
            )
        if not target.exists() and not os.access(folder, os.W_OK | os.X_OK):
            raise EvalsetError(
                f"{display_path(folder)}: cannot be written to, so `evalset init` cannot "
                f"create {display_path(target)} there; make it writable, {again}."
            )


def _check_corpus(root: Path, asked: str | None, result: InitResult) -> None:
    """Warn when the corpus folder the workspace is configured with does not exist, and when
    ``asked`` (``--corpus``, given where a configuration existed, which is kept) differs
    from the folder it names."""
    from evalset.config import find_workspace

    workspace = find_workspace(root)
    configured = workspace.config.corpus
    where = os.path.relpath(workspace.config_file, root)
    if asked is not None and Path(asked).as_posix() != configured:
        result.warnings.append(
            f"{where} was kept, and configures the corpus as {configured!r}: --corpus "
            f"{asked!r} was not written; edit `corpus` there to change it"
        )
    if workspace.corpus_dir.exists() and not workspace.corpus_dir.is_dir():
        result.warnings.append(
            f"the corpus folder {configured!r} is a file, not a folder: give the folder that "
            f"holds the documents (set `corpus` in {where}), then run `evalset snapshot`"
        )
    elif not workspace.corpus_dir.is_dir():
        result.warnings.append(
            f"the corpus folder {configured!r} does not exist yet: put the documents there "
            f"(or set `corpus` in {where}), then run `evalset snapshot`"
        )
