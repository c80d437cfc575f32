"""Releases, pins, check-pin, diff and log, driven through the CLI in real git repositories."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import GIT_ENV, SET_HEADER, commit_all, git, set_item, write_files
from evalset.git import Git
from evalset.sets.editor import edit_set
from evalset.sets.fingerprint import item_fingerprints, set_fingerprint
from evalset.sets.setfile import load_set, parse_set

CORPUS = {
    "corpus/policy.md": (
        "# Policy\n\n## Returns\n\nReturn within 14 days of delivery.\n\n"
        "## Refunds\n\nRefunds are issued within 5 business days.\n\n"
        "## Gift cards\n\nGift cards expire after three years.\n"
    ),
}
RETURNS, REFUNDS, GIFTS = (
    "policy.md#returns",
    "policy.md#refunds",
    "policy.md#gift-cards",
)


@pytest.fixture
def identity(monkeypatch: pytest.MonkeyPatch) -> None:
    """The release commit and tag are made in-process: git needs an identity."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)


def tag_names(repo: Path) -> list[str]:
    return git(repo, "tag", "-l", "evalset/*").split()


@pytest.fixture
def released(corpus_repo: Path, cli, identity: None) -> Path:  # type: ignore[no-untyped-def]
    """A workspace whose set `docs` (three items) is snapshot, verified, committed and
    released as 0.1.0."""
    write_files(corpus_repo, CORPUS)
    items = set_item("q-1", RETURNS) + set_item("q-2", REFUNDS) + set_item("q-3", GIFTS)
    (corpus_repo / "sets" / "docs.yaml").write_text(SET_HEADER + items)
    assert cli(corpus_repo, "snapshot").code == 0
    assert cli(corpus_repo, "verify", "docs", "--all").code == 0
    commit_all(corpus_repo, "a set and its corpus")
    result = cli(corpus_repo, "release", "docs", "--bump", "minor")
    assert result.code == 0, result.err
    assert "released docs 0.1.0 (first release)" in result.out
    return corpus_repo


NEW_ITEMS = (
    "  - id: q-4\n    question: When do gift cards expire after purchase?\n"
    "    category: direct-lookup\n    expected_sources: [policy.md#gift-cards]\n"
    "    key_points:\n      - text: Gift cards expire after three years\n"
    "        sources: [policy.md#gift-cards]\n"
    "  - id: q-5\n    question: How fast are refunds issued to my card?\n"
    "    category: direct-lookup\n    expected_sources: [policy.md#refunds]\n"
    "    key_points:\n      - text: Refunds take five business days\n"
    "        sources: [policy.md#refunds]\n"
)


