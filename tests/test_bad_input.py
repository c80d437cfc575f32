"""Every kind of bad input gets one located sentence, the right exit status, no traceback,
no hang, and leaves the file untouched."""

from __future__ import annotations

import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

HEADER = "evalset: 1\nname: bad\ncategories:\n  direct-lookup: a fact\nitems:\n"
ITEM = (
    "  - id: q-1\n"
    "    question: How long?\n"
    "    category: direct-lookup\n"
    "    expected_sources: [a.md#b]\n"
    "    key_points:\n"
    "      - text: Thirty days\n"
    "        sources: [a.md#b]\n"
    "    holdout: false\n"
)

# name -> (file content, exit status, exact message line)
CASES: dict[str, tuple[str | bytes, int, str]] = {
    "tab-indentation": (
        HEADER + "  - id: q-1\n\tquestion: x\n",
        2,
        "evalset: {f}:7:1: is indented with a tab; YAML indents with spaces only, "
        "so replace the tab.",
    ),
    "unclosed-quote": (
        HEADER + '  - id: q-1\n    question: "How long\n    category: direct-lookup\n',
        2,
        "evalset: {f}:8:5: not valid YAML (invalid indentation in multiline quoted scalar); "
        "is a quote left unclosed?",
    ),
    "wrong-type": (
        HEADER + ITEM.replace("question: How long?", "question: 42"),
        1,
        "{f}:7:5: item q-1: question: error: expected text, got a number (42) "
        "(quote it if it is meant as text)",
    ),
    **{
        f"category-read-as-{name}": (  # found at its own key, whatever YAML reads it as
            HEADER.replace("categories:\n", f"categories:\n  {key}: looks like {name}\n") + ITEM,
            1,
            f"{{f}}:4:3: categories{shown}: error: expected text, got {got} "
            "(quote it if it is meant as text)",
        )
        for name, key, shown, got in (
            ("an integer", "12", "[12]", "a number (12)"),
            ("a decimal", "2.0", ".2.0", "a number (2.0)"),
            ("true", "true", "[1]", "true/false (true)"),
        )
    },
    "wrong-type-bool": (
        HEADER + ITEM.replace("holdout: false", "holdout: yes"),
        1,
        "{f}:13:5: item q-1: holdout: error: expected true or false, got text ('yes') (write "
        "true or false, without quotes)",
    ),
    "duplicate-id": (
        HEADER + ITEM + ITEM,
        1,
        "{f}:14:5: item q-1: id: error: id 'q-1' is used by another item (first used at "
        "line 6) (give this item a new id)",
    ),
    "duplicated-key": (
        HEADER + ITEM + "    category: direct-lookup\n",
        2,
        "evalset: {f}:14:5: key 'category' appears twice in the same mapping; keep one of them.",
    ),
    **{
        f"keys-read-as-one-{name}": (
            HEADER.replace("categories:\n  direct-lookup: a fact", f"categories: {{{keys}}}")
            + ITEM,
            2,
            f"evalset: {{f}}:3:{col}: two keys of the same mapping read as one value, {value} "
            "(programs reading YAML take `1`, `1.0` and `true` for one key, and `null` and `~`); "
            "keep one of them, or write the keys as text in quotes.",
        )
        for name, keys, col, value in (
            ("number-and-true", "1: a, true: b", 20, "True"),
            ("number-and-decimal", "1: a, 1.0: b", 20, "1.0"),
            ("zero-and-false", "0: a, false: b", 20, "False"),
            ("null-and-tilde", "null: a, ~: b", 23, "None"),
            ("same-number", "7: a, 7: b", 20, "7"),
        )
    },
    "an-item-field-on-a-sealed-item": (
        HEADER + "  - id: q-1\n    holdout: true\n    holdout_moves: []\n    sealed:\n"
        "      fingerprint: sha256:" + "0" * 64 + "\n      fingerprint_format: 2\n"
        "      recipients: [age1x]\n      age: x\n",
        1,
        "{f}:8:5: item q-1: holdout_moves: error: field 'holdout_moves' is not one a sealed "
        "item shows (it belongs in the sealed content: `evalset unseal` with the key, then "
        "seal again)",
    ),
    "unknown-field-typo": (
        HEADER + ITEM + "    expected_source: [a.md]\n",
        1,
        "{f}:14:5: item q-1: expected_source: error: unknown field 'expected_source' "
        "(did you mean 'expected_sources'?)",
    ),
    "unknown-category": (
        HEADER + ITEM.replace("category: direct-lookup", "category: direct-lookpu"),
        1,
        "{f}:8:5: item q-1: category: error: category 'direct-lookpu' is not declared in the "
        "set's categories (did you mean 'direct-lookup'?)",
    ),
    "empty-file": (
        "",
        2,
        "evalset: {f}: is empty; a set file needs at least `evalset: 1`, `name:` and "
        "`categories:` (`evalset init` writes one).",
    ),
    "top-level-list": (
        "- id: q-1\n  question: x\n",
        2,
        "evalset: {f}: the top level is a list, but a set file is a mapping with `evalset`, "
        "`name`, `categories` and `items`; see sets/ in the example workspace.",
    ),
    "two-documents": (
        HEADER + ITEM + "---\n" + HEADER + ITEM,
        2,
        "evalset: {f}: holds more than one YAML document; keep one set per file.",
    ),
    "non-utf8": (
        (HEADER + ITEM).encode().replace(b"How long?", b"How l\xf6ng?"),
        2,
        "evalset: {f}:7:20: is not valid UTF-8 (byte 0xf6); save the file as UTF-8.",
    ),
    "nul-byte": (
        (HEADER + ITEM).encode().replace(b"How long?", b"How\x00long?"),
        2,
        "evalset: {f}:7:18: contains a NUL byte, so it is not a text file; remove the byte "
        "or restore the file from git.",
    ),
    "huge-question": (
        HEADER + ITEM.replace("How long?", "x" * 5_000_000),
        1,
        "{f}:7:5: item q-1: question: error: is 5,000,000 characters long; the limit is "
        "20,000 (shorten it)",
    ),
    "missing-header-field": (
        "evalset: 1\ncategories:\n  direct-lookup: a fact\nitems: []\n",
        1,
        "{f}: name: error: required field is missing (add `name: …`, the set's name, used on "
        "the command line and in release tags)",
    ),
    "bad-citation": (
        HEADER + ITEM.replace("expected_sources: [a.md#b]", "expected_sources: [/etc/passwd]"),
        1,
        "{f}:9:24: item q-1: expected_sources[0]: error: citation '/etc/passwd' is not a path "
        "relative to the corpus root (no leading '/', no empty, '.' or '..' parts)",
    ),
}


