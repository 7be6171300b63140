"""The remote HTTP client: URL and name validation, id encoding (3.8), headers, auth, errors."""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from storyloom.store import Database
from storyloom.sync import (
    InvalidRemote,
    RemoteDatabase,
    ReplicationOptions,
    encode_doc_id,
    parse_remote_url,
    pull,
    push,
    validate_db_name,
)
from storyloom.sync.errors import (
    Cancelled,
    NetworkError,
    Redirected,
    RemoteConflict,
    RemoteNotFound,
    RemoteServerError,
    RemoteTimeout,
    RemoteUnauthorized,
    RequestTooLarge,
    SyncError,
)
from storyloom.sync.urls import encode_attachment_name, encode_db_name

# -- URLs and names ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["a", "story", "my_db", "a$b", "a(b)", "a+b", "a-b", "a/b", "x9", "_users"])
def test_valid_db_names(name: str) -> None:
    assert validate_db_name(name) == name


@pytest.mark.parametrize("name", ["", "A", "9lives", "_private", "my db", "été", "Story"])
def test_invalid_db_names_say_the_rule(name: str) -> None:
    with pytest.raises(InvalidRemote) as info:
        validate_db_name(name)
    assert "lowercase" in info.value.message


def test_uppercase_name_suggests_lowercase() -> None:
    with pytest.raises(InvalidRemote, match="did you mean 'story'"):
        validate_db_name("Story")


def test_parse_remote_url() -> None:
    url = parse_remote_url("https://alice@couch.example.com:6984/prefix/a%2Fb")
    assert url.server == "https://couch.example.com:6984/prefix"
    assert url.db_name == "a/b"
    assert url.db_url == "https://couch.example.com:6984/prefix/a%2Fb"
    assert url.username == "alice" and url.password is None
    assert parse_remote_url("http://127.0.0.1:5984/db/").db_name == "db"
    assert parse_remote_url("http://[::1]:5984/db").server == "http://[::1]:5984"


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("", "empty"),
        ("ftp://host/db", "http:// or https://"),
        ("localhost:5984/db", "http:// or https://"),
        ("http:///db", "no host"),
        ("http://host:5984", "end with the database name"),
        ("http://host:5984/", "end with the database name"),
        ("http://host/db?x=1", "query string"),
        ("http://host/Bad", "invalid database name"),
        ("http://host:99999/db", "invalid remote URL"),
    ],
)
def test_invalid_urls_have_clear_messages(url: str, fragment: str) -> None:
    with pytest.raises(InvalidRemote) as info:
        parse_remote_url(url)
    assert fragment in info.value.message


def test_password_is_not_echoed_in_messages() -> None:
    with pytest.raises(InvalidRemote) as info:
        parse_remote_url("ftp://alice:s3cret@host/db")
    assert "s3cret" not in info.value.message


def test_doc_id_encoding_rules() -> None:
    assert encode_doc_id("a/b") == "a%2Fb"
    assert encode_doc_id("x+y") == "x%2By"
    assert encode_doc_id("3&2") == "3%262"
    assert encode_doc_id("é/ü") == "%C3%A9%2F%C3%BC"
    assert encode_doc_id("a b") == "a%20b"
    assert encode_doc_id("_design/d") == "_design/d"
    assert encode_doc_id("_design/a/b") == "_design/a%2Fb"
    assert encode_doc_id("_local/x+y") == "_local/x%2By"
    assert encode_attachment_name("a/b c.txt") == "a/b%20c.txt"
    assert encode_db_name("a/b") == "a%2Fb"


# -- requests through a mock transport ---------------------------------------------------------


class Recorder:
    """A mock CouchDB: records requests and answers from a handler."""

    def __init__(self, handler: Any) -> None:
        self.requests: list[httpx.Request] = []
        self.handler = handler

    def __call__(self, request: httpx.Request) -> httpx.Response:
        request.read()
        self.requests.append(request)
        return self.handler(request)


def client(handler: Any, **kwargs: Any) -> tuple[RemoteDatabase, Recorder]:
    recorder = Recorder(handler)
    remote = RemoteDatabase("http://couch.test:5984/db", transport=httpx.MockTransport(recorder), **kwargs)
    return remote, recorder


