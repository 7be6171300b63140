"""Every error: status, body ``{"error", "reason"}``, and the same answer for a missing or wrong key."""

from __future__ import annotations

import json
import socket
import time
from typing import Any

import httpx
import pytest

from storyloom.api.errors import ERRORS
from tests.api.support import Options, RecordingNavigation, raw_request, running_server

PROJECT_ENDPOINTS = ["/info", "/game-export", "/schema-export", "/db-dump", "/navigate?id=x", "/events",
                     "/attachments/x/blob"]
ALL_ENDPOINTS = [*PROJECT_ENDPOINTS, "/openapi.json"]


def _body_keys(path: str) -> set[str]:
    """The members of an error body: every /navigate error also has ``success: false``."""
    return {"error", "reason", "success"} if path.startswith("/navigate") else {"error", "reason"}


def _assert_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["error"] == code
    assert isinstance(body["reason"], str) and len(body["reason"]) > 10
    return body


@pytest.mark.parametrize("path", PROJECT_ENDPOINTS)
def test_missing_and_wrong_key_get_the_same_401(shared_api, path):
    missing = httpx.get(shared_api.url + path)
    wrong = httpx.get(shared_api.url + path, headers={"x-api-key": "wrong"})
    almost = httpx.get(shared_api.url + path, headers={"x-api-key": shared_api.options.api_key + "x"})
    empty = httpx.get(shared_api.url + path, headers={"x-api-key": ""})
    bodies = [_assert_error(r, 401, "unauthorized") for r in (missing, wrong, almost, empty)]
    assert all(body == bodies[0] for body in bodies)
    assert set(bodies[0]) == _body_keys(path)
    assert "x-api-key" in bodies[0]["reason"]
    assert len({(r.headers.get("content-length"), r.headers.get("content-type")) for r in
                (missing, wrong, almost, empty)}) == 1


def test_key_is_compared_on_digests_in_constant_time(monkeypatch):
    import hmac

    from storyloom.api.protection import ProtectionSettings

    calls = []
    real = hmac.compare_digest

    def spy(a, b):
        calls.append((len(a), len(b)))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    settings = ProtectionSettings(api_key="secret-key")
    assert settings.key_matches(b"secret-key")
    assert not settings.key_matches(b"secret")
    assert not settings.key_matches(None)
    assert not settings.key_matches(b"")
    # Every comparison is between two 32-byte digests, whatever the given key's length.
    assert calls == [(32, 32)] * 4
    assert not ProtectionSettings(api_key="").key_matches(b"")


@pytest.mark.parametrize("path", ["/nope", "/info/extra", "/", "/INFO", "/db-dump/x"])
def test_unknown_path_is_404_with_the_endpoint_list(shared_api, path):
    body = _assert_error(shared_api.get(path), 404, "not_found")
    assert "/game-export" in body["reason"]


def test_unknown_path_without_key_is_401_not_404(shared_api):
    """Nothing about the API's paths is answered before the key is checked (but /openapi.json)."""
    _assert_error(httpx.get(shared_api.url + "/nope"), 401, "unauthorized")


@pytest.mark.parametrize("path", ALL_ENDPOINTS)
@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"])
def test_wrong_method_is_405_with_allow(shared_api, path, method):
    response = shared_api.client.request(method, path)
    body = _assert_error(response, 405, "method_not_allowed")
    assert method in body["reason"]
    assert response.headers["allow"] == "GET, HEAD"
    assert set(body) == _body_keys(path)


HEAD_CASES = [
    "/info", "/info?x=1", "/game-export?collections=Scripts", "/game-export?collections=Nope", "/schema-export",
    "/db-dump?limit=2", "/db-dump?limit=x", "/db-dump?keys=%5B%22a%22%5D&key=%22a%22",
    "/navigate?id=ProjectSettings", "/navigate?id=no-such-doc", "/navigate", "/openapi.json", "/nope",
    "/attachments/expression_default/blob", "/attachments/expression_default/nope", "/attachments/_design%2Fx/a",
]


