"""Sealed holdout on a copy of the example, with real age keys."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pyrage import x25519

from conftest import ROOT, SMALL_HEADER, commit_all, git
from evalset.sets.fingerprint import item_fingerprints, set_fingerprint
from evalset.sets.setfile import load_set

NAME = "acme-support"
EXAMPLE = load_set(ROOT / "sets" / f"{NAME}.yaml")
HOLDOUT = [i for i in EXAMPLE.items if i.holdout]


def secrets_of(item: Any) -> list[str]:
    """Every free text of an item that must not be readable once it is sealed."""
    texts = [item.question, *item.must_not_say, *(p.text for p in item.key_points)]
    if item.answer:
        texts.append(item.answer)
    return texts


SECRETS = [text for item in HOLDOUT for text in secrets_of(item)]


def leaked(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


def set_file(repo: Path) -> Path:
    return repo / "sets" / f"{NAME}.yaml"


def run_json(cli, repo: Path, *args: str) -> Any:  # type: ignore[no-untyped-def]
    result = cli(repo, *args, "--json")
    assert result.code in (0, 1), result.err
    assert not leaked(result.out + result.err)
    return json.loads(result.out)


def without_lines(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Validation findings without positions (a sealed entry takes other lines)."""
    return sorted((f["severity"], f["item"], f["field"], f["message"]) for f in report["findings"])


def seal(cli, repo: Path, public: str) -> None:  # type: ignore[no-untyped-def]
    result = cli(repo, "seal", NAME, "--recipient", public)
    assert result.code == 0, result.err
    assert f"sealed {len(HOLDOUT)} holdout item(s)" in result.out


