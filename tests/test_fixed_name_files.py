"""Files evalset finds by a fixed name, or by a name its configuration gives, rather than
by listing a folder or by a path the user types, when the name there is no file: a named
pipe (FIFO), a folder, a symlink to nothing, a symlink to a named pipe.

- Where evalset reads what the file holds (``evalset.toml``; ``.gitignore`` and
  ``.gitattributes``, which `init` adds its lines to and `status` reads for the merge
  driver; the record of a release begun, in git's folder; the schemas `schema --write`
  compares; a set named by its name; a judge's prompt files, from the configuration;
  the accepted run `gate` compares with), the name is refused in one sentence, with exit
  status 2, and nothing is written.
- Where a file is optional and one that cannot be read is already taken for none (a
  ``.dvc`` file beside the documents), a named pipe is none as well, never waited on.

Opening a named pipe waits for a writer that never comes, so every command runs in a
process of its own under a timeout (``tests/test_found_files.py``): a command that waits
fails its case rather than hanging the suite."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import git
from test_found_files import ENV, KINDS, TIMEOUT, _evalset, _refusal, copied, scored_template

REFUSED = ("named pipe", "symlink to a named pipe")
"""The kinds refused where the others (a folder, a symlink to nothing) were already said
(a folder) or written through (a symlink to nothing, as every file evalset writes is)."""
EVERY = ("named pipe", "folder", "dangling symlink", "symlink to a named pipe")
ACCEPTED = "reports/accepted/acme-support.json"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example workspace, committed, not yet given `evalset init`'s files, with a report
    of the hybrid run (``cur.json``) and the bm25 run's report accepted."""
    return scored_template(tmp_path_factory, "fixed")


@pytest.fixture
def ws(template: Path, tmp_path: Path) -> Path:
    return copied(template, tmp_path)


def _files(ws: Path) -> dict[str, object]:
    """Every name in the workspace (not git's store, nor evalset's caches) with what it is
    and a regular file's bytes: `git status` cannot say it, as git itself waits on a named
    pipe in place of ``.gitignore`` or ``.gitattributes``."""
    found: dict[str, object] = {}
    for folder, dirs, names in os.walk(ws):
        rel = Path(folder).relative_to(ws)
        if rel.parts[:1] == (".evalset",) or rel.parts[:2] in ((".git", "objects"),):
            continue
        for name in [*dirs, *names]:
            path = Path(folder, name)
            if rel.parts[:1] == (".git",) and name in ("index", "logs"):
                continue
            mode = path.lstat().st_mode
            found[str(rel / name)] = path.read_bytes() if path.is_file() else mode
    return found


def _refused(ws: Path, argv: list[str], expected: str) -> None:
    before = _files(ws)
    done = _evalset(ws, *argv)
    assert (done.returncode, done.stderr) == (2, expected)
    assert "Traceback" not in done.stdout + done.stderr
    assert _files(ws) == before  # nothing written, nothing half-written


# -- files `evalset init` adds its lines to ---------------------------------------------

APPENDED = {
    "init, .gitignore": (".gitignore", ["init"], "file of ignore rules"),
    "init, .gitattributes": (".gitattributes", ["init"], "file of git attributes"),
    "init --git-hooks": (".gitattributes", ["init", "--git-hooks"], "file of git attributes"),
}


@pytest.mark.parametrize("case", APPENDED)
@pytest.mark.parametrize("kind", REFUSED)
def test_init_refuses_a_file_it_adds_lines_to_that_is_no_file(
    ws: Path, kind: str, case: str
) -> None:
    """git reads them too: git itself waits on a named pipe there."""
    name, argv, what = APPENDED[case]
    (ws / name).unlink(missing_ok=True)
    made = KINDS[kind](ws / name, ws)
    again = f"remove it, then run `evalset {' '.join(argv)}` again (it wrote nothing)"
    _refused(ws, argv, _refusal(name, made, what, again))


# where a symlink in place of .gitignore or .gitattributes points: git (2.32 and later)
# reads neither through a link, so lines written through one would count for nothing
LINKED = {
    "to a file outside": lambda ws: _outside(ws),
    "to a file inside": lambda ws: _inside(ws),
    "to nothing": lambda ws: "no-such-file",
}


