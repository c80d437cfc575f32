"""Snapshots on real files and git repositories: manifest, ids, cache, robustness."""

from __future__ import annotations

import json
import marshal
import os
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import commit_all, dvc, make_git_repo, write_files
from evalset.corpus.manifest import SnapshotError, SnapshotStore, compare, read_snapshot
from evalset.corpus.snapshot import take_snapshot

DOCS = {
    "corpus/a.md": "# Alpha\n\nintro\n\n## One\n\nfirst text\n\n## Two\n\nsecond text\n",
    "corpus/sub/b.md": "# Beta\n\nbeta text\n",
    "corpus/c.txt": "plain text\n",
    "corpus/d.html": "<h1 id='x'>Delta</h1><p>delta</p>",
}


def snap(repo: Path, **kw):  # type: ignore[no-untyped-def]
    return take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset", **kw)


def test_manifest_is_deterministic_one_document_per_line(corpus_repo: Path) -> None:
    write_files(corpus_repo, DOCS)
    first = snap(corpus_repo)
    assert first.written and first.reread == 4
    text = first.path.read_text()
    lines = text.splitlines()
    assert lines[0].startswith('{"about": ') and lines[1] == '"documents": {'
    assert [json.loads("{" + ln.rstrip(",") + "}").popitem()[0] for ln in lines[2:-1]] == [
        "a.md",
        "c.txt",
        "d.html",
        "sub/b.md",
    ]
    loaded = read_snapshot(first.path)
    assert loaded.id == first.id and len(loaded.documents) == first.documents == 4
    assert set(loaded.documents["a.md"]["sections"]) == {"alpha", "one", "two"}
    assert loaded.documents["a.md"]["sections"]["one"]["text"] == "first text"
    # Same content, same id; no new file.
    again = snap(corpus_repo)
    assert (again.id, again.written, again.reread) == (first.id, False, 0)
    # The id does not depend on when, where or from which cache state it was computed.
    for cache in (corpus_repo / ".evalset").glob("snapshot-*"):
        cache.unlink()
    assert snap(corpus_repo, write=False).id == first.id


def test_incremental_reads_only_changed_files(corpus_repo: Path) -> None:
    write_files(corpus_repo, DOCS)
    first = snap(corpus_repo)
    write_files(corpus_repo, {"corpus/sub/b.md": "# Beta\n\nbeta text, changed\n"})
    second = snap(corpus_repo)
    assert second.reread == 1
    assert second.changes == compare(first.load(), second.load())
    assert second.changes.to_json() == {  # type: ignore[union-attr]
        "added": [],
        "removed": [],
        "changed": {"sub/b.md": {"added": [], "removed": [], "changed": ["beta"]}},
    }
    os.rename(corpus_repo / "corpus/c.txt", corpus_repo / "corpus/renamed.txt")
    (corpus_repo / "corpus/d.html").unlink()
    third = snap(corpus_repo)
    changes = compare(second.load(), third.load())
    assert third.changes == changes
    assert (changes.added, changes.removed) == (["renamed.txt"], ["c.txt", "d.html"])
    assert third.reread == 1


def _fresh_id(repo: Path) -> str:
    """The id a snapshot without any cache gives."""
    state = repo / ".evalset-fresh"
    shutil.rmtree(state, ignore_errors=True)
    return take_snapshot(repo, "corpus", repo / "snapshots", state, write=False).id


def test_an_unchanged_check_misses_no_kind_of_change(corpus_repo: Path) -> None:
    """The listing compared on every run notices renames that keep inode and times, a
    rewrite whose size and mtime were put back, new and removed folders, retargeted
    symlinks; hidden files change nothing."""
    write_files(corpus_repo, {**DOCS, "corpus/sub/e.md": "# E\n\ne text\n"})
    (corpus_repo / "corpus/link.md").symlink_to("a.md")
    corpus = corpus_repo / "corpus"
    snap(corpus_repo)

    def same_size_rewrite() -> None:
        path = corpus / "a.md"
        before = path.stat()
        path.write_text(path.read_text().replace("first", "FIRST"))
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))

    def retarget() -> None:
        (corpus / "link.md").unlink()
        (corpus / "link.md").symlink_to("sub/e.md")

    changes = [
        lambda: os.rename(corpus / "sub/b.md", corpus / "sub/b2.md"),
        same_size_rewrite,
        lambda: write_files(corpus_repo, {"corpus/new/deep/f.md": "# F\n\nf\n"}),
        lambda: [p.unlink() for p in (corpus / "new/deep").iterdir()],
        retarget,
        lambda: (corpus / "sub/e.md").write_text("# E\n\ne text, longer now\n"),
    ]
    for change in changes:
        before = snap(corpus_repo, write=False).id
        change()
        after = snap(corpus_repo, write=False)
        assert after.id == _fresh_id(corpus_repo) != before, changes.index(change)
    (corpus / ".hidden.md").write_text("# Hidden\n")
    quiet = snap(corpus_repo, write=False)
    assert quiet.id == after.id and quiet.reread == 0
    # A cache left half-written (its index gone) is noticed, and the corpus read again.
    (corpus_repo / ".evalset/snapshot-index.marshal").unlink()
    write_files(corpus_repo, {"corpus/sub/e.md": "# E\n\nchanged once more\n"})
    recovered = snap(corpus_repo, write=False)
    assert recovered.id == _fresh_id(corpus_repo) and recovered.reread > 1
    # An index whose rows are out of order, or of another layout, is not used.
    index = corpus_repo / ".evalset/snapshot-index.marshal"
    cached = marshal.loads(index.read_bytes())
    names = cached["rows"]["names"].split("\0")
    cached["rows"]["names"] = "\0".join(reversed(names))
    index.write_bytes(marshal.dumps(cached))
    write_files(corpus_repo, {"corpus/sub/e.md": "# E\n\nand again\n"})
    assert snap(corpus_repo, write=False).id == _fresh_id(corpus_repo)
    index.write_bytes(marshal.dumps({"key": cached["key"], "id": cached["id"], "rows": [1]}))
    assert snap(corpus_repo, write=False).id == _fresh_id(corpus_repo)


