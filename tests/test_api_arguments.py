"""Wrong arguments to the public API are refused with a sentence, never taken for something
else: before, a path given as text to `validate` was read as one set file per character, a
fingerprint format that does not exist was computed as format 1 or 2, a snapshot of an
unknown hash mode was written, `release` took a version and ignored the bump given with it,
`pin`, `verify`, `fix_moved` and `release` took a set of a nested workspace with the outer
one's snapshots, and
`find_workspace` failed on a path given as text."""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

import pytest

import evalset
from conftest import ROOT, commit_all, git
from evalset.export import export
from evalset.holdout.split import plan_split
from evalset.intake.redact import Redactor
from evalset.score.answers import score_answers
from evalset.score.judges.registry import load_judge
from evalset.score.retrieval import Options, score_retrieval
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


PATH_TEXT = "(text or a Path), not NoneType None: give it as"
SET_PATH = f"the set file's path {PATH_TEXT} Path('sets/NAME.yaml') or 'sets/NAME.yaml'."
WRONG_ARGUMENTS = {
    # a path missing (None), a folder given as the workspace, a path given as the loaded set
    "load_set": (lambda ws, p: evalset.load_set(None), f"load_set() takes {SET_PATH}"),
    "edit_set": (lambda ws, p: evalset.edit_set(None).__enter__(), f"edit_set() takes {SET_PATH}"),
    "pin path": (lambda ws, p: evalset.pin(ws, None), f"pin() takes {SET_PATH}"),
    "verify path": (
        lambda ws, p: evalset.verify(ws, None, ["q-001"]),
        f"verify() takes {SET_PATH}",
    ),
    # before: "expected str, bytes or os.PathLike object, not int", "'NoneType' object is
    # not iterable"
    "find_workspace": (
        lambda ws, p: evalset.find_workspace(5),
        "find_workspace() takes a folder (text or a Path), not int 5: give it as Path('.') or '.'.",
    ),
    "validate nothing": (
        lambda ws, p: evalset.validate(None),
        "validate() takes a list of set files, not NoneType None: validate(['sets/NAME.yaml'])",
    ),
    "verify one id": (
        lambda ws, p: evalset.verify(ws, p, "q-001"),  # before: "has no item 'q'"
        "verify() takes a list of item ids as text, not str 'q-001': verify(workspace, path, "
        "['q-001'])",
    ),
    "verify an id not text": (
        lambda ws, p: evalset.verify(ws, p, ["q-001", None]),
        "verify() takes a list of item ids as text, not list ['q-001', None]: "
        "verify(workspace, path, ['q-014'])",
    ),
    "pin workspace": (
        lambda ws, p: evalset.pin(str(ws.root), p),
        "pin() takes a Workspace, not str '{root}': give find_workspace('{root}'), the "
        "workspace that folder lies in.",
    ),
    "release workspace": (
        lambda ws, p: evalset.release(None, p, bump="minor"),
        "release() takes a Workspace, not NoneType None: give find_workspace(), the workspace "
        "of the current folder.",
    ),
    "fix_moved workspace": (
        lambda ws, p: evalset.fix_moved(ws.root, p),
        "fix_moved() takes a Workspace, not PosixPath '{root}': give find_workspace('{root}'), "
        "the workspace that folder lies in.",
    ),
    "workspace_store": (
        lambda ws, p: evalset.workspace_store(None),
        "workspace_store() takes a Workspace, not NoneType None: give find_workspace(), the "
        "workspace of the current folder.",
    ),
    "check_pin": (
        lambda ws, p: evalset.check_pin(ws, None),
        f"check_pin() takes the report's path {PATH_TEXT} Path('reports/run.json') or "
        "'reports/run.json'.",
    ),
    "check_set": (
        lambda ws, p: evalset.check_set(p),
        "check_set() takes a loaded set, not PosixPath '{path}': give load_set('{path}').",
    ),
    "set_fingerprint": (
        lambda ws, p: evalset.set_fingerprint(str(p)),
        "set_fingerprint() takes a loaded set, not str '{path}': give load_set('{path}').",
    ),
    "item_fingerprints": (
        lambda ws, p: evalset.item_fingerprints(p),
        "item_fingerprints() takes a loaded set, not PosixPath '{path}': give load_set('{path}').",
    ),
    "diff_sets": (
        lambda ws, p: evalset.diff_sets(evalset.load_set(p), None, "a", "b"),  # type: ignore[arg-type]
        "diff_sets() takes a loaded set, not NoneType None: give load_set(path).",
    ),
    "stale_report one path": (
        lambda ws, p: evalset.stale_report(p, evalset.workspace_store(ws)),
        "stale_report() takes a list of set files, not one path: stale_report(['{path}'], store)",
    ),
    "stale_report store": (
        lambda ws, p: evalset.stale_report([p], ws.snapshots_dir),
        "stale_report() takes a SnapshotStore, not PosixPath '{root}/snapshots': give "
        "workspace_store(find_workspace()).",
    ),
}


