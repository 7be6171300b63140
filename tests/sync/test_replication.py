"""One-shot replication against pouchdb-server 4.2.0: docs/protocol.md section 5, T1 to T5,
T7, T15 to T23, T27, T28, T34, T37, T38, T40."""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

import pytest

from storyloom.store import Database
from storyloom.sync import (
    LocalPeer,
    RemoteDatabase,
    RemotePeer,
    ReplicationOptions,
    Replicator,
    Sync,
    pull,
    push,
    replication_id,
)
from storyloom.sync.errors import RemoteError
from tests.support.couch import CouchServer
from tests.sync.helpers import local_ids, local_state, remote_ids, remote_state

StoreFactory = Callable[..., Database]


def rev_of(result: dict[str, Any]) -> str:
    return result["rev"]


# -- T1 to T5 -----------------------------------------------------------------------------------


def test_t1_push_and_t5_checkpoint_docs(
    make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str], couch: CouchServer
) -> None:
    remote, name = remote_db
    a = make_store("a")
    revs = {f"doc{i}": a.put({"_id": f"doc{i}", "n": i})["rev"] for i in range(3)}
    events: list[str] = []
    status = push(a, remote, on_event=lambda e: events.append(e.type))
    assert status.state == "complete" and status.ok
    assert status.docs_written == 3 and status.docs_read == 3
    assert events[0] == "active" and "change" in events and events[-1] == "complete"
    for doc_id, rev in revs.items():
        doc = couch.get_doc(name, doc_id).json()
        assert doc["_rev"] == rev and doc["n"] == int(doc_id[-1])
    # T5: the same checkpoint on both sides, PouchDB's v1 format.
    rep_id = status.replication_id
    assert rep_id == replication_id(a.info()["instance_uuid"], couch.uuid + name)
    local_cp = a.get_local(rep_id)
    remote_cp = couch.get_doc(name, rep_id).json()
    for cp in (local_cp, remote_cp):
        assert cp["version"] == 1
        assert cp["last_seq"] == a.info()["update_seq"] == 3
        assert cp["session_id"] == status.session_id
        assert cp["history"][0] == {"session_id": status.session_id, "last_seq": 3}


def test_t2_pull(make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str], couch: CouchServer) -> None:
    remote, name = remote_db
    for i in range(3):
        couch.put_doc(name, {"_id": f"r{i}", "v": i})
    a = make_store("a")
    status = pull(remote, a)
    assert status.state == "complete" and status.docs_written == 3
    assert local_ids(a) == remote_ids(couch, name)
    for i in range(3):
        local = a.get(f"r{i}")
        assert local == couch.get_doc(name, f"r{i}").json()
    remote_rows = couch.all_docs(name)["rows"]
    assert [(r["id"], r["value"]["rev"]) for r in a.all_docs()["rows"]] == [
        (r["id"], r["value"]["rev"]) for r in remote_rows
    ]


def test_t3_idempotent_rerun_writes_nothing(
    make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str], couch: CouchServer
) -> None:
    remote, name = remote_db
    a = make_store("a")
    for i in range(5):
        a.put({"_id": f"d{i}"})
    first = push(a, remote)
    info_before = couch.db_info(name)
    cp_before = couch.get_doc(name, first.replication_id).json()
    local_cp_before = a.get_local(first.replication_id)
    second = push(a, remote)
    assert second.docs_read == 0 and second.docs_written == 0 and second.batches == 0
    assert couch.db_info(name)["update_seq"] == info_before["update_seq"]
    assert couch.get_doc(name, first.replication_id).json() == cp_before
    assert a.get_local(first.replication_id) == local_cp_before


def test_t4_no_ping_pong(make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str], couch: CouchServer) -> None:
    remote, name = remote_db
    a = make_store("a")
    for i in range(4):
        a.put({"_id": f"mine{i}"})
    couch.put_doc(name, {"_id": "theirs"})
    first = Sync(a, remote).run()
    assert first.ok and first.push.docs_written == 4 and first.pull.docs_written == 1
    seq_local = a.info()["update_seq"]
    seq_remote = couch.db_info(name)["update_seq"]
    second = Sync(a, remote).run()
    assert second.ok
    assert second.push.docs_written == 0 and second.pull.docs_written == 0
    assert a.info()["update_seq"] == seq_local
    assert couch.db_info(name)["update_seq"] == seq_remote
    assert local_ids(a) == remote_ids(couch, name)


