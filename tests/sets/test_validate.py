"""The cross-item rules of `evalset validate`, each asserted by its message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import EXAMPLE_SET, SET_HEADER, commit_all, set_item, write_files
from evalset.config import ValidateConfig
from evalset.corpus.manifest import SnapshotStore
from evalset.corpus.snapshot import take_snapshot
from evalset.sets.setfile import load_set, parse_set
from evalset.sets.validate import check_set, holdout_baseline, validate

HEADER = """\
evalset: 1
name: rules
categories:
  direct-lookup: a fact stated in one section
  out-of-scope: the corpus cannot answer
items:
"""


def item(ident: str, question: str, **extra: str) -> str:
    lines = [
        f"  - id: {ident}",
        f"    question: {question}",
        f"    category: {extra.pop('category', 'direct-lookup')}",
    ]
    if "bare" not in extra:
        lines += [
            "    expected_sources: [policies/returns.md#damaged-items]",
            "    key_points:",
            "      - text: Damaged items can be returned within 30 days",
            f"        sources: [{extra.pop('source', 'policies/returns.md#damaged-items')}]",
        ]
    extra.pop("bare", None)
    lines += [f"    {key}: {value}" for key, value in extra.items()]
    return "\n".join(lines) + "\n"


def findings(text: str, minimum: int | None = None) -> list[str]:
    """The findings as printed; coverage warnings only when a minimum is given."""
    loaded = parse_set(text, Path("rules.yaml"))
    found = check_set(loaded, ValidateConfig(min_per_category=minimum or 0))
    return [str(f) for f in found if minimum is not None or f.rule != "coverage"]


def test_example_is_valid_and_only_warns_about_its_drafts() -> None:
    report = validate([EXAMPLE_SET])
    assert report.errors == []
    assert [f.rule for f in report.warnings] == ["draft", "draft"]
    assert str(report.warnings[1]).endswith(
        "item q-7b01e5d2: warning: draft still lacks a category, key points and expected sources "
        "before it can be made active (add them, set `status: active`, and record the check with "
        "`evalset verify`)"
    )


def test_active_answerable_item_needs_key_points_and_sources() -> None:
    text = HEADER + item("q-1", "How long for damaged items?", bare="1", holdout="true")
    assert findings(text) == [
        "rules.yaml:7:5: item q-1: error: an answerable item needs at least one of its key "
        "points (add `key_points:`, or mark it `answerable: false` if the corpus cannot "
        "answer it)",
        "rules.yaml:7:5: item q-1: error: an answerable item needs at least one of its "
        "expected sources (add `expected_sources:`, or mark it `answerable: false` if the "
        "corpus cannot answer it)",
    ]


def test_unanswerable_item_carries_no_key_points() -> None:
    text = HEADER + item(
        "q-1", "What is the weather tomorrow?", category="out-of-scope", answerable="false"
    )
    assert (
        "rules.yaml:10:5: item q-1: expected_sources: error: an item with `answerable: false` "
        "carries no expected sources (it is scored by whether the system declines; remove them)"
    ) in findings(text)


def test_key_point_source_outside_expected_sources_is_a_warning() -> None:
    text = HEADER + item("q-1", "How long for damaged items?", source="policies/shipping.md")
    assert findings(text) == [
        "rules.yaml:13:19: item q-1: key_points[0].sources[0]: warning: policies/shipping.md "
        "is not among the item's expected_sources (add it to expected_sources, or cite one "
        "that is)"
    ]


def test_a_document_level_expected_source_covers_its_sections() -> None:
    text = (HEADER + item("q-1", "How long for damaged items?")).replace(
        "expected_sources: [policies/returns.md#damaged-items]",
        "expected_sources: [policies/returns.md]",
    )
    assert findings(text) == []


def test_must_not_say_equal_to_a_key_point_is_an_error() -> None:
    text = HEADER + item(
        "q-1",
        "How long for damaged items?",
        must_not_say="['damaged ITEMS can be returned within 30 days.']",
    )
    assert findings(text) == [
        "rules.yaml:14:20: item q-1: must_not_say[0]: error: the same statement is also a key "
        "point, so no answer can pass (remove it from one of the two lists)"
    ]


def test_drafts_may_be_incomplete_but_are_told_what_they_lack() -> None:
    text = HEADER + "  - id: d-1\n    question: Where is my parcel?\n    status: draft\n"
    assert findings(text) == [
        "rules.yaml:7:5: item d-1: warning: draft still lacks a category, key points and "
        "expected sources before it can be made active (add them, set `status: active`, and "
        "record the check with `evalset verify`)"
    ]
    one = item("d-2", "Where is my parcel?").replace("    category: direct-lookup\n", "")
    (finding,) = findings(HEADER + one.replace("  - id: d-2\n", "  - id: d-2\n    status: draft\n"))
    assert "draft still lacks a category before it can be made active (add it, set" in finding


def test_active_item_without_category_is_an_error() -> None:
    text = HEADER + item("q-1", "How long?").replace("    category: direct-lookup\n", "")
    assert (
        "rules.yaml:7:5: item q-1: error: an active item needs a category (add `category:` "
        "with one of ['direct-lookup', 'out-of-scope'])"
    ) in findings(text)


def test_near_duplicates_warn_within_a_split_and_fail_across_splits() -> None:
    text = (
        HEADER
        + item("q-1", "How long do I have to return a damaged item?", holdout="false")
        + item("q-2", "how long do i have to return a DAMAGED item", holdout="false")
        + item("q-3", "How long do I really have to return a damaged item?", holdout="true")
    )
    assert findings(text) == [
        "rules.yaml:16:5: item q-2: question: warning: near duplicate of item 'q-1' (merge "
        "them, or reword one so each tests something different)",
        "rules.yaml:24:5: item q-3: question: error: near duplicate of items 'q-1' and 'q-2', "
        "which are tuning while this one is holdout: the holdout question has leaked (reword "
        "or retire this one, or put them all on the same side)",
    ]


def test_retired_items_are_exempt_from_completeness_and_duplicates() -> None:
    text = (
        HEADER
        + item("q-1", "How long do I have to return a damaged item?")
        + item("q-2", "How long do I have to return a damaged item?", bare="1", status="retired")
    )
    assert findings(text) == []


def test_coverage_warnings() -> None:
    text = HEADER + item("q-1", "How long for damaged items?", holdout="false")
    assert findings(text, minimum=1) == [
        "rules.yaml:4:3: categories.direct-lookup: warning: category 'direct-lookup' has no "
        "active holdout item, so tuning on it cannot be checked (add items of this kind and "
        "run `evalset split` (it gives a side only to items without one), or move an item the "
        "tuners have not seen with `evalset split rules --move ID --to holdout --force "
        "--reason ...` (a holdout draft counts once it is active))",
        "rules.yaml:5:3: categories.out-of-scope: warning: category 'out-of-scope' has 0 active "
        "item(s), fewer than the 1 wanted (add items of this kind)",
    ]


def test_a_repeated_bad_citation_is_reported_wherever_it_stands(corpus_repo: Path) -> None:
    """Citations are resolved once per snapshot, and each place that cites a bad one still
    gets its error (items repeat their citations: expected sources and key points)."""
    write_files(corpus_repo, {"corpus/policy.md": "# Policy\n\n## Returns\n\nWithin 14 days.\n"})
    snap = take_snapshot(corpus_repo, "corpus", corpus_repo / "snapshots", corpus_repo / ".evalset")
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(
        SET_HEADER
        + set_item("a", "policy.md#return", "policy.md#returns", verified=snap.short)
        + set_item("b", "policy.md#return", verified=snap.short)
    )
    found = check_set(load_set(path), ValidateConfig(min_per_category=0), SnapshotStore(
        corpus_repo / "snapshots"))  # fmt: skip
    errors = [(f.item, f.field, f.rule) for f in found if f.severity == "error"]
    assert errors == [
        ("a", "expected_sources[0]", "citation"),
        ("a", "key_points[0].sources[0]", "citation"),
        ("b", "expected_sources[0]", "citation"),
        ("b", "key_points[0].sources[0]", "citation"),
    ]


def test_a_set_unchanged_since_its_commit_is_its_own_holdout_baseline(corpus_repo: Path) -> None:
    """The baseline of holdout flags is the committed text: when the file still holds it,
    the loaded set serves (no second parse); once edited, the committed text is parsed."""
    path = corpus_repo / "sets" / "docs.yaml"
    path.write_text(SET_HEADER + set_item("a", "policy.md#returns") + "    holdout: true\n")
    commit_all(corpus_repo, "set")
    loaded = load_set(path)
    found = holdout_baseline(path, "docs", loaded)
    assert found is not None and found.set is loaded and found.label == "HEAD"
    path.write_text(path.read_text().replace("holdout: true", "holdout: false"))
    edited = load_set(path)
    found = holdout_baseline(path, "docs", edited)
    assert found is not None and found.set is not edited and found.set.items[0].holdout is True
    flips = [f for f in check_set(edited, baseline=found) if f.rule == "holdout-move"]
    assert [f.message for f in flips] == ["moved from holdout to tuning since HEAD without a "
                                          "recorded move"]  # fmt: skip


MIXED = [
    HEADER + item("q-1", "How long for damaged items?", holdout="false"),
    HEADER + "  - id: d-1\n    question: Where is my parcel?\n    status: draft\n",
    HEADER + item("q-1", "How long?").replace("    category: direct-lookup\n", ""),
    HEADER
    + item("q-1", "How long do I have to return a damaged item?", holdout="false")
    + item("q-2", "how long do i have to return a DAMAGED item", holdout="false")
    + item("q-3", "How long do I really have to return a damaged item?", holdout="true")
    + item("q-4", "Where?", must_not_say="['damaged ITEMS can be returned within 30 days.']")
    + item("q-5", "Which key?", source="policies/other.md#x", unknown_key="1")
    + item("q-1", "A repeated id?"),
]


def test_errors_only_finds_exactly_the_errors_of_a_full_check() -> None:
    """What a command that refuses an invalid set asks for: the same errors, in the same
    order and at the same positions, without the warnings."""
    for text in MIXED:
        loaded = parse_set(text, Path("rules.yaml"))
        config = ValidateConfig(min_per_category=1)
        every = check_set(loaded, config)
        assert any(f.severity == "warning" for f in every)
        wanted = [str(f) for f in every if f.severity == "error"]
        again = parse_set(text, Path("rules.yaml"))  # positions found afresh
        assert [str(f) for f in check_set(again, config, errors_only=True)] == wanted
    last = check_set(parse_set(MIXED[-1], Path("rules.yaml")), ValidateConfig(), errors_only=True)
    assert len(last) == 4  # a leak, a must_not_say key point, an unknown key, a repeated id


def test_questions_too_many_to_compare_are_named_and_copies_still_leak(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Past MAX_BUCKET distinct look-alikes validation says it did not compare them; any
    number of identical questions is still compared (a copied holdout question leaks)."""
    from evalset.sets import neardup

    monkeypatch.setattr(neardup, "MAX_BUCKET", 3)
    filler = "".join(
        f"  - id: f-{i:03d}\n    question: filler question {i} about item x{i}\n    status: draft\n"
        for i in range(neardup.PAIRWISE_BELOW)
    )
    alike = "".join(
        item(f"t-{c}", f"What is the warranty period for the {c} model sold here?")
        for c in ("red", "blue", "green", "black")
    )
    copies = "".join(  # more copies than MAX_BUCKET, the last one held out
        item(f"c-{k}", "Where do I send a broken kettle back to?", holdout=str(k == 5).lower())
        for k in range(1, 6)
    )
    found = [f for f in findings(HEADER + filler + alike + copies) if "draft" not in f]
    line = (HEADER + filler).count("\n") + 2  # t-red's question
    assert [f for f in found if "item t-" in f] == [
        f"rules.yaml:{line}:5: item t-red: question: warning: 4 questions "
        "share all but a word or two with this one (items t-blue, t-green, t-black, …): too "
        "many to compare one by one, so near duplicates among them, holdout leaks included, "
        "were not looked for (reword them apart, or split the set)"
    ]
    leaked = "item c-5: question: error: near duplicate of items 'c-1', 'c-2', 'c-3' and 'c-4'"
    assert any(leaked in f for f in found)


