"""promptfoo: a tests file (``tests: file://tests.yaml``), one test case per item.

Each test has ``description``, ``vars`` (``question``), ``assert`` and ``metadata``. Key
points become ``llm-rubric`` assertions that the answer states them, ``must_not_say``
entries ``llm-rubric`` assertions that it does not, a short answer an ``icontains``
assertion, and an unanswerable item a rubric that the answer declines.
"""

from __future__ import annotations

import io
import re
from typing import Any

from evalset.export.view import View, short_answer

_MARKS = ("{{", "{%", "{#", "}}", "%}", "#}")
"""What opens or closes a Nunjucks tag, which promptfoo renders in each test's vars and
assertion values before it uses them (a closing mark outside a tag is an error too)."""
_BRACE = re.compile("[{}]")
_REFERENCE = re.compile("file://|package:", re.IGNORECASE)
"""How a var or assertion value that promptfoo loads instead of using it begins: a file
(read, or run for ``.js``, ``.py``, ``.rb``) or a function from an npm package. promptfoo
looks for these before it renders the value (case-sensitively; any case is escaped here, as
it costs nothing)."""


def _expression(char: str) -> str:
    return f'{{{{ "{char}" }}}}'


def literal(text: str) -> str:
    """``text`` as promptfoo uses it, rendering it as Nunjucks, to be itself: where it holds
    a tag's mark, each brace becomes an expression of itself, ``{{ "{" }}`` (a
    ``{% raw %}`` block would end at the text's own ``{% endraw %}``); where it begins as a
    reference to a file or a package, its first letter does, ``{{ "f" }}ile://``, so that
    promptfoo no longer sees the reference and the rendering gives the text back. A key
    point ``Code {{PROMO}} applies`` otherwise reached the grader as ``Code  applies``, a
    ``{#`` or a ``#}`` failed the whole test, and a question ``file:///etc/hostname`` sent
    the provider that file's content."""
    if any(mark in text for mark in _MARKS):
        text = _BRACE.sub(lambda m: _expression(m.group()), text)
    if _REFERENCE.match(text):
        text = _expression(text[0]) + text[1:]
    return text


def _asserts(item: Any) -> list[dict[str, Any]]:
    checks: list[dict[str, Any]] = []
    if not item.answerable:
        checks.append(
            {
                "type": "llm-rubric",
                "value": "Declines to answer, saying the available documents do not cover it",
            }
        )
    for point in item.key_points:
        checks.append({"type": "llm-rubric", "value": f"States that: {literal(point.text)}"})
    for wrong in item.must_not_say:
        checks.append({"type": "llm-rubric", "value": f"Does not state that: {literal(wrong)}"})
    answer = short_answer(item)
    if answer:
        checks.append({"type": "icontains", "value": literal(answer)})
    return checks


def write(view: View) -> str:
    from ruamel.yaml import YAML

    from evalset.sets.yamlio import NEVER_FOLD, writes_portably

    tests = []
    for item in view.items:
        test: dict[str, Any] = {
            "description": f"{item.id}: {item.question}",
            "vars": {"question": literal(item.question)},
            "assert": _asserts(item),
            "metadata": view.metadata(item),
        }
        tests.append(test)
    yaml = writes_portably(YAML(typ="safe", pure=True))
    yaml.default_flow_style = False
    yaml.width = NEVER_FOLD  # one line per value, read back as it is
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    yaml.representer.ignore_aliases = lambda data: True
    out = io.StringIO()
    yaml.dump(tests, out)
    header = f"# promptfoo tests: {view.set}, {view.split} split ({view.pin['fingerprint']})\n"
    return header + (out.getvalue() if tests else "[]\n")
