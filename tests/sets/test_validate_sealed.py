"""`evalset validate` refuses a holdout left in plain text in a set whose holdout is sealed:
committed so, every question and label of it would be in git history for good."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import EXAMPLE_SET, SMALL_HEADER, commit_all, git, make_git_repo
from evalset.sets.setfile import load_set

NAME = EXAMPLE_SET.stem
HOLDOUT = [item.id for item in load_set(EXAMPLE_SET).items if item.holdout]
KEY_POINT = "Every product has a two-year legal guarantee of conformity from delivery"
"""The first key point of the first holdout item, which the user edits."""
EDITED = KEY_POINT.replace("two-year", "24-month")


def unsealed(cli, repo: Path, *args: str) -> tuple[int, dict[str, str]]:  # type: ignore[no-untyped-def]
    """The exit status of `evalset validate ARGS`, and its findings of the rule, by item."""
    result = cli(repo, "validate", *args, "--json")
    assert result.code in (0, 1), result.err
    found = [f for f in json.loads(result.out)["findings"] if f["rule"] == "unsealed"]
    assert all(f["severity"] == "error" for f in found)
    return result.code, {f["item"]: f["message"] for f in found}


SEALED_AT_HEAD = (
    "sealed at HEAD, and in plain text here: a commit would write its question and labels "
    "into git history"
)
NEW_AT_HEAD = (
    "a holdout item in plain text in a set whose holdout is sealed at HEAD: a commit would "
    "write its question and labels into git history"
)


@pytest.mark.parametrize("released", [False, True], ids=["no-release", "released-before-sealing"])
def test_an_unsealed_holdout_is_refused_until_sealed_again(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, released: bool
) -> None:
    """The reported flow: unseal to edit a key point, and commit without sealing again."""
    path = example / "sets" / f"{NAME}.yaml"
    if released:  # the holdout flags are then compared with the release, not with HEAD
        git(example, "tag", f"evalset/{NAME}/v0.1.0")
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    assert cli(example, "seal", NAME, "--recipient", key[1]).code == 0
    commit_all(example, "seal the holdout")

    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    assert cli(example, "unseal", NAME).code == 0
    text = path.read_text()
    edited = text.replace(KEY_POINT, EDITED, 1)
    assert edited != text
    path.write_text(edited)

    code, found = unsealed(cli, example, "sets/acme-support.yaml")  # as the hook passes it
    assert code == 1
    assert found == dict.fromkeys(HOLDOUT, SEALED_AT_HEAD)
    result = cli(example, "validate", "sets/acme-support.yaml")
    line = next(x for x in result.out.splitlines() if f"item {HOLDOUT[0]}:" in x)
    assert line.endswith(
        f"item {HOLDOUT[0]}: error: {SEALED_AT_HEAD} (run `evalset seal {NAME}` before "
        "committing; it seals to the recipients the holdout is sealed to at HEAD)"
    )
    monkeypatch.delenv("EVALSET_AGE_IDENTITY")  # a tuner's hook: --skip-sealed refuses it too
    assert unsealed(cli, example, "--skip-sealed") == (1, found)
    status = json.loads(cli(example, "status", "--json").out)["sets"][0]
    assert status["errors"] == len(HOLDOUT)

    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    resealed = cli(example, "seal", NAME)
    assert resealed.code == 0, resealed.err
    assert f"to {key[1]} (as the holdout at HEAD)" in resealed.out
    assert unsealed(cli, example) == (0, {})
    opened = {i.id: i for i in load_set(path).items}  # the edit is in the sealed content
    assert opened[HOLDOUT[0]].key_points[0].text == EDITED
    monkeypatch.delenv("EVALSET_AGE_IDENTITY")
    assert EDITED not in path.read_text()
    assert unsealed(cli, example, "--skip-sealed") == (0, {})


def test_a_holdout_moved_to_tuning_is_a_recorded_move_not_a_leak(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    assert cli(example, "seal", NAME, "--recipient", key[1]).code == 0
    commit_all(example, "seal the holdout")
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    moved = cli(example, "split", NAME, "--move", HOLDOUT[0], "--to", "tuning", "--force")
    assert moved.code == 0, moved.err
    assert unsealed(cli, example) == (0, {})

    # Unsealed, the holdout items left are refused; the one moved to tuning is not.
    assert cli(example, "unseal", NAME).code == 0
    assert unsealed(cli, example) == (1, dict.fromkeys(HOLDOUT[1:], SEALED_AT_HEAD))


def test_a_set_never_sealed_is_not_refused(  # type: ignore[no-untyped-def]
    cli, example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    path = example / "sets" / f"{NAME}.yaml"
    path.write_text(path.read_text().replace(KEY_POINT, EDITED, 1))
    assert unsealed(cli, example) == (0, {})


QUESTIONS = {
    "q-1": "Can I pay for an order by bank transfer?",
    "q-2": "Do you ship to addresses in Norway?",
    "q-3": "Is gift wrapping offered for birthday presents?",
}


def small_item(ident: str, holdout: bool) -> str:
    return (
        f"  - id: {ident}\n"
        f"    question: {QUESTIONS[ident]}\n"
        "    category: direct-lookup\n"
        "    answerable: false\n"
        f"    holdout: {str(holdout).lower()}\n"
    )


def small_set(folder: Path) -> Path:
    path = folder / "small.yaml"
    path.write_text(SMALL_HEADER + small_item("q-1", False) + small_item("q-2", True))
    return path


def add_holdout_item(path: Path) -> None:
    with path.open("a") as out:
        out.write(small_item("q-3", True))


def test_a_holdout_item_written_by_hand_into_a_sealed_holdout(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`promote` and `import` seal what arrives in a sealed holdout; a hand-written item is
    refused until sealed. In git but in no workspace."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    repo = make_git_repo(tmp_path / "repo")
    path = small_set(repo)
    assert cli(repo, "seal", path.name, "--recipient", key[1]).code == 0
    commit_all(repo, "sealed")

    add_holdout_item(path)  # the file shows a sealed holdout: no need to ask git
    assert unsealed(cli, repo, "--skip-sealed", path.name) == (
        1,
        {"q-3": NEW_AT_HEAD.replace(" at HEAD", "")},
    )

    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    assert cli(repo, "unseal", path.name).code == 0  # now only HEAD says it was sealed
    assert unsealed(cli, repo, path.name) == (1, {"q-2": SEALED_AT_HEAD, "q-3": NEW_AT_HEAD})
    assert cli(repo, "seal", path.name).code == 0
    assert unsealed(cli, repo, path.name) == (0, {})


@pytest.mark.parametrize("where", ["outside-git", "no-commit", "not-committed"])
def test_nothing_to_compare_with_is_not_refused(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """Where git holds no committed version of the file, only the file itself says that its
    holdout is sealed: an item in plain text beside sealed ones is refused, a whole holdout
    unsealed is not."""
    folder = tmp_path / "here"
    folder.mkdir()
    if where != "outside-git":
        make_git_repo(folder)
    if where == "not-committed":
        (folder / "README").write_text("another file\n")
        commit_all(folder, "something else")
    path = small_set(folder)
    assert cli(folder, "seal", path.name, "--recipient", key[1]).code == 0
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    add_holdout_item(path)  # the file itself shows its holdout sealed
    assert unsealed(cli, folder, path.name) == (1, {"q-3": NEW_AT_HEAD.replace(" at HEAD", "")})
    assert cli(folder, "unseal", path.name).code == 0
    assert unsealed(cli, folder, path.name) == (0, {})


def test_committed_seals_reads_every_layout_of_a_sealed_entry(git_repo: Path) -> None:
    """What HEAD holds sealed is read without the key, in block or flow style; a question
    that merely says "sealed:" holds none."""
    from evalset.sets.sealed import committed_seals

    path = git_repo / "small.yaml"
    assert committed_seals(path) is None  # no commit yet
    path.write_text(
        SMALL_HEADER
        + small_item("q-1", False).replace(QUESTIONS["q-1"], "'Is the box sealed: yes or no?'")
        + "  - {id: q-2, holdout: true, sealed: {recipients: [age1a, age1b], age: x}}\n"
        + "  - id: q-3\n    holdout: true\n    sealed:\n      recipients:\n        - age1c\n"
    )
    commit_all(git_repo, "sealed by hand")
    assert committed_seals(path) == {"q-2": ["age1a", "age1b"], "q-3": ["age1c"]}
    plain = small_item("q-1", False).replace(QUESTIONS["q-1"], "'sealed: yes?'")
    path.write_text(SMALL_HEADER + plain)
    commit_all(git_repo, "no sealed item")
    assert committed_seals(path) == {}


def test_a_tuning_item_moved_into_a_sealed_holdout_is_sealed_by_the_move(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`split --move` into a sealed holdout seals the item as it moves it: nothing is left
    for validate to refuse, or for `seal` to do."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    repo = make_git_repo(tmp_path / "repo")
    path = small_set(repo)
    assert cli(repo, "seal", path.name, "--recipient", key[1]).code == 0
    commit_all(repo, "sealed")
    moved = cli(repo, "split", path.name, "--move", "q-1", "--to", "holdout", "--force")
    assert moved.code == 0, moved.err
    assert unsealed(cli, repo, "--skip-sealed", path.name) == (0, {})
    sealed = run_seal(cli, repo, path.name)
    assert sealed == {"sealed": [], "recipients": [key[1]], "recipients_from": "set"}


def run_seal(cli, repo: Path, name: str) -> dict[str, object]:  # type: ignore[no-untyped-def]
    result = cli(repo, "seal", name, "--json")
    assert result.code == 0, result.err
    found = json.loads(result.out)
    found.pop("set")
    return found  # type: ignore[no-any-return]