def test_a_set_in_the_sets_folder_is_named_as_its_file(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Before, a set named `docs` in sets/support.yaml passed: `release support` tagged it
    `docs`, and `check-pin` of its pin, which looks the name up, found no such set. (A file
    elsewhere, not looked up by name, may be named as it likes.)"""
    write_files(corpus_repo, {"corpus/terms.txt": "Terms.\n"})
    text = SET_HEADER + set_item("q-1", "terms.txt")
    (corpus_repo / "sets" / "support.yaml").write_text(text)
    result = cli(corpus_repo, "validate", "support")
    assert result.code == 1
    assert "name: error: the set is named 'docs', but its file 'support.yaml'" in result.out
    assert "rename the file to docs.yaml, or set `name: support`" in result.out
    elsewhere = corpus_repo / "drafts" / "support.yaml"
    elsewhere.parent.mkdir()
    elsewhere.write_text(text)
    assert "is named 'docs'" not in cli(corpus_repo, "validate", str(elsewhere)).out


@pytest.mark.parametrize("blank", ["' '", "'\\n'", "'\\t \\u3000'"])
def test_a_question_of_white_space_only_is_an_error(blank: str) -> None:
    """Before, a set item (and so an imported row) could ask "   ": nothing, under the id
    every other blank question gets."""
    text = SET_HEADER + set_item("q-1", "a.md").replace(
        "question: Question q-1 about the policy?", f'question: "{blank[1:-1]}"'
    )
    loaded = parse_set(text, Path("sets/docs.yaml"))
    assert any("holds only white space" in f.message for f in loaded.schema_findings)


BLANKS = {"spaces": " ", "line break": "\n", "tab and ideographic space": "\t \u3000",
          "NEL": "\x85", "line separator": "\u2028"}  # fmt: skip
"""Texts of white space only, as Python's ``str.split`` (and so every rule) takes them."""
STATES_NOTHING = "holds only white space, which states nothing; write the text or remove it"
LABELS = {
    "key point": ("      - text: The fact q-1 asks about\n", "      - text: {}\n",
                  "11:9", "key_points[0].text"),
    "must_not_say": ("", "    must_not_say: [x, {}]\n", "13:23", "must_not_say[1]"),
    "answer": ("", "    answer: {}\n", "13:5", "answer"),
}  # fmt: skip
"""Where each label is written in ``set_item("q-1", "a.md")`` (replacing the text, or after
it), and the place and field path of its finding."""


def with_label(label: str, value: str) -> str:
    """A set whose item q-1 has ``label`` written as ``value`` (YAML text)."""
    old, new, _, _ = LABELS[label]
    item = set_item("q-1", "a.md")
    item = item.replace(old, new.format(value)) if old else item + new.format(value)
    return SET_HEADER + item


@pytest.mark.parametrize("blank", BLANKS.values(), ids=list(BLANKS))
@pytest.mark.parametrize("label", LABELS)
def test_a_label_of_white_space_only_is_an_error(label: str, blank: str) -> None:
    """Before, a key point, must_not_say entry or short answer of white space only was
    valid, and exported as a check every answer passes (``icontains " "``)."""
    loaded = parse_set(with_label(label, json.dumps(blank)), Path("sets/docs.yaml"))
    _, _, place, field = LABELS[label]
    assert [str(f) for f in loaded.schema_findings] == [
        f"sets/docs.yaml:{place}: item q-1: {field}: error: {STATES_NOTHING}"
    ]


def test_labels_with_text_around_white_space_are_valid() -> None:
    for label in LABELS:
        loaded = parse_set(with_label(label, json.dumps(" 30\tdays\n")), Path("sets/docs.yaml"))
        assert loaded.schema_findings == []


def test_a_label_of_white_space_only_is_refused_by_an_edit(example: Path) -> None:
    from evalset.errors import EditRefused
    from evalset.sets.editor import edit_set

    path = example / EXAMPLE_SET.relative_to(EXAMPLE_SET.parents[1])
    before = path.read_bytes()
    point = {"text": "\n", "sources": ["policies/returns.md"]}
    for fields in ({"answer": " "}, {"must_not_say": ["\t"]}, {"key_points": [point]}):
        with pytest.raises(EditRefused, match=STATES_NOTHING), edit_set(path) as editor:
            editor.update_item("q-001", fields)
        assert path.read_bytes() == before


def test_a_set_is_validated_once_and_may_not_have_a_twin(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Before, `validate docs sets/docs.yaml` printed each finding twice ("in 2 file(s)"),
    and a copy sets/docs.yml, which no name reaches, passed and shared the set's tags."""
    write_files(corpus_repo, {"corpus/terms.txt": "Terms.\n"})
    text = SET_HEADER + set_item("q-1", "terms.txt")
    (corpus_repo / "sets" / "docs.yaml").write_text(text)
    once = cli(corpus_repo, "validate", "docs")
    twice = cli(corpus_repo, "validate", "docs", "sets/docs.yaml", "./sets/docs.yaml")
    assert twice.out == once.out and "in 1 file(s)" in once.out
    (corpus_repo / "sets" / "docs.yml").write_text(text)
    result = cli(corpus_repo, "validate", "docs")
    assert result.code == 1 and "docs.yml beside it names a set docs too" in result.out


SEALED_STUB = """\
  - id: q-sealed
    category: direct-lookup
    holdout: {holdout}
    sealed:
      fingerprint: sha256:0000000000000000000000000000000000000000000000000000000000000000
      fingerprint_format: {fingerprint_format}
      recipients:
        - age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p
      age: |
        -----BEGIN AGE ENCRYPTED FILE-----
        YWdlLWVuY3J5cHRpb24ub3JnL3YxCi0+IFgyNTUxOSBub3QgYSByZWFsIGtleQo=
        -----END AGE ENCRYPTED FILE-----
"""


def _numbered(evalset: str = "1", holdout: str = "true", fingerprint_format: str = "2") -> str:
    header = HEADER.replace("name: rules", "name: small").replace(
        "evalset: 1", f"evalset: {evalset}"
    )
    return header + SEALED_STUB.format(holdout=holdout, fingerprint_format=fingerprint_format)


# A number or true/false of the format taken for another of equal value by pydantic's lax
# mode: (the set text, the field at fault, the message).
SEALED = "a sealed item is a holdout item"
LAX_VALUES = {
    "evalset-true": (
        _numbered(evalset="true"),
        "evalset",
        "true/false (true) is not allowed; use 1",
    ),
    "evalset-false": (
        _numbered(evalset="false"),
        "evalset",
        "true/false (false) is not allowed; use 1",
    ),
    "evalset-float": (_numbered(evalset="1.0"), "evalset", "a number (1.0) is not allowed; use 1"),
    "evalset-text": (_numbered(evalset='"1"'), "evalset", "expected the number 1, got text ('1')"),
    "holdout-one": (_numbered(holdout="1"), "holdout", f"a number (1) is not allowed: {SEALED}"),
    "holdout-float": (
        _numbered(holdout="1.0"),
        "holdout",
        f"a number (1.0) is not allowed: {SEALED}",
    ),
    "format-true": (
        _numbered(fingerprint_format="true"),
        "sealed.fingerprint_format",
        "true/false (true) is not allowed; use one of 1 or 2",
    ),
    "format-float": (
        _numbered(fingerprint_format="2.0"),
        "sealed.fingerprint_format",
        "a number (2.0) is not allowed; use one of 1 or 2",
    ),
}


@pytest.mark.parametrize(("text", "field", "message"), LAX_VALUES.values(), ids=LAX_VALUES.keys())
def test_a_value_equal_to_the_format_s_but_of_another_type_is_refused(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, text: str, field: str, message: str
) -> None:
    write_files(corpus_repo, {"sets/small.yaml": text})
    commit_all(corpus_repo, "set")
    findings = [f for f in load_set(corpus_repo / "sets" / "small.yaml").schema_findings]
    assert [(f.severity, f.field, f.message) for f in findings] == [("error", field, message)]
    checked = cli(corpus_repo, "validate", "--json")
    assert checked.code == 1
    report = json.loads(checked.out)
    assert [(f["field"], f["message"]) for f in report["findings"] if f["severity"] == "error"] == [
        (field, message)
    ]
    shown = json.loads(cli(corpus_repo, "status", "--json").out)["sets"][0]
    assert shown["errors"] == report["errors"] == 1
    line = cli(corpus_repo, "validate").out.splitlines()[0]
    assert line.startswith("sets/small.yaml:") and f": {field}: error: {message}" in line


# A list field written as one value: the hint writes it as a list, with the value where it
# reads back as one entry, and never quotes a holdout item's label (findings reach CI logs).
NOT_LISTS = {
    "a citation": ("expected_sources: policies/returns.md#damaged-items", "false",
                   "write it as a list: `expected_sources: [policies/returns.md#damaged-items]`, "
                   "or one `- ` entry per line under it"),
    "text that would not read back as one entry": (
        "tags: returns, refunds", "false",
        "write it as a list: `tags: […]`, or one `- ` entry per line under it"),
    "a number": ("tags: 7", "false",
                 "write it as a list: `tags: […]`, or one `- ` entry per line under it"),
    "a holdout item's label": (
        "must_not_say: you have 30 days", "true",
        "write it as a list: `must_not_say: […]`, or one `- ` entry per line under it"),
}  # fmt: skip


@pytest.mark.parametrize(("line", "holdout", "hint"), NOT_LISTS.values(), ids=NOT_LISTS.keys())
def test_one_value_where_a_list_goes_is_told_how_to_write_the_list(
    line: str, holdout: str, hint: str
) -> None:
    key = line.split(":", 1)[0]
    text = HEADER + item("q-1", "How long is the return window?", holdout=holdout)
    text = text.replace(
        "    expected_sources: [policies/returns.md#damaged-items]\n", ""
    ) if key == "expected_sources" else text  # fmt: skip
    found = [f for f in parse_set(text + f"    {line}\n", Path("r.yaml")).schema_findings]
    assert [f.hint for f in found if f.field == key] == [hint]
    if holdout == "true":
        assert "30 days" not in str(found)


ITEM_FIELDS = (
    "id, question, category, answerable, expected_sources, key_points, must_not_say, answer, "
    "holdout, holdout_moves, status, verified, origin, tags"
)
UNKNOWN_FIELDS = {
    # the field written, and the hint: a typo's field, else the fields the place takes
    "questoin": "did you mean 'question'?",
    "keypoints": "did you mean 'key_points'?",
    "tag": "did you mean 'tags'?",
    "state": "did you mean 'status'?",
    "colour": f"remove it; the fields here are {ITEM_FIELDS}",  # not a typo of 'holdout'
    "notes": f"remove it; the fields here are {ITEM_FIELDS}",
    "owner": f"remove it; the fields here are {ITEM_FIELDS}",
}


@pytest.mark.parametrize("name", UNKNOWN_FIELDS)
def test_an_unknown_field_is_told_what_to_write_instead(name: str) -> None:
    (found,) = findings(HEADER + item("q-1", "Can I return it?", **{name: "red"}))
    assert found.endswith(f"unknown field {name!r} ({UNKNOWN_FIELDS[name]})"), found


def test_drafts_with_no_question_yet_are_no_near_duplicates() -> None:
    """`evalset new` without --question writes the placeholder: before, such drafts were
    near duplicates of each other (and one on either side of the holdout, a leak)."""
    from evalset.sets.model import PLACEHOLDER

    text = (
        HEADER
        + item("q-1", f'"{PLACEHOLDER}"', bare="1", status="draft", holdout="true")
        + item("q-2", f'"{PLACEHOLDER}"', bare="1", status="draft", holdout="false")
    )
    assert not [f for f in findings(text) if "near duplicate" in f]


def test_ids_that_differ_only_in_case_are_a_warning() -> None:
    text = HEADER + item("Q-003", "How long is the return window?")
    text += item("q-003", "Can I return a gift card?") + item("q-003", "Do you ship to Iceland?")
    found = findings(text)
    assert found == [
        "rules.yaml:14:5: item q-003: id: warning: id 'q-003' differs only in case from the id "
        "of another item at line 7: a tool that compares ids without case (a spreadsheet's "
        "lookup, say) takes the two for one (give this item an id no other item has in any case)",
        "rules.yaml:21:5: item q-003: id: error: id 'q-003' is used by another item (first used "
        "at line 14) (give this item a new id)",
    ]


SEEN = "How long do I have to return a damaged item?"
RETIRED_PAIRS = {
    # (retired item's side, the other's side, the other retired too): the findings
    "retired-tuning-then-holdout": ("false", "true", False, ["leak"]),
    "holdout-then-retired-tuning": ("false", "true", False, ["leak"]),
    "retired-holdout-live-tuning": ("true", "false", False, []),
    "retired-tuning-live-tuning": ("false", "false", False, []),
    "retired-tuning-retired-holdout": ("false", "true", True, []),
    "retired-unassigned-live-holdout": (None, "true", False, []),
}


@pytest.mark.parametrize(
    ("retired", "other", "both", "wanted"), RETIRED_PAIRS.values(), ids=RETIRED_PAIRS.keys()
)
def test_a_retired_tuning_item_still_counts_as_seen_for_leakage(  # type: ignore[no-untyped-def]
    request, retired: str | None, other: str, both: bool, wanted: list[str]
) -> None:
    """Before, retired items were left out of the leakage check: a holdout question that
    repeats a retired tuning one (seen by the people tuning prompts while it was active) was
    clean, and the leak's hint offered retiring the tuning copy as its fix. The editor's
    check agrees: appending such a holdout item is refused."""
    from evalset.errors import EditRefused
    from evalset.sets.editor import edit_set

    sides = {"holdout": retired} if retired is not None else {}
    gone = item("q-1", SEEN, bare="1", status="retired", **sides)
    extra = {"status": "retired"} if both else {}
    live = item("q-2", SEEN.replace("How long", "how long"), holdout=other, **extra)
    first_holdout = request.node.callspec.id.startswith("holdout-then")
    text = HEADER + (live.replace("q-2", "q-1") + gone.replace("q-1", "q-2")
                     if first_holdout else gone + live)  # fmt: skip
    held, seen = ("q-1", "q-2") if first_holdout else ("q-2", "q-1")
    found = findings(text)
    if wanted:
        assert (
            len(found) == 1
            and f"item {held}: question: error: near duplicate of item " in (found[0])
        )
        assert (
            f"{seen!r}, a retired tuning item, which the people tuning prompts have seen"
            in (found[0])
        )
        assert f"`evalset split rules --move {held} --to tuning --force`" in found[0]
        assert "retire one of them" not in found[0]
    else:
        assert found == []
    # the editor refuses to append what validate finds a leak, and only that
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "rules.yaml"
        path.write_text(HEADER + gone)
        appended = parse_set(HEADER + live, Path("x.yaml")).items
        if wanted and not first_holdout:
            refused = pytest.raises(EditRefused, match="holdout question would leak")
            with refused, edit_set(path) as editor:
                editor.append_items(appended)
        elif not first_holdout:
            with edit_set(path) as editor:
                editor.append_items(appended)


def _template(n: int) -> str:
    return f"How long do I have to return damaged item number {n} of kind {n * 31 % 977}?"


NEAR_GROUPS = [
    # (items as (id, question number, fields), the near-duplicate findings: one per question
    # and kind, naming every earlier (or, for a retired tuning item, every) question it nears)
    (
        [(f"e-{n:02d}", n, {"holdout": "false"}) for n in range(1, 13)],
        [("e-02", "warning", "near duplicate of item 'e-01'")]
        + [
            (f"e-{n:02d}", "warning", f"near duplicate of items {names}")
            for n, names in [
                (3, "'e-01' and 'e-02'"),
                (6, "'e-01', 'e-02', 'e-03', 'e-04' and 'e-05'"),
                (12, "'e-01', 'e-02', 'e-03', 'e-04', 'e-05' and 6 more"),
            ]
        ],
    ),
    (
        [
            ("t-1", 1, {"holdout": "false"}),
            ("t-2", 2, {"holdout": "false"}),
            ("t-3", 3, {"holdout": "false"}),
            ("h-1", 4, {"holdout": "true"}),
        ],
        [
            (
                "h-1",
                "error",
                "near duplicate of items 't-1', 't-2' and 't-3', which are tuning "
                "while this one is holdout: the holdout question has leaked",
            )
        ],
    ),
    (
        [
            ("h-1", 1, {"holdout": "true"}),
            ("h-2", 2, {"holdout": "true"}),
            ("t-1", 3, {"holdout": "false"}),
        ],
        [
            ("h-2", "warning", "near duplicate of item 'h-1'"),
            (
                "t-1",
                "error",
                "near duplicate of items 'h-1' and 'h-2', which are holdout while "
                "this one is tuning: the holdout question has leaked",
            ),
        ],
    ),
    (
        [
            ("r-1", 1, {"holdout": "false", "status": "retired"}),
            ("r-2", 2, {"holdout": "false", "status": "retired"}),
            ("h-1", 3, {"holdout": "true"}),
        ],
        [
            (
                "h-1",
                "error",
                "near duplicate of items 'r-1' and 'r-2', retired tuning items, "
                "which the people tuning prompts have seen: the holdout question has leaked",
            )
        ],
    ),
]


@pytest.mark.parametrize(("items", "wanted"), NEAR_GROUPS)
def test_a_question_is_said_to_be_a_near_duplicate_once_per_kind(
    items: list[tuple[str, int, dict[str, str]]], wanted: list[tuple[str, str, str]]
) -> None:
    """Before, every pair was a finding of its own: a set written from a question template
    (1,500 items) gave 1,124,255 warnings, and a holdout question copied from three tuning
    ones three errors."""
    text = HEADER + "".join(item(i, _template(n), **dict(extra)) for i, n, extra in items)
    found = [f for f in check_set(parse_set(text, Path("rules.yaml")), ValidateConfig())
             if f.rule in ("near-duplicate", "leakage")]  # fmt: skip
    shown = [(f.item, f.severity, f.message) for f in found if f.item in {w[0] for w in wanted}]
    assert sorted(shown) == sorted(wanted)
    assert len(found) == len({f.item for f in found})  # one per question (and kind)
