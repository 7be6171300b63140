"""T9 to T14 with three peers: two Storyloom stores (A, B) and a PouchDB 9 database (P) in
Node, all syncing through pouchdb-server (R). They edit the same documents concurrently and
must end with the same winners, conflicts and leaves everywhere. Also checks that our
replication id is the one PouchDB computes (3.2)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from storyloom.store import Database, NotFound
from storyloom.sync import RemoteDatabase, Sync, replication_id
from tests.support.couch import CouchServer
from tests.sync.helpers import (
    admin_client,
    local_state,
    pouch_state,
    remote_state,
    winner_of,
)
from tests.sync.pouch_peer import PouchPeer

StoreFactory = Callable[..., Database]


@pytest.fixture
def pouch(tmp_path: Path) -> Iterator[PouchPeer]:
    peer = PouchPeer(tmp_path / "pouch")
    try:
        yield peer
    finally:
        peer.close()


def pouch_sync(pouch: PouchPeer, couch: CouchServer, name: str) -> dict:
    auth = {"username": couch.admin[0], "password": couch.admin[1]}
    return pouch.call("sync", db="p", url=couch.db_url(name), auth=auth)


def sync_all(a: Database, b: Database, remote: RemoteDatabase, pouch: PouchPeer, couch: CouchServer, name: str,
             *, concurrent: bool) -> None:
    jobs = [
        lambda: Sync(a, remote).run(),
        lambda: Sync(b, remote).run(),
        lambda: pouch_sync(pouch, couch, name),
    ]
    if not concurrent:
        for job in jobs:
            job()
        return
    errors: list[BaseException] = []

    def guarded(job: Callable[[], object]) -> None:
        try:
            result = job()
            if hasattr(result, "ok"):
                assert result.ok, result.to_json()  # type: ignore[attr-defined]
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=guarded, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors


def edit(db: Database, doc_id: str, times: int = 1, **fields: object) -> str:
    doc = db.get(doc_id)
    for n in range(times):
        doc.update(fields, edit=n)
        doc["_rev"] = db.put(doc)["rev"]
    return doc["_rev"]


def pouch_edit(pouch: PouchPeer, doc_id: str, **fields: object) -> str:
    doc = pouch.call("get", db="p", id=doc_id)
    doc.update(fields)
    return pouch.call("put", db="p", doc=doc)["rev"]


def test_t9_to_t14_three_peers_converge(
    make_store: StoreFactory, couch: CouchServer, pouch: PouchPeer
) -> None:
    name = couch.create_db()
    remote = admin_client(couch, name)
    a, b = make_store("a"), make_store("b")
    ids = ["t9", "t10", "t11", "t12", "t13", "extra"]
    for doc_id in ids:
        a.put({"_id": doc_id, "origin": "a"})
    sync_all(a, b, remote, pouch, couch, name, concurrent=False)
    for doc_id in ids:
        assert local_state(b, doc_id) == local_state(a, doc_id) == pouch_state(pouch, "p", doc_id)

    # Concurrent offline edits.
    t9 = [edit(a, "t9", who="a"), edit(b, "t9", who="b"), pouch_edit(pouch, "t9", who="p")]  # T9
    t10_long = edit(a, "t10", times=2, who="a")  # T10: 3-x
    edit(b, "t10", who="b")  # 2-y
    a_del = a.remove("t11", a.get("t11")["_rev"])["rev"]  # T11: delete vs edit
    t11_ed = edit(b, "t11", who="b")
    edit(a, "t12", times=3, who="a")  # T12: edits then delete (5-del)
    a.remove("t12", a.get("t12")["_rev"])
    t12_z = edit(b, "t12", who="b")  # 2-z
    # T13: both delete (with different bodies: identical deletes would make one identical rev)
    a.put({"_id": "t13", "_rev": a.get("t13")["_rev"], "_deleted": True, "by": "a"})
    b.put({"_id": "t13", "_rev": b.get("t13")["_rev"], "_deleted": True, "by": "b"})
    pouch_edit(pouch, "extra", who="p")

    # Everyone syncs at the same time, then once more in turn to settle.
    sync_all(a, b, remote, pouch, couch, name, concurrent=True)
    sync_all(a, b, remote, pouch, couch, name, concurrent=False)
    sync_all(a, b, remote, pouch, couch, name, concurrent=False)

    def states(doc_id: str) -> list:
        return [
            local_state(a, doc_id),
            local_state(b, doc_id),
            remote_state(couch, name, doc_id),
            pouch_state(pouch, "p", doc_id),
        ]

    for doc_id in ids:
        got = states(doc_id)
        assert all(s == got[0] for s in got), (doc_id, got)

    # T9: the larger hash wins; the other two are conflicts everywhere.
    s9 = states("t9")[0]
    assert s9.winner == winner_of(t9)
    assert s9.conflicts == frozenset(t9) - {s9.winner}
    # T10: the longer branch wins.
    assert states("t10")[0].winner == t10_long
    # T11: the edit beats the delete; the tombstone is a deleted conflict.
    s11 = states("t11")[0]
    assert s11.winner == t11_ed and s11.conflicts == frozenset()
    assert (a_del, True) in s11.leaves
    assert a.get("t11", deleted_conflicts=True)["_deleted_conflicts"] == [a_del]
    assert b.get("t11", deleted_conflicts=True)["_deleted_conflicts"] == [a_del]
    # T12: a deleted deeper branch loses to a live shorter one.
    assert states("t12")[0].winner == t12_z
    # T13: both deleted: 404 "deleted", two tombstones, not in all_docs, deleted in changes.
    s13 = states("t13")[0]
    assert s13.winner is None and len(s13.leaves) == 2 and all(d for _, d in s13.leaves)
    reply = couch.get_doc(name, "t13")
    assert reply.status_code == 404 and reply.json()["error"] == "not_found"  # pouchdb-server says "missing"
    for db in (a, b):
        with pytest.raises(NotFound) as info:
            db.get("t13")
        assert info.value.reason == "deleted"
        assert "t13" not in [row["id"] for row in db.all_docs()["rows"]]
        row = next(r for r in db.changes()["results"] if r["id"] == "t13")
        assert row.get("deleted") is True
    assert "t13" not in [r["id"] for r in couch.all_docs(name)["rows"]]

    # T14: A resolves the T9 conflict by deleting the losing leaves; it propagates.
    for rev in s9.conflicts:
        a.remove("t9", rev)
    sync_all(a, b, remote, pouch, couch, name, concurrent=False)
    sync_all(a, b, remote, pouch, couch, name, concurrent=False)
    for state in states("t9"):
        assert state.winner == s9.winner and state.conflicts == frozenset()
    remote.close()


def test_replication_id_matches_pouchdb(couch: CouchServer, pouch: PouchPeer) -> None:
    """PouchDB replicating between two remote dbs writes its checkpoint under the id our
    formula gives for (server uuid + db name) pairs."""
    src, dst = couch.create_db(), couch.create_db()
    couch.put_doc(src, {"_id": "x"})
    auth = {"username": couch.admin[0], "password": couch.admin[1]}
    result = pouch.call("replicate", source=couch.db_url(src), target=couch.db_url(dst), auth=auth)
    assert result["result"]["docs_written"] == 1
    expected = replication_id(couch.uuid + src, couch.uuid + dst)
    reply = couch.get_doc(dst, expected)
    assert reply.status_code == 200, reply.text
    assert reply.json()["version"] == 1