def _body(path: Path) -> str:
    return path.read_text().split("\n", 1)[1]


def test_a_changed_manifest_is_the_old_one_with_the_changed_lines(corpus_repo: Path) -> None:
    """Unchanged documents' lines are copied from the previous manifest (or from the
    cache's link to it, after a checkout removed it); the result is what reading every file
    gives."""
    docs = {f"corpus/part-{n % 3}/doc-{n:02d}.md": f"# Doc {n}\n\ntext {n}\n" for n in range(12)}
    write_files(corpus_repo, docs)
    snap(corpus_repo)
    for n, gone in ((3, False), (7, True)):
        write_files(corpus_repo, {f"corpus/part-{n % 3}/doc-{n:02d}.md": f"# Doc {n}\n\nnew\n"})
        (corpus_repo / f"corpus/part-{(n + 1) % 3}/doc-{n + 1:02d}.md").unlink()
        write_files(corpus_repo, {f"corpus/part-9/added-{n}.md": "# Added\n\nmore\n"})
        if gone:  # a checkout took the previous manifest away
            for old in (corpus_repo / "snapshots").glob("*.json"):
                old.unlink()
        result = snap(corpus_repo)
        assert result.reread == 2 and result.written
        read_snapshot(result.path)  # its content matches its id
        fresh_dir = corpus_repo / "fresh"
        shutil.rmtree(fresh_dir, ignore_errors=True)
        fresh = take_snapshot(corpus_repo, "corpus", fresh_dir, corpus_repo / ".evalset-fresh")
        shutil.rmtree(corpus_repo / ".evalset-fresh")
        assert fresh.id == result.id and _body(fresh.path) == _body(result.path)
        # The index written with it points at every document's value.
        index_dir = corpus_repo / ".evalset/manifests"
        assert (index_dir / f"{result.id}.marshal").is_file()
        through_index = read_snapshot(result.path, False, index_dir).documents
        assert dict(through_index.items()) == dict(read_snapshot(result.path).documents)


@pytest.mark.parametrize("seed", range(4))
def test_spliced_manifests_equal_fresh_ones_through_any_edits(corpus_repo: Path, seed: int) -> None:
    """Rounds of random edits (changed, removed and added documents, among them ones that
    sort first or last, and non-ASCII names, whose manifests are spliced by characters): each
    spliced manifest is byte for byte the one reading every file gives."""
    import random

    rng = random.Random(seed)
    names = [f"corpus/f{n % 4}/d{n:02d}.md" for n in range(20)] + ["corpus/0first.md"]
    if seed % 2:
        names.append("corpus/ü/größe.md")
    present: set[str] = set(rng.sample(names, 12))
    write_files(corpus_repo, {doc: f"# {doc}\n\ntext\n" for doc in present})
    snap(corpus_repo)
    for round_ in range(5):
        for doc in rng.sample(names, 5):
            if doc in present and rng.random() < 0.4:
                (corpus_repo / doc).unlink()
                present.discard(doc)
            else:
                write_files(corpus_repo, {doc: f"# {doc}\n\nround {round_}\n"})
                present.add(doc)
        result = snap(corpus_repo)
        fresh_dir = corpus_repo / "fresh"
        shutil.rmtree(fresh_dir, ignore_errors=True)
        fresh = take_snapshot(corpus_repo, "corpus", fresh_dir, corpus_repo / ".evalset-fresh")
        shutil.rmtree(corpus_repo / ".evalset-fresh")
        assert result.documents == len(present) and result.reread <= 5
        assert fresh.id == result.id and _body(fresh.path) == _body(result.path)
        index_dir = corpus_repo / ".evalset/manifests"
        if (index_dir / f"{result.id}.marshal").is_file():
            through_index = read_snapshot(result.path, False, index_dir).documents
            assert dict(through_index.items()) == dict(read_snapshot(result.path).documents)


def test_prefixes_and_newest(corpus_repo: Path) -> None:
    write_files(corpus_repo, DOCS)
    first = snap(corpus_repo)
    write_files(corpus_repo, {"corpus/c.txt": "other\n"})
    second = snap(corpus_repo)
    store = SnapshotStore(corpus_repo / "snapshots")
    assert store.newest_id() == second.id
    assert store.get(first.id[:6]).id == first.id  # type: ignore[union-attr]
    assert store.get("ffffffffffff") is None
    (corpus_repo / "snapshots" / f"{first.id[:3]}0.json").write_text("x")
    with pytest.raises(SnapshotError, match="ambiguous"):
        store.resolve(first.id[:3])


def test_commit_is_recorded(corpus_repo: Path) -> None:
    write_files(corpus_repo, DOCS)
    head = commit_all(corpus_repo, "corpus")
    assert snap(corpus_repo).commit == head