CASES.update(
    {
        "utf-16": (
            (HEADER + ITEM).encode("utf-16"),
            2,
            "evalset: {f}: is UTF-16 text, but a set file must be UTF-8; save it as UTF-8 "
            "(for example `iconv -f UTF-16 -t UTF-8`).",
        ),
        "utf-16-without-bom": (
            (HEADER + ITEM).encode("utf-16-be"),
            2,
            "evalset: {f}: is UTF-16 text, but a set file must be UTF-8; save it as UTF-8 "
            "(for example `iconv -f UTF-16 -t UTF-8`).",
        ),
        "conflict-markers": (
            HEADER + "<<<<<<< HEAD\n" + ITEM + "=======\n" + ITEM + ">>>>>>> theirs\n",
            2,
            "evalset: {f}:6:1: holds an unresolved merge conflict (git's conflict markers); "
            "resolve it: keep the right lines between `<<<<<<<` and `>>>>>>>`, delete the "
            "markers, then `git add` the file.",
        ),
        "python-tag": (
            HEADER + ITEM.replace("question: How", "question: !!python/object:os.system How"),
            2,
            "evalset: {f}:7:15: uses the YAML tag '!!python/object:os.system', which set files "
            "do not allow; remove the tag and write the value as plain text.",
        ),
        "deep-nesting": (
            HEADER + "  - " + "- " * 20_000 + "x\n",
            2,
            "evalset: {f}: nests collections more than 1,000 levels deep, which no set file "
            "needs; fix the file (restore it from git if it was damaged).",
        ),
        # the reader's own bound: it said "not valid YAML (recursion limit exceeded); fix the
        # syntax there", of YAML without a fault, and the README said 1,000
        "deep-flow-lists": (
            HEADER + "x: " + "[" * 256 + "]" * 256 + "\n",
            2,
            "evalset: {f}:6:259: nests flow collections ([...] or {{...}}) more than 255 levels "
            "deep, which no set needs and the reader does not take; write them shallower.",
        ),
        "deep-flow-mappings": (
            HEADER + "x: " + "{a: " * 300 + "1" + "}" * 300 + "\n",
            2,
            "evalset: {f}:6:1024: nests flow collections ([...] or {{...}}) more than 255 levels "
            "deep, which no set needs and the reader does not take; write them shallower.",
        ),
        "quoted-format-version": (
            HEADER.replace("evalset: 1", "evalset: '1'") + ITEM,
            1,
            "{f}:1:1: evalset: error: expected the number 1, got text ('1') (write it without "
            "quotes: `evalset: 1`)",
        ),
        "mapping-as-citation": (
            HEADER + ITEM.replace("expected_sources: [a.md#b]", "expected_sources: [{doc: a.md}]"),
            1,
            "{f}:9:24: item q-1: expected_sources[0]: error: expected a citation as text (`doc` "
            "or `doc#section`), got a mapping (write the citation as one piece of text)",
        ),
        "unknown-status": (
            HEADER + ITEM + "    status: done\n",
            1,
            "{f}:14:5: item q-1: status: error: text ('done') is not allowed; use one of "
            "'active', 'draft' or 'retired'",
        ),
    }
)


