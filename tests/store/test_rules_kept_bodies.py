"""Bounded ancestor bodies (docs/store.md, "Kept bodies"): the newest ``kept_bodies`` revisions
of every path keep their bodies, leaves always; ``compact`` applies the rule to every document;
``local_docs`` lists ``_local`` documents as CouchDB's ``_local_docs`` does."""

from __future__ import annotations

import base64
import sqlite3

import pytest

from storyloom.store import BadRequest, Database, NotFound, revtree


def _edit(db: Database, doc_id: str, times: int, rev: str | None = None, **extra: object) -> list[str]:
    revs = []
    for n in range(times):
        doc = {"_id": doc_id, "n": n, **extra}
        if rev:
            doc["_rev"] = rev
        rev = db.put(doc)["rev"]
        revs.append(rev)
    return revs


def _bodies(db: Database, doc_id: str) -> set[str]:
    with db.snapshot() as snap:
        return {r for (r,) in snap.conn.execute("SELECT rev FROM revs WHERE doc_id = ?", (doc_id,))}


def _available(db: Database, doc_id: str) -> set[str]:
    with db.snapshot() as snap:
        tree = snap.doc_row(doc_id)[0]
    return {f"{p}-{n[0]}" for p, n, _ in revtree.iter_nodes(tree) if n[1]["status"] == revtree.AVAILABLE}


def test_default_keeps_twenty_bodies_per_path(db: Database) -> None:
    assert db.kept_bodies == 20
    revs = _edit(db, "d", 30)
    assert _bodies(db, "d") == set(revs[-20:]) == _available(db, "d")
    assert db.get("d", rev=revs[-20])["n"] == 10
    with pytest.raises(NotFound):
        db.get("d", rev=revs[-21])
    info = db.get("d", revs_info=True)["_revs_info"]
    assert [i["status"] for i in info] == ["available"] * 20 + ["missing"] * 10
    assert len(db.get("d", revs=True)["_revisions"]["ids"]) == 30  # the history stays whole


def test_a_document_saved_many_times_keeps_at_most_n_bodies(db: Database) -> None:
    db.set_kept_bodies(5)
    db.set_revs_limit(100)
    revs = _edit(db, "many", 300, text="x" * 200)
    assert _bodies(db, "many") == set(revs[-5:])
    assert len(db.get("many", revs=True)["_revisions"]["ids"]) == 100  # revs_limit still applies


def test_setting_is_stored_refused_when_not_positive_and_applies_on_next_write(make_db, tmp_path) -> None:
    path = tmp_path / "kept.sqlite"
    with Database(path) as db:
        revs = _edit(db, "d", 10)
        db.set_kept_bodies(3)
        assert _bodies(db, "d") == set(revs)  # not yet written since
        for bad in (0, -1, True, "3", 2.5):
            with pytest.raises(BadRequest):
                db.set_kept_bodies(bad)  # type: ignore[arg-type]
    with Database(path) as db:
        assert db.kept_bodies == 3
        revs += _edit(db, "d", 1, rev=revs[-1])
        assert _bodies(db, "d") == set(revs[-3:])


def test_each_branch_keeps_its_newest_bodies_and_leaves_always(db: Database) -> None:
    db.set_kept_bodies(2)
    base = _edit(db, "d", 3)
    # Two branches from the same parent (a conflict), replicated the way a peer sends them.
    ours = _edit(db, "d", 4, rev=base[-1], side="ours")
    theirs_hashes = [f"{n:032x}" for n in range(4, 8)]
    path = [h for h in reversed(theirs_hashes)] + [revtree.parse_rev(r)[1] for r in reversed(base)]
    assert db.bulk_docs([{"_id": "d", "_rev": f"7-{theirs_hashes[-1]}", "side": "theirs",
                          "_revisions": {"start": 7, "ids": path}}], new_edits=False) == []
    kept = _bodies(db, "d")
    assert kept == set(ours[-2:]) | {f"7-{theirs_hashes[-1]}"} == _available(db, "d")
    # A leaf stays whole whatever its depth, and the nearest leaf decides for a shared ancestor.
    db.set_kept_bodies(4)
    ours2 = _edit(db, "d", 1, rev=ours[-1], side="ours")
    assert _bodies(db, "d") == {ours[-2], ours[-1], ours2[0], f"7-{theirs_hashes[-1]}"}