def test_robustness_of_reading(corpus_repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("# Secret\n\nnot part of the corpus\n")
    write_files(
        corpus_repo,
        {
            "corpus/latin1.md": "# Caf\xe9\n".encode("latin-1") + b"\n\xe9t\xe9\n",
            "corpus/image.md": b"\x89PNG\r\n\x1a\n\x00\x00\x00",
            "corpus/empty.md": "",
            "corpus/scan.pdf": b"%PDF-1.4",
            "corpus/.hidden.md": "# Hidden\n",
        },
    )
    os.symlink(outside, corpus_repo / "corpus" / "link.md")
    os.symlink(corpus_repo / "corpus" / "empty.md", corpus_repo / "corpus" / "inside.md")
    result = snap(corpus_repo)
    docs = result.load().documents
    assert sorted(docs) == ["empty.md", "inside.md", "latin1.md"]
    assert docs["empty.md"] == {"hash": docs["empty.md"]["hash"], "sections": {}, "text": ""}
    assert "café" not in docs["latin1.md"]["text"] and "\ufffd" in docs["latin1.md"]["text"]
    assert sorted(result.warnings) == [
        "1 file(s) of type '.pdf' skipped: no sectioner for that format",
        "image.md: looks binary (NUL bytes); skipped",
        "latin1.md: is not valid UTF-8 (byte 5); read with replacement characters",
        "link.md: symlink to outside the corpus; not followed",
    ]


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_is_a_clear_error(corpus_repo: Path) -> None:  # pragma: no cover
    write_files(corpus_repo, {"corpus/locked.md": "# L\n"})
    (corpus_repo / "corpus/locked.md").chmod(0)
    with pytest.raises(SnapshotError, match=r"locked\.md: cannot be read"):
        snap(corpus_repo)


def test_unreadable_file_is_named_even_as_root(corpus_repo: Path) -> None:
    # A dangling path cannot be opened by anyone: the error names it and says what to do.
    write_files(corpus_repo, {"corpus/ok.md": "# OK\n"})
    from evalset.corpus.reading import read_file

    result = read_file((str(corpus_repo / "corpus/gone.md"), "gone.md", "rendered", True, 5))
    assert result.entry is None and result.warning is not None
    assert result.warning.startswith("!") and result.warning.endswith(
        "gone.md: was removed while the snapshot read the corpus (is something changing "
        "it?); run `evalset snapshot` again once it is done"
    )


def test_a_100_mb_document(corpus_repo: Path) -> None:
    body = ("A sentence of policy text that goes on for a while. " * 20 + "\n\n") * 97_000
    write_files(corpus_repo, {"corpus/big.md": "# Big\n\n" + body + "## End\n\nlast\n"})
    assert (corpus_repo / "corpus/big.md").stat().st_size > 100_000_000
    result = snap(corpus_repo, store_text=False)
    assert set(result.load().documents["big.md"]["sections"]) == {"big", "end"}


def test_corrupt_and_newer_manifests_are_refused(corpus_repo: Path) -> None:
    write_files(corpus_repo, DOCS)
    path = snap(corpus_repo).path
    text = path.read_text()
    path.write_text(text[: len(text) // 2])
    with pytest.raises(SnapshotError, match=r"is not a readable snapshot manifest \(invalid JSON"):
        read_snapshot(path)
    path.write_text(text.replace('"version": 2', '"version": 7'))
    with pytest.raises(
        SnapshotError, match=r"newer evalset \(snapshot format 7, this one reads 2\)"
    ):
        read_snapshot(path)
    path.write_text(text.replace('"first text"', '"edited text"'))
    with pytest.raises(SnapshotError, match=r"text of document .a\.md. does not match its hash"):
        read_snapshot(path)


def test_snapshot_of_a_git_revision(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, DOCS)
    first = commit_all(corpus_repo, "v1")
    write_files(corpus_repo, {"corpus/a.md": DOCS["corpus/a.md"].replace("first", "1st")})
    commit_all(corpus_repo, "v2")
    result = cli(corpus_repo, "snapshot", "--rev", first[:8], "--json")
    assert result.code == 0, result.err
    old = json.loads(result.out)
    assert old["commit"] == first and old["documents"] == 4
    head = json.loads(cli(corpus_repo, "snapshot", "--json").out)
    assert head["changes"]["changed"] == {
        "a.md": {"added": [], "removed": [], "changed": ["alpha", "one"]}
    }
    bad = cli(corpus_repo, "snapshot", "--rev", "no-such-rev")
    assert bad.code == 2
    assert "'no-such-rev' is not a git revision here; check the name." in bad.err


NO_REPOSITORY = (
    "is not inside a git repository, so it has no revision {rev!r} to read the corpus at; "
    "snapshot the working tree (no revision), or run `git init` and commit the corpus first."
)


@pytest.mark.parametrize(
    ("git", "rev", "message"),
    [
        (False, "HEAD", NO_REPOSITORY),
        (False, "main", NO_REPOSITORY),
        (True, "no-such-rev", "{rev!r} is not a git revision here; check the name."),
    ],
)
def test_a_revision_outside_any_repository_says_so(  # type: ignore[no-untyped-def]
    tmp_path: Path, cli, git: bool, rev: str, message: str
) -> None:
    """Before, a workspace outside any git repository was told to check the revision's
    name, which no name could have fixed."""
    folder = tmp_path / "ws"
    write_files(folder, {"evalset.toml": 'corpus = "corpus"\n', **DOCS})
    if git:
        commit_all(make_git_repo(folder), "v1")
    expected = f"{folder}: {message.format(rev=rev)}"
    with pytest.raises(SnapshotError) as refused:
        take_snapshot(folder, "corpus", folder / "snapshots", folder / ".evalset", rev=rev)
    assert str(refused.value) == expected
    bad = cli(folder, "snapshot", "--rev", rev)
    assert (bad.code, bad.err) == (2, f"evalset: {expected}\n")
    assert not (folder / "snapshots").exists()


PLUGIN = '''
from evalset.corpus import Section, Sections, normalise


def sections(text, mode):
    """One section per line that starts with '= ': a toy format for the test."""
    parts = {}
    for block in text.split("\\n= ")[1:]:
        title, _, body = block.partition("\\n")
        parts[title.strip().lower()] = Section(title.strip(), 1, normalise(body))
    return Sections(normalise(text), parts)
'''


def test_a_format_plug_in_is_found_and_its_removal_noticed(
    corpus_repo: Path, tmp_path: Path
) -> None:
    """A distribution with an ``evalset.formats`` entry point adds a format; the next run
    takes it from the cache without reading entry points, and removing the distribution
    (a change in the folders packages are installed in) is noticed."""
    import subprocess
    import sys

    site = tmp_path / "site"
    site.mkdir()
    (site / "evalset_toy_format.py").write_text(PLUGIN)
    dist = site / "evalset_toy_format-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: evalset-toy-format\nVersion: 0.1\n"
    )
    (dist / "entry_points.txt").write_text("[evalset.formats]\ntoy = evalset_toy_format:sections\n")
    write_files(corpus_repo, {"corpus/a.toy": "intro\n= First\none\n= Second\ntwo\n"})
    env = {**os.environ, "PYTHONPATH": str(site)}

    def snapshot() -> dict[str, object]:
        done = subprocess.run(
            [sys.executable, "-m", "evalset", "snapshot", "--json"],
            cwd=corpus_repo, env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        newest = SnapshotStore(corpus_repo / "snapshots").newest()
        assert newest is not None
        return {"out": json.loads(done.stdout), "docs": dict(newest.documents)}

    first = snapshot()
    assert sorted(first["docs"]["a.toy"]["sections"]) == ["first", "second"]  # type: ignore[index]
    again = snapshot()
    assert again["docs"] == first["docs"]
    shutil.rmtree(dist)
    gone = snapshot()
    assert gone["docs"] == {}


def test_git_blobs_reads_many_versions_in_one_batch(corpus_repo: Path) -> None:
    from evalset.corpus.revision import git_blobs

    write_files(corpus_repo, DOCS)
    commit_all(corpus_repo, "docs")
    names = ["HEAD:corpus", "HEAD:corpus/a.md", "HEAD:nope.md", "HEAD:a\nb", "HEAD:corpus/c.txt"]
    found = git_blobs(corpus_repo, names)
    assert found == {
        "HEAD:corpus/a.md": DOCS["corpus/a.md"].encode(),
        "HEAD:corpus/c.txt": b"plain text\n",
    }  # a folder, a missing file and a name the batch cannot carry are left out
    assert git_blobs(corpus_repo, []) == {} and git_blobs(corpus_repo.parent, names) == {}


_names = st.text(alphabet="abcé/._", min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(_names, st.integers(0, 9), max_size=12),
    st.sets(_names, max_size=6),
    st.dictionaries(_names, st.integers(0, 9), max_size=6),
)
def test_cache_rows_updated_in_place_equal_rows_built_afresh(
    before: dict[str, int], dropped: set[str], put: dict[str, int]
) -> None:
    from evalset.corpus.cache import Rows
    from evalset.corpus.manifest import id_of_digests, id_of_ordered

    def row(doc: str, n: int) -> tuple[tuple[int, int, int, int], str, int]:
        return (n, len(doc), 3, 4), f"{n:032x}", n

    old = {doc: row(doc, n) for doc, n in before.items()}
    new = {doc: r for doc, r in old.items() if doc not in dropped}
    new.update({doc: row(doc, n + 10) for doc, n in put.items()})
    table = Rows.load(Rows.of(old).dump())
    assert table is not None
    updated = table.updated(dropped, {doc: new[doc] for doc in put})
    assert updated == Rows.of(new)
    assert id_of_ordered(updated.digests) == id_of_digests({d: r[1] for d, r in new.items()})
    assert all(updated.get(doc) == r for doc, r in new.items())


# -- manifests and caches as hostile input --------------------------------------------------


def _state(repo: Path) -> Path:
    return repo / ".evalset"


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda t: t[: len(t) // 2], "invalid JSON"),
        (lambda t: t[: t.rindex("\n", 0, len(t) - 5) + 1] + "}}\n", "does not match its id"),
        (lambda t: t.replace('"first text"', '"edited text"'), "does not match its hash"),
        (lambda t: t.replace('{"hash": "', '{"hash": "0', 1), "does not match its hash"),
        (lambda t: t.replace('{"hash"', '{"hash" ,, garbage', 1), "is damaged"),
        (lambda t: t.replace('{"hash"', "[" * 5000, 1), "is damaged"),
        # a section's level that is no whole number (the id does not cover levels): taken,
        # it stopped scoring with an internal error, or changed what lies inside what
        *[
            (lambda t, v=value: re.sub(r'"level": \d+', f'"level": {v}', t, count=1), "is damaged")
            for value in ('"3"', "null", "NaN", "1e400", "2.0", "true", "-1", "[2]")
        ],
    ],
    ids=[
        "truncated",
        "cut-at-a-line",
        "edited-text",
        "edited-hash",
        "bad-line",
        "deep-line",
        *(f"level-{k}" for k in range(8)),
    ],
)
def test_a_damaged_manifest_is_named_then_written_again_by_snapshot(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, damage, why: str
) -> None:
    write_files(corpus_repo, DOCS)
    (corpus_repo / "evalset.toml").write_text('corpus = "corpus"\n')
    first = snap(corpus_repo)
    good = first.path.read_bytes()
    first.path.write_text(damage(good.decode()))
    # A command that decides on it names the file, the problem and the fix.
    with pytest.raises(SnapshotError) as refused:
        SnapshotStore(corpus_repo / "snapshots", state_dir=_state(corpus_repo)).get(first.id)
    assert str(refused.value).startswith(f"{first.path}: is not a readable snapshot manifest (")
    assert why in str(refused.value) and "run `evalset snapshot`" in str(refused.value)
    stale = cli(corpus_repo, "stale")
    shown = str(refused.value).replace(f"{corpus_repo}/", "")  # as typed, from the workspace
    assert shown.startswith(f"snapshots/{first.path.name}: ")
    assert stale.code == 2 and stale.err.strip() == f"evalset: {shown}"
    # snapshot recognises it and writes it again from the corpus.
    result = cli(corpus_repo, "snapshot", "--json")
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert report["written"] and report["id"] == first.id
    assert report["warnings"][-1].startswith(f"{first.path}: was damaged (")
    assert first.path.read_bytes().split(b"\n", 1)[1] == good.split(b"\n", 1)[1]
    assert read_snapshot(first.path).id == first.id


# The id does not depend on the text, so a snapshot of content already recorded kept the
# manifest as it was: `store_text = false`, set because the documents are confidential,
# left every section's text in the manifest to be committed, and `store_text = true` left
# a manifest without text, both with "unchanged, already in …".
@pytest.mark.parametrize("rev", [False, True], ids=["working-tree", "revision"])
def test_store_text_changed_rewrites_the_manifest_of_the_same_content(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, rev: bool
) -> None:
    write_files(corpus_repo, DOCS)
    commit = commit_all(corpus_repo, "corpus")
    config = corpus_repo / "evalset.toml"
    args = ["snapshot", "--rev", commit] if rev else ["snapshot"]
    first = cli(corpus_repo, *args)
    assert first.code == 0, first.err
    (manifest,) = (corpus_repo / "snapshots").glob("*.json")
    with_text = manifest.read_bytes()
    assert b'"text": "first text"' in with_text
    for setting, now in (("false", "without"), ("true", "with")):
        config.write_text(f"store_text = {setting}\n" + config.read_text())
        result = cli(corpus_repo, *args)
        assert result.code == 0, result.err
        assert result.out.splitlines()[0].endswith(
            f"; unchanged, and written again {now} its section text (store_text = {setting}) "
            f"to snapshots/{manifest.name}"
        )
        data = manifest.read_bytes()
        assert data.split(b"\n", 1)[0] == with_text.split(b"\n", 1)[0]  # when, where, commit
        assert (b'"text"' in data) is (setting == "true")
        assert read_snapshot(manifest).id == manifest.stem
        again = json.loads(cli(corpus_repo, *args, "--json").out)
        assert (again["written"], again["text_rewritten"]) == (False, None)
        config.write_text(config.read_text().split("\n", 1)[1])
    assert manifest.read_bytes() == with_text
    # the default leaves a manifest as it is, whichever way it was written
    config.write_text("store_text = false\n" + config.read_text())
    cli(corpus_repo, *args)
    without = manifest.read_bytes()
    config.write_text(config.read_text().split("\n", 1)[1])
    assert json.loads(cli(corpus_repo, *args, "--json").out)["text_rewritten"] is None
    assert manifest.read_bytes() == without
    # with the corpus unchanged since the last look (nothing read again), a manifest that
    # came with its text (a pull) is written without it all the same
    config.write_text("store_text = false\n" + config.read_text())
    cli(corpus_repo, *args)
    manifest.write_bytes(with_text)
    rewritten = json.loads(cli(corpus_repo, *args, "--json").out)
    assert rewritten["text_rewritten"] == "removed"
    assert manifest.read_bytes() == without


def test_a_renamed_manifest_is_called_renamed(corpus_repo: Path) -> None:
    write_files(corpus_repo, DOCS)
    first = snap(corpus_repo)
    renamed = first.path.with_name("0" * 64 + ".json")
    first.path.rename(renamed)
    with pytest.raises(SnapshotError) as refused:
        read_snapshot(renamed)
    assert str(refused.value) == (
        f"{renamed}: holds snapshot {first.id[:12]}, not the one its name says (was it "
        f"renamed?); rename it to {first.id}.json, or restore it from git."
    )


def test_the_base_cache_never_shares_storage_with_a_committed_manifest(
    corpus_repo: Path,
) -> None:
    write_files(corpus_repo, DOCS)
    first = snap(corpus_repo)
    base = _state(corpus_repo) / "base" / first.path.name
    assert base.exists() and not os.path.samefile(base, first.path)
    committed = first.path.read_bytes()
    base.write_text("garbage")  # damage to the cache stays in the cache
    assert first.path.read_bytes() == committed
    write_files(corpus_repo, {"corpus/c.txt": "plain text, changed\n"})
    changed = snap(corpus_repo)
    fresh = take_snapshot(corpus_repo, "corpus", corpus_repo / "x", corpus_repo / ".y")
    assert changed.id == fresh.id
    assert (
        changed.path.read_bytes().split(b"\n", 1)[1] == fresh.path.read_bytes().split(b"\n", 1)[1]
    )
    # A hard link left by an earlier evalset is replaced by a copy.
    base = _state(corpus_repo) / "base" / changed.path.name
    base.unlink()
    os.link(changed.path, base)
    snap(corpus_repo)
    assert not os.path.samefile(base, changed.path)


@pytest.mark.parametrize(
    "craft",
    [
        lambda d: {k: v for k, v in d.items() if k != "listing"},
        lambda d: {**d, "id": "garbage"},
        lambda d: {**d, "id": "../../../outside"},
        lambda d: {**d, "documents": "many"},
        lambda d: {**d, "listing": {k: (1, 2) for k in d["listing"]}},
        lambda d: [d],
    ],
    ids=["no-listing", "id-not-a-hash", "id-a-path", "count-not-a-number", "bad-listing", "list"],
)
def test_a_crafted_listing_cache_means_no_cache(corpus_repo: Path, craft) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, DOCS)
    first = snap(corpus_repo)
    quick = _state(corpus_repo) / "snapshot-listing.marshal"
    quick.write_bytes(marshal.dumps(craft(marshal.loads(quick.read_bytes()))))
    again = snap(corpus_repo)
    assert again.id == first.id
    assert sorted(p.name for p in (corpus_repo / "snapshots").iterdir()) == [first.path.name]
    assert not list(corpus_repo.parent.glob("*.json"))


@pytest.mark.parametrize(
    "craft",
    [
        lambda d: {**d, "id": "garbage"},
        lambda d: {**d, "rows": {"names": 5}},
        lambda d: {**d, "key": None},
    ],
    ids=["id-not-a-hash", "rows-not-rows", "no-key"],
)
def test_a_crafted_row_cache_means_no_cache(corpus_repo: Path, craft) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, DOCS)
    snap(corpus_repo)
    (_state(corpus_repo) / "snapshot-listing.marshal").unlink()
    index = _state(corpus_repo) / "snapshot-index.marshal"
    index.write_bytes(marshal.dumps(craft(marshal.loads(index.read_bytes()))))
    write_files(corpus_repo, {"corpus/c.txt": "plain text, changed\n"})
    changed = snap(corpus_repo)
    assert read_snapshot(changed.path).id == changed.id


