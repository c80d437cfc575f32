"""Workspace discovery and configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalset import ConfigError, NoWorkspace, find_workspace


def test_found_by_walking_up_from_a_subfolder(tmp_path: Path) -> None:
    (tmp_path / "evalset.toml").write_text('sets = "evals"\n[split]\nratio = 0.3\n')
    deep = tmp_path / "a" / "b"
    deep.mkdir(parents=True)
    workspace = find_workspace(deep)
    assert workspace.root == tmp_path.resolve()
    assert workspace.sets_dir == tmp_path.resolve() / "evals"
    assert workspace.config.split.ratio == 0.3
    assert workspace.config.validate.min_per_category == 5


def test_tool_table_in_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.evalset]\ncorpus = "docs"\n[tool.evalset.validate]\n'
        "min_per_category = 2\n"
    )
    workspace = find_workspace(tmp_path)
    assert workspace.config.corpus == "docs"
    assert workspace.config.validate.min_per_category == 2


def test_a_pyproject_without_the_table_is_passed_over(tmp_path: Path) -> None:
    (tmp_path / "evalset.toml").write_text("")
    inner = tmp_path / "pkg"
    inner.mkdir()
    (inner / "pyproject.toml").write_text('[project]\nname = "pkg"\n')
    assert find_workspace(inner).root == tmp_path.resolve()


def test_no_workspace_says_how_to_make_one(tmp_path: Path) -> None:
    made_here = r"no evalset workspace here .*, or make this one with `evalset init`\."
    with pytest.raises(NoWorkspace, match=made_here):
        find_workspace(tmp_path)


def test_unknown_and_invalid_settings_are_named(tmp_path: Path) -> None:
    (tmp_path / "evalset.toml").write_text("setz = 'x'\n")
    with pytest.raises(ConfigError) as info:
        find_workspace(tmp_path)
    assert str(info.value) == (
        f"{tmp_path / 'evalset.toml'}: setz is not a known setting (did you mean sets?); see "
        "the Configuration section of the README."
    )
    (tmp_path / "evalset.toml").write_text("[split]\nratio = 2\n")
    with pytest.raises(ConfigError, match=r"split\.ratio must be a number from 0 to 1 \(got 2\)"):
        find_workspace(tmp_path)
    (tmp_path / "evalset.toml").write_text("sets = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        find_workspace(tmp_path)


def test_cli_outside_a_workspace(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(tmp_path, "status")
    assert result.code == 2
    assert result.err.startswith("evalset: no evalset workspace here (")
    assert result.err.rstrip().endswith(
        "as in `evalset -C path/to/workspace status`, or make this one with `evalset init`."
    )


@pytest.mark.parametrize(
    ("args", "example"),
    [
        (["stale", "acme-support"], "stale"),
        (["score", "retrieval", "s", "run.jsonl"], "score retrieval"),
        (["score", "answers", "s", "run.jsonl", "--judge", "exact"], "score answers"),
        (["gate", "report.json"], "gate"),
        (["verify", "s", "q-001"], "verify"),
        (["status", "--json"], "status"),
    ],
)
def test_outside_a_workspace_the_example_is_the_command_run(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, args: list[str], example: str
) -> None:
    """The fix shows the command the user ran, given the workspace's folder, not another."""
    result = cli(tmp_path, *args)
    assert result.code == 2
    assert f"as in `evalset -C path/to/workspace {example}`, or make this one" in result.err