def _alias_bomb() -> str:
    text = "evalset: 1\nname: bomb\ncategories: {a: b}\nl0: &l0 [x,x,x,x,x,x,x,x,x,x]\n"
    for n in range(1, 10):
        text += f"l{n}: &l{n} [" + ",".join([f"*l{n - 1}"] * 10) + "]\n"
    return text


CASES["alias-bomb"] = (
    _alias_bomb(),
    2,
    "evalset: {f}: its YAML aliases expand to more than 100,000 nodes (an alias bomb?); "
    "write the values out instead of using aliases.",
)

# Every way of tagging a node: (where the tag goes, the tag as the message names it, its
# column). Most of them yaml-rs would drop without a word, or apply (``!!set``) or refuse
# quoting the value (``!!int``, which a holdout question must not reach a CI log by).
TAGGED = {
    "custom": ("question: !custom How long?", "!custom", 15),
    "non-specific": ("question: ! How long?", "!", 15),
    "verbatim": (
        "question: !<tag:yaml.org,2002:python/object> How long?",
        "!<tag:yaml.org,2002:python/object>",
        15,
    ),
    "binary": ("question: !!binary How long?", "!!binary", 15),
    "str": ("question: !!str How long?", "!!str", 15),
    "int-on-text": ("question: !!int How long?", "!!int", 15),
    "float-on-text": ("question: !!float How long?", "!!float", 15),
    "bool-on-text": ("question: !!bool How long?", "!!bool", 15),
    "null-on-text": ("question: !!null How long?", "!!null", 15),
    "timestamp": ("question: !!timestamp How long?", "!!timestamp", 15),
    "set": ("expected_sources: !!set {a.md#b}", "!!set", 23),
    "in-a-flow-list": ("expected_sources: [!x a.md#b]", "!x", 24),
    "after-an-anchor": ("question: &q !local How long?", "!local", 18),
    "on-a-key": ("!k question: How long?", "!k", 5),
}
for _name, (_tagged, _tag, _col) in TAGGED.items():
    _field = _tagged.split(":")[0].lstrip("!k ")
    _line = next(ln for ln in ITEM.splitlines() if ln.strip().startswith(_field + ":"))
    CASES[f"tag-{_name}"] = (
        HEADER + ITEM.replace(_line.strip(), _tagged),
        2,
        f"evalset: {{f}}:{7 if _field == 'question' else 9}:{_col}: uses the YAML tag {_tag!r}, "
        "which set files do not allow; remove the tag and write the value as plain text.",
    )