@pytest.mark.parametrize("path", HEAD_CASES)
def test_head_answers_like_get_without_a_body(shared_api, path):
    """RFC 9110: a GET resource answers HEAD with the same status and headers, and no body."""
    get = shared_api.get(path)
    head = shared_api.client.head(path)
    assert head.status_code == get.status_code, (path, get.text)
    assert head.content == b""
    for name in ("content-type", "content-length", "cache-control", "x-content-type-options", "etag", "allow"):
        assert head.headers.get(name) == get.headers.get(name), name


def test_head_is_gated_like_get(shared_api):
    head = httpx.head(shared_api.url + "/info", timeout=20)
    assert (head.status_code, head.content) == (401, b"")
    assert head.headers["content-length"] == httpx.get(shared_api.url + "/info", timeout=20).headers["content-length"]
    forbidden = httpx.head(shared_api.url + "/info", headers={"host": "evil.example"}, timeout=20)
    assert (forbidden.status_code, forbidden.content) == (403, b"")


def test_head_navigate_checks_but_never_opens_the_document(api):
    doc_id = next(row["id"] for row in api.project.store.all_docs(include_docs=True)["rows"]
                  if row["doc"].get("type") == "Script")
    response = api.client.head("/navigate", params={"id": doc_id})
    assert (response.status_code, response.content) == (200, b"")
    assert api.navigation.calls == []
    assert api.client.head("/navigate", params={"id": "nope"}).status_code == 404
    assert api.get("/navigate", params={"id": doc_id}).status_code == 200
    assert len(api.navigation.calls) == 1


def test_head_db_dump_reads_no_more_than_it_needs(shared_api):
    """HEAD /db-dump: the status of GET (the dump is started so errors are the same), no body,
    and the dump's producer thread ends at once."""
    import threading
    import time

    response = shared_api.client.head("/db-dump")
    assert (response.status_code, response.content) == (200, b"")
    assert response.headers["content-type"] == "application/json"
    deadline = time.monotonic() + 20
    while any(t.name == "storyloom-db-dump" for t in threading.enumerate()):
        assert time.monotonic() < deadline, "the dump's producer thread never ended"
        time.sleep(0.05)


@pytest.mark.parametrize(
    "path",
    ["/info?x=1", "/game-export?collection=Scripts", "/schema-export?foo=", "/events?since=3",
     "/navigate?id=a&doc=b", "/db-dump?include_doc=false", "/attachments/a/b?x=1"],
)
def test_unknown_parameter_is_400_naming_it(shared_api, path):
    body = _assert_error(shared_api.get(path), 400, "bad_request")
    name = path.split("?")[1].split("=")[0] if "&" not in path else "doc"
    assert f"'{name}'" in body["reason"]


def test_no_project_is_503_on_every_project_endpoint():
    with running_server(lambda: None, navigation=RecordingNavigation()) as api:
        for path in PROJECT_ENDPOINTS:
            body = _assert_error(api.get(path), 503, "no_project")
            assert "open a project" in body["reason"]
            assert set(body) == _body_keys(path)
        assert api.get("/openapi.json").status_code == 200


# (path, status, error) of requests whose parameters are wrong: the same answer with or without a
# project, because parameters are checked before the project is looked up.
BAD_PARAMETERS = [
    ("/info?x=1", 400, "bad_request"),
    ("/game-export?collection=Scripts", 400, "bad_request"),
    ("/game-export?collections=Nope", 400, "unknown_collections"),
    ("/schema-export?collections=", 400, "unknown_collections"),
    ("/schema-export?collections=Scripts,,Items", 400, "unknown_collections"),
    ("/db-dump?limit=-1", 400, "bad_request"),
    ("/db-dump?startkey=3", 400, "bad_request"),
    ("/db-dump?keys=%5B%22a%22%5D&key=%22a%22", 400, "bad_request"),
    ("/db-dump?key=%22%5Cud800%22", 400, "bad_request"),
    ("/navigate", 400, "bad_request"),
    ("/navigate?id=a&id=b", 400, "bad_request"),
    ("/navigate?id=_design%2Fidx", 400, "not_navigable"),
    ("/navigate?id=_local%2Fx", 400, "not_navigable"),
    ("/events?since=1", 400, "bad_request"),
    ("/attachments/_design%2Fidx/a", 400, "bad_request"),
    ("/attachments/_local%2Fx/a", 400, "bad_request"),
    ("/attachments/a/b?x=1", 400, "bad_request"),
]