def test_a_crafted_manifest_index_is_not_trusted(corpus_repo: Path) -> None:
    write_files(corpus_repo, DOCS)
    first = snap(corpus_repo)
    index = _state(corpus_repo) / "manifests" / f"{first.id}.marshal"
    data = marshal.loads(index.read_bytes())
    data["bounds"] = bytes(len(data["bounds"]))  # every offset 0
    index.write_bytes(marshal.dumps(data))
    store = SnapshotStore(corpus_repo / "snapshots", state_dir=_state(corpus_repo))
    snapshot = store.get(first.id)
    assert snapshot is not None and snapshot.documents["a.md"]["sections"]["one"]["text"] == (
        "first text"
    )


def test_temporary_files_of_a_killed_snapshot_are_removed_and_never_seen_by_git(
    corpus_repo: Path,
) -> None:
    import subprocess
    import time

    write_files(corpus_repo, DOCS)
    first = snap(corpus_repo)
    dead = subprocess.Popen(["true"])
    dead.wait()
    snapshots = corpus_repo / "snapshots"
    leftovers = [
        snapshots / f".{first.path.name}.{dead.pid}.abc123.tmp",  # a killed writer's
        snapshots / f".{first.path.name}.x1y2z3.tmp",  # an earlier evalset's, an hour old
    ]
    for leftover in leftovers:
        leftover.write_bytes(b"x" * 1000)
    old = time.time() - 7200
    os.utime(leftovers[1], (old, old))
    running = snapshots / f".{first.path.name}.{os.getpid()}.def456.tmp"  # being written
    running.write_bytes(b"x")
    write_files(corpus_repo, {"corpus/c.txt": "plain text, changed\n"})
    snap(corpus_repo)
    assert not any(p.exists() for p in leftovers) and running.exists()
    running.unlink()
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=corpus_repo, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert ".evalset" not in status
    assert (_state(corpus_repo) / ".gitignore").read_text().splitlines()[-1] == "*"


