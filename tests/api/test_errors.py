"""Every error: status, body ``{"error", "reason"}``, and the same answer for a missing or wrong key."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from storyloom.api.errors import ERRORS
from tests.api.support import Options, RecordingNavigation, raw_request, running_server

PROJECT_ENDPOINTS = ["/info", "/game-export", "/schema-export", "/db-dump", "/navigate?id=x", "/events"]
ALL_ENDPOINTS = [*PROJECT_ENDPOINTS, "/openapi.json"]


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
    assert set(bodies[0]) == {"error", "reason"}
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
@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH"])
def test_wrong_method_is_405_with_allow(shared_api, path, method):
    response = shared_api.client.request(method, path)
    body = _assert_error(response, 405, "method_not_allowed")
    assert method in body["reason"]
    assert "GET" in response.headers["allow"]


@pytest.mark.parametrize(
    "path",
    ["/info?x=1", "/game-export?collection=Scripts", "/schema-export?foo=", "/events?since=3",
     "/navigate?id=a&doc=b", "/db-dump?include_doc=false"],
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
        assert api.get("/openapi.json").status_code == 200


def test_a_bug_is_a_500_with_the_error_body(garden):
    class Broken:
        def parse_collections(self, values):
            return values

        def game_export_json(self, project, collections, exported_by):
            raise RuntimeError("boom")

        def schema_export_json(self, project, collections):
            raise KeyError("x")

    with running_server(garden, payloads=Broken()) as api:
        body = _assert_error(api.get("/game-export"), 500, "internal_error")
        assert "RuntimeError" in body["reason"]
        _assert_error(api.get("/schema-export"), 500, "internal_error")
        assert api.get("/info").status_code == 200  # the server keeps serving


def test_malformed_requests_do_not_reach_the_app(shared_api):
    port = int(shared_api.url.rsplit(":", 1)[1])
    answer = raw_request(port, b"GET /info HTTP/1.1\r\n\r\n")  # no Host at all
    assert answer.startswith(b"HTTP/1.1 400") or b"403" in answer.split(b"\r\n")[0]
    key = shared_api.options.api_key.encode()
    answer = raw_request(port, b"GET /info HTTP/1.0\r\nx-api-key: " + key + b"\r\n\r\n")
    assert b" 403 " in answer.split(b"\r\n")[0] and b"forbidden_host" in answer


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
        for path in ("/info", "/game-export", "/schema-export", "/db-dump", "/navigate?id=x", "/events"):
            _assert_error(api.get(path), 503, "no_project")
