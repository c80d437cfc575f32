"""Every fast path of scoring gives exactly what its plain reference gives: the reference is
written out here, in the fewest obvious lines, and both are fed generated inputs, the
hostile and edge ones included (seeded: the same cases on every run)."""

from __future__ import annotations

import json
import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalset.score.report import number_texts, row_texts


def seeded(examples: int) -> settings:
    """The same ``examples`` generated cases on every run, however long each takes."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


# --- numbers as JSON writes them (report.number_texts, report.row_texts) ---------------------


EDGES = [0.0, -0.0, 1.0, -1.0, 0.5, 1 / 3, 2 / 3, 0.1 + 0.2, 1e-7, 1e-5, 1e16, 1e17, 5e-324,
         2.2250738585072014e-308, 1.7976931348623157e308, math.nan, math.inf, -math.inf,
         1 / math.log2(3), math.nextafter(1 / 3, 1), math.nextafter(1 / 3, 0),
         math.nextafter(1.0, 0), math.nextafter(0.0, 1)]  # fmt: skip
NUMBERS = st.one_of(st.sampled_from(EDGES), st.floats(allow_nan=True, allow_infinity=True))


@seeded(300)
@given(st.lists(st.lists(NUMBERS, min_size=3, max_size=3), max_size=30))
def test_number_texts_are_json_dumps_of_each_number(rows: list[list[float]]) -> None:
    """Negative zero beside zero, NaN and infinities, subnormals, neighbours in the last bit:
    each number is written as ``json.dumps`` writes it, in any shape."""
    values = np.array(rows, dtype=np.float64).reshape(len(rows), 3)
    assert number_texts(values).tolist() == [[json.dumps(v) for v in row] for row in rows]
    cube = values.reshape(len(rows), 1, 3)
    assert number_texts(cube).ravel().tolist() == [json.dumps(v) for row in rows for v in row]
    flat = values.ravel()
    assert number_texts(flat).tolist() == [json.dumps(v) for v in flat.tolist()]
    columns = values.T.tolist()
    assert number_texts(values.T).tolist() == [[json.dumps(v) for v in col] for col in columns]


@seeded(300)
@given(
    st.lists(
        st.lists(st.sampled_from([0.0, -0.0, 1.0, 0.5, math.nan, 1e-7]), min_size=2, max_size=2),
        max_size=30,
    ),
    st.integers(0, 3),
)
def test_row_texts_are_json_dumps_of_each_row(rows: list[list[float]], width: int) -> None:
    """Rows that differ in one column only (or only in the sign of a zero) are formatted as
    themselves; a width of 0 repeats the template."""
    values = np.array([row[:width] + row[: max(0, width - 2)] for row in rows], dtype=np.float64)
    values = values.reshape(len(rows), width)
    names = [f"m{j}" for j in range(width)]
    template = "{" + ", ".join(f'"{n}": %s' for n in names) + "}"
    expected = [json.dumps(dict(zip(names, row, strict=True))) for row in values.tolist()]
    assert row_texts(values, template) == expected