def test_t7_source_checkpoint_lost(
    make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str], couch: CouchServer
) -> None:
    remote, name = remote_db
    for i in range(10):
        couch.put_doc(name, {"_id": f"r{i}"})
    a = make_store("a")
    first = pull(remote, a)
    assert first.docs_written == 10
    cp = couch.get_doc(name, first.replication_id).json()
    couch.request("DELETE", f"/{name}/{first.replication_id}", params={"rev": cp["_rev"]})
    second = pull(remote, a)
    assert second.start_seq == 0  # restarts at 0
    assert second.docs_written == 0  # but nothing is missing
    assert couch.get_doc(name, first.replication_id).status_code == 200  # re-created


# -- trees, stemming, merging --------------------------------------------------------------------


def test_t15_recreate_after_delete(
    make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str], couch: CouchServer
) -> None:
    remote, name = remote_db
    a = make_store("a")
    rev1 = a.put({"_id": "phoenix", "life": 1})["rev"]
    a.remove("phoenix", rev1)
    rev3 = a.put({"_id": "phoenix", "life": 2})["rev"]
    assert rev3.startswith("3-")
    push(a, remote)
    doc = couch.get_doc(name, "phoenix").json()
    assert doc["_rev"] == rev3 and doc["life"] == 2


def test_t16_merge_corpus_same_winners(
    make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str], couch: CouchServer
) -> None:
    """Replicated conflicting revisions give the same winner on the server and the store."""
    remote, name = remote_db
    corpus = {
        "c1": (["1-a", "1-b"], "1-b"),
        "c2": (["1-a", "1-1"], "1-a"),
        "c3": (["2-b", "10-a"], "10-a"),
        "c4": (["1-a", "1-b", "1-c"], "1-c"),
        "c5": (["3-a", "3-b"], "3-b"),
    }
    docs = []
    for doc_id, (revs, _winner) in corpus.items():
        for rev in revs:
            docs.append({"_id": doc_id, "_rev": rev, "value": rev})
    couch.bulk_docs(name, docs, new_edits=False)
    a = make_store("a")
    pull(remote, a)
    b = make_store("b")
    push(a, admin_copy := RemoteDatabase(couch.db_url(name), username="admin", password=couch.admin[1]))
    admin_copy.close()
    pull(remote, b)
    for doc_id, (revs, winner) in corpus.items():
        for state in (local_state(a, doc_id), local_state(b, doc_id), remote_state(couch, name, doc_id)):
            assert state.winner == winner, doc_id
            assert state.conflicts == frozenset(revs) - {winner}


def test_t17_replicated_write_is_a_noop(remote_db: tuple[RemoteDatabase, str], couch: CouchServer) -> None:
    remote, name = remote_db
    peer = RemotePeer(remote)
    doc = {"_id": "x", "_rev": "1-abc", "_revisions": {"start": 1, "ids": ["abc"]}, "v": 1}
    assert peer.write([dict(doc)]) == []
    seq = couch.db_info(name)["update_seq"]
    assert peer.write([dict(doc)]) == []
    assert couch.db_info(name)["update_seq"] == seq


def test_t18_revs_diff(make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str]) -> None:
    remote, _name = remote_db
    a = make_store("a")
    a.bulk_docs([{"_id": "d", "_rev": "2-b", "_revisions": {"start": 2, "ids": ["b", "a"]}}], new_edits=False)
    local = LocalPeer(a).revs_diff({"d": ["2-b", "3-c", "4-d"]})
    assert local == {"d": {"missing": ["3-c", "4-d"], "possible_ancestors": ["2-b"]}}
    remote.bulk_docs([{"_id": "d", "_rev": "2-b", "_revisions": {"start": 2, "ids": ["b", "a"]}}], new_edits=False)
    theirs = RemotePeer(remote).revs_diff({"d": ["2-b", "3-c", "4-d"]})
    assert theirs["d"]["missing"] == ["3-c", "4-d"]  # pouchdb-server omits possible_ancestors


def test_t19_stemmed_history_is_pushed_as_is(
    make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str], couch: CouchServer
) -> None:
    remote, name = remote_db
    a = make_store("a", revs_limit=5)
    rev = a.put({"_id": "s", "n": 0})["rev"]
    for n in range(1, 10):
        rev = a.put({"_id": "s", "_rev": rev, "n": n})["rev"]
    assert rev.startswith("10-")
    push(a, remote)
    doc = couch.get_doc(name, "s", revs="true").json()
    assert doc["_rev"] == rev
    assert doc["_revisions"]["start"] == 10 and len(doc["_revisions"]["ids"]) == 5