# and a "!" that tags nothing: in text, in a block scalar, in a comment
CASES["exclamation-marks-in-text"] = (
    HEADER
    + ITEM.replace("question: How long?", 'question: How long !now, "!" ![map](m.png)  # !c')
    + "    answer: |\n      !important\n      [x, !y]\n    # see: !x\n",
    0,
    "0 error(s), 1 warning(s) in 1 file(s)",
)


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_input_is_reported_in_one_located_sentence(name: str, tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    content, code, expected = CASES[name]
    path = tmp_path / f"{name}.yaml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    before = path.read_bytes()
    result = cli(tmp_path, "validate", path.name)
    assert result.code == code
    output = result.err if code == 2 else result.out
    lines = [ln for ln in output.splitlines() if ": warning: " not in ln]
    assert expected.format(f=path.name) in lines
    assert "Traceback" not in result.out + result.err
    assert path.read_bytes() == before


def test_alias_bomb_fails_fast_with_bounded_memory(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bomb.yaml"
    path.write_text(_alias_bomb(), encoding="utf-8")
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.monotonic()
    result = cli(tmp_path, "validate", "bomb.yaml")
    assert result.code == 2
    assert time.monotonic() - start < 5  # a hang would be minutes; 10**10 nodes otherwise
    grown_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
    assert grown_kb < 200_000


def test_json_output_of_an_unreadable_file_is_one_document(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    import json

    (tmp_path / "empty.yaml").write_text("", encoding="utf-8")
    result = cli(tmp_path, "validate", "empty.yaml", "--json")
    assert result.code == 2
    document = json.loads(result.out)
    assert document["exit_code"] == 2 and "is empty" in document["error"]


def test_a_folder_is_not_a_set_file(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "sets.yaml").mkdir()
    result = cli(tmp_path, "validate", "sets.yaml")
    assert result.code == 2
    assert result.err.strip() == (
        "evalset: sets.yaml: is a folder, not a set file; name a .yaml file in it."
    )


def test_missing_file(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    result = cli(tmp_path, "validate", "nope.yaml")
    assert result.code == 2
    assert result.err.strip() == "evalset: nope.yaml: no such file; check the path or the set name."


def test_a_100000_item_file_validates_without_hanging(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "large.yaml"
    items = "".join(
        ITEM.replace("q-1", f"q-{n}").replace("How long?", f"Question {n} about policy {n * 7}?")
        for n in range(100_000)
    )
    path.write_text(HEADER + items, encoding="utf-8")
    before = path.stat().st_mtime_ns
    result = cli(tmp_path, "validate", "large.yaml", "--json")
    assert result.code in (0, 1)
    assert "Traceback" not in result.err
    assert path.stat().st_mtime_ns == before


LONG = "n" * 300  # longer than a file name may be (255 bytes)
LONG_NAMES = {
    "validate": ("validate", LONG),
    "stale": ("stale", LONG),
    "pin": ("pin", LONG),
    "status": ("status", LONG),
    "export": ("export", LONG, "--format", "jsonl"),
    "a set path": ("validate", f"sets/{LONG}.yaml"),
    "a folder of the path": ("validate", f"{LONG}/x.yaml"),
    "a run": ("score", "retrieval", "acme-support", f"{LONG}.jsonl", "--allow-stale"),
    "a report": ("check-pin", f"{LONG}.json"),
    "a report to accept": ("accept", f"{LONG}.json"),
}


@pytest.mark.parametrize("case", list(LONG_NAMES))
def test_a_name_too_long_for_the_file_system_is_one_sentence(  # type: ignore[no-untyped-def]
    example: Path, cli, case: str
) -> None:
    done = cli(example, *LONG_NAMES[case])
    assert done.code == 2, done.err
    lines = done.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("evalset: "), done.err
    assert "internal error" not in done.err and "Traceback" not in done.out + done.err


@pytest.mark.parametrize("command", [["status"], ["init"], ["validate", "--json"], ["stale"]])
def test_a_current_folder_that_was_deleted_is_one_sentence(
    tmp_path: Path, command: list[str]
) -> None:
    """Before, `Path.cwd()` raised inside workspace discovery: an internal error, exit 3."""
    gone = tmp_path / "gone"
    gone.mkdir()
    script = (
        f"import os, sys; os.chdir({str(gone)!r}); os.rmdir({str(gone)!r}); "
        f"sys.argv = ['evalset', *{command!r}]; from evalset.cli import command; command()"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2, done.stderr
    assert "the current folder no longer exists" in (done.stderr + done.stdout)
    assert "internal error" not in done.stderr


def _value_options() -> list[tuple[list[str], str]]:
    """Every option of every command that takes one value: (command path, option)."""
    from evalset.cli.app import command

    found = []

    def walk(cmd: Any, path: list[str]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs:
            for name, sub in subs.items():
                walk(sub, [*path, name])
            return
        for param in cmd.params:
            if param.param_type_name == "option" and not param.is_flag and not param.multiple:
                found.append((path, max(param.opts, key=len)))

    walk(command(), [])
    return found


VALUE_OPTIONS = _value_options()


def _option(path: list[str], option: str) -> Any:
    from evalset.cli.app import command

    cmd = command()
    for name in path:
        cmd = cmd.commands[name]
    return next(p for p in cmd.params if option in p.opts)


@pytest.mark.parametrize(
    ("path", "option"), VALUE_OPTIONS, ids=[" ".join([*p, o]) for p, o in VALUE_OPTIONS]
)
def test_an_option_of_one_value_given_twice_is_refused(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, path: list[str], option: str
) -> None:
    """click would keep the second value and drop the first without a word (`split --move
    q-1 --move q-2` moved q-2 alone): each such option of each command refuses it."""
    shorts = [o for o in _option(path, option).opts if not o.startswith("--")]
    second = f"{shorts[0]}b" if shorts else f"{option}=b"  # -ob, as --o=b
    result = cli(tmp_path, *path, option, "a", second)
    assert result.code == 2
    assert result.out == ""
    named = f"{option} (as {shorts[0]})" if shorts else option
    assert result.err == (
        f"evalset: {named} was given twice, but takes one value: give it once; see "
        f"`evalset {' '.join(path)} --help`.\n"
    )
    assert list(tmp_path.iterdir()) == []