def test_a_name_that_is_not_utf8_is_refused_in_a_sentence(corpus_repo: Path) -> None:
    write_files(corpus_repo, DOCS)
    os.makedirs(os.fsencode(corpus_repo / "corpus") + b"/caf\xe9", exist_ok=True)
    with open(os.fsencode(corpus_repo / "corpus") + b"/caf\xe9/menu.md", "wb") as f:
        f.write(b"# Menu\n")
    with pytest.raises(SnapshotError) as refused:
        snap(corpus_repo)
    assert str(refused.value) == (
        "caf\\xe9: its name is not UTF-8, so no set could cite it; rename it (or move it out "
        "of the corpus) and run `evalset snapshot` again."
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("# P\n\n## Returns\n\nWithin 30 days.\n\n### Damaged\n\nWithin 60 days.\n",
         "# P\n\n## Returns\n\nWithin 30 days.\n\n## Damaged\n\nWithin 60 days.\n"),
        ("# P\n\n## Returns\n\nWithin 30 days.\n\n## Damaged\n\nWithin 60 days.\n",
         "# P\n\n## Returns\n\nWithin 30 days.\n\n### Damaged\n\nWithin 60 days.\n"),
        ("<h1>P</h1><h2>Returns</h2><p>Within 30 days.</p><h3>Damaged</h3><p>60 days.</p>",
         "<h1>P</h1><h2>Returns</h2><p>Within 30 days.</p><h2>Damaged</h2><p>60 days.</p>"),
    ],
    ids=["un-nested", "nested", "html"],
)  # fmt: skip
def test_a_heading_moved_up_or_down_a_level_is_a_change(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, before: str, after: str
) -> None:
    """Before, the snapshot said "no change since" (and --json listed none): the document's
    text was the same, though the sections holding its parts were not."""
    name = "corpus/policy.html" if before.startswith("<") else "corpus/policy.md"
    write_files(corpus_repo, {name: before})
    first = json.loads(cli(corpus_repo, "snapshot", "--json").out)
    write_files(corpus_repo, {name: after})
    done = cli(corpus_repo, "snapshot", "--json")
    second = json.loads(done.out)
    assert second["id"] != first["id"] and second["written"]
    (changed,) = second["changes"]["changed"].values()
    assert "returns" in changed["changed"] and "damaged" in changed["changed"]