def test_t20_disjoint_after_stemming(
    make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str], couch: CouchServer
) -> None:
    remote, name = remote_db
    a = make_store("a", revs_limit=3)
    rev = a.put({"_id": "s", "n": 0})["rev"]
    for n in range(1, 5):
        rev = a.put({"_id": "s", "_rev": rev, "n": n})["rev"]
    push(a, remote)  # R holds s@5
    old = rev
    for n in range(5, 11):
        rev = a.put({"_id": "s", "_rev": rev, "n": n})["rev"]
    assert rev.startswith("11-")
    push(a, remote)
    state = remote_state(couch, name, "s")
    assert {r for r, deleted in state.leaves if not deleted} == {old, rev}
    assert state.winner == rev


# -- attachments ---------------------------------------------------------------------------------

PNG = bytes(range(256)) * 4


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_t21_attachments_push_and_pull(
    make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str], couch: CouchServer
) -> None:
    remote, _name = remote_db
    a = make_store("a")
    a.put(
        {
            "_id": "pic",
            "_attachments": {
                "image.png": {"content_type": "image/png", "data": b64(PNG)},
                "a/b.txt": {"content_type": "text/plain", "data": b64("héllo".encode())},
            },
        }
    )
    assert push(a, remote).docs_written == 1
    assert remote.get_attachment("pic", "image.png") == PNG
    assert remote.get_attachment("pic", "a/b.txt") == "héllo".encode()
    b = make_store("b")
    assert pull(remote, b).docs_written == 1
    assert b.get_attachment("pic", "image.png") == PNG
    assert b.get_attachment("pic", "a/b.txt") == "héllo".encode()


def test_t22_t23_body_edit_keeps_attachment_then_replacement(
    make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str], couch: CouchServer
) -> None:
    remote, name = remote_db
    r1 = couch.put_doc(name, {"_id": "d", "_attachments": {"f.bin": {"content_type": "x/y", "data": b64(PNG)}}})
    a = make_store("a")
    pull(remote, a)
    doc = couch.get_doc(name, "d").json()
    doc["title"] = "body only"
    r2 = couch.put_doc(name, doc)
    assert r2["rev"].startswith("2-") and r1["rev"].startswith("1-")
    status = pull(remote, a)
    assert status.docs_written == 1
    local = a.get("d")
    assert local["_rev"] == r2["rev"] and local["title"] == "body only"
    assert local["_attachments"]["f.bin"]["stub"] is True
    assert local["_attachments"]["f.bin"]["revpos"] == 1
    assert a.get_attachment("d", "f.bin") == PNG
    # T23: new data at generation 3.
    doc = couch.get_doc(name, "d").json()
    doc["_attachments"]["f.bin"] = {"content_type": "x/y", "data": b64(b"new bytes")}
    r3 = couch.put_doc(name, doc)
    pull(remote, a)
    local = a.get("d")
    assert local["_rev"] == r3["rev"]
    assert local["_attachments"]["f.bin"]["revpos"] == 3
    assert a.get_attachment("d", "f.bin") == b"new bytes"


class InjectAncestors(RemotePeer):
    """A target that claims ``possible_ancestors`` the way CouchDB does, so the source sends
    attachment stubs the server cannot resolve (T24). Records every write: ``"ok"`` or the
    error it raised."""

    def __init__(self, remote: RemoteDatabase, ancestors: list[str]) -> None:
        super().__init__(remote)
        self.ancestors = ancestors
        self.writes: list[str] = []

    def revs_diff(self, revs: dict[str, list[str]]) -> dict[str, Any]:
        diff = super().revs_diff(revs)
        for entry in diff.values():
            entry["possible_ancestors"] = list(self.ancestors)
        return diff

    def write(self, docs: list[dict[str, Any]]) -> list[dict[str, Any]]:
        try:
            failures = super().write(docs)
        except Exception as exc:
            self.writes.append(type(exc).__name__)
            raise
        self.writes.append("ok")
        return failures


