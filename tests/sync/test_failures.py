"""Failure handling: denied documents (T30, T31), missing credentials and permissions (T32,
wrong password, non-member), 413 bisection through nginx (T33), network errors and retry."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from storyloom.store import Database
from storyloom.sync import (
    AccessDenied,
    DatabaseMissing,
    LocalPeer,
    NetworkError,
    RemoteDatabase,
    RemotePeer,
    ReplicationOptions,
    Replicator,
    Sync,
    capped_backoff,
    make_push,
    pull,
    push,
    replication_id,
)
from storyloom.sync.replicator import SyncEvent, failed_docs_id
from tests.support.couch import CouchServer
from tests.support.nginx import NginxProxy
from tests.sync.helpers import local_ids, remote_ids, wait_for

StoreFactory = Callable[..., Database]

VDU = """function (newDoc, oldDoc, userCtx) {
  if (!newDoc._deleted && !newDoc.ok) { throw({forbidden: 'every document needs ok'}); }
}"""


def protected_db(couch: CouchServer, members: list[str]) -> str:
    name = couch.create_db()
    for user in [*members, "mallory"]:
        couch.create_user(user, f"{user}-pw")
    couch.set_security(name, members=members)
    return name


def client(couch: CouchServer, name: str, user: str | None = None, password: str | None = None,
           **kwargs: Any) -> RemoteDatabase:
    return RemoteDatabase(couch.db_url(name), username=user, password=password, **kwargs)


def test_t30_validation_rejection_is_denied_and_skipped(
    make_store: StoreFactory, couch: CouchServer, admin_remote: Any
) -> None:
    name = couch.create_db()
    couch.put_doc(name, {"_id": "_design/v", "validate_doc_update": VDU})
    remote = admin_remote(name)
    a = make_store("a")
    a.bulk_docs([{"_id": "g1", "ok": 1}, {"_id": "g2", "ok": 1}, {"_id": "bad"}, {"_id": "g3", "ok": 1}])
    events: list[SyncEvent] = []
    status = push(a, remote, on_event=events.append)
    assert status.state == "complete"
    assert status.docs_written == 3 and status.doc_write_failures == 1 and status.denied == 1
    assert [f.id for f in status.failures] == ["bad"] and status.failures[0].error == "forbidden"
    denied = [e for e in events if e.type == "denied"]
    assert len(denied) == 1 and denied[0].docs[0]["id"] == "bad"
    assert status.last_seq == a.info()["update_seq"]  # the checkpoint moves past it
    assert sorted(remote_ids(couch, name)) == ["_design/v", "g1", "g2", "g3"]


def test_t31_design_doc_from_a_member_is_denied(make_store: StoreFactory, couch: CouchServer) -> None:
    name = protected_db(couch, ["alice"])
    remote = client(couch, name, "alice", "alice-pw")
    a = make_store("a")
    a.bulk_docs([{"_id": "_design/x", "views": {}}, {"_id": "one"}, {"_id": "two"}])
    status = push(a, remote)
    remote.close()
    assert status.state == "complete"
    assert status.docs_written == 2 and status.denied == 1
    assert status.failures[0].id == "_design/x" and status.failures[0].error in ("unauthorized", "forbidden")
    assert sorted(remote_ids(couch, name)) == ["one", "two"]


def test_t32_anonymous_on_a_protected_db_is_fatal_without_retry(make_store: StoreFactory, couch: CouchServer) -> None:
    name = protected_db(couch, ["alice"])
    remote = client(couch, name)
    started = time.monotonic()
    status = pull(remote, make_store("a"), ReplicationOptions(retry=True))
    remote.close()
    assert time.monotonic() - started < 5
    assert status.state == "error" and status.retries == 0
    error = status.last_error
    assert isinstance(error, AccessDenied) and error.action == "credentials"
    assert "requires a user name and password" in error.message and name in error.message
    assert error.refused is not None and error.refused.status == 401


@pytest.mark.parametrize("auth", ["basic", "cookie"])
def test_wrong_password_names_the_user(make_store: StoreFactory, couch: CouchServer, auth: str) -> None:
    name = protected_db(couch, ["alice"])
    remote = client(couch, name, "alice", "not-her-password", auth=auth)
    sync = Sync(make_store("a"), remote, ReplicationOptions(retry=True))
    result = sync.run()
    remote.close()
    assert result.state == "error"
    error = result.push.last_error
    assert isinstance(error, AccessDenied) and error.action == "credentials"
    assert "rejected the password for user 'alice'" in error.message
    assert result.pull.state == "idle"  # the same failure would stop the pull: reported once


def test_non_member_user_is_told_to_ask_for_membership(make_store: StoreFactory, couch: CouchServer) -> None:
    name = protected_db(couch, ["alice"])
    remote = client(couch, name, "mallory", "mallory-pw")
    status = pull(remote, make_store("a"))
    remote.close()
    assert status.state == "error"
    error = status.last_error
    assert isinstance(error, AccessDenied) and error.action == "read"
    assert "user 'mallory' is signed in but is not allowed to read" in error.message
    assert "members" in error.message and "_security" in error.message


def test_member_can_sync(make_store: StoreFactory, couch: CouchServer) -> None:
    name = protected_db(couch, ["alice"])
    couch.put_doc(name, {"_id": "shared"})
    remote = client(couch, name, "alice", "alice-pw", auth="cookie")
    a = make_store("a")
    a.put({"_id": "mine"})
    result = Sync(a, remote).run()
    remote.close()
    assert result.ok, result.to_json()
    assert sorted(local_ids(a)) == sorted(remote_ids(couch, name)) == ["mine", "shared"]


def test_missing_remote_db_is_not_created_by_a_non_admin(make_store: StoreFactory, couch: CouchServer) -> None:
    couch.create_user("alice", "alice-pw")
    remote = client(couch, "does-not-exist-" + str(time.time_ns()), "alice", "alice-pw")
    a = make_store("a")
    a.put({"_id": "x"})
    status = push(a, remote)
    assert status.state == "error" and isinstance(status.last_error, DatabaseMissing)
    assert "cannot create it" in status.last_error.message
    assert couch.alive()  # a non-admin PUT /db would have crashed pouchdb-server
    pulled = pull(remote, a)
    assert isinstance(pulled.last_error, DatabaseMissing) and "does not exist" in pulled.last_error.message
    remote.close()


def test_admin_push_creates_the_remote_db(make_store: StoreFactory, couch: CouchServer) -> None:
    name = "created-" + str(time.time_ns())
    remote = client(couch, name, *couch.admin)
    a = make_store("a")
    a.put({"_id": "x"})
    status = push(a, remote)
    remote.close()
    assert status.ok and remote_ids(couch, name) == ["x"]


# -- 413 through nginx ----------------------------------------------------------------------------


def test_t33_413_bisection_through_nginx(
    make_store: StoreFactory, couch: CouchServer, nginx_proxy: NginxProxy
) -> None:
    name = couch.create_db()
    remote = RemoteDatabase(f"{nginx_proxy.url}/{name}", username=couch.admin[0], password=couch.admin[1])
    a = make_store("a")
    a.bulk_docs([{"_id": f"small-{i:02d}", "text": "x" * 100} for i in range(50)])
    a.put({"_id": "huge", "text": "y" * 20_000})
    events: list[SyncEvent] = []
    status = push(a, remote, on_event=events.append)
    assert status.state == "complete"
    assert status.docs_written == 50 and status.doc_write_failures == 1 and status.denied == 0
    failure = status.failures[0]
    assert failure.id == "huge" and failure.error == "too_large"
    assert failure.size is not None and failure.size > 20_000
    assert "413" in failure.reason
    assert "client_max_body_size" in (failure.remedy or "") and "max_document_size" in (failure.remedy or "")
    assert "huge" in (status.last_error_message or "")
    assert sorted(remote_ids(couch, name)) == [f"small-{i:02d}" for i in range(50)]
    # The checkpoint moves past the failed document, which is listed for the next run: that
    # run sends it again (first) and nothing else.
    assert status.last_seq == a.info()["update_seq"]
    assert list(a.get_local(failed_docs_id(status.replication_id))["docs"]) == ["huge"]
    again = push(a, remote)
    assert again.start_seq == status.last_seq
    assert again.docs_written == 0 and [f.id for f in again.failures] == ["huge"]
    # Pulling through the proxy works, and a byte limit below the proxy's avoids the 413s.
    b = make_store("b")
    assert pull(remote, b).docs_written == 50
    c = make_store("c")
    c.bulk_docs([{"_id": f"c-{i:02d}", "text": "z" * 500} for i in range(40)])
    bounded = push(c, remote, ReplicationOptions(max_request_bytes=6000))
    assert bounded.ok and bounded.docs_written == 40
    nginx_log = (nginx_proxy.workdir / "access.log").read_text()
    assert nginx_log.count('" 413 ') >= 3  # the bisection really went through nginx
    remote.close()


# -- network errors ------------------------------------------------------------------------------


def test_unreachable_server_retries_with_backoff_then_gives_up(make_store: StoreFactory) -> None:
    remote = RemoteDatabase("http://127.0.0.1:1/nowhere", timeout=2)
    events: list[SyncEvent] = []
    status = push(
        make_store("a"),
        remote,
        ReplicationOptions(retry=True, max_retries=2, backoff=capped_backoff(0.05)),
        on_event=events.append,
    )
    assert status.state == "error" and status.retries == 2
    assert isinstance(status.last_error, NetworkError)
    kinds = [e.type for e in events]
    assert kinds.count("paused") == 2 and kinds[-2:] == ["error", "complete"]
    paused = [e for e in events if e.type == "paused"]
    assert all(isinstance(e.error, NetworkError) for e in paused)
    remote.close()


def test_server_crash_is_a_network_error_and_the_fixture_restarts_it(
    make_store: StoreFactory, fresh_couch: CouchServer
) -> None:
    import httpx

    couch = fresh_couch
    name = couch.create_db()
    remote = RemoteDatabase(couch.db_url(name), username=couch.admin[0], password=couch.admin[1])
    a = make_store("a")
    a.put({"_id": "x"})
    # pouchdb-server 4.2.0 dies on an anonymous PUT /newdb once an admin exists (section 6).
    with pytest.raises(httpx.HTTPError):
        httpx.put(f"{couch.url}/crash-me", timeout=5)
    time.sleep(0.2)
    assert not couch.alive()
    status = push(a, remote)
    assert status.state == "error" and isinstance(status.last_error, NetworkError)
    assert "cannot reach" in (status.last_error_message or "")
    couch.ensure_running()
    assert couch.alive()
    assert push(a, remote).ok  # same port, data kept (--dir)
    assert remote_ids(couch, name) == ["x"]
    remote.close()


def test_too_large_document_is_listed_and_does_not_hold_the_checkpoint(
    make_store: StoreFactory, couch: CouchServer, nginx_proxy: NginxProxy
) -> None:
    """After a 413 the checkpoint still advances (one-shot and live); the document is kept in
    the store's ``_local`` failed-documents list, sent first by the next run, and leaves the
    list once it went through (after shrinking it, or with the limit raised)."""
    name = couch.create_db()
    admin = couch.admin
    proxied = RemoteDatabase(f"{nginx_proxy.url}/{name}", username=admin[0], password=admin[1])
    direct = RemoteDatabase(couch.db_url(name), username=admin[0], password=admin[1])  # no body limit
    a = make_store("a")
    a.bulk_docs([{"_id": f"a-{i:02d}", "text": "x" * 100} for i in range(15)])
    huge_rev = a.put({"_id": "huge", "text": "y" * 20_000})["rev"]
    a.bulk_docs([{"_id": f"b-{i:02d}", "text": "x" * 100} for i in range(15)])
    options = ReplicationOptions(batch_size=10)
    try:
        first = push(a, proxied, options)
        assert first.state == "complete" and first.docs_written == 30
        assert [f.id for f in first.failures] == ["huge"]
        rep_id = first.replication_id
        assert rep_id is not None
        seq = a.info()["update_seq"]
        # Checkpointed past the refused document, on both sides.
        assert first.last_seq == seq
        assert a.get_local(rep_id)["last_seq"] == seq == couch.get_doc(name, rep_id).json()["last_seq"]
        listed = a.get_local(failed_docs_id(rep_id))["docs"]
        assert list(listed) == ["huge"] and listed["huge"]["revs"] == [huge_rev]
        assert listed["huge"]["size"] > 20_000

        # A repeated run starts at the checkpoint, not before the refused document; it tries
        # the listed document first (still too large) and sends the new ones.
        a.bulk_docs([{"_id": f"c-{i:02d}"} for i in range(5)])
        again = push(a, proxied, options)
        assert again.start_seq == seq
        assert again.docs_written == 5 and [f.id for f in again.failures] == ["huge"]
        assert again.last_seq == a.info()["update_seq"]

        # Live: another refused document, and the checkpoint keeps following the store.
        live = make_push(a, proxied, ReplicationOptions(batch_size=10, live=True, retry=True))
        live.start()
        try:
            wait_for(lambda: live.status.state == "paused", 10)
            huge2_rev = a.put({"_id": "huge-2", "text": "z" * 20_000})["rev"]
            wait_for(lambda: any(f.id == "huge-2" for f in live.status.failures), 10)
            a.put({"_id": "live-1"})
            wait_for(lambda: a.get_local(rep_id)["last_seq"] == a.info()["update_seq"], 10)
            assert live.status.last_seq == a.info()["update_seq"]
            assert couch.get_doc(name, "live-1").status_code == 200
        finally:
            live.cancel()
        assert live.wait(5).state == "cancelled"
        assert sorted(a.get_local(failed_docs_id(rep_id))["docs"]) == ["huge", "huge-2"]
        live_seq = a.info()["update_seq"]

        # Shrinking a listed document: the next run sends its new revision, the list drops it.
        a.put({"_id": "huge-2", "_rev": huge2_rev, "text": "small now"})
        shrunk = push(a, proxied, options)
        assert shrunk.docs_written == 1 and [f.id for f in shrunk.failures] == ["huge"]
        assert couch.get_doc(name, "huge-2").json()["text"] == "small now"
        assert list(a.get_local(failed_docs_id(rep_id))["docs"]) == ["huge"]

        # Limit raised (here: the same server without the proxy, so the same replication id
        # and checkpoint): the next sync sends the unchanged document and clears the list.
        final = push(a, direct, options)
        assert final.replication_id == rep_id and final.start_seq == a.info()["update_seq"] > live_seq
        assert final.ok and final.docs_written == 1 and final.failures == []
        assert couch.get_doc(name, "huge").json()["_rev"] == huge_rev
        assert a.get_local(failed_docs_id(rep_id))["docs"] == {}
        assert push(a, direct, options).docs_written == 0
        assert sorted(local_ids(a)) == sorted(remote_ids(couch, name))
    finally:
        proxied.close()
        direct.close()


class FailingBulkDocs(httpx.HTTPTransport):
    """A real transport that raises ``ConnectError`` on the ``fail_on``-th ``_bulk_docs``
    request (``on_fail`` runs first, in the writer's thread)."""

    def __init__(self, fail_on: int, on_fail: Callable[[], None]) -> None:
        super().__init__()
        self.fail_on = fail_on
        self.on_fail = on_fail
        self.bulk_docs = 0
        self.lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/_bulk_docs"):
            with self.lock:
                self.bulk_docs += 1
                count = self.bulk_docs
            if count == self.fail_on:
                self.on_fail()
                raise httpx.ConnectError("injected: connection refused", request=request)
        return super().handle_request(request)


class RecordingLocalPeer(LocalPeer):
    """Records ``(reader thread, since)`` of every changes read of the local store."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.reads: list[tuple[threading.Thread, Any]] = []

    def changes(self, since: Any, limit: int, doc_ids: list[str] | None = None, include_docs: bool = False) -> Any:
        self.reads.append((threading.current_thread(), since))
        return super().changes(since, limit, doc_ids, include_docs)


def test_one_shot_network_error_retries_from_the_checkpoint(make_store: StoreFactory, couch: CouchServer) -> None:
    name = couch.create_db()
    a = make_store("a")
    a.bulk_docs([{"_id": f"d{i:03d}", "n": i} for i in range(500)])
    assert a.info()["update_seq"] == 500
    rep_id = replication_id(a.info()["instance_uuid"], couch.uuid + name)
    at_failure: dict[str, Any] = {}

    def record_checkpoints() -> None:
        at_failure["remote"] = couch.get_doc(name, rep_id).json()["last_seq"]
        at_failure["local"] = a.get_local(rep_id)["last_seq"]

    transport = FailingBulkDocs(3, record_checkpoints)
    remote = RemoteDatabase(couch.db_url(name), username=couch.admin[0], password=couch.admin[1], transport=transport)
    source = RecordingLocalPeer(a)
    events: list[SyncEvent] = []
    # A checkpoint after every batch (checkpoint_interval=0), as PouchDB writes them.
    options = ReplicationOptions(batch_size=100, retry=True, max_retries=3, backoff=lambda previous: 0.01,
                                 checkpoint_interval=0)
    try:
        status = Replicator(source, RemotePeer(remote), options, direction="push", on_event=events.append).run()
    finally:
        remote.close()
    assert status.state == "complete", status.to_json()
    assert status.retries == 1 and status.docs_written == 500 and status.start_seq == 0
    assert transport.bulk_docs == 6  # batches 1, 2, the failed 3rd, then 3 to 5 again
    # When the 3rd batch failed, batches 1 and 2 were checkpointed on both sides.
    assert at_failure == {"remote": 200, "local": 200}
    paused = [e for e in events if e.type == "paused"]
    assert len(paused) == 1 and isinstance(paused[0].error, NetworkError)
    # One reader per attempt; the retry's reader starts at the checkpoint (200), not at 0.
    readers: list[threading.Thread] = []
    for thread, _since in source.reads:
        if thread not in readers:
            readers.append(thread)
    assert len(readers) == 2
    first_attempt = [since for thread, since in source.reads if thread is readers[0]]
    retry = [since for thread, since in source.reads if thread is readers[1]]
    assert first_attempt[:3] == [0, 100, 200]
    assert retry[0] == 200 and retry == [200, 300, 400, 500]
    # The checkpoint ends at the final seq, on the server and in the store.
    assert couch.get_doc(name, rep_id).json()["last_seq"] == 500
    assert a.get_local(rep_id)["last_seq"] == 500
    assert couch.db_info(name)["doc_count"] == 500
