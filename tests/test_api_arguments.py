"""Wrong arguments to the public API are refused with a sentence, never taken for something
else: before, a path given as text to `validate` was read as one set file per character, a
fingerprint format that does not exist was computed as format 1 or 2, a snapshot of an
unknown hash mode was written, `release` took a version and ignored the bump given with it,
`pin`, `verify`, `fix_moved` and `release` took a set of a nested workspace with the outer
one's snapshots, and
`find_workspace` failed on a path given as text."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import evalset
from conftest import commit_all, git
from evalset.staleness.verify import verify_from_header


@pytest.mark.parametrize("given", ["sets/acme-support.yaml", Path("sets/acme-support.yaml")])
def test_validate_takes_a_list_not_one_path(  # type: ignore[no-untyped-def]
    example: Path, monkeypatch: pytest.MonkeyPatch, given
) -> None:
    monkeypatch.chdir(example)
    with pytest.raises(TypeError) as refused:
        evalset.validate(given)
    assert str(refused.value) == (
        "validate() takes a list of set files, not one path: validate(['sets/acme-support.yaml'])"
    )
    assert evalset.validate([given]).files == [Path("sets/acme-support.yaml")]


NO_FORMAT = "does not exist: give 1 or 2, or None for the newest"
NOT_A_FORMAT = "fmt must be a fingerprint format, a whole number (1, 2), or None for the newest"


@pytest.mark.parametrize(
    ("fmt", "kind", "message"),
    [
        (0, ValueError, f"fingerprint format 0 {NO_FORMAT}"),
        (-5, ValueError, f"fingerprint format -5 {NO_FORMAT}"),
        (9, ValueError, f"fingerprint format 9 {NO_FORMAT}"),
        (True, TypeError, f"{NOT_A_FORMAT}; got bool True"),
        ("2", TypeError, f"{NOT_A_FORMAT}; got str '2'"),
    ],
)
def test_a_fingerprint_format_that_does_not_exist_is_refused(
    example: Path, fmt: object, kind: type[Exception], message: str
) -> None:
    loaded = evalset.load_set(example / "sets" / "acme-support.yaml")
    for function in (evalset.set_fingerprint, evalset.item_fingerprints):
        with pytest.raises(kind) as refused:
            function(loaded, fmt)  # type: ignore[arg-type]
        assert str(refused.value) == message
    assert evalset.set_fingerprint(loaded) == evalset.set_fingerprint(loaded, 2)
    assert evalset.set_fingerprint(loaded, 1) != evalset.set_fingerprint(loaded, 2)


def test_a_snapshot_of_an_unknown_hash_mode_is_refused_and_writes_nothing(
    example: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "snapshots"
    with pytest.raises(ValueError) as refused:
        evalset.take_snapshot(example, "corpus", folder, tmp_path / "state", mode="bogus")  # type: ignore[arg-type]
    assert str(refused.value) == (
        "mode must be 'rendered' or 'source' (the `hash` setting), not 'bogus'"
    )
    assert not folder.exists()


@pytest.mark.parametrize(
    ("bump", "version", "message"),
    [
        ("minor", "1.0.0", "give either bump ('minor') or version ('1.0.0'), not both: a "
                           "release has one version."),
        ("huge", None, "bump must be major, minor or patch, not 'huge'."),
    ],
)  # fmt: skip
def test_release_refuses_a_bump_and_a_version_as_the_command_does(
    example: Path, bump: str, version: str | None, message: str
) -> None:
    path = example / "sets" / "acme-support.yaml"
    before = path.read_bytes()
    head = git(example, "rev-parse", "HEAD")
    ws = evalset.find_workspace(example)
    with pytest.raises(evalset.EvalsetError) as refused:
        evalset.release(ws, path, bump=bump, version=version)
    assert str(refused.value) == f"{path}: {message}"
    assert (path.read_bytes(), git(example, "rev-parse", "HEAD")) == (before, head)
    assert git(example, "tag") == ""


NESTED = {
    "pin": lambda ws, path: evalset.pin(ws, path),
    "verify": lambda ws, path: evalset.verify(ws, path, ["q-001"]),
    "verify --from-header": verify_from_header,
    "stale --fix-moved": evalset.fix_moved,
    "release": lambda ws, path: evalset.release(ws, path, bump="minor"),
}


@pytest.mark.parametrize("command", list(NESTED))
def test_a_set_of_another_workspace_is_refused_with_nothing_changed(
    example: Path, command: str
) -> None:
    """Before, `verify` recorded the outer workspace's newest snapshot in the nested set,
    `fix_moved` rewrote its citations by the outer snapshots, and `release` blamed the
    set's folder."""
    inner = example / "inner"
    (inner / "sets").mkdir(parents=True)
    (inner / "evalset.toml").write_text('sets = "sets"\n')
    shutil.copy(example / "sets" / "acme-support.yaml", inner / "sets")
    commit_all(example, "a nested workspace")
    path = inner / "sets" / "acme-support.yaml"
    before = (path.read_bytes(), git(example, "rev-parse", "HEAD"), git(example, "tag"))
    outer = evalset.find_workspace(example)
    with pytest.raises(evalset.EvalsetError) as refused:
        NESTED[command](outer, path)
    assert str(refused.value) == (
        f"{path}: lies in the workspace {inner}, not in {example}, whose snapshots and "
        "releases are not its own; give it its own workspace (find_workspace(path.parent)), "
        f"as `evalset {command} PATH` does."
    )
    assert (path.read_bytes(), git(example, "rev-parse", "HEAD"), git(example, "tag")) == before


def test_pin_of_a_nested_set_with_its_own_workspace(example: Path) -> None:
    inner = example / "inner"
    (inner / "sets").mkdir(parents=True)
    (inner / "evalset.toml").write_text('sets = "sets"\n')
    shutil.copy(example / "sets" / "acme-support.yaml", inner / "sets")
    path = inner / "sets" / "acme-support.yaml"
    own = evalset.pin(evalset.find_workspace(path.parent), path)
    assert own["snapshot"] is None  # the nested workspace has no snapshot
    outer = evalset.find_workspace(example)
    assert evalset.pin(outer, example / "sets" / "acme-support.yaml")["snapshot"] is not None


def test_find_workspace_takes_a_path_as_text(
    example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(example / "sets")
    assert evalset.find_workspace(".").root == example
    assert evalset.find_workspace(str(example / "corpus")).root == example
    assert evalset.find_workspace(Path("..")).root == example
