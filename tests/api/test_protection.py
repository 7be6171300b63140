"""Bind address, Host (DNS rebinding) and Origin (CORS) refusals, and the key's requirements."""

from __future__ import annotations

import json
import logging

import httpx
import pytest

from storyloom.api import ApiServer, ApiStartError, StaticProjectProvider, generate_api_key
from storyloom.api.protection import ProtectionSettings, split_host_header
from tests.api.support import KEY, Options, raw_request, running_server


def _port(harness) -> int:
    return int(harness.url.rsplit(":", 1)[1])


def test_binds_loopback_by_default(shared_api):
    assert shared_api.server.host == "127.0.0.1"
    assert shared_api.url.startswith("http://127.0.0.1:")


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "LocalHost"])
def test_loopback_names_with_the_right_port_are_accepted(shared_api, host):
    response = shared_api.get("/info", headers={"host": f"{host}:{_port(shared_api)}"})
    assert response.status_code == 200


@pytest.mark.parametrize(
    "host",
    ["evil.example:{port}", "evil.example", "127.0.0.1:{other}", "localhost", "127.0.0.1",
     "localhost.evil.example:{port}", "127.0.0.2:{port}", "[::2]:{port}", "localhost:{port}x", ":{port}",
     "10.0.0.1:{port}"],
)
def test_other_hosts_are_refused_with_403(shared_api, host):
    port = _port(shared_api)
    value = host.format(port=port, other=port + 1 if port < 65535 else port - 1)
    response = shared_api.get("/info", headers={"host": value})
    assert response.status_code == 403
    body = response.json()
    assert body["error"] == "forbidden_host"
    assert set(body) == {"error", "reason"}
    assert "DNS rebinding" in body["reason"]


def test_host_refusal_also_protects_the_public_document(shared_api):
    response = httpx.get(shared_api.url + "/openapi.json", headers={"host": "evil.example:80"})
    assert response.status_code == 403
    assert response.json()["error"] == "forbidden_host"


def test_host_is_checked_before_the_key(shared_api):
    response = httpx.get(shared_api.url + "/info", headers={"host": "evil.example"})
    assert response.json()["error"] == "forbidden_host"


def test_split_host_header():
    assert split_host_header("LOCALHOST:9001") == ("localhost", 9001)
    assert split_host_header("[::1]:9001") == ("::1", 9001)
    assert split_host_header("[::1]") == ("::1", None)
    assert split_host_header("::1") is None
    assert split_host_header("a:b") is None
    assert split_host_header("a:123456") is None
    settings = ProtectionSettings(api_key="k", port=9001)
    assert settings.host_allowed("[::1]:9001")
    assert not settings.host_allowed(None)
    assert ProtectionSettings(api_key="k", port=80).host_allowed("localhost")


@pytest.mark.parametrize("origin", ["https://evil.example", "http://localhost:3000", "null",
                                    "http://127.0.0.1:{port}"])
def test_any_origin_is_refused_by_default(shared_api, origin):
    response = shared_api.get("/info", headers={"origin": origin.format(port=_port(shared_api))})
    assert response.status_code == 403
    body = response.json()
    assert body["error"] == "forbidden_origin"
    assert "access-control-allow-origin" not in response.headers


def test_preflight_from_an_unknown_origin_is_refused(shared_api):
    response = shared_api.client.options(
        "/info", headers={"origin": "https://evil.example", "access-control-request-method": "GET"}
    )
    assert response.status_code == 403
    assert "access-control-allow-origin" not in response.headers


def test_allowed_origins_get_cors_headers(garden):
    with running_server(garden, allowed_origins=["http://localhost:5173/"]) as api:
        response = api.get("/info", headers={"origin": "http://localhost:5173"})
        assert response.status_code == 200
        assert response.headers["access-control-allow-origin"] == "http://localhost:5173"
        assert "Origin" in response.headers["vary"]
        preflight = httpx.options(api.url + "/game-export", headers={
            "origin": "http://localhost:5173",
            "access-control-request-method": "GET",
            "access-control-request-headers": "x-api-key",
        })
        assert preflight.status_code == 204
        assert preflight.headers["access-control-allow-headers"] == "x-api-key"
        assert preflight.headers["access-control-allow-methods"] == "GET, HEAD"
        # The key is still required on the real request, and other origins are still refused.
        assert httpx.get(api.url + "/info", headers={"origin": "http://localhost:5173"}).status_code == 401
        assert api.get("/info", headers={"origin": "http://localhost:5174"}).status_code == 403


def test_allowed_hosts_extend_the_loopback_names(garden):
    with running_server(garden, allowed_hosts=["storyloom.test"]) as api:
        assert api.get("/info", headers={"host": f"storyloom.test:{_port(api)}"}).status_code == 200
        assert api.get("/info", headers={"host": "storyloom.test:1"}).status_code == 403


