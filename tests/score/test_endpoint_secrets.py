"""An openai judge's endpoint URL may carry a secret: a proxy's user and password before its
host, or a gateway's key in its query. The URL was written as it was into every report
(`judge.base_url`, `judge.description`), which is committed and posted to pull requests,
into agreement's output, and into the messages of an endpoint that cannot be reached. Each
now shows it with those parts as ``***``; the judge's version still covers the whole URL.
The endpoint is a fake one on the loopback, started by the test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from answers_ws import ANSWERS, make_answers_ws, write_run

from evalset.config import find_workspace
from evalset.score.judges.registry import load_judge
from fake_openai import FakeServer

SECRET = "s3cret-Key_9"
# (the URL around the fake server's host and port, as shown)
URLS = {
    "user and password": ("http://proxy:{s}@{host}/v1", "http://***@{host}/v1/"),
    "a token as the user": ("http://{s}@{host}/v1", "http://***@{host}/v1/"),
    "a key in the query": ("http://{host}/v1?api-key={s}", "http://{host}/v1/?api-key=***"),
    "both, and a fragment": ("http://u:{s}@{host}/v1?key={s}&x=1#{s}",
                             "http://***@{host}/v1/?key=***&x=***"),
    "none": ("http://{host}/v1", "http://{host}/v1/"),
}  # fmt: skip


def _configure(repo: Path, base_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_KEY", "sk-test")
    table = {"kind": "openai", "model": "fake-1", "base_url": base_url,
             "api_key_env": "TEST_KEY", "retries": 0, "timeout": 5}  # fmt: skip
    lines = "".join(f"{k} = {json.dumps(v)}\n" for k, v in table.items())
    config = repo / "evalset.toml"
    kept = config.read_text().split("\n[judges.fake]\n")[0]  # (configured again below)
    config.write_text(kept + "\n[judges.fake]\n" + lines, encoding="utf-8")


@pytest.mark.parametrize(("url", "shown"), URLS.values(), ids=URLS.keys())
def test_an_endpoint_secret_is_in_no_output(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch, url: str, shown: str
) -> None:
    repo = make_answers_ws(tmp_path / "repo")
    (repo / "labels.csv").write_text(
        "id,answer,claim,label\nk1,Returns are free.,returns are free,yes\n", encoding="utf-8"
    )
    run = write_run(repo / "run.jsonl", ANSWERS)
    with FakeServer() as server:
        host = server.url.split("//")[1].split("/")[0]
        _configure(repo, url.format(s=SECRET, host=host), monkeypatch)
        expected = shown.format(host=host)
        scored = cli(repo, "score", "answers", "qa", str(run), "--judge", "fake", "--labels",
                     "labels.csv", "-o", "r.json", "--html", "r.html", "--format",
                     "md")  # fmt: skip
        assert scored.code == 0, scored.err
        agreed = cli(repo, "agreement", "labels.csv", "--judge", "fake", "--set", "qa", "--json",
                     "-o", "a.json")  # fmt: skip
        assert agreed.code == 0, agreed.err
        version = load_judge("fake", find_workspace(repo)).version
    report = json.loads((repo / "r.json").read_text())
    assert report["judge"]["base_url"] == expected
    assert report["judge"]["description"] == f"chat model fake-1 at {expected}"
    assert json.loads(agreed.out)["judge"]["base_url"] == expected
    written = [(repo / name).read_text() for name in ("r.json", "r.html", "a.json")]
    for text in [scored.out, scored.err, agreed.out, agreed.err, *written]:
        assert SECRET not in text
    # the version covers the whole URL: another key is another judge, its verdicts apart
    _configure(repo, url.format(s="another", host=host), monkeypatch)
    other = load_judge("fake", find_workspace(repo)).version
    assert (other == version) is ("{s}" not in url)
    # an endpoint that cannot be reached is named without the secret too
    with FakeServer() as down:
        gone = down.url.split("//")[1].split("/")[0]
    _configure(repo, url.format(s=SECRET, host=gone), monkeypatch)
    failed = cli(repo, "agreement", "labels.csv", "--judge", "fake", "--set", "qa")
    assert failed.code == 2
    assert failed.err == (
        f"evalset: the openai judge cannot reach {shown.format(host=gone)}; check the base URL "
        "(base_url, or OPENAI_BASE_URL) and that the endpoint is up.\n"
    )


@pytest.mark.parametrize("query", ["?api-key=k", "?a=1&b=2", ""])
def test_a_base_url_is_one_judge_with_its_last_slash_or_without(  # type: ignore[no-untyped-def]
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    """openai 1.x kept `/v1?api-key=` as given and 3.x wrote `/v1/?api-key=`: the judge's
    version (its verdicts' cache key) and the URL reports show depended on the SDK
    installed, so one configuration was two judges in two environments."""
    repo = make_answers_ws(tmp_path / "repo")
    found = []
    for path in ("/v1", "/v1/"):
        _configure(repo, f"http://127.0.0.1:9{path}{query}", monkeypatch)
        judge = load_judge("fake", find_workspace(repo))
        found.append((judge.version, judge.describe()["base_url"]))
    assert found[0] == found[1]
    assert found[0][1].startswith("http://127.0.0.1:9/v1/")