def second_release(repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Add two items, edit one key point, retire one item, verify, commit, release 0.2.0."""
    path = repo / "sets" / "docs.yaml"
    path.write_text(path.read_text() + NEW_ITEMS)
    text = path.read_text().replace(
        "      - text: The fact q-1 asks about", "      - text: The fact q-1 asks about, reworded"
    )
    path.write_text(text)
    with edit_set(path) as editor:
        editor.update_item("q-2", {"status": "retired"})
    assert cli(repo, "verify", "docs", "q-1", "q-4", "q-5").code == 0
    commit_all(repo, "two new items, one edit, one retired")
    result = cli(repo, "release", "docs", "--bump", "minor")
    assert result.code == 0, result.err
    assert "released docs 0.2.0 (2 added, 1 retired, 1 changed)" in result.out


def test_release_tags_and_records_the_fingerprint(released: Path) -> None:
    assert tag_names(released) == ["evalset/docs/v0.1.0"]
    loaded = load_set(released / "sets" / "docs.yaml")
    assert loaded.header is not None
    assert loaded.header.version == "0.1.0"
    assert loaded.header.fingerprint == set_fingerprint(loaded)
    message = git(released, "tag", "-l", "--format=%(contents)", "evalset/docs/v0.1.0")
    assert f"fingerprint: {loaded.header.fingerprint}" in message
    assert "items: 3 active (0 holdout); direct-lookup 3" in message
    assert git(released, "status", "--porcelain") == ""  # the header change is committed
    subject = git(released, "log", "-1", "--format=%s")
    assert subject.strip() == "Release docs 0.1.0"


def test_the_whole_scenario(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    second_release(released, cli)
    assert tag_names(released) == ["evalset/docs/v0.1.0", "evalset/docs/v0.2.0"]
    body = git(released, "log", "-1", "--format=%b")
    assert "- added: q-4, q-5" in body and "- retired: q-2" in body
    assert "- changed q-1: key_points" in body

    result = cli(released, "diff", "docs", "0.1.0", "0.2.0", "--json")
    assert result.code == 0
    diff = json.loads(result.out)
    assert diff["added"] == ["q-4", "q-5"]
    assert diff["removed"] == []
    assert diff["retired"] == ["q-2"]
    assert diff["holdout_moves"] == []
    assert diff["header"] == []
    assert diff["changed"] == [
        {
            "id": "q-1",
            "changes": [
                {
                    "field": "key_points[0].text",
                    "change": "edited",
                    "old": "The fact q-1 asks about",
                    "new": "The fact q-1 asks about, reworded",
                }
            ],
        }
    ]

    # An honest report passes check-pin.
    pin = json.loads(cli(released, "pin", "docs").out)
    assert pin["version"] == "0.2.0"
    assert pin["items"] == {"total": 4, "holdout": 0, "categories": {"direct-lookup": 4}}
    report = released / "report.json"
    report.write_text(json.dumps({"evalset": pin, "faithfulness": 0.91}))
    result = cli(released, "check-pin", str(report))
    assert result.code == 0, result.err
    assert "pin ok: docs 0.2.0" in result.out

    # One whose fingerprint was altered fails, naming both fingerprints.
    forged = {**pin, "fingerprint": "sha256:" + "0" * 64}
    report.write_text(json.dumps({"evalset": forged}))
    result = cli(released, "check-pin", str(report))
    assert result.code == 1
    assert f"report's fingerprint sha256:{'0' * 64} does not match release 0.2.0" in result.err

    # A version evalset never writes ("v0.2.0", padded) is not read as a release.
    for written in ("v0.2.0", " 0.2.0", "0.2.0 "):
        report.write_text(json.dumps({"evalset": {**pin, "version": written}}))
        result = cli(released, "check-pin", str(report))
        assert result.code == 1
        assert f"report names version {written!r}, which is not X.Y.Z" in result.err

    # Editing the working copy makes the pin 0.2.0+modified; check-pin counts what differs.
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3, reworded, about"))
    modified = json.loads(cli(released, "pin", "docs").out)
    assert modified["version"] == "0.2.0+modified"
    assert modified["fingerprint"] != pin["fingerprint"]
    report.write_text(json.dumps({"evalset": modified}))
    result = cli(released, "check-pin", str(report))
    assert result.code == 1
    assert "report was run on 0.2.0+modified: 1 item(s) differ from the release (q-3); score " \
        "the run again on release 0.2.0 (its tag)" in result.err  # fmt: skip

    # A working copy never released names the release to make.
    report.write_text(json.dumps({"evalset": {**modified, "version": None}}))
    result = cli(released, "check-pin", str(report))
    assert result.code == 1
    assert "only released versions can be checked: release the set (`evalset release docs`) " \
        "and score the run again" in result.err  # fmt: skip

    # The status column and the log.
    status = json.loads(cli(released, "status", "--json").out)
    assert status["sets"][0]["release"] == "0.2.0+modified"
    log = json.loads(cli(released, "log", "docs", "--json").out)
    assert [(r["version"], r["summary"]) for r in log["releases"]] == [
        ("0.1.0", "first release"),
        ("0.2.0", "2 added, 1 retired, 1 changed"),
    ]
    assert log["releases"][1]["items"]["total"] == 4
    assert log["releases"][1]["snapshot"] == pin["snapshot"]
    text = cli(released, "log", "docs").out
    assert "0.2.0" in text and "2 added, 1 retired, 1 changed" in text


def test_diff_without_a_release_says_the_command_to_run(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(example, "diff", "acme-support")
    assert result.code == 2 and result.out == ""
    assert result.err == (
        "evalset: sets/acme-support.yaml: acme-support has no release yet, so there is no "
        "default to compare with; name a git revision, e.g. `evalset diff acme-support HEAD`.\n"
    )


def test_diff_defaults_to_last_release_against_the_working_tree(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("sources: [policy.md#refunds]  #", "sources: [] #"))
    with edit_set(path) as editor:
        editor.update_item("q-3", {"holdout": False})
    result = cli(released, "diff", "docs")
    assert result.code == 0
    assert result.out.splitlines() == [
        "docs: 0.1.0 -> working tree: 2 changed",
        "  ~ q-2",
        "      key_points[0].sources: - 'policy.md#refunds'",
        "  ~ q-3",
        "      holdout: null -> false",
    ]
    md = cli(released, "diff", "docs", "--format", "md").out
    assert md.startswith("### `docs`: 0.1.0 → working tree\n\n2 changed\n")
    assert "| `q-2` | key_points[0].sources | - 'policy.md#refunds' |" in md
    assert "HOLDOUT" not in result.out  # an assignment is not a move


@pytest.mark.parametrize(
    "edit",
    [("question: Question q-2", "questoin: Question q-2"),
     ("  - id: q-2\n", "  - id: q-2\n    holdout: yes please\n")],
)  # fmt: skip
def test_diff_does_not_call_an_item_failing_the_schema_removed(  # type: ignore[no-untyped-def]
    released: Path, cli, edit: tuple[str, str]
) -> None:
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace(*edit, 1))
    result = cli(released, "diff", "docs")
    assert result.code == 0, result.err
    assert result.out == (
        "docs: 0.1.0 -> working tree: 1 not compared (invalid)\n"
        "  ? q-2 (not compared: invalid; `evalset validate` says why)\n"
    )
    data = json.loads(cli(released, "diff", "docs", "--json").out)
    assert (data["removed"], data["not_compared"]) == ([], ["q-2"])
    md = cli(released, "diff", "docs", "--format", "md").out
    assert "| `q-2` | **not compared** | invalid |" in md
    assert "removed" not in md


def test_holdout_moves_are_flagged(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = released / "sets" / "docs.yaml"
    with edit_set(path) as editor:
        editor.update_item("q-1", {"holdout": False})
    commit_all(released, "assign q-1 to tuning")
    # committed to tuning since the release, q-1 moves only as a recorded move
    moved = cli(released, "split", "docs", "--move", "q-1", "--to", "holdout", "--force")
    assert moved.code == 0, moved.err
    result = cli(released, "diff", "docs", "HEAD", "WORKTREE", "--json")
    assert json.loads(result.out)["holdout_moves"] == [
        {"id": "q-1", "from": "tuning", "to": "holdout"}
    ]
    text = cli(released, "diff", "docs", "HEAD").out
    assert "!! HOLDOUT MOVE: q-1 moved from tuning to holdout" in text


def test_release_refuses_a_dirty_set(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    before = path.read_bytes()
    result = cli(released, "release", "docs", "--bump", "patch")
    assert result.code == 1
    assert "cannot release docs while sets/docs.yaml has uncommitted changes" in result.err
    assert path.read_bytes() == before
    assert tag_names(released) == ["evalset/docs/v0.1.0"]


def test_release_refuses_an_invalid_set(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("category: direct-lookup", "category: direct", 1))
    commit_all(released, "typo")
    result = cli(released, "release", "docs", "--bump", "patch")
    assert result.code == 1
    assert "cannot release docs with 1 validation error(s)" in result.err
    assert "category 'direct' is not declared" in result.err


@pytest.mark.parametrize("copy", ["sets/copy.yaml", "sets/docs.yml"])
def test_release_refuses_a_set_whose_name_another_file_takes_or_is_not_its_own(  # type: ignore[no-untyped-def]
    released: Path, cli, copy: str
) -> None:
    """A copy of a set whose `name:` was left as it was (or a twin `.yml` of it) would
    release under the other set's tags: `validate` calls it an error, and so does release."""
    path = released / "sets" / "docs.yaml"
    text = path.read_text().replace("Question q-3 about", "Question q-3 copied, about")
    (released / copy).write_text(text)
    commit_all(released, "a copy")
    result = cli(released, "release", copy, "--bump", "patch")
    assert result.code == 1, result.out
    assert f"evalset: {copy}: cannot release docs with 1 validation error(s)" in result.err
    assert f"(`evalset validate {copy}`)" in result.err
    assert tag_names(released) == ["evalset/docs/v0.1.0"]


def test_the_releases_of_a_set_deleted_since_are_checked_listed_and_compared(  # type: ignore[no-untyped-def]
    released: Path, cli
) -> None:
    """Its releases stay in git's tags: a report pinned to one is checked, log lists them,
    and diff compares two of them; the working copy it no longer has is refused."""
    second_release(released, cli)
    report = released / "report.json"
    report.write_text(json.dumps({"evalset": json.loads(cli(released, "pin", "docs").out)}))
    (released / "sets" / "other.yaml").write_text(
        SET_HEADER.replace("name: docs", "name: other") + set_item("o-1", RETURNS)
    )
    git(released, "rm", "-q", "sets/docs.yaml")
    commit_all(released, "the set retired whole")
    result = cli(released, "check-pin", str(report))
    assert result.code == 0, result.err
    assert result.out.startswith("pin ok: docs 0.2.0")
    log = json.loads(cli(released, "log", "docs", "--json").out)
    assert [r["version"] for r in log["releases"]] == ["0.1.0", "0.2.0"]
    diff = json.loads(cli(released, "diff", "docs", "0.1.0", "0.2.0", "--json").out)
    assert diff["added"] == ["q-4", "q-5"]
    result = cli(released, "diff", "docs")
    assert result.code == 2
    assert result.err == (
        "evalset: sets/docs.yaml: is deleted, so docs has no working copy to compare; name two "
        "of its releases (0.1.0, 0.2.0), or revisions that hold it: `evalset diff docs 0.1.0 "
        "0.2.0`.\n"
    )
    assert cli(released, "log", "nothing").code == 2


def test_a_release_made_on_another_branch_is_not_this_branchs_baseline(  # type: ignore[no-untyped-def]
    released: Path, cli
) -> None:
    """Alice moves q-3 to tuning, recorded, and releases 0.3.0 on her branch; main's last
    release is still 0.2.0 (its header says so). Main, untouched, is valid; a hand flip of
    q-3 there is an error against 0.2.0, not a match of the other branch's release."""
    path = released / "sets" / "docs.yaml"
    text = path.read_text().replace("  - id: q-1\n", "  - id: q-1\n    holdout: false\n")
    text = text.replace("Question q-3 about the policy?", "When do the gift cards expire?")
    path.write_text(text.replace("  - id: q-3\n", "  - id: q-3\n    holdout: true\n"))
    commit_all(released, "a split")
    assert cli(released, "release", "docs", "--bump", "minor").code == 0
    git(released, "checkout", "-q", "-b", "alice")
    moved = cli(released, "split", "docs", "--move", "q-3", "--to", "tuning", "--force",
                "--reason", "asked in the FAQ")  # fmt: skip
    assert moved.code == 0, moved.err
    commit_all(released, "q-3 to tuning")
    assert cli(released, "release", "docs", "--bump", "minor").code == 0
    git(released, "checkout", "-q", "main")
    result = cli(released, "validate", "docs")
    assert result.code == 0, result.out
    assert json.loads(cli(released, "status", "--json").out)["sets"][0]["release"] == "0.2.0"
    path.write_text(path.read_text().replace("    holdout: true\n", "    holdout: false\n"))
    result = cli(released, "validate", "docs")
    assert result.code == 1
    assert "item q-3: holdout: error: moved from holdout to tuning since release 0.2.0" in (
        result.out
    )
    status = json.loads(cli(released, "status", "--json").out)["sets"][0]
    assert status["release"] == "0.2.0+modified"


def test_a_release_tag_never_pushed_is_named_as_such_where_the_other_tags_are(  # type: ignore[no-untyped-def]
    released: Path, cli
) -> None:
    """A clone with the set's other release tags was not made without its tags: the one
    missing was not pushed (`git push` alone pushes none), which release reminds of."""
    second_release(released, cli)
    git(released, "tag", "-d", "evalset/docs/v0.2.0")
    result = cli(released, "validate", "docs")
    assert result.code == 2
    assert result.err == (
        "evalset: sets/docs.yaml: names release 0.2.0 of docs, but this clone has no tag "
        "evalset/docs/v0.2.0, though it has the set's other releases (0.1.0 the latest): the "
        "tag was not pushed from the clone that made the release (`git push origin "
        "evalset/docs/v0.2.0` there), or not fetched here (`git fetch --tags`).\n"
    )


@pytest.mark.parametrize(
    ("remotes", "config", "named"),
    [
        ([], [], "<remote>"),
        (["origin"], [], "origin"),
        (["upstream"], [], "upstream"),  # the only remote, whatever its name
        (["origin", "fork"], [], "origin"),  # several, none chosen: git's default
        (["upstream", "fork"], [], "<remote>"),  # and without an origin, git has none
        (["origin", "fork"], [("branch.main.remote", "fork")], "fork"),
        (["origin", "fork"], [("remote.pushDefault", "fork")], "fork"),
        (
            ["origin", "fork"],
            [("branch.main.remote", "origin"), ("remote.pushDefault", "fork")],
            "fork",
        ),
        (
            ["origin", "fork"],
            [("branch.main.remote", "origin"), ("branch.main.pushRemote", "fork")],
            "fork",
        ),
    ],
)
def test_release_says_to_push_its_tag_to_the_remote_git_pushes_to(  # type: ignore[no-untyped-def]
    released: Path, cli, remotes: list[str], config: list[tuple[str, str]], named: str
) -> None:
    for remote in remotes:
        git(released, "remote", "add", remote, f"https://example.invalid/{remote}.git")
    for key, value in config:
        git(released, "config", key, value)
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3, now, about"))
    commit_all(released, "an edit")
    result = cli(released, "release", "docs", "--bump", "patch")
    assert result.code == 0, result.err
    assert result.out.endswith(
        f"note: push the tag with the commit (git push {named} HEAD evalset/docs/v0.1.1).\n"
    )


def test_release_refuses_a_plain_holdout_item_beside_sealed_ones(  # type: ignore[no-untyped-def]
    released: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the last release held: the tag would publish the plain item's question."""
    path = released / "sets" / "docs.yaml"
    text = path.read_text().replace("Question q-3 about the policy?", "When do gift cards end?")
    path.write_text(text.replace("  - id: q-3\n", "  - id: q-3\n    holdout: true\n"))
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    assert cli(released, "seal", "docs", "--recipient", key[1]).code == 0
    text = path.read_text().replace("  - id: q-1\n", "  - id: q-1\n    holdout: true\n")
    text = text.replace("  - id: q-2\n", "  - id: q-2\n    holdout: true\n")
    path.write_text(text)
    commit_all(released, "two more held out, in the clear")
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    result = cli(released, "release", "docs", "--bump", "minor")
    assert result.code == 1, result.out
    assert "a holdout item in plain text in a set whose holdout is sealed" in result.err
    assert tag_names(released) == ["evalset/docs/v0.1.0"]


def test_pin_of_a_revert_to_an_older_releases_content_is_that_release_modified(  # type: ignore[no-untyped-def]
    released: Path, cli
) -> None:
    """Reverted to 0.1.0's content after releasing 0.2.0: the header still names 0.2.0,
    rightly, so the pin is 0.2.0+modified and check-pin says to score on a release (not
    to merge a commit the branch holds)."""
    path = released / "sets" / "docs.yaml"
    before = path.read_text()
    path.write_text(before.replace("Question q-3 about", "Question q-3, now, about"))
    commit_all(released, "an edit")
    assert cli(released, "release", "docs", "--bump", "minor").code == 0
    path.write_text(path.read_text().replace("Question q-3, now, about", "Question q-3 about"))
    commit_all(released, "the edit reverted")
    result = cli(released, "pin", "docs")
    assert result.code == 0, result.err
    pin = json.loads(result.out)
    assert pin["version"] == "0.2.0+modified"
    report = released / "report.json"
    report.write_text(json.dumps({"evalset": pin}))
    checked = cli(released, "check-pin", str(report))
    assert checked.code == 1
    assert "git merge" not in checked.err
    assert "score the run again on release 0.2.0" in checked.err


def test_diff_and_release_notes_count_from_this_branchs_release(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A release made on another branch is not what main's changes count from."""
    path = released / "sets" / "docs.yaml"
    git(released, "checkout", "-q", "-b", "alice")
    path.write_text(path.read_text().replace("Question q-1 about", "Question q-1, Alice's, about"))
    commit_all(released, "alice's edit")
    assert cli(released, "release", "docs", "--bump", "minor").code == 0
    git(released, "checkout", "-q", "main")
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3, Bob's, about"))
    commit_all(released, "bob's edit")
    diff = json.loads(cli(released, "diff", "docs", "--json").out)
    assert (diff["old"], [c["id"] for c in diff["changed"]]) == ("0.1.0", ["q-3"])
    result = cli(released, "release", "docs", "--bump", "minor")
    assert result.code == 0, result.err
    assert result.out.startswith("released docs 0.3.0 (1 changed)")


def test_log_compares_each_release_with_the_one_it_came_from(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Releases made on two branches are listed in version order, and each is compared with
    the release its own history holds, not with the other branch's."""
    path = released / "sets" / "docs.yaml"
    git(released, "checkout", "-q", "-b", "alice")
    path.write_text(path.read_text().replace("Question q-1 about", "Question q-1, Alice's, about"))
    commit_all(released, "alice's edit")
    assert cli(released, "release", "docs", "--bump", "minor").code == 0  # 0.2.0 on alice
    git(released, "checkout", "-q", "main")
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3, Bob's, about"))
    commit_all(released, "bob's edit")
    assert cli(released, "release", "docs", "--bump", "minor").code == 0  # 0.3.0 on main
    git(released, "merge", "-q", "-s", "ours", "--no-edit", "alice")  # the headers differ
    path.write_text(path.read_text().replace("Question q-1 about", "Question q-1, Alice's, about"))
    commit_all(released, "alice's edit, merged")
    assert cli(released, "release", "docs", "--bump", "minor").code == 0  # 0.4.0: both
    releases = json.loads(cli(released, "log", "docs", "--json").out)["releases"]
    assert [(r["version"], r["since"], r["summary"]) for r in releases] == [
        ("0.1.0", None, "first release"),
        ("0.2.0", "0.1.0", "1 changed"),
        ("0.3.0", "0.1.0", "1 changed (since 0.1.0, the release it came from)"),
        ("0.4.0", "0.3.0", "1 changed"),  # Alice's q-1, which 0.3.0 did not hold
    ]
    table = cli(released, "log", "docs").out
    assert "1 changed (since 0.1.0, the release it came from)" in table


def test_log_tells_a_sealed_items_re_verification_with_or_without_the_key(  # type: ignore[no-untyped-def]
    released: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sealed item re-verified with the key (sealed again, its content the same) was no
    change to a reader without the key: `log` said "3 re-verified" to him, "4" to the key's
    holder."""
    keyfile, recipient = key
    path = released / "sets" / "docs.yaml"
    held = set_item("q-4", GIFTS).replace("Question q-4 about the policy?", "Can a gift card "
                                          "lose its value?") + "    holdout: true\n"  # fmt: skip
    path.write_text(path.read_text() + held)
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(keyfile))
    assert cli(released, "verify", "docs", "q-4").code == 0
    assert cli(released, "seal", "docs", "-r", recipient).code == 0
    commit_all(released, "a sealed holdout item")
    assert cli(released, "release", "docs", "--bump", "minor").code == 0
    write_files(released, {"corpus/other.md": "# Other\n\nAnother document.\n"})
    assert cli(released, "snapshot").code == 0
    assert cli(released, "verify", "docs", "--all").code == 0
    commit_all(released, "a new corpus, every item checked against it")
    done = cli(released, "release", "docs", "--bump", "patch")
    assert done.code == 0 and "(4 re-verified, new corpus snapshot" in done.out, done.out
    for identity in (str(keyfile), None):
        if identity is None:
            monkeypatch.delenv("EVALSET_AGE_IDENTITY")
        releases = json.loads(cli(released, "log", "docs", "--json").out)["releases"]
        assert releases[-1]["summary"].startswith("4 re-verified, "), (identity, releases)


def test_log_calls_a_release_on_an_unrelated_history_the_first_on_its_branch(  # type: ignore[no-untyped-def]
    released: Path, cli
) -> None:
    git(released, "checkout", "-q", "--orphan", "fresh")
    commit_all(released, "the workspace again, on a history of its own")
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3, anew, about"))
    commit_all(released, "an edit")
    assert cli(released, "release", "docs", "--bump", "minor").code == 0
    releases = json.loads(cli(released, "log", "docs", "--json").out)["releases"]
    assert [(r["version"], r["since"], r["summary"]) for r in releases] == [
        ("0.1.0", None, "first release"),
        ("0.2.0", None, "first release on its branch"),
    ]


def test_log_passes_over_a_hand_made_tag_on_a_commit_without_the_set(  # type: ignore[no-untyped-def]
    released: Path, cli
) -> None:
    first = git(released, "rev-list", "--max-parents=0", "HEAD").strip()
    git(released, "tag", "-a", "evalset/docs/v0.0.5", "-m", "by hand", first)
    git(released, "tag", "-a", "evalset/docs/v9.0.0", "-m", "by hand", "HEAD")
    result = cli(released, "log", "docs", "--json")
    assert result.code == 0, result.err
    summaries = {r["version"]: r["summary"] for r in json.loads(result.out)["releases"]}
    assert summaries["0.1.0"] == "first release"
    assert summaries["9.0.0"].startswith("not a release: a tag made by hand")


def test_diff_of_a_revision_with_itself_is_no_change_though_an_item_is_invalid(  # type: ignore[no-untyped-def]
    released: Path, cli
) -> None:
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("question: Question q-2", "questoin: Question q-2"))
    commit_all(released, "a typo")
    data = json.loads(cli(released, "diff", "docs", "HEAD", "HEAD", "--json").out)
    assert data["not_compared"] == [] and data["removed"] == []


def test_the_releases_of_the_last_set_deleted_are_read_though_its_folder_went_too(  # type: ignore[no-untyped-def]
    released: Path, cli
) -> None:
    """git keeps no empty folder: with the last set deleted, the sets folder is gone too,
    and its releases are still read from the tags."""
    report = released / "report.json"
    report.write_text(json.dumps({"evalset": json.loads(cli(released, "pin", "docs").out)}))
    git(released, "rm", "-q", "sets/docs.yaml")
    commit_all(released, "the only set retired whole")
    assert not (released / "sets").exists()
    result = cli(released, "check-pin", str(report))
    assert result.code == 0, result.err
    log = cli(released, "log", "docs", "--json")
    assert log.code == 0, log.err
    assert [r["version"] for r in json.loads(log.out)["releases"]] == ["0.1.0"]


def test_release_refuses_a_set_file_outside_the_sets_folder(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """check-pin, log and diff find a release by its set's name in the sets folder: one
    made of a file elsewhere could never be checked."""
    text = (released / "sets" / "docs.yaml").read_text().replace("name: docs", "name: elsewhere")
    text = "".join(line for line in text.splitlines(True) if not line.startswith("version:"))
    (released / "elsewhere.yaml").write_text(text)
    commit_all(released, "a set beside the folder")
    result = cli(released, "release", "elsewhere.yaml", "--bump", "patch")
    assert result.code == 1, result.out
    assert result.err == (
        "evalset: elsewhere.yaml: cannot release elsewhere from outside the workspace's sets "
        "folder (sets), where `check-pin`, `log` and `diff` find a set's releases by its name; "
        "move it there (git mv), commit, and run the release again.\n"
    )
    assert tag_names(released) == ["evalset/docs/v0.1.0"]


def test_release_refuses_a_holdout_sealed_at_the_last_release_and_plain_now(  # type: ignore[no-untyped-def]
    released: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unsealed to edit and committed without sealing again: the release would publish the
    holdout questions the last release kept sealed."""
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("  - id: q-3\n", "  - id: q-3\n    holdout: true\n"))
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    assert cli(released, "seal", "docs", "--recipient", key[1]).code == 0
    commit_all(released, "hold q-3 out, sealed")
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    assert cli(released, "release", "docs", "--bump", "minor").code == 0
    assert cli(released, "unseal", "docs").code == 0
    path.write_text(path.read_text().replace("Question q-1 about", "Question q-1 now about"))
    commit_all(released, "an edit, the holdout left unsealed")
    result = cli(released, "release", "docs", "--bump", "minor")
    assert result.code == 1, result.out
    assert result.err == (
        "evalset: sets/docs.yaml: cannot release docs while 1 holdout item(s) are in plain "
        "text (q-3), though its holdout was sealed at release 0.2.0: the release would publish "
        f"them; seal them again (`evalset seal docs --recipient {key[1]}`, the keys of release "
        "0.2.0), commit, and run the release again.\n"
    )
    assert tag_names(released) == ["evalset/docs/v0.1.0", "evalset/docs/v0.2.0"]
    assert cli(released, "seal", "docs", "--recipient", key[1]).code == 0
    commit_all(released, "sealed again")
    assert cli(released, "release", "docs", "--bump", "minor").code == 0


def test_release_refuses_stale_items(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    policy = released / "corpus" / "policy.md"
    policy.write_text(policy.read_text().replace("14 days", "30 days"))
    assert cli(released, "snapshot").code == 0
    commit_all(released, "new returns policy")
    result = cli(released, "release", "docs", "--bump", "patch")
    assert result.code == 1
    assert "cannot release docs with 1 stale item(s) (q-1)" in result.err
    assert "evalset verify docs ITEM" in result.err


def test_release_refuses_drafts_unless_excluded(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text() + "  - id: d-1\n    question: A draft question?\n"
                    "    status: draft\n")  # fmt: skip
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    commit_all(released, "a draft and an edit")
    result = cli(released, "release", "docs", "--bump", "patch")
    assert result.code == 1
    assert "cannot release docs with 1 draft item(s) (d-1)" in result.err
    assert "--exclude-drafts" in result.err
    result = cli(released, "release", "docs", "--bump", "patch", "--exclude-drafts")
    assert result.code == 0, result.err
    pin = json.loads(cli(released, "pin", "docs").out)
    assert pin["version"] == "0.1.1"
    assert "d-1" not in pin["item_fingerprints"]


def test_release_refuses_when_nothing_changed(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(released, "release", "docs", "--bump", "patch")
    assert result.code == 1
    assert "has not changed since release 0.1.0" in result.err


def test_release_version_rules(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    commit_all(released, "edit")
    result = cli(released, "release", "docs", "--version", "0.1.0")
    assert result.code == 1 and "released already" in result.err
    result = cli(released, "release", "docs", "--version", "0.0.9")
    assert result.code == 1 and "not after the latest release 0.1.0" in result.err
    result = cli(released, "release", "docs", "--version", "banana")
    assert result.code == 2 and "is not a version" in result.err
    result = cli(released, "release", "docs")
    assert result.code == 2 and "exactly one of --bump and --version" in result.err
    result = cli(released, "release", "docs", "--version", "1.0.0", "--json")
    assert result.code == 0
    assert json.loads(result.out)["tag"] == "evalset/docs/v1.0.0"


def _release_killed_by_hook(released: Path, hook_name: str, script: str) -> None:
    """Edit the set, commit, and run `evalset release docs --bump minor` with the git hook
    ``hook_name`` running ``script``, which kills the release (SIGKILL) once git has made
    its commit."""
    import subprocess
    import sys

    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    commit_all(released, "edit")
    hook = released / ".git" / "hooks" / hook_name
    hook.write_text(script)
    hook.chmod(0o755)
    evalset = Path(sys.executable).with_name("evalset")
    env = {**os.environ, **GIT_ENV}
    killed = subprocess.run([str(evalset), "release", "docs", "--bump", "minor"], cwd=released,
                            env=env, capture_output=True, text=True, check=False)  # fmt: skip
    assert killed.returncode == -9, killed
    hook.unlink()
    assert git(released, "log", "-1", "--format=%s").strip() == "Release docs 0.2.0"


def _finished_on_the_commit_made(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """The same release run again tags the commit the killed one made: no second commit."""
    commits = git(released, "rev-list", "--count", "HEAD")
    result = cli(released, "release", "docs", "--bump", "minor")
    assert result.code == 0, result.err
    assert "completed the interrupted release docs 0.2.0" in result.out
    assert git(released, "rev-list", "--count", "HEAD") == commits
    assert tag_names(released) == ["evalset/docs/v0.1.0", "evalset/docs/v0.2.0"]


def test_an_interrupted_release_is_completed_not_duplicated(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """The release process is killed after its commit, before its tag (a post-commit hook
    kills it); the same command run again makes the tag on that commit."""
    # the hook's parent is `git commit`, whose parent is the release process
    _release_killed_by_hook(released, "post-commit", "#!/bin/sh\nkill -9 $(ps -o ppid= -p $PPID)\n")
    assert tag_names(released) == ["evalset/docs/v0.1.0"]
    _finished_on_the_commit_made(released, cli)


def test_a_release_killed_while_git_commits_is_completed_after_the_lock_is_gone(
    released: Path, cli
) -> None:  # type: ignore[no-untyped-def]
    """The release and its `git commit` are killed once HEAD has moved, before git has
    written its index: the commit is made, the index still holds the file as it was, and
    git's lock is left. Once the lock is deleted, the same command finishes the release
    (the file is not "changed": it is as HEAD has it) and leaves the index as a finished
    commit leaves it."""
    # Run by `git commit` as HEAD moves; its parent is git, whose parent is the release.
    script = '#!/bin/sh\n[ "$1" = committed ] || exit 0\nkill -9 $(ps -o ppid= -p $PPID) $PPID\n'
    _release_killed_by_hook(released, "reference-transaction", script)
    assert git(released, "diff", "--cached", "--name-only").split() == ["sets/docs.yaml"]
    lock = released / ".git" / "index.lock"
    assert lock.exists()
    result = cli(released, "release", "docs", "--bump", "minor")
    assert result.code == 2
    assert result.err == (
        f"evalset: {Path('sets/docs.yaml')}: cannot finish the release because git's index is "
        f"locked ({Path('.git/index.lock')} exists): another git command is running, or one "
        "was stopped before it finished; when none is running, delete that file and run the "
        "release again.\n"
    )
    lock.unlink()
    _finished_on_the_commit_made(released, cli)
    assert git(released, "status", "--porcelain") == ""


def test_a_change_only_in_the_index_is_refused_and_kept(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """The set file as HEAD has it, and another text staged for it (staged, then the file put
    back): no release was stopped, so the staged text is the user's, which a release commit
    would overwrite. The release refuses; the index keeps it."""
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    commit_all(released, "edit")
    committed = path.read_text()
    path.write_text(committed.replace("Question q-1", "Question q-1 staged"))
    git(released, "add", "sets/docs.yaml")
    path.write_text(committed)
    staged = git(released, "show", ":sets/docs.yaml")
    result = cli(released, "release", "docs", "--bump", "minor")
    assert result.code == 1, result.err
    assert "sets/docs.yaml has uncommitted changes" in result.err
    assert git(released, "show", ":sets/docs.yaml") == staged
    assert tag_names(released) == ["evalset/docs/v0.1.0"]


def test_a_release_stopped_before_its_commit_is_completed_by_running_it_again(
    released: Path, cli
) -> None:  # type: ignore[no-untyped-def]
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    commit_all(released, "edit")
    assert cli(released, "release", "docs", "--bump", "minor").code == 0
    written = path.read_text()
    # As if the run was killed after writing the header, before committing it:
    git(released, "tag", "-d", "evalset/docs/v0.2.0")
    git(released, "reset", "-q", "HEAD~1")
    assert "version: 0.2.0" in path.read_text()
    header = load_set(path).header
    assert header is not None
    Git.find(released).record_release(  # what the release records before its commit
        "docs", {"version": "0.2.0", "fingerprint": header.fingerprint}
    )
    commits = git(released, "rev-list", "--count", "HEAD")
    result = cli(released, "release", "docs", "--bump", "minor")
    assert result.code == 0, result.err
    assert "completed the interrupted release docs 0.2.0" in result.out
    assert int(git(released, "rev-list", "--count", "HEAD")) == int(commits) + 1
    assert tag_names(released) == ["evalset/docs/v0.1.0", "evalset/docs/v0.2.0"]
    assert path.read_text() == written and git(released, "status", "--porcelain") == ""


@pytest.mark.parametrize(
    ("lock", "held", "step"),
    [
        ("index.lock", "git's index is locked", "commit"),
        ("HEAD.lock", "a git lock is held", "commit"),
        ("refs/heads/BRANCH.lock", "a git lock is held", "commit"),
        ("refs/tags/evalset/docs/v0.2.0.lock", "a git lock is held", "tag"),
    ],
)
def test_a_stale_git_lock_is_named_with_what_to_do(  # type: ignore[no-untyped-def]
    released: Path, cli, lock: str, held: str, step: str
) -> None:
    """A git killed while it wrote its index, HEAD, the branch or a tag leaves its lock
    file. The release says which, in one sentence; with the file deleted, the same command
    releases (or, with its commit made, finishes the release)."""
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    commit_all(released, "edit")
    before, head = path.read_bytes(), git(released, "rev-parse", "HEAD")
    lock = lock.replace("BRANCH", git(released, "symbolic-ref", "--short", "HEAD").strip())
    held_file = released / ".git" / lock
    held_file.write_text("")
    result = cli(released, "release", "docs", "--bump", "minor")
    assert result.code == 2
    because = (
        f"because {held} ({Path('.git', lock)} exists): another git command is running, or one "
        "was stopped before it finished; when none is running, delete that file and run the "
        "release again.\n"
    )
    if step == "commit":
        assert (
            result.err == f"evalset: {Path('sets/docs.yaml')}: the release commit failed {because}"
        )
        assert path.read_bytes() == before and git(released, "rev-parse", "HEAD") == head
    else:
        made = git(released, "rev-parse", "HEAD")[:12]
        assert result.err == (
            f"evalset: {released}: the release commit {made} was made, but not its tag "
            f"evalset/docs/v0.2.0, {because}"
        )
    assert tag_names(released) == ["evalset/docs/v0.1.0"]
    held_file.unlink()
    result = cli(released, "release", "docs", "--bump", "minor")
    assert result.code == 0, result.err
    assert ("completed the interrupted release" in result.out) == (step == "tag")
    assert tag_names(released) == ["evalset/docs/v0.1.0", "evalset/docs/v0.2.0"]
    assert git(released, "status", "--porcelain") == ""


@pytest.mark.parametrize("operation", ["merge", "cherry-pick"])
def test_a_release_during_a_git_operation_in_progress_says_to_finish_it(  # type: ignore[no-untyped-def]
    released: Path, cli, operation: str
) -> None:
    """git commits one file alone only outside a merge or cherry-pick; the release said
    "Fix the cause (e.g. set user.name and user.email)", which was not it."""
    import subprocess

    write_files(released, {"other.txt": "before\n"})
    commit_all(released, "another file")
    git(released, "checkout", "-q", "-b", "side")
    write_files(released, {"other.txt": "side\n"})
    commit_all(released, "side")
    git(released, "checkout", "-q", "main")
    write_files(released, {"other.txt": "main\n"})
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    commit_all(released, "main, and an edit of the set")
    env = {**os.environ, **GIT_ENV}
    stopped = subprocess.run(["git", operation, "side"], cwd=released, env=env, capture_output=True)
    assert stopped.returncode != 0  # other.txt conflicts: the operation waits
    before = path.read_bytes()
    done = cli(released, "release", "docs", "--bump", "minor")
    assert done.code == 2, (done.out, done.err)
    assert done.err == (
        f"evalset: sets/docs.yaml: the release commit failed because a git {operation} is in "
        f"progress; the file is unchanged. Finish it (`git commit`) or abort it (`git "
        f"{operation} --abort`), then run the release again.\n"
    )
    assert path.read_bytes() == before and tag_names(released) == ["evalset/docs/v0.1.0"]
    git(released, operation, "--abort")
    assert cli(released, "release", "docs", "--bump", "minor").code == 0


def test_a_missing_tag_no_release_here_explains_is_not_completed(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A header naming a release whose tag is not here, and no release stopped here: this is
    a clone made without its tags (as CI makes them). The release must not "complete" it
    with a tag of its own choosing, nor start over at 0.0.1."""
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    commit_all(released, "edit")
    assert cli(released, "release", "docs", "--bump", "minor").code == 0
    git(released, "tag", "-d", "evalset/docs/v0.1.0", "evalset/docs/v0.2.0")
    commits = git(released, "rev-list", "--count", "HEAD")
    result = cli(released, "release", "docs", "--bump", "minor")
    assert result.code == 2
    assert result.err.strip() == (
        "evalset: sets/docs.yaml: names release 0.2.0 of docs, but this clone has no tag "
        "evalset/docs/v0.2.0 (it was made without its tags), so the releases of docs cannot "
        "be read here; fetch the tags: `git fetch --tags` (with `actions/checkout`: "
        "`fetch-depth: 0`, or `fetch-tags: true`)."
    )
    assert git(released, "rev-list", "--count", "HEAD") == commits
    assert tag_names(released) == []


def test_check_pin_catches_a_hand_made_tag(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    pin = json.loads(cli(released, "pin", "docs").out)
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    commit_all(released, "edit")
    git(released, "tag", "-f", "-a", "-m", "moved by hand", "evalset/docs/v0.1.0")
    report = released / "report.json"
    report.write_text(json.dumps({"evalset": pin}))
    result = cli(released, "check-pin", str(report))
    assert result.code == 1
    assert "tag evalset/docs/v0.1.0 was not made by `evalset release`" in result.err
    git(released, "tag", "-f", "evalset/docs/v0.1.0")  # a lightweight tag, same verdict
    result = cli(released, "check-pin", str(report), "--json")
    assert result.code == 1
    assert json.loads(result.out)["ok"] is False


UNREADABLE = {
    "cut short": ('{"evalset": {"set": "docs", ', "1:29: is not valid JSON (Expecting property"),
    "not JSON": ("{not json", "1:2: is not valid JSON (Expecting property name"),
    "nested too deeply": ("[" * 100_000, "1:1: is not valid JSON (values nested too deeply"),
    "a number too long": ('{"evalset": ' + "9" * 5000 + "}", "1:13: is not JSON that can be"),
}


@pytest.mark.parametrize("text", list(UNREADABLE))
def test_a_report_that_is_no_json_gets_one_fix_from_check_pin_and_gate(  # type: ignore[no-untyped-def]
    released: Path, cli, text: str
) -> None:
    """Before, check-pin said "fix the report", which an edit cannot do (its digest would
    not match), where gate and accept said to write it anew."""
    written, where = UNREADABLE[text]
    (released / "report.json").write_text(written)
    for command in (["check-pin"], ["gate", "report.json"], ["accept"]):
        result = cli(released, *command, "report.json")
        assert result.code == 2
        assert result.err.startswith(f"evalset: report.json:{where}"), (command, result.err)
        assert result.err.rstrip("\n").endswith(
            "give a report written by `evalset score`."
            if command != ["check-pin"]
            else "give a report written by `evalset score`, or a pin as `evalset pin` prints it."
        ), (command, result.err)


def test_check_pin_bad_reports(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    report = released / "report.json"
    report.write_text("{not json")
    result = cli(released, "check-pin", str(report))
    assert result.code == 2
    assert "report.json:1:2: is not valid JSON (Expecting property name" in result.err
    report.write_text(json.dumps({"score": 1}))
    result = cli(released, "check-pin", str(report))
    assert result.code == 2 and 'has no pin (no top-level "evalset" object)' in result.err
    pin = json.loads(cli(released, "pin", "docs").out)
    report.write_text(json.dumps({"evalset": {**pin, "version": "9.9.9"}}))
    result = cli(released, "check-pin", str(report))
    assert result.code == 1 and "docs has no release 9.9.9" in result.err
    report.write_text(json.dumps({"evalset": {**pin, "snapshot": "0123456789ab"}}))
    result = cli(released, "check-pin", str(report))
    assert result.code == 1 and "report names corpus snapshot 0123456789ab" in result.err
    result = cli(released, "check-pin", str(released / "missing.json"))
    assert result.code == 2 and "missing.json: no such file" in result.err


ALTERED_PINS = {
    "item counts": ({"items": {"total": 999, "holdout": 500, "categories": {"x": 999}}},
                    "report's item counts "),
    "items digest": ({"items_digest": "sha256:" + "0" * 64}, "report's items digest "),
    "item fingerprints": ({"item_fingerprints": {"q-1": "0" * 16, "q-77": "1" * 16}},
                          "report's item fingerprints do not match release 0.1.0"),
    "an item left out": ({"item_fingerprints": {}}, "report's item fingerprints do not match"),
    "item fingerprints a list": ({"item_fingerprints": [1]}, "report's item fingerprints do not"),
    "item fingerprints null": ({"item_fingerprints": None}, "report's item fingerprints do not"),
    "an empty suffix": ({"version": "0.1.0+"}, "report names version '0.1.0+', which is not"),
    "another suffix": ({"version": "0.1.0+x"}, "report names version '0.1.0+x', which is not"),
    "a key evalset never writes": ({"verdict": "pass"}, "the pin holds verdict, which"),
    "format 3": ({"fingerprint_format": 3}, "the pin's fingerprint_format 3 is none"),
    "format null": ({"fingerprint_format": None}, "the pin's fingerprint_format None is none"),
    "format true": ({"fingerprint_format": True}, "the pin's fingerprint_format True is none"),
    "version a number": ({"version": 1}, "the pin's version 1 is not text"),
    "categories": ({"categories": {"direct-lookup": "x", "made-up": "y"}}, "report's categories"),
}  # fmt: skip


@pytest.mark.parametrize("altered", ALTERED_PINS, ids=list(ALTERED_PINS))
def test_check_pin_refuses_a_pin_altered_anywhere(released: Path, cli, altered: str) -> None:  # type: ignore[no-untyped-def]
    """Before, only the set fingerprint, version and snapshot were checked: item counts,
    the items digest and the item fingerprints the gate chooses its items by could be
    forged, and the pin still passed."""
    pin = json.loads(cli(released, "pin", "docs").out)
    change, said = ALTERED_PINS[altered]
    report = released / "report.json"
    report.write_text(json.dumps({"evalset": {**pin, **change}, "faithfulness": 0.9}))
    result = cli(released, "check-pin", str(report))
    assert result.code == 1 and said in result.err, result.err
    assert len(result.err.strip().splitlines()) == 1


@pytest.mark.parametrize("how", ["as floats", "as true/false"])
def test_check_pin_refuses_counts_written_as_other_numbers(released: Path, cli, how: str) -> None:  # type: ignore[no-untyped-def]
    """Before, `"total": 4.0` and `"holdout": true` passed: Python holds them equal to 4
    and 1. JSON does not."""
    pin = json.loads(cli(released, "pin", "docs").out)
    counts = pin["items"]
    if how == "as floats":
        altered = {**counts, "total": float(counts["total"])}
    else:
        altered = {**counts, "holdout": bool(counts["holdout"])}
    assert altered == counts  # equal to Python, though not the same JSON
    report = released / "report.json"
    report.write_text(json.dumps({"evalset": {**pin, "items": altered}}))
    result = cli(released, "check-pin", str(report))
    assert result.code == 1 and "report's item counts " in result.err, result.err


def test_check_pin_accepts_the_full_snapshot_id_and_any_tool(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Ids are taken by any unique prefix; the full one was refused as another snapshot."""
    pin = json.loads(cli(released, "pin", "docs").out)
    (full,) = [p.stem for p in (released / "snapshots").glob("*.json")]
    report = released / "report.json"
    for change in ({"snapshot": full}, {"tool": "evalset 9.9.9"}, {}):
        report.write_text(json.dumps({"evalset": {**pin, **change}}))
        result = cli(released, "check-pin", str(report))
        assert result.code == 0, (change, result.err)
    report.write_text(json.dumps({"evalset": {**pin, "snapshot": full[:12] + "ff"}}))
    assert cli(released, "check-pin", str(report)).code == 1
    # the pin an export carries (with the set's categories) is the release's too
    for fmt in ("jsonl", "langsmith"):
        out = released / f"export.{fmt}"
        assert cli(released, "export", "docs", "--format", fmt, "--split", "all", "-o",
                   str(out)).code == 0  # fmt: skip
        row = json.loads(out.read_text().splitlines()[0])
        carried = row["evalset"] if fmt == "jsonl" else row["metadata"]["evalset"]
        report.write_text(json.dumps({"evalset": carried}))
        done = cli(released, "check-pin", str(report))
        assert done.code == 0, (fmt, done.err)


@pytest.mark.parametrize("committed", [True, False], ids=["committed", "not committed"])
def test_a_release_is_refused_while_the_corpus_differs_from_the_newest_snapshot(  # type: ignore[no-untyped-def]
    released: Path, cli, committed: bool
) -> None:
    """Before, a corpus edited (and committed) without a snapshot was released against the
    old snapshot: the tag named a corpus that was not the one it shipped with, and the items
    citing the changed section were never found stale."""
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3, reworded, about"))
    policy = released / "corpus" / "policy.md"
    policy.write_text(policy.read_text().replace("14 days", "30 days"))
    commit_all(released, "q-3 reworded" if not committed else "q-3 reworded, policy changed")
    if not committed:
        policy.write_text(policy.read_text().replace("30 days", "45 days"))
    tags = tag_names(released)
    result = cli(released, "release", "docs", "--bump", "patch")
    assert result.code == 1, (result.out, result.err)
    assert "while the corpus has changed since the newest snapshot" in result.err
    assert tag_names(released) == tags


def test_the_notes_of_a_release_without_its_drafts_list_no_draft(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Before, `release --exclude-drafts` listed each draft it left out as added, in its
    summary, its commit message, its tag message and so in `log`."""
    path = released / "sets" / "docs.yaml"
    text = path.read_text().replace("Question q-3 about", "Question q-3, reworded, about")
    path.write_text(
        text + "  - id: d-1\n    question: A draft nobody finished?\n    status: draft\n"
    )
    commit_all(released, "a draft, and q-3 reworded")
    result = cli(released, "release", "docs", "--bump", "patch", "--exclude-drafts")
    assert result.code == 0, result.err
    body = git(released, "log", "-1", "--format=%b")
    message = git(released, "tag", "-l", "--format=%(contents)", "evalset/docs/v0.1.1")
    for said in (result.out, body, message, cli(released, "log", "docs").out):
        assert "d-1" not in said, said
    assert "- changed q-3: question" in body
    # log counts what the release notes list (it counted the draft left out as added)
    log = json.loads(cli(released, "log", "docs", "--json").out)["releases"]
    assert [(r["version"], r["summary"]) for r in log] == [
        ("0.1.0", "first release"),
        ("0.1.1", "1 changed"),
    ]


def test_a_release_does_not_build_on_a_tag_made_by_hand(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Before, a hand-made tag became the latest release: the next release was numbered
    after it and published unchanged content as "9.0.1 (no change)"."""
    git(released, "tag", "-a", "evalset/docs/v9.0.0", "-m", "tagged by hand", "HEAD")
    tags = tag_names(released)
    result = cli(released, "release", "docs", "--bump", "patch")
    assert result.code == 1 and "evalset/docs/v9.0.0, was not made by `evalset release`" in (
        result.err
    )
    assert tag_names(released) == tags
    # status names the last release `evalset release` made, and the tag it did not make
    status = json.loads(cli(released, "status", "--json").out)["sets"][0]
    assert (status["release"], status["foreign_tag"]) == ("0.1.0", "evalset/docs/v9.0.0")
    line = next(ln for ln in cli(released, "status").out.splitlines() if "release:" in ln)
    assert line.endswith(
        "release: 0.1.0 (tag evalset/docs/v9.0.0 was not made by `evalset release`)"
    )


def _another_workspace_released(repo: Path, cli) -> Path:  # type: ignore[no-untyped-def]
    """``repo`` (a workspace whose set docs is released as 0.1.0) with a second workspace in
    its folder ``b`` that holds a set named docs too, of other content, never released; the
    first set released again (0.2.0) on a commit holding both. Git's tags are the
    repository's: neither is b's release. Returns b."""
    b = repo / "b"
    write_files(b, {"evalset.toml": "[validate]\nmin_per_category = 0\n", **CORPUS})
    write_files(b, {"sets/docs.yaml": SET_HEADER + set_item("q-1", RETURNS)})
    assert cli(b, "snapshot").code == 0 and cli(b, "verify", "docs", "--all").code == 0
    path = repo / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3, reworded, about"))
    commit_all(repo, "a second workspace; q-3 reworded")
    assert cli(repo, "release", "docs", "--bump", "minor").code == 0
    return b


def _copied_tag_before_the_release(repo: Path, cli) -> Path:  # type: ignore[no-untyped-def]
    """``repo`` with a tag evalset/docs/v0.2.0 made by hand on the commit before release
    0.1.0, whose message it copies (a pin and all): that commit's set names no release; then
    an edit of the set, committed."""
    message = git(repo, "tag", "-l", "--format=%(contents)", "evalset/docs/v0.1.0")
    git(repo, "tag", "-a", "evalset/docs/v0.2.0", "-m", message, "HEAD~1")
    path = repo / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3, reworded, about"))
    commit_all(repo, "q-3 reworded")  # a release would number itself after 0.2.0
    return repo


NO_RELEASE_HERE = {
    "a set of the same name in another workspace": _another_workspace_released,
    "a release's tag copied onto an unreleased commit": _copied_tag_before_the_release,
}
"""How a tag evalset/docs/vX.Y.Z comes to be read where the set file names no release."""


NO_RELEASE_READERS = {
    "release": ["release", "docs", "--bump", "minor"],
    "diff": ["diff", "docs", "0.2.0"],
    "log": ["log", "docs"],
    "pin --rev": ["pin", "docs", "--rev", "0.2.0"],
}
"""Each command that reads release 0.2.0 (log: every release) by its tag."""


@pytest.mark.parametrize("command", NO_RELEASE_READERS)
@pytest.mark.parametrize("how", NO_RELEASE_HERE)
def test_a_tag_on_a_commit_whose_set_names_no_release_is_not_read_as_its_release(  # type: ignore[no-untyped-def]
    released: Path, cli, how: str, command: str
) -> None:
    """Before, such a tag was read as the set's release: in a second workspace of the
    repository holding a set of the same name, never released, `release` said "docs has not
    changed since release 0.2.0 … merge it" (or numbered its first release after the other
    set's), `diff` compared with the other set's release, `log` listed it."""
    where = NO_RELEASE_HERE[how](released, cli)
    path = where / "sets" / "docs.yaml"
    before, tags = path.read_bytes(), tag_names(released)
    done = cli(where, *NO_RELEASE_READERS[command])
    assert done.code == 2, (done.out, done.err)
    assert done.err.startswith("evalset: sets/docs.yaml: tag evalset/docs/v"), done.err
    said = "points at a commit whose set names no release, so the tag was moved or made by hand"
    if command != "log" or "copied" in how:  # (log reads 0.1.0 first: on a commit without b)
        assert said in done.err, done.err
    assert (
        "or it is the release of a set of the same name in another workspace of this repository"
        in done.err
    )
    assert len(done.err.strip().splitlines()) == 1 and done.out == ""
    assert (path.read_bytes(), tag_names(released)) == (before, tags)


def test_log_tells_a_tag_made_by_hand_and_reads_no_tag_of_a_name_with_a_slash(  # type: ignore[no-untyped-def]
    released: Path, cli
) -> None:
    """A hand-made tag below the first release is no release (the release after it is
    still the first); evalset/docs/x/v9.0.0 names no release of docs, nor of any set."""
    first = git(released, "rev-list", "--max-parents=0", "HEAD").strip()
    git(released, "tag", "-a", "evalset/docs/v0.0.5", "-m", "tagged by hand", first)
    git(released, "tag", "-a", "evalset/docs/x/v9.0.0", "-m", "not a set's", "HEAD")
    data = json.loads(cli(released, "log", "docs", "--json").out)
    assert [(r["version"], r["summary"]) for r in data["releases"]] == [
        (
            "0.0.5",
            "not a release: a tag made by hand (it records no pin; `git tag -d "
            "evalset/docs/v0.0.5` deletes it)",
        ),
        ("0.1.0", "first release"),
    ]
    result = cli(released, "pin", "docs")
    assert result.code == 0, result.err
    assert json.loads(result.out)["version"] == "0.1.0"


def test_pin_refuses_a_header_version_edited_by_hand_to_an_older_release(  # type: ignore[no-untyped-def]
    released: Path, cli
) -> None:
    """The content is release 0.2.0's, on this branch, but the header says 0.1.0: not
    0.1.0+modified (check-pin would then advise merging a commit the branch holds)."""
    second_release(released, cli)
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("version: 0.2.0", "version: 0.1.0"))
    result = cli(released, "pin", "docs")
    assert result.code == 2
    assert result.err == (
        "evalset: sets/docs.yaml: its header names release 0.1.0 of docs, but its content is "
        "release 0.2.0's, whose commit this branch holds: the header was edited by hand; put "
        "back the header release 0.2.0 wrote (`git checkout evalset/docs/v0.2.0 -- "
        "sets/docs.yaml`, if nothing else changed since).\n"
    )


@pytest.mark.parametrize("version", ["01.2.3", "1.02.3", "1.2.03", "v\u0661.2.3", "1.2.3.4", "1.2"])
def test_a_version_is_written_one_way_only(released: Path, cli, version: str) -> None:  # type: ignore[no-untyped-def]
    """Before, `--version 01.2.3` was taken as 1.2.3, and `log` then showed two 1.2.3 rows."""
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3, reworded, about"))
    commit_all(released, "q-3 reworded")
    result = cli(released, "release", "docs", "--version", version)
    assert result.code == 2 and "is not a version; give X.Y.Z" in result.err
    git(released, "tag", "-a", f"evalset/docs/v{version}", "-m", "by hand", "HEAD")
    assert version not in cli(released, "log", "docs").out


def test_pin_at_a_release_and_without_item_fingerprints(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    at_release = json.loads(cli(released, "pin", "docs", "--rev", "0.1.0").out)
    assert at_release["version"] == "0.1.0"
    assert at_release["rev"] == git(released, "rev-parse", "evalset/docs/v0.1.0^{}").strip()
    short = json.loads(cli(released, "pin", "docs", "--short").out)
    assert "item_fingerprints" not in short and short["version"] == "0.1.0+modified"


def test_pin_api_returns_what_the_command_prints(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    from evalset.config import find_workspace
    from evalset.versions.pin import pin

    printed = json.loads(cli(released, "pin", "docs").out)
    ws = find_workspace(released)
    assert pin(ws, released / "sets" / "docs.yaml") == printed


# how `pin` is asked for the working tree's pin: its arguments, and the API's ``rev``
WORKING_TREE_PINS = {"no --rev": ([], None), "--rev WORKTREE": (["--rev", "WORKTREE"], "WORKTREE")}


@pytest.mark.parametrize("edited", [False, True], ids=["as released", "edited since"])
@pytest.mark.parametrize("how", WORKING_TREE_PINS)
def test_pin_names_the_working_tree_as_diff_does(  # type: ignore[no-untyped-def]
    released: Path, cli, how: str, edited: bool
) -> None:
    """`--rev WORKTREE`, as `evalset diff` names the working tree, was an internal error
    (exit 3): the revision it reads has no commit."""
    from evalset.config import find_workspace
    from evalset.versions.pin import pin

    path = released / "sets" / "docs.yaml"
    if edited:
        path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    args, rev = WORKING_TREE_PINS[how]
    done = cli(released, "pin", "docs", *args)
    assert done.code == 0, done.err
    printed = json.loads(done.out)
    assert printed == json.loads(cli(released, "pin", "docs").out)
    assert printed["version"] == ("0.1.0+modified" if edited else "0.1.0")
    assert pin(find_workspace(released), path, rev) == printed


def test_not_a_git_repository(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    files = {"evalset.toml": "", "sets/docs.yaml": SET_HEADER + set_item("q-1", "a.md")}
    write_files(tmp_path, files)
    result = cli(tmp_path, "release", "docs", "--bump", "minor")
    assert result.code == 2
    assert "is not inside a git repository, so it has no releases" in result.err
    assert cli(tmp_path, "pin", "docs").code == 0  # read-only commands still work
    status = json.loads(cli(tmp_path, "status", "--json").out)
    assert status["sets"][0]["release"] is None


def test_release_on_a_detached_head(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """CI releases on a detached HEAD. Before, the branch that never merged the release
    commit was stuck: its set file named the release before, check-pin sent its reports
    back to that release and `release` said there was nothing to release."""
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    commit_all(released, "q-3 edited on main")
    git(released, "checkout", "-q", "--detach")
    result = cli(released, "release", "docs", "--bump", "patch")
    assert result.code == 0, result.err
    assert result.out.endswith(
        "note: HEAD is detached; push the tag (git push <remote> evalset/docs/v0.1.1) to keep "
        "it, and merge it into your branch (git merge evalset/docs/v0.1.1), whose set file "
        "would otherwise name no release.\n"
    )
    assert "evalset/docs/v0.1.1" in tag_names(released)
    git(released, "checkout", "-q", "main")  # the content of 0.1.1, the header of 0.1.0
    (released / "report.json").write_text(cli(released, "pin", "docs").out)
    checked = cli(released, "check-pin", "report.json")
    assert checked.code == 1 and checked.err == (
        "report.json: report was run on 0.1.0+modified, the content of release 0.1.1: the "
        "branch lacks that release's commit, so its set file names release 0.1.0; merge it "
        "(`git merge evalset/docs/v0.1.1`) and score the run again.\n"
    )
    again = cli(released, "release", "docs", "--bump", "patch")
    assert again.code == 1 and again.err.endswith(
        "there is nothing to release; but this branch lacks its release commit, so its set "
        "file names release 0.1.0: merge it (`git merge evalset/docs/v0.1.1`).\n"
    )
    git(released, "merge", "-q", "evalset/docs/v0.1.1")  # as they say
    (released / "report.json").write_text(cli(released, "pin", "docs").out)
    assert cli(released, "check-pin", "report.json").code == 0


# where a pin of release 0.1.0's content that names no release was taken: how it is made,
# and what check-pin says to do
UNNAMED = {
    # a branch made before the first release, which it never merged
    "on a branch without the release": (
        lambda repo, cli: git(repo, "checkout", "-q", "-b", "before", "HEAD~1") and None,
        [],
        "report.json: report was run on the content of release 0.1.0 of docs, but its set file "
        "names no release (version: null): the branch lacks the release commit; merge it (`git "
        "merge evalset/docs/v0.1.0`) and score the run again.\n",
    ),
    # a commit before the release, on a branch that holds it: it said to merge the release
    # commit, which the branch has
    "before the release, on its branch": (
        lambda repo, cli: None,
        ["--rev", "HEAD~1"],
        "report.json: report was run on the content of release 0.1.0 of docs before it was "
        "released, so its pin names no release (version: null); score the run again on release "
        "0.1.0 (its tag), and its pin will name it.\n",
    ),
}


@pytest.mark.parametrize("where", UNNAMED)
def test_a_pin_of_release_content_that_names_no_release_says_what_to_do(  # type: ignore[no-untyped-def]
    released: Path, cli, where: str
) -> None:
    made, args, expected = UNNAMED[where]
    made(released, cli)
    pin = json.loads(cli(released, "pin", "docs", *args).out)
    assert pin["version"] is None
    (released / "report.json").write_text(json.dumps({"evalset": pin}))
    checked = cli(released, "check-pin", "report.json")
    assert (checked.code, checked.err) == (1, expected)


def test_a_pin_of_modified_content_released_since_names_that_release(  # type: ignore[no-untyped-def]
    released: Path, cli
) -> None:
    """Pinned as 0.1.0+modified, then released unchanged as 0.1.1: it said to "release this
    content", which had been done."""
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3, reworded, about"))
    (released / "report.json").write_text(cli(released, "pin", "docs").out)
    commit_all(released, "q-3 reworded")
    assert cli(released, "release", "docs", "--bump", "patch").code == 0
    checked = cli(released, "check-pin", "report.json")
    assert checked.code == 1 and checked.err == (
        "report.json: report was run on 0.1.0+modified, content released since as 0.1.1 (the "
        "same fingerprint), so its pin names no release; score the run again on release 0.1.1 "
        "(its tag), and its pin will name it.\n"
    )


def test_a_pin_of_a_newer_corpus_says_how_to_name_it(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """The corpus changed where no item cites it, and was snapshotted: the pin names release
    0.1.0 with the new snapshot, and check-pin refused it without a fix."""
    write_files(released, {"corpus/other.md": "# Other\n\nUncited text.\n"})
    assert cli(released, "snapshot").code == 0
    commit_all(released, "an uncited document")
    (released / "report.json").write_text(cli(released, "pin", "docs").out)
    checked = cli(released, "check-pin", "report.json")
    assert checked.code == 1
    assert checked.err.endswith(
        "; release the set against this corpus (`evalset release docs --bump patch`) and score "
        "the run again on that release, or score it again in a checkout of release 0.1.0 (its "
        "tag).\n"
    )
    # as it says: the release's notes name the new corpus, where they said "no change"
    newest = json.loads(cli(released, "status", "--json").out)["newest"]["snapshot"]
    done = cli(released, "release", "docs", "--bump", "patch")
    assert done.code == 0 and f"0.1.1 (new corpus snapshot {newest})" in done.out
    log = json.loads(cli(released, "log", "docs", "--json").out)["releases"]
    assert log[-1]["summary"] == f"new corpus snapshot {newest}"
    assert f"Since 0.1.0: new corpus snapshot {newest}." in git(released, "log", "-1")


def test_shallow_clone_says_history_is_missing(released: Path, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    commit_all(released, "edit")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{released}", str(clone))
    result = cli(clone, "diff", "docs", "0.1.0")
    assert result.code == 2
    # the shallow clone holds the release commit's successor only, so not its tag either
    assert "this clone has no tag evalset/docs/v0.1.0" in result.err
    assert "`git fetch --tags`" in result.err
    git(clone, "fetch", "-q", "--tags", "origin")
    assert cli(clone, "diff", "docs", "0.1.0").code == 0


def test_a_release_in_a_shallow_clone_is_refused(released: Path, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Before, a clone of two commits (GitLab's GIT_DEPTH) lacked the tag of 0.2.0, made on
    another branch, and released another 0.2.0, whose tag the remote then refused."""
    path = released / "sets" / "docs.yaml"
    git(released, "checkout", "-q", "-b", "exp")
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    commit_all(released, "q-3 edited on a branch")
    assert cli(released, "release", "docs", "--bump", "minor").code == 0  # 0.2.0
    git(released, "checkout", "-q", "main")
    path.write_text(path.read_text().replace("Question q-2 about", "Question q-2 now about"))
    commit_all(released, "q-2 edited on main")
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "2", f"file://{released}", str(clone))
    assert "evalset/docs/v0.2.0" not in tag_names(clone)
    before = (clone / "sets" / "docs.yaml").read_bytes(), tag_names(clone)
    result = cli(clone, "release", "docs", "--bump", "minor")
    assert result.code == 2 and result.out == ""
    assert result.err == (
        "evalset: sets/docs.yaml: this clone is shallow, so it may lack release tags of docs "
        "made on commits it did not fetch, and which version comes next cannot be told here "
        "(it may be released already); fetch the whole history: `git fetch --unshallow "
        "--tags` (with `actions/checkout`: `fetch-depth: 0`; in GitLab CI: `GIT_DEPTH: 0`).\n"
    )
    assert ((clone / "sets" / "docs.yaml").read_bytes(), tag_names(clone)) == before
    git(clone, "fetch", "-q", "--unshallow", "--tags")  # as it says
    done = cli(clone, "release", "docs", "--bump", "minor")
    assert done.code == 0 and "released docs 0.3.0" in done.out, done.err


def test_release_commit_failure_leaves_the_file_unchanged(released: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    commit_all(released, "edit")
    before = path.read_bytes()
    hook = released / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\necho refused by hook >&2\nexit 1\n")
    hook.chmod(0o755)
    result = cli(released, "release", "docs", "--bump", "patch")
    assert result.code == 2
    assert "the release commit failed" in result.err and "the file is unchanged" in result.err
    assert path.read_bytes() == before
    assert tag_names(released) == ["evalset/docs/v0.1.0"]


# ---------------------------------------------------------------------------------------
# Fingerprints

BASE = (
    "evalset: 1\nname: fp\ncategories:\n  a: kind a\n  b: kind b\nitems:\n"
    "  - id: x-1\n    question: What is the return window?\n    category: a\n"
    "    expected_sources: [doc.md#returns]\n"
    "    key_points:\n      - text: Fourteen days\n        sources: [doc.md#returns]\n"
    "    tags: [returns, window]\n"
    "  - id: x-2\n    question: Can I pay by card?\n    category: b\n    answerable: false\n"
)


@st.composite
def reformatted(draw: st.DrawFn) -> str:
    """The same content as BASE, written differently: comments, quoting, flow/block lists,
    blank lines, key order and explicit defaults."""
    text = BASE
    if draw(st.booleans()):
        text = "# a comment at the top\n" + text.replace("items:\n", "items:  # the rows\n")
    if draw(st.booleans()):
        text = text.replace("question: Can I pay by card?", "question: 'Can I pay by card?'")
    if draw(st.booleans()):
        text = text.replace("tags: [returns, window]", "tags:\n      - returns\n      - window")
    if draw(st.booleans()):
        text = text.replace("  - id: x-2", "\n  - id: x-2")
    if draw(st.booleans()):
        text = text.replace(
            "    category: a\n    expected_sources: [doc.md#returns]\n",
            "    expected_sources: [doc.md#returns]\n    category: a\n",
        )
    if draw(st.booleans()):
        text = text.replace("    category: b\n", "    category: b\n    status: active\n")
    if draw(st.booleans()):
        text = text.replace("name: fp\n", "name: fp\nversion: 1.2.3\n")
    return text


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(reformatted())
def test_fingerprints_ignore_formatting(text: str) -> None:
    expected = set_fingerprint(parse_set(BASE, Path("fp.yaml")))
    assert set_fingerprint(parse_set(text, Path("fp.yaml"))) == expected


LABEL_CHANGES = [
    ("Fourteen days", "Fifteen days"),
    ("What is the return window?", "What is the refund window?"),
    ("sources: [doc.md#returns]", "sources: [doc.md#refunds]"),
    ("category: b", "category: a"),
    ("expected_sources: [doc.md#returns]", "expected_sources: [doc.md#returns, doc.md]"),
    ("    tags: [returns", "    answer: 14 days\n    tags: [returns"),
    ("    tags: [returns", "    must_not_say: [thirty days]\n    tags: [returns"),
    ("answerable: false\n", "answerable: false\n    holdout: true\n"),
    ("answerable: false\n", "answerable: false\n    status: retired\n"),
    ("  b: kind b\n", "  b: kind b\n  c: kind c\n"),
]


@pytest.mark.parametrize(("old", "new"), LABEL_CHANGES)
def test_any_label_change_changes_the_fingerprint(old: str, new: str) -> None:
    before = parse_set(BASE, Path("fp.yaml"))
    after = parse_set(BASE.replace(old, new, 1), Path("fp.yaml"))
    assert not after.schema_findings
    assert set_fingerprint(after) != set_fingerprint(before)


def test_item_fingerprints_change_only_for_the_changed_item() -> None:
    before = item_fingerprints(parse_set(BASE, Path("fp.yaml")))
    after = item_fingerprints(parse_set(BASE.replace("Fourteen", "Fifteen"), Path("fp.yaml")))
    assert before["x-2"] == after["x-2"] and before["x-1"] != after["x-1"]


def test_drafts_and_retired_items_are_not_released_content() -> None:
    base = parse_set(BASE, Path("fp.yaml"))
    extra = BASE + "  - id: x-3\n    question: A draft?\n    status: draft\n"
    assert set_fingerprint(parse_set(extra, Path("fp.yaml"))) == set_fingerprint(base)


def test_an_invalid_set_cannot_be_fingerprinted() -> None:
    from evalset.sets.fingerprint import InvalidSet

    with pytest.raises(InvalidSet, match="cannot be fingerprinted"):
        set_fingerprint(parse_set(BASE.replace("category: a", "category: [a]"), Path("f.yaml")))


def test_every_new_command_has_help(cli) -> None:  # type: ignore[no-untyped-def]
    for command in ("release", "pin", "check-pin", "diff", "log", "merge-driver"):
        result = cli(Path(os.getcwd()), command, "--help")
        assert result.code == 0 and "Example" in result.out, command


def test_release_refuses_an_uncommitted_snapshot(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_files(released, {"corpus/new.md": "# New\n\nA document no item cites.\n"})
    assert cli(released, "snapshot").code == 0  # not committed
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    commit_all(released, "edit")
    git(released, "rm", "-q", "--cached", "-r", "snapshots")
    git(released, "commit", "-qm", "untrack snapshots")
    result = cli(released, "release", "docs", "--bump", "patch")
    assert result.code == 1
    # a new file, which `git commit -a` leaves out: named as such, with the command to add it
    assert "while snapshots/" in result.err and "are not in git yet" in result.err  # two
    assert "add and commit them (git add snapshots/" in result.err
    commit_all(released, "snapshots")
    snapshot = next((released / "snapshots").glob("*.json"))
    snapshot.write_text(snapshot.read_text() + "\n")  # a tracked file edited
    result = cli(released, "release", "docs", "--bump", "patch")
    assert result.code == 1
    assert f"while snapshots/{snapshot.name} has uncommitted changes" in result.err


def test_release_names_every_new_file_in_one_sentence(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A first release in a repository with nothing committed: the set and its snapshot."""
    write_files(corpus_repo, {"corpus/a.md": "# A\n\n## B\n\nText.\n"})
    taken = cli(corpus_repo, "snapshot", "--json")
    short = json.loads(taken.out)["id"][:12]
    (corpus_repo / "sets" / "docs.yaml").write_text(
        SET_HEADER + set_item("q-1", "a.md#b", verified=short)
    )
    result = cli(corpus_repo, "release", "docs", "--bump", "minor")
    assert result.code == 1, result.err
    assert "while sets/docs.yaml, snapshots/" in result.err
    assert (
        "are not in git yet (new files, which `git commit -a` does not add); add and "
        "commit them (git add sets/docs.yaml snapshots/" in result.err
    )
    git(corpus_repo, "add", "sets/docs.yaml")
    git(corpus_repo, "commit", "-qm", "the set alone")
    result = cli(corpus_repo, "release", "docs", "--bump", "minor")
    assert (
        "is not in git yet (a new file, which `git commit -a` does not add); add and "
        "commit it (git add snapshots/" in result.err
    )


# -- names git cannot use in a tag, tags git cannot create, reports as untrusted input -------


@pytest.mark.parametrize("name", ["a.lock", "..", ".hidden", "a..b", "trailing."])
def test_a_set_name_git_cannot_tag_is_invalid(cli, tmp_path: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "named.yaml"
    path.write_text(SET_HEADER.replace("name: docs", f"name: '{name}'"))
    result = cli(tmp_path, "validate", "named.yaml")
    assert result.code == 1
    assert (
        f"named.yaml:2:1: name: error: set name {name!r} cannot be part of a git tag "
        "(evalset/NAME/vX.Y.Z): it may not start or end with '.', contain '..', or end with "
        "'.lock'"
    ) in result.out


NAMES_REFUSED = {
    # before, `init --name -x` made sets/-x.yaml, which no command could then name (`evalset
    # new -x`: "No such option"), and its own next step failed the same way
    "-x": "set name '-x' may not start with '-', which a command line reads as an option",
    "--all": "set name '--all' may not start with '-', which a command line reads as an option",
}
NOT_ASCII = "\u00fcn\u00ef"  # "may use only letters", of a name of letters


@pytest.mark.parametrize("name", list(NAMES_REFUSED))
def test_a_set_name_no_command_could_take_is_refused(  # type: ignore[no-untyped-def]
    cli, git_repo: Path, tmp_path: Path, name: str
) -> None:
    result = cli(git_repo, "init", f"--name={name}")
    assert (result.code, result.err.strip()) == (
        2,
        f"evalset: {git_repo.resolve()}: {NAMES_REFUSED[name]}; choose another with --name.",
    )
    assert not (git_repo / "sets").exists()
    path = tmp_path / "named.yaml"
    path.write_text(SET_HEADER.replace("name: docs", f"name: '{name}'"))
    result = cli(tmp_path, "validate", "named.yaml")
    assert result.code == 1
    assert f"named.yaml:2:1: name: error: {NAMES_REFUSED[name]}" in result.out


def test_a_set_name_beyond_ascii_is_refused_as_such(  # type: ignore[no-untyped-def]
    cli, git_repo: Path, tmp_path: Path
) -> None:
    result = cli(git_repo, "init", f"--name={NOT_ASCII}")
    assert result.err.strip() == (
        f"evalset: {git_repo.resolve()}: set name {NOT_ASCII!r} may use only ASCII letters, "
        "digits, '.', '_' and '-'; choose another with --name."
    )
    (tmp_path / "named.yaml").write_text(SET_HEADER.replace("name: docs", f"name: {NOT_ASCII}"))
    result = cli(tmp_path, "validate", "named.yaml")
    assert "(use ASCII letters, digits, '.', '_' and '-' only)" in result.out


def test_init_refuses_a_name_git_cannot_tag(cli, git_repo: Path) -> None:  # type: ignore[no-untyped-def]
    result = cli(git_repo, "init", "--name", "a.lock")
    assert result.code == 2
    assert result.err.strip() == (
        f"evalset: {git_repo.resolve()}: set name 'a.lock' cannot be part of a git tag "
        "(evalset/NAME/vX.Y.Z): it may not start or end with '.', contain '..', or end with "
        "'.lock'; choose another with --name."
    )
    assert not (git_repo / "sets").exists()


def test_a_tag_git_cannot_create_is_one_sentence_and_the_next_run_finishes(  # type: ignore[no-untyped-def]
    released: Path, cli
) -> None:
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3 now about"))
    commit_all(released, "edit")
    git(released, "config", "tag.gpgSign", "true")
    git(released, "config", "gpg.program", "/bin/false")  # no key can sign
    commits = git(released, "rev-list", "--count", "HEAD")
    result = cli(released, "release", "docs", "--bump", "minor")
    assert result.code == 2
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and "internal error" not in result.err
    assert "the release commit" in lines[0] and "git could not create its tag" in lines[0]
    assert "evalset/docs/v0.2.0" in lines[0] and "run the same release command again" in lines[0]
    assert int(git(released, "rev-list", "--count", "HEAD")) == int(commits) + 1
    git(released, "config", "tag.gpgSign", "false")
    again = cli(released, "release", "docs", "--bump", "minor")
    assert again.code == 0, again.err
    assert "completed the interrupted release docs 0.2.0" in again.out
    assert tag_names(released) == ["evalset/docs/v0.1.0", "evalset/docs/v0.2.0"]


@pytest.mark.parametrize("name", ["../evalset.toml", "/etc/passwd", "sets/docs.yaml", "docs.yaml/"])
def test_check_pin_never_reads_a_path_from_the_report(released: Path, cli, name: str) -> None:  # type: ignore[no-untyped-def]
    pin = json.loads(cli(released, "pin", "docs").out)
    report = released / "report.json"
    report.write_text(json.dumps({"evalset": {**pin, "set": name}}))
    result = cli(released, "check-pin", str(report))
    assert result.code == 2
    assert result.err.strip() == (
        "evalset: report.json: the pin's \"set\" is not a set name (letters, digits, '.', "
        "'_' and '-'); write the pin as `evalset pin NAME` prints it."
    )


def test_check_pin_names_a_set_the_workspace_does_not_hold(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    pin = json.loads(cli(released, "pin", "docs").out)
    report = released / "report.json"
    report.write_text(json.dumps({"evalset": {**pin, "set": "evalset"}}))
    result = cli(released, "check-pin", str(report))
    assert result.code == 2
    assert "names the set 'evalset', which" in result.err and "does not hold" in result.err


def test_log_in_a_shallow_clone_does_not_call_a_release_the_first(  # type: ignore[no-untyped-def]
    released: Path, tmp_path: Path, cli
) -> None:
    second_release(released, cli)
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{released}", str(clone))
    result = cli(clone, "log", "docs", "--json")
    assert result.code == 0, result.err
    releases = json.loads(result.out)["releases"]
    assert releases and all(r["summary"] != "first release" for r in releases)
    assert "shallow clone" in releases[0]["summary"]
    assert "git fetch --unshallow --tags" in releases[0]["summary"]


def test_log_in_a_shallow_clone_with_its_tags_at_depth_one_compares_as_listed(  # type: ignore[no-untyped-def]
    released: Path, tmp_path: Path, cli
) -> None:
    """Tags fetched at depth 1 (a CI checkout's `fetch-tags`) end each release's history at
    its own commit: which release one came from cannot be told there, so each is compared
    with the one listed before it, and only the first is the earliest."""
    second_release(released, cli)
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{released}", str(clone))
    git(clone, "fetch", "-q", "--depth", "1", "origin", "+refs/tags/*:refs/tags/*")
    releases = json.loads(cli(clone, "log", "docs", "--json").out)["releases"]
    assert [(r["version"], r["since"]) for r in releases] == [("0.1.0", None), ("0.2.0", "0.1.0")]
    assert "shallow clone" in releases[0]["summary"]
    assert releases[1]["summary"] == "2 added, 1 retired, 1 changed"


def test_a_set_with_a_repeated_id_cannot_be_fingerprinted_or_pinned() -> None:
    from evalset.sets.fingerprint import InvalidSet

    text = SET_HEADER + set_item("q-1", RETURNS) + set_item("q-1", REFUNDS)
    with pytest.raises(InvalidSet, match="the id 'q-1' is used by more than one item"):
        set_fingerprint(parse_set(text, Path("f.yaml")))


def test_diff_refuses_a_revision_whose_id_stands_for_two_items(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Before, `diff` paired items by id and passed over the second: it reported another
    item removed, and the first changed into it."""
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("id: q-2\n", "id: q-1\n"))
    commit_all(released, "two items, one id")
    for args in (("HEAD~1", "HEAD"), ("0.1.0", "HEAD"), ("HEAD", "HEAD~1"), ()):
        result = cli(released, "diff", "docs", *args)
        assert result.code == 2 and "the id 'q-1' is used by more than one item" in result.err
        assert len(result.err.strip().splitlines()) == 1


def test_pin_goes_by_the_release_tag_not_by_the_header(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Before, a header whose fingerprint was edited (by hand, or a bad merge) to match
    changed content pinned as the release, while `status` said +modified; and a header
    naming a version no tag has pinned as that version."""
    from evalset.sets.fingerprint import set_fingerprint

    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3, reworded, about"))
    loaded = load_set(path)
    assert loaded.header is not None and loaded.header.fingerprint is not None
    path.write_text(path.read_text().replace(loaded.header.fingerprint, set_fingerprint(loaded)))
    pin = json.loads(cli(released, "pin", "docs").out)
    assert pin["version"] == "0.1.0+modified"
    status = json.loads(cli(released, "status", "--json").out)
    assert status["sets"][0]["release"] == pin["version"]
    commit_all(released, "q-3 reworded, the header's fingerprint edited to match")
    assert json.loads(cli(released, "pin", "docs", "--rev", "HEAD").out)["version"] == (
        "0.1.0+modified"
    )
    assert json.loads(cli(released, "pin", "docs", "--rev", "0.1.0").out)["version"] == "0.1.0"
    path.write_text(path.read_text().replace("version: 0.1.0", "version: 7.7.7"))
    result = cli(released, "pin", "docs")
    assert result.code == 2 and "names release 7.7.7 of docs, which has no tag" in result.err


def test_the_releases_of_a_workspace_moved_into_a_subfolder_are_read(  # type: ignore[no-untyped-def]
    released: Path, cli
) -> None:
    """Before, once the workspace moved (a monorepo's `evals/`), check-pin of a genuine
    report, log, diff and release each said "sets/docs.yaml: did not exist at 0.1.0"."""
    pin = json.loads(cli(released, "pin", "docs").out)
    (released / "evals").mkdir()
    kept = ["corpus", "sets", "snapshots", "evalset.toml"]
    git(released, "mv", *kept, "evals/")
    commit_all(released, "the workspace moves into evals/")
    here = released / "evals"
    report = here / "report.json"
    report.write_text(json.dumps({"evalset": pin}))
    assert cli(here, "check-pin", str(report)).code == 0
    assert "0.1.0" in cli(here, "log", "docs").out
    assert cli(here, "diff", "docs", "0.1.0").code == 0
    path = here / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3, reworded, about"))
    commit_all(released, "q-3 reworded")
    result = cli(here, "release", "docs", "--bump", "patch")
    assert result.code == 0 and "released docs 0.1.1 (1 changed)" in result.out, result.err


MOVES = {
    "suffix": ("sets/docs.yaml", "sets/docs.yml"),
    "folder": ("sets", "evals"),
    "folder-and-suffix": ("sets", "evals", "evals/docs.yaml", "evals/docs.yml"),
}


@pytest.mark.parametrize("moves", MOVES.values(), ids=MOVES.keys())
def test_a_set_file_renamed_since_its_release_keeps_its_history(  # type: ignore[no-untyped-def]
    released: Path, cli, moves: tuple[str, ...]
) -> None:
    """Before, `git mv sets/docs.yaml sets/docs.yml` (a suffix the workspace reads as well)
    lost every release: log, diff, check-pin, pin --rev and release said "did not exist at
    0.1.0", and a holdout flag flipped by hand since the release went unnoticed."""
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("  - id: q-1\n", "  - id: q-1\n    holdout: false\n"))
    commit_all(released, "q-1 in tuning")
    assert cli(released, "release", "docs", "--bump", "minor").code == 0
    pin = json.loads(cli(released, "pin", "docs").out)
    if "evals" in moves:
        (released / "evalset.toml").write_text(
            'sets = "evals"\n' + (released / "evalset.toml").read_text()
        )
    for source, target in zip(moves[::2], moves[1::2], strict=True):
        git(released, "mv", source, target)
    commit_all(released, "the set file renamed")
    (released / "report.json").write_text(json.dumps({"evalset": pin}))
    assert cli(released, "check-pin", "report.json").code == 0
    log = cli(released, "log", "docs").out
    assert "0.1.0" in log and "0.2.0" in log
    assert cli(released, "diff", "docs", "0.1.0").code == 0
    assert json.loads(cli(released, "pin", "docs", "--rev", "0.1.0").out)["version"] == "0.1.0"
    path = next((released / ("evals" if "evals" in moves else "sets")).glob("docs.y*ml"))
    text = path.read_text()
    path.write_text(text.replace("holdout: false", "holdout: true", 1))  # a flip by hand
    result = cli(released, "validate", "docs")
    assert result.code == 1 and "item q-1" in result.out and "holdout" in result.out, result.out
    path.write_text(text.replace("Question q-3 about", "Question q-3, reworded, about"))
    commit_all(released, "q-3 reworded")
    result = cli(released, "release", "docs", "--bump", "patch")
    assert result.code == 0 and "released docs 0.2.1 (1 changed)" in result.out, result.err


def test_a_release_tag_moved_to_a_commit_without_the_set_is_named(  # type: ignore[no-untyped-def]
    released: Path, cli
) -> None:
    """Before, log and check-pin said the set "did not exist at 0.1.0; name a later
    revision", where the user had named no revision."""
    pin = cli(released, "pin", "docs").out
    git(released, "rm", "-q", "sets/docs.yaml")
    commit_all(released, "the set removed")
    _retag(released, "HEAD")
    git(released, "checkout", "-q", "HEAD~1", "--", "sets")
    (released / "report.json").write_text(pin)
    _refused_alike(
        released,
        cli,
        [["log", "docs"], ["diff", "docs", "0.1.0", "HEAD"], ["pin", "docs", "--rev", "0.1.0"],
         ["check-pin", "report.json"]],
        f"tag evalset/docs/v0.1.0 points at a commit without the set, {PUT_BACK_ELSEWHERE}",
    )  # fmt: skip


PUT_BACK = (
    "so the tag was moved or made by hand; put back the tag `evalset release` made, which "
    "records the release (`git fetch --force origin tag evalset/docs/v0.1.0` from the remote "
    "it was pushed to), or delete it."
)


PUT_BACK_ELSEWHERE = (
    "so the tag was moved or made by hand, or it is the release of a set of the same name in "
    "another workspace of this repository (release tags are the repository's: give one of "
    "the two sets another name); else put back the tag `evalset release` made (`git fetch "
    "--force origin tag evalset/docs/v0.1.0` from the remote it was pushed to), or delete it."
)
"""The end of the sentence about a tag on a commit that holds no release of the set file."""


def _retag(repo: Path, rev: str) -> None:
    """Move release 0.1.0's tag onto ``rev`` by hand, its message (and pin) kept."""
    message = git(repo, "tag", "-l", "--format=%(contents)", "evalset/docs/v0.1.0")
    git(repo, "tag", "-f", "-a", "evalset/docs/v0.1.0", "-m", message, rev)


def _refused_alike(repo: Path, cli, commands: list[list[str]], refusal: str) -> None:  # type: ignore[no-untyped-def]
    for command in commands:
        done = cli(repo, *command)
        assert (done.code, done.err) == (2, f"evalset: sets/docs.yaml: {refusal}\n"), command


def test_a_release_tag_made_by_hand_is_told_to_be_deleted(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A tag of a version `evalset release` never made, with no pin: the advice was to fetch
    it again from a remote it was never on; deleting it comes first now."""
    git(released, "tag", "-a", "evalset/docs/v9.0.0", "-m", "by hand")
    done = cli(released, "log", "docs")
    assert done.code == 0, done.err
    assert (
        "9.0.0    2026-12-06  3 (0 holdout)  -             not a release: a tag made by hand (it "
        "records no pin; `git tag -d evalset/docs/v9.0.0` deletes it)"
    ).replace("2026-12-06", done.out.split()[6]) in done.out
    git(released, "tag", "-d", "evalset/docs/v9.0.0")  # as it says
    assert "9.0.0" not in cli(released, "log", "docs").out


def test_a_release_tag_put_back_without_its_message_vouches_for_nothing(  # type: ignore[no-untyped-def]
    released: Path, cli
) -> None:
    """Before, a lightweight tag on the release's commit (what `git tag -f NAME COMMIT`
    makes) let `pin` call the content release 0.1.0, which check-pin then refused."""
    commit = git(released, "rev-list", "-n", "1", "evalset/docs/v0.1.0").strip()
    git(released, "tag", "-f", "evalset/docs/v0.1.0", commit)  # lightweight: no pin
    done = cli(released, "pin", "docs")
    assert done.code == 2 and done.out == ""
    assert done.err == (
        "evalset: sets/docs.yaml: its header names release 0.1.0 of docs, whose tag "
        "evalset/docs/v0.1.0 was not made by `evalset release` (it records no pin), so it "
        "cannot vouch for the content; put back the tag `evalset release` made (`git fetch "
        "--force origin tag evalset/docs/v0.1.0` from the remote it was pushed to).\n"
    )
    assert json.loads(cli(released, "status", "--json").out)["sets"][0]["release"] is None


def test_a_release_tag_moved_by_hand_is_refused_where_it_is_read(  # type: ignore[no-untyped-def]
    released: Path, cli
) -> None:
    """Before, with 0.1.0's tag moved onto 0.2.0's commit, log called 0.2.0 "no change",
    diff 0.1.0 0.2.0 said "no change" and pin --rev 0.1.0 printed version 0.2.0; only
    check-pin noticed."""
    old_pin = json.loads(cli(released, "pin", "docs").out)
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3, reworded, about"))
    commit_all(released, "q-3 reworded")
    assert cli(released, "release", "docs", "--bump", "minor").code == 0
    _retag(released, "HEAD")
    _refused_alike(
        released,
        cli,
        [["log", "docs"], ["diff", "docs", "0.1.0", "0.2.0"], ["pin", "docs", "--rev", "0.1.0"]],
        f"tag evalset/docs/v0.1.0 points at a commit whose set names release 0.2.0, {PUT_BACK}",
    )
    (released / "report.json").write_text(json.dumps({"evalset": old_pin}))
    checked = cli(released, "check-pin", "report.json")
    assert checked.code == 1 and "was created or moved by hand" in checked.err
    assert json.loads(cli(released, "pin", "docs").out)["version"] == "0.2.0"  # its own tag


# where a tag evalset/docs/v0.2.0, made by hand with release 0.1.0's message (its version
# changed), points, and what check-pin says of a report pinned to "0.2.0"
COPIED_TAGS = {
    "on release 0.1.0's commit": ("evalset/docs/v0.1.0^{}", "names release 0.1.0"),
    "on the commit before it": ("evalset/docs/v0.1.0~1", "names no release (or it is the "
                                "release of a set of the same name in another workspace of "
                                "this repository)"),
}  # fmt: skip


@pytest.mark.parametrize("form", ["a report", "a pin"])
@pytest.mark.parametrize("where", COPIED_TAGS)
def test_check_pin_refuses_a_release_tag_copied_onto_content_it_did_not_release(  # type: ignore[no-untyped-def]
    released: Path, cli, where: str, form: str
) -> None:
    """The content at such a tag has the fingerprint its (copied) message records, so
    check-pin said "pin ok: docs 0.2.0" for a release never made, which log, diff and
    pin --rev refuse to read."""
    rev, said = COPIED_TAGS[where]
    message = git(released, "tag", "-l", "--format=%(contents)", "evalset/docs/v0.1.0")
    git(released, "tag", "-a", "evalset/docs/v0.2.0", "-m", message.replace("0.1.0", "0.2.0"),
        rev)  # fmt: skip
    pin = {**json.loads(cli(released, "pin", "docs").out), "version": "0.2.0"}
    (released / "report.json").write_text(json.dumps({"evalset": pin} if form == "a report"
                                                     else pin))  # fmt: skip
    done = cli(released, "check-pin", "report.json")
    assert done.code == 1, (done.out, done.err)
    assert done.err == (
        "report.json: tag evalset/docs/v0.2.0 was created or moved by hand: it points at a "
        f"commit whose set {said}.\n"
    )
    assert cli(released, "pin", "docs", "--rev", "0.2.0").code == 2  # as the other readers


@pytest.mark.parametrize("rule", ["snapshots/", "snapshots/*.json", "*.json"])
def test_a_snapshot_git_ignores_is_named_and_no_release_ships_without_it(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, identity: None, rule: str
) -> None:
    """Before, a .gitignore rule that held the snapshots let `snapshot` write one without a
    word and `release` tag a commit without it: every clone then failed `validate`."""
    write_files(corpus_repo, {**CORPUS, ".gitignore": f"/.evalset/\n{rule}\n"})
    (corpus_repo / "sets" / "docs.yaml").write_text(SET_HEADER + set_item("q-1", RETURNS))
    done = cli(corpus_repo, "snapshot")
    assert done.code == 0
    (manifest,) = (corpus_repo / "snapshots").glob("*.json")
    rel = f"snapshots/{manifest.name}"
    assert f"warning: {rel}: git ignores it (a .gitignore rule: " in done.err
    assert cli(corpus_repo, "verify", "docs", "--all").code == 0
    commit_all(corpus_repo, "a set and its corpus")
    refused = cli(corpus_repo, "release", "docs", "--bump", "minor")
    assert refused.code == 1 and refused.out == ""
    assert refused.err.startswith(
        f"evalset: sets/docs.yaml: cannot release docs while git ignores {rel} (a .gitignore "
        f"rule: `git check-ignore -v {rel}` names it), so no clone would have it; add it anyway"
    )
    assert git(corpus_repo, "tag", "-l") == ""
    git(corpus_repo, "add", "-f", rel)  # as it says
    commit_all(corpus_repo, "the snapshot, tracked")
    assert cli(corpus_repo, "release", "docs", "--bump", "minor").code == 0


@pytest.mark.parametrize("how", ["deleted and committed", "moved away"])
def test_verify_and_release_refuse_while_the_corpus_folder_is_not_here(  # type: ignore[no-untyped-def]
    released: Path, cli, how: str
) -> None:
    """With no corpus folder, nothing tells which snapshot a person checked or a release
    ships with: the latest commit's snapshot would be recorded and tagged as a guess (a
    commit deleting the whole corpus released it as if it were there)."""
    path = released / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("Question q-3 about", "Question q-3, now, about"))
    if how == "deleted and committed":
        git(released, "rm", "-r", "-q", "corpus")
    else:
        (released / "corpus").rename(released.parent / "corpus-elsewhere")
    commit_all(released, "an edit, the corpus gone")
    before = path.read_bytes(), tag_names(released)

    verified = cli(released, "verify", "docs", "q-3")
    assert verified.code == 2
    assert verified.err == (
        "evalset: corpus: the corpus folder is not here, so which snapshot you checked the "
        "items against cannot be told; bring it back (or set `corpus` in evalset.toml to "
        "where it is), then verify again.\n"
    )
    release = cli(released, "release", "docs", "--bump", "patch")
    assert release.code == 1
    assert "cannot release docs while the corpus folder corpus is not here" in release.err
    assert (path.read_bytes(), tag_names(released)) == before
    assert cli(released, "stale", "docs").code == 0  # reading goes on, on the commit's snapshot


def _draft_released_then_activated(released: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """0.1.1 released with --exclude-drafts while d-1 was a draft (q-3 reworded), then d-1
    finished, made active, verified and released as 0.1.2; d-2 is a draft in every version."""
    path = released / "sets" / "docs.yaml"
    draft = "  - id: d-1\n    question: A draft nobody finished?\n    status: draft\n"
    other = "  - id: d-2\n    question: Another draft?\n    status: draft\n"
    text = path.read_text().replace("Question q-3 about", "Question q-3, reworded, about")
    path.write_text(text + draft + other)
    commit_all(released, "drafts, and q-3 reworded")
    assert cli(released, "release", "docs", "--bump", "patch", "--exclude-drafts").code == 0
    path.write_text(path.read_text().replace(draft, set_item("d-1", GIFTS)))
    assert cli(released, "verify", "docs", "d-1").code == 0
    commit_all(released, "d-1 finished")
    assert cli(released, "release", "docs", "--bump", "patch", "--exclude-drafts").code == 0


# (old, new): what diff lists as added and changed, and the drafts it says it left out
DIFFS = {
    ("0.1.0", "0.1.1"): ([], ["q-3"], ["d-1", "d-2"]),
    ("0.1.1", "0.1.2"): (["d-1"], [], ["d-2"]),
    ("0.1.0", "0.1.2"): (["d-1"], ["q-3"], ["d-2"]),
    ("0.1.2", "WORKTREE"): ([], [], ["d-2"]),
    ("HEAD~3", "HEAD~1"): ([], ["d-1"], []),  # two revisions: drafts are items like any other
}


@pytest.mark.parametrize(("old", "new"), DIFFS)
def test_diff_with_a_release_leaves_drafts_out_as_its_notes_do(  # type: ignore[no-untyped-def]
    released: Path, cli, old: str, new: str
) -> None:
    """Before, `diff 0.1.0 0.1.1` listed the drafts 0.1.1 left out as added (the notes and
    `log` said 1 changed), and `diff 0.1.1 0.1.2` called d-1, a draft made active, changed
    where the notes said added."""
    _draft_released_then_activated(released, cli)
    added, changed, drafts = DIFFS[(old, new)]
    result = cli(released, "diff", "docs", old, new, "--json")
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["added"] == added
    assert [c["id"] for c in data["changed"]] == changed
    assert data["drafts_left_out"] == drafts
    text = cli(released, "diff", "docs", old, new).out
    comment = cli(released, "diff", "docs", old, new, "--format", "md").out
    if drafts:
        assert f"(drafts left out, as a release holds none: {', '.join(drafts)})" in text
        shown = ", ".join(f"`{d}`" for d in drafts)
        assert f"(drafts left out, as a release holds none: {shown})" in comment
    else:
        assert "drafts left out" not in text + comment
    if old != "HEAD~3":  # the log's summary of the later release agrees
        log = {
            r["version"]: r["summary"]
            for r in json.loads(cli(released, "log", "docs", "--json").out)["releases"]
        }
        if (old, new) == ("0.1.0", "0.1.1"):
            assert log["0.1.1"] == "1 changed" and data["added"] == []
        if (old, new) == ("0.1.1", "0.1.2"):
            assert log["0.1.2"] == "1 added"