def _outside(ws: Path) -> str:
    target = ws.parent / "elsewhere.txt"
    target.write_text("*.log\n", encoding="utf-8")
    return str(target)


def _inside(ws: Path) -> str:
    (ws / "shared.txt").write_text("*.log\n", encoding="utf-8")
    git(ws, "add", "shared.txt")
    git(ws, "commit", "-qm", "shared")
    return "shared.txt"


@pytest.mark.parametrize("case", APPENDED)
@pytest.mark.parametrize("link", LINKED)
def test_init_refuses_a_file_it_adds_lines_to_that_is_a_symlink(
    ws: Path, link: str, case: str
) -> None:
    """It used to write through the link (or keep it, its lines "there"), and `status` kept
    telling the user to run the command again."""
    name, argv, _ = APPENDED[case]
    (ws / name).unlink(missing_ok=True)
    target = LINKED[link](ws)
    outside = Path(target).read_bytes() if link == "to a file outside" else None
    (ws / name).symlink_to(target)
    expected = (
        f"evalset: {name}: is a symlink (to {target}), and git reads {name} only as a file of "
        "the repository, never through a link; replace the link by a file holding the lines "
        f"you want, then run `evalset {' '.join(argv)}` again (it wrote nothing).\n"
    )
    _refused(ws, argv, expected)
    if outside is not None:
        assert Path(target).read_bytes() == outside


def test_status_says_a_gitattributes_symlink_is_not_read(ws: Path) -> None:
    """The set files are not routed to the merge driver, and `init --git-hooks` cannot help
    while the link is there."""
    assert _evalset(ws, "init").returncode == 0
    (ws / ".gitattributes").rename(ws / "attributes.txt")
    (ws / ".gitattributes").symlink_to("attributes.txt")
    done = _evalset(ws, "status")
    assert done.returncode == 0, done.stderr
    assert (
        "(.gitattributes is a symlink, which git does not read); replace the link by a file "
        "holding its lines, then run `evalset init --git-hooks`"
    ) in done.stdout + done.stderr


@pytest.mark.parametrize("kind", ["named pipe", "folder", "symlink to a named pipe"])
def test_status_refuses_a_gitattributes_that_is_no_file(ws: Path, kind: str) -> None:
    """Read for the merge driver; `git check-attr` would wait on a named pipe too. (A
    symlink to nothing is no file to git either, as a missing one.)"""
    made = KINDS[kind](ws / ".gitattributes", ws)
    expected = _refusal(".gitattributes", made, "file of git attributes", "remove it")
    _refused(ws, ["status"], expected)


# -- evalset.toml, the schemas, a set by its name, a release begun -----------------------


@pytest.mark.parametrize("kind", EVERY)
@pytest.mark.parametrize("argv", [["status"], ["validate"], ["init"]], ids=" ".join)
def test_a_configuration_that_is_no_file_is_refused(ws: Path, kind: str, argv: list[str]) -> None:
    """Not passed over as "no workspace here", nor a workspace of another folder above."""
    (ws / "evalset.toml").unlink()
    made = KINDS[kind](ws / "evalset.toml", ws)
    _refused(ws, argv, _refusal("evalset.toml", made, "configuration file", "remove it"))


@pytest.mark.parametrize("kind", REFUSED)
def test_schema_write_refuses_a_schema_that_is_no_file(ws: Path, kind: str) -> None:
    """Read, a named pipe would wait for a writer; written, for a reader."""
    (ws / "schemas").mkdir()
    name = "schemas/evalset.schema.json"
    made = KINDS[kind](ws / name, ws)
    fix = "remove it, then run `evalset schema --write` again (it wrote nothing)"
    _refused(ws, ["schema", "--write"], _refusal(name, made, "schema file", fix))


@pytest.mark.parametrize("kind", EVERY)
@pytest.mark.parametrize("argv", [["validate", "acme-support"], ["pin", "acme-support"]], ids=str)
def test_a_set_named_by_its_name_that_is_no_file_is_refused(
    ws: Path, kind: str, argv: list[str]
) -> None:
    """As over every set (``tests/test_found_files.py``), not "no set named acme-support"."""
    (ws / "sets" / "acme-support.yaml").unlink()
    made = KINDS[kind](ws / "sets" / "acme-support.yaml", ws)
    fix = "remove it, or move it out of sets"
    _refused(ws, argv, _refusal("sets/acme-support.yaml", made, "set file", fix))


