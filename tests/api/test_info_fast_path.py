"""``GET /info`` is answered before FastAPI's routing (a tool or a game polls it): the same
answer as the route's, every protection first, and every failure answered by the route."""

from __future__ import annotations

import httpx

from tests.api.support import KEY, running_server

IGNORED = {"date"}


def _headers(response: httpx.Response) -> list[tuple[str, str]]:
    return [(k, v) for k, v in response.headers.multi_items() if k not in IGNORED]


def test_get_answers_what_the_route_answers(shared_api):
    fast = shared_api.get("/info")
    # HEAD goes through the route (FastAPI): same status and headers as GET's, no body.
    routed = shared_api.client.head("/info")
    assert fast.status_code == routed.status_code == 200
    assert _headers(fast) == _headers(routed)
    assert fast.headers["content-type"] == "application/json"
    assert fast.headers["cache-control"] == "no-store" and fast.headers["x-content-type-options"] == "nosniff"
    assert int(fast.headers["content-length"]) == len(fast.content)
    assert fast.json()["project"]["name"] == "Garden"


def test_protections_run_before_it(shared_api):
    assert httpx.get(shared_api.url + "/info").status_code == 401  # no key
    assert httpx.get(shared_api.url + "/info", headers={"x-api-key": KEY + "x"}).status_code == 401
    bad_host = shared_api.get("/info", headers={"host": "evil.example"})
    assert bad_host.status_code == 403 and bad_host.json()["error"] == "forbidden_host"
    assert shared_api.get("/info", headers={"origin": "https://evil.example"}).status_code == 403
    long_query = shared_api.get("/info?" + "a" * (17 * 1024))
    assert long_query.status_code == 400


def test_what_it_does_not_answer_goes_to_the_route(shared_api):
    unknown = shared_api.get("/info", params={"x": "1"})
    assert unknown.status_code == 400 and unknown.json()["error"] == "bad_request"
    assert shared_api.get("/info/").status_code == 404
    assert shared_api.client.post("/info").status_code == 405


def test_no_project_is_the_routes_503(garden):
    loaded = {"project": None}
    with running_server(lambda: loaded["project"]) as api:
        missing = api.get("/info")
        assert missing.status_code == 503 and missing.json()["error"] == "no_project"
        loaded["project"] = garden
        assert api.get("/info").json()["project"]["id"] == garden.id
        loaded["project"] = None
        assert api.get("/info").status_code == 503


def test_a_change_is_seen_at_once(api):
    before = api.get("/info").json()["project"]["description"]
    api.project.editor.update_settings({"projectDescription": "changed " + str(before)})
    assert api.get("/info").json()["project"]["description"] == "changed " + str(before)


def test_allowed_host_values_kept_between_requests_follow_the_settings():
    from storyloom.api.protection import KEPT_HOSTS, ProtectionSettings

    settings = ProtectionSettings(api_key=KEY, port=9001)
    assert settings.host_header_allowed(b"127.0.0.1:9001") and settings.host_header_allowed(b"127.0.0.1:9001")
    assert not settings.host_header_allowed(b"evil.example:9001") and not settings.host_header_allowed(None)
    settings.port = 9002  # the server bound another port: what was allowed is checked again
    assert not settings.host_header_allowed(b"127.0.0.1:9001")
    assert settings.host_header_allowed(b"localhost:9002")
    settings.allowed_hosts = frozenset({"storyloom.test"})
    assert settings.host_header_allowed(b"storyloom.test:9002")
    settings.allowed_hosts = frozenset()
    assert not settings.host_header_allowed(b"storyloom.test:9002")
    for port in range(KEPT_HOSTS * 2):  # many allowed values: only a few are remembered
        settings.port = 10_000 + port
        assert settings.host_header_allowed(f"[::1]:{10_000 + port}".encode())
    assert len(settings._allowed_raw[1]) <= KEPT_HOSTS