def test_accept_json_on_every_request_and_encoded_paths() -> None:
    remote, rec = client(lambda r: httpx.Response(200, json={"ok": True, "_id": "x"}))
    remote.get("a/b")
    remote.get_open_revs("x+y", ["1-a"])
    remote.put({"_id": "_design/d"})
    remote.changes(0, limit=5)
    remote.get_local("_local/r+1")
    paths = [r.url.raw_path.decode() for r in rec.requests]
    assert paths[0] == "/db/a%2Fb"
    assert paths[1].startswith("/db/x%2By?")
    assert paths[2] == "/db/_design/d"
    assert paths[3].startswith("/db/_changes?")
    assert paths[4] == "/db/_local/r%2B1"
    assert all(r.headers["accept"] == "application/json" for r in rec.requests)
    query = dict(rec.requests[1].url.params)
    assert json.loads(query["open_revs"]) == ["1-a"] and query["latest"] == "true"


def test_opaque_seq_sent_back_exactly() -> None:
    remote, rec = client(lambda r: httpx.Response(200, json={"results": [], "last_seq": "5-g1AAA"}))
    remote.changes("292786-g1AAAAF+/x", limit=10)
    assert rec.requests[0].url.params["since"] == "292786-g1AAAAF+/x"


def test_basic_auth_header() -> None:
    remote, rec = client(lambda r: httpx.Response(200, json={}), username="alice", password="pw")
    remote.info()
    assert rec.requests[0].headers["authorization"].startswith("Basic ")


def test_cookie_auth_logs_in_once_and_again_after_401() -> None:
    state = {"valid": False, "logins": 0}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/_session" and request.method == "POST":
            assert json.loads(request.content) == {"name": "alice", "password": "pw"}
            state["logins"] += 1
            state["valid"] = True
            return httpx.Response(
                200, json={"ok": True, "name": "alice"}, headers={"Set-Cookie": "AuthSession=abc; Path=/"}
            )
        assert "authorization" not in request.headers
        if not state["valid"] or "AuthSession=abc" not in request.headers.get("cookie", ""):
            return httpx.Response(401, json={"error": "unauthorized", "reason": "expired"})
        return httpx.Response(200, json={"db_name": "db"})

    remote, _rec = client(handler, username="alice", password="pw", auth="cookie")
    assert remote.info()["db_name"] == "db"
    assert state["logins"] == 1
    state["valid"] = False  # the session expires
    assert remote.info()["db_name"] == "db"
    assert state["logins"] == 2
    # A second 401 right after a fresh login is reported, not retried forever.
    remote2, _ = client(
        lambda r: httpx.Response(200, json={"ok": True})
        if r.url.path == "/_session"
        else httpx.Response(401, json={"error": "unauthorized", "reason": "nope"}),
        username="alice",
        password="pw",
        auth="cookie",
    )
    with pytest.raises(RemoteUnauthorized):
        remote2.info()


def test_cookie_login_with_wrong_password() -> None:
    remote, _ = client(
        lambda r: httpx.Response(401, json={"error": "unauthorized", "reason": "Name or password is incorrect."}),
        username="alice",
        password="bad",
        auth="cookie",
    )
    with pytest.raises(RemoteUnauthorized) as info:
        remote.info()
    assert info.value.reason == "Name or password is incorrect."


def test_errors_keep_couchdb_error_and_reason() -> None:
    remote, _ = client(lambda r: httpx.Response(409, json={"error": "conflict", "reason": "Document update conflict."}))
    with pytest.raises(RemoteConflict) as info:
        remote.put({"_id": "x"})
    assert (info.value.status, info.value.error, info.value.reason) == (409, "conflict", "Document update conflict.")
    assert "couch.test" in info.value.url


def test_html_413_from_a_proxy() -> None:
    page = (
        b"<html>\r\n<head><title>413 Request Entity Too Large</title></head>\r\n<body>\r\n"
        b"<center><h1>413 Request Entity Too Large</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>"
    )
    remote, _ = client(lambda r: httpx.Response(413, content=page, headers={"Content-Type": "text/html"}))
    with pytest.raises(RequestTooLarge) as info:
        remote.bulk_docs([{"_id": "x"}], new_edits=False)
    assert info.value.error == "too_large"
    assert info.value.reason == "413 Request Entity Too Large"


def test_plain_text_and_empty_error_bodies() -> None:
    remote, _ = client(lambda r: httpx.Response(502, content=b"upstream <b>down</b>"))
    with pytest.raises(RemoteServerError) as info:
        remote.info()
    assert info.value.error == "bad_gateway" and info.value.reason == "upstream down"
    assert info.value.retryable
    remote, _ = client(lambda r: httpx.Response(404))
    with pytest.raises(RemoteNotFound) as info2:
        remote.info()
    assert info2.value.reason == "Not Found"
    assert not info2.value.retryable


