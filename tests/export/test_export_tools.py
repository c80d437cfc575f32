"""Exports scored the way the labels say: every key point required, unanswerable items in a
form each tool scores, ids and categories on every row the format allows.

Each tool's documented semantics are mirrored here, and, where the tool itself is installed,
the tool's own classes read the export too. Ragas, DeepEval and OpenAI Evals are not in the
dev extras (their dependency stacks take hundreds of MB and, together with ours, minutes of
pip's resolver); `.ci/run` installs them after the dev extras (OpenAI Evals without the
gigabytes of dependencies its classify eval never imports), so CI runs those loads. promptfoo
(from npm, which `.ci/run` installs too) runs the promptfoo export end to end.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_export import ESCAPED, changed_texts, export_file, long_text_tests, long_texts

from conftest import ROOT
from evalset.export.view import DECLINES
from evalset.sets.setfile import load_set
from fake_openai import FakeServer

EXAMPLE = load_set(ROOT / "sets" / "acme-support.yaml")
BY_ID = {item.id: item for item in EXAMPLE.items}
EXPORTED = {i.id for i in EXAMPLE.items if i.status == "active" and i.holdout is not None}
UNANSWERABLE = {i for i in EXPORTED if not BY_ID[i].answerable}
SEVERAL_POINTS = {i for i in EXPORTED if len(BY_ID[i].key_points) > 1}


def test_the_example_has_the_cases() -> None:
    assert UNANSWERABLE and SEVERAL_POINTS


# OpenAI Evals


def includes(sample: dict[str, Any], completion: str) -> bool:
    """evals.elsuite.basic.includes.Includes.eval_sample: passes when the completion
    contains any one of the ideal answers (a string is a list of one)."""
    ideal = sample["ideal"] if isinstance(sample["ideal"], list) else [sample["ideal"]]
    return any(completion.rfind(ref) != -1 for ref in ideal)


def test_a_list_ideal_would_pass_an_answer_with_one_key_point_of_several() -> None:
    """Why the export does not write the key points as `ideal`: the documented semantics."""
    item = BY_ID[sorted(SEVERAL_POINTS)[0]]
    as_list = {"ideal": [p.text for p in item.key_points]}
    assert includes(as_list, f"Sure. {item.key_points[0].text}.")


def test_openai_samples_require_every_key_point(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    samples = [
        json.loads(line) for line in export_file(cli, tmp_path, "openai").read_text().splitlines()
    ]
    assert {s["metadata"]["evalset_id"] for s in samples} == EXPORTED  # unanswerable included
    for sample in samples:
        item = BY_ID[sample["metadata"]["evalset_id"]]
        assert sample["metadata"]["category"] == item.category
        criteria = sample["criteria"]
        for n, point in enumerate(item.key_points, 1):
            assert f"({n}) {point.text}" in criteria
        for wrong in item.must_not_say:
            assert wrong in criteria
        if item.answerable:
            assert "If any of them is missing, the criterion is not met." in criteria
        else:
            assert "declines to answer" in criteria
        # `ideal` is a single short answer or absent: never "any one of several".
        assert sample.get("ideal", item.answer) == item.answer
        if "ideal" in sample:
            assert isinstance(sample["ideal"], str)


CLOSEDQA_FIELDS = {"input", "completion", "criteria"}
"""The fields of the `closedqa` spec's prompt (evals/registry/modelgraded/closedqa.yaml)."""


