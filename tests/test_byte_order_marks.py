"""A file a user saved with a byte-order mark (Windows editors add one) reads as the same file
without it, whatever evalset reads it for; a config file that is not UTF-8 is one located
sentence. (Set files, run files, JSON Lines, CSV and corpus documents have their own tests.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalset.score.trec import score_trec

BOM = "\ufeff".encode()
ROOT = Path(__file__).resolve().parents[1]
RUN = ROOT / "examples" / "runs" / "acme-support-hybrid.jsonl"

QRELS = b"q1 0 a 1\nq1 0 b 0\nq2 0 c 1\nq2 0 d 2\n"
TREC_RUN = b"q1 Q0 b 1 0.9 r\nq1 Q0 a 2 0.5 r\nq2 Q0 d 1 0.8 r\nq2 Q0 x 2 0.7 r\n"


def _marked(data: bytes, where: str) -> bytes:
    """``data`` with a mark at its start (``start``), or as where two files saved with one
    were joined (``joined``: at the start of the file and of its third line), CRLF or not."""
    if where == "start":
        return BOM + data
    lines = data.splitlines(keepends=True)
    return BOM + b"".join(lines[:2]) + BOM + b"".join(lines[2:])


@pytest.mark.parametrize("crlf", [False, True])
@pytest.mark.parametrize("where", ["start", "joined"])
@pytest.mark.parametrize("which", ["qrels", "run"])
def test_a_trec_file_scores_as_without_its_marks(
    tmp_path: Path, which: str, where: str, crlf: bool
) -> None:
    files = {"qrels": QRELS, "run": TREC_RUN}
    if crlf:
        files = {k: v.replace(b"\n", b"\r\n") for k, v in files.items()}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    plain = score_trec(tmp_path / "qrels", tmp_path / "run")
    assert plain.all["num_q"] == 2
    (tmp_path / which).write_bytes(_marked(files[which], where))
    assert score_trec(tmp_path / "qrels", tmp_path / "run").to_json() == plain.to_json()


def test_a_report_saved_with_a_mark_is_still_the_report(example: Path, cli) -> None:  # type: ignore[no-untyped-def]
    done = cli(example, "score", "retrieval", "acme-support", str(RUN), "--allow-stale",
               "-o", "report.json")  # fmt: skip
    assert done.code == 0, done.err
    (example / "marked.json").write_bytes(BOM + (example / "report.json").read_bytes())
    for command in (["gate", "report.json", "report.json", "--json"], ["check-pin", "report.json"]):
        plain = cli(example, *command)
        marked = cli(example, *[("marked.json" if a == "report.json" else a) for a in command])
        assert (marked.code, marked.out.replace("marked.json", "report.json")) == (
            plain.code, plain.out
        ), command  # fmt: skip
        assert marked.err.replace("marked.json", "report.json") == plain.err
    assert json.loads(cli(example, "gate", "report.json", "marked.json", "--json").out)["ok"]
    accepted = cli(example, "accept", "marked.json")
    assert accepted.code == 0, accepted.err
    assert cli(example, "gate", "report.json").code == 0


@pytest.mark.parametrize("config", ["evalset.toml", "pyproject.toml"])
def test_a_config_saved_with_a_mark_configures_as_without_it(
    example: Path, cli: Any, config: str
) -> None:
    text = (example / "evalset.toml").read_text("utf-8")
    if config == "pyproject.toml":
        (example / "evalset.toml").unlink()
        text = '[project]\nname = "shop"\n\n[tool.evalset]\n' + text.replace(
            "[split]", "[tool.evalset.split]"
        )
    (example / config).write_text(text, "utf-8")
    plain = cli(example, "status", "--json")
    assert plain.code == 0, plain.err
    (example / config).write_bytes(BOM + text.encode())
    marked = cli(example, "status", "--json")
    assert (marked.code, marked.out, marked.err) == (plain.code, plain.out, plain.err)


CONFIGS = {
    "latin-1": (b'corpus = "corpus"\n# caf\xe9\n', "{f}:2:6: is not valid UTF-8 (byte 0xe9); save "
                "the file as UTF-8."),
    "utf-16": ('corpus = "corpus"\n'.encode("utf-16"), "{f}: is UTF-16 text, but a TOML file "
               "must be UTF-8; save it as UTF-8 (for example `iconv -f UTF-16 -t UTF-8`)."),
    "nul": (b'corpus = "corpus"\x00\n', "{f}:1:18: contains a NUL byte, so it is not a text file; "
            "remove the byte or restore the file from git."),
}  # fmt: skip


@pytest.mark.parametrize("config", ["evalset.toml", "pyproject.toml"])
@pytest.mark.parametrize("case", sorted(CONFIGS))
def test_a_config_that_is_not_utf8_is_one_located_sentence(
    example: Path, cli: Any, case: str, config: str
) -> None:
    data, message = CONFIGS[case]
    (example / "evalset.toml").unlink()
    if config == "pyproject.toml":
        data = (
            data.replace(b"corpus", b"[tool.evalset]\ncorpus", 1)
            if case != "utf-16"
            else '[tool.evalset]\ncorpus = "corpus"\n'.encode("utf-16")
        )  # (one that does not name evalset configures nothing: passed over)
        message = message.replace(":2:6:", ":3:6:").replace(":1:18:", ":2:18:")
    (example / config).write_bytes(data)
    before = sorted(p.relative_to(example) for p in example.rglob("*") if ".git" not in p.parts)
    for command in (["status"], ["validate", "acme-support"], ["snapshot"]):
        done = cli(example, *command)
        assert done.code == 2, (command, done.err)
        assert done.err == f"evalset: {message.format(f=config)}\n", command
        assert "Traceback" not in done.out + done.err
    after = sorted(p.relative_to(example) for p in example.rglob("*") if ".git" not in p.parts)
    assert after == before  # nothing written


def test_an_age_key_file_saved_with_a_mark_holds_the_same_key(
    key: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from evalset.sets.sealed import IDENTITY_ENV, identities

    path, public = key
    monkeypatch.setenv(IDENTITY_ENV, str(path))
    plain = [str(i.to_public()) for i in identities() or []]
    marked = path.with_name("marked.key")
    marked.write_bytes(BOM + path.read_bytes())
    monkeypatch.setenv(IDENTITY_ENV, str(marked))
    assert [str(i.to_public()) for i in identities() or []] == plain == [public]


def test_a_judge_prompt_saved_with_a_mark_is_sent_without_it(tmp_path: Path) -> None:
    from evalset.score.judges.openai_chat import PROMPTS, load_prompts

    shipped = load_prompts(None)
    name = sorted(PROMPTS)[0]
    (tmp_path / f"{name}.txt").write_bytes(BOM + shipped[name].encode())
    assert load_prompts(tmp_path) == shipped