def test_another_bind_address_is_explicit_and_warns(garden, caplog, monkeypatch):
    """`host="0.0.0.0"` warns and asks the socket layer for 0.0.0.0; the bind is replaced so that
    the test itself listens on loopback only."""
    from storyloom.api import server as server_module

    asked: list[tuple[str, int]] = []
    real_bind = server_module.bind_socket

    def fake_bind(host: str, port: int):
        asked.append((host, port))
        return real_bind("127.0.0.1", port)

    monkeypatch.setattr(server_module, "bind_socket", fake_bind)
    caplog.set_level(logging.WARNING, logger="storyloom.api.server")
    with running_server(garden, host="0.0.0.0") as api:
        assert asked == [("0.0.0.0", 0)]
        warnings = [r.getMessage() for r in caplog.records if r.name == "storyloom.api.server"]
        assert warnings == [
            "warning: the API listens on 0.0.0.0, not only on this machine's loopback address: any "
            "computer that can reach this address can try keys. Use it only on a network you trust."
        ]
        # The Host check still applies: loopback names only (and the bind address if specific).
        assert api.get("/info").status_code == 200
        assert api.get("/info", headers={"host": f"192.0.2.1:{_port(api)}"}).status_code == 403


def test_loopback_binds_do_not_warn(garden, caplog):
    from storyloom.api.server import exposure_warning

    for host in ("127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"):
        assert exposure_warning(host) is None, host
    for host in ("0.0.0.0", "::", "192.168.1.10", "example.local"):
        assert host in (exposure_warning(host) or ""), host
    caplog.set_level(logging.WARNING, logger="storyloom.api.server")
    with running_server(garden):
        assert not [r for r in caplog.records if r.name == "storyloom.api.server"]


def test_api_cannot_start_with_an_empty_key(garden):
    for key in ("", "   "):
        server = ApiServer(StaticProjectProvider(garden), Options(api_key=key))
        with pytest.raises(ApiStartError, match="key is empty"):
            server.start()
        assert not server.running


@pytest.mark.parametrize("key", ["k" * 15, " " * 4 + "k" * 15 + " " * 4, "x"])
def test_api_cannot_start_with_a_key_shorter_than_16_characters(garden, key):
    server = ApiServer(StaticProjectProvider(garden), Options(api_key=key))
    with pytest.raises(ApiStartError) as refused:
        server.start()
    assert not server.running
    message = str(refused.value)
    length = len(key.strip())
    assert f"the API key is too short ({length} character{'s' if length > 1 else ''})" in message
    assert "at least 16 characters" in message and "`storyloom options set api.key new`" in message
    assert key.strip() not in message
    with running_server(garden, options=Options(api_key="k" * 16)) as api:  # 16 is enough
        assert api.get("/info").status_code == 200


def _two_keys(port: int, path: str, first: str, second: str) -> tuple[int, dict]:
    answer = raw_request(port, (
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nx-api-key: {first}\r\n"
        f"X-Api-Key: {second}\r\nConnection: close\r\n\r\n"
    ).encode())
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


@pytest.mark.parametrize(("first", "second"), [(KEY, KEY), (KEY, "wrong"), ("wrong", KEY), ("", KEY)])
@pytest.mark.parametrize("path", ["/info", "/navigate?id=x", "/openapi.json", "/nope"])
def test_two_key_headers_are_refused_whether_they_agree_or_not(shared_api, path, first, second):
    status, body = _two_keys(_port(shared_api), path, first, second)
    assert status == 400 and body["error"] == "bad_request"
    assert body["reason"] == ("the x-api-key header is sent more than once: send the key once (one x-api-key "
                              "header holding the key)")
    assert KEY not in body["reason"]
    assert shared_api.get("/info").status_code == 200  # one key header is fine


def test_generated_keys_are_strong_and_unique():
    keys = {generate_api_key() for _ in range(100)}
    assert len(keys) == 100
    assert all(len(k) >= 43 for k in keys)


def test_the_api_and_the_options_share_one_key_generator():
    """One recipe for keys: the options' Generate button uses the API's, never a copy."""
    from storyloom.api import keys, protection
    from storyloom.app import options

    assert generate_api_key is keys.generate_api_key is options.generate_api_key
    assert not hasattr(protection, "generate_api_key")


def test_responses_carry_no_store_and_nosniff(shared_api):
    for response in (shared_api.get("/info"), httpx.get(shared_api.url + "/info"), shared_api.get("/nope")):
        assert response.headers["cache-control"] == "no-store"
        assert response.headers["x-content-type-options"] == "nosniff"


def test_key_with_non_ascii_characters(garden):
    with running_server(garden, options=Options(api_key="clé-ключ-clé-ключ")) as api:
        ok = httpx.get(api.url + "/info", headers={"x-api-key": "clé-ключ-clé-ключ".encode()})
        assert ok.status_code == 200
        assert httpx.get(api.url + "/info", headers={"x-api-key": KEY}).status_code == 401