def test_outside_a_workspace_in_a_nested_repository_says_where_the_search_stopped(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli
) -> None:
    """It said the folder "and its parents" have no evalset.toml, when a parent above the
    nested repository's top has one (the search stops there, as git's does)."""
    (tmp_path / "evalset.toml").write_text("", "utf-8")
    (tmp_path / ".git").mkdir()
    lib = tmp_path / "vendor" / "lib"
    (lib / ".git").mkdir(parents=True)
    (lib / "src").mkdir()
    top = cli(lib, "status")
    assert top.code == 2 and f"({lib}, the top of a git repository, has no evalset.toml" in top.err
    inside = cli(lib / "src", "status")
    assert (
        inside.code == 2
        and (
            f"({lib / 'src'} and its parents up to {lib}, the top of its git repository, have no "
            "evalset.toml"
        )
        in inside.err
    )


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('[promote]\nregions = "US"\n', 'promote.regions must be a list of two-letter region '
         'codes, such as ["US", "GB"] (got \'US\').'),
        ('[promote.patterns]\ncustomer = "C-[0-9]+"\n', "promote.patterns has the type "
         "'customer'; types are upper-case words such as CUSTOMER"),
        ('[promote.patterns]\nCUSTOMER = "C-("\n', "promote.patterns entry CUSTOMER is not a "
         "valid regular expression"),
        ("[promote]\nregion = []\n", "promote.region is not a known setting (did you mean "
         "promote.regions?)"),
        # patterns that match an empty string: before, promote put a placeholder between
        # every two characters of a question, and counted them as found personal data
        *[(f'[promote.patterns]\nORDER = "{p}"\n', "promote.patterns entry ORDER matches an "
           "empty string") for p in ("[0-9]*", "", "\\\\b", "(?=x)", "(CUST-[0-9]+)?")],
    ],
)  # fmt: skip
def test_promote_settings_are_checked(tmp_path: Path, toml: str, message: str) -> None:
    (tmp_path / "evalset.toml").write_text(toml)
    with pytest.raises(ConfigError) as info:
        find_workspace(tmp_path)
    assert message in str(info.value)


