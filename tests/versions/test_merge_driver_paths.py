"""`evalset merge-driver` run by hand with a version that is not there (a typo in a path, a
folder): one sentence naming the file and what the driver takes, exit 2, nothing written.
git always hands it three files; a missing base alone is read as an empty one, as git's
add/add gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import SET_HEADER, set_item

TEXT = SET_HEADER + set_item("q-1", "a.md")
FIX = (
    "; the merge driver takes the three versions of a set file git writes for it "
    "(`evalset merge-driver %O %A %B %P`, as `evalset init --git-hooks` registers it): "
    "name existing files."
)

# which version is wrong, how, and the problem the message names
CASES = {
    "ours missing": ("ours", "missing", "no such file"),
    "theirs missing": ("theirs", "missing", "no such file"),
    "ours a folder": ("ours", "folder", "is a folder, not a file"),
    "theirs a folder": ("theirs", "folder", "is a folder, not a file"),
    "base a folder": ("base", "folder", "is a folder, not a file"),
}


@pytest.mark.parametrize(("which", "how", "problem"), CASES.values(), ids=CASES.keys())
def test_a_version_that_is_not_a_file_is_one_sentence(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, which: str, how: str, problem: str
) -> None:
    paths = {name: tmp_path / f"{name}.yaml" for name in ("base", "ours", "theirs")}
    for name, path in paths.items():
        if name != which:
            path.write_text(TEXT)
        elif how == "folder":
            path.mkdir()
    result = cli(tmp_path, "merge-driver", *(p.name for p in paths.values()), "sets/docs.yaml")
    assert result.code == 2
    assert result.err == f"evalset: {which}.yaml: {problem}{FIX}\n"
    assert "Traceback" not in result.err + result.out
    for name, path in paths.items():
        assert (
            path.is_dir()
            if name == which and how == "folder"
            else (not path.exists() if name == which else path.read_text() == TEXT)
        )


def test_a_missing_base_is_an_empty_one(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    ours, theirs = tmp_path / "ours.yaml", tmp_path / "theirs.yaml"
    ours.write_text(TEXT)
    theirs.write_text(TEXT + set_item("q-2", "a.md"))
    result = cli(tmp_path, "merge-driver", "gone.yaml", "ours.yaml", "theirs.yaml")
    assert result.code == 0, result.err
    assert ours.read_text() == TEXT + set_item("q-2", "a.md")
