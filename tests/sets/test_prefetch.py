"""A set file read and parsed in a thread ahead of time (``yamlio.prefetch``): the same
result, or the same refusal, as parsing it when asked; a file changed meanwhile is read as
it is now; no thread is left behind."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from conftest import EXAMPLE_SET
from evalset.errors import SetFileError
from evalset.sets import yamlio
from evalset.sets.setfile import load_set
from evalset.sets.yamlio import MAX_DEPTH, prefetch

DEEP = "a:\n" + "".join("  " * (k + 1) + "- \n" for k in range(MAX_DEPTH + 5))
BROKEN = [
    "evalset: 1\nname: x\ncategories: {a: b\n",  # a flow mapping left open
    "evalset: 1\nname: x\n\tcategories: {}\n",  # a tab
    "evalset: 1\nname: x\nname: y\n",  # a key twice
    "evalset: 1\nname: !!python/object x\n",  # a tag
    "<<<<<<< HEAD\nevalset: 1\n=======\nevalset: 2\n>>>>>>> other\n",  # a conflict
    DEEP,
]


def _refusal(path: Path, ahead: bool) -> str:
    if ahead:
        prefetch(path)
    with pytest.raises(SetFileError) as caught:
        load_set(path)
    return str(caught.value)


def test_a_prefetched_set_loads_as_a_set_read_when_asked(tmp_path: Path) -> None:
    path = tmp_path / "example.yaml"
    path.write_bytes(EXAMPLE_SET.read_bytes())
    prefetch(path)
    ahead = load_set(path)
    assert not yamlio._prefetched and threading.active_count() == 1
    now = load_set(path)
    assert ahead.raw == now.raw and ahead.items == now.items and ahead.text == now.text


@pytest.mark.parametrize("text", BROKEN, ids=range(len(BROKEN)))
def test_a_prefetched_file_that_does_not_parse_is_refused_the_same_way(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    assert _refusal(path, ahead=True) == _refusal(path, ahead=False)
    assert not yamlio._prefetched and threading.active_count() == 1


def test_a_file_changed_after_its_prefetch_is_read_as_it_is_now(tmp_path: Path) -> None:
    path = tmp_path / "example.yaml"
    path.write_bytes(EXAMPLE_SET.read_bytes())
    prefetch(path)
    yamlio._prefetched[0].thread.join()  # parsed: then the file changes
    path.write_text(EXAMPLE_SET.read_text(encoding="utf-8").replace("acme-support", "changed"))
    assert load_set(path).name == "changed"


def test_a_prefetch_is_used_once_and_only_for_its_own_text(tmp_path: Path) -> None:
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text("evalset: 1\nname: a\n", encoding="utf-8")
    second.write_text("evalset: 1\nname: b\n", encoding="utf-8")
    prefetch(first)
    assert yamlio.parse_yaml(second.read_text(), second) == {"evalset": 1, "name": "b"}
    assert not yamlio._prefetched  # waited for and dropped: another text was asked for
    prefetch(tmp_path / "missing.yaml")  # unreadable: left for the reader to say
    assert yamlio.parse_yaml("evalset: 1\n", first) == {"evalset": 1}
    assert threading.active_count() == 1


def test_a_pipe_or_a_fifo_is_not_prefetched_and_is_read_once(tmp_path: Path) -> None:
    """A set given as <(cat set.yaml), /dev/stdin or a named FIFO can be read only once."""
    import os

    fifo = tmp_path / "set.fifo"
    os.mkfifo(fifo)
    text = EXAMPLE_SET.read_text(encoding="utf-8")

    def feed() -> None:
        with open(fifo, "w", encoding="utf-8") as out:
            out.write(text)

    writer = threading.Thread(target=feed)
    writer.start()
    prefetch(fifo)  # not a regular file: nothing started, nothing read
    assert not yamlio._prefetched
    loaded = load_set(fifo)
    writer.join(timeout=10)
    assert loaded.name == "acme-support" and not writer.is_alive()
