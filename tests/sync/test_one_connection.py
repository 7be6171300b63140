"""The one-connection client (``RemoteDatabase(connection="one")``, on ``http.client``): the
same answers and the same errors as the pooled httpx client against a real server, one socket
kept alive between requests, a connection the server dropped while idle opened again, and the
cases where it stands aside for httpx (cookie auth, a test transport, a proxy in the environment)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from storyloom.sync import RemoteDatabase
from storyloom.sync.errors import NetworkError, RemoteConflict, RemoteNotFound, RemoteUnauthorized
from storyloom.sync.one_connection import suits
from tests.support.couch import CouchServer, unique_db_name

MODES = ("pooled", "one")


def _session_of(remote: RemoteDatabase) -> dict[str, Any]:
    """What a lock's round trips do, and what each answer and error says."""
    seen: dict[str, Any] = {}
    created = remote.put({"_id": "doc", "title": "Intro"})
    seen["put"] = (created["ok"], created["id"], created["rev"].startswith("1-"))
    doc = remote.get("doc", revs=True)
    seen["get"] = (doc["title"], doc["_revisions"]["start"], len(doc["_revisions"]["ids"]))
    result, status = remote.put_status({**doc, "title": "Intro, locked"})
    seen["put_status"] = (result["ok"], status, result["rev"].startswith("2-"))
    leaves = remote.get_open_revs("doc", "all", revs=False, latest=False, attachments=False)
    seen["open_revs"] = [leaf["ok"]["title"] for leaf in leaves]
    with pytest.raises(RemoteConflict) as conflict:
        remote.put({"_id": "doc", "_rev": created["rev"], "title": "stale"})
    seen["conflict"] = (conflict.value.status, conflict.value.error, conflict.value.retryable)
    with pytest.raises(RemoteNotFound) as missing:
        remote.get("no such doc")
    seen["missing"] = (missing.value.status, missing.value.error, missing.value.reason)
    seen["local"] = remote.get_local("nothing")
    seen["changes"] = len(remote.changes(0)["results"])
    return seen


@pytest.mark.integration
def test_one_connection_answers_and_fails_as_the_pooled_client_does(couch: CouchServer) -> None:
    seen = {}
    for mode in MODES:
        name = unique_db_name()
        couch.create_db(name)
        with RemoteDatabase(couch.db_url(name), username=couch.admin[0], password=couch.admin[1],
                            connection=mode) as remote:
            assert (remote._one is not None) == (mode == "one")
            seen[mode] = _session_of(remote)
    assert seen["one"] == seen["pooled"]
    assert seen["one"]["put_status"] == (True, 201, True)
    assert seen["one"]["conflict"] == (409, "conflict", False)


@pytest.mark.integration
@pytest.mark.parametrize("mode", MODES)
def test_a_wrong_password_is_unauthorized_in_both_modes(couch: CouchServer, mode: str) -> None:
    name = couch.create_db(unique_db_name())
    with RemoteDatabase(couch.db_url(name), username=couch.admin[0], password="wrong", connection=mode) as remote, \
            pytest.raises(RemoteUnauthorized) as info:
        remote.info()
    assert info.value.status == 401


class _Counting:
    """A tiny HTTP/1.1 server on 127.0.0.1 answering ``{}`` to every request, counting the
    connections it accepts; with ``drop_idle``, it closes each connection after one answer
    without saying so (as a server's idle timeout does between a client's requests)."""

    def __init__(self, *, drop_idle: bool = False) -> None:
        self.drop_idle = drop_idle
        self.connections = 0
        self.requests = 0
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(8)
        self.port = self.server.getsockname()[1]
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            while True:
                try:
                    data = conn.recv(65536)
                except OSError:
                    return
                if not data:
                    return
                self.requests += 1
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
                if self.drop_idle:
                    return

    def close(self) -> None:
        self.server.close()


@contextlib.contextmanager
def _counting(**options: bool) -> Iterator[_Counting]:
    server = _Counting(**options)
    try:
        yield server
    finally:
        server.close()


def test_one_connection_keeps_its_socket_between_requests() -> None:
    with _counting() as server, RemoteDatabase(f"http://127.0.0.1:{server.port}/db", connection="one") as remote:
        for _ in range(3):
            assert remote.info() == {}
        assert (server.connections, server.requests) == (1, 3)


def test_a_connection_the_server_dropped_while_idle_is_opened_again() -> None:
    with _counting(drop_idle=True) as server, \
            RemoteDatabase(f"http://127.0.0.1:{server.port}/db", connection="one") as remote:
        assert remote.info() == {}
        assert remote.info() == {}  # the first socket is closed: the request goes on a new one
        assert (server.connections, server.requests) == (2, 2)


def test_a_refused_connection_is_a_network_error_naming_the_server() -> None:
    with RemoteDatabase("http://127.0.0.1:1/db", timeout=2, connection="one") as remote, \
            pytest.raises(NetworkError) as info:
        remote.info()
    assert info.value.retryable and "cannot reach http://127.0.0.1:1" in info.value.message


def test_it_stands_aside_for_httpx_where_httpx_would_behave_otherwise() -> None:
    assert suits(auth_mode="basic", transport=None, environ={})
    assert not suits(auth_mode="cookie", transport=None, environ={})
    assert not suits(auth_mode="basic", transport=httpx.MockTransport(lambda r: httpx.Response(200)), environ={})
    for name in ("HTTP_PROXY", "https_proxy", "ALL_PROXY"):
        assert not suits(auth_mode="basic", transport=None, environ={name: "http://proxy:3128"})
    remote = RemoteDatabase("http://127.0.0.1:1/db", auth="cookie", username="a", password="b", connection="one")
    assert remote._one is None  # cookie auth keeps the pooled client (its cookie jar)
    remote.close()
