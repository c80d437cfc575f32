"""Published JSON Schemas stay in step with the models, and document every field."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import EXAMPLE_SET, ROOT
from evalset.sets.model import EvalSet, FailureRecord, Item, KeyPoint, Origin, SetHeader
from evalset.sets.schema import rendered


def test_committed_schemas_are_current() -> None:
    for name, text in rendered().items():
        committed = (ROOT / "schemas" / name).read_text(encoding="utf-8")
        assert committed == text, f"schemas/{name} is out of date: run `evalset schema --write`"


def test_schema_write_leaves_the_repository_unchanged(cli) -> None:  # type: ignore[no-untyped-def]
    before = {p.name: p.read_bytes() for p in (ROOT / "schemas").iterdir()}
    result = cli(ROOT, "schema", "--write")
    assert result.code == 0
    assert "schemas are up to date" in result.out
    assert {p.name: p.read_bytes() for p in (ROOT / "schemas").iterdir()} == before


def test_every_field_has_a_description() -> None:
    for model in (EvalSet, SetHeader, Item, KeyPoint, Origin, FailureRecord):
        for name, info in model.model_fields.items():
            assert info.description, f"{model.__name__}.{name} has no docstring"


def test_the_example_names_its_schema_on_the_first_line() -> None:
    first = EXAMPLE_SET.read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=../schemas/evalset.schema.json"


def test_schema_rejects_what_the_models_reject() -> None:
    schema = json.loads(rendered()["evalset.schema.json"])
    assert schema["additionalProperties"] is False
    assert schema["$defs"]["Item"]["additionalProperties"] is False
    assert set(schema["required"]) == {"evalset", "name", "categories"}


def test_failure_schema_is_printed_and_strict(cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(ROOT, "schema", "--failure")
    schema = json.loads(result.out)
    assert result.out == rendered()["failure.schema.json"]
    assert schema["required"] == ["question"]
    assert schema["additionalProperties"] is False


SCHEMA_NAMES = ["evalset.schema.json", "config.schema.json", "failure.schema.json"]


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_schema_write_refuses_a_folder_in_a_schemas_place_and_writes_none(  # type: ignore[no-untyped-def]
    git_repo: Path, cli, name: str
) -> None:
    assert cli(git_repo, "init").code == 0
    for other in SCHEMA_NAMES:
        (git_repo / "schemas" / other).write_text("old\n", "utf-8")
    (git_repo / "schemas" / name).unlink()
    (git_repo / "schemas" / name).mkdir()
    result = cli(git_repo, "schema", "--write")
    assert result.code == 2
    assert (result.out, result.err) == (
        "",
        f"evalset: schemas/{name}: is a folder, where `evalset schema --write` "
        "writes a schema; move or rename it, then run `evalset schema --write` again (it "
        "wrote nothing).\n",
    )
    for other in set(SCHEMA_NAMES) - {name}:
        assert (git_repo / "schemas" / other).read_text("utf-8") == "old\n"


def test_schema_write_refuses_a_file_in_the_schemas_folders_place(  # type: ignore[no-untyped-def]
    git_repo: Path, cli
) -> None:
    assert cli(git_repo, "init").code == 0
    for name in SCHEMA_NAMES:
        (git_repo / "schemas" / name).unlink()
    (git_repo / "schemas").rmdir()
    (git_repo / "schemas").write_text("notes\n", "utf-8")
    result = cli(git_repo, "schema", "--write")
    assert result.code == 2
    assert (result.out, result.err) == (
        "",
        "evalset: schemas: is a file, where `evalset schema --write` writes its folder of "
        "schemas; move or rename it, then run `evalset schema --write` again (it wrote "
        "nothing).\n",
    )
    assert (git_repo / "schemas").read_text("utf-8") == "notes\n"


DANGLING = {
    "schema --write": (
        ["schema", "--write"],
        "evalset: schemas/evalset.schema.json: cannot be written because schemas is {points}; "
        "{fix}.\n",
    ),
    "init": (
        ["init"],
        "evalset: schemas: is {points}, where `evalset init` makes a folder for "
        "schemas/evalset.schema.json; {fix}, then run `evalset init` again (it wrote "
        "nothing).\n",
    ),
}
# the links from `schemas` on (link, where it points), what the message says of them, and
# the fix it gives
LINKS = {
    "to a folder not there": (
        [("schemas", "/nonexistent/dir")],
        "a symlink to /nonexistent/dir, which does not exist",
        "create that folder, or remove the link",
    ),
    "to a relative folder not there": (
        [("schemas", "elsewhere/schemas")],
        "a symlink to elsewhere/schemas, which does not exist",
        "create that folder, or remove the link",
    ),
    # `mkdir hop`, the fix the message gave, fails: hop exists, as a link to nothing
    "to a link to a folder not there": (
        [("schemas", "hop"), ("hop", "/nonexistent/deeper")],
        "a symlink to hop, a symlink to /nonexistent/deeper, which does not exist",
        "create /nonexistent/deeper, or remove the link",
    ),
    "through three links": (
        [("schemas", "a"), ("a", "b"), ("b", "elsewhere/c")],
        "a symlink to a, a symlink to b, a symlink to elsewhere/c, which does not exist",
        "create elsewhere/c, or remove the link",
    ),
    "round a loop": (
        [("schemas", "back"), ("back", "schemas")],
        "a symlink to back, a symlink to schemas, a loop of links that leads to no folder",
        "point one of the links at a folder, or remove the link",
    ),
    "to itself": (
        [("schemas", "schemas")],
        "a symlink to schemas, a loop of links that leads to no folder",
        "point one of the links at a folder, or remove the link",
    ),
}


@pytest.mark.parametrize("links", LINKS)
@pytest.mark.parametrize("command", DANGLING)
def test_a_schemas_folder_that_is_a_dangling_link_is_named_with_where_it_points(  # type: ignore[no-untyped-def]
    git_repo: Path, cli, command: str, links: str
) -> None:
    """The folder cannot be made where the links lead (its own folder is missing too, or
    they make a loop), nor in the link's place: one sentence naming the link, where it
    points (through each link on the way), and the fix."""
    if command != "init":
        assert cli(git_repo, "init").code == 0
        (git_repo / "evalset.toml").unlink()  # (init again is refused once it has run)
        shutil.rmtree(git_repo / "schemas")
    chain, points, fix = LINKS[links]
    for link, to in chain:
        (git_repo / link).symlink_to(to)
    if command != "init":
        (git_repo / "evalset.toml").write_text("")
    args, message = DANGLING[command]
    result = cli(git_repo, *args)
    assert (result.code, result.out, result.err) == (
        2,
        "",
        message.format(points=points, fix=fix),
    )
    assert [os.readlink(git_repo / link) for link, _ in chain] == [to for _, to in chain]
    assert not (git_repo / "schemas").exists()


@pytest.mark.parametrize("content", [b"\xe9", b"\xff\xfe{\x00", b"", b"{}\n"])
@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_schema_write_replaces_a_schema_file_whatever_it_holds(  # type: ignore[no-untyped-def]
    git_repo: Path, cli, name: str, content: bytes
) -> None:
    assert cli(git_repo, "init").code == 0
    (git_repo / "schemas" / name).write_bytes(content)
    result = cli(git_repo, "schema", "--write")
    assert result.code == 0, result.err
    assert result.out == f"wrote schemas/{name}\n"
    assert (git_repo / "schemas" / name).read_text("utf-8") == rendered()[name]


@pytest.mark.parametrize(
    "flags",
    [["--config", "--failure"], ["--failure", "--config"], ["--write", "--config"],
     ["--write", "--failure"], ["--write", "--config", "--failure"]],
)  # fmt: skip
def test_schema_refuses_flags_that_ask_for_two_things(cli, flags: list[str]) -> None:  # type: ignore[no-untyped-def]
    before = {p.name: p.read_bytes() for p in (ROOT / "schemas").iterdir()}
    result = cli(ROOT, "schema", *flags)
    assert result.code == 2
    assert result.out == ""
    assert "--config and --failure each print one schema instead of the set file's, and " in (
        " ".join(result.err.replace("│", " ").split())
    )
    assert {p.name: p.read_bytes() for p in (ROOT / "schemas").iterdir()} == before


# A failure record's fields as `evalset promote` reads them: what it takes, the schema takes
# (an editor checking records with it must not flag a record promote accepts), and what it
# refuses for its type, the schema refuses too.
RECORD_VALUES = [
    ("trace", "tr-9001", True),
    ("trace", 123456789, True),
    ("trace", 0, True),
    ("trace", -3, True),
    ("trace", True, False),
    ("trace", 1.5, False),
    ("trace", "", False),
    ("trace", ["tr-1"], False),
    ("trace", {"id": "tr-1"}, False),
    ("date", "2026-11-28", True),
    ("date", "2026-11-30T14:02:11Z", True),
    ("date", 1764500000, True),
    ("date", 1764500000123, True),
    ("date", 1764500000.5, True),
    ("date", "1764500000", True),
    ("date", True, False),
    ("date", -5, False),
    ("date", ["2026-11-28"], False),
    ("date", {"day": "2026-11-28"}, False),
    ("question", "", False),
    ("question", 7, False),
    ("retrieved", ["policies/returns.md#refunds"], True),
    ("retrieved", [3], False),
]


@pytest.mark.parametrize(("field", "value", "taken"), RECORD_VALUES)
def test_the_failure_schema_takes_the_records_promote_takes(
    field: str, value: object, taken: bool
) -> None:
    import jsonschema
    from pydantic import ValidationError

    record = {"question": "Can I return a used kettle?", field: value}
    try:
        FailureRecord.model_validate(record)
        read = True
    except ValidationError:
        read = False
    assert read is taken
    validator = jsonschema.Draft202012Validator(json.loads(rendered()["failure.schema.json"]))
    assert validator.is_valid(record) is taken, list(validator.iter_errors(record))


LEAVING = {
    # (where the link is, relative to the workspace; where it points; refused, or written
    # through), as `evalset accept` takes them for its accepted run
    "a schema to a file outside": ("schemas/config.schema.json", "{outside}/victim.txt", True),
    "a schema to nothing outside": ("schemas/config.schema.json", "{outside}/none.txt", True),
    "the folder to one outside": ("schemas", "{outside}", True),
    "a schema into git's folder": ("schemas/config.schema.json", "../.git/config", True),
    "a schema to a file inside": ("schemas/config.schema.json", "../notes.txt", False),
}


@pytest.mark.parametrize("case", list(LEAVING))
def test_schema_write_never_writes_through_a_link_out_of_the_workspace(  # type: ignore[no-untyped-def]
    git_repo: Path, tmp_path: Path, cli, case: str
) -> None:
    """A link committed in `schemas/` (to `~/.bashrc`, say) had `schema --write` replace
    the file it points at, and say it wrote the schema."""
    where, to, refused = LEAVING[case]
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.txt").write_text("precious\n")
    assert cli(git_repo, "init").code == 0
    (git_repo / "notes.txt").write_text("mine\n")
    link = git_repo / where
    shutil.rmtree(link) if link.is_dir() else link.unlink()
    link.symlink_to(to.format(outside=outside))
    before = {p: p.read_bytes() for p in [*outside.iterdir(), git_repo / ".git" / "config"]}
    done = cli(git_repo, "schema", "--write")
    if not refused:
        assert done.code == 0, done.err
        assert (git_repo / "notes.txt").read_text().startswith("{")
        return
    assert (done.code, done.out) == (2, "")
    assert done.err.startswith(f"evalset: {where}: is a symlink to "), done.err
    assert done.err.endswith("; remove the link, then run `evalset schema --write` again (it "
                             "wrote nothing).\n")  # fmt: skip
    assert {p: p.read_bytes() for p in before} == before
    assert not (outside / "none.txt").exists()


def test_each_schema_is_titled_as_evalset_s() -> None:
    """An editor shows a schema's title: the configuration's read ``Config``, the class
    the schema was generated from, beside ``evalset set file`` and ``evalset failure
    record``."""
    import json

    from evalset.sets.schema import rendered

    titles = {name: json.loads(text)["title"] for name, text in rendered().items()}
    assert titles == {
        "evalset.schema.json": "evalset set file",
        "config.schema.json": "evalset configuration",
        "failure.schema.json": "evalset failure record",
    }