def test_get_local_missing_is_none() -> None:
    remote, _ = client(lambda r: httpx.Response(404, json={"error": "not_found", "reason": "missing"}))
    assert remote.get_local("x") is None


def test_connection_refused_is_a_network_error() -> None:
    remote = RemoteDatabase("http://127.0.0.1:1/db", timeout=2)
    with pytest.raises(NetworkError) as info:
        remote.info()
    assert info.value.retryable and "cannot reach" in info.value.message
    remote.close()


@pytest.mark.parametrize("mode", ["pooled", "one"])
def test_timeout_and_abort_of_a_blocked_read(mode: Any) -> None:
    """A read blocked between heartbeats returns at once on abort(); a silent server times out
    (the pooled client and the one-connection client alike)."""
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    port = server.getsockname()[1]
    held: list[socket.socket] = []

    def accept() -> None:
        for _ in range(2):
            conn, _addr = server.accept()
            held.append(conn)
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
            conn.sendall(b"1\r\n\n\r\n")  # one heartbeat, then silence

    threading.Thread(target=accept, daemon=True).start()
    try:
        remote = RemoteDatabase(f"http://127.0.0.1:{port}/db", timeout=httpx.Timeout(5.0, read=0.5), connection=mode)
        with pytest.raises(RemoteTimeout):
            remote.changes(0, feed="longpoll", read_timeout=0.5)
        remote.close()
        remote = RemoteDatabase(f"http://127.0.0.1:{port}/db", timeout=30, connection=mode)
        threading.Timer(0.3, remote.abort).start()
        started = time.monotonic()
        with pytest.raises(Cancelled):
            remote.changes(0, feed="longpoll", heartbeat=10000, read_timeout=30)
        assert time.monotonic() - started < 1.5
        with pytest.raises(Cancelled):
            remote.info()
        remote.close()
    finally:
        for conn in held:
            conn.close()
        server.close()


# -- redirects and undecodable bodies ----------------------------------------------------------


@contextlib.contextmanager
def redirecting_server(status: int = 301) -> Iterator[tuple[int, list[str]]]:
    """A tiny HTTP server on 127.0.0.1 that answers every request with ``status`` and a
    ``Location`` on https:// (what a proxy does for plain http), with an empty body."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
            seen.append(f"{self.command} {self.path}")
            host, port = self.server.server_address[:2]
            self.send_response(status)
            self.send_header("Location", f"https://{host}:{port}{self.path}")
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_POST = do_PUT = do_HEAD = answer

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], seen
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.mark.parametrize("mode", ["pooled", "one"])
@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_redirect_is_a_non_retryable_error_naming_the_location(status: int, mode: Any) -> None:
    with redirecting_server(status) as (port, seen):
        remote = RemoteDatabase(f"http://127.0.0.1:{port}/story", timeout=5, connection=mode)
        try:
            with pytest.raises(Redirected) as info:
                remote.info()
            error = info.value
            assert error.status == status and error.error == "redirect" and not error.retryable
            assert error.location == f"https://127.0.0.1:{port}/story"
            assert error.suggested_url == f"https://127.0.0.1:{port}/story"
            assert f"redirects to https://127.0.0.1:{port}/story" in error.reason
            assert f"use https://127.0.0.1:{port}/story as the remote URL" in error.reason
            assert "invalid JSON" not in error.message
            # Below the database (and at the server root) the suggestion is still the db URL.
            with pytest.raises(Redirected) as info:
                remote.changes(0, limit=5)
            assert info.value.location.startswith(f"https://127.0.0.1:{port}/story/_changes?")
            assert info.value.suggested_url == f"https://127.0.0.1:{port}/story"
            with pytest.raises(Redirected) as info:
                remote.server_info()
            assert info.value.suggested_url == f"https://127.0.0.1:{port}/story"
            assert len(seen) == 3  # never followed
        finally:
            remote.close()


def test_redirect_stops_a_replication_at_once(tmp_path: Any) -> None:
    with redirecting_server(301) as (port, seen):
        remote = RemoteDatabase(f"http://127.0.0.1:{port}/story", username="u", password="p", timeout=5)
        db = Database(tmp_path / "a.sqlite")
        try:
            options = ReplicationOptions(retry=True, max_retries=3, backoff=lambda previous: 0.01)
            status = pull(remote, db, options)
            assert status.state == "error" and status.retries == 0
            assert isinstance(status.last_error, Redirected)
            assert f"use https://127.0.0.1:{port}/story as the remote URL" in (status.last_error_message or "")
            assert len(seen) == 1
        finally:
            remote.close()
            db.close()


class DecodingErrorTransport(httpx.BaseTransport):
    """What httpx raises for a body it cannot decode (``Content-Encoding`` gone wrong)."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        raise httpx.DecodingError("Error -3 while decompressing data: incorrect header check", request=request)