UNCITABLE = {
    "corpus/a#b.md": "a#b.md: its path holds '#', where a citation splits a document from its "
    "section, so no item can cite it; rename it",
    "corpus/faq#2/q.md": "faq#2/q.md: its path holds '#', where a citation splits a document "
    "from its section, so no item can cite it; rename it",
    "corpus/x\\y.md": "x\\y.md: its path holds '\\', which a citation may not, so no item can "
    "cite it; rename it",
    "corpus/ lead.md": " lead.md: its path starts with a space, which a citation may not, so "
    "no item can cite it; rename it",
    "corpus/help/ inner.md": None,  # a space after a '/' is a name a citation can hold
    "corpus/plain.md": None,
}


@pytest.mark.parametrize("where", ["working tree", "revision"])
def test_a_document_no_citation_can_name_is_warned_about(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, where: str
) -> None:
    write_files(corpus_repo, {path: "# Title\n\nText.\n" for path in UNCITABLE})
    args = ["snapshot", "--json"] if where == "working tree" else ["snapshot", "--rev", "HEAD",
                                                                   "--json"]  # fmt: skip
    if where == "revision":
        commit_all(corpus_repo, "documents")
    result = cli(corpus_repo, *args)
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert sorted(report["warnings"]) == sorted(w for w in UNCITABLE.values() if w)
    assert report["documents"] == len(UNCITABLE)  # still snapshotted, as they are