@pytest.mark.parametrize(("path", "status", "code"), BAD_PARAMETERS)
def test_parameters_are_checked_before_the_project(shared_api, path, status, code):
    with_project = _assert_error(shared_api.get(path), status, code)
    with running_server(lambda: None, navigation=RecordingNavigation()) as api:
        without_project = _assert_error(api.get(path), status, code)
    assert without_project == with_project


def test_valid_parameters_without_a_project_are_503():
    with running_server(lambda: None, navigation=RecordingNavigation()) as api:
        for path in ("/game-export?collections=Scripts", "/schema-export?collections=Items", "/db-dump?limit=1",
                     "/navigate?id=some-doc", "/attachments/some-doc/blob"):
            _assert_error(api.get(path), 503, "no_project")


def test_every_navigate_error_has_success_false(garden):
    class Exploding:
        def navigate(self, route, doc_id):
            raise RuntimeError("the GUI thread is gone")

    script = next(row["id"] for row in garden.store.all_docs(include_docs=True)["rows"]
                  if row["doc"].get("type") == "Script")
    with running_server(garden, navigation=Exploding()) as api:
        port = api.url.rsplit(":", 1)[1]
        answers = [
            (httpx.get(api.url + "/navigate?id=x", timeout=20), 401),
            (api.get("/navigate?id=x", headers={"host": f"evil.example:{port}"}), 403),
            (api.get("/navigate?id=x", headers={"origin": "https://evil.example"}), 403),
            (api.client.post("/navigate?id=x"), 405),
            (api.get("/navigate?id=x&doc=y"), 400),
            (api.get("/navigate?id=x&id=y"), 400),
            (api.get("/navigate"), 400),
            (api.get("/navigate?id=ProjectSettings"), 400),
            (api.get("/navigate?id=no-such-doc"), 404),
            (api.get("/navigate", params={"id": script}), 500),
        ]
    with running_server(lambda: None) as api:
        answers.append((api.get("/navigate?id=x"), 503))
    for response, status in answers:
        assert response.status_code == status, response.text
        body = response.json()
        assert body["success"] is False, (status, body)
        assert isinstance(body["error"], str) and isinstance(body["reason"], str)


def test_a_bug_is_a_500_with_the_error_body(garden):
    class Broken:
        def game_export(self, project, collections, exported_by, *, compat=None, locale=None):
            raise RuntimeError("boom")

        def schema_export(self, project, collections, *, compat=None):
            raise KeyError("x")

    with running_server(garden, exports=Broken()) as api:
        body = _assert_error(api.get("/game-export"), 500, "internal_error")
        assert "RuntimeError" in body["reason"]
        _assert_error(api.get("/schema-export"), 500, "internal_error")
        assert api.get("/info").status_code == 200  # the server keeps serving


def _raw_json(answer: bytes) -> tuple[int, dict[str, str], dict[str, Any]]:
    """Status, headers and JSON body of a raw HTTP/1.1 answer."""
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    assert headers["content-type"] == "application/json", answer[:300]
    return int(lines[0].split(" ")[1]), headers, json.loads(body)