def test_decoding_error_is_a_typed_network_error() -> None:
    remote = RemoteDatabase("http://decoding.test:5984/db", transport=DecodingErrorTransport())
    with pytest.raises(NetworkError) as info:
        remote.info()
    assert info.value.retryable and "cannot be decoded" in info.value.message
    assert "incorrect header check" in info.value.message
    # The same through httpx's own decoder: a gzip header on a body that is not gzip.
    garbled, _ = client(lambda r: httpx.Response(200, headers={"Content-Encoding": "gzip"}, content=b"not gzip"))
    with pytest.raises(NetworkError) as info:
        garbled.info()
    assert "cannot be decoded" in info.value.message


def test_decoding_error_in_a_replication_is_retried_not_an_internal_error(tmp_path: Any) -> None:
    remote = RemoteDatabase("http://decoding.test:5984/db", transport=DecodingErrorTransport())
    db = Database(tmp_path / "a.sqlite")
    db.put({"_id": "x"})
    try:
        options = ReplicationOptions(retry=True, max_retries=2, backoff=lambda previous: 0.01)
        status = push(db, remote, options)
    finally:
        db.close()
    assert status.state == "error" and status.retries == 2
    assert isinstance(status.last_error, NetworkError)
    assert "internal error" not in (status.last_error_message or "")


def test_other_httpx_errors_are_typed() -> None:
    errors: list[Callable[[httpx.Request], Exception]] = [
        lambda r: httpx.TooManyRedirects("too many", request=r),
        lambda r: httpx.RemoteProtocolError("peer closed connection", request=r),
        lambda r: httpx.ReadTimeout("slow", request=r),
    ]
    for make in errors:

        def handler(request: httpx.Request, make: Callable[[httpx.Request], Exception] = make) -> httpx.Response:
            raise make(request)

        remote, _ = client(handler)
        with pytest.raises(SyncError) as info:
            remote.info()
        assert isinstance(info.value, (NetworkError, RemoteTimeout)) and info.value.retryable


@pytest.mark.parametrize("number", [2**64, 2**70, -(2**63) - 1, -(2**70), 2**64 - 1, -(2**63)])
def test_answers_keep_integers_beyond_64_bits_exact(number: int) -> None:
    # orjson reads an integer beyond 64 bits as a float without an error: such a body is read by
    # the stdlib.
    from storyloom.sync.remote import loads

    value = loads(f'{{"n": {number}, "text": "x"}}'.encode())
    assert value["n"] == number and type(value["n"]) is int


def test_clients_share_one_tls_context_per_verify_setting(tmp_path: Path) -> None:
    """Loading the certificate bundle for every client cost ~17 ms per replication start."""
    import ssl

    from storyloom.sync.remote import _ssl_context

    assert _ssl_context(True) is _ssl_context(True)
    assert _ssl_context(True).verify_mode == ssl.CERT_REQUIRED
    assert _ssl_context(False).verify_mode == ssl.CERT_NONE
    with pytest.raises((OSError, ssl.SSLError)):
        _ssl_context(str(tmp_path / "no-such-bundle.pem"))  # a CA bundle path is really read


def _tls_context_of(client: object) -> Any:
    return client._client._transport._pool._ssl_context  # type: ignore[attr-defined]  # httpx's pool, read to check


def test_a_plain_http_client_loads_no_certificates_and_would_verify_any_tls_against_none() -> None:
    """Loading the certificate bundle is most of a CLI lock's start on a loaded machine; a client
    of an http:// server never speaks TLS, and the context it gets trusts nothing (so a TLS
    connection made with it by mistake fails rather than going unverified)."""
    import ssl

    from storyloom.sync.remote import RemoteDatabase

    with RemoteDatabase("http://127.0.0.1:5984/story") as plain, \
            RemoteDatabase("HTTPS://couch.example.com/story") as secure:
        plain_context, secure_context = _tls_context_of(plain), _tls_context_of(secure)
    assert plain_context.cert_store_stats()["x509_ca"] == 0
    assert plain_context.verify_mode == ssl.CERT_REQUIRED and plain_context.check_hostname
    assert secure_context.cert_store_stats()["x509_ca"] > 0 and secure_context.verify_mode == ssl.CERT_REQUIRED