@pytest.mark.parametrize("call", list(WRONG_ARGUMENTS))
def test_an_argument_of_the_wrong_kind_is_refused_with_a_sentence(example: Path, call: str) -> None:
    """Before, each of these failed inside with Python's own AttributeError or TypeError
    ("'str' object has no attribute 'root'", "'PosixPath' object has no attribute
    'sealed'"), which names neither the argument nor what to give instead."""
    path = example / "sets" / "acme-support.yaml"
    before = path.read_bytes()
    ws = evalset.find_workspace(example)
    function, message = WRONG_ARGUMENTS[call]
    with pytest.raises(TypeError) as refused:
        function(ws, path)  # type: ignore[no-untyped-call]
    assert str(refused.value) == message.format(root=example, path=path)
    assert path.read_bytes() == before


def test_paths_given_as_text_are_taken_as_paths(example: Path) -> None:
    """Before, `release` with the set's path as text failed with "'str' object has no
    attribute 'exists'", `take_snapshot` with its root as text with "unsupported operand
    type(s) for /", and `SnapshotStore` of a folder as text with "'str' object has no
    attribute 'is_dir'"; `pin` and `verify` took text all along."""
    path = example / "sets" / "acme-support.yaml"
    ws = evalset.find_workspace(example)
    refusals = []
    for given in (path, str(path)):
        with pytest.raises(evalset.EvalsetError) as refused:  # the example has stale items
            evalset.release(ws, given, bump="minor")  # type: ignore[arg-type]
        refusals.append(str(refused.value))
    assert refusals[0] == refusals[1]
    taken = [
        evalset.take_snapshot(root, "corpus", snaps, state, write=False).id
        for root, snaps, state in (
            (example, example / "snapshots", example / ".evalset"),
            (str(example), str(example / "snapshots"), str(example / ".evalset")),
        )
    ]
    assert taken[0] == taken[1]
    stores = [evalset.SnapshotStore(folder) for folder in (example / "snapshots", "snapshots")]
    assert stores[1].folder == Path("snapshots")
    newest = evalset.SnapshotStore(str(example / "snapshots")).newest()
    assert (
        newest is not None and newest.id == evalset.SnapshotStore(example / "snapshots").newest().id
    )  # type: ignore[union-attr]