def test_promote_settings_are_read(tmp_path: Path) -> None:
    (tmp_path / "evalset.toml").write_text(
        '[promote]\nregions = ["GB"]\n[promote.patterns]\nCUSTOMER = "CUST-[0-9]{6}"\n'
    )
    config = find_workspace(tmp_path).config.promote
    assert config.regions == ("GB",)
    assert config.patterns == {"CUSTOMER": "CUST-[0-9]{6}"}


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        # a top-level setting appended below the [validate] table init writes last
        ("evalset.toml", '[validate]\nmin_per_category = 5\nhash = "source"\n',
         "validate.hash is not a setting of [validate]; hash is a setting of its own, and a key "
         "written below a [table] line belongs to that table: move hash = … above the "
         "[validate] line."),
        ("pyproject.toml", '[tool.evalset.split]\nratio = 0.2\nsets = "evals"\n',
         "tool.evalset.split.sets is not a setting of [tool.evalset.split]; sets is a setting "
         "of its own"),
        # a tool.evalset that is no table: before, passed over as if absent
        ("pyproject.toml", '[tool]\nevalset = "sets"\n',
         "tool.evalset must be a table ([tool.evalset], then its settings), not str 'sets'"),
    ],
)  # fmt: skip
def test_a_setting_in_the_wrong_place_says_where_it_goes(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    (tmp_path / name).write_text(text)
    with pytest.raises(ConfigError) as info:
        find_workspace(tmp_path)
    assert message in str(info.value)


def test_an_unreadable_pyproject_of_another_tool_does_not_stop_the_search(tmp_path: Path) -> None:
    """Before, a template's pyproject.toml (`name = {{ cookiecutter.name }}`) in a subfolder
    made every command run there fail; one that names evalset is still told."""
    (tmp_path / "evalset.toml").write_text('sets = "sets"\n')
    template = tmp_path / "templates" / "app"
    template.mkdir(parents=True)
    (template / "pyproject.toml").write_text("[project]\nname = {{ cookiecutter.name }}\n")
    assert find_workspace(template).root == tmp_path
    (template / "pyproject.toml").write_text("[tool.evalset]\nsets = {{ x }}\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        find_workspace(template)


# Configurations evalset refuses, and some it reads: the published schema says the same of
# each, as an editor using it would. Before, it took all of the refused ones for valid.
SCHEMA_CASES = {
    "lower-case region": ('[promote]\nregions = ["us"]\n', False),
    "three-letter region": ('[promote]\nregions = ["USA"]\n', False),
    "lower-case placeholder type": ('[promote.patterns]\ncustomer = "CUST-[0-9]+"\n', False),
    "judge name with a space": ('[judges."my judge"]\nkind = "exact"\n', False),
    "judge without kind": ('[judges.j]\nmodel = "gpt-4o-mini"\n', False),
    "empty sets": ('sets = ""\n', False),
    "blank corpus": ('corpus = "  "\n', False),
    "defaults": ("", True),
    "a full one": ('sets = "evals"\nhash = "source"\n[split]\nratio = 0.25\n[promote]\n'
                   'regions = ["GB"]\n[promote.patterns]\nCUSTOMER = "CUST-[0-9]+"\n'
                   '[judges.strict]\nkind = "openai"\nmodel = "gpt-4o-mini"\n', True),
}  # fmt: skip


@pytest.mark.parametrize("case", SCHEMA_CASES)
def test_the_config_schema_refuses_what_evalset_refuses(tmp_path: Path, case: str) -> None:
    import json
    import tomllib

    import jsonschema

    from evalset.sets.schema import rendered

    text, valid = SCHEMA_CASES[case]
    schema = json.loads(rendered()["config.schema.json"])
    assert jsonschema.Draft202012Validator(schema).is_valid(tomllib.loads(text)) is valid
    (tmp_path / "evalset.toml").write_text(text)
    if valid:
        find_workspace(tmp_path)
    else:
        with pytest.raises(ConfigError):
            find_workspace(tmp_path)


# Folder settings that name a folder another tool keeps, or one folder for two jobs: before,
# `corpus = ".git"` snapshotted git's own files (an empty corpus became the newest), and
# `snapshots = "sets"` wrote manifests among the set files, both without a word.
SHARED_FOLDERS = [
    ('corpus = ".git"', 'corpus = ".git" is .git, the folder git keeps its own files in; '
     "name the folder of the documents instead."),
    ('corpus = "./.git/objects"', 'corpus = "./.git/objects" is in .git, the folder git keeps '
     "its own files in; name the folder of the documents instead."),
    ('sets = ".dvc"', 'sets = ".dvc" is .dvc, the folder DVC keeps its own files in; name the '
     "folder of the set files instead."),
    ('snapshots = ".evalset/snapshots"', 'snapshots = ".evalset/snapshots" is in .evalset, the '
     "folder evalset keeps its own files in; name the folder of the snapshots instead."),
    ('snapshots = "sets"', 'snapshots names the folder of the set files (sets = "sets"), so '
     "snapshot manifests would be written among them; give the snapshots a folder of their "
     'own (snapshots = "snapshots").'),
    ('snapshots = "corpus/"', 'snapshots names the folder of the documents (corpus = '
     '"corpus"), so snapshot manifests would be written among them; give the snapshots a '
     'folder of their own (snapshots = "snapshots").'),
    ('sets = "."\nsnapshots = "./"', 'snapshots names the folder of the set files (sets = '
     '"."), so snapshot manifests would be written among them; give the snapshots a folder '
     'of their own (snapshots = "snapshots").'),
]  # fmt: skip


@pytest.mark.parametrize(("setting", "message"), SHARED_FOLDERS)
@pytest.mark.parametrize("where", ["evalset.toml", "pyproject.toml"])
def test_a_folder_another_tool_keeps_or_two_settings_share_is_refused(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, setting: str, message: str, where: str
) -> None:
    (corpus_repo / "corpus" / "a.md").write_text("# A\n\n## B\n\nSome text.\n")
    config = corpus_repo / where
    if where == "pyproject.toml":
        (corpus_repo / "evalset.toml").unlink()
        config.write_text(f"[tool.evalset]\n{setting}\n")
        message = "tool.evalset." + message
        message = message.replace("(sets = ", "(tool.evalset.sets = ")
        message = message.replace("(corpus = ", "(tool.evalset.corpus = ")
    else:
        config.write_text(f"{setting}\n")
    before = sorted(p.relative_to(corpus_repo) for p in corpus_repo.rglob("*"))
    for command in (["snapshot"], ["status"], ["validate"], ["stale"]):
        done = cli(corpus_repo, *command)
        assert (done.code, done.out) == (2, ""), (command, done)
        assert done.err == f"evalset: {where}: {message}\n", command
    assert sorted(p.relative_to(corpus_repo) for p in corpus_repo.rglob("*")) == before


@pytest.mark.parametrize("name", ["exact", "openai"])
@pytest.mark.parametrize("kind", ["exact", "openai", "command"])
def test_a_configured_judge_may_not_take_a_built_in_judge_s_name(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, name: str, kind: str
) -> None:
    """Before, `[judges.exact]` (a stricter table, say) was read without a word, and
    `--judge exact` then scored with the built-in judge, never with it."""
    (corpus_repo / "evalset.toml").write_text(
        f'[judges.{name}]\nkind = "{kind}"\nmodel = "m"\ncommand = "true"\n'
    )
    done = cli(corpus_repo, "status")
    assert (done.code, done.out) == (2, "")
    assert done.err == (
        f"evalset: evalset.toml: judges has the judge name {name!r}, which `--judge {name}` "
        f"gives the built-in judge of; name it otherwise ([judges.my-{name}]).\n"
    )