def test_openai_samples_fill_the_closedqa_prompt(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """ModelBasedClassify formats the spec's prompt with the sample's own keys and the
    completion: every field the prompt names must be there."""
    for line in export_file(cli, tmp_path, "openai").read_text().splitlines():
        sample = json.loads(line)
        assert CLOSEDQA_FIELDS - {"completion"} <= set(sample)
        assert isinstance(sample["criteria"], str) and sample["criteria"]


def test_openai_samples_with_the_evals_classes(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """With OpenAI Evals installed: its own ModelBasedClassify runs the closedqa spec on the
    exported samples, with a stand-in grader that applies the criterion word for word. An
    answer with one key point of several scores 0, one with all of them 1."""
    os.environ.setdefault("OPENAI_API_KEY", "unused-offline")  # evals builds a client on import
    pytest.importorskip("evals")
    import random

    from evals.api import CompletionResult
    from evals.base import RunSpec
    from evals.elsuite.modelgraded.classify import ModelBasedClassify
    from evals.record import RecorderBase

    class Result(CompletionResult):
        def __init__(self, text: str) -> None:
            self.text = text

        def get_completions(self) -> list[str]:
            return [self.text]

    class Grader:
        """Says Y when every numbered fact of the criterion is in the submission."""

        def __call__(self, prompt: Any, **kwargs: Any) -> Result:
            text = prompt if isinstance(prompt, str) else prompt[-1]["content"]
            submission = text.split("[Submission]:", 1)[1].split("***", 1)[0]
            criterion = text.split("[Criterion]:", 1)[1].split("***", 1)[0]
            facts = criterion.split("in any words:", 1)[1].split(". If any", 1)[0]
            wanted = [f.split(") ", 1)[1].strip(" ;") for f in facts.split("(")[1:]]
            return Result("Y" if all(w in submission for w in wanted) else "N")

    class Answer:
        def __init__(self, text: str) -> None:
            self.text = text

        def __call__(self, prompt: Any, **kwargs: Any) -> Result:
            return Result(self.text)

    samples = [
        json.loads(line) for line in export_file(cli, tmp_path, "openai").read_text().splitlines()
    ]
    sample = next(s for s in samples if s["metadata"]["evalset_id"] in SEVERAL_POINTS)
    points = [p.text for p in BY_ID[sample["metadata"]["evalset_id"]].key_points]
    scores = {}
    for label, answer in (("one", points[0]), ("all", " ".join(points))):
        classify = ModelBasedClassify(
            completion_fns=[Answer(answer), Grader()],
            eval_registry_path=Path("."),
            name="acme.dev.v0",
            modelgraded_spec="closedqa",
            eval_type="classify",
        )
        recorder = RecorderBase(
            RunSpec(["answer", "grader"], "acme.dev.v0", "acme", "dev", {}, "test")
        )
        with recorder.as_default_recorder("s-1"):
            choice = classify.eval_sample(json.loads(json.dumps(sample)), random.Random(0))
        scores[label] = (choice, recorder.get_metrics()[-1]["score"])
    assert scores == {"one": ("N", 0.0), "all": ("Y", 1.0)}


# Ragas


def test_ragas_rows_carry_ids_and_score_unanswerable_items(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    text = export_file(cli, tmp_path, "ragas").read_text()
    rows = [json.loads(line) for line in text.splitlines()]
    assert {r["evalset_id"] for r in rows} == EXPORTED
    for row in rows:
        item = BY_ID[row["evalset_id"]]
        assert (row["category"], row["answerable"]) == (item.category, item.answerable)
        assert row["split"] == ("holdout" if item.holdout else "tuning")
        assert row["reference"]  # never NaN for lack of a reference
        if item.answerable:
            for point in item.key_points:
                assert point.text.rstrip(".") in row["reference"]
        else:
            assert row["reference"] == DECLINES
            assert row["reference_contexts"] == [] and row["reference_context_ids"] == []


def _load_elsewhere(module: str, script: str, path: Path) -> Any:
    """What ``script`` prints as JSON, run on ``path`` in a Python process of its own, when
    ``module`` is installed. The tools start threads when they are imported (a telemetry
    flush loop); in this process, that would stop every later test from forking work aside."""
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")
    env = {**os.environ, "RAGAS_DO_NOT_TRACK": "true", "DEEPEVAL_TELEMETRY_OPT_OUT": "YES"}
    done = subprocess.run(
        [sys.executable, "-c", script, str(path)], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


RAGAS_LOAD = """
import json, sys
from ragas import EvaluationDataset
dataset = EvaluationDataset.from_jsonl(sys.argv[1])
print(json.dumps({"n": len(dataset), "references": [s.reference for s in dataset.samples]}))
"""


def test_ragas_reads_the_export(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    found = _load_elsewhere("ragas", RAGAS_LOAD, export_file(cli, tmp_path, "ragas"))
    assert found["n"] == len(EXPORTED)
    assert all(found["references"])


# DeepEval


def test_deepeval_goldens_carry_ids_and_score_unanswerable_items(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    goldens = json.loads(export_file(cli, tmp_path, "deepeval").read_text())
    assert {g["name"] for g in goldens} == EXPORTED
    for golden in goldens:
        item = BY_ID[golden["name"]]
        assert golden["custom_column_key_values"] == {
            "evalset_id": item.id,
            "category": item.category,
            "split": "holdout" if item.holdout else "tuning",
        }
        assert golden["additional_metadata"]["evalset_id"] == item.id
        # What MissingTestCaseParamsError checks: none of them is None.
        assert golden["expected_output"] is not None and golden["context"] is not None
        if not item.answerable:
            assert golden["expected_output"] == DECLINES and golden["context"] == []
        else:
            for point in item.key_points:
                assert point.text.rstrip(".") in golden["expected_output"]


DEEPEVAL_LOAD = """
import json, sys
from deepeval.dataset import EvaluationDataset
from deepeval.test_case import LLMTestCase
dataset = EvaluationDataset()
dataset.add_goldens_from_json_file(sys.argv[1])
cases = [
    LLMTestCase(input=g.input, actual_output="an answer", expected_output=g.expected_output,
                context=g.context)
    for g in dataset.goldens
]
print(json.dumps([[g.name, c.expected_output is not None and c.context is not None]
                  for g, c in zip(dataset.goldens, cases)]))
"""


def test_deepeval_reads_the_export(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    found = _load_elsewhere("deepeval", DEEPEVAL_LOAD, export_file(cli, tmp_path, "deepeval"))
    assert {name for name, _ in found} == EXPORTED
    assert all(complete for _, complete in found)  # every case has what its metrics need


# promptfoo


PROVIDER = """
const answers = require('./answers.json');
module.exports = class {
  constructor(options) { this.style = options.config.style; }
  id() { return this.style; }
  async callApi(prompt, context) { return { output: answers[this.style][context.vars.question] }; }
};
"""

DECLINE = "I don't know: the documents do not cover that."
STYLES = ("complete", "drops-a-point", "says-the-wrong-thing", "declines", "guesses")
GUESS = "Yes, you can, at no cost."


def _promptfoo() -> str:
    """The promptfoo program: ``$EVALSET_PROMPTFOO`` (set by `.ci/run`) or on the PATH."""
    found = os.environ.get("EVALSET_PROMPTFOO") or shutil.which("promptfoo")
    if not found:
        if os.environ.get("CI"):
            pytest.fail("promptfoo is missing: .ci/run installs it with npm")
        pytest.skip("promptfoo is not installed (`.ci/run` installs it with npm)")
    return found


def _answer(item: Any, style: str) -> str:
    """What a system answering in ``style`` says to ``item``'s question: ``guesses`` answers
    every question, the others decline an unanswerable one."""
    if not item.answerable:
        if style != "guesses":
            return DECLINE
        return f"{item.must_not_say[0]}." if item.must_not_say else GUESS
    if style == "declines":
        return DECLINE
    points = [p.text for p in item.key_points]
    if style == "drops-a-point":
        points = points[:1]
    said = " ".join(f"{p}." for p in points)
    if item.answer:
        said += f" {item.answer}"
    if style == "says-the-wrong-thing" and item.must_not_say:
        said += f" Also, {item.must_not_say[0]}."
    return said


def _should_pass(item: Any, style: str) -> bool:
    """Whether the labels accept that answer: every key point, nothing it must not say, and
    a decline exactly when the question is unanswerable."""
    if not item.answerable:
        return style != "guesses"
    if style == "declines":
        return False
    if style == "drops-a-point":
        return len(item.key_points) < 2
    if style == "says-the-wrong-thing":
        return not item.must_not_say
    return True


def _norm(text: str) -> str:
    return " ".join(text.lower().replace(".", " ").split())


def _grade(messages: list[dict[str, Any]]) -> str:
    """A grader of promptfoo's ``llm-rubric`` (its default prompt puts the output and the
    rubric between tags) that reads the rubric's claim literally."""
    found = re.search(
        r"<Output>\n(.*)\n</Output>\n<Rubric>\n(.*)\n</Rubric>", messages[-1]["content"], re.S
    )
    assert found, messages[-1]["content"]
    output, rubric = found.groups()
    if rubric.startswith("States that: "):
        passed = _norm(rubric.removeprefix("States that: ")) in _norm(output)
    elif rubric.startswith("Does not state that: "):
        passed = _norm(rubric.removeprefix("Does not state that: ")) not in _norm(output)
    else:
        assert rubric.startswith("Declines to answer"), rubric
        passed = output == DECLINE
    return json.dumps({"reason": "read literally", "pass": passed, "score": float(passed)})


def test_promptfoo_runs_the_export(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """promptfoo itself reads the tests file and grades answers of four kinds with it: a test
    passes exactly when the labels accept the answer (every key point, nothing the item must
    not say, a decline only where the question is unanswerable)."""
    program = _promptfoo()
    tests = export_file(cli, tmp_path, "promptfoo").rename(tmp_path / "tests.yaml")
    items = [BY_ID[i] for i in sorted(EXPORTED)]
    answers = {style: {i.question: _answer(i, style) for i in items} for style in STYLES}
    (tmp_path / "answers.json").write_text(json.dumps(answers))
    (tmp_path / "provider.js").write_text(PROVIDER)
    rubrics = sum(len(i.key_points) + len(i.must_not_say) + (not i.answerable) for i in items)
    with FakeServer() as grader:
        grader.answer = _grade
        config = {
            "prompts": ["{{question}}"],
            "providers": [
                {"id": "file://provider.js", "label": s, "config": {"style": s}} for s in STYLES
            ],
            "tests": f"file://{tests}",
            "defaultTest": {
                "options": {
                    "provider": {
                        "id": "openai:chat:gpt-4o-mini",
                        "config": {"apiBaseUrl": grader.url, "apiKey": "not-used"},
                    }
                }
            },
        }
        (tmp_path / "promptfooconfig.yaml").write_text(json.dumps(config))
        env = {
            **os.environ,
            "PROMPTFOO_CONFIG_DIR": str(tmp_path / "promptfoo"),
            "PROMPTFOO_DISABLE_TELEMETRY": "1",
            "PROMPTFOO_DISABLE_UPDATE": "1",
            "PROMPTFOO_DISABLE_SHARING": "1",
        }
        done = subprocess.run(
            [program, "eval", "-c", "promptfooconfig.yaml", "-o", "results.json", "--no-cache",
             "--no-write", "--no-progress-bar", "--no-table"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode in (0, 100), done.stdout + done.stderr  # 100: some tests failed
        assert grader.requests == rubrics * len(STYLES)  # every rubric reached the grader
    results = json.loads((tmp_path / "results.json").read_text())["results"]
    assert results["stats"]["errors"] == 0
    outcome = {
        (r["provider"]["label"], r["testCase"]["metadata"]["evalset_id"]): r["success"]
        for r in results["results"]
    }
    expected = {(s, i.id): _should_pass(i, s) for s in STYLES for i in items}
    assert outcome == expected
    assert len(set(expected.values())) == 2  # answers of both kinds were graded
    # a guess at an unanswerable question fails every rubric: it does not decline, and
    # (where the item has one) it says what the item must not
    guessed = [
        r for r in results["results"]
        if r["provider"]["label"] == "guesses"
        and r["testCase"]["metadata"]["evalset_id"] in UNANSWERABLE
    ]  # fmt: skip
    assert len(guessed) == len(UNANSWERABLE)
    for r in guessed:
        verdicts = [c["pass"] for c in r["gradingResult"]["componentResults"]]
        assert verdicts == [False] * len(r["testCase"]["assert"]), r["testCase"]["description"]


TEMPLATED = {
    "question": "Does code {{PROMO}} work? {% if x %}yes{% endif %} {{ question }} {% endraw %}",
    "key point": "Code {{PROMO}} gives 10% off {# not a comment",
    "must_not_say": "{# discounts never apply #}, nor does a bare #} or %} or }}",
    "answer": "{{ question }} {% endraw %}",
}
"""Text that is Nunjucks syntax to promptfoo, which renders vars and assertion values."""


def _echo_one(program: str, tmp_path: Path, tests: Path, ident: str) -> tuple[Any, list[str]]:
    """Run promptfoo over item ``ident`` of the exported ``tests`` with a provider that
    answers with the prompt it is sent: its result, and every rubric the grader was sent."""
    (tmp_path / "provider.js").write_text(
        "module.exports = class { id() { return 'echo'; }\n"
        "  async callApi(prompt) { return { output: prompt }; } };\n"
    )
    rubrics: list[str] = []

    def grade(messages: list[dict[str, Any]]) -> str:
        rubrics.append(messages[-1]["content"])
        return json.dumps({"reason": "recorded", "pass": True, "score": 1.0})

    with FakeServer() as grader:
        grader.answer = grade
        config = {
            "prompts": ["{{question}}"],
            "providers": [{"id": "file://provider.js"}],
            "tests": f"file://{tests}",
            "defaultTest": {"options": {"provider": {
                "id": "openai:chat:gpt-4o-mini",
                "config": {"apiBaseUrl": grader.url, "apiKey": "not-used"},
            }}},
        }  # fmt: skip
        (tmp_path / "promptfooconfig.yaml").write_text(json.dumps(config))
        env = {**os.environ, "PROMPTFOO_CONFIG_DIR": str(tmp_path / "promptfoo"),
               "PROMPTFOO_DISABLE_TELEMETRY": "1", "PROMPTFOO_DISABLE_UPDATE": "1",
               "PROMPTFOO_DISABLE_SHARING": "1"}  # fmt: skip
        done = subprocess.run(
            [program, "eval", "-c", "promptfooconfig.yaml", "-o", "results.json", "--no-cache",
             "--no-write", "--no-progress-bar", "--no-table", "--filter-pattern", ident],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode in (0, 100), done.stdout + done.stderr
    results = json.loads((tmp_path / "results.json").read_text())["results"]
    (result,) = [r for r in results["results"] if r["testCase"]["metadata"]["evalset_id"] == ident]
    assert results["stats"]["errors"] == 0, result.get("error")
    return result, rubrics


def test_promptfoo_gets_text_that_looks_like_its_templates_as_it_is(  # type: ignore[no-untyped-def]
    cli, example: Path, tmp_path: Path
) -> None:
    """Before, a key point `Code {{PROMO}} gives 10% off` reached the grader as `Code  gives
    10% off`, a question holding `{{ question }}` expanded into itself, and a `{#` (and
    later a `#}`) failed the whole test with a template error."""
    from evalset.sets.editor import edit_set

    program = _promptfoo()
    path = example / "sets" / "acme-support.yaml"
    ident = next(i for i in sorted(EXPORTED) if BY_ID[i].answerable and not BY_ID[i].holdout)
    item = BY_ID[ident]
    with edit_set(path) as editor:
        editor.update_item(ident, {
            "question": TEMPLATED["question"],
            "key_points": [{"text": TEMPLATED["key point"],
                            "sources": [str(c) for c in item.key_points[0].sources]}],
            "must_not_say": [TEMPLATED["must_not_say"]],
            "answer": TEMPLATED["answer"],
        })  # fmt: skip
    tests = tmp_path / "tests.yaml"
    done = cli(example, "export", "acme-support", "--format", "promptfoo", "--allow-stale",
               "-o", str(tests))  # fmt: skip
    assert done.code == 0, done.err
    result, rubrics = _echo_one(program, tmp_path, tests, ident)
    assert result["response"]["output"] == TEMPLATED["question"]  # the prompt, as it is
    said = "\n".join(rubrics)
    assert f"States that: {TEMPLATED['key point']}" in said
    assert f"Does not state that: {TEMPLATED['must_not_say']}" in said
    # the answer is checked as it is: the echoed question holds it
    checks = {
        c["assertion"]["type"]: c["pass"] for c in result["gradingResult"]["componentResults"]
    }
    assert checks["icontains"] is True


STEAL = (
    "const mark = () =>\n"
    "  require('fs').writeFileSync(require('path').join({where}, 'ran.txt'), 'ran');\n"
    "module.exports = {exports};\n"
)
"""A script promptfoo runs when a var or an assertion value names it: it leaves a mark."""


@pytest.mark.parametrize(
    "reference",
    [
        "file://secret.txt",
        "file://steal.js",
        "package:steal:run",
        "file://secret.txt {{ PROMO }} #}",
        "FILE://secret.txt",
    ],
)
def test_promptfoo_gets_text_that_looks_like_a_file_or_package_as_it_is(  # type: ignore[no-untyped-def]
    cli, example: Path, tmp_path: Path, reference: str
) -> None:
    """promptfoo loads a var or an assertion value that begins `file://` (running `.js` and
    `.py` files) or `package:` instead of using it. Before, a question `file:///etc/hostname`
    sent the provider the machine's name, and the short answer was checked against it."""
    from evalset.sets.editor import edit_set

    program = _promptfoo()
    (tmp_path / "secret.txt").write_text("SECRET")
    where = json.dumps(str(tmp_path))
    run = "(...args) => { mark(); return { output: 'RAN' }; }"
    (tmp_path / "steal.js").write_text(STEAL.format(where=where, exports=run))
    package = tmp_path / "node_modules" / "steal"
    package.mkdir(parents=True)
    (package / "package.json").write_text('{"name": "steal", "main": "index.js"}')
    (package / "index.js").write_text(STEAL.format(where=where, exports=f"{{ run: {run} }}"))
    ident = next(i for i in sorted(EXPORTED) if BY_ID[i].answerable and not BY_ID[i].holdout)
    with edit_set(example / "sets" / "acme-support.yaml") as editor:
        editor.update_item(ident, {"question": reference, "answer": reference})
    tests = tmp_path / "tests.yaml"
    done = cli(example, "export", "acme-support", "--format", "promptfoo", "--allow-stale",
               "-o", str(tests))  # fmt: skip
    assert done.code == 0, done.err
    result, _ = _echo_one(program, tmp_path, tests, ident)
    assert result["response"]["output"] == reference  # the provider got the text, not the file
    checks = {
        c["assertion"]["type"]: c["pass"] for c in result["gradingResult"]["componentResults"]
    }
    assert checks["icontains"] is True  # checked against the text, not the file's content
    assert not (tmp_path / "ran.txt").exists()


def test_promptfoo_checks_a_short_answer_without_the_white_space_around_it(  # type: ignore[no-untyped-def]
    cli, example: Path, tmp_path: Path
) -> None:
    """An answer written as a block scalar (``answer: |``) ends with a line break. Before,
    promptfoo checked ``icontains "30 days\\n"`` and failed an answer that holds the short
    answer, which evalset's exact judge accepts."""
    from evalset.sets.editor import edit_set

    program = _promptfoo()
    path = example / "sets" / "acme-support.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("    answer: 30 days\n", "    answer: |\n      30 days\n", 1))
    with edit_set(path) as editor:  # the provider echoes the question: it holds the answer
        editor.update_item("q-001", {"question": "Is it 30 days for a damaged item?"})
    tests = tmp_path / "tests.yaml"
    done = cli(example, "export", "acme-support", "--format", "promptfoo", "--allow-stale",
               "-o", str(tests))  # fmt: skip
    assert done.code == 0, done.err
    result, _ = _echo_one(program, tmp_path, tests, "q-001")
    checks = {
        c["assertion"]["type"]: c["pass"] for c in result["gradingResult"]["componentResults"]
    }
    assert checks["icontains"] is True


JS_YAML_LOAD = """
const path = require('path'), fs = require('fs');
const found = require.resolve('js-yaml', {paths: [path.dirname(fs.realpathSync(process.argv[1]))]});
process.stdout.write(JSON.stringify(require(found).load(fs.readFileSync(process.argv[2], 'utf8'))));
"""
"""Read a YAML file with the js-yaml that promptfoo (its program named first) loads."""


@pytest.mark.parametrize("char", ESCAPED.values(), ids=list(ESCAPED))
def test_promptfoo_reads_long_texts_with_escapes_as_they_are(tmp_path: Path, char: str) -> None:
    """Before, a long text with an escape where the writer folded the line reached promptfoo
    with a space added (``days\\t returns``): in the question its provider was sent, and in
    the rubrics and the answer it checked."""
    program = _promptfoo()
    texts = long_texts(char)
    tests = tmp_path / "tests.yaml"
    tests.write_text(long_text_tests(texts), encoding="utf-8")
    done = subprocess.run(
        ["node", "-e", JS_YAML_LOAD, program, str(tests)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert changed_texts(texts, json.loads(done.stdout)) == []