@pytest.mark.parametrize("kind", ["named pipe", "folder", "symlink to a named pipe"])
def test_release_refuses_a_record_of_a_release_that_is_no_file(ws: Path, kind: str) -> None:
    """Read as none, the release would then write its record into it (a named pipe waiting
    for a reader). A symlink to nothing is none, and written through."""
    record = ws / ".git" / "evalset" / "release-acme-support.json"
    record.parent.mkdir()
    made = KINDS[kind](record, ws)
    what = "record of a release begun (evalset writes it there)"
    shown = ".git/evalset/release-acme-support.json"
    argv = ["release", "acme-support", "--bump", "minor"]
    _refused(ws, argv, _refusal(shown, made, what, "remove it"))


# -- the accepted run, made a named pipe after gate looked at it -------------------------

SWAPPED = """\
import os, sys
from evalset.score import gate

looked = gate.baseline_for


def swapped(*args):
    path = looked(*args)
    path.unlink()
    os.mkfifo(path)  # after it was looked at, before it is read
    return path


gate.baseline_for = swapped
from evalset.cli import command

sys.argv = ["evalset", "gate", "cur.json"]
command()
"""


def _python(code: str, cwd: Path, what: str) -> subprocess.CompletedProcess[str]:
    """``code`` run by Python in ``cwd``; the test fails when ``what`` still ran after
    ``TIMEOUT`` seconds: it waits."""
    try:
        return subprocess.run(
            [sys.executable, "-c", code],
            cwd=cwd, env=ENV, capture_output=True, text=True, timeout=TIMEOUT,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"{what} still ran after {TIMEOUT} s: it waits")


def test_gate_never_waits_on_an_accepted_run_made_a_named_pipe_after_it_was_looked_at(
    ws: Path,
) -> None:
    done = _python(SWAPPED, ws, "gate")
    fix = "remove it, then accept a run with `evalset accept REPORT.json`"
    expected = _refusal(ACCEPTED, ("a named pipe", False), "report", fix)
    assert (done.returncode, done.stderr) == (2, expected)


# -- a judge's prompt files, named by the configuration ----------------------------------

PROMPTS = """\
import sys
from pathlib import Path
from evalset.score.judges.base import JudgeBroken
from evalset.score.judges.openai_chat import load_prompts

try:
    load_prompts(Path("prompts"))
except JudgeBroken as exc:
    sys.exit(str(exc))
"""


@pytest.mark.parametrize("kind", EVERY)
def test_a_prompt_file_that_is_no_file_is_refused(tmp_path: Path, kind: str) -> None:
    """Not waited on, and not replaced by the shipped prompt without a word. (Through the
    library: the openai judge reads its prompts once the openai package is imported.)"""
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "refuses.txt").write_text("Does {text} refuse?\n")
    made = KINDS[kind](tmp_path / "prompts" / "entails.txt", tmp_path)
    done = _python(PROMPTS, tmp_path, "load_prompts")
    fix = "remove it to use the shipped prompt, or put the prompt there as a file"
    expected = _refusal("prompts/entails.txt", made, "prompt file", fix)
    assert (done.returncode, done.stderr) == (1, expected.removeprefix("evalset: "))


# -- a .dvc file beside the documents: optional ------------------------------------------


def test_a_dvc_file_that_leads_to_a_named_pipe_is_none(ws: Path, tmp_path: Path) -> None:
    """A ``.dvc`` file is read only to say what of the corpus DVC keeps elsewhere; one that
    cannot be read says nothing, and a named pipe is not waited on either."""
    pristine = Path(shutil.copytree(ws, tmp_path / "pristine", symlinks=True))
    expected = _evalset(pristine, "snapshot")
    assert expected.returncode == 0, expected.stderr
    os.mkfifo(ws / "corpus" / "pipe")
    (ws / "corpus" / "x.dvc").symlink_to("pipe")
    done = _evalset(ws, "snapshot")
    assert (done.returncode, done.stdout, done.stderr) == (0, expected.stdout, expected.stderr)