def test_attachments_of_kept_revisions_survive_and_stubs_still_resolve(db: Database) -> None:
    db.set_kept_bodies(2)
    data = base64.b64encode(b"picture").decode()
    rev = db.put({"_id": "a", "_attachments": {"p.png": {"content_type": "image/png", "data": data}}})["rev"]
    for n in range(10):
        rev = db.put({"_id": "a", "_rev": rev, "n": n, "_attachments": {"p.png": {"stub": True}}})["rev"]
    assert db.get_attachment("a", "p.png") == b"picture"
    assert db.get("a")["_attachments"]["p.png"]["revpos"] == 1
    # A replicated revision whose stub names the attachment resolves against the kept leaf.
    doc = db.get("a", revs=True)
    child = {"_id": "a", "_rev": f"12-{'e' * 32}", "n": 99,
             "_revisions": {"start": 12, "ids": ["e" * 32] + doc["_revisions"]["ids"]},
             "_attachments": {"p.png": {"stub": True, "revpos": 1, "content_type": "image/png"}}}
    assert db.bulk_docs([child], new_edits=False) == []
    assert db.get_attachment("a", "p.png") == b"picture"
    # Dropping the document's last reference collects the data.
    db.put({"_id": "a", "_rev": child["_rev"], "n": 100})
    db.put({"_id": "a", "_rev": db.get("a")["_rev"], "n": 101})
    with db.snapshot() as snap:
        assert snap.conn.execute("SELECT count(*) FROM attachments").fetchone()[0] == 0


def test_compact_applies_the_rule_everywhere_without_new_seqs(make_db) -> None:
    db = make_db()
    for doc_id in ("a", "b", "c"):
        _edit(db, doc_id, 12)
    _edit(db, "one", 1)
    seq = db.info()["update_seq"]
    db.set_kept_bodies(4)
    assert db.compact() == 3 * 8
    assert db.info()["update_seq"] == seq and len(db.changes(since=seq)["results"]) == 0
    for doc_id in ("a", "b", "c"):
        assert len(_bodies(db, doc_id)) == 4 and _bodies(db, doc_id) == _available(db, doc_id)
        assert db.get(doc_id)["n"] == 11
    assert db.compact() == 0


def test_compact_on_a_store_written_before_the_rule(tmp_path) -> None:
    """A store whose documents kept every body (the meta has no kept_bodies) compacts to 20."""
    path = tmp_path / "old.sqlite"
    with Database(path) as db:
        db.set_kept_bodies(1000)
        _edit(db, "d", 50)
    conn = sqlite3.connect(path)
    conn.execute("DELETE FROM meta WHERE key = 'kept_bodies'")
    conn.commit()
    conn.close()
    with Database(path) as db:
        assert db.kept_bodies == 20
        assert db.compact() == 30
        assert len(_bodies(db, "d")) == 20


def test_local_docs_lists_local_documents_like_couchdb(db: Database) -> None:
    assert db.local_docs() == {"total_rows": None, "offset": None, "rows": []}
    db.put_local({"_id": "_local/b", "x": 1})
    db.put_local({"_id": "_local/a", "y": 2})
    db.put_local({"_id": "_local/a", "_rev": "0-1", "y": 3})
    rows = db.local_docs()["rows"]
    assert rows == [{"id": "_local/a", "key": "_local/a", "value": {"rev": "0-2"}},
                    {"id": "_local/b", "key": "_local/b", "value": {"rev": "0-1"}}]
    ranged = db.local_docs(startkey="_local/b", endkey="_local/b\uffff", include_docs=True)["rows"]
    assert ranged == [{"id": "_local/b", "key": "_local/b", "value": {"rev": "0-1"},
                       "doc": {"_id": "_local/b", "_rev": "0-1", "x": 1}}]
    assert db.all_docs()["rows"] == []