# HTML headings whose own ids no citation can name: (the page, the warning, or None).
UNCITABLE_SECTIONS = {
    "corpus/space.html": (
        '<h1 id="refund policy">Refunds</h1><p>Thirty days.</p>',
        "space.html: the section id(s) 'refund policy' hold white space or '#', which a "
        "citation may not, so no item can cite those sections; change the ids (an HTML "
        "heading's `id`)",
    ),
    "corpus/many.html": (
        '<h1 id="a b">A</h1><p>x</p><h2 id="c#d">C</h2><p>y</p><h2 id="e\tf">E</h2><p>z</p>'
        '<h2 id="g h">G</h2><p>w</p><h2 id="ok">K</h2><p>v</p>',
        "many.html: the section id(s) 'a b', 'c#d', 'e\\tf' and 1 more hold white space or "
        "'#', which a citation may not, so no item can cite those sections; change the ids "
        "(an HTML heading's `id`)",
    ),
    "corpus/fine.html": ('<h1 id="refund-policy">Refunds</h1><p>Thirty days.</p>', None),
    "corpus/fine.md": ("# Refund policy\n\nThirty days.\n", None),
    # a heading of no letter or digit gives the empty anchor (the next ones `-1`, `-2`)
    "corpus/marks.md": (
        "# Prices\n\n## !!!\n\nAllowed.\n\n## \U0001f389\n\nParty.\n",
        "marks.md: the heading(s) '!!!' hold no letter or digit, so they give no anchor and no "
        "item can cite their sections (only the document, or a section above them); put a word "
        "in them",
    ),
    "corpus/marks.html": (
        '<h1>\u2705</h1><p>Yes.</p><h1 id="own">\u274c</h1><p>No.</p>',
        "marks.html: the heading(s) '\u2705' hold no letter or digit, so they give no anchor "
        "and no item can cite their sections (only the document, or a section above them); put "
        "a word in them",
    ),
}


@pytest.mark.parametrize("where", ["working tree", "revision"])
def test_sections_no_citation_can_name_are_warned_about(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, where: str
) -> None:
    write_files(corpus_repo, {path: page for path, (page, _) in UNCITABLE_SECTIONS.items()})
    args = ["snapshot", "--json"]
    if where == "revision":
        commit_all(corpus_repo, "documents")
        args += ["--rev", "HEAD"]
    result = cli(corpus_repo, *args)
    assert result.code == 0, result.err
    report = json.loads(result.out)
    wanted = [warning for _, warning in UNCITABLE_SECTIONS.values() if warning]
    assert sorted(report["warnings"]) == sorted(wanted)


# A symlink in the corpus into a content store of the repository (DVC's cache, git-annex's
# objects) whose content is not there: a document not pulled, never one deleted.
DANGLING = [
    # (where the link leads, relative to the repository; the fix)
    (".dvc/cache/files/md5/f1/596161ecb8f033d087d76673727f70", "`dvc pull`"),
    (".dvc/cache/f1/596161ecb8f033d087d76673727f70", "`dvc pull`"),  # DVC 2's layout
    (".git/annex/objects/Xk/Pq/SHA256E-s8--0a1b/SHA256E-s8--0a1b", "`git annex get`"),
]