def _send_in_pieces(port: int, request: bytes, pieces: int) -> bytes:
    """Send ``request`` in ``pieces`` packets, a little apart, and return the whole answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        size = -(-len(request) // pieces)
        for start in range(0, len(request), size):
            try:
                sock.sendall(request[start:start + size])
            except OSError:  # the server answered and closed before the rest
                break
            if pieces > 1:
                time.sleep(0.005)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def test_malformed_requests_get_the_json_400_from_the_http_layer(shared_api):
    """h11 refuses these before the app runs; the answer is still the documented JSON error."""
    port = int(shared_api.url.rsplit(":", 1)[1])
    key = shared_api.options.api_key.encode()
    host = b"Host: 127.0.0.1:%d\r\n" % port
    cases = [
        (b"GET /info HTTP/1.1\r\nx-api-key: " + key + b"\r\n\r\n", "no Host header"),
        (b"GET /info HTTP/1.1\r\n" + host + host + b"x-api-key: " + key + b"\r\n\r\n", "more than one Host"),
        (b"GET /info HTTP/1.1\r\n" + host + b"bad header line\r\n\r\n", "malformed HTTP request ("),
    ]
    # h11 bounds the part of a head it has received: a head that grows past 64 KiB in pieces.
    cases.append((b"GET /info HTTP/1.1\r\n" + host + b"x-junk: " + b"j" * 70_000 + b"\r\n\r\n", "larger than 64 KiB"))
    for request, words in cases:
        status, headers, body = _raw_json(_send_in_pieces(port, request, 40))
        assert status == 400 and body["error"] == "bad_request", body
        assert body["reason"].startswith("malformed HTTP request") and words in body["reason"], body
        assert headers["connection"] == "close" and headers["x-content-type-options"] == "nosniff"
    answer = raw_request(port, b"GET /info HTTP/1.0\r\nx-api-key: " + key + b"\r\n\r\n")  # HTTP/1.0: Host optional
    status, _, body = _raw_json(answer)
    assert (status, body["error"]) == (403, "forbidden_host") and "no Host header" in body["reason"]


def test_a_refused_head_sent_at_once_still_gets_its_400_not_a_reset(shared_api):
    """The server answers after 64 KiB while the client is still sending: closing the socket with
    those bytes unread would reset it and destroy the answer (every one of 300 tries did before
    the lingering close), so the server half-closes and drops what keeps coming."""
    port = int(shared_api.url.rsplit(":", 1)[1])
    request = (b"GET /info HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nx-junk: " % port) + b"j" * 2_000_000 + b"\r\n\r\n"
    for _ in range(20):
        status, headers, body = _raw_json(_send_in_pieces(port, request, 1))
        assert (status, body["error"]) == (400, "bad_request") and "larger than 64 KiB" in body["reason"]
        assert headers["connection"] == "close"
    assert shared_api.get("/info").status_code == 200  # the server keeps serving


@pytest.mark.parametrize("pieces", [1, 40])
def test_an_oversized_query_string_is_a_json_400_however_it_arrives(shared_api, pieces):
    """Over 16 KiB is refused whether the request comes in one packet or in many."""
    port = int(shared_api.url.rsplit(":", 1)[1])
    key = shared_api.options.api_key.encode()
    request = (b"GET /db-dump?keys=" + b"%22a%22" * 2400 + b" HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nx-api-key: " % port
               + key + b"\r\nConnection: close\r\n\r\n")
    status, _, body = _raw_json(_send_in_pieces(port, request, pieces))
    assert (status, body["error"]) == (400, "bad_request")
    assert "longer than 16 KiB" in body["reason"]
    assert shared_api.get("/db-dump", params={"keys": '["a"]' + " " * 8000}).status_code == 200  # within bounds


def test_a_trailing_slash_is_an_unknown_path_not_a_redirect(shared_api):
    for path in ("/info/", "/game-export/", "/events/"):
        response = shared_api.get(path, follow_redirects=False)
        body = _assert_error(response, 404, "not_found")
        assert f"did you mean {path.rstrip('/')}?" in body["reason"]


def test_error_table_matches_the_documentation():
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    for spec in ERRORS:
        assert f"`{spec.code}`" in doc, spec.code
        assert str(spec.status) in doc


def test_options_are_read_at_start_not_per_request(garden):
    options = Options()
    with running_server(garden, options=options) as api:
        options.api_key = "changed"
        assert api.get("/info").status_code == 200  # the running server keeps its key until restart
        assert httpx.get(api.url + "/info", headers={"x-api-key": "changed"}).status_code == 401


def test_a_project_closed_under_the_server_is_503(garden):
    with running_server(garden) as api:
        garden.close()
        for path in ("/info", "/game-export", "/schema-export", "/db-dump", "/navigate?id=x", "/events",
                     "/attachments/x/blob"):
            _assert_error(api.get(path), 503, "no_project")


def test_every_endpoint_has_a_documented_section():
    from pathlib import Path

    from storyloom.api.state import ENDPOINTS

    doc = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    for path in ENDPOINTS:
        assert f"## `GET {path}`" in doc, path
    assert "## HEAD" in doc and "### Which error comes first" in doc