def test_without_the_key_nothing_of_the_holdout_is_readable(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    before_pin = run_json(cli, example, "pin", NAME)
    before_status = run_json(cli, example, "status")
    seal(cli, example, key[1])

    text = set_file(example).read_text()
    assert leaked(text) == []
    assert text.count("-----BEGIN AGE ENCRYPTED FILE-----") == len(HOLDOUT)
    for item in HOLDOUT:  # what counts need stays visible
        assert f"id: {item.id}" in text

    assert run_json(cli, example, "pin", NAME) == before_pin
    status = run_json(cli, example, "status")["sets"][0]
    expected = before_status["sets"][0]
    assert status["categories"] == expected["categories"]
    assert status["items"] == {**expected["items"], "sealed": len(HOLDOUT)}

    report = run_json(cli, example, "validate")
    sealed = [f for f in report["findings"] if f["rule"] == "sealed"]
    assert [f["message"] for f in sealed] == [
        f"{len(HOLDOUT)} sealed item(s) could not be checked; set EVALSET_AGE_IDENTITY to "
        "the age key file to check them"
    ]
    coverage = run_json(cli, example, "status", "--coverage")["sets"][0]["coverage"]
    assert coverage["sealed_items_not_counted"] == len(HOLDOUT)
    assert sum(c["holdout"] for c in coverage["categories"].values()) == len(HOLDOUT)
    stale = cli(example, "stale", NAME)
    assert not leaked(stale.out + stale.err)
    assert f"{len(HOLDOUT)} sealed item(s) not checked" in stale.out

    tuning = tmp_path / "tuning.jsonl"
    result = cli(example, "export", NAME, "--allow-stale", "--split", "tuning", "--format", "jsonl",
                 "-o", str(tuning), "--skip-sealed")  # fmt: skip
    assert result.code == 0, result.err
    assert leaked(tuning.read_text()) == []
    for split in ("holdout", "all"):
        refused = cli(example, "export", NAME, "--split", split, "--format", "jsonl")
        assert refused.code == 2
        assert f"cannot export the {split} split: {len(HOLDOUT)} of its items are sealed" in (
            refused.err
        )
        assert refused.err.strip().endswith(
            "are sealed; set EVALSET_AGE_IDENTITY to the age key file that opens them (or "
            "export --split tuning --skip-sealed)."
        )
        assert "Traceback" not in refused.err
        # the advice, taken as written, works (`--split tuning` alone was refused in turn,
        # for want of the key)
        advice = refused.err.rsplit("(or export ", 1)[1].removesuffix(").\n").split()
        followed = cli(example, "export", NAME, "--allow-stale", *advice, "--format", "jsonl")
        assert followed.code == 0, followed.err
        assert leaked(followed.out) == []


def test_with_the_key_everything_behaves_as_unsealed(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def views() -> dict[str, Any]:
        status = run_json(cli, example, "status", "--coverage")["sets"][0]
        status["items"].pop("sealed")
        return {
            "pin": run_json(cli, example, "pin", NAME),
            "status": status,
            "validate": without_lines(run_json(cli, example, "validate")),
            "holdout": cli(
                example, "export", NAME, "--allow-stale", "--split", "holdout", "--format", "ragas"
            ).out,
            "stale": run_json(cli, example, "stale", NAME, "--no-fail")["items"],
        }

    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    global SECRETS
    # With the key (or before sealing), outputs may show the content: `stale` prints the
    # corpus text a holdout item cites, and extractive answers are words of that text.
    saved, SECRETS = SECRETS, []
    try:
        before = views()
        SECRETS = saved
        seal(cli, example, key[1])
        SECRETS = []
        assert views() == before
    finally:
        SECRETS = saved
    loaded = load_set(set_file(example))
    assert len(loaded.opened) == len(HOLDOUT) and not loaded.sealed
    assert [i.model_dump() for i in loaded.items] == [i.model_dump() for i in EXAMPLE.items]


def test_fingerprints_equal_before_and_after_sealing_and_unsealing(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = set_file(example)
    original = path.read_text()
    fingerprints = (set_fingerprint(EXAMPLE), item_fingerprints(EXAMPLE))
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    seal(cli, example, key[1])
    sealed = load_set(path)
    assert (set_fingerprint(sealed), item_fingerprints(sealed)) == fingerprints

    again = cli(example, "seal", NAME, "--recipient", key[1])
    assert again.code == 0 and "no holdout item left to seal" in again.out

    refused = cli(example, "unseal", NAME)
    assert refused.code == 2 and "could not be checked" in refused.err
    assert "nothing was unsealed" in refused.err

    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    result = cli(example, "unseal", NAME)
    assert result.code == 0, result.err
    unsealed = load_set(path)
    assert (set_fingerprint(unsealed), item_fingerprints(unsealed)) == fingerprints
    assert [i.model_dump() for i in unsealed.items] == [i.model_dump() for i in EXAMPLE.items]
    assert "BEGIN AGE" not in path.read_text()
    # The example's holdout items are written the way the file writes items, so sealing and
    # unsealing gives the file back byte for byte.
    assert path.read_text() == original


def test_diff_of_sealing_without_the_key_shows_no_change(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    seal(cli, example, key[1])
    report = run_json(cli, example, "diff", NAME, "HEAD")
    assert report["added"] == [] and report["removed"] == [] and report["changed"] == []
    commit_all(example, "seal the holdout")

    # A sealed item edited with the key shows up as changed, by fingerprint only.
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    target = HOLDOUT[0].id
    moved = cli(example, "split", NAME, "--move", target, "--to", "tuning", "--force")
    assert moved.code == 0, moved.err
    monkeypatch.delenv("EVALSET_AGE_IDENTITY")
    report = run_json(cli, example, "diff", NAME, "HEAD")
    assert [c["id"] for c in report["changed"]] == [target]


def test_an_item_moved_out_of_a_sealed_holdout_keeps_its_comments(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, moving a sealed item to tuning (with the key) wrote it from its content: the
    comment above it, sealed with it, was gone; `unseal` keeps it, and so does a move now."""
    path = set_file(example)
    target = HOLDOUT[0].id
    text = path.read_text()
    at = text.index(f"  - id: {target}\n")
    note = "  # reviewed with legal on 2026-11-02: keep the wording\n"
    path.write_text(text[:at] + note + text[at:])
    commit_all(example, "a note on a holdout item")
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    seal(cli, example, key[1])
    assert "reviewed with legal" not in path.read_text()  # sealed with the item
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    moved = cli(example, "split", NAME, "--move", target, "--to", "tuning", "--force")
    assert moved.code == 0, moved.err
    after = path.read_text()
    assert note + f"  - id: {target}\n" in after
    item = next(i for i in load_set(path).items if i.id == target)
    assert item.holdout is False and item.holdout_moves[-1].to == "tuning"
    assert " error: " not in cli(example, "validate", NAME).out  # none of the move's making


def test_edits_of_sealed_items(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = set_file(example)
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    seal(cli, example, key[1])
    sealed_text = path.read_text()
    target = HOLDOUT[0].id

    refused = cli(example, "split", NAME, "--move", target, "--to", "tuning", "--force")
    assert refused.code == 2
    assert f"item {target!r} is sealed; set EVALSET_AGE_IDENTITY" in refused.err
    refused = cli(example, "verify", NAME, target)
    assert refused.code == 2 and "is sealed" in refused.err
    commit_all(example, "seal the holdout")
    release = cli(example, "release", NAME, "--bump", "minor")
    assert release.code != 0 and "sealed item(s) cannot be checked" in release.err
    assert path.read_text() == sealed_text

    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    verified = cli(example, "verify", NAME, target)
    assert verified.code == 0, verified.err
    loaded = load_set(path)
    assert target in {stub.id for stub in loaded.opened.values()}  # sealed again after the edit
    item = next(i for i in loaded.items if i.id == target)
    assert item.verified is not None and item.verified != HOLDOUT[0].verified
    monkeypatch.delenv("EVALSET_AGE_IDENTITY")
    assert leaked(path.read_text()) == []

    # Moving it to tuning with the key leaves it plain: nothing is left to hide.
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    moved = cli(example, "split", NAME, "--move", target, "--to", "tuning", "--force")
    assert moved.code == 0, moved.err
    monkeypatch.delenv("EVALSET_AGE_IDENTITY")
    loaded = load_set(path)
    item = next(i for i in loaded.items if i.id == target)
    assert item.holdout is False and item.holdout_moves[-1].to == "tuning"
    assert HOLDOUT[0].question in path.read_text()


@pytest.mark.parametrize(
    "given",
    ["the secret key", "the secret key in lower case", "an ssh private key", "a password"],
)
def test_a_recipient_that_is_no_public_key_is_never_echoed(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], given: str
) -> None:
    """Before, `seal -r AGE-SECRET-KEY-1…` printed the key's first 24 characters (eight of
    them secret) into the terminal and the CI log."""
    secret = next(
        line for line in key[0].read_text().splitlines() if line.startswith("AGE-SECRET-KEY-")
    )
    value = {
        "the secret key": secret,
        "the secret key in lower case": secret.lower(),
        "an ssh private key": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n",
        "a password": "correct-horse-battery-staple",
    }[given]
    path = set_file(example)
    before = path.read_bytes()
    done = cli(example, "seal", NAME, "--recipient", value)
    assert done.code == 2 and len(done.err.strip().splitlines()) == 1, done.err
    for shown in (value[:8], value[15:23], "b3BlbnNz", "horse"):
        assert shown not in done.err + done.out
    assert path.read_bytes() == before


def test_bad_keys_and_tampering(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = set_file(example)
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    original = path.read_text()
    bad = cli(example, "seal", NAME, "--recipient", "age1notakey")
    assert bad.code == 2 and "not an age public key" in bad.err
    assert path.read_text() == original
    seal(cli, example, key[1])

    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(tmp_path / "missing.key"))
    missing = cli(example, "status")
    assert missing.code == 2
    assert "missing.key: the key file named by EVALSET_AGE_IDENTITY cannot be read" in missing.err

    garbage = tmp_path / "garbage.key"
    garbage.write_text("hello\n")
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(garbage))
    result = cli(example, "status")
    assert result.code == 2 and "garbage.key:1: not an age secret key" in result.err

    other = tmp_path / "other.key"
    other.write_text(f"{x25519.Identity.generate()}\n")
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(other))
    report = run_json(cli, example, "validate")
    assert any("could not be opened with the key" in f["message"] for f in report["findings"])

    # A visible field edited by hand is caught by whoever holds the key.
    target = HOLDOUT[0]
    other_category = next(c for c in EXAMPLE.header.categories if c != target.category)  # type: ignore[union-attr]
    lines = path.read_text().splitlines(keepends=True)
    at = lines.index(f"  - id: {target.id}\n")
    assert lines[at + 1] == f"    category: {target.category}\n"
    lines[at + 1] = f"    category: {other_category}\n"
    path.write_text("".join(lines))
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    tampered = cli(example, "validate")
    assert tampered.code == 2
    assert (
        f"sealed item {target.id!r} shows `category: {other_category}`, which differs from its "
        f"sealed content ({target.category!r})"
    ) in tampered.err
    git(example, "status")  # the repository is still usable


# -- hostile sets: nothing of the holdout may stay readable, and no item may be lost ------


def small_item(ident: str, question: str, holdout: bool, extra: str = "") -> str:
    return (
        f"  - id: {ident}\n"
        f"    question: {question}\n"
        "    category: direct-lookup\n"
        "    answerable: false\n"
        f"    holdout: {str(holdout).lower()}\n" + extra
    )


def write_small(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "small.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "items", "message"),
    [
        (
            "repeated-id",
            small_item("q-1", "Which tuning question comes first here?", False)
            + small_item("q-1", "Which secret holdout question is this one?", True),
            "id 'q-1' is used by another item",
        ),
        (
            "holdout-failing-the-schema",
            small_item("q-1", "Which tuning question comes first here?", False)
            + small_item(
                "q-2", "Which secret holdout question is this one?", True, "    oops: 1\n"
            ),
            "unknown field 'oops'",
        ),
        (
            "holdout-flag-of-the-wrong-type",
            small_item("q-1", "Which tuning question comes first here?", False)
            + small_item("q-2", "Which secret holdout question is this one?", True).replace(
                "holdout: true", "holdout: 'yes'"
            ),
            "expected true or false",
        ),
    ],
)
def test_seal_refuses_a_set_with_validation_errors(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch,
    name: str, items: str, message: str,
) -> None:  # fmt: skip
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    path = write_small(tmp_path, SMALL_HEADER + items)
    before = path.read_bytes()
    result = cli(tmp_path, "seal", path.name, "--recipient", key[1])
    assert result.code == 2, result.out
    assert result.err.startswith(f"evalset: {path.name}: cannot seal small with ")
    assert message in result.err and "Nothing was sealed." in result.err
    assert len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err
    assert path.read_bytes() == before


COMMENTED = (
    SMALL_HEADER
    + "  # the first tuning question, kept\n"
    + small_item("q-1", "Which tuning question comes first here?", False)
    + "    # tuning: a trailing note, kept\n"
    + "\n"
    + "  # holdout: asks whether damaged returns cost anything\n"
    + "  - id: q-2  # holdout: a note on the id line\n"
    + "    # holdout: a note inside the item\n"
    + "    question: Which secret holdout question is this one?  # holdout: end of line\n"
    + "    category: direct-lookup\n"
    + "    answerable: false\n"
    + "    holdout: true\n"
    + "    # holdout: a note under the last line\n"
    + "  # the next tuning question, kept\n"
    + small_item("q-3", "Which tuning question comes last here?", False)
)


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_sealed_item_keeps_no_comment(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, newline: str
) -> None:
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    path = tmp_path / "small.yaml"
    path.write_bytes(COMMENTED.replace("\n", newline).encode())
    result = cli(tmp_path, "seal", path.name, "--recipient", key[1])
    assert result.code == 0, result.err
    text = path.read_bytes().decode()
    assert "holdout:" not in text.replace("holdout: true", "").replace("holdout: false", "")
    assert "secret" not in text
    for kept in (
        "# the first tuning question, kept",
        "# tuning: a trailing note, kept",
        "# the next tuning question, kept",
        "Which tuning question comes last here?",
    ):
        assert kept in text  # fmt: skip
    assert text.count(newline) == text.count("\n")  # one kind of line break throughout
    lines = text.split(newline)
    assert lines[: lines.index("  - id: q-2")] == COMMENTED.split("\n")[:13]


@pytest.mark.parametrize(
    "quoted",
    ["Which secret holdout question is this one?", "which SECRET holdout  question is this one?",
     "Which secret\u00a0holdout question\tis this one?",
     # before, these were sealed with the question left readable: its words were matched
     # with their punctuation
     "Which secret holdout question is this one", "Which secret holdout question is this one ?",
     "which secret holdout question, is this one!"],
)  # fmt: skip
def test_seal_refuses_when_a_holdout_text_would_stay_readable(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, quoted: str
) -> None:
    """As written, or in other capitals, spacing and punctuation: either way the comment
    tells it."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    text = SMALL_HEADER.replace(
        "categories:", f"# to do: reword '{quoted}'\ncategories:"
    ) + small_item("q-2", "Which secret holdout question is this one?", True)
    path = write_small(tmp_path, text)
    result = cli(tmp_path, "seal", path.name, "--recipient", key[1])
    assert result.code == 2
    assert result.err.strip() == (
        f"evalset: {path.name}:3: the text of a holdout item would stay readable there after "
        "sealing (a comment, or a plain item's text?); remove it and seal again. Nothing was "
        "sealed."
    )
    assert path.read_text() == text


@pytest.mark.parametrize(
    "extra",
    ["    answer: Which secret holdout question is this one?\n",
     "    must_not_say: [which secret holdout question is this one]\n",
     "    origin: {kind: manual, note: 'asked with: Which secret holdout question is this one?'}\n",
     "    tags: [Which-secret-holdout-question-is-this-one]\n"],
    ids=["answer", "must_not_say", "origin note", "tag"],
)  # fmt: skip
def test_seal_refuses_a_plain_item_quoting_a_holdout_question(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, extra: str
) -> None:
    """Before, a holdout text a plain item held itself was left readable, so a tuning item
    quoting the holdout question kept it in view. A question is refused wherever it stands;
    other texts two items share (a key point) are not."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    tuning = small_item("q-1", "Which tuning question comes first here?", False)
    text = (
        SMALL_HEADER
        + tuning.replace("    holdout: false\n", "    holdout: false\n" + extra)
        + small_item("q-2", "Which secret holdout question is this one?", True)
    )
    path = write_small(tmp_path, text)
    result = cli(tmp_path, "seal", path.name, "--recipient", key[1])
    assert result.code == 2, result.err
    assert "the text of a holdout item would stay readable there after sealing" in result.err
    assert path.read_text() == text


# -- sealing again after `unseal`: the recipients come from the set, or from HEAD ----------


def test_seal_again_after_unseal_keeps_every_recipient_at_head(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sealing again needs no key retyped: the holdout is sealed to the recipients it was
    sealed to at HEAD, all of them."""
    second = x25519.Identity.generate()
    second_file = tmp_path / "second.key"
    second_file.write_text(f"{second}\n")
    both = [key[1], str(second.to_public())]
    path = set_file(example)
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    result = cli(example, "seal", NAME, "--recipient", both[0], "--recipient", both[1])
    assert result.code == 0, result.err
    commit_all(example, "seal the holdout")

    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    assert cli(example, "unseal", NAME).code == 0
    resealed = cli(example, "seal", NAME)
    assert resealed.code == 0, resealed.err
    ids = ", ".join(item.id for item in HOLDOUT)
    assert resealed.out == (
        f"sealed {len(HOLDOUT)} holdout item(s) in {path.relative_to(example)} to "
        f"{both[0]}, {both[1]} (as the holdout at HEAD): {ids}\n"
    )
    monkeypatch.delenv("EVALSET_AGE_IDENTITY")
    assert leaked(path.read_text()) == []
    for identity in (key[0], second_file):  # either key still opens every item
        monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(identity))
        loaded = load_set(path)
        assert len(loaded.opened) == len(HOLDOUT) and not loaded.sealed
        assert {tuple(stub.sealed.recipients) for stub in loaded.opened.values()} == {tuple(both)}


def test_seal_without_recipients_takes_those_of_the_sets_sealed_items(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A holdout item written by hand into a sealed set (not committed: no HEAD version) is
    sealed to the set's recipients."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    item = small_item("q-1", "Which secret holdout question?", True)
    path = write_small(tmp_path, SMALL_HEADER + item)
    assert cli(tmp_path, "seal", path.name, "--recipient", key[1]).code == 0
    with path.open("a", encoding="utf-8") as out:
        out.write(small_item("q-2", "Which other secret holdout question?", True))
    result = run_json(cli, tmp_path, "seal", path.name)
    assert result == {
        "set": path.name,
        "sealed": ["q-2"],
        "recipients": [key[1]],
        "recipients_from": "set",
    }
    assert "secret" not in path.read_text()


def test_seal_to_other_keys_of_a_holdout_sealed_whole_says_it_sealed_nothing(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Seal never seals an item again: keys given for a holdout sealed to others would be
    a silent no-op, so it is refused, saying how to re-key; the same keys are no news."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    seal(cli, example, key[1])
    path = set_file(example)
    before = path.read_bytes()
    same = cli(example, "seal", NAME, "--recipient", key[1])
    assert (same.code, same.out) == (0, f"sets/{NAME}.yaml: no holdout item left to seal\n")
    other = str(x25519.Identity.generate().to_public())
    result = cli(example, "seal", NAME, "--recipient", other)
    assert result.code == 2
    ids = ", ".join(item.id for item in HOLDOUT[:5]) + (", …" if len(HOLDOUT) > 5 else "")
    assert result.err == (
        f"evalset: sets/{NAME}.yaml: every holdout item is sealed already, and {len(HOLDOUT)} "
        f"of them ({ids}) to other keys than those given; seal never seals an item again, so "
        f"to seal them to these keys, unseal with the key (`evalset unseal {NAME}`) and seal "
        "again with --recipient (nothing was changed).\n"
    )
    assert path.read_bytes() == before


def test_seal_without_recipients_refuses_a_set_never_sealed(  # type: ignore[no-untyped-def]
    cli, example: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    path = set_file(example)
    before = path.read_bytes()
    result = cli(example, "seal", NAME)
    assert result.code == 2
    assert result.err == (
        f"evalset: {path.relative_to(example)}: no recipient given, and {NAME} holds no sealed "
        "item, nor did it at its last commit (HEAD), to take them from; pass --recipient with "
        "an age public key. Nothing was sealed.\n"
    )
    assert path.read_bytes() == before


def test_items_moved_or_split_into_a_sealed_holdout_are_sealed(  # type: ignore[no-untyped-def]
    example: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a set whose holdout is sealed, `split --move` and `split` seal what they put in the
    holdout (public keys only, no key needed), as promote seals what arrives there: a plain
    holdout item in such a file would go into git history in the clear."""
    from evalset.sets.editor import edit_set
    from evalset.sets.model import Item

    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    keyfile, public = key
    path = set_file(example)
    assert cli(example, "seal", "acme-support", "-r", public).code == 0
    commit_all(example, "sealed")
    question = load_set(path).items[0].question  # q-001, tuning
    moved = cli(example, "split", "acme-support", "--move", "q-001", "--to", "holdout",
                "--force", "--reason", "seen in a support macro")  # fmt: skip
    assert moved.code == 0, moved.err
    assert moved.out == (
        "moved q-001 to holdout in sets/acme-support.yaml, sealed as the holdout of "
        "acme-support is\n"
    )
    assert question not in path.read_text()
    assert "q-001" in {stub.id for stub in load_set(path).sealed}
    topics = ["parcels sent abroad", "gift cards bought online", "a broken charger",
              "the loyalty points", "an invoice in euros", "courier lockers", "store credit",
              "a late refund", "customs fees", "a cracked screen", "the warranty card",
              "a missing receipt"]  # fmt: skip
    arriving = [  # questions alike would go to one side together (no near duplicates here)
        Item(id=f"q-{900 + k}", question=f"Which rule {k} applies to {topics[k]}?",
             category="direct-lookup", expected_sources=["policies/shipping.md"],
             key_points=[{"text": f"Rule {k} applies", "sources": ["policies/shipping.md"]}])
        for k in range(12)
    ]  # fmt: skip
    with edit_set(path) as editor:
        editor.append_items(arriving)
    dry = cli(example, "split", "acme-support", "--dry-run")
    assert "would be sealed as they go into the sealed holdout: q-9" in dry.out, dry.out
    split = json.loads(cli(example, "split", "acme-support", "--json").out)
    assert split["holdout"], split  # some of the new items went to the holdout
    assert split["sealed"] == split["holdout"]
    text = path.read_text()
    for ident in split["holdout"]:
        assert f"Which rule {int(ident[2:]) - 900} applies" not in text, ident
    assert {stub.id for stub in load_set(path).sealed} >= set(split["holdout"])
    assert cli(example, "validate", "acme-support").code in (0, 1)
    assert "unsealed" not in cli(example, "validate", "acme-support", "--json").out
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(keyfile))
    opened = {item.id: item for item in load_set(path).items}
    assert opened["q-001"].question == question and opened["q-001"].holdout is True
    assert opened["q-001"].holdout_moves[-1].reason == "seen in a support macro"
    assert all(opened[ident].holdout for ident in split["holdout"])


def test_without_the_key_nothing_goes_to_tuning_unchecked_against_the_sealed_holdout(  # type: ignore[no-untyped-def]
    example: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before, `split` without the key compared new questions with the plain items only: a
    near duplicate of a sealed holdout question went to tuning, leaking it, where the same
    split with the key put it in the holdout."""
    from evalset.sets.editor import edit_set
    from evalset.sets.model import Item

    keyfile, public = key
    path = set_file(example)
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(keyfile))
    held = next(i for i in load_set(path).items if i.holdout and i.status == "active")
    monkeypatch.delenv("EVALSET_AGE_IDENTITY")
    assert cli(example, "seal", "acme-support", "-r", public).code == 0
    commit_all(example, "sealed")
    twin = Item(id="q-950", question=held.question.rstrip("?") + ", please?",
                category=held.category, status="draft")  # fmt: skip
    with edit_set(path) as editor:
        editor.append_items([twin])
    for dry in ([], ["--dry-run"]):
        done = cli(example, "split", "acme-support", "--json", *dry)
        assert done.code == 0, done.err
        plan = json.loads(done.out)
        assert "q-950" in plan["unchecked"] + plan["holdout"] and not plan["tuning"], plan
    text = cli(example, "split", "acme-support").out
    assert "set EVALSET_AGE_IDENTITY and split again): q-950" in text, text
    moved = cli(example, "split", "acme-support", "--move", "q-950", "--to", "tuning")
    assert moved.code == 2 and "cannot be read without the key" in moved.err, moved.err
    assert next(i for i in load_set(path).items if i.id == "q-950").holdout is None
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(keyfile))  # with it, the twin is held out
    assert json.loads(cli(example, "split", "acme-support", "--json").out)["holdout"] == ["q-950"]


def test_without_the_key_a_tuning_export_is_not_left_unchecked_for_leaks(  # type: ignore[no-untyped-def]
    example: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Before, the tuning export without the key skipped the leakage check without a word:
    a tuning item repeating a sealed holdout question went out (exit 0), while `validate`
    failed and the same export with the key was refused."""
    from evalset.sets.editor import edit_set

    keyfile, public = key
    path = set_file(example)
    held = next(i for i in EXAMPLE.items if i.holdout and i.status == "active")
    tuned = next(i for i in EXAMPLE.items if i.holdout is False and i.status == "active")
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    assert cli(example, "seal", NAME, "-r", public).code == 0
    with edit_set(path) as editor:  # a hand edit the key holder has not validated
        editor.update_item(tuned.id, {"question": held.question})
    out = tmp_path / "tuning.jsonl"
    args = ("export", NAME, "--allow-stale", "--format", "ragas", "-o", str(out))
    refused = cli(example, *args)
    assert refused.code == 2
    assert refused.err == (
        f"evalset: sets/{NAME}.yaml: cannot export the tuning split: {len(HOLDOUT)} sealed "
        "holdout item(s) cannot be read without the key, so whether a tuning question is a "
        "near duplicate of one of theirs, which the export would leak, cannot be told; set "
        "EVALSET_AGE_IDENTITY to the age key file, or pass --skip-sealed once `evalset "
        "validate` has passed with the key.\n"
    )
    assert not out.exists()
    skipped = cli(example, *args, "--skip-sealed", "--json")
    assert skipped.code == 0, skipped.err
    assert json.loads(skipped.out)["unchecked_sealed"] == len(HOLDOUT)
    assert f"note: {len(HOLDOUT)} sealed holdout item(s) could not be compared" in skipped.err
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(keyfile))  # with it: the leak is found
    out.unlink()
    found = cli(example, *args)
    assert found.code == 1 and "the holdout question has leaked" in found.err, found.err
    assert not out.exists()


def test_an_item_held_out_while_the_set_is_unsealed_for_an_edit_is_sealed(  # type: ignore[no-untyped-def]
    example: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Unsealed for an edit, a set whose holdout was sealed at its last commit still seals
    what goes into its holdout, to the recipients it had there."""
    keyfile, public = key
    path = set_file(example)
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    assert cli(example, "seal", "acme-support", "-r", public).code == 0
    commit_all(example, "sealed")
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(keyfile))
    assert cli(example, "unseal", "acme-support").code == 0
    assert not load_set(path).opened  # nothing sealed in the working copy
    question = load_set(path).items[0].question  # q-001, tuning
    moved = cli(example, "split", "acme-support", "--move", "q-001", "--to", "holdout",
                "--force", "--reason", "seen in a macro")  # fmt: skip
    assert moved.code == 0, moved.err
    assert question not in path.read_text()
    monkeypatch.delenv("EVALSET_AGE_IDENTITY")
    assert [stub.id for stub in load_set(path).sealed] == ["q-001"]
    assert load_set(path).sealed[0].sealed.recipients == [public]


FAILURES = [
    "Can I return a blender after forty days?",
    "Do you deliver parcels to Norway on Sundays?",
    "Is a gift card refundable if it was never used?",
    "How do loyalty points expire for gold members?",
    "Can I change my billing address after ordering?",
    "Why was my card charged twice for one order?",
    "Does the warranty cover water damage on phones?",
    "Will you match a competitor's flash sale price?",
]


@pytest.mark.parametrize("command", ["promote", "split --move"])
def test_what_goes_into_a_sealed_holdout_unseals_as_it_would_be_written_plain(  # type: ignore[no-untyped-def]
    command: str,
    cli,
    example: Path,
    key: tuple[Path, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An item sealed as it goes into a sealed holdout (a promoted draft, a moved item with
    its comments) is sealed with the text a plain holdout would have been given, so that
    `unseal` writes the file the same command writes in a set that was never sealed: block
    lists, key order and comments as in the rest of the file."""
    keyfile, public = key
    records = tmp_path / "failures.jsonl"
    records.write_text("".join(
        json.dumps({"question": q, "trace": f"tr-{n}", "category": "paraphrased",
                    "answer": "No.", "retrieved": ["policies/returns.md#standard-returns"]}) + "\n"
        for n, q in enumerate(FAILURES)
    ))  # fmt: skip
    path = set_file(example)
    text = path.read_text()
    path.write_text(text.replace("  - id: q-001\n", "  # asked by support\n  - id: q-001\n"))
    commit_all(example, "a comment above q-001")
    plain = tmp_path / "plain"
    git(example, "clone", "-q", str(example), str(plain))
    args = {
        "promote": ["promote", str(records), "--set", NAME],
        "split --move": ["split", NAME, "--move", "q-001", "--to", "holdout", "--force",
                         "--reason", "seen in a support macro"],
    }[command]  # fmt: skip
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    done = cli(plain, *args)
    assert done.code == 0, done.err
    assert cli(example, "seal", NAME, "--recipient", public).code == 0
    commit_all(example, "sealed")
    done = cli(example, *args)
    assert done.code == 0, done.err
    assert "sealed" in done.out
    sealed_now = {stub.id for stub in load_set(path).sealed}
    moved = {"q-001"} if command == "split --move" else sealed_now - {i.id for i in HOLDOUT}
    assert moved and moved <= sealed_now  # something went into the holdout sealed
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(keyfile))
    assert cli(example, "unseal", NAME).code == 0
    expected = set_file(plain).read_text()
    if command == "promote":  # without the key, the drafts for tuning are left unassigned
        unassigned = re.findall(r"(?m)^  (q-[0-9a-f]{8})  line \d+  unassigned$", done.out)
        assert unassigned
        for ident in unassigned:
            expected = re.sub(rf"(?m)(^  - id: {ident}\n(?:    .*\n)*?)    holdout: false\n",
                              r"\1", expected)  # fmt: skip
    assert path.read_text() == expected


def test_a_sealed_item_flipped_to_tuning_by_hand_is_told_how_to_move_it(  # type: ignore[no-untyped-def]
    cli, example: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: "true/false (false) is not allowed; use True", in Python's spelling, with no
    word of what a sealed item is or how it moves."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    seal(cli, example, key[1])
    path = set_file(example)
    text = path.read_text()
    at = text.index("    holdout: true", text.index(f"  - id: {HOLDOUT[0].id}\n"))
    path.write_text(text[:at] + "    holdout: false" + text[at + len("    holdout: true") :])
    out = cli(example, "validate", NAME).out
    assert "is not allowed: a sealed item is a holdout item" in out
    assert "--move ID --to tuning --force" in out and "use True" not in out


@pytest.mark.parametrize(
    "edit", [("holdout: true", "holdout: false"), ("status: active", "status: retired")]
)
def test_a_sealed_item_edited_by_hand_is_not_compared_nor_skipped(  # type: ignore[no-untyped-def]
    cli,
    example: Path,
    key: tuple[Path, str],
    monkeypatch: pytest.MonkeyPatch,
    edit: tuple[str, str],
) -> None:
    """Its visible side or status no longer says what its sealed content does: diff says
    it could not compare it (not "removed", not "no change"), and unseal refuses rather
    than leave it sealed without a word."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    seal(cli, example, key[1])
    commit_all(example, "sealed")
    path = set_file(example)
    text = path.read_text()
    first = HOLDOUT[0].id
    start = text.index(f"- id: {first}\n")
    end = text.index("sealed:", start)
    if edit[0] not in text[start:end]:  # an active item shows no status: write it
        text = text[:end] + "status: retired\n    " + text[end:]
    else:
        text = text[:start] + text[start:end].replace(*edit) + text[end:]
    path.write_text(text)
    for identity in (None, str(key[0])):
        if identity:
            monkeypatch.setenv("EVALSET_AGE_IDENTITY", identity)
        result = cli(example, "diff", NAME, "HEAD", "--json")
        if result.code == 2:  # with the key, a status that is not its content's is refused
            assert identity and "differs from its sealed content" in result.err
            continue
        data = json.loads(result.out)
        assert (data["not_compared"], data["removed"], data["retired"]) == ([first], [], [])
    before = path.read_bytes()
    result = cli(example, "unseal", NAME)
    assert result.code == 2
    assert f"item {first}" in result.err or f"sealed item {first!r}" in result.err
    assert path.read_bytes() == before


def test_sealing_again_keeps_the_ciphertext_of_items_that_did_not_change(  # type: ignore[no-untyped-def]
    example: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """After unseal, edit one item, seal (the README's way of editing a sealed item), only
    that item's sealed lines change: new ciphertext for the others would differ on every
    branch that did the same, and each merge of two key holders' edits would conflict on
    every sealed item. Without the key at hand, everything is sealed anew."""
    keyfile, public = key
    path = set_file(example)
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    assert cli(example, "seal", NAME, "-r", public).code == 0
    commit_all(example, "sealed")
    sealed = path.read_text()
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(keyfile))
    assert cli(example, "unseal", NAME).code == 0
    assert cli(example, "seal", NAME).code == 0
    assert path.read_text() == sealed  # nothing edited: the file as committed
    assert cli(example, "unseal", NAME).code == 0
    path.write_text(path.read_text().replace("a two-year legal guarantee", "a 2-year guarantee"))
    assert cli(example, "seal", NAME).code == 0
    opened = load_set(path)
    assert (
        next(i for i in opened.items if i.id == "q-004")
        .key_points[0]
        .text.startswith("Every product has a 2-year guarantee")
    )
    before = {s.id: s.sealed.age for s in _sealed_stubs(sealed, path)}
    after = {s.id: s.sealed.age for s in _sealed_stubs(path.read_text(), path)}
    assert len(before) > 1 and before.keys() == after.keys()
    assert {i for i in before if before[i] != after[i]} == {"q-004"}


def _sealed_stubs(text: str, path: Path) -> list[Any]:
    """The sealed items of a set file's text, as one without the key reads them."""
    import os

    from evalset.sets.setfile import parse_set

    saved = os.environ.pop("EVALSET_AGE_IDENTITY", None)
    try:
        return parse_set(text, path).sealed
    finally:
        if saved is not None:
            os.environ["EVALSET_AGE_IDENTITY"] = saved


def sealed_and_committed(example: Path, cli, key: tuple[Path, str]) -> tuple[Path, str]:  # type: ignore[no-untyped-def]
    """The example's holdout sealed to ``key`` and committed: the set file and its text."""
    path = set_file(example)
    assert cli(example, "seal", NAME, "-r", key[1]).code == 0
    commit_all(example, "sealed")
    return path, path.read_text()


@pytest.mark.parametrize(("field", "value"), [("category", "paraphrased"), ("status", "retired"),
                                              ("verified", "abcdefabcdef")])  # fmt: skip
def test_a_field_of_a_sealed_item_edited_by_hand_is_an_error_without_the_key(  # type: ignore[no-untyped-def]
    example: Path,
    cli,
    key: tuple[Path, str],
    monkeypatch: pytest.MonkeyPatch,
    field: str,
    value: str,
) -> None:
    """Without the key, diff, status and pin go by the sealed content, which a hand edit of
    what the item shows does not change: its category counted elsewhere, its status another.
    The sealed content is the same as at HEAD, so the edit is plain to see, and the tuners'
    pre-commit check (`validate --skip-sealed`) refuses it."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    path, text = sealed_and_committed(example, cli, key)
    at = text.index("  - id: q-004\n")
    end = text.index("    sealed:\n", at)
    shown = text[at:end]
    edited = re.sub(rf"(?m)^    {field}: .*$", f"    {field}: {value}", shown)
    if edited == shown:
        edited = shown + f"    {field}: {value}\n"
    path.write_text(text[:at] + edited + text[end:])
    done = cli(example, "validate", NAME, "--skip-sealed")
    assert done.code == 1
    assert (
        f"item q-004: {field}: error: shows `{field}: {value}`, but its sealed content is as at "
        "HEAD, where it showed"
    ) in done.out
    path.write_text(text)
    assert cli(example, "validate", NAME, "--skip-sealed").code == 0


OTHER_KEY = str(x25519.Identity.generate().to_public())

# what a hand edit of q-004's sealed entry changes: (the field as validate names it, the
# edit of the entry's text, the value it then shows)
SHOWN_EDITS = {
    "id": ("id", lambda e: e.replace("  - id: q-004\n", "  - id: q-099\n"), "q-099"),
    "fingerprint": (
        "sealed.fingerprint",
        lambda e: re.sub(r"fingerprint: sha256:(.)(.)", r"fingerprint: sha256:\2\1", e, count=1),
        None,
    ),
    "recipients swapped": (
        "sealed.recipients",
        lambda e: re.sub(r"(?m)^(        - )age1\S+$", rf"\g<1>{OTHER_KEY}", e, count=1),
        None,
    ),
    "a recipient added": (
        "sealed.recipients",
        lambda e: re.sub(
            r"(?m)^(        - age1\S+\n)", rf"\g<1>        - {OTHER_KEY}\n", e, count=1
        ),
        None,
    ),
}


@pytest.mark.parametrize("with_key", [False, True], ids=["without the key", "with the key"])
@pytest.mark.parametrize("edit", SHOWN_EDITS)
def test_what_a_sealed_entry_shows_beside_its_ciphertext_is_checked_too(  # type: ignore[no-untyped-def]
    example: Path,
    cli,
    key: tuple[Path, str],
    monkeypatch: pytest.MonkeyPatch,
    edit: str,
    with_key: bool,
) -> None:
    """Its id, fingerprint and recipients were not compared with HEAD: a changed fingerprint
    passed and pin printed a fingerprint no content has, and a recipient swapped for one's
    own key made promote seal new holdout items to it."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    path, text = sealed_and_committed(example, cli, key)
    at = text.index("  - id: q-004\n")
    end = text.index("-----END AGE ENCRYPTED FILE-----", at)
    field, change, shown = SHOWN_EDITS[edit]
    entry = change(text[at:end])
    assert entry != text[at:end]
    path.write_text(text[:at] + entry + text[end:])
    if with_key:
        monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    done = cli(example, "validate", NAME, "--skip-sealed")
    if with_key and field != "sealed.recipients":  # opened, the content itself refuses it
        assert done.code == 2 and "hand edit" in done.err
    else:
        assert done.code == 1, done.out
        ident = shown if field == "id" else "q-004"
        assert f"item {ident}: {field}: error: shows `{field}: " in done.out
        assert "but its sealed content is as at HEAD" in done.out
    path.write_text(text)
    assert cli(example, "validate", NAME, "--skip-sealed").code == 0


def test_seal_refuses_recipients_from_the_set_that_lock_out_the_key_at_hand(  # type: ignore[no-untyped-def]
    example: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The recipients swapped by hand and committed: the key holder's next unseal, edit and
    seal sealed every item to the swapped-in key, locking the key holder out."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    path = set_file(example)
    assert cli(example, "seal", NAME, "-r", key[1]).code == 0
    path.write_text(path.read_text().replace(key[1], OTHER_KEY))
    commit_all(example, "every recipient swapped, committed past the checks")
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))
    assert cli(example, "unseal", NAME).code == 0
    text = path.read_text()
    done = cli(example, "seal", NAME)
    assert done.code == 2
    assert "is not among them, so sealing to them would lock you out of what you seal" in done.err
    assert path.read_text() == text
    assert cli(example, "seal", NAME, "-r", key[1]).code == 0  # the keys meant, given


def test_arrivals_are_sealed_to_the_keys_most_items_are_sealed_to(  # type: ignore[no-untyped-def]
    example: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A branch sealed an arrival to the keys of before a change of keys, and was merged
    last: every later arrival was sealed to the old keys, those of the last item."""
    from evalset.holdout.seal import recipients_of

    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    path = set_file(example)
    assert cli(example, "seal", NAME, "-r", key[1]).code == 0
    text = path.read_text()
    last = text.rindex("        - " + key[1])
    path.write_text(text[:last] + text[last:].replace(key[1], OTHER_KEY, 1))
    assert recipients_of(load_set(path)) == [key[1]]  # 8 items to it, the last one to another


# a holdout question, in a tuning item's note, written so that the file's text does not
# spell it: YAML reads each back as the question
ESCAPED = {
    "an \\x escape": '"Which secret holdout question is th\\x69s one?"',
    "a \\u escape": '"Which secret holdout question is th\\u0069s one?"',
    "an escaped line break": '"Which secret holdout\\nquestion is this one?"',
    "an escaped space": '"Which\\x20secret holdout question is this one?"',
}


@pytest.mark.parametrize("written", ESCAPED)
def test_seal_refuses_a_holdout_question_quoted_with_escapes(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, written: str
) -> None:
    """The check of the file's text found a plain copy, a folded one and one wrapped over
    comment lines, but not one written with escapes: the question stayed readable."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    text = (
        SMALL_HEADER
        + small_item("q-1", "Which tuning question comes first here?", False,
                     f"    origin: {{kind: manual, note: {ESCAPED[written]}}}\n")
        + small_item("q-2", "Which secret holdout question is this one?", True)
    )  # fmt: skip
    path = write_small(tmp_path, text)
    result = cli(tmp_path, "seal", path.name, "--recipient", key[1])
    assert result.code == 2
    assert "plain item 'q-1' holds the question of a holdout item" in result.err
    assert path.read_text() == text


# a plain item's note beside a holdout question in Hindi: a word is its letters with the
# marks that carry its vowels (before, the leak check read only the consonants, and a
# question with other vowels was taken for the holdout one)
MARKED_NOTES = {
    "other vowels": ("कुतुब कहाँ मिलेगी?", False),
    "other marks": ("किताबें कहाँ मिलेंगी?", False),
    "the question": ("किताब कहाँ मिलेगी?", True),
    "the question in a sentence": ("पूछा गया: किताब कहाँ मिलेगी? जवाब नहीं", True),
}


@pytest.mark.parametrize("case", MARKED_NOTES)
def test_the_leak_check_reads_words_with_their_combining_marks(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    note, leaks = MARKED_NOTES[case]
    text = (
        SMALL_HEADER
        + small_item("q-1", "Which tuning question comes first here?", False,
                     f"    origin: {{kind: manual, note: \"{note}\"}}\n")
        + small_item("q-2", "किताब कहाँ मिलेगी?", True)
    )  # fmt: skip
    path = write_small(tmp_path, text)
    result = cli(tmp_path, "seal", path.name, "--recipient", key[1])
    if leaks:
        assert result.code == 2
        assert "holdout item would stay readable there after sealing" in result.err
        assert path.read_text() == text
    else:
        assert result.code == 0, result.err


def test_an_ssh_key_is_recorded_without_its_comment(  # type: ignore[no-untyped-def]
    example: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An SSH public key ends in a comment, often user@host or an e-mail address: written
    into every sealed item's recipients, it went into git history with the set."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    public = (
        Ed25519PrivateKey.generate()
        .public_key()
        .public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
        .decode()
    )
    path = set_file(example)
    done = cli(example, "seal", NAME, "-r", f"{public} jane.doe@example.com")
    assert done.code == 0, done.err
    text = path.read_text()
    assert "jane.doe@example.com" not in text + done.out
    assert f"        - {public}\n" in text
    assert {tuple(s.sealed.recipients) for s in load_set(path).sealed} == {(public,)}


@pytest.mark.parametrize("argv", [["validate"], ["unseal", NAME], ["status"]], ids=" ".join)
def test_a_key_file_git_tracks_is_refused(  # type: ignore[no-untyped-def]
    example: Path, cli, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, argv: list[str]
) -> None:
    """A key copied into the workspace and committed with the rest was used without a word:
    whoever has the repository has every sealed item."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    assert cli(example, "seal", NAME, "-r", key[1]).code == 0
    copy = example / "holdout.key"
    copy.write_bytes(key[0].read_bytes())
    commit_all(example, "sealed, and the key by mistake")
    before = set_file(example).read_bytes()
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(copy))
    done = cli(example, *argv)
    assert done.code == 2
    assert "the key file named by EVALSET_AGE_IDENTITY is tracked by git" in done.err
    assert "`git rm --cached holdout.key`" in done.err
    assert set_file(example).read_bytes() == before
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key[0]))  # the same key, kept outside
    assert cli(example, *argv).code in (0, 1)


def test_seal_takes_no_citation_for_a_quoted_question(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A short question's words in a citation (``policy.md#damaged-items``) are no quote of
    it: the word-by-word check first read the anchor as words, and refused to seal."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    text = (
        SMALL_HEADER
        + small_item("q-1", "Which tuning question comes first here?", False)
        + "    origin: {kind: manual, note: 'see policy.md#damaged-items'}\n"
        + small_item("q-2", "Damaged items?", True)
    )
    path = write_small(tmp_path, text)
    result = cli(tmp_path, "seal", path.name, "--recipient", key[1])
    assert result.code == 0, result.err
    assert "Damaged items?" not in path.read_text()


@pytest.mark.parametrize(
    ("question", "comment"),
    [("损坏的商品可以在多长时间内退货\uff1f", "例如损坏的商品可以在多长时间内退货\uff1f吗"),
     ("破損した商品はいつまで返品できますか",
      "質問\uff1a破損した商品はいつまで返品できますか\uff1f"),
     ("สินค้าชำรุดคืนได้ภายในกี่วัน", "ลูกค้าถามว่าสินค้าชำรุดคืนได้ภายในกี่วันครับ")],
    ids=["Chinese", "Japanese", "Thai"],
)  # fmt: skip
def test_seal_finds_a_question_quoted_in_a_script_without_spaces(  # type: ignore[no-untyped-def]
    cli,
    tmp_path: Path,
    key: tuple[Path, str],
    monkeypatch: pytest.MonkeyPatch,
    question: str,
    comment: str,
) -> None:
    """Such a script sets no space between words, so a quote runs on into the text around
    it; it is looked for within it. (Word by word, it was not found, and stayed readable.)"""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    text = SMALL_HEADER.replace("categories:", f"# {comment}\ncategories:") + small_item(
        "q-2", question, True
    )
    path = write_small(tmp_path, text)
    result = cli(tmp_path, "seal", path.name, "--recipient", key[1])
    assert result.code == 2, result.err
    assert "the text of a holdout item would stay readable there" in result.err
    assert path.read_text() == text


def test_seal_leaves_to_validate_a_question_another_question_holds(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tuning question may hold a short holdout question's words ("How do I return an
    item?" in "How do I return an item I bought as a gift?"): whether the two are too alike
    is validate's near-duplicate rule, which finds them apart. Before, seal refused, and so
    blocked the key holder's unseal-edit-seal loop; the same words in a note still leak."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    text = (
        SMALL_HEADER
        + small_item("q-1", "How do I return an item I bought as a gift for my sister?", False)
        + small_item("q-2", "How do I return an item?", True)
    )
    path = write_small(tmp_path, text)
    result = cli(tmp_path, "seal", path.name, "--recipient", key[1])
    assert result.code == 0, result.err
    noted = text.replace(
        "    holdout: false\n", "    holdout: false\n    origin: {kind: manual, note: "
        "'how do I return an item'}\n", 1,
    )  # fmt: skip
    path.write_text(noted)
    result = cli(tmp_path, "seal", path.name, "--recipient", key[1])
    assert result.code == 2 and "would stay readable there" in result.err, result.err


# each command refused on a sealed item the key at hand does not open, and its exit status
# (a release refused for what the set holds is a finding)
REFUSED_SEALED = {
    "verify": (["verify", NAME, "q-004"], 2),
    "retire": (["retire", NAME, "q-004", "--reason", "withdrawn"], 2),
    "split --move": (["split", NAME, "--move", "q-004", "--to", "tuning", "--force", "--reason",
                      "published"], 2),
    "release": (["release", NAME, "--bump", "minor", "--exclude-drafts"], 1),
}  # fmt: skip


@pytest.mark.parametrize("command", REFUSED_SEALED)
def test_a_key_that_does_not_open_the_sealed_items_is_not_told_to_be_set(  # type: ignore[no-untyped-def]
    example: Path,
    cli,
    key: tuple[Path, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    """With EVALSET_AGE_IDENTITY naming a key the items were not sealed to, these commands
    said to set EVALSET_AGE_IDENTITY to the age key file: the user had, and was left with
    nothing to do."""
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    path, text = sealed_and_committed(example, cli, key)
    other = x25519.Identity.generate()
    wrong = tmp_path / "other.key"
    wrong.write_text(f"# public key: {other.to_public()}\n{other}\n")
    for identity in (None, str(wrong)):
        if identity is not None:
            monkeypatch.setenv("EVALSET_AGE_IDENTITY", identity)
        args, code = REFUSED_SEALED[command]
        done = cli(example, *args)
        assert done.code == code, (identity, done.out, done.err)
        if identity is None:
            assert "set EVALSET_AGE_IDENTITY to the age key file" in done.err, done.err
        else:
            assert "set EVALSET_AGE_IDENTITY" not in done.err, done.err
            assert re.search(
                rf"point EVALSET_AGE_IDENTITY at a key (it was|they were) sealed to \(the one "
                rf"in {re.escape(identity)} does not open (it|them)\)",
                done.err,
            ), done.err
        assert len(done.err.strip().splitlines()) == 1 and "Traceback" not in done.err
        assert path.read_text() == text
    assert git(example, "tag", "-l") == ""
