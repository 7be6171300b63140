"""Failure handling: denied documents (T30, T31), missing credentials and permissions (T32,
wrong password, non-member), 413 bisection through nginx (T33), network errors and retry."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from storyloom.store import Database
from storyloom.sync import (
    AccessDenied,
    DatabaseMissing,
    NetworkError,
    RemoteDatabase,
    ReplicationOptions,
    Sync,
    capped_backoff,
    pull,
    push,
)
from storyloom.sync.replicator import SyncEvent
from tests.support.couch import CouchServer
from tests.support.nginx import NginxProxy
from tests.sync.helpers import local_ids, remote_ids

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
    assert error.cause is not None and error.cause.status == 401


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
    # The checkpoint stays before the failed document, so the next run sends it again and
    # nothing else.
    again = push(a, remote)
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
