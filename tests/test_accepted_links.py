"""The accepted run, ``reports/accepted/SET.json``, reached through a symlink: the file a
link, or ``reports/accepted`` or ``reports`` one.

A link that takes the accepted run out of the workspace (a link committed to a file of the
machine that runs `evalset accept`, say ``~/.bashrc``), or into git's own folder, is refused
by `accept`, which replaced the file it led to with the report, and by `gate`, which compared
with a baseline nobody committed: one sentence naming the link, where it points and where the
accepted run would be, exit 2, and nothing written, in the workspace or where the link leads.
A link that stays in the workspace is followed, as every file evalset writes is."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import git
from test_found_files import _evalset, copied, scored_template

ACCEPTED = "reports/accepted/acme-support.json"
PRECIOUS = "not a report: what a link led accept to replace\n"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example workspace, committed, with a report of the hybrid run (``cur.json``) and
    the bm25 run's report accepted (``base.json``)."""
    return scored_template(tmp_path_factory, "links")


@pytest.fixture
def ws(template: Path, tmp_path: Path) -> Path:
    return copied(template, tmp_path)


@pytest.fixture
def outside(ws: Path) -> Path:
    """A folder beside the workspace, holding a file, an accepted run in ``acc/`` and a
    reports folder in ``reports/``, as a link could lead to them."""
    folder = ws.parent / "outside"
    (folder / "acc").mkdir(parents=True)
    (folder / "reports" / "accepted").mkdir(parents=True)
    (folder / "empty").mkdir()
    (folder / "precious.json").write_text(PRECIOUS)
    kept = (ws / ACCEPTED).read_bytes()
    (folder / "acc" / "acme-support.json").write_bytes(kept)
    (folder / "reports" / ACCEPTED.removeprefix("reports/")).write_bytes(kept)
    return folder


def _link(ws: Path, name: str, to: str | Path) -> tuple[str, str]:
    """``name`` (in the workspace) made a symlink to ``to``, in place of what was there."""
    path = ws / name
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
    path.symlink_to(to)
    return name, str(to)


Made = tuple[str, str, Path]
"""The link (in the workspace), where it points, and where the accepted run lies."""


def _file_absolute(ws: Path, outside: Path) -> Made:
    return (*_link(ws, ACCEPTED, outside / "precious.json"), outside / "precious.json")


def _file_relative(ws: Path, outside: Path) -> Made:
    return (*_link(ws, ACCEPTED, "../../../outside/precious.json"), outside / "precious.json")


def _dangling(ws: Path, outside: Path) -> Made:
    return (*_link(ws, ACCEPTED, outside / "gone.json"), outside / "gone.json")


def _chain(ws: Path, outside: Path) -> Made:
    (ws / "alias.json").symlink_to(outside / "precious.json")  # a link in the workspace...
    return (*_link(ws, ACCEPTED, "../../alias.json"), outside / "precious.json")  # ...out


def _accepted_folder(ws: Path, outside: Path) -> Made:
    return (*_link(ws, "reports/accepted", outside / "acc"), outside / "acc/acme-support.json")


def _reports_folder(ws: Path, outside: Path) -> Made:
    return (*_link(ws, "reports", outside / "reports"), outside / ACCEPTED)


def _reports_folder_empty(ws: Path, outside: Path) -> Made:
    """No accepted run there yet: accept made the folders, out there, and wrote it."""
    return (*_link(ws, "reports", "../outside/empty"), outside / "empty/accepted/acme-support.json")


def _git_folder(ws: Path, outside: Path) -> Made:
    return (*_link(ws, ACCEPTED, "../../.git/description"), ws / ".git" / "description")


OUT = "outside the workspace"
LINKS: dict[str, tuple[Callable[[Path, Path], Made], str]] = {
    "file outside, absolute link": (_file_absolute, OUT),
    "file outside, relative link": (_file_relative, OUT),
    "dangling link outside": (_dangling, OUT),
    "link to a link outside": (_chain, OUT),
    "reports/accepted a link to a folder outside": (_accepted_folder, OUT),
    "reports a link to a folder outside": (_reports_folder, OUT),
    "reports a link to an empty folder outside": (_reports_folder_empty, OUT),
    "link into git's folder": (_git_folder, "in git's own folder"),
}


def _everything(folder: Path) -> dict[str, bytes | str]:
    """Every name under ``folder`` with a file's bytes, or where a link points (not git's
    store, nor evalset's caches)."""
    found: dict[str, bytes | str] = {}
    for top, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if d not in (".git", ".evalset")]
        for name in [*dirs, *names]:
            path = Path(top) / name
            rel = str(path.relative_to(folder))
            if path.is_symlink():
                found[rel] = os.readlink(path)
            elif path.is_file():
                found[rel] = path.read_bytes()
    return found


def _state(ws: Path, outside: Path, lands: Path) -> tuple[object, ...]:
    held = lands.read_bytes() if lands.is_file() else None
    return git(ws, "status", "--porcelain"), _everything(ws), _everything(outside), held


COMMANDS = {
    "accept": (
        ["accept", "base.json"],
        "written to",
        "remove the link (an accepted run is a file of the workspace, to commit), then accept "
        "the report again",
    ),
    "gate": (
        ["gate", "cur.json"],
        "read from",
        "remove the link, then accept a run with `evalset accept REPORT.json`",
    ),
}


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("case", LINKS)
def test_an_accepted_run_a_link_leads_away_is_refused(
    ws: Path, outside: Path, case: str, command: str
) -> None:
    make, where = LINKS[case]
    link, to, lands = make(ws, outside)
    argv, done_there, fix = COMMANDS[command]
    before = _state(ws, outside, lands)
    done = _evalset(ws, *argv)
    shown = os.path.relpath(lands, ws) if where != OUT else os.path.realpath(lands)
    assert (done.returncode, done.stderr, done.stdout) == (
        2,
        f"evalset: {link}: is a symlink to {to}, so the accepted run of acme-support would be "
        f"{done_there} {shown}, {where}; {fix}.\n",
        "",
    )
    assert _state(ws, outside, lands) == before  # nothing written, there or anywhere else


INSIDE = {"file": (ACCEPTED, "../../kept/acme-support.json"),
          "reports/accepted": ("reports/accepted", "../kept")}  # fmt: skip


@pytest.mark.parametrize("case", INSIDE)
def test_a_link_that_stays_in_the_workspace_is_followed(ws: Path, case: str) -> None:
    """The accepted run kept in another folder of the workspace, say: it is written where
    the link leads, and the gate reads it there."""
    (ws / "kept").mkdir()
    (ws / "kept" / "acme-support.json").write_text(PRECIOUS)
    link, to = INSIDE[case]
    _link(ws, link, to)
    done = _evalset(ws, "accept", "base.json")
    assert done.returncode == 0, done.stderr
    assert (ws / "kept" / "acme-support.json").read_bytes() == (ws / "base.json").read_bytes()
    assert os.readlink(ws / link) == to  # the link kept
    gated = _evalset(ws, "gate", "cur.json", "--metric", "recall@5")
    assert gated.returncode == 1, gated.stderr  # the multi-hop regression of the README
    assert "REGRESSION multi-hop recall@5" in gated.stdout
