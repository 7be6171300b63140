"""The pull's fetching (documents read with the changes feed, ``_bulk_get``, the PouchDB-style
fallback), checked against the real pouchdb-server for attachments, tombstones and conflicts;
progress events of push and pull; an interrupted first pull resuming; ``storyloom sync``'s
progress bar on a terminal and its absence when piped."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from storyloom.progress import Progress
from storyloom.store import Database
from storyloom.sync import ReplicationOptions, SyncEvent, make_pull, pull, push
from storyloom.sync.peers import take_included_docs
from tests.support.couch import CouchServer
from tests.sync.helpers import admin_client, local_ids, local_state, remote_ids, remote_state, run_storyloom


def _mixed_database(couch: CouchServer) -> tuple[str, list[str]]:
    """A database with every shape a pull meets: plain first revisions, a second generation
    with an attachment, a tombstone, a two-leaf conflict, a first revision with an attachment."""
    name = couch.create_db()
    plain = [{"_id": f"plain-{i:03d}", "n": i, "text": "é" * i} for i in range(30)]
    couch.bulk_docs(name, plain)
    first = couch.put_doc(name, {"_id": "att", "v": 1, "_attachments": {
        "f.txt": {"content_type": "text/plain", "data": base64.b64encode(b"hello").decode()}}})
    current = couch.get_doc(name, "att").json()
    current["v"] = 2
    couch.put_doc(name, current)
    assert first["rev"].startswith("1-")
    couch.put_doc(name, {"_id": "att-new", "_attachments": {
        "g.bin": {"content_type": "application/octet-stream", "data": base64.b64encode(b"\x00\x01").decode()}}})
    gone = couch.put_doc(name, {"_id": "gone", "v": 1})
    assert couch.request("DELETE", f"/{name}/gone", params={"rev": gone["rev"]}).status_code == 200
    couch.bulk_docs(name, [{"_id": "split", "_rev": "1-aaa", "side": "a"},
                           {"_id": "split", "_rev": "1-bbb", "side": "b"}], new_edits=False)
    return name, [d["_id"] for d in plain] + ["att", "att-new", "gone", "split"]


@pytest.mark.parametrize("mode", ["changes", "bulk_get", "fallback"])
def test_every_document_shape_pulls_the_same_way(couch: CouchServer, tmp_path: Path, mode: str) -> None:
    """Documents read with the changes feed (``changes``), with ``_bulk_get`` only
    (``bulk_get``), and through the fallback a server without ``_bulk_get`` gets (``_all_docs``
    for first revisions, ``open_revs`` for the rest): the same trees, bodies and attachments."""
    name, ids = _mixed_database(couch)
    remote = admin_client(couch, name)
    if mode == "fallback":
        remote.bulk_get_supported = False  # as after a 404 from _bulk_get (the clone inherits it)
    db = Database(tmp_path / "pulled.sqlite")
    try:
        status = pull(remote, db, ReplicationOptions(batch_size=7, include_docs=mode == "changes"))
        assert status.state == "complete", status.to_json()
        assert status.docs_written == len(ids) + 1  # both leaves of the conflict
        for doc_id in ids:
            assert local_state(db, doc_id) == remote_state(couch, name, doc_id), doc_id
            if doc_id != "gone":
                ours = db.get(doc_id, attachments=True, revs=True)
                theirs = couch.get_doc(name, doc_id, attachments="true", revs="true").json()
                for doc in (ours, theirs):
                    for meta in (doc.get("_attachments") or {}).values():
                        # md5 on the server, sha-based here; pouchdb-server leaves out the
                        # length of inline data
                        meta.pop("digest", None)
                        meta.pop("length", None)
                assert ours == theirs, doc_id
        loser = db.get("split", rev="1-aaa")
        assert loser["side"] == "a"
        assert base64.b64decode(db.get("att", attachments=True)["_attachments"]["f.txt"]["data"]) == b"hello"
    finally:
        db.close()
        remote.close()


def test_included_documents_are_taken_only_when_exactly_what_bulk_get_returns() -> None:
    rows: list[dict[str, Any]] = [
        {"id": "a", "changes": [{"rev": "1-x"}], "doc": {"_id": "a", "_rev": "1-x", "v": 1}},
        {"id": "b", "changes": [{"rev": "2-y"}], "doc": {"_id": "b", "_rev": "2-y"}},
        {"id": "c", "changes": [{"rev": "1-z"}], "doc": {"_id": "c", "_rev": "1-z", "_deleted": True}},
        {"id": "d", "changes": [{"rev": "1-w"}], "doc": {"_id": "d", "_rev": "1-w", "_attachments": {}}},
        {"id": "e", "changes": [{"rev": "1-p"}, {"rev": "1-q"}], "doc": {"_id": "e", "_rev": "1-q"}},
        {"id": "f", "changes": [{"rev": "1-r"}], "doc": {"_id": "f", "_rev": "1-r"}},  # not missing
    ]
    missing = {"a": ["1-x"], "b": ["2-y"], "c": ["1-z"], "d": ["1-w"], "e": ["1-p", "1-q"]}
    taken = take_included_docs(rows, missing)
    assert taken == [
        {"_id": "a", "_rev": "1-x", "v": 1, "_revisions": {"start": 1, "ids": ["x"]}},
        {"_id": "e", "_rev": "1-q", "_revisions": {"start": 1, "ids": ["q"]}},
    ]
    # What was taken leaves the missing list; the rest is fetched as usual.
    assert missing == {"b": ["2-y"], "c": ["1-z"], "d": ["1-w"], "e": ["1-p"]}
    assert all("doc" not in row for row in rows)


def test_progress_of_a_push_and_of_a_first_pull(couch: CouchServer, tmp_path: Path) -> None:
    name = couch.create_db()
    remote = admin_client(couch, name)
    source = Database(tmp_path / "a.sqlite")
    target = Database(tmp_path / "b.sqlite")
    try:
        source.bulk_docs([{"_id": f"d-{i:04d}", "n": i} for i in range(1200)])
        source.bulk_docs([{"_id": "d-0000", "_rev": source.get("d-0000")["_rev"], "_deleted": True}])
        pushed: list[Progress] = []
        status = push(source, remote, ReplicationOptions(batch_size=250), progress=pushed.append)
        assert status.state == "complete" and status.docs_written == 1200
        assert {e.phase for e in pushed} == {"push"}
        assert pushed[-1].finished and pushed[-1].done == pushed[-1].total == 1200
        assert all(e.total == 1200 for e in pushed if e.total is not None)
        assert [e.done for e in pushed] == sorted(e.done for e in pushed)

        pulled: list[Progress] = []
        status = pull(remote, target, ReplicationOptions(batch_size=250), progress=pulled.append)
        assert status.state == "complete" and status.docs_written == 1200
        assert {e.phase for e in pulled} == {"pull"}
        # From the start, the total is the server's count of documents (deleted ones included
        # where the server counts them: pouchdb-server does not); at the end, what was done.
        info = couch.db_info(name)
        assert pulled[0].total == info["doc_count"] + info.get("doc_del_count", 0) and not pulled[0].finished
        assert pulled[-1].finished and pulled[-1].done == pulled[-1].total == 1200
        assert status.handled == status.total == 1200

        again: list[Progress] = []
        status = pull(remote, target, progress=again.append)
        assert status.docs_written == 0 and again[-1].finished and again[-1].done == 0
    finally:
        source.close()
        target.close()
        remote.close()


def test_an_interrupted_first_pull_resumes_from_its_last_checkpoint(couch: CouchServer, tmp_path: Path) -> None:
    """Cancelled after its third batch (with the default include_docs, i.e. the changes feed
    carrying the documents), a first pull leaves a checkpoint; the next pull starts there,
    fetches only the rest, and ends with the same documents as the server."""
    name = couch.create_db()
    for start in range(0, 2000, 500):
        couch.bulk_docs(name, [{"_id": f"doc-{i:04d}", "n": i} for i in range(start, start + 500)])
    remote = admin_client(couch, name)
    db = Database(tmp_path / "a.sqlite")
    try:
        changes = 0
        replicator: Any = None

        def on_event(event: SyncEvent) -> None:
            nonlocal changes
            if event.type == "change":
                changes += 1
                if changes == 3:
                    replicator.cancel()

        replicator = make_pull(remote, db, ReplicationOptions(batch_size=200, checkpoint_interval=0), on_event)
        first = replicator.run()
        assert first.state == "cancelled"
        assert first.handled == 600 and db.info()["doc_count"] == 600
        checkpoint = db.get_local(first.replication_id)
        assert checkpoint["last_seq"] == first.last_seq

        seen: list[Progress] = []
        second = pull(remote, db, ReplicationOptions(batch_size=200), progress=seen.append)
        assert second.state == "complete"
        assert second.start_seq == checkpoint["last_seq"]  # not 0
        assert second.docs_written == 1400 and second.handled == 1400
        assert db.info()["doc_count"] == 2000 and local_ids(db) == remote_ids(couch, name)
        assert seen[-1].done == 1400
    finally:
        db.close()
        remote.close()


def test_sync_draws_a_bar_on_a_terminal_and_nothing_when_piped(couch: CouchServer, tmp_path: Path) -> None:
    name = couch.create_db()
    couch.bulk_docs(name, [{"_id": f"doc-{i:03d}", "n": i} for i in range(300)])
    base = ["--remote", couch.db_url(name), "-u", couch.admin[0], "--direction", "pull"]
    for path in ("a", "b", "c"):
        Database(tmp_path / f"{path}.sqlite").close()  # sync takes an existing store file
    env = {"STORYLOOM_REMOTE_PASSWORD": couch.admin[1]}
    code, err = run_storyloom(["sync", str(tmp_path / "a.sqlite"), *base], terminal=True, env=env)
    assert code == 0, err
    assert "Pulling" in err and "300/300" in err, err
    code, err = run_storyloom(["sync", str(tmp_path / "b.sqlite"), *base], terminal=False, env=env)
    assert code == 0, err
    assert err == ""
    code, err = run_storyloom(["sync", str(tmp_path / "c.sqlite"), *base, "--quiet"], terminal=True, env=env)
    assert code == 0, err
    assert "Pulling" not in err
    for path in ("a", "b", "c"):
        db = Database(tmp_path / f"{path}.sqlite")
        assert db.info()["doc_count"] == 300
        db.close()