RUN = "examples/runs/acme-support-bm25.jsonl"
KS = "ks must be cutoffs, whole numbers from 1 to 100000, such as (1, 5, 10), not"
RATIO = "ratio must be the holdout share, a number from 0 to 1 such as 0.2, not"
FIELDS = "record() takes the record's free-text fields as a mapping of names to text, such as"
BEHIND_COMMANDS: dict[str, tuple[Any, type[Exception], str]] = {
    # before: AssertionError from inside the metrics, and "'int' object is not iterable"
    "ks of 0": (lambda ws, p, r: Options(ks=(0,)), ValueError, f"{KS} (0,)"),
    "ks as one number": (lambda ws, p, r: Options(ks=5), ValueError, f"{KS} 5"),
    "no ks": (lambda ws, p, r: Options(ks=()), ValueError, f"{KS} ()"),
    # before: "'str' object has no attribute 'resolve'" (the run's path as text)
    "score_retrieval workspace": (
        lambda ws, p, r: score_retrieval(str(ws.root), p, r, Options(allow_stale=True)),
        TypeError,
        "score_retrieval() takes a Workspace, not str '{root}': give find_workspace('{root}'), "
        "the workspace that folder lies in.",
    ),
    "score_answers run": (
        lambda ws, p, r: score_answers(ws, p, None, load_judge("exact", ws)),
        TypeError,
        "score_answers() takes the run file's path (text or a Path), not NoneType None: give "
        "it as Path('runs/run.jsonl') or 'runs/run.jsonl'.",
    ),
    "export workspace": (
        lambda ws, p, r: export(p, "tuning", "jsonl", str(ws.root), allow_stale=True),
        TypeError,
        "export() takes a Workspace, not str '{root}': give find_workspace('{root}'), the "
        "workspace that folder lies in.",
    ),
    # before: a ratio out of range, or NaN, split as if it were another; text failed inside
    "ratio above 1": (lambda ws, p, r: plan_split([], 2.0), ValueError, f"{RATIO} 2.0"),
    "ratio below 0": (lambda ws, p, r: plan_split([], -1), ValueError, f"{RATIO} -1"),
    "ratio NaN": (lambda ws, p, r: plan_split([], math.nan), ValueError, f"{RATIO} nan"),
    "ratio as text": (lambda ws, p, r: plan_split([], "0.2"), ValueError, f"{RATIO} '0.2'"),
    "split of the loaded set": (
        lambda ws, p, r: plan_split(evalset.load_set(p), 0.2),
        TypeError,
        "plan_split() takes the set's items, not the loaded set: plan_split(loaded.items, ratio)",
    ),
    # before: AttributeError "'str' object has no attribute 'items'", and a TypeError from
    # inside a regular expression
    "redact text": (
        lambda ws, p, r: Redactor().record("a@b.org"),
        TypeError,
        f"{FIELDS} {{'question': '…'}}, not str 'a@b.org'",
    ),
    "redact a number": (
        lambda ws, p, r: Redactor().record({"question": "hi", "order": 5}),
        TypeError,
        "record() redacts text: field 'order' is int 5; give its text, or leave it out",
    ),
    # before: "'NoneType' object has no attribute 'strip'"
    "judge None": (
        lambda ws, p, r: load_judge(None, ws),
        TypeError,
        "load_judge() takes a judge's name as text, such as 'exact' or 'command:judge.py', "
        "not NoneType None",
    ),
}


@pytest.mark.parametrize("call", list(BEHIND_COMMANDS))
def test_the_functions_behind_the_commands_refuse_wrong_arguments_with_a_sentence(
    example: Path, call: str
) -> None:
    path = example / "sets" / "acme-support.yaml"
    shutil.copytree(ROOT / "examples" / "runs", example / "examples" / "runs")
    before = path.read_bytes()
    ws = evalset.find_workspace(example)
    function, kind, message = BEHIND_COMMANDS[call]
    with pytest.raises(kind) as refused:
        function(ws, path, example / RUN)
    assert str(refused.value) == message.replace("{root}", str(example))
    assert path.read_bytes() == before


def test_the_run_and_set_paths_as_text_score_as_paths(example: Path) -> None:
    """Before, `score_retrieval` with its paths as text failed with "'str' object has no
    attribute 'resolve'"."""
    shutil.copytree(ROOT / "examples" / "runs", example / "examples" / "runs")
    ws = evalset.find_workspace(example)
    path, run = example / "sets" / "acme-support.yaml", example / RUN
    scores = [
        score_retrieval(ws, s, r, Options(ks=(1, 5), allow_stale=True)).data["overall"]
        for s, r in ((path, run), (str(path), str(run)))
    ]
    assert scores[0] == scores[1]


BY_NAME: dict[str, Any] = {
    "load_set": lambda ws, name: evalset.load_set(name),
    "edit_set": lambda ws, name: evalset.edit_set(name).__enter__(),
    "validate": lambda ws, name: evalset.validate([name]),
    "pin": lambda ws, name: evalset.pin(ws, name),
    "stale_report": lambda ws, name: evalset.stale_report([name], evalset.workspace_store(ws)),
}


@pytest.mark.parametrize("call", list(BY_NAME))
@pytest.mark.parametrize("name", ["acme-support", "acme-suport"])
def test_a_set_named_where_its_path_goes_is_told_to_give_the_path(
    example: Path, monkeypatch: pytest.MonkeyPatch, call: str, name: str
) -> None:
    """Before, a set's name was refused with "no such file; check the path or the set
    name", which blames a name that is right: the Python API takes paths only."""
    monkeypatch.chdir(example)
    path = example / "sets" / "acme-support.yaml"
    before = path.read_bytes()
    ws = evalset.find_workspace()
    with pytest.raises(evalset.SetFileError) as refused:
        BY_NAME[call](ws, name)
    assert str(refused.value) == (
        f"{name}: no such file, but it is the name of the set sets/acme-support.yaml; the "
        "Python API takes a set file's path, not its name: give 'sets/acme-support.yaml'."
        if name == "acme-support"
        else f"{name}: no such file; check the path or the set name."
    )
    assert path.read_bytes() == before
