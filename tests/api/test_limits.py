"""The server holds up: a stalled request head times out, idle keep-alive connections close, the
connections past the cap get a JSON 503, a malformed chunked body is a JSON 400, and running out
of file descriptors is one log line. Everything over real loopback sockets; the log must hold no
traceback."""

from __future__ import annotations

import json
import logging
import select
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from storyloom.api import ApiServer
from tests.api.support import KEY, Harness, Options, running_server
from tests.support.fixtures import REPO_ROOT

DEADLINE = 10.0  # seconds any read may wait before the test fails


def no_project() -> None:
    return None  # these tests need a server, not a project (/info answers 503)


def _connect(api: Harness) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", api.server.port or 0), timeout=DEADLINE)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return sock


def _request(api: Harness, path: str = "/openapi.json", extra: str = "") -> bytes:
    return (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{api.server.port}\r\nx-api-key: {KEY}\r\n{extra}\r\n"
            .encode())


def _read_until_closed(sock: socket.socket) -> bytes:
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _parse(raw: bytes) -> tuple[int, dict[str, str], bytes]:
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, body


def _read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One whole answer (it has a Content-Length) from a connection that stays open."""
    raw = b""
    while b"\r\n\r\n" not in raw:
        chunk = sock.recv(65536)
        assert chunk, f"closed before an answer: {raw!r}"
        raw += chunk
    status, headers, body = _parse(raw)
    while len(body) < int(headers["content-length"]):
        chunk = sock.recv(65536)
        assert chunk, "closed in the middle of an answer"
        body += chunk
    return status, headers, body


def _json_error(raw: bytes, status: int, code: str) -> dict[str, Any]:
    got, headers, body = _parse(raw)
    assert got == status, raw
    assert headers["content-type"] == "application/json" and headers["connection"] == "close"
    assert headers["x-content-type-options"] == "nosniff"
    error = json.loads(body)
    assert set(error) == {"error", "reason"} and error["error"] == code
    return error


def _wait_for(condition: Callable[[], bool], timeout: float = DEADLINE) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "the condition did not come true in time"
        time.sleep(0.02)


def _assert_no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert "Traceback" not in caplog.text
    assert [r.getMessage() for r in caplog.records if r.exc_info] == []


@pytest.fixture(autouse=True)
def log_warnings(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)


def test_the_defaults_are_the_documented_limits() -> None:
    server = ApiServer(no_project, Options())
    assert (server.head_timeout, server.keep_alive_timeout, server.max_connections) == (10.0, 5.0, 256)
    doc = (Path(REPO_ROOT) / "docs" / "api.md").read_text(encoding="utf-8")
    for row in ("| Head timeout | 10 s |", "| Keep-alive timeout | 5 s |", "| Open connections | 256 |"):
        assert row in doc
    with pytest.raises(ValueError):
        ApiServer(no_project, Options(), head_timeout=0)
    with pytest.raises(ValueError):
        ApiServer(no_project, Options(), max_connections=0)


def test_a_stalled_request_head_is_answered_408_and_closed(caplog: pytest.LogCaptureFixture) -> None:
    with running_server(no_project, head_timeout=1.0) as api, _connect(api) as sock:
        sock.sendall(b"GET /info HTTP/1.1\r\nHost: 127.0.0.1")
        start = time.monotonic()
        raw = _read_until_closed(sock)
        held = time.monotonic() - start
    error = _json_error(raw, 408, "request_timeout")
    assert "within 1 s" in error["reason"]
    assert 0.9 <= held < 4.0, held
    _assert_no_traceback(caplog)


def test_a_connection_that_sends_nothing_is_closed_without_an_answer() -> None:
    with running_server(no_project, head_timeout=1.0) as api, _connect(api) as sock:
        start = time.monotonic()
        assert _read_until_closed(sock) == b""
        assert 0.9 <= time.monotonic() - start < 4.0


def test_sending_the_head_a_byte_at_a_time_does_not_extend_the_deadline() -> None:
    with running_server(no_project, head_timeout=1.0) as api, _connect(api) as sock:
        head = _request(api)[:-2]  # never the final empty line
        sock.settimeout(0.1)
        start, sent, raw = time.monotonic(), 0, b""
        while time.monotonic() - start < DEADLINE:
            try:
                sock.sendall(head[sent % len(head):][:1])
                sent += 1
            except OSError:  # closed by the server
                break
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                continue
            except ConnectionResetError:
                break
            if not chunk:
                break
            raw += chunk
        held = time.monotonic() - start
    assert sent >= 8  # it kept sending...
    assert held < 3.0, held  # ...and was cut off at the deadline anyway
    if raw:  # the 408, unless the close overtook it
        _json_error(raw, 408, "request_timeout")


def test_an_idle_keep_alive_connection_is_closed_and_the_next_head_has_its_own_deadline() -> None:
    with running_server(no_project, keep_alive_timeout=0.5, head_timeout=1.5) as api:
        with _connect(api) as sock:
            for _ in range(2):  # kept alive between requests
                sock.sendall(_request(api))
                assert _read_response(sock)[0] == 200
            start = time.monotonic()
            assert _read_until_closed(sock) == b""
            assert 0.4 <= time.monotonic() - start < 3.0
        with _connect(api) as sock:
            sock.sendall(_request(api))
            assert _read_response(sock)[0] == 200
            time.sleep(0.2)  # within the keep-alive wait
            sock.sendall(b"GET /info HTTP/1.1\r\n")
            start = time.monotonic()
            raw = _read_until_closed(sock)
            held = time.monotonic() - start
        _json_error(raw, 408, "request_timeout")
        assert 1.3 <= held < 4.0, held  # the head deadline (1.5 s), not the keep-alive one (0.5 s)


def test_connections_past_the_cap_get_a_json_503_and_the_open_ones_go_on(
        caplog: pytest.LogCaptureFixture) -> None:
    extra = 20
    with running_server(no_project, head_timeout=60.0) as api:
        cap = api.server.max_connections
        assert cap == 256  # the default, tested as it ships
        sockets = [_connect(api) for _ in range(cap + extra)]
        try:
            _wait_for(lambda: api.server.open_connections == cap)
            refused: dict[socket.socket, bytes] = {}
            deadline = time.monotonic() + DEADLINE
            while len(refused) < extra and time.monotonic() < deadline:
                readable, _, _ = select.select([s for s in sockets if s not in refused], [], [], 0.5)
                for sock in readable:
                    refused[sock] = _read_until_closed(sock)
            time.sleep(0.3)  # no further connection gets an answer
            readable, _, _ = select.select([s for s in sockets if s not in refused], [], [], 0)
            assert (len(refused), readable) == (extra, [])
            for raw in refused.values():
                error = _json_error(raw, 503, "too_many_connections")
                assert f"{cap} connections open" in error["reason"]
            served = next(s for s in sockets if s not in refused)
            served.sendall(_request(api))  # an open connection is served as before
            assert _read_response(served)[0] == 200
            assert api.server.open_connections == cap
            over = httpx.get(api.url + "/openapi.json", timeout=DEADLINE)  # a real client reads the refusal
            assert over.status_code == 503 and over.json()["error"] == "too_many_connections"
        finally:
            for sock in sockets:
                sock.close()
        _wait_for(lambda: api.server.open_connections == 0)
        assert httpx.get(api.url + "/openapi.json", timeout=DEADLINE).status_code == 200  # served again
    _assert_no_traceback(caplog)
    cap_lines = [r.getMessage() for r in caplog.records if "connections, its limit" in r.getMessage()]
    assert cap_lines == [f"the API holds {cap} connections, its limit: new connections are answered 503 "
                         "too_many_connections until some close"]


@pytest.mark.parametrize("path", ["/info", "/openapi.json", "/navigate?id=x", "/events", "/nope"])
def test_a_malformed_chunked_body_is_a_json_400_without_a_traceback(
        path: str, caplog: pytest.LogCaptureFixture) -> None:
    with running_server(no_project) as api:
        with _connect(api) as sock:
            # The head and the bad chunk-size line in one packet: the head reaches the app first.
            sock.sendall(_request(api, path, "Transfer-Encoding: chunked\r\n") + b"zz\r\nabc\r\n0\r\n\r\n")
            raw = _read_until_closed(sock)
        error = _json_error(raw, 400, "bad_request")
        assert error["reason"].startswith("malformed HTTP request: a chunk-size line of the chunked body")
        assert raw.count(b"HTTP/1.1 ") == 1  # the 400 is the only answer
        assert httpx.get(api.url + "/openapi.json", timeout=DEADLINE).status_code == 200
    _assert_no_traceback(caplog)


def test_a_malformed_chunked_body_after_the_answer_closes_the_connection_quietly(
        caplog: pytest.LogCaptureFixture) -> None:
    with running_server(no_project) as api:
        with _connect(api) as sock:
            sock.sendall(_request(api, "/openapi.json", "Transfer-Encoding: chunked\r\n"))
            assert _read_response(sock)[0] == 200  # answered without reading the body
            sock.sendall(b"zz\r\n")
            assert _read_until_closed(sock) == b""  # too late for a 400: closing says it
        assert httpx.get(api.url + "/openapi.json", timeout=DEADLINE).status_code == 200
    _assert_no_traceback(caplog)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the server counts its descriptors in /proc")
def test_running_out_of_file_descriptors_is_one_log_line_not_a_traceback_per_socket() -> None:
    spare = 16
    child = subprocess.Popen([sys.executable, "-m", "tests.api.fd_limited_server", str(spare)], cwd=REPO_ROOT,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    sockets: list[socket.socket] = []
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line.strip().isdigit(), f"the server did not start: {line!r}"
        port = int(line)
        # Four times what the process may still open: accept() fails with EMFILE, and asyncio
        # retries it every second.
        sockets = [socket.create_connection(("127.0.0.1", port), timeout=DEADLINE) for _ in range(4 * spare)]
        time.sleep(3.5)
        for sock in sockets:
            sock.close()

        def served() -> bool:
            try:
                return httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=2).status_code == 200
            except httpx.HTTPError:
                return False

        _wait_for(served)  # accepting again once descriptors are free
    finally:
        for sock in sockets:
            sock.close()
        try:
            _, stderr = child.communicate("\n", timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            _, stderr = child.communicate()
    assert child.returncode == 0, stderr
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if "cannot accept new connections" in line]
    assert len(lines) == 1, stderr
    assert "Too many open files" in lines[0] and "ulimit -n" in lines[0]