class RecordingFetch(LocalPeer):
    """Records each fetch: its ``atts_since`` and, per returned doc, whether each attachment
    came as a stub or with its data."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.fetches: list[tuple[Any, dict[str, dict[str, str]]]] = []

    def fetch(self, missing: dict[str, list[str]], atts_since: dict[str, list[str]] | None = None) -> Any:
        result = super().fetch(missing, atts_since)
        shapes = {
            doc["_id"]: {
                att_name: ("stub" if att.get("stub") else "data" if "data" in att else "?")
                for att_name, att in (doc.get("_attachments") or {}).items()
            }
            for doc in result.docs
        }
        self.fetches.append((atts_since, shapes))
        return result


def test_t24_missing_stub_is_recovered_with_full_data(
    make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str], couch: CouchServer
) -> None:
    remote, name = remote_db
    a = make_store("a")
    rev1 = a.put({"_id": "d", "_attachments": {"f.bin": {"content_type": "x/y", "data": b64(b"unique-" + PNG)}}})[
        "rev"
    ]
    doc = a.get("d")
    doc["_rev"] = rev1
    doc["title"] = "second"
    rev2 = a.put(doc)["rev"]
    # The target claims to hold 2-… as an ancestor: the source sends f.bin as a stub, which the
    # server cannot resolve (it has never seen these bytes): 412, then a full resend.
    # (into a database that holds something: a first push into an empty one asks no _revs_diff)
    couch.put_doc(name, {"_id": "already-there"})
    target = InjectAncestors(remote, [rev2])
    source = RecordingFetch(a)
    bulk_docs_answers: list[tuple[int, str]] = []
    send = remote.bulk_docs_serialized

    def recording_bulk_docs(docs: list[bytes], *, new_edits: bool = False) -> list[dict[str, Any]]:
        try:
            reply = send(docs, new_edits=new_edits)
        except RemoteError as exc:
            bulk_docs_answers.append((exc.status, exc.error))
            raise
        bulk_docs_answers.append((201, "ok"))
        return reply

    remote.bulk_docs_serialized = recording_bulk_docs  # type: ignore[method-assign]
    status = Replicator(source, target, direction="push").run()
    assert status.state == "complete", status.to_json()
    # The 412 path really ran, once: a write refused for the stub, one refetch without
    # atts_since that carries the attachment's data, and a write that succeeds.
    assert bulk_docs_answers == [(412, "missing_stub"), (201, "ok")]
    assert target.writes == ["StubsUnresolved", "ok"]
    assert source.fetches == [({"d": [rev2]}, {"d": {"f.bin": "stub"}}), (None, {"d": {"f.bin": "data"}})]
    assert status.docs_written == 1 and status.retries == 0
    assert remote.get_attachment("d", "f.bin") == b"unique-" + PNG
    assert couch.get_doc(name, "d").json()["_rev"] == rev2


# -- filters ------------------------------------------------------------------------------------


def test_t27_doc_ids_larger_than_a_batch(
    make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str], couch: CouchServer
) -> None:
    remote, name = remote_db
    a = make_store("a")
    a.bulk_docs([{"_id": f"d{i:04d}"} for i in range(400)])
    wanted = [f"d{i:04d}" for i in range(0, 400, 2)] + [f"d{i:04d}" for i in range(1, 100, 2)]
    assert len(wanted) == 250
    status = push(a, remote, ReplicationOptions(doc_ids=wanted, batch_size=100))
    assert status.docs_written == 250
    assert sorted(remote_ids(couch, name)) == sorted(wanted)
    assert status.replication_id != replication_id(a.info()["instance_uuid"], couch.uuid + name)
    # and pulling by doc_ids (POST _changes?filter=_doc_ids)
    b = make_store("b")
    pulled = pull(remote, b, ReplicationOptions(doc_ids=wanted[:120], batch_size=50))
    assert pulled.docs_written == 120
    assert sorted(local_ids(b)) == sorted(wanted[:120])


def test_t28_filter_advances_the_checkpoint(make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str]) -> None:
    remote, _name = remote_db
    a = make_store("a")
    a.bulk_docs([{"_id": f"d{i}"} for i in range(100)])
    status = push(a, remote, ReplicationOptions(doc_ids=["nothing-matches"]))
    assert status.docs_written == 0
    assert status.last_seq == a.info()["update_seq"] == 100
    assert a.get_local(status.replication_id)["last_seq"] == 100
    again = push(a, remote, ReplicationOptions(doc_ids=["nothing-matches"]))
    assert again.start_seq == 100 and again.batches == 0


# -- remote db recreated ----------------------------------------------------------------------


def test_t34_remote_db_recreated(make_store: StoreFactory, couch: CouchServer, admin_remote: Any) -> None:
    name = couch.create_db()
    remote = admin_remote(name)
    a = make_store("a")
    a.bulk_docs([{"_id": f"d{i}"} for i in range(20)])
    couch.put_doc(name, {"_id": "theirs"})
    assert Sync(a, remote).run().ok
    couch.delete_db(name)
    couch.create_db(name)
    couch.put_doc(name, {"_id": "new-theirs"})
    pulled = pull(remote, a)
    assert pulled.state == "complete" and pulled.start_seq == 0 and pulled.docs_written == 1
    pushed = push(a, remote)
    assert pushed.state == "complete" and pushed.start_seq == 0
    assert pushed.docs_written == 21  # everything re-uploaded
    assert sorted(remote_ids(couch, name)) == sorted(local_ids(a))


# -- ids and _local -------------------------------------------------------------------------------

ODD_IDS = ["a/b", "3&2", "é/ü", "x+y", "sp ace", "q?x=1#f", "_design/d"]


@pytest.mark.parametrize("use_bulk_get", [True, False], ids=["bulk_get", "open_revs"])
def test_t37_odd_ids_round_trip(
    make_store: StoreFactory, couch: CouchServer, admin_remote: Any, use_bulk_get: bool
) -> None:
    name = couch.create_db()
    remote = admin_remote(name)
    a = make_store("a")
    for doc_id in ODD_IDS:
        a.put({"_id": doc_id, "id_copy": doc_id, "_attachments": {"a/b.txt": {"content_type": "text/plain",
                                                                                 "data": b64(doc_id.encode())}}})
    assert push(a, remote).docs_written == len(ODD_IDS)
    assert sorted(remote_ids(couch, name)) == sorted(ODD_IDS)
    for doc_id in ODD_IDS:
        assert remote.get(doc_id)["id_copy"] == doc_id
        assert remote.get_attachment(doc_id, "a/b.txt") == doc_id.encode()
    # Edit on the server so the pull needs full revisions (not the generation-1 shortcut).
    for doc_id in ODD_IDS:
        doc = remote.get(doc_id)
        doc["edited"] = True
        remote.put(doc)
    # Per client (each replication's clone copies it): True tries _bulk_get, False goes
    # straight to the open_revs fallback.
    remote.bulk_get_supported = use_bulk_get
    b = make_store("b")
    assert pull(remote, b).docs_written == len(ODD_IDS)
    for doc_id in ODD_IDS:
        doc = b.get(doc_id)
        assert doc["id_copy"] == doc_id and doc["edited"] is True
        assert b.get_attachment(doc_id, "a/b.txt") == doc_id.encode()
        assert remote.get_local(f"_local/{doc_id.replace('/', '-')}") is None


def test_t38_local_docs_are_not_replicated(
    make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str], couch: CouchServer
) -> None:
    remote, name = remote_db
    a = make_store("a")
    a.put_local({"_id": "_local/x", "private": True})
    a.put({"_id": "public"})
    push(a, remote)
    assert couch.get_doc(name, "_local/x").status_code == 404
    # _local on the server: revs 0-1, 0-2; a stale rev gives 409.
    first = remote.put_local({"_id": "_local/y", "n": 1})
    assert first["rev"] == "0-1"
    second = remote.put_local({"_id": "_local/y", "_rev": "0-1", "n": 2})
    assert second["rev"] == "0-2"
    from storyloom.sync.errors import RemoteConflict

    with pytest.raises(RemoteConflict):
        remote.put_local({"_id": "_local/y", "_rev": "0-1", "n": 3})


def test_t40_changes_feed_lists_every_leaf(make_store: StoreFactory) -> None:
    """What the replicator relies on: style=all_docs lists all leaves, tombstones included,
    in one row per document."""
    a = make_store("a")
    a.bulk_docs(
        [
            {"_id": "d", "_rev": "2-b", "_revisions": {"start": 2, "ids": ["b", "a"]}},
            {"_id": "d", "_rev": "2-c", "_revisions": {"start": 2, "ids": ["c", "a"]}},
            {"_id": "d", "_rev": "3-d", "_deleted": True, "_revisions": {"start": 3, "ids": ["d", "e", "a"]}},
        ],
        new_edits=False,
    )
    rows = a.changes(style="all_docs")["results"]
    assert len(rows) == 1
    assert {c["rev"] for c in rows[0]["changes"]} == {"2-b", "2-c", "3-d"}


def test_a_lone_surrogate_goes_through_a_push_and_a_pull(
    make_store: StoreFactory, remote_db: tuple[RemoteDatabase, str], couch: CouchServer
) -> None:
    """A string holding half of a surrogate pair (JSON and JavaScript allow it, UTF-8 cannot hold
    it) travels as its escape and arrives as the same string; the push used to fail."""
    remote, name = remote_db
    a = make_store("a")
    odd = "half \ud800 of a pair, é"
    a.put({"_id": "odd", "name": odd})
    pushed = push(a, remote)
    assert pushed.state == "complete" and pushed.docs_written == 1, pushed.last_error_message
    assert couch.get_doc(name, "odd").json()["name"] == odd
    b = make_store("b")
    pulled = pull(remote, b)
    assert pulled.state == "complete" and pulled.docs_written == 1
    assert b.get("odd")["name"] == odd