@pytest.mark.parametrize(("target", "fix"), DANGLING)
def test_a_symlink_into_a_store_without_its_content_is_a_document_not_here(
    corpus_repo: Path,
    target: str,
    fix: str,
    cli,  # type: ignore[no-untyped-def]
) -> None:
    write_files(corpus_repo, {"corpus/a.md": "# Alpha\n\nalpha\n", "corpus/b.md": "# B\n\nb\n"})
    (corpus_repo / ".dvc").mkdir()
    before = snap(corpus_repo)
    (corpus_repo / "corpus/a.md").unlink()
    os.symlink(corpus_repo / target, corpus_repo / "corpus/a.md")
    recorded = sorted(os.listdir(corpus_repo / "snapshots"))
    with pytest.raises(SnapshotError, match=r"holds a\.md, a symlink into") as caught:
        snap(corpus_repo)
    assert f"run {fix}, then take the snapshot" in str(caught.value)
    assert sorted(os.listdir(corpus_repo / "snapshots")) == recorded
    # what compares with the corpus judges by the snapshot recorded, and says why
    done = cli(corpus_repo, "status", "--json")
    assert done.code == 0, done.err
    newest = json.loads(done.out)["newest"]
    assert (newest["snapshot"], newest["corpus"]) == (before.short, "absent")
    assert "holds a.md, a symlink into" in cli(corpus_repo, "status").out
    # a symlink to nothing elsewhere is what it was: inside the corpus, no document (what
    # it named is gone from the corpus); outside, not followed, and said
    for elsewhere, warned in (("corpus/gone.md", []), ("../gone.md", [OUTSIDE])):
        (corpus_repo / "corpus/a.md").unlink()
        os.symlink(corpus_repo / elsewhere, corpus_repo / "corpus/a.md")
        made = snap(corpus_repo)
        assert made.documents == 1 and made.warnings == warned, made.warnings


OUTSIDE = "a.md: symlink to outside the corpus; not followed"


def test_a_symlink_into_the_dvc_cache_is_read_as_the_document(corpus_repo: Path) -> None:
    """DVC's ``cache.type symlink`` links each document into the cache: the same corpus."""
    text = "# Alpha\n\nalpha\n"
    write_files(corpus_repo, {"corpus/a.md": text})
    before = snap(corpus_repo)
    stored = corpus_repo / ".dvc/cache/files/md5/f1/596161ecb8f033d087d76673727f70"
    write_files(corpus_repo, {str(stored.relative_to(corpus_repo)): text})
    (corpus_repo / "corpus/a.md").unlink()
    os.symlink(stored, corpus_repo / "corpus/a.md")
    again = snap(corpus_repo)
    assert again.id == before.id and again.warnings == []
    from evalset.corpus.walk import corpus_file

    assert corpus_file(corpus_repo / "corpus", "a.md") == stored


@pytest.mark.parametrize("level", ["--local", "--project", "--global", "--system"])
def test_a_dvc_cache_moved_wherever_dvc_reads_it_holds_the_documents(  # type: ignore[no-untyped-def]
    corpus_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, level: str, cli
) -> None:
    """DVC's cache moved out of the repository (`dvc cache dir`; a cache shared by every
    repository of a machine is set in the user's or the system's configuration) with
    ``cache.type symlink``: the documents are links into it, read as the documents; the
    cache emptied, they are documents not pulled (never documents deleted)."""
    monkeypatch.setenv("DVC_GLOBAL_CONFIG_DIR", str(tmp_path / "config-global"))
    monkeypatch.setenv("DVC_SYSTEM_CONFIG_DIR", str(tmp_path / "config-system"))
    shared = tmp_path / "shared-cache"
    write_files(corpus_repo, {"corpus/a.md": "# Alpha\n\nalpha\n", "corpus/b.md": "# B\n\nb\n"})
    before = snap(corpus_repo)
    dvc(corpus_repo, "init", "-q")
    # a relative folder is taken from the configuration file's folder, as DVC takes it
    dvc(
        corpus_repo,
        "cache",
        "dir",
        level,
        "../shared-cache" if level == "--project" else str(shared),
    )
    dvc(corpus_repo, "config", "cache.type", "symlink")
    dvc(corpus_repo, "add", "-q", "corpus")
    assert os.path.realpath(corpus_repo / "corpus/a.md").startswith(str(shared))
    again = snap(corpus_repo)
    assert (again.id, again.documents, again.warnings) == (before.id, 2, [])
    shutil.rmtree(shared / "files")  # `dvc gc` elsewhere, a disk not mounted
    with pytest.raises(SnapshotError, match=r"a symlink into DVC's cache whose content is not"):
        snap(corpus_repo)
    done = cli(corpus_repo, "status", "--json")
    assert done.code == 0, done.err
    assert json.loads(done.out)["newest"]["corpus"] == "absent"


def test_a_corpus_emptied_lists_what_it_lost(corpus_repo: Path) -> None:
    write_files(corpus_repo, {"corpus/a.md": "# A\n\na\n"})
    snap(corpus_repo)
    (corpus_repo / "corpus/a.md").unlink()
    emptied = snap(corpus_repo)
    assert emptied.documents == 0
    assert emptied.changes is not None and emptied.changes.removed == ["a.md"]
